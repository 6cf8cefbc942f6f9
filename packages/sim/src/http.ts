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
 * so other pods can call it back (infra/README.md, Simulators).
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
  const server = createServer({ keepAlive: true, keepAliveTimeout: 65_000, requestTimeout: 0 }, handler);
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

export function readBody(req: IncomingMessage): Promise<Buffer> {
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
export function pathSegments(url: string | undefined): { segments: string[]; query: URLSearchParams } {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  const path = q === -1 ? raw : raw.slice(0, q);
  const query = new URLSearchParams(q === -1 ? '' : raw.slice(q + 1));
  const segments: string[] = [];
  for (const part of path.split('/')) {
    if (part === '') continue;
    try {
      segments.push(decodeURIComponent(part));
    } catch {
      segments.push(part);
    }
  }
  return { segments, query };
}

/** The trace-id field of a W3C traceparent (version-traceid-parentid-flags). */
export function traceIdOf(traceparent: string | string[] | undefined): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const parts = traceparent.split('-');
  return parts.length >= 4 ? parts[1] : undefined;
}

/**
 * One exchange through `dispatch` with undici's core handler interface, resolving with the status only:
 * no response stream or body object per request. Simulators and load generators share the cores with
 * what they measure, so their per-request cost is kept to the minimum.
 */
export function statusOf(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const handler = {
      onConnect() {},
      onHeaders(statusCode: number) {
        status = statusCode;
        return true;
      },
      onData() {
        return true;
      },
      onComplete() {
        resolve(status);
      },
      onError(error: Error) {
        reject(error);
      },
    };
    dispatcher.dispatch(options, handler as unknown as Dispatcher.DispatchHandler);
  });
}
