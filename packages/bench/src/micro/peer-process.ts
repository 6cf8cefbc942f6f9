import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

/**
 * The other end of a micro-benchmark's loopback exchanges, in a process of its own so that only the side
 * measured runs in the measuring process. Forked with an IPC channel; its first argument is its role:
 * - `server`: answers every request 200 with a small JSON body, and sends `{ port }` once it listens;
 * - `load`: for each `{ url, requests, concurrency, body }` it is sent, makes that many PUTs with `concurrency`
 *   in flight over keep-alive connections, then sends `{ done, failed }`.
 */
const role = process.argv[2];
const send = (message: unknown) => process.send?.(message);

if (role === 'server') {
  const answer = Buffer.from('{"ok":true}');
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
      response.end(answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => send({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
} else if (role === 'load') {
  const pools = new Map<string, Pool>();
  process.on('message', async (message: { url: string; requests: number; concurrency: number; body: string }) => {
    const url = new URL(message.url);
    let pool = pools.get(url.origin);
    if (!pool) {
      pool = new Pool(url.origin, { connections: message.concurrency, keepAliveTimeout: 60_000 });
      pools.set(url.origin, pool);
    }
    const body = Buffer.from(message.body);
    const headers = {
      'content-type': 'application/vnd.interoperability.parties+json;version=1.1',
      'content-length': String(body.length),
      date: new Date().toUTCString(),
      'fspiop-source': 'payeefsp',
      'fspiop-destination': 'payerfsp',
    };
    let next = 0;
    let failed = 0;
    const worker = async () => {
      while (next < message.requests) {
        next++;
        const response = await (pool as Pool).request({ path: url.pathname, method: 'PUT', headers, body });
        await response.body.dump();
        if (response.statusCode >= 300) failed++;
      }
    };
    await Promise.all(Array.from({ length: message.concurrency }, worker));
    send({ done: message.requests, failed });
  });
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
} else {
  process.stderr.write(`peer-process: unknown role ${role}\n`);
  process.exitCode = 2;
}
