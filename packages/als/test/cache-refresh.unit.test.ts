import { describe, expect, it } from 'vitest';
import { createCache } from '../src/upstream/cache.js';

describe('stale entries while the upstream is down', () => {
  it('serves the stale value and retries a failed refresh after a second, not on every get', async () => {
    let clock = 0;
    let loads = 0;
    let down = false;
    const cache = createCache<string>({
      name: 'participant',
      ttlMs: 100,
      maxStaleMs: 60_000,
      max: 10,
      now: () => clock,
      load: async () => {
        loads++;
        if (down) throw new Error('central-ledger unreachable');
        return 'payerfsp';
      },
    });
    expect(await cache.get('payerfsp')).toBe('payerfsp');
    expect(loads).toBe(1);

    down = true;
    clock = 200; // stale
    expect(await cache.get('payerfsp')).toBe('payerfsp');
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(loads).toBe(2);
    // Many gets within the second after the failed refresh: the stale value, no new load.
    for (let i = 0; i < 50; i++) {
      clock = 300 + i * 10;
      expect(await cache.get('payerfsp')).toBe('payerfsp');
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(loads).toBe(2);

    clock = 1_300; // a second after the failure: one new try
    expect(await cache.get('payerfsp')).toBe('payerfsp');
    await new Promise((resolve) => setImmediate(resolve));
    expect(loads).toBe(3);
  });
});
