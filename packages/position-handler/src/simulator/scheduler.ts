import type { Prng } from './prng.js';

/** Something the simulated world will do when the scheduler picks it: a reply of the log or the store. */
interface SimEvent {
  /** The member whose call it answers; its events vanish when it crashes. 0: the world's own. */
  readonly owner: number;
  readonly fire: () => void;
}

interface Timer extends SimEvent {
  readonly at: number;
  readonly order: number;
}

/**
 * The simulated clock and the order of everything asynchronous. Every reply of the simulated log and store,
 * and every sleep, is an event here; nothing resolves by itself. One step: let every microtask run (the code
 * under test reacts to the last event until it waits again), then fire one event chosen by the PRNG, or, when
 * only timers remain (or the PRNG says so), move the clock to the earliest timer and fire it. So one seed is one
 * interleaving, and replays it.
 */
export class Scheduler {
  #now = 0;
  #order = 0;
  readonly #ready: SimEvent[] = [];
  readonly #timers: Timer[] = [];

  constructor(private readonly prng: Prng) {}

  /** Simulated milliseconds since the start. */
  get now(): number {
    return this.#now;
  }

  get idle(): boolean {
    return this.#ready.length === 0 && this.#timers.length === 0;
  }

  /** An event to fire at a step the PRNG chooses. */
  post(owner: number, fire: () => void): void {
    this.#ready.push({ owner, fire });
  }

  /** An event to fire once the clock reaches now + ms. */
  at(owner: number, ms: number, fire: () => void): void {
    this.#timers.push({ owner, fire, at: this.#now + ms, order: this.#order++ });
  }

  /** A promise the scheduler resolves (or rejects) when it picks it: `answer` says which, at that step. */
  reply<T>(owner: number, answer: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.post(owner, () => {
        try {
          resolve(answer());
        } catch (error) {
          reject(error);
        }
      }),
    );
  }

  sleep(owner: number, ms: number): Promise<void> {
    return new Promise((resolve) => this.at(owner, ms, resolve));
  }

  /** A crashed member's calls are never answered. */
  forget(owner: number): void {
    const keep = <E extends SimEvent>(events: E[]) => {
      const left = events.filter((e) => e.owner !== owner);
      events.length = 0;
      events.push(...left);
    };
    keep(this.#ready);
    keep(this.#timers);
  }

  /** Runs the microtasks the last event released (the code under test runs until it waits on an event again). */
  settle(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** Fires one event; false when there is none. */
  step(): boolean {
    const timers = this.#timers;
    if (this.#ready.length > 0 && (timers.length === 0 || !this.prng.chance(0.05))) {
      const i = Math.floor(this.prng.next() * this.#ready.length);
      const event = this.#ready[i] as SimEvent;
      this.#ready[i] = this.#ready[this.#ready.length - 1] as SimEvent;
      this.#ready.pop();
      event.fire();
      return true;
    }
    if (timers.length === 0) return false;
    let first = 0;
    for (let i = 1; i < timers.length; i++) {
      const t = timers[i] as Timer;
      const f = timers[first] as Timer;
      if (t.at < f.at || (t.at === f.at && t.order < f.order)) first = i;
    }
    const timer = timers[first] as Timer;
    timers.splice(first, 1);
    if (timer.at > this.#now) this.#now = timer.at;
    timer.fire();
    return true;
  }
}
