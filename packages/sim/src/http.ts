import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Where a simulator listens and the host name in the URLs it hands out (callback endpoints, ready line).
 * Loopback unless told otherwise; in a cluster it binds every interface and advertises its service name,
 * so other pods can call it back (docs/deployment.md, Simulators).
 */
export interface Bind {
  readonly host?: string;
  readonly publicHost?: string;
}

function advertisedHost(bind: Bind | undefined): string {
  if (bind?.publicHost) return bind.publicHost;
  const host = bind?.host ?? '127.0.0.1';
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts a keep-alive HTTP server, on 127.0.0.1 unless `bind` says otherwise (port 0 picks a free one). */
export async function listen(handler: Handler, port = 0, bind?: Bind): Promise<RunningServer & { server: Server }> {
  // optimizeEmptyRequests: a request without Content-Length or Transfer-Encoding (every GET of a lookup)
  // skips the Readable stream life cycle of its IncomingMessage, measurable at thousands of requests/s.
  const server = createServer(
    { keepAlive: true, keepAliveTimeout: 65_000, requestTimeout: 0, optimizeEmptyRequests: true },
    handler,
  );
  // Load generators open many sockets at once; the default backlog of 511 drops SYNs under bursts.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: bind?.host ?? '127.0.0.1', backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    server,
    port: actual,
    url: `http://${advertisedHost(bind)}:${actual}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

const noBody = Buffer.alloc(0);

export function readBody(req: IncomingMessage): Promise<Buffer> {
  // Without body headers the server already ended the stream (optimizeEmptyRequests): no 'end' follows.
  if (req.readableEnded) return Promise.resolve(noBody);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: Buffer | string | undefined): void {
  if (body === undefined) {
    res.writeHead(status, { 'content-length': 0 });
    res.end();
    return;
  }
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length });
  res.end(bytes);
}

/** Path segments of a request URL, percent-decoded, without the query string. */
export function pathSegments(url: string | undefined): string[] {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  const path = q === -1 ? raw : raw.slice(0, q);
  const segments: string[] = [];
  for (const part of path.split('/')) {
    if (part === '') continue;
    // Most segments hold no escape: decoding (and its try) only where one is.
    if (!part.includes('%')) {
      segments.push(part);
      continue;
    }
    try {
      segments.push(decodeURIComponent(part));
    } catch {
      segments.push(part);
    }
  }
  return segments;
}

/** The query string of a request URL; only the long poll and the oracle's currency read one. */
export function queryOf(url: string | undefined): URLSearchParams {
  const q = url?.indexOf('?') ?? -1;
  return new URLSearchParams(q === -1 ? '' : (url as string).slice(q + 1));
}

let lastSecond = 0;
let lastDate = '';

/** An HTTP Date header value (RFC 9110 section 5.6.7), formatted once per second rather than per request. */
export function httpDate(now = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastDate = new Date(second * 1000).toUTCString();
  }
  return lastDate;
}

/** The trace-id field of a W3C traceparent (version-traceid-parentid-flags). */
export function traceIdOf(traceparent: string | string[] | undefined): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const first = traceparent.indexOf('-');
  const second = first === -1 ? -1 : traceparent.indexOf('-', first + 1);
  // A fourth field (flags) must follow the parent id: version-traceid-parentid-flags.
  if (second === -1 || traceparent.indexOf('-', second + 1) === -1) return undefined;
  return traceparent.slice(first + 1, second);
}

/** Resolves with an exchange's status once its answer has ended; the body is read and dropped. */
class StatusOnly implements Dispatcher.DispatchHandler {
  #status = 0;

  constructor(
    private readonly resolve: (status: number) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  /**
   * undici tells its handler interfaces apart by this method: a handler without it is driven through the
   * deprecated one.
   */
  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.#status = statusCode;
  }

  onResponseEnd(): void {
    this.resolve(this.#status);
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.reject(error);
  }
}

/**
 * One exchange through `dispatch` with undici's handler interface, resolving with the status only: no
 * response stream or body object per request. Simulators and load generators share the cores with what
 * they measure, so their per-request cost is kept to the minimum.
 */
export function statusOf(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(options, new StatusOnly(resolve, reject));
  });
}
