import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFakeAls, type FakeAls, sentFor } from './fake-app.js';
import { callbackHeaders, lookupHeaders, newTraceId } from './helpers.js';
import { expectFspiopError, head, rawExchange } from './raw-client.js';

/**
 * Bad input sent as raw bytes on a socket (an HTTP client would fix the framing): every case gets an
 * answer with an FSPIOP errorInformation body (or the 202 a valid request earns), and a good lookup still
 * completes after it. The API over fake ports, listening on loopback: Node's HTTP parser is the part under
 * test. A body slower than the request timeout: bad-input.test.ts (it waits on the timer).
 */
let als: FakeAls;
let port: number;
beforeAll(async () => {
  als = buildFakeAls();
  // Every party is payeefsp's: a valid lookup is forwarded to it.
  const { oracle } = als.world;
  oracle.get = (key) => Map.prototype.get.call(oracle, key) ?? [{ fspId: 'payeefsp' }];
  await als.app.listen({ port: 0, host: '127.0.0.1' });
  port = (als.app.server.address() as AddressInfo).port;
});
afterAll(() => als?.close());

/** The lookup of `traceId` went on to the payee (a GET), and nothing else was sent for it. */
async function forwarded(traceId: string): Promise<void> {
  const sent = await sentFor(als, traceId);
  expect(sent.map((request) => request.method)).toEqual(['GET']);
}

/** The one error callback sent for `traceId`: its error code. */
async function errorCallbackCode(traceId: string): Promise<string | undefined> {
  const sent = await sentFor(als, traceId);
  expect(sent.map((request) => request.method)).toEqual(['PUT']);
  return JSON.parse(sent[0]?.body?.toString() ?? '{}').errorInformation?.errorCode;
}

const partiesMedia = 'application/vnd.interoperability.parties+json;version=1.1';
const participantsMedia = 'application/vnd.interoperability.participants+json;version=1.1';

function lookupHead(path: string, traceId: string, extra: Record<string, string> = {}, version = 'HTTP/1.1') {
  return head(`GET ${path} ${version}`, { host: 'als', ...lookupHeaders(traceId), ...extra });
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  const copy = { ...headers };
  delete copy[name];
  return copy;
}

/** A valid lookup over a fresh raw connection: 202, then the payee's PUT reaches the payer. */
async function goodLookupCompletes(): Promise<void> {
  const traceId = newTraceId();
  const { responses } = await rawExchange(port, [lookupHead('/parties/MSISDN/46799990001', traceId)]);
  expect(responses[0]?.status).toBe(202);
  await forwarded(traceId);
}

describe('raw-socket bad input: each answered, then a good lookup completes', () => {
  it('answers a bodyless DELETE that carries a Content-Type and no Content-Length (curl, fetch), and deletes at the oracle', async () => {
    const traceId = newTraceId();
    const { responses } = await rawExchange(port, [
      head('DELETE /participants/MSISDN/46799990002 HTTP/1.1', {
        host: 'als',
        ...lookupHeaders(traceId, {}, 'participants'),
      }),
    ]);
    expect(responses[0]?.status).toBe(202);
    const [callback] = await sentFor(als, traceId);
    expect(callback?.url).toBe('http://payerfsp.test/FSPIOP_CALLBACK_URL_PARTICIPANT_PUT/MSISDN/46799990002');
    expect(als.world.oracleCalls.filter((c) => c.method === 'DELETE' && c.party.id === '46799990002')).toHaveLength(1);
    await goodLookupCompletes();
  });

  it('answers a bodyless OPTIONS with a Content-Type: 405 3000, as the original answers a method its route lacks', async () => {
    const { responses } = await rawExchange(port, [
      head('OPTIONS /participants/MSISDN/1 HTTP/1.1', { host: 'als', 'content-type': participantsMedia }),
    ]);
    expectFspiopError(responses[0], 405, '3000');
    await goodLookupCompletes();
  });

  it('accepts a 128-character party ID, also percent-encoded to 3 bytes a character', async () => {
    for (const id of ['a'.repeat(128), '%C3%A9'.repeat(128)]) {
      const traceId = newTraceId();
      const { responses } = await rawExchange(port, [lookupHead(`/parties/ACCOUNT_ID/${id}`, traceId)]);
      expect(responses[0]?.status).toBe(202);
      await forwarded(traceId);
    }
    await goodLookupCompletes();
  });

  it('answers 400 3100 to a party ID of 129 characters and to one longer than the router takes', async () => {
    for (const id of ['a'.repeat(129), 'a'.repeat(2_000)]) {
      const { responses } = await rawExchange(port, [lookupHead(`/parties/ACCOUNT_ID/${id}`, newTraceId())]);
      expectFspiopError(responses[0], 400, '3100');
      expect(JSON.parse(responses[0]?.body ?? '').errorInformation.errorDescription).toContain('128');
    }
    await goodLookupCompletes();
  });

  it('answers 400 3101 to Content-Length together with Transfer-Encoding (request smuggling)', async () => {
    const { responses } = await rawExchange(port, [
      'PUT /parties/MSISDN/1 HTTP/1.1\r\nHost: als\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ]);
    expectFspiopError(responses[0], 400, '3101');
    await goodLookupCompletes();
  });

  it('answers 400 3102 to an HTTP/1.1 lookup without Host (RFC 9112 section 3.2)', async () => {
    const { responses } = await rawExchange(port, [
      head('GET /parties/MSISDN/46799990009 HTTP/1.1', lookupHeaders(newTraceId())),
    ]);
    expectFspiopError(responses[0], 400, '3102');
    expect(JSON.parse(responses[0]?.body ?? '').errorInformation.errorDescription).toContain('host');
    await goodLookupCompletes();
  });

  it('answers 400 3101 to a request line that is not HTTP', async () => {
    const { responses } = await rawExchange(port, ['HELLO THERE\r\n\r\n']);
    expectFspiopError(responses[0], 400, '3101');
    await goodLookupCompletes();
  });

  it('answers 400 3101 to a NUL byte in the request line', async () => {
    const { responses } = await rawExchange(port, [
      Buffer.concat([
        Buffer.from('GET /parties/MSISDN/12'),
        Buffer.from([0]),
        Buffer.from('3 HTTP/1.1\r\nHost: a\r\n\r\n'),
      ]),
    ]);
    expectFspiopError(responses[0], 400, '3101');
    await goodLookupCompletes();
  });

  it('answers 431 3104 to 20 KB of headers', async () => {
    const { responses } = await rawExchange(port, [
      lookupHead('/parties/MSISDN/1', newTraceId(), { 'x-padding': 'p'.repeat(20_000) }),
    ]);
    expectFspiopError(responses[0], 431, '3104');
    await goodLookupCompletes();
  });

  it('answers 400 3104 to a 10 MB body, with and without Content-Length', async () => {
    const tenMegabytes = Buffer.alloc(10 * 1024 * 1024, 'x');
    const declared = await rawExchange(port, [
      head('PUT /parties/MSISDN/1 HTTP/1.1', {
        host: 'als',
        ...callbackHeaders(newTraceId()),
        'content-length': String(tenMegabytes.length),
      }),
      tenMegabytes,
    ]);
    expectFspiopError(declared.responses[0], 400, '3104');
    const chunked = await rawExchange(port, [
      head('PUT /parties/MSISDN/1 HTTP/1.1', {
        host: 'als',
        ...callbackHeaders(newTraceId()),
        'transfer-encoding': 'chunked',
      }),
      `${tenMegabytes.length.toString(16)}\r\n`,
      tenMegabytes,
      '\r\n0\r\n\r\n',
    ]);
    expectFspiopError(chunked.responses[0], 400, '3104');
    await goodLookupCompletes();
  });

  it('serves an HTTP/1.0 lookup', async () => {
    const traceId = newTraceId();
    const { responses } = await rawExchange(port, [lookupHead('/parties/MSISDN/46799990003', traceId, {}, 'HTTP/1.0')]);
    expect(responses[0]?.status).toBe(202);
    await forwarded(traceId);
    await goodLookupCompletes();
  });

  it('answers pipelined requests in order on one connection: a lookup, a bad Date, a lookup', async () => {
    const first = newTraceId();
    const second = newTraceId();
    const { responses } = await rawExchange(
      port,
      [
        lookupHead('/parties/MSISDN/46799990004', first) +
          lookupHead('/parties/MSISDN/46799990005', newTraceId(), { date: 'yesterday' }) +
          lookupHead('/parties/MSISDN/46799990006', second),
      ],
      { expected: 3 },
    );
    expect(responses.map((r) => r.status)).toEqual([202, 400, 202]);
    expectFspiopError(responses[1], 400, '3101');
    await forwarded(first);
    await forwarded(second);
  });

  it('keeps unicode, an encoded NUL and an encoded path traversal inside the ID: 202, then error callback 3101', async () => {
    for (const id of ['%E2%82%AC12', '12%003', '..%2F..%2Foracles']) {
      const traceId = newTraceId();
      const { responses } = await rawExchange(port, [lookupHead(`/parties/MSISDN/${id}`, traceId)]);
      expect(responses[0]?.status).toBe(202);
      expect(await errorCallbackCode(traceId)).toBe('3101');
    }
    await goodLookupCompletes();
  });

  it('takes a path traversal in the path itself as path segments: /parties/../oracles is Type "..", 400 3100', async () => {
    const { responses } = await rawExchange(port, [lookupHead('/parties/../oracles', newTraceId())]);
    expectFspiopError(responses[0], 400, '3100');
    expect(JSON.parse(responses[0]?.body ?? '').errorInformation.errorDescription).toBe(
      'Generic validation error - /path/Type must be equal to one of the allowed values',
    );
    const above = await rawExchange(port, [lookupHead('/../../admin/oracles', newTraceId())]);
    expectFspiopError(above.responses[0], 404, '3002');
    await goodLookupCompletes();
  });

  it('checks Content-Type on a GET and the Date layout like the original, and ?currency= against ISO 4217', async () => {
    const cases: [Record<string, string>, string, number, string][] = [
      [without(lookupHeaders(newTraceId()), 'content-type'), '', 400, '3102'],
      [{ ...lookupHeaders(newTraceId()), 'content-type': 'text/plain' }, '', 400, '3101'],
      [{ ...lookupHeaders(newTraceId()), 'content-type': participantsMedia }, '', 400, '3101'],
      [{ ...lookupHeaders(newTraceId()), 'content-type': `${partiesMedia.slice(0, -3)}9.9` }, '', 406, '3001'],
      [{ ...lookupHeaders(newTraceId()), date: '2026-11-23T10:00:00Z' }, '', 400, '3101'],
      [{ ...lookupHeaders(newTraceId()), date: 'Tue, 23 Nov 2026 10:00:00 GMT' }, '', 400, '3101'],
      [{ ...lookupHeaders(newTraceId()), date: 'Mon, 31 Nov 2026 10:00:00 GMT' }, '', 400, '3101'],
      [lookupHeaders(newTraceId()), '?currency=XYZ', 400, '3100'],
      [lookupHeaders(newTraceId()), '?currency=USD&currency=EUR', 400, '3100'],
    ];
    for (const [headers, query, status, code] of cases) {
      const { responses } = await rawExchange(port, [
        head(`GET /parties/MSISDN/46799990007${query} HTTP/1.1`, { host: 'als', ...headers }),
      ]);
      expectFspiopError(responses[0], status, code);
    }
    const traceId = newTraceId();
    const usd = await rawExchange(port, [lookupHead('/parties/MSISDN/46799990008?currency=USD', traceId)]);
    expect(usd.responses[0]?.status).toBe(202);
    await goodLookupCompletes();
  });
});
