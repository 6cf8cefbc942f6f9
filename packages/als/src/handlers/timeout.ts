import { CronJob } from 'cron';
import type { ProxyCache } from '../discovery/proxy-cache.js';
import type { RedisLock } from '../upstream/redis-lock.js';

/**
 * The timeout handler (the original's src/handlers/TimeoutHandler.js): on its cron schedule, answers every
 * inter-scheme lookup whose expiry passed with no proxy finding the party. A run is skipped while the
 * previous one is still going; with the lock, one process in the whole cluster runs at a time. Each
 * expired lookup is answered once however many handlers run (the cache hands an expired key to one
 * caller only, src/upstream/proxy-cache-redis.ts).
 */
export interface TimeoutHandlerOptions {
  readonly cache: ProxyCache;
  readonly lock: RedisLock | undefined;
  readonly schedule: string;
  readonly timeZone: string;
  readonly batchSize: number;
  /** Sends the expired lookup's error callback (discovery/inter-scheme.ts answerExpiredLookup). */
  readonly answer: (key: string) => Promise<void>;
  readonly onError?: (error: unknown) => void;
}

export interface TimeoutHandler {
  /** One run now: answers how many expired lookups it answered; undefined when it did not get the lock. */
  runOnce(): Promise<number | undefined>;
  stop(): Promise<void>;
}

export function startTimeoutHandler(options: TimeoutHandlerOptions): TimeoutHandler {
  let running: Promise<number | undefined> | undefined;

  const run = async (): Promise<number | undefined> => {
    if (options.lock && !(await options.lock.acquire())) return undefined;
    try {
      return await options.cache.processExpiredAlsKeys(options.answer, options.batchSize);
    } finally {
      await options.lock?.release();
    }
  };
  const runOnce = () => {
    if (running) return running;
    running = run().finally(() => {
      running = undefined;
    });
    return running;
  };

  const job = CronJob.from({
    cronTime: options.schedule,
    timeZone: options.timeZone,
    start: true,
    onTick: () => {
      runOnce().catch((error: unknown) => options.onError?.(error));
    },
  });

  return {
    runOnce,
    async stop() {
      await job.stop();
      await running?.catch(() => undefined);
    },
  };
}
