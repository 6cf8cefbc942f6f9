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

/** A message's result as the runner counts it: the ledger's outcome, or `skipped` (it could not be read). */
export type MessageResult = 'applied' | 'rejected' | 'replayed' | 'failed' | 'skipped';

/** Our message results → the original's `success` label (binItem.result in src/domain/position/*.js). */
const SUCCESS: Readonly<Record<MessageResult, string | undefined>> = {
  applied: 'true',
  replayed: 'true',
  rejected: 'false',
  failed: 'false',
  // A message the handler could not read: the original's item keeps result {} and is observed with its
  // action only.
  skipped: undefined,
};

/** The original's names and labels as a deployment sets them (INSTRUMENTATION.METRICS). */
export interface PositionOriginalMetricsOptions extends OriginalMetricsOptions {
  /**
   * The `fspId` label of `transfer_position` (INSTRUMENTATION.METRICS.labels.fspId), which only the
   * one-at-a-time handler puts (src/handlers/positions/handler.js, labels success, fspId, action); empty:
   * no such label, the batch handler's label set (handlerBatch.js: success, action).
   */
  readonly fspId?: string;
}

const noSeries: HistogramChild = Object.freeze({ observe() {}, observeMany() {} });

/** What is recorded when central-ledger's metrics are off (its INSTRUMENTATION.METRICS.DISABLED true). */
export const noOriginalMetrics: OriginalMetrics = Object.freeze({
  messageSeries: () => noSeries,
  transaction() {},
});

export interface OriginalMetrics {
  /**
   * The `transfer_position` series of one action and result: observe on it each message's time (its
   * chunk's, with the count). Made on first use; keep it, a look-up builds the label set.
   */
  messageSeries(action: string, result: MessageResult): HistogramChild;
  /** A chunk's DB transaction committed after `seconds` (its lock, plan and write): `transfer_position_batch`. */
  transaction(seconds: number): void;
}

/**
 * The original's per-batch and per-message histograms. Plain recorders: the caller (metrics.ts) says which
 * series and what time, so nothing here depends on the order the runner reports in.
 */
export function createOriginalMetrics(
  registry: Registry,
  options: PositionOriginalMetricsOptions = ORIGINAL_METRICS_DEFAULTS,
): OriginalMetrics {
  const { prefix, defaultLabels, fspId = '' } = options;
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
  // handlerBatch.js: one observation per message, from the batch's start to its end, by success and action;
  // handler.js (--position): the same with fspId between them, in its label order.
  const perMessage = new FastHistogram(
    `${prefix}transfer_position`,
    'Process a prepare transfer message (central-ledger name)',
    ORIGINAL_HISTOGRAM_BUCKETS,
    registry,
    { skipEmpty: true },
  );
  const labelsOf = (action: string, result: MessageResult): Record<string, string> => {
    const success = SUCCESS[result];
    const own: Record<string, string> = {};
    if (success !== undefined) own.success = success;
    if (fspId !== '') own.fspId = fspId;
    own.action = action;
    return withDefaultLabels(own, defaultLabels);
  };
  return {
    messageSeries: (action, result) => perMessage.child(labelsOf(action, result)),
    transaction(seconds) {
      batch.observe(seconds);
    },
  };
}
