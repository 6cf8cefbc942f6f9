import { FastHistogram } from '@mojafast/service-kit';
import { Histogram, Registry } from 'prom-client';
import { keep, type MicroCase, seededRandom, timeLoop } from '../harness.js';

/** The ALS's stage histogram: its buckets and its five label sets (observe/metrics.ts). */
const buckets = [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const stages = ['validation', 'oracle', 'endpoint', 'forward', 'callback'];

/**
 * FastHistogram's observe on a child bound at start, against prom-client's Histogram observed the two ways
 * prom-client offers: on a child bound once with `labels()` (the fair comparison), and with the label object
 * on each call (what the services did before). hdr-histogram-js is no alternative here: it keeps percentiles,
 * not the cumulative buckets Prometheus scrapes.
 */
export const histogramCase: MicroCase = {
  name: 'histogram',
  operation: 'one observation of a latency on the ALS stage histogram (15 buckets, 5 label sets)',
  load: 'latencies drawn from the seed, log-uniform 0.1 ms to 2 s, stages in turn',
  unit: 'ns/op',
  operations: 2_000_000,
  async setUp(seed) {
    const random = seededRandom(seed);
    const values = Float64Array.from({ length: 4096 }, () => 0.0001 * 20_000 ** random());
    const mask = values.length - 1;
    const valueAt = (i: number) => values[i & mask] as number;

    const fast = new FastHistogram('fast_seconds', 'ours', buckets, new Registry());
    const fastChildren = stages.map((stage) => fast.child({ stage }));
    const promBound = new Histogram({
      name: 'bound_seconds',
      help: 'prom-client',
      labelNames: ['stage'],
      buckets,
      registers: [],
    });
    const promChildren = stages.map((stage) => promBound.labels({ stage }));
    const promEach = new Histogram({
      name: 'each_seconds',
      help: 'prom-client',
      labelNames: ['stage'],
      buckets,
      registers: [],
    });
    const labelSets = stages.map((stage) => ({ stage }));

    return {
      sides: [
        {
          label: 'FastHistogram (ours), bound child',
          role: 'ours',
          sample: (n) => timeLoop(n, (i) => (fastChildren[i % 5] as { observe(v: number): void }).observe(valueAt(i))),
        },
        {
          label: 'prom-client Histogram, child bound with labels()',
          role: 'library',
          sample: (n) => timeLoop(n, (i) => (promChildren[i % 5] as { observe(v: number): void }).observe(valueAt(i))),
        },
        {
          label: 'prom-client Histogram, labels on each observe',
          role: 'library',
          sample: (n) => timeLoop(n, (i) => promEach.observe(labelSets[i % 5] as { stage: string }, valueAt(i))),
        },
      ],
      async close() {
        keep(await fast.get());
        keep(await promBound.get());
      },
    };
  },
};
