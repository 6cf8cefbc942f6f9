import type { Metric, MetricSet } from './metrics.js';
import { rateOf } from './metrics.js';
import type { ThresholdResult } from './thresholds.js';

/** Milliseconds the way k6 prints durations: µs below 1 ms, s above 1 s. */
export function formatDuration(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(0)}µs`;
  if (ms < 1000) return `${ms.toFixed(2)}ms`;
  return `${(ms / 1000).toFixed(2)}s`;
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

function describe(metric: Metric): string {
  switch (metric.type) {
    case 'trend': {
      const v = metric.values;
      const parts: [string, number][] = [
        ['avg', v.avg],
        ['min', v.min],
        ['med', v.med],
        ['max', v.max],
        ['p(90)', v.p90],
        ['p(95)', v.p95],
        ['p(99)', v.p99],
      ];
      return parts.map(([k, x]) => `${k}=${formatDuration(x)}`.padEnd(15)).join(' ');
    }
    case 'rate': {
      const total = metric.passes + metric.fails;
      return `${(rateOf(metric) * 100).toFixed(2)}% ${metric.passes} out of ${total}`;
    }
    case 'counter':
      return `${String(metric.count).padEnd(8)} ${metric.perSecond.toFixed(1)}/s`;
    case 'gauge':
      return formatNumber(metric.value);
  }
}

function line(name: string, value: string): string {
  return `    ${`${name}`.padEnd(32, '.')}: ${value}`;
}

function thresholdActual(result: ThresholdResult, metric: Metric | undefined): string {
  const { aggregation } = result.threshold;
  if (result.actual === undefined) return `${aggregation}=(no such metric)`;
  const isDuration = metric?.type === 'trend' && aggregation !== 'count';
  return `${aggregation}=${isDuration ? formatDuration(result.actual) : formatNumber(result.actual)}`;
}

/**
 * A k6-style end-of-test summary (the k6 1.x layout: THRESHOLDS, then TOTAL RESULTS), so a reader who
 * knows k6 reads ours without a key.
 */
export function renderSummary(title: string, metrics: MetricSet, thresholds: readonly ThresholdResult[]): string {
  const out: string[] = [`  █ ${title}`, ''];
  if (thresholds.length > 0) {
    out.push('  █ THRESHOLDS', '');
    const byMetric = Map.groupBy(thresholds, (t) => t.threshold.metric);
    for (const [name, results] of byMetric) {
      out.push(`    ${name}`);
      for (const r of results) {
        const condition = r.threshold.source.slice(r.threshold.source.indexOf(':') + 1).trim();
        out.push(`    ${r.ok ? '✓' : '✗'} '${condition}' ${thresholdActual(r, metrics.get(name))}`);
      }
      out.push('');
    }
  }
  out.push('  █ TOTAL RESULTS', '');
  for (const [name, metric] of metrics) out.push(line(name, describe(metric)));
  out.push('');
  return out.join('\n');
}
