import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ConfigSchema, schemaFromModule, schemaFromUsage } from './config-schema.js';
import type { ServiceSpec } from './services.js';

/** The usage text of the simulators' CLI, read from its source (it runs on import, so it is not imported). */
export function simUsage(root: string): string {
  const source = readFileSync(join(root, 'packages/sim/src/sim.ts'), 'utf8');
  const usage = /const usage = `([^`]*)`/.exec(source)?.[1];
  if (!usage) throw new Error('packages/sim/src/sim.ts has no usage text');
  return usage;
}

/** `--port-base P   admin P, ... (0)`: the value in brackets at the end of a flag's line is its default. */
function usageDefaults(usage: string): Record<string, string> {
  const defaults: Record<string, string> = {};
  for (const line of usage.split('\n')) {
    const match = /^\s*--([\w-]+)\b.*\((\S+)\)\s*$/.exec(line);
    if (match?.[1] && match[2]) defaults[`SIM_${match[1].toUpperCase().replaceAll('-', '_')}`] = match[2];
  }
  return defaults;
}

/** The env variables and defaults a service really reads, from its own config module (or CLI usage). */
export async function loadSchema(root: string, spec: ServiceSpec): Promise<ConfigSchema> {
  if (!spec.configModule) {
    const usage = simUsage(root);
    return schemaFromUsage(usage, usageDefaults(usage));
  }
  const module = (await import(pathToFileURL(join(root, spec.packageDir, spec.configModule)).href)) as Record<
    string,
    unknown
  >;
  return schemaFromModule(module);
}
