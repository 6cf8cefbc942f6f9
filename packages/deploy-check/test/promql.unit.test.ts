import { describe, expect, it } from 'vitest';
import { exportedSampleNames, metricNamesIn } from '../src/promql.js';

describe('metricNamesIn', () => {
  it('finds the metrics of a quantile over a rate, not functions, labels, durations or variables', () => {
    const expr =
      'histogram_quantile(0.99, sum by (stage, le) (rate(als_stage_duration_seconds_bucket{instance=~"$instance"}[$__rate_interval])))';
    expect(metricNamesIn(expr)).toEqual(['als_stage_duration_seconds_bucket']);
  });

  it('finds both sides of a ratio and ignores label values that look like names', () => {
    const expr =
      'sum by (cache) (rate(hits_total{result=~"hit|stale"}[1m])) / sum without (result) (rate(lookups_total[1m]))';
    expect(metricNamesIn(expr)).toEqual(['hits_total', 'lookups_total']);
  });

  it('ignores number literals such as 1e9 and 0.5', () => {
    expect(metricNamesIn('process_resident_memory_bytes / 1e9 * 0.5')).toEqual(['process_resident_memory_bytes']);
  });
});

describe('exportedSampleNames', () => {
  it('counts a declared but never incremented labelled counter as exported, and expands histograms', () => {
    const text = [
      '# HELP a_total a',
      '# TYPE a_total counter',
      '# HELP b_seconds b',
      '# TYPE b_seconds histogram',
      'b_seconds_bucket{le="+Inf"} 0',
      'c_gauge 3',
    ].join('\n');
    const names = exportedSampleNames(text);
    expect([...names].sort()).toEqual([
      'a_total',
      'b_seconds',
      'b_seconds_bucket',
      'b_seconds_count',
      'b_seconds_sum',
      'c_gauge',
    ]);
  });
});
