import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastCounter, FastHistogram } from '../src/fast-metrics.js';

describe('FastHistogram and FastCounter render in prom-client format on scrape', () => {
  it('renders a bound series as zero by default, and observe/observeMany fill buckets, sum and count', async () => {
    const registry = new Registry();
    const child = new FastHistogram('t_seconds', 'test', [0.01, 0.05, 1], registry).child({ route: 'a' });
    expect(await registry.metrics()).toContain('t_seconds_count{route="a"} 0');
    child.observe(0.02);
    child.observeMany(0.5, 3);
    child.observeMany(0.5, 0); // nothing: a count of zero observes nothing
    child.observe(Number.NaN); // nothing: not a number of seconds
    const text = await registry.metrics();
    expect(text).toContain('t_seconds_bucket{route="a",le="0.01"} 0');
    expect(text).toContain('t_seconds_bucket{route="a",le="0.05"} 1');
    expect(text).toContain('t_seconds_bucket{route="a",le="1"} 4');
    expect(text).toContain('t_seconds_bucket{route="a",le="+Inf"} 4');
    expect(text).toContain('t_seconds_sum{route="a"} 1.52');
    expect(text).toContain('t_seconds_count{route="a"} 4');
  });

  it('with skipEmpty leaves a bound series out until its first observation, as prom-client does', async () => {
    const registry = new Registry();
    const child = new FastHistogram('s_seconds', 'test', [1], registry, { skipEmpty: true }).child({ x: 'y' });
    expect(await registry.metrics()).not.toContain('s_seconds_count');
    child.observeMany(2, 2);
    const text = await registry.metrics();
    expect(text).toContain('s_seconds_bucket{x="y",le="1"} 0');
    expect(text).toContain('s_seconds_count{x="y"} 2');
  });

  it('counts per label set', async () => {
    const registry = new Registry();
    const counter = new FastCounter('c_total', 'test', registry);
    counter.child({ k: 'a' }).inc();
    counter.child({ k: 'a' }).inc(2);
    counter.child({ k: 'b' }).inc();
    const text = await registry.metrics();
    expect(text).toContain('c_total{k="a"} 3');
    expect(text).toContain('c_total{k="b"} 1');
  });
});
