import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { AdapterMessage } from './envelope.js';

/**
 * The FSPs' side of ml-api-adapter over HTTP: each message the driver would produce (envelope.ts) sent instead
 * as the FSP request it stands for (POST /transfers, PUT /transfers/{id}, PUT .../error, GET, and the
 * fxTransfers forms) with its headers and body, to ml-api-adapter's API; and the FSPs' callback servers,
 * which record every callback as the FSP receives it and answer 200.
 */
export interface FspRequest {
  readonly method: 'POST' | 'PUT' | 'GET';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

/** The HTTP request an FSP made for ml-api-adapter to produce this message. */
export function fspRequest(m: AdapterMessage): FspRequest {
  const { envelope } = m;
  const action = envelope.metadata.event.action;
  const resource = action.startsWith('fx-') ? 'fxTransfers' : 'transfers';
  const headers = { ...envelope.content.headers };
  delete headers['content-length'];
  const payload = envelope.content.payload;
  const body =
    typeof payload === 'string' ? Buffer.from(payload.slice(payload.indexOf(',') + 1), 'base64').toString() : undefined;
  const type = envelope.metadata.event.type;
  if (type === 'prepare') return { method: 'POST', path: `/${resource}`, headers, body };
  if (type === 'get') return { method: 'GET', path: `/${resource}/${envelope.id}`, headers, body: undefined };
  const error = action === 'abort' || action === 'fx-abort';
  return { method: 'PUT', path: `/${resource}/${envelope.id}${error ? '/error' : ''}`, headers, body };
}

/**
 * Sends it to ml-api-adapter (in another API's form when `convert` is given, e.g. Iso20022Requests.convert);
 * throws with its answer unless it accepted it (202 for POST and GET, 200 for PUT). Answers the request sent.
 */
export async function sendToFront(
  front: string,
  m: AdapterMessage,
  convert: (r: FspRequest) => FspRequest = (r) => r,
): Promise<FspRequest> {
  const r = convert(fspRequest(m));
  const res = await request(`${front}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
  const text = await res.body.text();
  if (res.statusCode !== (r.method === 'PUT' ? 200 : 202)) {
    throw new Error(`ml-api-adapter answered ${r.method} ${r.path} with ${res.statusCode}: ${text.slice(0, 300)}`);
  }
  return r;
}

export interface Recorded {
  /** The FSP the callback went to: the first path segment of its endpoint (`/<fsp>/transfers/...`). */
  readonly fsp: string;
  readonly method: string;
  /** The path after the FSP's segment, e.g. `/transfers/<id>/error`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export class CallbackRecorder {
  readonly received: Recorded[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<CallbackRecorder> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const recorder = new CallbackRecorder(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const [, fsp = '', ...rest] = (req.url ?? '').split('/');
        recorder.received.push({
          fsp,
          method: req.method ?? '',
          path: `/${rest.join('/')}`,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200).end();
      });
    });
    return recorder;
  }

  /** The callbacks about one transfer or fxTransfer id (its path names it, or a POST's body), in arrival order. */
  about(id: string): Recorded[] {
    return this.received.filter(
      (r) => r.path.split('/').includes(id) || (r.method === 'POST' && r.body.includes(`"${id}"`)),
    );
  }

  /** Resolves once more than `count` callbacks about `id` arrived, or after `timeoutMs` (the observation tells). */
  async waitForMore(id: string, count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.about(id).length <= count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
