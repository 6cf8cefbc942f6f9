import { LRUCache } from 'lru-cache';

export type CacheResult = 'hit' | 'miss' | 'stale';

export interface CacheOptions<V> {
  readonly name: string;
  /** Fresh for this long; 0 turns caching off (every get loads, concurrent ones still share a load). */
  readonly ttlMs: number;
  /** Past its TTL an entry is still served for this long while one refresh runs. */
  readonly maxStaleMs: number;
  readonly max: number;
  readonly load: (key: string) => Promise<V>;
  readonly record?: (cache: string, result: CacheResult) => void;
  readonly now?: () => number;
}

interface Entry<V> {
  readonly value: V;
  readonly loadedAt: number;
  /** After a failed refresh, no new one before this time. */
  refreshAfter: number;
}

/**
 * How long a stale entry whose refresh failed is served before the next refresh is tried. Without it,
 * while central-ledger was down every lookup started a refresh that failed (a connection each), and the
 * healthy lookups beside the outage ran at 0.4 of their rate (bench:als --scenario faults).
 */
const failedRefreshBackoffMs = 1_000;

export interface Cache<V> {
  /**
   * A held value (fresh, or stale within the window) as it is, not in a promise: the caches answer most of
   * a lookup's reads, and a promise per read cost each read an allocation and a turn of the microtask
   * queue, three times over through its callers' chain. A miss answers the load's promise.
   */
  get(key: string): V | Promise<V>;
  delete(key: string): void;
  clear(): void;
}

/**
 * A read-through cache around one upstream call: concurrent misses for a key share one load; an entry
 * past its TTL is served (stale) while one background refresh runs, within maxStaleMs; a failed load is
 * never stored, so an outage is not remembered as an answer. A delete also detaches a load in
 * flight, so an invalidation is not undone by an answer read before it. lru-cache's own `fetch()` does most of
 * this but has no bounded stale window nor back-off, and costs more per hit (`pnpm bench:micro --case cache`).
 */
export function createCache<V extends {}>(options: CacheOptions<V>): Cache<V> {
  const now = options.now ?? Date.now;
  // Age is checked here against loadedAt, not with lru-cache's own ttl, which reads a second clock and
  // keeps per-entry timestamps on every get and set.
  const lru = new LRUCache<string, Entry<V>>({ max: options.max });
  const servable = options.ttlMs + options.maxStaleMs;
  const loading = new Map<string, Promise<V>>();
  const record = (result: CacheResult) => options.record?.(options.name, result);

  const load = (key: string): Promise<V> => {
    const running = loading.get(key);
    if (running) return running;
    const promise = options.load(key).then(
      (value) => {
        if (loading.get(key) === promise) {
          loading.delete(key);
          if (options.ttlMs > 0) lru.set(key, { value, loadedAt: now(), refreshAfter: 0 });
        }
        return value;
      },
      (error: unknown) => {
        if (loading.get(key) === promise) loading.delete(key);
        throw error;
      },
    );
    loading.set(key, promise);
    return promise;
  };

  return {
    get(key) {
      const entry = lru.get(key);
      if (entry !== undefined) {
        const age = now() - entry.loadedAt;
        if (age <= options.ttlMs) {
          record('hit');
          return entry.value;
        }
        if (age <= servable) {
          record('stale');
          // The refresh's failure leaves the stale entry in place until it expires.
          if (now() >= entry.refreshAfter)
            load(key).catch(() => {
              entry.refreshAfter = now() + failedRefreshBackoffMs;
            });
          return entry.value;
        }
        // Past the stale window: as if it had never been loaded.
        lru.delete(key);
      }
      record('miss');
      return load(key);
    },
    delete(key) {
      lru.delete(key);
      loading.delete(key);
    },
    clear() {
      lru.clear();
      loading.clear();
    },
  };
}
