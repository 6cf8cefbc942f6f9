import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpDate, partyBody } from '@mojafast/sim';
import { completedTimestamp, fulfilMessage, sendToFront } from '@mojafast/switch';
import { request } from 'undici';
import { benchSecret } from './fulfilment.js';

/**
 * The payee FSP of bench:switch over HTTP: it answers a lookup (GET /parties → 202, then PUT /parties to the
 * ALS with its party) and fulfils every transfer it is offered (POST /transfers from ml-api-adapter → 200,
 * then PUT /transfers/{id} COMMITTED with the fulfilment of `benchSecret`); any other callback (the commit
 * notification) is answered 200. Failures of its own requests are counted with their cause, never thrown.
 */
export interface PayeeFsp {
  readonly url: string;
  readonly stats: { lookups: number; transfers: number; failures: Record<string, number> };
  close(): Promise<void>;
}

export interface PayeeFspOptions {
  readonly name: string;
  /** Where PUT /parties goes (the ALS's FSPIOP API). */
  readonly alsUrl: string;
  /** ml-api-adapter's API, where PUT /transfers goes. */
  readonly frontUrl: string;
  readonly seed: string;
  readonly port?: number;
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startPayeeFsp(options: PayeeFspOptions): Promise<PayeeFsp> {
  const stats = { lookups: 0, transfers: 0, failures: {} as Record<string, number> };
  const fail = (what: string, error: unknown) => {
    const key = `${what}: ${error instanceof Error ? error.message.slice(0, 120) : String(error)}`;
    stats.failures[key] = (stats.failures[key] ?? 0) + 1;
  };
  const putParty = async (path: string, payer: string) => {
    const [, , type = '', id = ''] = path.split('/');
    const media = 'application/vnd.interoperability.parties+json;version=1.1';
    const res = await request(`${options.alsUrl}${path}`, {
      method: 'PUT',
      headers: {
        'content-type': media,
        accept: media,
        date: httpDate(),
        'fspiop-source': options.name,
        'fspiop-destination': payer,
      },
      body: partyBody(type, id, undefined, options.name, '1.1'),
    });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`ALS answered PUT /parties with ${res.statusCode}`);
  };
  const fulfil = async (raw: string) => {
    const prepare = JSON.parse(raw) as { transferId: string; payerFsp: string; payeeFsp: string };
    const { fulfilment } = benchSecret(options.seed, prepare.transferId);
    await sendToFront(
      options.frontUrl,
      fulfilMessage('', prepare.transferId, prepare.payeeFsp, prepare.payerFsp, {
        fulfilment,
        completedTimestamp: completedTimestamp(),
        transferState: 'COMMITTED',
      }),
    );
  };
  const server: Server = createServer((req, res) => {
    bodyOf(req).then(
      (body) => {
        const path = req.url ?? '';
        if (req.method === 'GET' && path.startsWith('/parties/')) {
          stats.lookups++;
          res.writeHead(202).end();
          putParty(path, String(req.headers['fspiop-source'] ?? '')).catch((e: unknown) => fail('PUT /parties', e));
        } else if (req.method === 'POST' && path === '/transfers') {
          stats.transfers++;
          res.writeHead(200).end();
          fulfil(body).catch((e: unknown) => fail('PUT /transfers', e));
        } else {
          res.writeHead(200).end();
        }
      },
      (e: unknown) => fail('request', e),
    );
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
