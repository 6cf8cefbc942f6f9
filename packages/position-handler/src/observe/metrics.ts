import { childrenByPair } from '@mojafast/service-kit';
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Registry } from 'prom-client';
import type { ErrorClass } from './error-class.js';
import {
  createOriginalMetrics,
  type MessageResult,
  noOriginalMetrics,
  ORIGINAL_METRICS_DEFAULTS,
  type PositionOriginalMetricsOptions,
} from './original-metrics.js';
import type { PartitionProgress } from './progress.js';
import { type ResultCount, ResultTally } from './result-tally.js';

export { type MessageResult, type ResultCount, ResultTally };

export const STAGES = ['decode', 'lock', 'plan', 'write', 'build', 'produce', 'commit'] as const;
export type Stage = (typeof STAGES)[number];

/** The time one chunk's DB transaction spent in each of its stages, in seconds. */
export interface TransactionSeconds {
  readonly lock: number;
  readonly plan: number;
  readonly write: number;
}

/**
 * What the runner reports, one method per thing that happened to a chunk. Each records our `position_*`
 * metrics and, beside them, the original's names (original-metrics.ts) from the same figures, so no call
 * depends on another one made before it.
 */
export interface PositionMetrics {
  /**
   * A chunk's messages were read, in `seconds` (stage `decode`). `unread`: those that could not be (skipped,
   * or answered with an error notification), counted, and on the original's per-message histogram with
   * the decode time: they reached no transaction.
   */
  chunkDecoded(seconds: number, unread: ResultTally | undefined): void;
  /**
   * A chunk's DB transaction of `messages` commands committed: stages `lock`, `plan`, `write`, the batch
   * size, and the original's per-batch histogram with their sum.
   */
  transactionCommitted(seconds: TransactionSeconds, messages: number): void;
  /**
   * A chunk's notifications were built, in `buildSeconds` (stage `build`): its results counted, and each
   * message on the original's per-message histogram with its chunk's transaction time plus the build (the
   * original times a message from its batch's start to its produce).
   */
  resultsBuilt(results: ResultTally, transactionSeconds: number, buildSeconds: number): void;
  /** A chunk's notifications were acknowledged `seconds` after they were sent (stage `produce`). */
  notificationsAcknowledged(seconds: number): void;
  /** A chunk's offset commit took `seconds` (stage `commit`). */
  offsetCommitted(seconds: number): void;
  /** Messages between the last one handled on a partition and its high watermark. */
  consumerLag(topic: string, partition: number, lag: number): void;
  /** A chunk's DB transaction (or the decoding before it) failed and will be retried. */
  transactionRetried(errorClass: ErrorClass): void;
  /** A chunk's notifications or offset commit failed: it is fetched again. */
  notifyRetried(errorClass: ErrorClass): void;
}

/**
 * The handler's metrics on the registry it is given; process and event-loop metrics come with them. Beside
 * them, the original's names the community dashboards query (original-metrics.ts). `original`: their prefix,
 * default labels and fspId label, or false for none of them.
 */
export function createMetrics(
  registry: Registry,
  original: PositionOriginalMetricsOptions | false = ORIGINAL_METRICS_DEFAULTS,
  progress?: PartitionProgress,
): PositionMetrics {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  const originals = original === false ? noOriginalMetrics : createOriginalMetrics(registry, original);
  const messages = new Counter({
    name: 'position_messages_total',
    help: 'Position messages by action and result (applied, rejected, replayed, failed, skipped)',
    labelNames: ['action', 'result'],
    registers: [registry],
  });
  const batchSize = new Histogram({
    name: 'position_batch_size',
    help: 'Messages per DB transaction',
    buckets: [1, 10, 50, 100, 250, 500, 1000, 2500, 5000],
    registers: [registry],
  });
  const stageSeconds = new Histogram({
    name: 'position_stage_seconds',
    help: 'Time per chunk in each stage: decode, lock (reference data, locks and reads), plan, write (and DB commit), build (the notifications), produce (send to acknowledgement), commit (offsets)',
    labelNames: ['stage'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'position_consumer_lag',
    help: 'Messages between the last one handled and the partition high watermark',
    labelNames: ['topic', 'partition'],
    registers: [registry],
  });
  const dbRetries = new Counter({
    name: 'position_db_retries_total',
    help: 'Chunks rolled back and retried after a failed transaction (or decoding), by class: transient (deadlock, lock wait timeout, connection lost, read-only, too many connections) or permanent (schema, constraint, a bug)',
    labelNames: ['class'],
    registers: [registry],
  });
  const notifyRetries = new Counter({
    name: 'position_notify_retries_total',
    help: 'Chunks fetched again after their notifications or offset commit failed, by class',
    labelNames: ['class'],
    registers: [registry],
  });
  if (progress) {
    new Gauge({
      name: 'position_partition_seconds_since_progress',
      help: 'Per partition handled: seconds since its last progress while its work keeps failing (0 while it progresses or is idle); /health is DOWN past POSITION_STALLED_AFTER_MS',
      labelNames: ['topic', 'partition'],
      registers: [registry],
      // Computed on scrape: nothing per chunk.
      collect() {
        this.reset();
        for (const { topic, partition, seconds } of progress.secondsSinceProgress()) {
          this.labels({ topic, partition: String(partition) }).set(seconds);
        }
      },
    });
  }

  // A labelled prom-client child shows no series until it is observed, so binding them all now changes
  // nothing on /metrics.
  const stage = Object.fromEntries(STAGES.map((name) => [name, stageSeconds.labels({ stage: name })])) as Record<
    Stage,
    ReturnType<typeof stageSeconds.labels>
  >;
  // Both sets' series of one action and result, found with one look-up per chunk and pair.
  const resultSeries = childrenByPair((action: string, result: MessageResult) => ({
    counted: messages.labels({ action, result }),
    timed: originals.messageSeries(action, result),
  }));
  const lagOf = childrenByPair((topic: string, partition: number) =>
    lag.labels({ topic, partition: String(partition) }),
  );
  const record = (results: ResultTally, seconds: number) => {
    for (const { action, result, count } of results) {
      const series = resultSeries(action, result);
      series.counted.inc(count);
      series.timed.observeMany(seconds, count);
    }
  };

  return {
    chunkDecoded(seconds, unread) {
      stage.decode.observe(seconds);
      if (unread) record(unread, seconds);
    },
    transactionCommitted(seconds, size) {
      stage.lock.observe(seconds.lock);
      stage.plan.observe(seconds.plan);
      stage.write.observe(seconds.write);
      batchSize.observe(size);
      originals.transaction(seconds.lock + seconds.plan + seconds.write);
    },
    resultsBuilt(results, transactionSeconds, buildSeconds) {
      record(results, transactionSeconds + buildSeconds);
      stage.build.observe(buildSeconds);
    },
    notificationsAcknowledged(seconds) {
      stage.produce.observe(seconds);
    },
    offsetCommitted(seconds) {
      stage.commit.observe(seconds);
    },
    consumerLag(topic, partition, value) {
      lagOf(topic, partition).set(value);
    },
    transactionRetried(errorClass) {
      dbRetries.labels({ class: errorClass }).inc();
    },
    notifyRetried(errorClass) {
      notifyRetries.labels({ class: errorClass }).inc();
    },
  };
}
