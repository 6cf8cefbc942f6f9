import type { Metric, Registry } from 'prom-client';

/**
 * prom-client validates and hashes the label object on every observe; at several thousand lookups a
 * second with seven observations each (the ALS), or once per message (the position handler), that is
 * measurable (`pnpm bench:micro --case histogram`, beside prom-client's Histogram). These two metrics keep
 * plain counters per pre-bound label set and render them in prom-client's format only when /metrics is scraped.
 */
interface Sample {
  readonly labels: Record<string, string | number>;
  readonly value: number;
  readonly metricName?: string;
}

interface Collectable {
  readonly name: string;
  get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: string }>;
}

function register(registry: Registry, metric: Collectable): void {
  registry.registerMetric(metric as unknown as Metric);
}

export interface HistogramChild {
  observe(value: number): void;
  /** `count` observations of one value at once (a chunk's messages that took the same time). */
  observeMany(value: number, count: number): void;
}

export interface FastHistogramOptions {
  /**
   * Leave out series bound but never observed, as prom-client does for a labelled histogram (a child made
   * at start must not show as zero before its first observation). Default false: bound series render.
   */
  readonly skipEmpty?: boolean;
}

export class FastHistogram implements Collectable {
  private readonly series = new Map<
    string,
    { labels: Record<string, string>; counts: Float64Array; sum: number; count: number }
  >();

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
    private readonly options: FastHistogramOptions = {},
  ) {
    register(registry, this);
  }

  /** A child for one label set; keep it, observing on it costs a bucket search and three additions. */
  child(labels: Record<string, string> = {}): HistogramChild {
    const key = JSON.stringify(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, counts: new Float64Array(this.buckets.length), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    const series = entry;
    const buckets = this.buckets;
    const observeMany = (value: number, count: number) => {
      if (!Number.isFinite(value) || count <= 0) return;
      series.sum += value * count;
      series.count += count;
      for (let i = 0; i < buckets.length; i++) {
        if (value <= (buckets[i] as number)) {
          series.counts[i] = (series.counts[i] as number) + count;
          return;
        }
      }
    };
    return { observe: (value) => observeMany(value, 1), observeMany };
  }

  async get() {
    const values: Sample[] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      if (count === 0 && this.options.skipEmpty) continue;
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += counts[i] as number;
        values.push({ labels: { ...labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...labels, le: '+Inf' }, value: count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }
}

export class FastCounter implements Collectable {
  private readonly series = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(
    readonly name: string,
    private readonly help: string,
    registry: Registry,
  ) {
    register(registry, this);
  }

  /** The counter for one label set, created on first use and kept. */
  child(labels: Record<string, string> = {}): { inc(by?: number): void } {
    const key = JSON.stringify(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, value: 0 };
      this.series.set(key, entry);
    }
    const series = entry;
    return {
      inc(by = 1) {
        series.value += by;
      },
    };
  }

  async get() {
    const values = [...this.series.values()].map(({ labels, value }) => ({ labels, value }));
    return { name: this.name, help: this.help, type: 'counter', values, aggregator: 'sum' };
  }
}
