import { readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { call, type Stack, startStack } from './helpers.js';

// GET /health in the shape of the original's (central-services-shared HealthCheck: status, uptime,
// startTime, versionNumber, services), 503 while a service it needs is down, 200 once it is back.

// versionNumber: the ALS package's own version, as the original reports its package.json's.
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const stacks: Stack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

async function health(url: string) {
  const res = await call(`${url}/health`, 'GET', {});
  return { status: res.status, body: JSON.parse(res.body) as Record<string, unknown> };
}

/** A TCP relay to MariaDB that the test can cut and restore: "MySQL unreachable" without stopping it. */
async function startRelay(target: { host: string; port: number }, port = 0) {
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    sockets.add(client);
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => relay.listen(port, '127.0.0.1', resolve));
  const bound = (relay.address() as { port: number }).port;
  return {
    port: bound,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}

describe('GET /health', () => {
  it('answers 200 in the original shape on both ports, naming central-ledger', async () => {
    const stack = await startStack();
    stacks.push(stack);
    for (const url of [stack.als.url, stack.als.adminUrl]) {
      const { status, body } = await health(url);
      expect(status).toBe(200);
      expect(body).toEqual({
        status: 'OK',
        uptime: expect.any(Number),
        startTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        versionNumber: version,
        services: [{ name: 'participantEndpointService', status: 'OK' }],
      });
    }
  });

  it('answers 503 while central-ledger fails, 200 again once it answers; probed once per interval', async () => {
    const faults = { errorRate: 0 };
    const stack = await startStack({ sims: { adminFaults: faults }, config: { healthCheckIntervalMs: 200 } });
    stacks.push(stack);
    expect((await health(stack.als.url)).status).toBe(200);
    faults.errorRate = 1;
    await vi.waitFor(
      async () => {
        const { status, body } = await health(stack.als.url);
        expect(status).toBe(503);
        expect(body).toMatchObject({
          status: 'DOWN',
          services: [{ name: 'participantEndpointService', status: 'DOWN' }],
        });
      },
      { timeout: 5_000, interval: 50 },
    );
    faults.errorRate = 0;
    await vi.waitFor(async () => expect((await health(stack.als.url)).status).toBe(200), {
      timeout: 5_000,
      interval: 50,
    });
    // 50 requests within one interval share one probe: at most one reaches central-ledger.
    const before = stack.sims.admin.stats.health;
    await Promise.all(Array.from({ length: 50 }, () => health(stack.als.url)));
    expect(stack.sims.admin.stats.health - before).toBeLessThanOrEqual(1);
    expect(stack.sims.admin.stats.health).toBeGreaterThan(0);
  });
});

describe('GET /health with the registry in MySQL', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await database?.drop();
  });

  it('names the datastore, 503 while MySQL is unreachable, 200 when it is back', async () => {
    database = await createDatabase({ prefix: 'als_health' });
    const { host, port, user, password } = database.connection;
    let relay = await startRelay({ host, port });
    const stack = await startStack({
      config: {
        dbHost: '127.0.0.1',
        dbPort: relay.port,
        dbUser: user,
        dbPassword: password,
        dbName: database.name,
        healthCheckIntervalMs: 200,
        connectTimeoutMs: 1_000,
      },
    });
    stacks.push(stack);
    try {
      const ok = await health(stack.als.url);
      expect(ok.status).toBe(200);
      expect(ok.body.services).toEqual([
        { name: 'datastore', status: 'OK' },
        { name: 'participantEndpointService', status: 'OK' },
      ]);
      const relayPort = relay.port;
      await relay.close();
      await vi.waitFor(
        async () => {
          const down = await health(stack.als.url);
          expect(down.status).toBe(503);
          expect(down.body.services).toEqual([
            { name: 'datastore', status: 'DOWN' },
            { name: 'participantEndpointService', status: 'OK' },
          ]);
        },
        { timeout: 10_000, interval: 100 },
      );
      relay = await startRelay({ host, port }, relayPort);
      await vi.waitFor(async () => expect((await health(stack.als.url)).status).toBe(200), {
        timeout: 10_000,
        interval: 100,
      });
    } finally {
      await relay.close();
    }
  });
});
