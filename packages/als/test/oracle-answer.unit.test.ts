import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../src/discovery/types.js';
import { createHttpClient, type HttpClient } from '../src/upstream/http-client.js';
import { createOracleClient } from '../src/upstream/oracle-client.js';

// How the oracle client reads an oracle's answer to a lookup, as the original reads it: the entries that
// name an FSP; an empty list for a 2xx that is not JSON or has no partyList; an error for any other status.

const answers: Record<string, { status: number; body: string }> = {
  '/participants/MSISDN/all-good': {
    status: 200,
    body: '{"partyList":[{"fspId":"payeefsp"},{"fspId":"other","partySubIdOrType":"SAVINGS"}]}',
  },
  '/participants/MSISDN/some-bad': {
    status: 200,
    body: '{"partyList":[{"fspId":"payeefsp"},{"partySubIdOrType":"SAVINGS"},null,{"fspId":7},{"fspId":"later"}]}',
  },
  '/participants/MSISDN/not-json': { status: 200, body: 'not json' },
  '/participants/MSISDN/no-list': { status: 200, body: '{"partyList":{"fspId":"payeefsp"}}' },
  '/participants/MSISDN/unknown': {
    status: 404,
    body: '{"errorInformation":{"errorCode":"3204","errorDescription":"Party not found"}}',
  },
};

let server: Server;
let http: HttpClient;
let oracleUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = answers[req.url ?? ''] ?? { status: 500, body: '' };
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  oracleUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  http = createHttpClient({
    connections: 2,
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 2_000,
    bodyTimeoutMs: 2_000,
    keepAliveTimeoutMs: 30_000,
    keepAlive: true,
  });
});

afterAll(async () => {
  await http.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const lookup = (id: string) =>
  createOracleClient(http, { answerTtlMs: 0, maxStaleMs: 0, maxEntries: 10 }).lookup(
    oracleUrl,
    { type: 'MSISDN', id },
    undefined,
    {},
  );

describe('the oracle client reading a lookup answer', () => {
  it('keeps every entry when all name an FSP', async () => {
    expect(await lookup('all-good')).toEqual([{ fspId: 'payeefsp' }, { fspId: 'other', partySubIdOrType: 'SAVINGS' }]);
  });

  it('drops the entries that name no FSP, keeping the order of the others', async () => {
    expect(await lookup('some-bad')).toEqual([{ fspId: 'payeefsp' }, { fspId: 'later' }]);
  });

  it('reads a 2xx that is not JSON, or has no partyList array, as no party', async () => {
    expect(await lookup('not-json')).toEqual([]);
    expect(await lookup('no-list')).toEqual([]);
  });

  it('fails on any other status, with the oracle’s error information', async () => {
    const failure = await lookup('unknown').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).status).toBe(404);
    expect((failure as UpstreamError).message).toContain('GET answered 404');
  });
});
