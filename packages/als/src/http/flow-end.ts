import type { FlowOutcome } from '../discovery/outcome.js';

/**
 * How an accepted request's flow ended, told to its one listener (the admission slot), once. The route
 * context learns the end from one reaction on the flow's promise and passes it on synchronously: a
 * reaction per party that needs the end (the domain timer, shutdown's tracking, admission) was a promise,
 * a reaction and a turn of the microtask queue each, per flow. `null`: the flow's promise rejected (its
 * error callback failed unexpectedly), which ends it too.
 */
export class FlowEnd {
  /** undefined while the flow runs. */
  #outcome: FlowOutcome | null | undefined = undefined;
  #listener: ((outcome: FlowOutcome | null) => void) | undefined = undefined;

  /** The flow ended; told to the listener now, or when one is set. */
  settle(outcome: FlowOutcome | null): void {
    if (this.#outcome !== undefined) return;
    this.#outcome = outcome;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.(outcome);
  }

  /**
   * Calls `listener` once the flow ends, at once when it already has: a flow that needed no I/O can end
   * before its route returns.
   */
  onEnd(listener: (outcome: FlowOutcome | null) => void): void {
    if (this.#outcome !== undefined) listener(this.#outcome);
    else this.#listener = listener;
  }
}
