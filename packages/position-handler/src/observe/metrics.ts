import { Counter, collectDefaultMetrics, Gauge, Histogram, type Registry } from 'prom-client';
import {
  createOriginalMetrics,
  noOriginalMetrics,
  ORIGINAL_METRICS_DEFAULTS,
  type OriginalMetricsOptions,
} from './metrics-original.js';

export const STAGES = ['decode', 'lock', 'plan', 'write', 'build', 'produce', 'commit'] as const;
export type Stage = (typeof STAGES)[number];

export interface PositionMetrics {
  readonly messages: Counter<'action' | 'result'>;
  readonly batchSize: Histogram<never>;
  readonly stageSeconds: Histogram<'stage'>;
  readonly lag: Gauge<'topic' | 'partition'>;
  readonly dbRetries: Counter<never>;
}

/**
 * The handler's metrics on the registry it is given; process and event-loop metrics come with them. Beside
 * them, the original's names the community dashboards query (metrics-original.ts), fed from the same
 * observations: the runner reports once and both sets are recorded. `original`: their prefix and default
 * labels, or false for none of them.
 */
export function createMetrics(
  registry: Registry,
  original: OriginalMetricsOptions | false = ORIGINAL_METRICS_DEFAULTS,
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
  const countMessage = messages.inc.bind(messages) as (
    labels: { action: string; result: string },
    count?: number,
  ) => void;
  messages.inc = ((labels: { action: string; result: string }, count?: number) => {
    countMessage(labels, count);
    originals.message(labels.action, labels.result, count);
  }) as typeof messages.inc;
  const observeStage = stageSeconds.observe.bind(stageSeconds) as (labels: { stage: string }, seconds: number) => void;
  stageSeconds.observe = ((labels: { stage: string }, seconds: number) => {
    observeStage(labels, seconds);
    originals.stage(labels.stage, seconds);
  }) as typeof stageSeconds.observe;
  const observeSize = batchSize.observe.bind(batchSize) as (size: number) => void;
  batchSize.observe = ((size: number) => {
    observeSize(size);
    originals.transaction();
  }) as typeof batchSize.observe;
  return {
    messages,
    batchSize,
    stageSeconds,
    lag: new Gauge({
      name: 'position_consumer_lag',
      help: 'Messages between the last one handled and the partition high watermark',
      labelNames: ['topic', 'partition'],
      registers: [registry],
    }),
    dbRetries: new Counter({
      name: 'position_db_retries_total',
      help: 'Batches rolled back and retried after a database error',
      registers: [registry],
    }),
  };
}
