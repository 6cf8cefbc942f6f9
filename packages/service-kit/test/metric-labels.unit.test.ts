import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config-error.js';
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

  it("writes a config file's defaultLabels object as that text, marking the leaves it read", () => {
    const read: string[][] = [];
    const seen = (path: readonly string[]) => read.push([...path]);
    expect(metricLabelsText({ serviceName: 'als-eu', shard: 2 }, 'K', seen)).toBe('serviceName=als-eu,shard=2');
    expect(read).toEqual([['serviceName'], ['shard']]);
    expect(metricLabelsText({}, 'K', seen)).toBe('');
    // A nested object gives a dotted name, which parseMetricLabels then refuses.
    expect(parseMetricLabels(metricLabelsText({ a: { b: 'c' } }, 'K', seen))).toBeUndefined();
  });

  it.each([
    ['a text', 'serviceName=x'],
    ['a list', ['x']],
    ['null', null],
  ])('refuses %s as defaultLabels, naming the key, with the config error class given', (_what, value) => {
    class SpacedError extends ConfigError {
      static override separator = ' ';
    }
    expect(() => metricLabelsText(value, 'A.B', () => {})).toThrow(
      `A.B: must be an object of label names and values, got ${JSON.stringify(value)}`,
    );
    expect(() => metricLabelsText(value, 'A.B', () => {}, SpacedError)).toThrow(SpacedError);
  });

  it('takes a prefix only where a metric name may start', () => {
    const prefix = new RegExp(METRIC_PREFIX_PATTERN);
    expect(prefix.test('moja_cl_')).toBe(true);
    expect(prefix.test('moja-cl-')).toBe(false);
    expect(prefix.test('9x_')).toBe(false);
    expect(prefix.test('')).toBe(false);
  });
});
