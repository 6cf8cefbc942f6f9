import { collectDefaultMetrics, type Registry } from 'prom-client';
import { ConfigError, type ConfigErrorClass } from './config-error.js';
import { asText, leaves, type Tree } from './rc-source.js';

/**
 * The originals' metric settings (central-services-metrics' INSTRUMENTATION.METRICS.config: `prefix`,
 * `defaultLabels`) as our services hold them: a prefix, and the labels as `name=value,...` text.
 */

/** A Prometheus metric name's start (prom-client's name rule), never empty. */
export const METRIC_PREFIX_PATTERN = '^[a-zA-Z_:][a-zA-Z0-9_:]*$';

/**
 * `name=value,...` → labels; undefined when a part is not name=value, or a name is not a Prometheus label
 * name, is reserved (`__…`) or is `le` (every histogram's bucket label). Empty text is no label.
 */
export function parseMetricLabels(text: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  if (text.trim() === '') return labels;
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) return undefined;
    const name = part.slice(0, at).trim();
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) || name.startsWith('__') || name === 'le') return undefined;
    labels[name] = part.slice(at + 1).trim();
  }
  return labels;
}

/**
 * An original's `defaultLabels` object (from its file, or rc variables one label each) as that text, each of
 * its leaves marked as read through `seen`. Anything but an object is an error of the config's class naming `key`.
 */
export function metricLabelsText(
  value: unknown,
  key: string,
  seen: (path: readonly string[]) => void,
  ErrorClass: ConfigErrorClass = ConfigError,
): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ErrorClass(key, `must be an object of label names and values, got ${JSON.stringify(value)}`);
  const found = leaves(value as Tree);
  for (const [path] of found) seen(path);
  return found.map(([path, v]) => `${path.join('.')}=${asText(v)}`).join(',');
}

/** The originals' metric names as a deployment sets them: prefix and default labels (INSTRUMENTATION.METRICS.config). */
export interface OriginalMetricsOptions {
  /** Put before every name (INSTRUMENTATION.METRICS.config.prefix). */
  readonly prefix: string;
  /**
   * On every series, under the series' own labels (central-services-metrics sets them as the registry's
   * default labels, which prom-client puts under a metric's own: a series' `success` is never replaced).
   */
  readonly defaultLabels: Readonly<Record<string, string>>;
}

/** An original's own defaults: its config/default.json prefix and its `serviceName` default label. */
export function originalMetricsDefaults(prefix: string, serviceName: string): OriginalMetricsOptions {
  return Object.freeze({ prefix, defaultLabels: Object.freeze({ serviceName }) });
}

/** A series' labels: its own first, then the default labels it does not have (its own are never replaced). */
export function withDefaultLabels(
  own: Record<string, string>,
  defaults: Readonly<Record<string, string>>,
): Record<string, string> {
  return Object.assign({ ...own }, defaults, own);
}

/** central-services-metrics getHistogram's default buckets (seconds), which both originals' histograms use. */
export const ORIGINAL_HISTOGRAM_BUCKETS: readonly number[] = Object.freeze([0.01, 0.05, 0.1, 0.5, 1, 2, 5]);

/**
 * The original's process metrics: prom-client's default metrics under its prefix and default labels, as
 * central-services-metrics registers them. Sampled on scrape, so nothing is added per request.
 */
export function collectOriginalProcessMetrics(registry: Registry, options: OriginalMetricsOptions): void {
  collectDefaultMetrics({
    register: registry,
    prefix: options.prefix,
    labels: { ...options.defaultLabels },
    eventLoopMonitoringPrecision: 10,
  });
}
