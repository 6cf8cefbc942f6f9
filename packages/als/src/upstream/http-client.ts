import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorInformation } from '@mojafast/fspiop';
import { Agent, type Dispatcher } from 'undici';
import { type OutboundRequest, UpstreamError } from '../discovery/types.js';

export interface HttpClientOptions {
  readonly connections: number;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** false: `connection: close` on every request (undici's `reset`), no socket is reused. */
  readonly keepAlive: boolean;
  /**
   * CAs trusted for https:// upstreams in place of Node's default store (upstream/tls.ts upstreamCa adds
   * to it); undefined: the default store, NODE_EXTRA_CA_CERTS included.
   */
  readonly ca?: string[] | undefined;
  /** Called once per retried request (a metric). */
  readonly onRetry?: () => void;
  /**
   * Called once per request that got no answer (refused, reset after the retry, timed out, a certificate
   * refused), with the origin and undici's error: the failure counter and log. Only failures pay for it.
   */
  readonly onTransportFailure?: (upstream: string, origin: string, error: Error) => void;
}

export interface UpstreamResponse {
  readonly status: number;
  readonly body: Buffer;
}

export interface HttpClient {
  /** Any status is returned; a transport failure throws UpstreamError. */
  request(request: OutboundRequest, upstream: string): Promise<UpstreamResponse>;
  /**
   * Like request, but a status >= 300 throws UpstreamError too; the body is discarded. `settled` is told
   * the result as the exchange completes, before the promise settles (SettlingSend).
   */
  send(request: OutboundRequest, upstream: string, settled?: (ok: boolean) => void): Promise<void>;
  /** Sockets and requests of each origin's pool right now (undici's PoolStats), for the metrics. */
  poolStats(): Record<string, UpstreamPoolStats>;
  close(): Promise<void>;
}

export interface UpstreamPoolStats {
  readonly connected: number;
  readonly free: number;
  readonly pending: number;
  readonly queued: number;
  readonly running: number;
}

/**
 * A keep-alive socket the peer closed while it sat idle fails the next request on it with a reset before
 * any byte of an answer: the request never reached the application, so one retry on a fresh socket is
 * safe, even for PUT (the original answered these with a 500).
 */
const resetCodes = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);

function isReset(error: Error): boolean {
  return resetCodes.has((error as { code?: string }).code ?? '');
}

/**
 * The retry of a reset, as an undici interceptor: a request that failed with a reset before any byte of its
 * answer arrived is dispatched once more, on another socket; anything else passes through untouched.
 * Own, not undici's `interceptors.retry`: configured to the same rule that one also retries a request whose
 * answer had begun (resuming it with a Range header), which for a PUT callback resends what the FSP already
 * processed. `pnpm bench:micro --case retry-interceptor` measures the two side by side
 * (docs/decisions/0012-hand-written-hot-path-pieces.md).
 */
export function retryResetOnce(onRetry?: () => void): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => dispatch(options, new RetryResetOnce(dispatch, options, handler, onRetry));
}

class RetryResetOnce implements Dispatcher.DispatchHandler {
  #answered = false;
  #retried = false;

  constructor(
    private readonly dispatch: Dispatcher.Dispatch,
    private readonly options: Dispatcher.DispatchOptions,
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly onRetry: (() => void) | undefined,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.handler.onRequestStart?.(controller, context);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    this.#answered = true;
    this.handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    if (!this.#answered && !this.#retried && isReset(error)) {
      this.#retried = true;
      this.onRetry?.();
      this.dispatch(this.options, this);
      return;
    }
    this.handler.onResponseError?.(controller, error);
  }
}

/**
 * One exchange's answer, collected by undici's handler interface: the status and, when kept, the body;
 * no response stream object per request, which request() creates and the ALS never needs. A transport
 * failure (and, for `send`, a status >= 300) rejects with the UpstreamError the flows map.
 */
class CollectResponse implements Dispatcher.DispatchHandler {
  #status = 0;
  /** Bytes of a refusal's body (status >= 300) read when the body is not kept. */
  #refusal = 0;
  readonly #chunks: Buffer[] = [];

  /** Set when the request is dispatched: what a transport failure is reported against. */
  origin = '';

  constructor(
    readonly upstream: string,
    private readonly keepBody: boolean,
    private readonly onTransportFailure: HttpClientOptions['onTransportFailure'],
    private readonly resolve: (response: UpstreamResponse) => void,
    private readonly reject: (error: UpstreamError) => void,
    /** A send's completion listener (SettlingSend), told once. */
    private settled: ((ok: boolean) => void) | undefined = undefined,
  ) {}

  /** Tells the completion listener, once, before the promise settles. */
  settle(ok: boolean): void {
    const settled = this.settled;
    if (settled === undefined) return;
    this.settled = undefined;
    settled(ok);
  }

  fail(error: UpstreamError): void {
    this.settle(false);
    this.reject(error);
  }

  /**
   * undici tells its handler interfaces apart by this method: a handler without it is driven through the
   * deprecated one.
   */
  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.#status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.keepBody) this.#chunks.push(chunk);
    else if (this.#status >= 300) {
      this.#refusal += chunk.length;
      if (this.#refusal <= refusalBodyLimit) this.#chunks.push(chunk);
    }
  }

  onResponseEnd(): void {
    const status = this.#status;
    if (!this.keepBody) {
      if (status < 300) {
        this.settle(true);
        this.resolve({ status, body: noBody });
      } else {
        // An FSP's error body is passed on to whom the request came from, as the original's request
        // library does (it builds the error from the answer's errorInformation); a body past the limit is
        // not read as one.
        const body = this.#refusal <= refusalBodyLimit ? Buffer.concat(this.#chunks) : noBody;
        this.fail(new UpstreamError(this.upstream, `answered ${status}`, status, errorInformationOf(body)));
      }
      return;
    }
    const chunks = this.#chunks;
    this.resolve({ status, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks) });
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    // The code names the fault (ECONNREFUSED, SELF_SIGNED_CERT_IN_CHAIN, UND_ERR_HEADERS_TIMEOUT); the error
    // itself is kept as the cause for the failure log.
    const code = (error as { code?: string }).code;
    this.onTransportFailure?.(this.upstream, this.origin, error);
    this.fail(new UpstreamError(this.upstream, code ?? error.message, undefined, undefined, { cause: error }));
  }
}

const noBody = Buffer.alloc(0);

/** The largest error body read from an answer whose body is not otherwise kept. */
const refusalBodyLimit = 64 * 1024;

/** The errorInformation of an upstream's error answer, when it answered one. */
export function errorInformationOf(body: Buffer): ErrorInformation | undefined {
  if (body.length === 0) return undefined;
  try {
    const info = (JSON.parse(body.toString('utf8')) as { errorInformation?: ErrorInformation })?.errorInformation;
    if (typeof info?.errorCode === 'string' && typeof info.errorDescription === 'string') return info;
  } catch {
    // Not JSON: the status alone says what failed.
  }
  return undefined;
}

/** undici's stats of one origin: a Pool's, or a Client's when `connections` is 1. */
function poolStatsOf(stats: Agent['stats'][string]): UpstreamPoolStats {
  if ('free' in stats) return stats;
  const connected = stats.connected ? 1 : 0;
  return {
    connected,
    free: connected && stats.running === 0 ? 1 : 0,
    pending: stats.pending,
    queued: stats.pending,
    running: stats.running,
  };
}

/**
 * One undici Agent: a pool per origin with at most `connections` sockets, so a dead or slow FSP holds
 * only its own pool's sockets and the requests to it; others never queue behind it.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const agent = new Agent({
    connections: options.connections,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    // TLS per origin as any other socket option: an https:// pool keeps its sessions and sockets alive too.
    connect: { timeout: options.connectTimeoutMs, ...(options.ca !== undefined ? { ca: options.ca } : {}) },
  });
  // Read once: the composed dispatcher is a Proxy whose `dispatch` property is looked up through a trap.
  const dispatcher = agent.compose(retryResetOnce(options.onRetry));
  const dispatchOnce = dispatcher.dispatch.bind(dispatcher);
  const reset = !options.keepAlive;
  const onFailure = options.onTransportFailure;

  /** Starts one exchange; `handler` settles its promise. Not async: no promise of its own per call. */
  const start = (request: OutboundRequest, handler: CollectResponse) => {
    const { url } = request;
    // Full URL parsing per request is measurable; an endpoint that is not http(s) is all this must catch.
    if (!url.startsWith('http://') && !url.startsWith('https://')) {
      handler.fail(new UpstreamError(handler.upstream, `invalid URL ${url}`));
      return;
    }
    const slash = url.indexOf('/', url.indexOf('//') + 2);
    const origin = slash === -1 ? url : url.slice(0, slash);
    handler.origin = origin;
    try {
      dispatchOnce(
        {
          origin,
          path: slash === -1 ? '/' : url.slice(slash),
          method: request.method,
          headers: request.headers,
          body: request.body,
          reset,
        },
        handler,
      );
    } catch (error) {
      // Rejects the promise as it did (the executor's throw); the listener hears of it first.
      handler.settle(false);
      throw error;
    }
  };

  return {
    request: (request, upstream) =>
      new Promise((resolve, reject) => start(request, new CollectResponse(upstream, true, onFailure, resolve, reject))),
    send: (request, upstream, settled) =>
      new Promise((resolve, reject) =>
        start(request, new CollectResponse(upstream, false, onFailure, () => resolve(), reject, settled)),
      ),
    poolStats() {
      const pools: Record<string, UpstreamPoolStats> = {};
      for (const [origin, stats] of Object.entries(agent.stats)) pools[origin] = poolStatsOf(stats);
      return pools;
    },
    close: () => agent.close(),
  };
}
