import { performance } from 'node:perf_hooks';
import { childrenByPair, FastCounter, FastHistogram, type HistogramChild } from '@mojafast/service-kit';
import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';
import type { DiscoveryEvent, Stage } from '../discovery/types.js';
import {
  createOriginalMetrics,
  type EgressStep,
  noOriginalMetrics,
  ORIGINAL_METRICS_DEFAULTS,
  type OriginalMetricsOptions,
} from './original-metrics.js';

/**
 * What the upstream layer reports here. Declared in observe, not imported from upstream/: observe is below
 * the layers that report into it; upstream's own types (CacheResult in cache.ts, UpstreamPoolStats in
 * http-client.ts) are structurally the same and pass as they are.
 */
export type CacheOutcome = 'hit' | 'miss' | 'stale';
export interface PoolStats {
  readonly connected: number;
  readonly free: number;
  readonly pending: number;
  readonly queued: number;
  readonly running: number;
}

const stageBuckets = [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const endToEndBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Metrics {
  /** Returns the end it read (FlowObserver.stage). */
  observeStage(stage: Stage, startedAt: number): number;
  endToEnd(startedAtMs: number): void;
  cache(cache: string, result: CacheOutcome): void;
  event(event: DiscoveryEvent): void;
  /**
   * A request answered (or refused with 503). Called right after observeStage('validation'): an accepted
   * one also feeds the original's ingress histogram with that duration (`subId`: the path has {SubId}).
   */
  ingress(route: string, status: number, subId?: boolean): void;
  /**
   * One flow of `route` ended now, begun at `startedAt` (a performance.now()): the original's domain
   * histogram, success false when `failed`. The caller learns of the end anyway (fspiop-accept.ts run), so
   * no reaction of its own is put on the flow's promise.
   */
  domain(route: string, startedAt: number, failed: boolean): void;
  /** The original's egress histograms, fed at the upstream edge (upstream/egress-timing.ts) with each call's `seconds`. */
  egress(step: EgressStep, endpointType: string, participant: string, ok: boolean, seconds: number): void;
  retry(): void;
  /** Reports the lookups in flight and their bound on every scrape (nothing on the hot path). */
  watchAdmission(read: () => { inFlight: number; limit: number }): void;
  /** Reports the upstream pools on every scrape (nothing on the hot path). */
  watchUpstreamPools(read: () => Record<string, PoolStats>): void;
  /** Drops every metric from the registry (at shutdown). */
  stop(): void;
}

/**
 * Every metric on the Registry passed in. Names: docs/metrics.md. Stage histograms take a
 * performance.now() start; the end-to-end one takes the epoch milliseconds the harness put in tracestate.
 * `original`: the prefix and default labels of the original's names, or false for none of them.
 */
export function createMetrics(
  registry: Registry,
  original: OriginalMetricsOptions | false = ORIGINAL_METRICS_DEFAULTS,
): Metrics {
  collectDefaultMetrics({ register: registry, prefix: 'als_', eventLoopMonitoringPrecision: 10 });
  const stage = new FastHistogram(
    'als_stage_duration_seconds',
    'time spent per stage of a request: validation, oracle, endpoint, forward, callback',
    stageBuckets,
    registry,
  );
  const stages: Record<Stage, HistogramChild> = {
    validation: stage.child({ stage: 'validation' }),
    oracle: stage.child({ stage: 'oracle' }),
    endpoint: stage.child({ stage: 'endpoint' }),
    forward: stage.child({ stage: 'forward' }),
    callback: stage.child({ stage: 'callback' }),
  };
  const originals = original === false ? noOriginalMetrics : createOriginalMetrics(registry, original);
  // The last validation duration, read by the ingress() call that follows it in the same synchronous
  // step (fspiop-routes.ts): the original's ingress histogram reuses it instead of a second clock read.
  let validationSeconds = 0;
  const e2e = new FastHistogram(
    'als_end_to_end_seconds',
    'from tx_end2end_start_ts in tracestate to the PUT callback reaching the ALS',
    endToEndBuckets,
    registry,
  ).child();
  const cacheCounter = new FastCounter(
    'als_cache_requests_total',
    'cache look-ups by cache (participant, endpoints, oracle_answer, oracle_registry) and result',
    registry,
  );
  const events = new FastCounter(
    'als_events_total',
    'flow outcomes: callback_forwarded, forward_failed, error_callback_sent, error_callback_failed, unknown_source, proxy_error_dropped, proxy_success_dropped, lookup_expired',
    registry,
  );
  const requests = new FastCounter('als_requests_total', 'FSPIOP requests accepted, by route and status', registry);
  const retries = new FastCounter(
    'als_upstream_retries_total',
    'upstream requests retried after a reset idle keep-alive socket',
    registry,
  ).child();
  let last = performance.eventLoopUtilization();
  new Gauge({
    name: 'als_event_loop_utilization',
    help: 'share of time the event loop was busy since the previous scrape (0..1)',
    registers: [registry],
    collect() {
      const now = performance.eventLoopUtilization();
      this.set(performance.eventLoopUtilization(now, last).utilization);
      last = now;
    },
  });

  // Children bound once per label set (childrenByPair): the hot path builds no label object or key string.
  const cacheChild = childrenByPair((cache: string, result: string) => cacheCounter.child({ cache, result }));
  const eventChild = childrenByPair((event: string, _none: '') => events.child({ event }));
  const requestChild = childrenByPair((route: string, status: number) =>
    requests.child({ route, status: String(status) }),
  );

  return {
    observeStage(name, startedAt) {
      const now = performance.now();
      const seconds = (now - startedAt) / 1000;
      if (name === 'validation') validationSeconds = seconds;
      stages[name].observe(seconds);
      return now;
    },
    endToEnd(startedAtMs) {
      const seconds = (Date.now() - startedAtMs) / 1000;
      if (seconds >= 0 && seconds < 3600) e2e.observe(seconds);
    },
    cache(cache, result) {
      cacheChild(cache, result).inc();
    },
    event(event) {
      eventChild(event, '').inc();
    },
    ingress(route, status, subId = false) {
      requestChild(route, status).inc();
      if (status < 300) originals.ingress(route, subId, validationSeconds);
    },
    domain: originals.domain,
    egress: originals.egress,
    retry() {
      retries.inc();
    },
    watchAdmission(read) {
      new Gauge({
        name: 'als_lookups_in_flight',
        help: 'lookups in flight in this process (state="in_flight") and the admission bound (state="limit")',
        labelNames: ['state'],
        registers: [registry],
        collect() {
          const { inFlight, limit } = read();
          this.set({ state: 'in_flight' }, inFlight);
          this.set({ state: 'limit' }, limit);
        },
      });
    },
    watchUpstreamPools(read) {
      const states = ['connected', 'free', 'pending', 'queued', 'running'] as const;
      new Gauge({
        name: 'als_upstream_pool',
        help: 'undici pool per upstream origin: sockets connected and free, requests pending, queued and running',
        labelNames: ['origin', 'state'],
        registers: [registry],
        collect() {
          this.reset();
          for (const [origin, stats] of Object.entries(read())) {
            for (const state of states) this.set({ origin, state }, stats[state]);
          }
        },
      });
    },
    stop() {
      registry.clear();
    },
  };
}
