import { performance } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Registry } from 'prom-client';
import type { DiscoveryEvent, Stage } from '../discovery/types.js';
import type { CacheResult } from '../upstream/cache.js';

const stageBuckets = [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Metrics {
  observeStage(stage: Stage, startedAt: number): void;
  endToEnd(startedAtMs: number): void;
  cache(cache: string, result: CacheResult): void;
  event(event: DiscoveryEvent): void;
  ingress(route: string, status: number): void;
  retry(): void;
  /** Stops the event-loop sampling (at shutdown). */
  stop(): void;
}

/**
 * Every metric on the Registry passed in. Names: README.md "Metrics". Stage histograms take a
 * performance.now() start; the end-to-end one takes the epoch milliseconds the harness put in tracestate.
 */
export function createMetrics(registry: Registry): Metrics {
  collectDefaultMetrics({ register: registry, prefix: 'als_', eventLoopMonitoringPrecision: 10 });
  const stage = new Histogram({
    name: 'als_stage_duration_seconds',
    help: 'time spent per stage of a request: validation, oracle, endpoint, forward, callback',
    labelNames: ['stage'] as const,
    buckets: stageBuckets,
    registers: [registry],
  });
  const stages = {
    validation: stage.labels('validation'),
    oracle: stage.labels('oracle'),
    endpoint: stage.labels('endpoint'),
    forward: stage.labels('forward'),
    callback: stage.labels('callback'),
  } satisfies Record<Stage, unknown>;
  const e2e = new Histogram({
    name: 'als_end_to_end_seconds',
    help: 'from tx_end2end_start_ts in tracestate to the PUT callback reaching the ALS (Mojaloop issue #3431)',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const cacheCounter = new Counter({
    name: 'als_cache_requests_total',
    help: 'cache look-ups by cache (participant, endpoints, oracle_answer, oracle_registry) and result',
    labelNames: ['cache', 'result'] as const,
    registers: [registry],
  });
  const events = new Counter({
    name: 'als_events_total',
    help: 'flow outcomes: callback_forwarded, forward_failed, error_callback_sent, error_callback_failed, unknown_source',
    labelNames: ['event'] as const,
    registers: [registry],
  });
  const requests = new Counter({
    name: 'als_requests_total',
    help: 'FSPIOP requests answered, by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const retries = new Counter({
    name: 'als_upstream_retries_total',
    help: 'upstream requests retried after a reset idle keep-alive socket',
    registers: [registry],
  });
  let last = performance.eventLoopUtilization();
  const utilisation = new Gauge({
    name: 'als_event_loop_utilization',
    help: 'share of time the event loop was busy since the previous scrape (0..1)',
    registers: [registry],
    collect() {
      const now = performance.eventLoopUtilization();
      this.set(performance.eventLoopUtilization(now, last).utilization);
      last = now;
    },
  });
  void utilisation;

  return {
    observeStage(name, startedAt) {
      stages[name].observe((performance.now() - startedAt) / 1000);
    },
    endToEnd(startedAtMs) {
      const seconds = (Date.now() - startedAtMs) / 1000;
      if (seconds >= 0 && seconds < 3600) e2e.observe(seconds);
    },
    cache(cache, result) {
      cacheCounter.inc({ cache, result });
    },
    event(event) {
      events.inc({ event });
    },
    ingress(route, status) {
      requests.inc({ route, status });
    },
    retry() {
      retries.inc();
    },
    stop() {
      registry.clear();
    },
  };
}
