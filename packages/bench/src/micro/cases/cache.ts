import { createCache } from '@mojafast/als';
import { LRUCache } from 'lru-cache';
import { keep, type MicroCase, seededRandom, timeAsyncLoop } from '../harness.js';

const keys = 1000;
const ttlMs = 60_000;

/**
 * The ALS's read-through cache (its own freshness check over an lru-cache without TTL, shared loads, a stale
 * window with one refresh) against lru-cache doing the same job itself: `ttl`, `allowStale` and `fetchMethod`,
 * read with `fetch()`, whose status says hit, stale or miss for the same counter. Measured on the path every
 * lookup takes, a fresh hit.
 */
export const cacheCase: MicroCase = {
  name: 'cache',
  operation: "one read-through get that hits (the ALS's participant and oracle caches), awaited, hit counted",
  load: '1,000 keys loaded beforehand, read in an order drawn from the seed, TTL 60 s, max 10,000',
  unit: 'ns/op',
  operations: 1_000_000,
  async setUp(seed) {
    const random = seededRandom(seed);
    const order = Array.from({ length: 8192 }, () => `participant-${Math.floor(random() * keys)}`);
    const mask = order.length - 1;
    const value = { endpoints: [{ type: 'FSPIOP_CALLBACK_URL_PARTIES_GET', value: 'http://127.0.0.1:1/x' }] };
    const load = async (_key: string) => value;
    const counts = { hit: 0, miss: 0, stale: 0 };

    const ours = createCache({
      name: 'participants',
      ttlMs,
      maxStaleMs: 30_000,
      max: 10_000,
      load,
      record: (_cache, result) => {
        counts[result]++;
      },
    });
    const library = new LRUCache<string, typeof value>({
      max: 10_000,
      ttl: ttlMs,
      allowStale: true,
      fetchMethod: load,
    });
    const status: LRUCache.Status<string, typeof value> = {};
    const libraryGet = async (key: string) => {
      const found = await library.fetch(key, { status });
      const fetch = status.fetch;
      counts[fetch === 'hit' ? 'hit' : fetch === 'stale' ? 'stale' : 'miss']++;
      return found;
    };
    for (let k = 0; k < keys; k++) {
      await ours.get(`participant-${k}`);
      await libraryGet(`participant-${k}`);
    }

    return {
      sides: [
        {
          label: 'createCache over lru-cache (ours)',
          role: 'ours',
          sample: (n) => timeAsyncLoop(n, (i) => ours.get(order[i & mask] as string)),
        },
        {
          label: 'lru-cache alone: ttl, allowStale, fetchMethod, fetch()',
          role: 'library',
          sample: (n) => timeAsyncLoop(n, (i) => libraryGet(order[i & mask] as string)),
        },
      ],
      async close() {
        keep(counts);
      },
    };
  },
};
