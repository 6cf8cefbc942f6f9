import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { answerUnlessFaulted, type FaultOptions } from './faults.js';
import { type Bind, listen, pathSegments, queryOf, readBody, sendJson, traceIdOf } from './http.js';

export interface ReceivedCallback {
  readonly kind: 'success' | 'error';
  /** Date.now() when the whole body had arrived. */
  readonly receivedAt: number;
  readonly method: string;
  readonly path: string;
  readonly body: Buffer;
  readonly headers: IncomingHttpHeaders;
}

export interface PayerSimOptions {
  readonly port?: number;
  /** Listen address and advertised host (loopback by default). */
  readonly bind?: Bind;
  readonly faults?: FaultOptions;
  /** Keep every callback per trace id for `callbacksFor` (tests); off for load runs. */
  readonly recordHistory?: boolean;
  /** How long an unclaimed callback waits for its waiter before it is dropped. */
  readonly unclaimedTtlMs?: number;
  /** Told of every callback with a trace id (the fault bench counts callbacks per lookup with it). */
  readonly onCallback?: (traceId: string, kind: 'success' | 'error') => void;
  /**
   * `trace` (default): callbacks are keyed by the trace id of their traceparent; `party`: by the resource the
   * callback names (`/parties/MSISDN/123` is `MSISDN/123`), for a switch that does not carry the caller's trace
   * id on (the original ALS starts a trace of its own on the PUT it forwards) and lookups whose ids are unique.
   */
  readonly keyBy?: 'trace' | 'party';
}

export interface PayerSim {
  readonly url: string;
  readonly port: number;
  readonly stats: { callbacks: number; errors: number; withoutTrace: number };
  /** Resolves with the first callback carrying this trace id (also one that arrived before the call). */
  waitForCallback(traceId: string, timeoutMs: number): Promise<ReceivedCallback>;
  /** Every callback received for a trace id (needs recordHistory). */
  callbacksFor(traceId: string): readonly ReceivedCallback[];
  close(): Promise<void>;
}

interface Waiter {
  resolve(callback: ReceivedCallback): void;
  reject(error: Error): void;
  readonly deadline: number;
  readonly timeoutMs: number;
}

/**
 * How often expired waiters are failed. One interval for all instead of a timer per waiter: the bench
 * waits on one callback per lookup, and arming and clearing a timer each time was a visible share of the
 * generator's CPU. A timeout fires up to this much late.
 */
const expiryTickMs = 10;

export class CallbackTimeoutError extends Error {
  constructor(
    readonly traceId: string,
    timeoutMs: number,
  ) {
    super(`no callback for trace ${traceId} within ${timeoutMs} ms`);
    this.name = 'CallbackTimeoutError';
  }
}

function serialise(callback: ReceivedCallback): string {
  return JSON.stringify({
    kind: callback.kind,
    receivedAt: callback.receivedAt,
    method: callback.method,
    path: callback.path,
    headers: callback.headers,
    body: callback.body.toString('utf8'),
  });
}

export async function startPayerSim(opts: PayerSimOptions = {}): Promise<PayerSim> {
  const unclaimedTtlMs = opts.unclaimedTtlMs ?? 30_000;
  const waiters = new Map<string, Waiter[]>();
  // Callbacks that came before anyone waited (the ALS can be faster than the bench's await).
  const unclaimed = new Map<string, ReceivedCallback>();
  const history = new Map<string, ReceivedCallback[]>();
  const stats = { callbacks: 0, errors: 0, withoutTrace: 0 };

  const sweep = setInterval(() => {
    const limit = Date.now() - unclaimedTtlMs;
    for (const [traceId, callback] of unclaimed) {
      if (callback.receivedAt >= limit) break;
      unclaimed.delete(traceId);
    }
  }, 1_000);
  sweep.unref();

  const expire = setInterval(() => {
    if (waiters.size === 0) return;
    const now = performance.now();
    for (const [traceId, queue] of waiters) {
      if (!queue.some((w) => w.deadline <= now)) continue;
      const rest = queue.filter((w) => w.deadline > now);
      if (rest.length === 0) waiters.delete(traceId);
      else waiters.set(traceId, rest);
      for (const waiter of queue) {
        if (waiter.deadline <= now) waiter.reject(new CallbackTimeoutError(traceId, waiter.timeoutMs));
      }
    }
  }, expiryTickMs);
  expire.unref();

  const deliver = (traceId: string, callback: ReceivedCallback): void => {
    opts.onCallback?.(traceId, callback.kind);
    if (opts.recordHistory) {
      const list = history.get(traceId);
      if (list) list.push(callback);
      else history.set(traceId, [callback]);
    }
    const queue = waiters.get(traceId);
    if (queue && queue.length > 0) {
      waiters.delete(traceId);
      for (const waiter of queue) waiter.resolve(callback);
      return;
    }
    if (!unclaimed.has(traceId)) unclaimed.set(traceId, callback);
  };

  const waitForCallback = (traceId: string, timeoutMs: number): Promise<ReceivedCallback> => {
    const early = unclaimed.get(traceId);
    if (early) {
      unclaimed.delete(traceId);
      return Promise.resolve(early);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, deadline: performance.now() + timeoutMs, timeoutMs };
      const queue = waiters.get(traceId);
      if (queue) queue.push(waiter);
      else waiters.set(traceId, [waiter]);
    });
  };

  const longPoll = (res: ServerResponse, traceId: string, query: URLSearchParams): void => {
    const timeoutMs = Math.min(Number(query.get('timeoutMs') ?? 5_000) || 5_000, 120_000);
    waitForCallback(traceId, timeoutMs).then(
      (callback) => sendJson(res, 200, serialise(callback)),
      () => sendJson(res, 504, '{"timeout":true}'),
    );
  };

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const segments = pathSegments(req.url);
    if (req.method === 'GET' && segments[0] === 'callbacks' && segments.length === 2) {
      req.resume();
      longPoll(res, segments[1] as string, queryOf(req.url));
      return;
    }
    if (req.method !== 'PUT' || (segments[0] !== 'parties' && segments[0] !== 'participants')) {
      req.resume();
      sendJson(res, 404, undefined);
      return;
    }
    const body = await readBody(req);
    sendJson(res, 200, undefined);
    const kind = segments[segments.length - 1] === 'error' ? 'error' : 'success';
    stats.callbacks++;
    if (kind === 'error') stats.errors++;
    const traceId =
      opts.keyBy === 'party'
        ? segments.slice(1, kind === 'error' ? -1 : undefined).join('/')
        : traceIdOf(req.headers.traceparent);
    if (!traceId) {
      stats.withoutTrace++;
      return;
    }
    deliver(traceId, {
      kind,
      receivedAt: Date.now(),
      method: req.method,
      path: req.url ?? '',
      body,
      headers: req.headers,
    });
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    answer(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 400, undefined);
    });
  };

  const running = await listen(
    (req, res) => answerUnlessFaulted(opts.faults, req, res, handle),
    opts.port ?? 0,
    opts.bind,
  );

  return {
    url: running.url,
    port: running.port,
    stats,
    waitForCallback,
    callbacksFor: (traceId) => history.get(traceId) ?? [],
    async close() {
      clearInterval(sweep);
      clearInterval(expire);
      await running.close();
      waiters.clear();
    },
  };
}
