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
  /** Called once per retried request (a metric). */
  readonly onRetry?: () => void;
}

export interface UpstreamResponse {
  readonly status: number;
  readonly body: Buffer;
}

export interface HttpClient {
  /** Any status is returned; a transport failure throws UpstreamError. */
  request(request: OutboundRequest, upstream: string): Promise<UpstreamResponse>;
  /** Like request, but a status >= 300 throws UpstreamError too; the body is discarded. */
  send(request: OutboundRequest, upstream: string): Promise<void>;
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
 * safe, even for PUT (the original answered these with a 500, issue #3).
 */
function isResetIdleSocket(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE';
}

function splitUrl(url: string): { origin: string; path: string } {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash === -1 ? { origin: url, path: '/' } : { origin: url.slice(0, slash), path: url.slice(slash) };
}

/**
 * One undici Agent: a pool per origin with at most `connections` sockets, so a dead or slow FSP holds
 * only its own pool's sockets and the requests to it; others never queue behind it (issue #3).
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const agent = new Agent({
    connections: options.connections,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    connect: { timeout: options.connectTimeoutMs },
  });

  /**
   * One exchange through Agent.dispatch with a handler of undici's core (legacy) interface: no response
   * stream object and no header parsing, which request() pays for on every call; the body is collected
   * only when the caller reads it.
   */
  const exchange = (options: Dispatcher.DispatchOptions, keepBody: boolean): Promise<UpstreamResponse> =>
    new Promise((resolve, reject) => {
      let status = 0;
      const chunks: Buffer[] = [];
      const handler = {
        onConnect() {},
        onHeaders(statusCode: number) {
          status = statusCode;
          return true;
        },
        onData(chunk: Buffer) {
          if (keepBody) chunks.push(chunk);
          return true;
        },
        onComplete() {
          resolve({ status, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks) });
        },
        onError(error: Error) {
          reject(error);
        },
      };
      agent.dispatch(options, handler as unknown as Dispatcher.DispatchHandler);
    });

  const dispatch = async (request: OutboundRequest, upstream: string, keepBody: boolean) => {
    // Full URL parsing per request is measurable; an endpoint that is not http(s) is all this must catch.
    if (!request.url.startsWith('http://') && !request.url.startsWith('https://'))
      throw new UpstreamError(upstream, `invalid URL ${request.url}`);
    const { origin, path } = splitUrl(request.url);
    const params: Dispatcher.DispatchOptions = {
      origin,
      path,
      method: request.method,
      headers: request.headers,
      body: request.body,
      reset: !options.keepAlive,
    };
    for (let attempt = 0; ; attempt++) {
      try {
        return await exchange(params, keepBody);
      } catch (error) {
        if (attempt === 0 && isResetIdleSocket(error)) {
          options.onRetry?.();
          continue;
        }
        const code = (error as { code?: string }).code;
        throw new UpstreamError(upstream, code ?? (error instanceof Error ? error.message : String(error)));
      }
    }
  };

  return {
    request: (request, upstream) => dispatch(request, upstream, true),
    async send(request, upstream) {
      const { status } = await dispatch(request, upstream, false);
      if (status >= 300) throw new UpstreamError(upstream, `answered ${status}`, status);
    },
    poolStats: () => agent.stats as unknown as Record<string, UpstreamPoolStats>,
    close: () => agent.close(),
  };
}
