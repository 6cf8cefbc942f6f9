import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSchema, type ServiceSpec, schemaFromModule, services, servicesRoot } from '../src/index.js';

const root = servicesRoot(resolve(fileURLToPath(new URL('../../../', import.meta.url))));

describe('schemaFromModule', () => {
  const schema = { port: { env: 'X_PORT' }, host: { env: 'X_HOST' } };
  const defaults = { port: 3001, host: '127.0.0.1' };

  it('reads a map schema and takes its defaults, not the schema itself, whichever is exported first', () => {
    for (const exports of [
      { aSchema: schema, bDefaults: defaults },
      { aDefaults: defaults, bSchema: schema },
    ]) {
      const read = schemaFromModule(exports);
      expect([...read.envNames].sort()).toEqual(['X_HOST', 'X_PORT']);
      expect(read.defaultOf('X_PORT')).toBe(3001);
      expect(read.defaultOf('X_OTHER')).toBeUndefined();
    }
  });

  it('reads a list of settings { key, env }', () => {
    const read = schemaFromModule({ settings: [{ key: 'port', env: 'X_PORT' }], defaults: { port: 4002 } });
    expect([...read.envNames]).toEqual(['X_PORT']);
    expect(read.defaultOf('X_PORT')).toBe(4002);
  });

  it('refuses a module without a schema or without its defaults (bad input: a module of other exports)', () => {
    expect(() => schemaFromModule({ loadConfig: () => undefined })).toThrow(/no schema with env names/);
    expect(() => schemaFromModule({ schema })).toThrow(/no defaults object/);
  });
});

describe('the simulators', () => {
  it('are read from their own config schema: every SIM_ variable, the port base defaulting to 0', async () => {
    const spec = services.find((s) => s.id === 'sim') as ServiceSpec;
    const read = await loadSchema(root, spec);
    // What the Kubernetes manifest sets (SIM_HOST, SIM_PUBLIC_HOST) and every fault setting, not only some.
    for (const env of ['SIM_HOST', 'SIM_PUBLIC_HOST', 'SIM_ALS_URL', 'SIM_PAYER_RESET_RATE', 'SIM_PARTIES_FILE'])
      expect(read.envNames).toContain(env);
    expect([...read.envNames].every((env) => env.startsWith('SIM_'))).toBe(true);
    expect(read.defaultOf('SIM_PORT_BASE')).toBe(0);
  });
});
