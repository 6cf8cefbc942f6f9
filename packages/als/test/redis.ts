import { randomUUID } from 'node:crypto';
import { loadInfraSettings } from '@mojafast/testkit';
import { Redis } from 'ioredis';
import type { ProxyCacheRedisOptions } from '../src/upstream/proxy-cache-redis.js';

/**
 * A Redis database (1-15) that belongs to one test file, emptied before and after: the proxy cache's keys
 * are global (`als:*`, `dfsp:*`) and the timeout handler scans them all, so test files sharing the local
 * Redis must not share a database. Database 0 holds the counter that hands the numbers out. The file's mark
 * (OWNER_KEY, outside the `als:` and `dfsp:` spaces) is checked at the end: another file that was handed the
 * same number meanwhile fails the run instead of leaving two files mixing their keys unnoticed.
 */
export interface TestRedis {
  readonly options: ProxyCacheRedisOptions;
  readonly client: Redis;
  drop(): Promise<void>;
}

const OWNER_KEY = 'mojafast:test-owner';

export async function createTestRedis(): Promise<TestRedis> {
  const { host, port } = loadInfraSettings().redis;
  const counter = new Redis({ host, port, lazyConnect: true });
  await counter.connect();
  const db = ((await counter.incr('mojafast:test-db-counter')) % 15) + 1;
  counter.disconnect();
  const client = new Redis({ host, port, db, lazyConnect: true });
  await client.connect();
  await client.flushdb();
  const owner = randomUUID();
  await client.set(OWNER_KEY, owner);
  return {
    options: { type: 'redis', nodes: [{ host, port }], db, commandTimeoutMs: 2_000 },
    client,
    async drop() {
      if (client.status === 'end') return;
      const found = await client.get(OWNER_KEY);
      await client.flushdb();
      client.disconnect();
      if (found !== owner) throw new Error(`Redis database ${db} was used by another test file meanwhile`);
    },
  };
}
