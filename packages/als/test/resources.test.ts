import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConfigValues, loadConfig } from '../src/config/index.js';
import { startAls } from '../src/main.js';
import { createTestRedis, type TestRedis } from './redis.js';

/**
 * Everything the ALS opens is released by close(), and by a start that fails part-way: the process's active
 * handles (sockets, timers, file watchers) are what they were before the start. The ALS runs with every part
 * that holds one: the oracle registry in MariaDB, the proxy cache in Redis with its timeout handler, the JWS
 * key watcher, the upstream pools, the admission sweep and both servers.
 */

/**
 * Resolves once no kind of active handle outnumbers its count in `before` (the test runner's own timers come
 * and go, so fewer is fine), polling on the loop's check phase: no timer of its own, bounded by `ms`.
 */
async function handlesBackTo(before: Record<string, number>, ms = 5_000): Promise<void> {
  const extra = () =>
    Object.fromEntries(Object.entries(activeHandles()).filter(([kind, count]) => count > (before[kind] ?? 0)));
  const deadline = performance.now() + ms;
  while (performance.now() < deadline && Object.keys(extra()).length > 0)
    await new Promise((resolve) => setImmediate(resolve));
  expect(extra()).toEqual({});
}

/** The process's active handles and requests, by kind. */
function activeHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo().sort()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

const dir = mkdtempSync(join(tmpdir(), 'als-resources-'));
const hub = generateKeyPairSync('rsa', { modulusLength: 2048 });
mkdirSync(join(dir, 'keys'));
writeFileSync(join(dir, 'keys', 'payeefsp1.pem'), hub.publicKey.export({ type: 'spki', format: 'pem' }));
writeFileSync(join(dir, 'hub.key'), hub.privateKey.export({ type: 'pkcs8', format: 'pem' }));

let database: TestDatabase;
let redis: TestRedis;
beforeAll(async () => {
  database = await createDatabase({ prefix: 'als_resources' });
  redis = await createTestRedis();
});
afterAll(async () => {
  await redis?.drop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

function everyPartOn(overrides: Partial<ConfigValues> = {}) {
  const { host, port, user, password } = database.connection;
  const node = redis.options.nodes[0];
  return loadConfig(
    {},
    {
      host: '127.0.0.1',
      port: 0,
      adminPort: 0,
      logLevel: 'silent',
      // Nothing is asked of central-ledger while the ALS starts and closes.
      switchEndpoint: 'http://127.0.0.1:9',
      dbHost: host,
      dbPort: port,
      dbUser: user,
      dbPassword: password,
      dbName: database.name,
      proxyCache: 'on',
      proxyCacheType: 'redis',
      proxyCacheNodes: `${node?.host}:${node?.port}`,
      proxyCacheDb: redis.options.db,
      timeoutHandler: 'on',
      jwsValidate: 'on',
      jwsVerificationKeysDirectory: join(dir, 'keys'),
      jwsSign: 'on',
      jwsSigningKeyPath: join(dir, 'hub.key'),
      ...overrides,
    },
  );
}

describe('resources of the ALS', () => {
  it('close() releases every socket, timer and watcher the ALS opened', async () => {
    const before = activeHandles();
    const als = await startAls(everyPartOn());
    const running = activeHandles();
    // The servers, the database and Redis hold sockets; the key watcher a file watcher; the sweeps and the
    // timeout handler's schedule timers.
    expect(running.TCPServerWrap ?? 0).toBeGreaterThanOrEqual((before.TCPServerWrap ?? 0) + 2);
    expect(running.TCPSocketWrap ?? 0).toBeGreaterThanOrEqual((before.TCPSocketWrap ?? 0) + 2);
    expect(running.FSEventWrap ?? 0).toBeGreaterThan(before.FSEventWrap ?? 0);
    expect(running.Timeout ?? 0).toBeGreaterThan(before.Timeout ?? 0);
    await als.close();
    // A socket's handle goes a loop turn after its close.
    await handlesBackTo(before);
  });

  it('a start that fails once everything is open (the admin port taken) closes all of it', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const before = activeHandles();
      const adminPort = (taken.address() as AddressInfo).port;
      await expect(startAls(everyPartOn({ adminPort }))).rejects.toThrow('EADDRINUSE');
      await handlesBackTo(before);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a start that fails half-way (the proxy cache unreachable) closes the database opened before it', async () => {
    const closed: Server = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const unreachable = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const before = activeHandles();
    await expect(startAls(everyPartOn({ proxyCacheNodes: `127.0.0.1:${unreachable}` }))).rejects.toThrow(
      'cannot be reached',
    );
    await handlesBackTo(before);
  });
});
