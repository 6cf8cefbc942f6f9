import * as hdr from 'hdr-histogram-js';

/** Latency statistics in milliseconds, read off an HDR histogram (k6 names: med = p(50)). */
export interface LatencySummary {
  readonly count: number;
  readonly avg: number;
  readonly min: number;
  readonly med: number;
  readonly max: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
}

/**
 * Records latencies in microseconds into an HDR histogram (3 significant digits, up to one hour), so
 * percentiles keep 0.1% precision whatever the spread and recording costs the same at any rate.
 */
export class LatencyRecorder {
  readonly #histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
  });

  record(milliseconds: number): void {
    this.#histogram.recordValue(Math.max(1, Math.round(milliseconds * 1000)));
  }

  get count(): number {
    return this.#histogram.totalCount;
  }

  summary(): LatencySummary {
    const h = this.#histogram;
    if (h.totalCount === 0) return { count: 0, avg: 0, min: 0, med: 0, max: 0, p90: 0, p95: 0, p99: 0 };
    const ms = (us: number) => us / 1000;
    return {
      count: h.totalCount,
      avg: ms(h.mean),
      min: ms(h.minNonZeroValue),
      med: ms(h.getValueAtPercentile(50)),
      max: ms(h.maxValue),
      p90: ms(h.getValueAtPercentile(90)),
      p95: ms(h.getValueAtPercentile(95)),
      p99: ms(h.getValueAtPercentile(99)),
    };
  }
}
