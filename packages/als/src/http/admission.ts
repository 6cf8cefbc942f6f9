/**
 * Admission control: how many lookups one process has in flight, and whether one more may start.
 *
 * A lookup is in flight from its request until its outcome has passed through the ALS: for
 * /participants until the Hub's callback is sent; for GET /parties until the payee's PUT callback for it
 * arrives (or the ALS sent the error callback itself), at most `callbackWaitMs` after the GET was
 * accepted. Counting only up to the forward bounded nothing: under overload the callbacks queued behind
 * new lookups and every accepted lookup grew slow (issue #11, item 3). The wait is short: a payee slower
 * than that is I/O, not work, and must not hold the capacity. The check on the hot path is one
 * comparison; the waits are kept in one FIFO swept every `sweepMs`, no timer per lookup.
 */
export interface Admission {
  /** Takes a slot; false when all are taken (answer 503 2003 without doing anything else). */
  tryEnter(): boolean;
  leave(): void;
  /**
   * The taken slot now waits for the payee's callback identified by `key` (see callbackKey), at most
   * callbackWaitMs from now. Called when the lookup is accepted, before its forward: a payee can call back
   * before the ALS has read the answer to its forward. `cancel` frees the slot now (the lookup ended in
   * the ALS's own error callback, no payee callback will come).
   */
  expectCallback(key: string): { cancel(): void };
  /** A PUT /parties callback for `key` arrived: frees the oldest slot waiting for it. */
  callbackArrived(key: string): void;
  readonly inFlight: number;
  readonly limit: number;
  close(): void;
}

/** The party and the requester (the callback's FSPIOP-Destination) a GET /parties waits to hear about. */
export function callbackKey(type: string, id: string, subId: string | undefined, requester: string): string {
  return `${requester} ${type} ${id} ${subId ?? ''}`;
}

interface Waiting {
  readonly key: string;
  readonly deadline: number;
  done: boolean;
}

const sweepMs = 100;

export function createAdmission(limit: number, callbackWaitMs: number): Admission {
  let inFlight = 0;
  const byKey = new Map<string, Waiting[]>();
  let queue: Waiting[] = [];
  let head = 0;

  const finish = (waiting: Waiting) => {
    if (waiting.done) return;
    waiting.done = true;
    inFlight--;
  };

  const sweep = setInterval(() => {
    const now = performance.now();
    while (head < queue.length) {
      const waiting = queue[head] as Waiting;
      if (!waiting.done) {
        if (waiting.deadline > now) break;
        finish(waiting);
      }
      const list = byKey.get(waiting.key);
      if (list) {
        const rest = list.filter((w) => !w.done);
        if (rest.length === 0) byKey.delete(waiting.key);
        else byKey.set(waiting.key, rest);
      }
      head++;
    }
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  }, sweepMs);
  sweep.unref();

  return {
    tryEnter() {
      if (inFlight >= limit) return false;
      inFlight++;
      return true;
    },
    leave() {
      inFlight--;
    },
    expectCallback(key) {
      const waiting: Waiting = { key, deadline: performance.now() + callbackWaitMs, done: false };
      queue.push(waiting);
      const list = byKey.get(key);
      if (list) list.push(waiting);
      else byKey.set(key, [waiting]);
      return { cancel: () => finish(waiting) };
    },
    callbackArrived(key) {
      const list = byKey.get(key);
      if (!list) return;
      const waiting = list.find((w) => !w.done);
      if (waiting) finish(waiting);
    },
    get inFlight() {
      return inFlight;
    },
    limit,
    close() {
      clearInterval(sweep);
    },
  };
}
