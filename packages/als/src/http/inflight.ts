/**
 * The background work of accepted requests (each flow after its 202/200): shutdown drains it before the
 * pools it uses are closed, and tests wait for it before proving that nothing more is sent.
 */
export interface Inflight {
  /**
   * Keeps `work` visible until the returned release is called: its owner (the route context) learns of the
   * end anyway, so no reaction of its own is put on `work`.
   */
  hold(work: Promise<unknown>): () => void;
  /** Resolves once no held work is running (work started meanwhile is waited for too). */
  idle(): Promise<void>;
  /** Waits for what runs now, at most `timeoutMs`: a flow stuck on an upstream must not hold shutdown. */
  drain(timeoutMs: number): Promise<void>;
}

export function createInflight(): Inflight {
  const running = new Set<Promise<unknown>>();
  return {
    hold(work) {
      running.add(work);
      return () => running.delete(work);
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    async drain(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}
