import type { MessageResult } from './metrics-original.js';

/** `count` messages of one action with one result. */
export interface ResultCount {
  readonly action: string;
  readonly result: MessageResult;
  count: number;
}

/**
 * A chunk's messages counted by action and result, reported once per chunk and pair: a labelled metric call
 * per message showed in profiles (label validation and hashing). Two Map look-ups per message, no key
 * string built.
 */
export class ResultTally implements Iterable<ResultCount> {
  private readonly byAction = new Map<string, Map<MessageResult, ResultCount>>();
  private readonly counts: ResultCount[] = [];

  add(action: string, result: MessageResult, count = 1): void {
    let byResult = this.byAction.get(action);
    if (!byResult) {
      byResult = new Map();
      this.byAction.set(action, byResult);
    }
    const entry = byResult.get(result);
    if (entry) {
      entry.count += count;
      return;
    }
    const created = { action, result, count };
    byResult.set(result, created);
    this.counts.push(created);
  }

  [Symbol.iterator](): Iterator<ResultCount> {
    return this.counts[Symbol.iterator]();
  }
}
