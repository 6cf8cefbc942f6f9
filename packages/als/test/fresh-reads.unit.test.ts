import { describe, expect, it } from 'vitest';
import { createFreshReads } from '../src/upstream/fresh-reads.js';

/** A store whose reads the test answers one at a time; each read returns the value current when it started. */
function heldStore() {
  let value = 'v0';
  const pending: { key: string; settle: (fail?: Error) => void }[] = [];
  const load = (key: string) =>
    new Promise<string>((resolve, reject) => {
      const seen = `${key}:${value}`;
      pending.push({ key, settle: (fail) => (fail ? reject(fail) : resolve(seen)) });
    });
  return {
    load,
    pending,
    change: (next: string) => {
      value = next;
    },
    /** Answers the oldest read, then lets the reads it releases start. */
    async answer(fail?: Error) {
      const read = pending.shift();
      if (read === undefined) throw new Error('no read in flight');
      read.settle(fail);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('fresh shared reads', () => {
  it('answers a caller that arrived during a read from the next read, started after it', async () => {
    const store = heldStore();
    const reads = createFreshReads(store.load);
    const first = reads.get('MSISDN');
    store.change('v1');
    const second = reads.get('MSISDN');
    const third = reads.get('MSISDN');
    expect(store.pending).toHaveLength(1);
    await store.answer();
    expect(await first).toBe('MSISDN:v0');
    // The second read started only once the first settled, and serves both callers who arrived during it.
    expect(store.pending).toHaveLength(1);
    await store.answer();
    expect(await second).toBe('MSISDN:v1');
    expect(await third).toBe('MSISDN:v1');
    expect(store.pending).toHaveLength(0);
  });

  it('reads each key on its own', async () => {
    const store = heldStore();
    const reads = createFreshReads(store.load);
    const msisdn = reads.get('MSISDN');
    const email = reads.get('EMAIL');
    expect(store.pending.map((r) => r.key)).toEqual(['MSISDN', 'EMAIL']);
    await store.answer();
    await store.answer();
    expect([await msisdn, await email]).toEqual(['MSISDN:v0', 'EMAIL:v0']);
  });

  it('gives a failed read to its own caller only, and the callers waiting get the next read', async () => {
    const store = heldStore();
    const reads = createFreshReads(store.load);
    // The assertion is attached before the read fails, so the rejection is always handled.
    const first = expect(reads.get('MSISDN')).rejects.toThrow('connection lost');
    const second = reads.get('MSISDN');
    await store.answer(new Error('connection lost'));
    await first;
    await store.answer();
    expect(await second).toBe('MSISDN:v0');
  });

  it('gives a failed next read to everyone waiting on it, and starts again on the next caller', async () => {
    const store = heldStore();
    const reads = createFreshReads(store.load);
    const first = reads.get('MSISDN');
    const waiting = [reads.get('MSISDN'), reads.get('MSISDN')].map((read) => expect(read).rejects.toThrow('timeout'));
    await store.answer();
    await store.answer(new Error('timeout'));
    expect(await first).toBe('MSISDN:v0');
    await Promise.all(waiting);
    const again = reads.get('MSISDN');
    expect(store.pending).toHaveLength(1);
    await store.answer();
    expect(await again).toBe('MSISDN:v0');
  });

  it('starts a read at once for a caller after the key went idle', async () => {
    const store = heldStore();
    const reads = createFreshReads(store.load);
    const first = reads.get('MSISDN');
    await store.answer();
    await first;
    store.change('v2');
    const later = reads.get('MSISDN');
    expect(store.pending).toHaveLength(1);
    await store.answer();
    expect(await later).toBe('MSISDN:v2');
  });
});
