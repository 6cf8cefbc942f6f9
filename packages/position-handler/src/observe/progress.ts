import { type ErrorClass, type FailureSummary, summarizeError } from './error-class.js';

/**
 * Where a partition's work failed: its DB transaction (or the decoding before it), or the produce of its
 * notifications and the offset commit after it.
 */
export type FailedStage = 'transaction' | 'notify';

/** A partition whose work keeps failing, as /health and the log show it. */
export interface StalledPartition {
  readonly topic: string;
  readonly partition: number;
  /** Since the first failure after the partition's last progress. */
  readonly stalledForSeconds: number;
  /** Failures since then (each one a back-off step). */
  readonly failures: number;
  readonly lastError: FailureSummary;
}

/** A failure that ended, and whether it had been reported as a stall. */
export type EndedFailure = StalledPartition & { readonly reported: boolean };

interface Failing {
  readonly topic: string;
  readonly partition: number;
  readonly stage: FailedStage;
  /** Date.now() of the first failure since the last progress. */
  readonly since: number;
  lastAt: number;
  failures: number;
  lastError: FailureSummary;
  /** Whether the stall was reported (one line when it crosses the bound, one when it ends). */
  reported: boolean;
  /** A failure that stops the partition at once (money that does not add up): DOWN without waiting for the bound. */
  down: boolean;
}

/**
 * Per partition, whether its work makes progress. The runner reports failures and progress; /health reads the
 * partitions that have not progressed for `stalledAfterMs` and /metrics the seconds since each partition's last
 * progress while it has work it cannot finish. Nothing is done per message: progress is reported per chunk and
 * costs one Map look-up while some partition is failing, nothing otherwise.
 *
 * A transaction failure ends when a transaction of the partition commits; a notify failure only when an offset
 * of the partition is committed (its chunk is fetched again and its transaction, a replay, commits each time).
 * A notify failure not repeated for `stalledAfterMs` is dropped: the partition was given to another member of
 * the group (this one no longer fetches it), which reports its own.
 */
export class PartitionProgress {
  private readonly failing = new Map<string, Failing>();
  /** Every partition this process handled, shown at 0 seconds while it progresses. */
  private readonly known = new Map<string, { readonly topic: string; readonly partition: number }>();

  constructor(
    readonly stalledAfterMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A partition this process handles (called once per partition, not per chunk). */
  handles(topic: string, partition: number): void {
    const key = `${topic}:${partition}`;
    if (!this.known.has(key)) this.known.set(key, { topic, partition });
  }

  /**
   * A failure of the partition's work; answers the failure record (for the log line of this back-off step).
   * `down`: the partition is stalled at once, whatever stalledAfterMs says (an invariant violation).
   */
  failed(
    topic: string,
    partition: number,
    stage: FailedStage,
    error: unknown,
    down = false,
  ): { readonly errorClass: ErrorClass; readonly stalledForMs: number; readonly failures: number } {
    const key = `${topic}:${partition}`;
    this.handles(topic, partition);
    const at = this.now();
    const lastError = summarizeError(error);
    let entry = this.failing.get(key);
    if (!entry || (entry.stage === 'notify' && at - entry.lastAt > this.stalledAfterMs)) {
      entry = { topic, partition, stage, since: at, lastAt: at, failures: 0, lastError, reported: false, down };
      this.failing.set(key, entry);
    }
    if (down) entry.down = true;
    entry.lastAt = at;
    entry.failures += 1;
    entry.lastError = lastError;
    return { errorClass: lastError.class, stalledForMs: at - entry.since, failures: entry.failures };
  }

  /**
   * The partition progressed: a transaction committed, or an offset was committed (`offset` true). Answers the
   * failure it ended, if any.
   */
  progressed(topic: string, partition: number, offset: boolean): EndedFailure | undefined {
    if (this.failing.size === 0) return undefined;
    const key = `${topic}:${partition}`;
    const entry = this.failing.get(key);
    if (!entry || (!offset && entry.stage === 'notify')) return undefined;
    this.failing.delete(key);
    return { ...this.view(entry, this.now()), reported: entry.reported };
  }

  /** The partition is no longer this process's (revoked, or the handler stops): its failures are not shown. */
  forget(topic: string, partition: number): void {
    if (this.failing.size > 0) this.failing.delete(`${topic}:${partition}`);
  }

  /** Partitions without progress for stalledAfterMs or longer. */
  stalled(): StalledPartition[] {
    const now = this.now();
    const out: StalledPartition[] = [];
    for (const [key, entry] of this.failing) {
      if (entry.stage === 'notify' && now - entry.lastAt > this.stalledAfterMs) {
        this.failing.delete(key);
        continue;
      }
      if (entry.down || now - entry.since >= this.stalledAfterMs) out.push(this.view(entry, now));
    }
    return out;
  }

  /**
   * Whether this failure makes the partition stalled for the first time (one error line when it crosses the
   * bound); false afterwards.
   */
  crossedBound(topic: string, partition: number): StalledPartition | undefined {
    const entry = this.failing.get(`${topic}:${partition}`);
    if (!entry || entry.reported) return undefined;
    const now = this.now();
    if (!entry.down && now - entry.since < this.stalledAfterMs) return undefined;
    entry.reported = true;
    return this.view(entry, now);
  }

  /** Seconds since the last progress of each partition handled, 0 while it has nothing it cannot finish. */
  secondsSinceProgress(): { readonly topic: string; readonly partition: number; readonly seconds: number }[] {
    const now = this.now();
    return [...this.known].map(([key, { topic, partition }]) => {
      const entry = this.failing.get(key);
      return { topic, partition, seconds: entry ? (now - entry.since) / 1000 : 0 };
    });
  }

  private view(entry: Failing, now: number): StalledPartition {
    return {
      topic: entry.topic,
      partition: entry.partition,
      stalledForSeconds: (now - entry.since) / 1000,
      failures: entry.failures,
      lastError: entry.lastError,
    };
  }
}
