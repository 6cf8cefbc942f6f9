import { describe, expect, it } from 'vitest';
import { METRIC_PREFIX_PATTERN, metricLabelsText, parseMetricLabels } from '../src/metric-labels.js';

describe("the originals' metric prefix and default labels", () => {
  it('reads name=value text into labels, empty text as none', () => {
    expect(parseMetricLabels('serviceName=central-handler-position, zone = a')).toEqual({
      serviceName: 'central-handler-position',
      zone: 'a',
    });
    expect(parseMetricLabels('')).toEqual({});
  });

  it.each([
    ['no = sign', 'serviceName'],
    ['an empty name', '=x'],
    ['a name Prometheus refuses', 'service-name=x'],
    ['a reserved name', '__name__=x'],
    ["the histograms' bucket label", 'le=1'],
  ])('refuses %s', (_what, text) => {
    expect(parseMetricLabels(text)).toBeUndefined();
  });

  it("writes a config file's defaultLabels object as that text, with the leaves it read", () => {
    expect(metricLabelsText({ serviceName: 'als-eu', shard: 2 })).toEqual({
      text: 'serviceName=als-eu,shard=2',
      paths: [['serviceName'], ['shard']],
    });
    expect(metricLabelsText({})).toEqual({ text: '', paths: [] });
    // A nested object gives a dotted name, which parseMetricLabels then refuses.
    expect(parseMetricLabels(metricLabelsText({ a: { b: 'c' } })?.text ?? '')).toBeUndefined();
    expect(metricLabelsText('serviceName=x')).toBeUndefined();
    expect(metricLabelsText(['x'])).toBeUndefined();
  });

  it('takes a prefix only where a metric name may start', () => {
    const prefix = new RegExp(METRIC_PREFIX_PATTERN);
    expect(prefix.test('moja_cl_')).toBe(true);
    expect(prefix.test('moja-cl-')).toBe(false);
    expect(prefix.test('9x_')).toBe(false);
    expect(prefix.test('')).toBe(false);
  });
});
