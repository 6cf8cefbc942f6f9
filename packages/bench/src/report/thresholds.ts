import { aggregations, type MetricSet } from './metrics.js';

/**
 * k6's threshold syntax, `metric:aggregation<op>value` (https://grafana.com/docs/k6/latest/using-k6/thresholds/),
 * e.g. `e2e:p(95)<25` or `checks:rate>0.99`. The metric may be left out (`p99<50`), then the benchmark's
 * default metric is meant; `p99` is accepted for `p(99)`.
 */
export interface Threshold {
  readonly source: string;
  readonly metric: string;
  readonly aggregation: string;
  readonly op: '<' | '<=' | '>' | '>=' | '==' | '!=';
  readonly value: number;
}

export interface ThresholdResult {
  readonly threshold: Threshold;
  readonly actual: number | undefined;
  readonly ok: boolean;
}

const pattern =
  /^\s*(?:([A-Za-z_][\w.]*)\s*:\s*)?([A-Za-z]+(?:\(\d+(?:\.\d+)?\))?|p\d+(?:\.\d+)?)\s*(<=|>=|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;

function normaliseAggregation(name: string): string {
  const short = /^p(\d+(?:\.\d+)?)$/.exec(name);
  return short ? `p(${short[1]})` : name;
}

export function parseThreshold(source: string, defaultMetric: string): Threshold {
  const match = pattern.exec(source);
  if (!match) {
    throw new Error(
      `threshold "${source}" is not metric:aggregation<op>value (e.g. "e2e:p(95)<25", "checks:rate>0.99")`,
    );
  }
  const [, metric, aggregation, op, value] = match;
  return {
    source,
    metric: metric ?? defaultMetric,
    aggregation: normaliseAggregation(aggregation as string),
    op: op as Threshold['op'],
    value: Number(value),
  };
}

const compare: Record<Threshold['op'], (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};

/** A threshold on a metric or aggregation the run does not have fails: a typo must not pass silently. */
export function evaluateThresholds(thresholds: readonly Threshold[], metrics: MetricSet): ThresholdResult[] {
  return thresholds.map((threshold) => {
    const metric = metrics.get(threshold.metric);
    const actual = metric ? aggregations(metric)[threshold.aggregation] : undefined;
    return { threshold, actual, ok: actual !== undefined && compare[threshold.op](actual, threshold.value) };
  });
}
