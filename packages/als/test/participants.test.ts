import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callbackHeaders, errorCodeOf, lookupHeaders, newTraceId, type Stack, startStack } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

const contentType = { 'content-type': 'application/vnd.interoperability.participants+json;version=1.1' };

async function participants(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
  const traceId = newTraceId();
  const headers = { ...lookupHeaders(traceId, {}, 'participants'), ...(body === undefined ? {} : contentType) };
  const res = await call(
    `${stack.als.url}${path}`,
    method,
    headers,
    body === undefined ? undefined : JSON.stringify(body),
  );
  expect(res.status).toBe(202);
  const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
  if (!callback) throw new Error('no payer simulator');
  return callback;
}

describe('/participants', () => {
  it('GET answers PUT /participants/{Type}/{ID} with the FSP from the oracle', async () => {
    const callback = await participants('GET', '/participants/MSISDN/46730000001');
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe('/participants/MSISDN/46730000001');
    expect(JSON.parse(callback.body.toString())).toEqual({
      fspId: stack.sims.oracle.lookup('MSISDN', '46730000001')[0]?.fspId,
    });
    expect(callback.headers['fspiop-source']).toBe('Hub');
  });

  it('GET of an unknown party calls back 3204', async () => {
    const callback = await participants('GET', '/participants/MSISDN/40430000001');
    expect(callback.kind).toBe('error');
    expect(errorCodeOf(callback.body)).toBe('3204');
  });

  it('POST registers the party at the oracle and confirms with its fspId', async () => {
    const callback = await participants('POST', '/participants/MSISDN/46730000002', {
      fspId: 'payerfsp',
      currency: 'EUR',
    });
    expect(callback.kind).toBe('success');
    expect(JSON.parse(callback.body.toString())).toEqual({ fspId: 'payerfsp' });
    expect(stack.sims.oracle.lookup('MSISDN', '46730000002')).toEqual([{ fspId: 'payerfsp', currency: 'EUR' }]);
  });

  it('POST for an FSP that does not exist calls back 3201', async () => {
    const callback = await participants('POST', '/participants/MSISDN/46730000003', { fspId: 'ghostfsp' });
    expect(callback.kind).toBe('error');
    expect(errorCodeOf(callback.body)).toBe('3201');
  });

  it('DELETE removes the party at the oracle', async () => {
    await participants('POST', '/participants/MSISDN/46730000004', { fspId: 'payerfsp' });
    const callback = await participants('DELETE', '/participants/MSISDN/46730000004');
    expect(callback.kind).toBe('success');
    expect(stack.sims.oracle.lookup('MSISDN', '46730000004')).toEqual([]);
  });

  it('batch POST registers every party and answers PUT /participants/{requestId}', async () => {
    const requestId = 'b51ec534-ee48-4575-b6a9-ead2955b8069';
    const callback = await participants('POST', '/participants', {
      requestId,
      partyList: [
        { partyIdType: 'MSISDN', partyIdentifier: '46730000010' },
        { partyIdType: 'EMAIL', partyIdentifier: 'ann@example.org' },
      ],
      currency: 'USD',
    });
    expect(callback.path).toBe(`/participants/${requestId}`);
    const body = JSON.parse(callback.body.toString());
    expect(body.partyList).toHaveLength(2);
    expect(body.partyList.every((p: { errorInformation?: unknown }) => p.errorInformation === undefined)).toBe(true);
    expect(stack.sims.oracle.lookup('EMAIL', 'ann@example.org')).toEqual([{ fspId: 'payerfsp', currency: 'USD' }]);
  });

  it('batch POST with a requestId that is not a UUID is 400 3101', async () => {
    const res = await call(
      `${stack.als.url}/participants`,
      'POST',
      { ...lookupHeaders(newTraceId(), {}, 'participants'), ...contentType },
      JSON.stringify({ requestId: 'nope', partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '1' }] }),
    );
    expect(res.status).toBe(400);
    expect(errorCodeOf(res.body)).toBe('3101');
  });

  it('PUT /participants/{Type}/{ID} is forwarded byte for byte to the destination', async () => {
    const traceId = newTraceId();
    const body = '{"fspId":  "payeefsp1"}';
    const res = await call(
      `${stack.als.url}/participants/MSISDN/46730000020`,
      'PUT',
      callbackHeaders(traceId, contentType, 'participants'),
      body,
    );
    expect(res.status).toBe(200);
    const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.path).toBe('/participants/MSISDN/46730000020');
    expect(callback?.body.equals(Buffer.from(body))).toBe(true);
  });
});
