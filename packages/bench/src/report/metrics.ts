import type { LatencySummary } from './latency.js';

/** The four kinds of k6 metric, with what each reports. */
export type Metric =
  | { readonly type: 'trend'; readonly values: LatencySummary }
  | { readonly type: 'rate'; readonly passes: number; readonly fails: number }
  | { readonly type: 'counter'; readonly count: number; readonly perSecond: number }
  | { readonly type: 'gauge'; readonly value: number };

/** Metrics in the order the summary prints them. */
export type MetricSet = ReadonlyMap<string, Metric>;

export function rateOf(metric: { passes: number; fails: number }): number {
  const total = metric.passes + metric.fails;
  return total === 0 ? 0 : metric.passes / total;
}

/** The values a threshold can name for a metric, under k6's aggregation names. */
export function aggregations(metric: Metric): Record<string, number> {
  switch (metric.type) {
    case 'trend': {
      const v = metric.values;
      return {
        avg: v.avg,
        min: v.min,
        med: v.med,
        max: v.max,
        count: v.count,
        'p(50)': v.med,
        'p(90)': v.p90,
        'p(95)': v.p95,
        'p(99)': v.p99,
      };
    }
    case 'rate':
      return { rate: rateOf(metric), passes: metric.passes, fails: metric.fails };
    case 'counter':
      return { count: metric.count, rate: metric.perSecond };
    case 'gauge':
      return { value: metric.value, min: metric.value, max: metric.value };
  }
}
