import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type SimSet, startSimSet } from '@mojafast/sim';
import { createDatabase } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminHeaders } from './admin-client.js';
import { call, lookupHeaders, newTraceId } from './helpers.js';
import { createTestRedis } from './redis.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));
let sims: SimSet;
let profileDir: string;

beforeAll(async () => {
  // `node dist/als` is the artefact under test: build it (incremental) rather than trust a stale one. Not
  // synchronously: a worker whose event loop is blocked for a minute loses its connection to the runner.
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-b', 'packages/fspiop', 'packages/als'], { cwd: root });
  profileDir = mkdtempSync(join(tmpdir(), 'als-profile-'));
}, 120_000);
beforeAll(async () => {
  sims = await startSimSet({ fsps: 3 });
});
afterAll(async () => {
  await sims?.close();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

async function startCli(
  env: Record<string, string>,
  args: readonly string[] = [],
): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  const child = spawn(process.execPath, ['dist/als', ...args], {
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
    stdio: ['ignore', 'pipe', env.ALS_PROFILE_DIR === undefined ? 'inherit' : 'pipe'],
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

  /** A port nothing listens on (bound, then released): the port a process must not open. */
  async function freePort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }
  const refused = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
  async function stop(child: ChildProcess) {
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  }

  it('`server --api` (chart-service) answers FSPIOP and /health, and opens no admin port', async () => {
    const adminPort = await freePort();
    const { child, ready } = await startCli({ ALS_ADMIN_PORT: String(adminPort) }, ['server', '--api']);
    expect(ready).toEqual({ ready: true, command: 'server --api', url: expect.any(String), processes: 1 });
    sims.payee.setAlsUrl(ready.url as string);
    const traceId = newTraceId();
    expect((await call(`${ready.url}/parties/MSISDN/46750000002`, 'GET', lookupHeaders(traceId))).status).toBe(202);
    expect((await sims.payer?.waitForCallback(traceId, 5_000))?.kind).toBe('success');
    const health = await call(`${ready.url}/health`, 'GET', {});
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({
      status: 'OK',
      services: [{ name: 'participantEndpointService', status: 'OK' }],
    });
    // The admin API is not served here at all: its port refuses the connection.
    expect(await refused(adminPort)).toBe(true);
    expect((await call(`${ready.url}/oracles`, 'GET', adminHeaders())).status).toBe(404);
    await stop(child);
  });

  it('`server --admin` (chart-admin) answers /oracles and /health (its datastore only), and opens no API port', async () => {
    const database = await createDatabase({ prefix: 'als_admin_only' });
    try {
      const apiPort = await freePort();
      const { host, port, user, password } = database.connection;
      const { child, ready } = await startCli(
        {
          ALS_PORT: String(apiPort),
          ALS_DB_HOST: host,
          ALS_DB_PORT: String(port),
          ALS_DB_USER: user,
          ALS_DB_PASSWORD: password,
          ALS_DB_NAME: database.name,
        },
        ['server', '--admin'],
      );
      expect(ready).toEqual({ ready: true, command: 'server --admin', admin: expect.any(String), processes: 1 });
      const health = await call(`${ready.admin}/health`, 'GET', {});
      expect(health.status).toBe(200);
      // The original's admin server checks its datastore alone (src/api/health.js getSubServices, isAdmin).
      expect(JSON.parse(health.body)).toEqual({
        status: 'OK',
        uptime: expect.any(Number),
        startTime: expect.any(String),
        versionNumber: expect.any(String),
        services: [{ name: 'datastore', status: 'OK' }],
      });
      const oracles = await call(`${ready.admin}/oracles`, 'GET', adminHeaders());
      expect(oracles.status).toBe(200);
      expect(JSON.parse(oracles.body)).toEqual([]);
      expect(await refused(apiPort)).toBe(true);
      await stop(child);
    } finally {
      await database.drop();
    }
  });

  it('`server` serves both APIs; `server --api --admin` the API only, as the original, saying so', async () => {
    const both = await startCli({}, ['server']);
    expect(both.ready).toMatchObject({ command: 'server', url: expect.any(String), admin: expect.any(String) });
    expect((await call(`${both.ready.admin}/oracles`, 'GET', adminHeaders())).status).toBe(200);
    await stop(both.child);

    const adminPort = await freePort();
    const apiOnly = await startCli({ ALS_ADMIN_PORT: String(adminPort) }, ['server', '--api', '--admin']);
    expect(apiOnly.ready).not.toHaveProperty('admin');
    expect(await refused(adminPort)).toBe(true);
    await stop(apiOnly.child);
  });

  it('`handlers --timeout` runs the timeout handler alone: /health and /metrics on its monitoring port', async () => {
    const [apiPort, adminPort] = [await freePort(), await freePort()];
    // Its own Redis database: the handler scans every expiry key of the one it is given.
    const redis = await createTestRedis();
    const node = redis.options.nodes[0] as { host: string; port: number };
    const { child, ready } = await startCli(
      {
        ALS_PORT: String(apiPort),
        ALS_ADMIN_PORT: String(adminPort),
        ALS_MONITORING_PORT: '0',
        // Off as the file may say: the handler process connects its proxy cache all the same, as the original's.
        ALS_PROXY_CACHE: 'off',
        ALS_PROXY_CACHE_NODES: `${node.host}:${node.port}`,
        ALS_PROXY_CACHE_DB: String(redis.options.db ?? 0),
      },
      ['handlers', '--timeout'],
    );
    expect(ready).toEqual({ ready: true, command: 'handlers --timeout', monitoring: expect.any(String), processes: 1 });
    const health = await call(`${ready.monitoring}/health`, 'GET', {});
    expect(health.status).toBe(200);
    // src/handlers/monitoring/plugins/health.js: the proxy cache is its one sub-service.
    expect(JSON.parse(health.body)).toMatchObject({ status: 'OK', services: [{ name: 'proxyCache', status: 'OK' }] });
    expect((await call(`${ready.monitoring}/metrics`, 'GET', {})).body).toContain('als_');
    expect(await refused(apiPort)).toBe(true);
    expect(await refused(adminPort)).toBe(true);
    await stop(child);
    await redis.drop();
  });

  it('ALS_PROCESSES=2 keeps the split: two `server --api` workers, no admin port', async () => {
    const adminPort = await freePort();
    const { child, ready } = await startCli({ ALS_PROCESSES: '2', ALS_ADMIN_PORT: String(adminPort) }, [
      'server',
      '--api',
    ]);
    expect(ready).toMatchObject({ ready: true, command: 'server --api', processes: 2 });
    expect(ready).not.toHaveProperty('admin');
    expect((await call(`${ready.url}/health`, 'GET', {})).status).toBe(200);
    expect(await refused(adminPort)).toBe(true);
    await stop(child);
  });

  it('a profile it cannot write (read-only file system) is a logged error and a 500, never a crash', async () => {
    // The charts run the ALS with readOnlyRootFilesystem: it writes nothing unless a profile is asked for.
    const { child, ready } = await startCli({ ALS_PROFILE_DIR: '/proc/no-such-dir', ALS_PROFILE_SECONDS: '1' });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const profiled = await call(`${ready.admin}/profile?seconds=1`, 'POST', {});
    expect(profiled.status).toBe(500);
    expect(JSON.parse(profiled.body)).toEqual({
      errorInformation: { errorCode: '2001', errorDescription: 'Internal server error' },
    });
    child.kill('SIGUSR2');
    await vi.waitFor(() => expect(stderr).toContain('"msg":"cpu profile failed"'), { timeout: 20_000 });
    expect((await call(`${ready.url}/health`, 'GET', {})).status).toBe(200);
    await stop(child);
  }, 30_000);

  it.each([
    [['serve', '--api'], 'unknown command "serve"'],
    [['server', '--apu'], 'unknown option "--apu" of the server command'],
    [['handlers'], 'handlers names no handler'],
  ])('refuses %j with one plain line and exit 2', async (args, words) => {
    const child = spawn(process.execPath, ['dist/als', ...args], {
      cwd: packageDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining(`als: invalid command line: ${words}`)]);
  });
});
