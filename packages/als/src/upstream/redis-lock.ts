import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/**
 * A lock held in Redis so that one ALS process in the cluster runs the timeout handler at a time
 * (the original's HANDLERS.TIMEOUT.DIST_LOCK, key `mutex:als-timeout-handler`, src/constants.js). SET NX
 * with a TTL: a holder that dies frees the lock when the TTL passes. Release deletes the key only while it
 * still holds our token, so a holder whose TTL ran out never frees a lock another process now holds.
 */
export interface RedisLock {
  acquire(): Promise<boolean>;
  release(): Promise<void>;
}

export const TIMEOUT_HANDLER_LOCK_KEY = 'mutex:als-timeout-handler';

const RELEASE_SCRIPT =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

export function createRedisLock(client: Redis | Cluster, key: string, ttlMs: number): RedisLock {
  let token: string | undefined;
  return {
    async acquire() {
      const candidate = randomUUID();
      try {
        const answer = await client.set(key, candidate, 'PX', ttlMs, 'NX');
        if (answer !== 'OK') return false;
        token = candidate;
        return true;
      } catch {
        // Redis away: not acquired; the next tick tries again (the original's createDistLock.js).
        return false;
      }
    },
    async release() {
      const held = token;
      token = undefined;
      if (held === undefined) return;
      try {
        await client.eval(RELEASE_SCRIPT, 1, key, held);
      } catch {
        // The TTL frees it.
      }
    },
  };
}
