import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SimSet, startSimSet } from '@mojafast/sim';
import { createDatabase } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from './admin-client.js';
import { call, lookupHeaders, newTraceId } from './helpers.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));
let sims: SimSet;
let profileDir: string;

beforeAll(() => {
  // `node dist/als` is the artefact under test: build it (incremental) rather than trust a stale one.
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-b', 'packages/fspiop', 'packages/als'], { cwd: root, stdio: 'inherit' });
  profileDir = mkdtempSync(join(tmpdir(), 'als-profile-'));
}, 120_000);
beforeAll(async () => {
  sims = await startSimSet({ fsps: 3 });
});
afterAll(async () => {
  await sims?.close();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

async function startCli(env: Record<string, string>): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  const child = spawn(process.execPath, ['dist/als'], {
    cwd: packageDir,
    env: {
      ...process.env,
      ALS_HOST: '127.0.0.1',
      ALS_PORT: '0',
      ALS_ADMIN_PORT: '0',
      ALS_SWITCH_ENDPOINT: sims.admin.url,
      ALS_ORACLE_URL: sims.oracle.url,
      ALS_PROFILE_DIR: profileDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8');
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`als exited with ${code}`)));
  });
  return { child, ready: JSON.parse(line) };
}

describe('node dist/als', () => {
  it('serves a lookup, writes a CPU profile on demand, and stops cleanly on SIGINT', async () => {
    const { child, ready } = await startCli({});
    expect(ready).toMatchObject({ ready: true, processes: 1 });
    sims.payee.setAlsUrl(ready.url as string);
    const traceId = newTraceId();
    expect((await call(`${ready.url}/parties/MSISDN/46750000001`, 'GET', lookupHeaders(traceId))).status).toBe(202);
    expect((await sims.payer?.waitForCallback(traceId, 5_000))?.kind).toBe('success');

    const profiled = await call(`${ready.admin}/profile?seconds=1`, 'POST', {});
    expect(profiled.status).toBe(200);
    const file = JSON.parse(profiled.body).file as string;
    expect(file.startsWith(profileDir)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveProperty('nodes');

    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it("starts on the original's config/default.json unchanged, with ALS_ rc overrides for its database and its proxy cache (off)", async () => {
    const database = await createDatabase({ prefix: 'als_original_config' });
    try {
      const { host, port, user, password } = database.connection;
      const { child, ready } = await startCli({
        CONFIG_FILE: fileURLToPath(new URL('./fixtures/account-lookup-service-default.json', import.meta.url)),
        // What a deployment sets over the chart's file: the original's own variables, unchanged.
        ALS_DATABASE__HOST: host,
        ALS_DATABASE__PORT: String(port),
        ALS_DATABASE__USER: user,
        ALS_DATABASE__PASSWORD: password,
        ALS_DATABASE__DATABASE: database.name,
        // The file enables the proxy cache on a Redis Cluster, which does not run here: the original would
        // not start either (original-config.test.ts); a deployment without one turns it off this way.
        ALS_PROXY_CACHE__enabled: 'false',
      });
      expect(ready).toMatchObject({ ready: true, processes: 1 });
      const health = await call(`${ready.admin}/health`, 'GET', {});
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ status: 'OK', startTime: expect.any(String) });
      // The registry is the file's database (DATABASE.DATABASE): empty, so GET /oracles lists nothing.
      const oracles = await call(`${ready.admin}/oracles`, 'GET', adminHeaders());
      expect(oracles.status).toBe(200);
      expect(JSON.parse(oracles.body)).toEqual([]);
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it('runs ALS_PROCESSES=2 workers on one port and stops them all on SIGTERM', async () => {
    const { child, ready } = await startCli({ ALS_PROCESSES: '2', ALS_PORT: '0' });
    expect(ready).toMatchObject({ ready: true, processes: 2 });
    const health = await call(`${ready.url}/health`, 'GET', {});
    expect(health.status).toBe(200);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
