import { childrenByPair } from '@mojafast/service-kit';
import type { MessageResult } from './original-metrics.js';

/** `count` messages of one action with one result. */
export interface ResultCount {
  readonly action: string;
  readonly result: MessageResult;
  count: number;
}

/**
 * A chunk's messages counted by action and result, reported once per chunk and pair: a labelled metric call
 * per message showed in profiles (label validation and hashing). Each pair's count is found as metric
 * children are (childrenByPair: two Map look-ups, no key string built).
 */
export class ResultTally implements Iterable<ResultCount> {
  private readonly counts: ResultCount[] = [];
  private readonly countOf = childrenByPair((action: string, result: MessageResult) => {
    const created: ResultCount = { action, result, count: 0 };
    this.counts.push(created);
    return created;
  });

  add(action: string, result: MessageResult, count = 1): void {
    this.countOf(action, result).count += count;
  }

  [Symbol.iterator](): Iterator<ResultCount> {
    return this.counts[Symbol.iterator]();
  }
}
