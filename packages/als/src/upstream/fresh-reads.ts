/**
 * Uncached reads that callers share without ever being answered from before they asked: a caller that arrives
 * while a read of its key is in flight does not join it (that read was sent before the caller arrived, and may
 * miss a change made since) but waits for the next one, which starts when the one in flight settles and serves
 * every caller that arrived meanwhile. Each answer is therefore read after its caller arrived, as with a read
 * per caller, while a key has at most one read in flight and one waiting: under load a database round trip is
 * shared by every lookup that arrived during the previous one, instead of one each queueing for the pool.
 */
export interface FreshReads<V> {
  get(key: string): Promise<V>;
}

interface KeyState<V> {
  /** Settles when the read in flight settles (with or without a value). */
  inFlight: Promise<unknown>;
  /** The read that starts after the one in flight, shared by everyone who arrived during it. */
  next: Promise<V> | undefined;
}

export function createFreshReads<V>(load: (key: string) => Promise<V>): FreshReads<V> {
  const keys = new Map<string, KeyState<V>>();

  const start = (key: string): Promise<V> => {
    const read = load(key);
    const state: KeyState<V> = {
      inFlight: read.then(
        () => undefined,
        () => undefined,
      ),
      next: undefined,
    };
    keys.set(key, state);
    // The key is forgotten once its last read settles with none waiting, so idle keys hold nothing.
    state.inFlight.then(() => {
      if (keys.get(key) === state && state.next === undefined) keys.delete(key);
    });
    return read;
  };

  return {
    get(key) {
      const state = keys.get(key);
      if (state === undefined) return start(key);
      if (state.next === undefined) state.next = state.inFlight.then(() => start(key));
      return state.next;
    },
  };
}
