/**
 * Admission control: how many lookups one process has in flight, and whether one more may start.
 *
 * A lookup is in flight from its request until its outcome has passed through the ALS: for
 * /participants until the Hub's callback is sent; for GET /parties until the payee's PUT callback for it
 * arrives (or the ALS sent the error callback itself), at most `callbackWaitMs` after the GET was
 * accepted. Counting only up to the forward bounded nothing: under overload the callbacks queued behind
 * new lookups and every accepted lookup grew slow. The wait is short: a payee slower
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

/**
 * One slot waiting for a payee's callback. Waits for the same key (the same party asked again by the same
 * requester before the first answer came) are chained oldest first through `next`.
 */
class Waiting {
  done = false;
  next: Waiting | undefined = undefined;

  constructor(
    readonly key: string,
    readonly deadline: number,
    private readonly finish: (waiting: Waiting) => void,
  ) {}

  cancel(): void {
    this.finish(this);
  }
}

const sweepMs = 100;

export function createAdmission(limit: number, callbackWaitMs: number): Admission {
  let inFlight = 0;
  // key → its oldest wait not yet known to be over (done ones are skipped and dropped as they are met).
  const byKey = new Map<string, Waiting>();
  let queue: Waiting[] = [];
  let head = 0;

  const finish = (waiting: Waiting) => {
    if (waiting.done) return;
    waiting.done = true;
    inFlight--;
  };

  /** Drops `waiting` from its key's chain when it leads it (a done wait further back is skipped later). */
  const unlink = (waiting: Waiting) => {
    if (byKey.get(waiting.key) !== waiting) return;
    if (waiting.next === undefined) byKey.delete(waiting.key);
    else byKey.set(waiting.key, waiting.next);
  };

  const sweep = setInterval(() => {
    const now = performance.now();
    while (head < queue.length) {
      const waiting = queue[head] as Waiting;
      if (!waiting.done) {
        if (waiting.deadline > now) break;
        finish(waiting);
      }
      unlink(waiting);
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
      const waiting = new Waiting(key, performance.now() + callbackWaitMs, finish);
      queue.push(waiting);
      let last = byKey.get(key);
      if (last === undefined) byKey.set(key, waiting);
      else {
        while (last.next !== undefined) last = last.next;
        last.next = waiting;
      }
      return waiting;
    },
    callbackArrived(key) {
      let waiting = byKey.get(key);
      while (waiting?.done) waiting = waiting.next;
      if (waiting === undefined) {
        byKey.delete(key);
        return;
      }
      finish(waiting);
      if (waiting.next === undefined) byKey.delete(key);
      else byKey.set(key, waiting.next);
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
