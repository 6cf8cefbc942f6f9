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

/** The party and the requester (the callback's FSPIOP-Destination) a GET /parties waits to hear about. */
export interface AwaitedCallback {
  readonly party: { readonly type: string; readonly id: string; readonly subId?: string | undefined };
  readonly requester: string;
}

export interface Admission {
  /** Takes a slot; false when all are taken (answer 503 2003 without doing anything else). */
  tryEnter(): boolean;
  leave(): void;
  /**
   * The taken slot now waits for the payee's callback about `awaited`, at most callbackWaitMs from now.
   * Called when the lookup is accepted, before its forward: a payee can call back before the ALS has read
   * the answer to its forward. `cancel` frees the slot now (the lookup ended in the ALS's own error
   * callback, no payee callback will come).
   */
  expectCallback(awaited: AwaitedCallback): { cancel(): void };
  /**
   * A PUT /parties callback about party `type`/`id`/`subId` for `requester` arrived: frees the oldest slot
   * waiting for it.
   */
  callbackArrived(type: string, id: string, subId: string | undefined, requester: string): void;
  readonly inFlight: number;
  readonly limit: number;
  close(): void;
}

/**
 * One slot waiting for a payee's callback. Waits for the same party ID (whatever its type, sub-ID and
 * requester) are chained oldest first through `next`: the ID alone keys the map, so no key string is built
 * (and hashed) per lookup and per callback; the rest is compared on the few waits of one ID.
 */
class Waiting {
  done = false;
  next: Waiting | undefined = undefined;

  constructor(
    readonly awaited: AwaitedCallback,
    readonly deadline: number,
    private readonly finish: (waiting: Waiting) => void,
  ) {}

  /** Whether this waits for the callback about `type`/`subId` (its ID is its chain's) for `requester`. */
  awaits(type: string, subId: string | undefined, requester: string): boolean {
    const { party } = this.awaited;
    return this.awaited.requester === requester && party.type === type && (party.subId ?? '') === (subId ?? '');
  }

  cancel(): void {
    this.finish(this);
  }
}

const sweepMs = 100;

export function createAdmission(limit: number, callbackWaitMs: number): Admission {
  let inFlight = 0;
  // party ID → its oldest wait not yet dropped. A chain only loses waits at its head (done ones, as they
  // lead it) and gains them at its tail, so it is always the newest of its ID's waits, in queue order.
  const byId = new Map<string, Waiting>();
  let queue: Waiting[] = [];
  let head = 0;

  const finish = (waiting: Waiting) => {
    if (waiting.done) return;
    waiting.done = true;
    inFlight--;
  };

  /**
   * Drops `waiting` from its ID's chain when it leads it. The sweep meets waits in queue order, so a wait it
   * drops leads its chain unless a callback already dropped it.
   */
  const unlink = (waiting: Waiting) => {
    const { id } = waiting.awaited.party;
    if (byId.get(id) !== waiting) return;
    if (waiting.next === undefined) byId.delete(id);
    else byId.set(id, waiting.next);
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
    expectCallback(awaited) {
      const waiting = new Waiting(awaited, performance.now() + callbackWaitMs, finish);
      queue.push(waiting);
      const { id } = awaited.party;
      let last = byId.get(id);
      if (last === undefined) byId.set(id, waiting);
      else {
        while (last.next !== undefined) last = last.next;
        last.next = waiting;
      }
      return waiting;
    },
    callbackArrived(type, id, subId, requester) {
      const head = byId.get(id);
      let waiting = head;
      while (waiting !== undefined && (waiting.done || !waiting.awaits(type, subId, requester))) waiting = waiting.next;
      if (waiting === undefined) return;
      finish(waiting);
      // The done waits leading the chain are dropped now; one further back is dropped once it leads.
      let first = head;
      while (first?.done) first = first.next;
      if (first === undefined) byId.delete(id);
      else if (first !== head) byId.set(id, first);
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
