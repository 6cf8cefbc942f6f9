import {
  collectOriginalProcessMetrics,
  FastHistogram,
  type HistogramChild,
  ORIGINAL_HISTOGRAM_BUCKETS,
  type OriginalMetricsOptions,
  originalMetricsDefaults,
  withDefaultLabels,
} from '@mojafast/service-kit';
import type { Registry } from 'prom-client';

/**
 * The metric names the community dashboards query for central-ledger's position handler (mojaloop/helm
 * monitoring/dashboards/mojaloop/dashboard-central-services.json, dashboard-central-services-characterization.json,
 * dashboard-NodeJSApplication.json), as the original's batch handler exports them
 * (src/handlers/positions/handlerBatch.js, through central-services-metrics): histograms with the prefix of
 * its config/default.json (INSTRUMENTATION.METRICS.config.prefix "moja_cl_"), central-services-metrics'
 * default buckets, and its default label `serviceName` ("central-service"; the dashboards match
 * `central-handler-position|central-service`). Our own `position_*` metrics stay as they are beside these.
 * A deployment's prefix and default labels come from the config (POSITION_METRICS_PREFIX,
 * POSITION_METRICS_DEFAULT_LABELS, or central-ledger's INSTRUMENTATION.METRICS.config keys).
 */
export const ORIGINAL_PREFIX = 'moja_cl_';
export const ORIGINAL_SERVICE_NAME = 'central-service';

export type { OriginalMetricsOptions };

export const ORIGINAL_METRICS_DEFAULTS = originalMetricsDefaults(ORIGINAL_PREFIX, ORIGINAL_SERVICE_NAME);

/** Our message results → the original's `success` label (binItem.result in src/domain/position/*.js). */
const SUCCESS: Readonly<Record<string, string | undefined>> = {
  applied: 'true',
  replayed: 'true',
  rejected: 'false',
  failed: 'false',
  // A message the handler could not read: the original's item keeps result {} and is observed with its
  // action only.
  skipped: undefined,
};

/** What is recorded when central-ledger's metrics are off (its INSTRUMENTATION.METRICS.DISABLED true). */
export const noOriginalMetrics: OriginalMetrics = Object.freeze({
  message() {},
  stage() {},
  transaction() {},
});

export interface OriginalMetrics {
  /** `count` messages' result (one action and result), counted until the next stage() call observes them. */
  message(action: string, result: string, count?: number): void;
  /** A stage observation of the runner (see metrics.ts): closes the chunk's tally and its transaction. */
  stage(stage: string, seconds: number): void;
  /** A chunk's DB transaction committed (after its lock, plan and write stage observations). */
  transaction(): void;
}

/**
 * The runner reports through metrics.ts in a fixed order per chunk, each group within one synchronous step:
 * decode (malformed messages counted, then the `decode` stage); the transaction (`lock`, `plan`, `write`,
 * then the batch size); the notifications (the results counted per action and result, then the `build`
 * stage). So the results tallied since the last stage observation belong to the chunk that stage closes,
 * and the transaction time is the sum of the three stages just before the batch size.
 */
export function createOriginalMetrics(
  registry: Registry,
  options: OriginalMetricsOptions = ORIGINAL_METRICS_DEFAULTS,
): OriginalMetrics {
  const { prefix, defaultLabels } = options;
  collectOriginalProcessMetrics(registry, options);
  // handlerBatch.js: one observation per consumed batch (one DB transaction), success false when it failed.
  // FastHistogram: the per-message histogram is observed once per chunk and outcome with the count, not
  // once per message through prom-client's label validation and hashing; series appear once observed.
  const batch = new FastHistogram(
    `${prefix}transfer_position_batch`,
    'Consume a batch of prepare transfer messages from the kafka topic and process them (central-ledger name)',
    ORIGINAL_HISTOGRAM_BUCKETS,
    registry,
    { skipEmpty: true },
  ).child(withDefaultLabels({ success: 'true' }, defaultLabels));
  // handlerBatch.js: one observation per message, from the batch's start to its end, by success and action.
  const perMessage = new FastHistogram(
    `${prefix}transfer_position`,
    'Process a prepare transfer message (central-ledger name)',
    ORIGINAL_HISTOGRAM_BUCKETS,
    registry,
    { skipEmpty: true },
  );
  const children = new Map<string, HistogramChild>();
  const childOf = (action: string, result: string) => {
    const key = `${action}\u0000${result}`;
    let found = children.get(key);
    if (!found) {
      const success = SUCCESS[result];
      found = perMessage.child(
        withDefaultLabels(success === undefined ? { action } : { success, action }, defaultLabels),
      );
      children.set(key, found);
    }
    return found;
  };
  const tally = new Map<HistogramChild, number>();
  let transactionSeconds = 0;
  let lastTransactionSeconds = 0;

  return {
    message(action, result, count = 1) {
      const child = childOf(action, result);
      tally.set(child, (tally.get(child) ?? 0) + count);
    },
    stage(stage, seconds) {
      if (stage === 'lock' || stage === 'plan' || stage === 'write') transactionSeconds += seconds;
      if (tally.size === 0) return;
      // Decode failures never reached a transaction; the others took the chunk's transaction and this step.
      const elapsed = stage === 'decode' ? seconds : lastTransactionSeconds + seconds;
      for (const [child, count] of tally) child.observeMany(elapsed, count);
      tally.clear();
    },
    transaction() {
      lastTransactionSeconds = transactionSeconds;
      transactionSeconds = 0;
      batch.observe(lastTransactionSeconds);
    },
  };
}
