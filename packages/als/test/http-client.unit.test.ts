import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../src/discovery/types.js';
import { createHttpClient, type HttpClient } from '../src/upstream/http-client.js';

/**
 * The upstream client's retry of a reset (undici's interceptor API, no deprecated
 * handler): one retry, on another socket, only while no byte of the answer has arrived.
 */

type Behaviour = 'answer' | 'reset' | 'reset-after-headers';

interface Upstream {
  readonly url: string;
  /** Requests received, with the socket each came on. */
  readonly seen: { method: string; socket: Socket }[];
  /** What the server does with the next requests, in order; 'answer' once the list is used up. */
  readonly plan: Behaviour[];
  close(): Promise<void>;
}

const servers: Server[] = [];
const clients: HttpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        }),
    ),
  );
});

async function startUpstream(): Promise<Upstream> {
  const seen: Upstream['seen'] = [];
  const plan: Behaviour[] = [];
  const server = createServer(
    { keepAlive: true, keepAliveTimeout: 60_000 },
    (req: IncomingMessage, res: ServerResponse) => {
      seen.push({ method: req.method ?? '', socket: req.socket });
      const behaviour = plan.shift() ?? 'answer';
      req.resume();
      req.on('end', () => {
        if (behaviour === 'reset') {
          // No byte of an answer: the connection just goes away (RST).
          req.socket.resetAndDestroy();
          return;
        }
        if (behaviour === 'reset-after-headers') {
          // The status line and headers are out, the promised body never comes.
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 });
          res.write('{"partial":', () => req.socket.resetAndDestroy());
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 11 });
        res.end('{"ok":true}');
      });
    },
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, plan, close: async () => {} };
}

function client(onRetry?: () => void, connections = 4): HttpClient {
  const http = createHttpClient({
    connections,
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 2_000,
    bodyTimeoutMs: 2_000,
    keepAliveTimeoutMs: 30_000,
    keepAlive: true,
    onRetry,
  });
  clients.push(http);
  return http;
}

describe('upstream HTTP client', () => {
  it('retries a PUT once on another socket when a reused keep-alive socket is reset before any answer', async () => {
    const upstream = await startUpstream();
    let retries = 0;
    // One socket per origin, so the second request must go out on the first one's socket.
    const http = client(() => retries++, 1);
    // A first exchange leaves a keep-alive socket in the pool.
    expect((await http.request({ url: `${upstream.url}/a`, method: 'GET', headers: {} }, 'fsp')).status).toBe(200);
    upstream.plan.push('reset');
    const answer = await http.request(
      { url: `${upstream.url}/b`, method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' },
      'fsp',
    );
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('{"ok":true}');
    expect(retries).toBe(1);
    expect(upstream.seen.map((s) => s.method)).toEqual(['GET', 'PUT', 'PUT']);
    // The reset request went out on the reused socket, its retry on a fresh one.
    expect(upstream.seen[1]?.socket).toBe(upstream.seen[0]?.socket);
    expect(upstream.seen[2]?.socket).not.toBe(upstream.seen[1]?.socket);
  });

  it('retries only once: a second reset is the caller’s UpstreamError', async () => {
    const upstream = await startUpstream();
    let retries = 0;
    const http = client(() => retries++);
    upstream.plan.push('reset', 'reset');
    const failure = await http.send({ url: `${upstream.url}/c`, method: 'GET', headers: {} }, 'fsp').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).upstream).toBe('fsp');
    expect(retries).toBe(1);
    expect(upstream.seen).toHaveLength(2);
  });

  it('does not retry once the answer has started: the partial answer fails the request', async () => {
    const upstream = await startUpstream();
    let retries = 0;
    const http = client(() => retries++);
    upstream.plan.push('reset-after-headers');
    const failure = await http.request({ url: `${upstream.url}/d`, method: 'GET', headers: {} }, 'oracle').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(retries).toBe(0);
    expect(upstream.seen).toHaveLength(1);
  });

  it('answers a status >= 300 of send with an UpstreamError carrying it, without a retry', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(503, { 'content-length': 0 });
      res.end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    let retries = 0;
    const http = client(() => retries++);
    const failure = await http
      .send({ url: `http://127.0.0.1:${port}/e`, method: 'PUT', headers: {}, body: '{}' }, 'fsp')
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).status).toBe(503);
    expect(retries).toBe(0);
  });

  it('tells a send’s listener its result once, before its promise settles: 2xx, a reset twice, a bad URL', async () => {
    const upstream = await startUpstream();
    const http = client();
    const told: boolean[] = [];
    // What the listener had heard when the promise settled, per send.
    const heardAtSettle = async (url: string) => {
      const count = () => told.length;
      const settled = await http
        .send({ url, method: 'GET', headers: {} }, 'fsp', (ok) => told.push(ok))
        .then(
          () => ['resolved', count()],
          () => ['rejected', count()],
        );
      return settled;
    };
    expect(await heardAtSettle(`${upstream.url}/ok`)).toEqual(['resolved', 1]);
    upstream.plan.push('reset', 'reset');
    expect(await heardAtSettle(`${upstream.url}/down`)).toEqual(['rejected', 2]);
    expect(await heardAtSettle('ftp://nowhere')).toEqual(['rejected', 3]);
    expect(told).toEqual([true, false, false]);
  });
});
