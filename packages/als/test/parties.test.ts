import { hashId } from '@mojafast/sim';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminHeaders } from './admin-client.js';
import {
  call,
  callbackHeaders,
  errorCodeOf,
  getParties,
  newTraceId,
  type Stack,
  settled,
  startStack,
} from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    sims: { fsps: 5, payeeErrorPrefix: '999', deadEndpointFsps: ['deadfsp'] },
  });
});
afterAll(() => stack?.close());

/** Waits for the callback of a trace and, once the ALS has finished every request it accepted, checks it was the only one. */
async function onlyCallback(traceId: string, on: Stack = stack) {
  const callback = await on.sims.payer?.waitForCallback(traceId, 5_000);
  await settled(on.als);
  expect(on.sims.payer?.callbacksFor(traceId)).toHaveLength(1);
  if (!callback) throw new Error('no payer simulator');
  return callback;
}

const expectedFsp = (id: string) => `payeefsp${(hashId(id) % 5) + 1}`;

describe('GET /parties happy path', () => {
  it('answers 202 and delivers the payee party to the payer, asking the oracle', async () => {
    const traceId = newTraceId();
    const id = '46700000001';
    const res = await getParties(stack.als.url, `MSISDN/${id}`, traceId, {
      tracestate: `tx_end2end_start_ts=${Date.now()}`,
    });
    expect(res.status).toBe(202);
    const callback = await onlyCallback(traceId);
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe(`/parties/MSISDN/${id}`);
    expect(callback.headers['fspiop-source']).toBe(expectedFsp(id));
    expect(callback.headers['fspiop-destination']).toBe('payerfsp');
    expect(callback.headers.tracestate).toMatch(/tx_end2end_start_ts=\d+,tx_callback_start_ts=\d+/);
    expect(JSON.parse(callback.body.toString()).party.partyIdInfo).toMatchObject({ partyIdentifier: id });
    const metrics = await (await fetch(`${stack.als.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/als_end_to_end_seconds_count [1-9]/);
  });

  it('goes straight to FSPIOP-Destination without asking the oracle', async () => {
    const traceId = newTraceId();
    const before = stack.sims.oracle.stats.get;
    // 40412345 is "not found" at the oracle: only a direct forward can find it.
    const res = await getParties(stack.als.url, 'MSISDN/40412345', traceId, { 'fspiop-destination': 'payeefsp2' });
    expect(res.status).toBe(202);
    const callback = await onlyCallback(traceId);
    expect(callback.kind).toBe('success');
    expect(callback.headers['fspiop-source']).toBe('payeefsp2');
    expect(stack.sims.oracle.stats.get).toBe(before);
  });

  it('looks up a party with a SubId and with ?currency=', async () => {
    const withSub = newTraceId();
    await getParties(stack.als.url, 'MSISDN/46700000002/WALLET', withSub);
    const sub = await onlyCallback(withSub);
    expect(sub.path).toBe('/parties/MSISDN/46700000002/WALLET');
    expect(JSON.parse(sub.body.toString()).party.partyIdInfo.partySubIdOrType).toBe('WALLET');
  });

  it('with ?currency= asks the oracle of that currency only, and calls back 3003 when there is none', async () => {
    // The original has no fallback to an oracle without currency (src/models/oracle/facade.js).
    // A stack of its own: the USD oracle this test registers must not answer the lookups of the tests after it.
    const own = await startStack();
    try {
      const noOracle = newTraceId();
      await getParties(own.als.url, 'MSISDN/46700000003?currency=USD', noOracle);
      const refused = await onlyCallback(noOracle, own);
      expect(refused.path).toBe('/parties/MSISDN/46700000003/error');
      expect(JSON.parse(refused.body.toString()).errorInformation).toEqual({
        errorCode: '3003',
        errorDescription: 'Add Party information error - Oracle type:MSISDN and currency:USD not found',
      });

      const added = await call(
        `${own.als.adminUrl}/oracles`,
        'POST',
        adminHeaders(),
        JSON.stringify({
          oracleIdType: 'MSISDN',
          endpoint: { value: own.sims.oracle.url, endpointType: 'URL' },
          currency: 'USD',
        }),
      );
      expect(added.status).toBe(201);
      const withCurrency = newTraceId();
      await getParties(own.als.url, 'MSISDN/46700000003?currency=USD', withCurrency);
      expect((await onlyCallback(withCurrency, own)).kind).toBe('success');
    } finally {
      await own.close();
    }
  });

  it('answers a version 2.0 request with a 2.0 callback', async () => {
    const traceId = newTraceId();
    await getParties(stack.als.url, 'MSISDN/46700000004', traceId, {
      accept: 'application/vnd.interoperability.parties+json;version=2.0',
    });
    const callback = await onlyCallback(traceId);
    expect(callback.headers['content-type']).toContain('version=2.0');
  });
});

describe('PUT /parties forwarding', () => {
  it('forwards a PUT body byte for byte with the payee headers', async () => {
    const traceId = newTraceId();
    // Odd spacing and key order: a re-serialised body would differ.
    const body =
      '{ "party" :{"partyIdInfo":{"partyIdType":"MSISDN","partyIdentifier":"46711111111","fspId":"payeefsp1"},  "name":"Ann"}}';
    const res = await call(
      `${stack.als.url}/parties/MSISDN/46711111111`,
      'PUT',
      callbackHeaders(traceId, { 'fspiop-signature': 'sig-123' }),
      body,
    );
    expect(res.status).toBe(200);
    const callback = await onlyCallback(traceId);
    expect(callback.body.equals(Buffer.from(body))).toBe(true);
    expect(callback.headers['fspiop-signature']).toBe('sig-123');
    expect(callback.headers['fspiop-source']).toBe('payeefsp1');
    expect(callback.headers.accept).toBeUndefined();
  });

  it('forwards a PUT .../error body byte for byte to the error endpoint', async () => {
    const traceId = newTraceId();
    const body = '{"errorInformation":{"errorCode":"5100","errorDescription":"Payee rejected"}}';
    const res = await call(`${stack.als.url}/parties/MSISDN/46711111112/error`, 'PUT', callbackHeaders(traceId), body);
    expect(res.status).toBe(200);
    const callback = await onlyCallback(traceId);
    expect(callback.kind).toBe('error');
    expect(callback.path).toBe('/parties/MSISDN/46711111112/error');
    expect(callback.body.equals(Buffer.from(body))).toBe(true);
  });

  it('sends one 3201 error callback to the source of a PUT whose destination is unknown', async () => {
    const traceId = newTraceId();
    // The "source" is the payer FSP here so the error callback lands on the payer simulator.
    const res = await call(
      `${stack.als.url}/parties/MSISDN/46711111113`,
      'PUT',
      callbackHeaders(traceId, { 'fspiop-source': 'payerfsp', 'fspiop-destination': 'nosuchfsp' }),
      '{"party":{"partyIdInfo":{"partyIdType":"MSISDN","partyIdentifier":"46711111113"}}}',
    );
    expect(res.status).toBe(200);
    const callback = await onlyCallback(traceId);
    expect(callback.kind).toBe('error');
    expect(errorCodeOf(callback.body)).toBe('3201');
    expect(callback.headers['fspiop-source']).toBe('Hub');
  });

  it('drops and counts a PUT from an unknown source: nobody to call back', async () => {
    const traceId = newTraceId();
    const res = await call(
      `${stack.als.url}/parties/MSISDN/46711111114`,
      'PUT',
      callbackHeaders(traceId, { 'fspiop-source': 'ghostfsp' }),
      '{"party":{"partyIdInfo":{"partyIdType":"MSISDN","partyIdentifier":"46711111114"}}}',
    );
    expect(res.status).toBe(200);
    // The PUT was handled (counted as unknown_source) and nothing the ALS accepted is still running: only then
    // is "no callback" a result.
    await vi.waitFor(async () => {
      const metrics = await (await fetch(`${stack.als.adminUrl}/metrics`)).text();
      expect(metrics).toMatch(/als_events_total\{event="unknown_source"\} [1-9]/);
    });
    await settled(stack.als);
    expect(stack.sims.payer?.callbacksFor(traceId)).toHaveLength(0);
  });
});

describe('GET /parties asynchronous errors: exactly one error callback each', () => {
  const cases: [string, string, Record<string, string>, string][] = [
    ['party not found at the oracle', '40400001', {}, '3204'],
    ['an MSISDN with letters (bad ID)', '46abc', {}, '3101'],
    ['an unknown FSPIOP-Destination', '46700000010', { 'fspiop-destination': 'nosuchfsp' }, '3204'],
    ['a payee that answers with an error', '99900001', { 'fspiop-destination': 'payeefsp1' }, '3204'],
    ['a payee endpoint on a closed port', '46700000011', { 'fspiop-destination': 'deadfsp' }, '1001'],
  ];
  for (const [name, id, extra, code] of cases) {
    it(`calls back ${code} for ${name}`, async () => {
      const traceId = newTraceId();
      const res = await getParties(stack.als.url, `MSISDN/${id}`, traceId, extra);
      expect(res.status).toBe(202);
      const callback = await onlyCallback(traceId);
      expect(callback.kind).toBe('error');
      expect(callback.path).toBe(`/parties/MSISDN/${id}/error`);
      expect(errorCodeOf(callback.body)).toBe(code);
    });
  }

  it.each([
    [
      'no entry at the oracle',
      '40400003',
      '',
      '3204',
      'Party not found - No proxy found to start inter-scheme discovery flow',
    ],
    [
      'only entries for another SubId',
      '46700000013',
      '/WALLET',
      '3200',
      'Generic ID not found - Empty oracle partyList, filtered based on callbackEndpointType',
    ],
    [
      'only sub-id entries when none is asked',
      '46700000013',
      '',
      '3200',
      'Generic ID not found - Empty oracle partyList, filtered based on callbackEndpointType',
    ],
  ])('calls back the original words for %s', async (_what, id, sub, code, description) => {
    stack.sims.oracle.answerWith('MSISDN', '46700000013', {
      status: 200,
      body: '{"partyList":[{"fspId":"payeefsp1","partySubIdOrType":"SAVINGS"}]}',
    });
    try {
      const traceId = newTraceId();
      await getParties(stack.als.url, `MSISDN/${id}${sub}`, traceId);
      const callback = await onlyCallback(traceId);
      expect(callback.path).toBe(`/parties/MSISDN/${id}${sub}/error`);
      expect(JSON.parse(callback.body.toString()).errorInformation).toEqual({
        errorCode: code,
        errorDescription: description,
      });
    } finally {
      stack.sims.oracle.answerWith('MSISDN', '46700000013', undefined);
    }
  });

  it('deletes the party at the oracle before the 3204 for a destination not in the scheme', async () => {
    // The original's GetPartiesService.forwardRequestToDestination drops the stale entry first.
    const id = '46700000012';
    expect(stack.sims.oracle.lookup('MSISDN', id)).not.toEqual([]);
    const deletes = stack.sims.oracle.stats.delete;
    const traceId = newTraceId();
    await getParties(stack.als.url, `MSISDN/${id}`, traceId, { 'fspiop-destination': 'nosuchfsp' });
    const callback = await onlyCallback(traceId);
    expect(JSON.parse(callback.body.toString()).errorInformation).toEqual({
      errorCode: '3204',
      errorDescription: 'Party not found - No proxy found to start inter-scheme discovery flow',
    });
    expect(stack.sims.oracle.stats.delete).toBe(deletes + 1);
    expect(stack.sims.oracle.lookup('MSISDN', id)).toEqual([]);
  });

  it('calls back 3101 for a PUT /parties callback whose ID is malformed, to its source', async () => {
    // The original validates the path of a callback too (src/domain/parties/putParties.js).
    const traceId = newTraceId();
    const res = await call(
      `${stack.als.url}/parties/EMAIL/not-an-email`,
      'PUT',
      callbackHeaders(traceId, { 'fspiop-source': 'payerfsp', 'fspiop-destination': 'payeefsp1' }),
      JSON.stringify({
        party: { partyIdInfo: { partyIdType: 'EMAIL', partyIdentifier: 'not-an-email', fspId: 'payerfsp' } },
      }),
    );
    expect(res.status).toBe(200);
    const callback = await onlyCallback(traceId);
    expect(callback.path).toBe('/parties/EMAIL/not-an-email/error');
    expect(JSON.parse(callback.body.toString()).errorInformation).toEqual({
      errorCode: '3101',
      errorDescription: "Malformed syntax - Invalid EMAIL identifier: 'not-an-email'",
    });
  });

  it('sends the error callback from the Hub in the requester version (1.1)', async () => {
    const traceId = newTraceId();
    await getParties(stack.als.url, 'MSISDN/40400002', traceId);
    const callback = await onlyCallback(traceId);
    expect(callback.headers['fspiop-source']).toBe('Hub');
    expect(callback.headers['fspiop-destination']).toBe('payerfsp');
    expect(callback.headers['fspiop-http-method']).toBe('PUT');
    expect(callback.headers['fspiop-uri']).toBe('/parties/MSISDN/40400002/error');
    expect(callback.headers['content-type']).toBe('application/vnd.interoperability.parties+json;version=1.1');
  });
});
