import { describe, expect, it } from 'vitest';
import { LatencyRecorder } from '../src/report/latency.js';
import type { Metric } from '../src/report/metrics.js';
import { renderSummary } from '../src/report/summary.js';
import { evaluateThresholds, parseThreshold } from '../src/report/thresholds.js';

function trendOf(values: number[]): Metric {
  const recorder = new LatencyRecorder();
  for (const v of values) recorder.record(v);
  return { type: 'trend', values: recorder.summary() };
}

describe('k6 threshold syntax', () => {
  it('parses metric:aggregation<op>value, the p99 shorthand and a default metric', () => {
    expect(parseThreshold('e2e:p(95)<25', 'x')).toMatchObject({
      metric: 'e2e',
      aggregation: 'p(95)',
      op: '<',
      value: 25,
    });
    expect(parseThreshold('checks:rate>0.99', 'x')).toMatchObject({ metric: 'checks', aggregation: 'rate', op: '>' });
    expect(parseThreshold('p99<50', 'latency')).toMatchObject({ metric: 'latency', aggregation: 'p(99)', value: 50 });
    expect(parseThreshold('rate>=20000', 'msgs')).toMatchObject({ metric: 'msgs', aggregation: 'rate', op: '>=' });
  });

  it('rejects an expression that is not a threshold (bad input: "e2e p95 25")', () => {
    expect(() => parseThreshold('e2e p95 25', 'x')).toThrow('is not metric:aggregation<op>value');
  });

  it('passes and fails on the recorded values, and fails a threshold naming a metric the run lacks', () => {
    const metrics = new Map<string, Metric>([
      ['e2e', trendOf(Array.from({ length: 1000 }, (_, i) => i + 1))],
      ['checks', { type: 'rate', passes: 995, fails: 5 }],
    ]);
    const results = evaluateThresholds(
      ['e2e:p(99)<995', 'e2e:p(99)<980', 'checks:rate>0.99', 'checks:rate>0.999', 'e2x:avg<1'].map((t) =>
        parseThreshold(t, 'e2e'),
      ),
      metrics,
    );
    expect(results.map((r) => r.ok)).toEqual([true, false, true, false, false]);
    expect(results[0]?.actual).toBeCloseTo(990, -1);
    expect(results[4]?.actual).toBeUndefined();
  });
});

describe('HDR latency summary', () => {
  it('reads percentiles within 0.1% of the exact values', () => {
    const summary = trendOf(Array.from({ length: 10_000 }, (_, i) => (i + 1) / 10));
    if (summary.type !== 'trend') throw new Error('not a trend');
    expect(summary.values.count).toBe(10_000);
    expect(summary.values.min).toBeCloseTo(0.1, 3);
    expect(summary.values.med).toBeGreaterThan(499.4);
    expect(summary.values.med).toBeLessThan(500.6);
    expect(summary.values.p99).toBeGreaterThan(989);
    expect(summary.values.p99).toBeLessThan(991);
    expect(summary.values.max).toBeCloseTo(1000, -1);
  });
});

describe('k6-style summary', () => {
  it('prints THRESHOLDS with a mark per threshold, then TOTAL RESULTS with every metric', () => {
    const metrics = new Map<string, Metric>([
      ['checks', { type: 'rate', passes: 99, fails: 1 }],
      ['lookups', { type: 'counter', count: 99, perSecond: 9.9 }],
      ['e2e', trendOf([1, 2, 3])],
    ]);
    const results = evaluateThresholds([parseThreshold('checks:rate>0.995', 'e2e')], metrics);
    const text = renderSummary('title', metrics, results);
    expect(text.indexOf('THRESHOLDS')).toBeLessThan(text.indexOf('TOTAL RESULTS'));
    expect(text).toContain("✗ 'rate>0.995' rate=0.99");
    expect(text).toMatch(/checks\.+: 99\.00% 99 out of 100/);
    expect(text).toMatch(/lookups\.+: 99\s+9\.9\/s/);
    expect(text).toMatch(/e2e\.+: avg=2\.00ms/);
  });
});
