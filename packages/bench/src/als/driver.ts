import { setTimeout as sleep } from 'node:timers/promises';
import { statusOf } from '@mojafast/sim';
import { Pool } from 'undici';
import { LatencyRecorder } from '../report/latency.js';
import type { Metric } from '../report/metrics.js';
import { type ApiType, type FspiopVersion, lookupRequest } from './request.js';

/** What the driver needs from the payer FSP: the callback for one trace id, or a timeout. */
export interface CallbackWaiter {
  waitForCallback(traceId: string, timeoutMs: number): Promise<{ kind: 'success' | 'error' }>;
}

/**
 * Closed model: N virtual users, each looping lookup → think. Open model: lookups start at a fixed
 * arrival rate whatever the system does; when maxVus are all busy the iteration is dropped and counted,
 * as k6's constant-arrival-rate executor does.
 */
export type LoadModel =
  | { readonly kind: 'closed'; readonly vus: number; readonly thinkMs: number }
  | { readonly kind: 'open'; readonly rate: number; readonly maxVus: number };

export interface DriverOptions {
  readonly alsUrl: string;
  readonly payer: CallbackWaiter;
  readonly model: LoadModel;
  readonly warmupSeconds: number;
  /** Measured window; ignored when `iterations` is set. */
  readonly durationSeconds: number;
  /** Stop after this many measured iterations instead of after a duration. */
  readonly iterations?: number | undefined;
  readonly timeoutMs: number;
  readonly version: FspiopVersion;
  readonly apiType?: ApiType | undefined;
  readonly payerFsp: string;
  readonly destination?: string | undefined;
  readonly nextPartyId: () => string;
  /** What the payer keys callbacks by (AlsStackOptions.keyBy): `party` needs ids that never repeat. */
  readonly keyBy?: 'trace' | 'party';
  readonly onProgress?: (snapshot: { elapsedSeconds: number; lookups: number; failed: number }) => void;
  /** Called when the warm-up ends and the measured window begins. */
  readonly onMeasureStart?: () => void;
}

export interface DriverResult {
  readonly metrics: Map<string, Metric>;
  readonly durationSeconds: number;
  readonly lookupsPerSecond: number;
  readonly e2e: ReturnType<LatencyRecorder['summary']>;
  readonly passes: number;
  readonly fails: number;
  readonly timeouts: number;
  readonly dropped: number;
}

type Outcome = 'success' | 'error-callback' | 'timeout' | 'http-failed';

class Tally {
  readonly e2e = new LatencyRecorder();
  readonly accepted = new LatencyRecorder();
  success = 0;
  errorCallbacks = 0;
  timeouts = 0;
  httpFailed = 0;
  httpRequests = 0;
  dropped = 0;
  get completed() {
    return this.success + this.errorCallbacks + this.timeouts + this.httpFailed;
  }
}

export async function runLookups(options: DriverOptions): Promise<DriverResult> {
  const vus = options.model.kind === 'closed' ? options.model.vus : options.model.maxVus;
  // One keep-alive connection per virtual user: the generator never queues a request behind another.
  const pool = new Pool(options.alsUrl, { connections: vus, pipelining: 1, keepAliveTimeout: 60_000 });
  let measuring = false;
  let stopping = false;
  let measureStart = 0;
  const tally = new Tally();

  const lookup = async (): Promise<void> => {
    const counted = measuring;
    const started = performance.now();
    const request = lookupRequest(options.nextPartyId(), {
      version: options.version,
      apiType: options.apiType,
      source: options.payerFsp,
      destination: options.destination,
      now: Date.now(),
    });
    // Registered before the GET goes out: the callback may overtake the 202.
    const key = options.keyBy === 'party' ? request.path.slice('/parties/'.length) : request.traceId;
    const callback = options.payer.waitForCallback(key, options.timeoutMs).then(
      (c) => (c.kind === 'success' ? 'success' : 'error-callback') as Outcome,
      () => 'timeout' as Outcome,
    );
    let outcome: Outcome;
    let acceptedAfter = 0;
    try {
      // Status only, no response stream (the generator shares the cores with what it measures).
      const status = await statusOf(pool, { method: 'GET', path: request.path, headers: request.headers });
      acceptedAfter = performance.now() - started;
      outcome = status === 202 ? await callback : 'http-failed';
    } catch {
      outcome = 'http-failed';
    }
    if (!counted || !measuring) return;
    tally.httpRequests++;
    if (outcome !== 'http-failed') tally.accepted.record(acceptedAfter);
    if (outcome === 'success') {
      tally.success++;
      tally.e2e.record(performance.now() - started);
    } else if (outcome === 'error-callback') tally.errorCallbacks++;
    else if (outcome === 'timeout') tally.timeouts++;
    else tally.httpFailed++;
  };

  const done = () =>
    stopping || (options.iterations !== undefined && measuring && tally.completed >= options.iterations);

  const inFlight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  let load: Promise<void>;
  if (options.model.kind === 'closed') {
    const { thinkMs } = options.model;
    const vu = async () => {
      while (!done()) {
        await lookup();
        if (thinkMs > 0) await sleep(thinkMs);
      }
    };
    load = Promise.all(Array.from({ length: vus }, vu)).then(() => undefined);
  } else {
    const { rate, maxVus } = options.model;
    load = (async () => {
      const begin = performance.now();
      let started = 0;
      while (!done()) {
        const due = Math.floor(((performance.now() - begin) / 1000) * rate);
        for (; started < due; started++) {
          if (inFlight.size >= maxVus) {
            if (measuring) tally.dropped++;
          } else {
            track(lookup());
          }
        }
        await sleep(1);
      }
      await Promise.all(inFlight);
    })();
  }

  const progress = setInterval(() => {
    if (!measuring) return;
    options.onProgress?.({
      elapsedSeconds: (performance.now() - measureStart) / 1000,
      lookups: tally.success,
      failed: tally.completed - tally.success,
    });
  }, 2000);
  progress.unref();

  await sleep(options.warmupSeconds * 1000);
  measuring = true;
  measureStart = performance.now();
  options.onMeasureStart?.();
  if (options.iterations === undefined) {
    await sleep(options.durationSeconds * 1000);
    stopping = true;
  }
  await load;
  const durationSeconds = (performance.now() - measureStart) / 1000;
  measuring = false;
  clearInterval(progress);
  await pool.close();
  return summarise(tally, durationSeconds, vus);
}

function summarise(tally: Tally, durationSeconds: number, vus: number): DriverResult {
  const perSecond = (n: number) => n / durationSeconds;
  const fails = tally.completed - tally.success;
  const iterations = tally.completed;
  const e2e = tally.e2e.summary();
  const metrics = new Map<string, Metric>([
    ['checks', { type: 'rate', passes: tally.success, fails }],
    ['lookups', { type: 'counter', count: tally.success, perSecond: perSecond(tally.success) }],
    ['e2e', { type: 'trend', values: e2e }],
    ['http_req_duration', { type: 'trend', values: tally.accepted.summary() }],
    ['http_req_failed', { type: 'rate', passes: tally.httpFailed, fails: tally.httpRequests - tally.httpFailed }],
    ['http_reqs', { type: 'counter', count: tally.httpRequests, perSecond: perSecond(tally.httpRequests) }],
    ['error_callbacks', { type: 'counter', count: tally.errorCallbacks, perSecond: perSecond(tally.errorCallbacks) }],
    ['timeouts', { type: 'counter', count: tally.timeouts, perSecond: perSecond(tally.timeouts) }],
    ['iterations', { type: 'counter', count: iterations, perSecond: perSecond(iterations) }],
    ['dropped_iterations', { type: 'counter', count: tally.dropped, perSecond: perSecond(tally.dropped) }],
    ['vus', { type: 'gauge', value: vus }],
  ]);
  return {
    metrics,
    durationSeconds,
    lookupsPerSecond: perSecond(tally.success),
    e2e,
    passes: tally.success,
    fails,
    timeouts: tally.timeouts,
    dropped: tally.dropped,
  };
}
