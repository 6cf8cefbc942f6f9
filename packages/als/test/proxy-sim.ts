import { createServer, type IncomingHttpHeaders } from 'node:http';
import { partyBody } from '@mojafast/sim';
import { request } from 'undici';

/**
 * A proxy of another scheme on a loopback port, as the ALS sees one: it takes GET /parties and either
 * answers the party from an FSP of its scheme (a PUT back to the ALS with FSPIOP-Proxy naming itself),
 * answers that its scheme does not know the party (PUT …/error, 3204), fails the request (500), or stays
 * silent (202 and nothing). It records every request it gets.
 */
export type ProxyBehaviour = 'answers' | 'errors' | 'fails' | 'silent';

export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface ProxySim {
  readonly name: string;
  readonly url: string;
  readonly received: Received[];
  behaviour: ProxyBehaviour;
  /** The FSP of its scheme that holds the parties. */
  readonly remoteFsp: string;
  setAlsUrl(url: string): void;
  close(): Promise<void>;
}

export async function startProxySim(name: string, remoteFsp: string, behaviour: ProxyBehaviour): Promise<ProxySim> {
  let alsUrl = '';
  const received: Received[] = [];
  const sim: { behaviour: ProxyBehaviour } = { behaviour };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      if (req.method !== 'GET') {
        res.writeHead(200).end();
        return;
      }
      if (sim.behaviour === 'fails') {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"errorInformation":{"errorCode":"2001","errorDescription":"Internal server error"}}');
        return;
      }
      res.writeHead(202).end();
      if (sim.behaviour === 'silent') return;
      const [, , type = '', id = ''] = (req.url ?? '').split('/');
      const source = String(req.headers['fspiop-source']);
      const isError = sim.behaviour === 'errors';
      void request(`${alsUrl}/parties/${type}/${id}${isError ? '/error' : ''}`, {
        method: 'PUT',
        headers: {
          'content-type': 'application/vnd.interoperability.parties+json;version=1.1',
          date: new Date().toUTCString(),
          'fspiop-source': remoteFsp,
          'fspiop-destination': source,
          'fspiop-proxy': name,
          ...(req.headers.traceparent ? { traceparent: String(req.headers.traceparent) } : {}),
        },
        body: isError
          ? '{"errorInformation":{"errorCode":"3204","errorDescription":"Party not found"}}'
          : partyBody(type, id, undefined, remoteFsp, '1.1'),
      }).then((r) => r.body.dump());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    received,
    get behaviour() {
      return sim.behaviour;
    },
    set behaviour(value: ProxyBehaviour) {
      sim.behaviour = value;
    },
    remoteFsp,
    setAlsUrl(url) {
      alsUrl = url;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
