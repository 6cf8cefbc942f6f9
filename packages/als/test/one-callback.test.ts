import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, lookupHeaders, newTraceId, type Stack, settled, startStack } from './helpers.js';

// Malformed answers of a real oracle and a real FSP through the real upstream clients: what each becomes is
// the point, so the parts are real. A flow that throws or sends nothing: one-callback.unit.test.ts.

/**
 * An FSP that answers the forwarded GET /parties with the shape registered for the party ID (a status and a
 * body, or a reset connection), so each malformed answer can be fed once.
 */
type Shape = { status: number; body?: string } | 'reset';
const fspShapes = new Map<string, Shape>();
let badFsp: Server;
let badFspUrl: string;

let stack: Stack;
const requestId = 'b51ec534-ee48-4575-b6a9-ead2955b8069';

beforeAll(async () => {
  badFsp = createServer((req, res) => {
    const id = req.url?.split('/')[3] ?? '';
    const shape = fspShapes.get(id) ?? { status: 202 };
    req.resume();
    if (shape === 'reset') {
      req.socket.destroy();
      return;
    }
    res.writeHead(shape.status, { 'content-type': 'application/json' }).end(shape.body ?? '');
  });
  await new Promise<void>((resolve) => badFsp.listen(0, '127.0.0.1', resolve));
  badFspUrl = `http://127.0.0.1:${(badFsp.address() as AddressInfo).port}`;
  const parties: Record<string, { fspId: string }[]> = {};
  for (let i = 0; i < 20; i++) parties[`MSISDN/4677000${String(i).padStart(4, '0')}`] = [{ fspId: 'badfsp' }];
  stack = await startStack({
    sims: { parties, participants: { badfsp: { endpointBase: badFspUrl, currencies: ['USD'] } } },
  });
});

afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => badFsp?.close(resolve));
});

/** Every callback the payer simulator received for a trace, once the ALS has nothing left to do. */
async function callbacksOf(traceId: string) {
  await settled(stack.als);
  return stack.sims.payer?.callbacksFor(traceId) ?? [];
}

function errorOf(body: Buffer): { errorCode: string; errorDescription: string } {
  return JSON.parse(body.toString()).errorInformation;
}

/** What an oracle answered, and the one error the requester must get for it (the original's). */
const oracleShapes: [string, { status: number; body?: string }, string][] = [
  ['200, not JSON', { status: 200, body: 'not json' }, '3204'],
  ['200, no body', { status: 200, body: '' }, '3204'],
  ['200, null', { status: 200, body: 'null' }, '3204'],
  ['200, an array', { status: 200, body: '[]' }, '3204'],
  ['200, no partyList', { status: 200, body: '{}' }, '3204'],
  ['200, partyList not a list', { status: 200, body: '{"partyList":"x"}' }, '3204'],
  ['200, entries that are no objects', { status: 200, body: '{"partyList":[null,1,"x"]}' }, '3204'],
  ['200, an fspId that is a number', { status: 200, body: '{"partyList":[{"fspId":5}]}' }, '3204'],
  ['204, nothing', { status: 204 }, '3204'],
  ['400, junk', { status: 400, body: 'junk' }, '3204'],
  [
    '404, an error body whose code is a number',
    { status: 404, body: '{"errorInformation":{"errorCode":5100}}' },
    '3201',
  ],
  ['500, HTML', { status: 500, body: '<html>down</html>' }, '1001'],
  [
    '503, an error body',
    { status: 503, body: '{"errorInformation":{"errorCode":"2003","errorDescription":"Service unavailable"}}' },
    '2003',
  ],
];

describe('every accepted request ends in exactly one callback', () => {
  it.each(oracleShapes.map(([name, answer, code], i) => [name, answer, code, i] as const))(
    'GET /parties, oracle answers %s: one error callback %s',
    async (_name, answer, code, i) => {
      const id = `4678000${String(i).padStart(4, '0')}`;
      stack.sims.oracle.answerWith('MSISDN', id, answer);
      const traceId = newTraceId();
      const res = await call(`${stack.als.url}/parties/MSISDN/${id}`, 'GET', lookupHeaders(traceId));
      expect(res.status).toBe(202);
      await stack.sims.payer?.waitForCallback(traceId, 5_000);
      const callbacks = await callbacksOf(traceId);
      expect(callbacks).toHaveLength(1);
      expect(callbacks[0]?.path).toBe(`/parties/MSISDN/${id}/error`);
      expect(errorOf(callbacks[0]?.body as Buffer).errorCode).toBe(code);
    },
  );

  it.each(oracleShapes.map(([name, answer, code], i) => [name, answer, code, i] as const))(
    'GET /participants, oracle answers %s: one error callback',
    async (_name, answer, code, i) => {
      const id = `4679000${String(i).padStart(4, '0')}`;
      stack.sims.oracle.answerWith('MSISDN', id, answer);
      const traceId = newTraceId();
      const res = await call(
        `${stack.als.url}/participants/MSISDN/${id}`,
        'GET',
        lookupHeaders(traceId, {}, 'participants'),
      );
      expect(res.status).toBe(202);
      await stack.sims.payer?.waitForCallback(traceId, 5_000);
      const callbacks = await callbacksOf(traceId);
      expect(callbacks).toHaveLength(1);
      expect(callbacks[0]?.path).toBe(`/participants/MSISDN/${id}/error`);
      // An empty list is the original's 3204 "Party not found" for /participants too.
      expect(errorOf(callbacks[0]?.body as Buffer).errorCode).toBe(code);
    },
  );

  /** What the FSP answered to the forwarded GET, and the error callback the payer gets (none: it took it). */
  const fspAnswers: [string, Shape, string | undefined][] = [
    ['200 with a body that is not JSON', { status: 200, body: '<<<' }, undefined],
    ['202 with nothing', { status: 202 }, undefined],
    ['400 with nothing', { status: 400 }, '3000'],
    ['403', { status: 403 }, '3000'],
    ['404', { status: 404 }, '3200'],
    ['418', { status: 418, body: '{"x":1}' }, '3000'],
    ['500 with HTML', { status: 500, body: '<html>' }, '1001'],
    ['503', { status: 503 }, '1001'],
    ['a reset connection', 'reset', '1001'],
  ];

  it.each(fspAnswers.map(([name, shape, code], i) => [name, shape, code, i] as const))(
    'GET /parties, the FSP answers %s',
    async (_name, shape, code, i) => {
      const id = `4677000${String(i).padStart(4, '0')}`;
      fspShapes.set(id, shape);
      const traceId = newTraceId();
      const res = await call(`${stack.als.url}/parties/MSISDN/${id}`, 'GET', lookupHeaders(traceId));
      expect(res.status).toBe(202);
      if (code !== undefined) await stack.sims.payer?.waitForCallback(traceId, 5_000);
      const callbacks = await callbacksOf(traceId);
      if (code === undefined) {
        // The FSP took the lookup: its own callback ends it, the ALS sends nothing more.
        expect(callbacks).toHaveLength(0);
        return;
      }
      expect(callbacks).toHaveLength(1);
      expect(errorOf(callbacks[0]?.body as Buffer).errorCode).toBe(code);
    },
  );

  /** What the oracle answered a batch, and the one PUT the requester gets. */
  const batchShapes: [string, { status: number; body?: string }, string][] = [
    ['201, not JSON', { status: 201, body: 'not json' }, `/participants/${requestId}`],
    [
      '201, an entry whose errorInformation is wrapped twice',
      {
        status: 201,
        body: '{"partyList":[{"partyId":{"partyIdType":"MSISDN","partyIdentifier":"1","fspId":"payerfsp"},"errorInformation":{"errorInformation":{"errorCode":"3003"}}}]}',
      },
      `/participants/${requestId}`,
    ],
    [
      '201, an entry without partyId',
      { status: 201, body: '{"partyList":[{"x":1}]}' },
      `/participants/${requestId}/error`,
    ],
    ['201, a null entry', { status: 201, body: '{"partyList":[null]}' }, `/participants/${requestId}/error`],
    ['400', { status: 400 }, `/participants/${requestId}/error`],
    ['500', { status: 500, body: '<html>' }, `/participants/${requestId}/error`],
  ];

  it.each(batchShapes.map(([name, answer, path], i) => [name, answer, path, i] as const))(
    'POST /participants (batch), oracle answers %s: one PUT',
    async (_name, answer, path, i) => {
      const id = `4676000${String(i).padStart(4, '0')}`;
      stack.sims.oracle.answerWith('MSISDN', id, answer);
      const traceId = newTraceId();
      const res = await call(
        `${stack.als.url}/participants`,
        'POST',
        lookupHeaders(traceId, {}, 'participants'),
        JSON.stringify({ requestId, partyList: [{ partyIdType: 'MSISDN', partyIdentifier: id, fspId: 'payerfsp' }] }),
      );
      expect(res.status).toBe(200);
      await stack.sims.payer?.waitForCallback(traceId, 5_000);
      const callbacks = await callbacksOf(traceId);
      expect(callbacks).toHaveLength(1);
      expect(callbacks[0]?.path).toBe(path);
    },
  );
});
