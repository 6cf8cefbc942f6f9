import { createServer as createHttpServer, type Server } from 'node:http';
import net from 'node:net';
import { freePort } from '../load/ports.js';

/**
 * The broken parts the fault bench puts beside healthy ones, all on loopback and stopped by the bench:
 * a payee that accepts a GET and never calls back, one that answers 500, a closed port, and a TCP proxy in
 * front of central-ledger that can be taken down (every connection cut, new ones refused).
 */

export interface FaultPayee {
  /** Endpoint base of an FSP that answers 202 and never sends the PUT. */
  readonly silentBase: string;
  /** Endpoint base of an FSP that answers every request 500 with an FSPIOP 2001 body. */
  readonly brokenBase: string;
  close(): Promise<void>;
}

const serverError = JSON.stringify({
  errorInformation: { errorCode: '2001', errorDescription: 'Internal server error - injected fault' },
});

function listen(server: Server | net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no port'));
      else resolve(address.port);
    });
  });
}

function closeServer(server: Server | net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export async function startFaultPayee(): Promise<FaultPayee> {
  const server = createHttpServer((req, res) => {
    req.resume();
    if (req.url?.startsWith('/broken/')) {
      res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(serverError) });
      res.end(serverError);
      return;
    }
    res.writeHead(202, { 'content-length': 0 });
    res.end();
  });
  server.keepAliveTimeout = 60_000;
  const port = await listen(server);
  return {
    silentBase: `http://127.0.0.1:${port}/silent`,
    brokenBase: `http://127.0.0.1:${port}/broken`,
    async close() {
      server.closeAllConnections();
      await closeServer(server);
    },
  };
}

/** A URL on a port nobody listens on (connection refused). */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

export interface SwitchProxy {
  readonly url: string;
  /** Where connections go, set once the simulators are up. */
  setTarget(url: string): void;
  /** Down: every open connection is cut and new ones are closed at once (an outage, not a slow answer). */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

export async function startSwitchProxy(): Promise<SwitchProxy> {
  let target: URL | undefined;
  let down = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down || !target) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    setTarget(url) {
      target = new URL(url);
    },
    setDown(value) {
      down = value;
      if (value) for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await closeServer(server);
    },
  };
}
