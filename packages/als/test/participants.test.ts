import type { ReceivedCallback } from '@mojafast/sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from './admin-client.js';
import { call, lookupHeaders, newTraceId, type Stack, startStack } from './helpers.js';

// The answers of account-lookup-service v17.16.1 src/domain/participants/participants.js, route by route:
// synchronous status, then the one callback (path, recipient, body, error code and description).

let stack: Stack;
let strict: Stack;
beforeAll(async () => {
  // payerfsp1 is a second FSP whose callbacks land on the payer simulator; ghostfsp exists but is inactive.
  stack = await startStack({ sims: { payers: 1, inactiveFsps: ['ghostfsp'] } });
  strict = await startStack({ config: { deleteParticipantValidation: true } });
});
afterAll(async () => {
  await stack?.close();
  await strict?.close();
});

const contentType = { 'content-type': 'application/vnd.interoperability.participants+json;version=1.1' };

interface Sent {
  readonly status: number;
  readonly body: string;
  readonly callback: ReceivedCallback;
}

async function send(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; on?: Stack; status?: number } = {},
): Promise<Sent> {
  const on = options.on ?? stack;
  const traceId = newTraceId();
  const headers = {
    ...lookupHeaders(traceId, {}, 'participants'),
    ...(options.body === undefined ? {} : contentType),
    ...options.headers,
  };
  if (method === 'PUT') delete (headers as Record<string, string>).accept;
  const res = await call(
    `${on.als.url}${path}`,
    method,
    headers,
    options.body === undefined ? undefined : JSON.stringify(options.body),
  );
  expect(res.status).toBe(options.status ?? (method === 'PUT' ? 200 : 202));
  const callback = await on.sims.payer?.waitForCallback(traceId, 5_000);
  if (!callback) throw new Error('no payer simulator');
  return { ...res, callback };
}

function expectErrorCallback(callback: ReceivedCallback, path: string, code: string, description: string) {
  expect(callback.kind).toBe('error');
  expect(callback.method).toBe('PUT');
  expect(callback.path).toBe(path);
  expect(callback.headers['fspiop-source']).toBe('Hub');
  expect(JSON.parse(callback.body.toString())).toEqual({
    errorInformation: { errorCode: code, errorDescription: description },
  });
}

describe('GET /participants/{Type}/{ID}', () => {
  it('answers 202, then PUT {fspId} from the Hub to the requester with the oracle first entry', async () => {
    const { callback } = await send('GET', '/participants/MSISDN/46730000001');
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe('/participants/MSISDN/46730000001');
    expect(callback.headers['fspiop-source']).toBe('Hub');
    expect(callback.headers['fspiop-destination']).toBe('payerfsp');
    expect(JSON.parse(callback.body.toString())).toEqual({
      fspId: stack.sims.oracle.lookup('MSISDN', '46730000001')[0]?.fspId,
    });
  });

  it('calls back 3204 "Party not found" when the oracle has no entry', async () => {
    const { callback } = await send('GET', '/participants/MSISDN/40430000001');
    expectErrorCallback(callback, '/participants/MSISDN/40430000001/error', '3204', 'Party not found');
  });

  it.each([
    ['a bodiless 404', { status: 404 }, '3201', 'Destination FSP Error'],
    ['a bodiless 400', { status: 400 }, '3204', 'Party not found'],
    ['a 500', { status: 500 }, '1001', 'Destination communication error - Failed to send HTTP request to host'],
    [
      'its own error body',
      { status: 404, body: '{"errorInformation":{"errorCode":"3204","errorDescription":"Party not found - oracle"}}' },
      '3204',
      'Party not found - oracle',
    ],
  ])('maps an oracle answering %s as the original', async (_what, answer, code, description) => {
    const id = `467300001${code}`;
    stack.sims.oracle.answerWith('MSISDN', id, answer);
    try {
      const { callback } = await send('GET', `/participants/MSISDN/${id}`);
      expectErrorCallback(callback, `/participants/MSISDN/${id}/error`, code, description);
    } finally {
      stack.sims.oracle.answerWith('MSISDN', id, undefined);
    }
  });

  it('has no oracle fallback for a currency no oracle serves: 3003', async () => {
    // Bad input: ?currency=XOF, while the only MSISDN oracle row has no currency.
    const { callback } = await send('GET', '/participants/MSISDN/46730000002?currency=XOF');
    expectErrorCallback(
      callback,
      '/participants/MSISDN/46730000002/error',
      '3003',
      'Add Party information error - Oracle type:MSISDN and currency:XOF not found',
    );
  });

  it('calls back 3101 with the original words for an MSISDN with letters', async () => {
    const { callback } = await send('GET', '/participants/MSISDN/4673abc');
    expectErrorCallback(
      callback,
      '/participants/MSISDN/4673abc/error',
      '3101',
      "Malformed syntax - Invalid MSISDN identifier: '4673abc'",
    );
  });

  it('serves an inactive FSPIOP-Source as the original does (it only asks central-ledger whether it exists)', async () => {
    const { callback } = await send('GET', '/participants/MSISDN/46730000003', {
      headers: { 'fspiop-source': 'ghostfsp' },
    });
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe('/participants/MSISDN/46730000003');
    expect(callback.headers['fspiop-destination']).toBe('ghostfsp');
  });
});

describe('POST /participants/{Type}/{ID}[/{SubId}]', () => {
  it('stores the party at the oracle and calls back {partyList, currency} from the Hub to the fspId', async () => {
    const { callback } = await send('POST', '/participants/MSISDN/46730000010', {
      body: { fspId: 'payerfsp', currency: 'EUR' },
    });
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe('/participants/MSISDN/46730000010');
    expect(callback.headers['fspiop-source']).toBe('Hub');
    expect(callback.headers['fspiop-destination']).toBe('payerfsp');
    expect(JSON.parse(callback.body.toString())).toEqual({
      partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '46730000010', fspId: 'payerfsp' }],
      currency: 'EUR',
    });
    expect(stack.sims.oracle.lookup('MSISDN', '46730000010')).toEqual([{ fspId: 'payerfsp', currency: 'EUR' }]);
  });

  it('with a SubId names it in the partyList and calls back on the sub-id path', async () => {
    const { callback } = await send('POST', '/participants/MSISDN/46730000011/WALLET', {
      body: { fspId: 'payerfsp' },
    });
    expect(callback.path).toBe('/participants/MSISDN/46730000011/WALLET');
    expect(JSON.parse(callback.body.toString())).toEqual({
      partyList: [
        { partyIdType: 'MSISDN', partyIdentifier: '46730000011', fspId: 'payerfsp', partySubIdOrType: 'WALLET' },
      ],
    });
  });

  it('with FSPIOP-Destination calls back to it, the requester staying FSPIOP-Source', async () => {
    const { callback } = await send('POST', '/participants/MSISDN/46730000012', {
      body: { fspId: 'payerfsp' },
      headers: { 'fspiop-destination': 'payerfsp1' },
    });
    expect(callback.kind).toBe('success');
    expect(callback.headers['fspiop-destination']).toBe('payerfsp1');
    expect(callback.headers['fspiop-source']).toBe('payerfsp');
  });

  it('calls back 3003 when the oracle answers 200 instead of 201 Created', async () => {
    stack.sims.oracle.answerWith('MSISDN', '46730000013', { status: 200 });
    const { callback } = await send('POST', '/participants/MSISDN/46730000013', { body: { fspId: 'payerfsp' } });
    expectErrorCallback(callback, '/participants/MSISDN/46730000013/error', '3003', 'Add Party information error');
  });

  it('passes on the error body of an oracle that refuses (400)', async () => {
    const refusal = { errorInformation: { errorCode: '3003', errorDescription: 'Add Party information error - dup' } };
    stack.sims.oracle.answerWith('MSISDN', '46730000014', { status: 400, body: JSON.stringify(refusal) });
    const { callback } = await send('POST', '/participants/MSISDN/46730000014', { body: { fspId: 'payerfsp' } });
    expectErrorCallback(
      callback,
      '/participants/MSISDN/46730000014/error',
      '3003',
      'Add Party information error - dup',
    );
  });

  it('refuses an unknown requester synchronously: 400 3200', async () => {
    const res = await call(
      `${stack.als.url}/participants/MSISDN/46730000015`,
      'POST',
      { ...lookupHeaders(newTraceId(), { 'fspiop-source': 'nosuchfsp' }, 'participants'), ...contentType },
      JSON.stringify({ fspId: 'nosuchfsp' }),
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      errorInformation: { errorCode: '3200', errorDescription: 'Generic ID not found - Requester FSP not found' },
    });
  });

  it('calls back 3201 for an fspId that is no participant, and stores nothing', async () => {
    const { callback } = await send('POST', '/participants/MSISDN/46730000016', { body: { fspId: 'nosuchfsp' } });
    expectErrorCallback(
      callback,
      '/participants/MSISDN/46730000016/error',
      '3201',
      'Destination FSP Error - FSP nosuchfsp is not a participant',
    );
    expect(stack.sims.oracle.lookup('MSISDN', '46730000016')).not.toContainEqual({ fspId: 'nosuchfsp' });
  });
});

describe('PUT /participants/{Type}/{ID}', () => {
  it('answers 200, updates the oracle, and calls back {partyList} from the Hub to the fspId', async () => {
    const { callback } = await send('PUT', '/participants/MSISDN/46730000020', { body: { fspId: 'payerfsp' } });
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe('/participants/MSISDN/46730000020');
    expect(callback.headers['fspiop-source']).toBe('Hub');
    expect(callback.headers['fspiop-destination']).toBe('payerfsp');
    expect(JSON.parse(callback.body.toString())).toEqual({
      partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '46730000020', fspId: 'payerfsp' }],
    });
    expect(stack.sims.oracle.lookup('MSISDN', '46730000020')).toEqual([{ fspId: 'payerfsp' }]);
  });

  it('calls back the oracle 404 as 3200 (a write, not a lookup)', async () => {
    stack.sims.oracle.answerWith('MSISDN', '46730000021', { status: 404 });
    const { callback } = await send('PUT', '/participants/MSISDN/46730000021', { body: { fspId: 'payerfsp' } });
    expectErrorCallback(
      callback,
      '/participants/MSISDN/46730000021/error',
      '3200',
      'Generic ID not found - The requested resource could not be found',
    );
  });
});

describe('DELETE /participants/{Type}/{ID}', () => {
  it('removes the party at the oracle and calls back {fspId: requester} from the Hub', async () => {
    await send('POST', '/participants/MSISDN/46730000030', { body: { fspId: 'payerfsp' } });
    const { callback } = await send('DELETE', '/participants/MSISDN/46730000030');
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe('/participants/MSISDN/46730000030');
    expect(callback.headers['fspiop-source']).toBe('Hub');
    expect(JSON.parse(callback.body.toString())).toEqual({ fspId: 'payerfsp' });
    expect(stack.sims.oracle.lookup('MSISDN', '46730000030')).toEqual([]);
  });

  it('without the owner check, lets any FSP delete (the original default)', async () => {
    await send('POST', '/participants/MSISDN/46730000031', { body: { fspId: 'payerfsp1' } });
    const { callback } = await send('DELETE', '/participants/MSISDN/46730000031');
    expect(callback.kind).toBe('success');
    expect(stack.sims.oracle.lookup('MSISDN', '46730000031')).toEqual([]);
  });

  it('with the owner check, refuses another FSP entry with 3040 and keeps it', async () => {
    // Bad input: payerfsp deletes an entry the oracle holds for payeefsp2.
    await send('POST', '/participants/MSISDN/46730000032', {
      on: strict,
      body: { fspId: 'payeefsp2' },
      headers: { 'fspiop-destination': 'payerfsp' },
    });
    const { callback } = await send('DELETE', '/participants/MSISDN/46730000032', { on: strict });
    expectErrorCallback(
      callback,
      '/participants/MSISDN/46730000032/error',
      '3040',
      'Delete Party information error - The party MSISDN:46730000032 does not belong to the requesting FSP',
    );
    expect(strict.sims.oracle.lookup('MSISDN', '46730000032')).toEqual([{ fspId: 'payeefsp2' }]);
  });

  it('with the owner check, answers 3040 when the oracle has no entry, and deletes for the owner', async () => {
    const none = await send('DELETE', '/participants/MSISDN/40430000033', { on: strict });
    expectErrorCallback(
      none.callback,
      '/participants/MSISDN/40430000033/error',
      '3040',
      'Delete Party information error - No participant found for the party',
    );
    await send('POST', '/participants/MSISDN/46730000034', { on: strict, body: { fspId: 'payerfsp' } });
    const own = await send('DELETE', '/participants/MSISDN/46730000034', { on: strict });
    expect(own.callback.kind).toBe('success');
    expect(strict.sims.oracle.lookup('MSISDN', '46730000034')).toEqual([]);
  });
});

describe('PUT /participants/{ID}[/error]', () => {
  const batchId = 'b51ec534-ee48-4575-b6a9-ead2955b8069';
  const putBatch = (suffix: string, body: unknown) =>
    call(
      `${stack.als.url}/participants/${batchId}${suffix}`,
      'PUT',
      { ...lookupHeaders(newTraceId(), {}, 'participants'), ...contentType },
      JSON.stringify(body),
    );

  it.each([
    ['', { partyList: [{ partyId: { partyIdType: 'MSISDN', partyIdentifier: '1', fspId: 'payerfsp' } }] }],
    ['/error', { errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } }],
  ])('answers 501 2002 to a valid PUT /participants/{ID}%s', async (suffix, body) => {
    const res = await putBatch(suffix, body);
    expect(res.status).toBe(501);
    expect(JSON.parse(res.body)).toEqual({
      errorInformation: { errorCode: '2002', errorDescription: 'Not implemented' },
    });
  });

  it('validates the body first, as the original: an empty partyList is 400 3100', async () => {
    const res = await putBatch('', { partyList: [] });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      errorInformation: {
        errorCode: '3100',
        errorDescription: 'Generic validation error - /requestBody/partyList must NOT have fewer than 1 items',
      },
    });
  });
});

describe('POST /participants (batch)', () => {
  const requestId = 'b51ec534-ee48-4575-b6a9-ead2955b8069';

  it('answers 200; entries of another FSP get 3204; the oracle partyList is what comes back', async () => {
    // With a currency the oracle is chosen by type and currency (no fallback): register USD ones.
    for (const oracleIdType of ['MSISDN', 'EMAIL']) {
      const res = await call(
        `${stack.als.adminUrl}/oracles`,
        'POST',
        adminHeaders(),
        JSON.stringify({
          oracleIdType,
          endpoint: { value: stack.sims.oracle.url, endpointType: 'URL' },
          currency: 'USD',
        }),
      );
      expect(res.status).toBe(201);
    }
    const { callback } = await send('POST', '/participants', {
      status: 200,
      body: {
        requestId,
        partyList: [
          { partyIdType: 'MSISDN', partyIdentifier: '46730000040', fspId: 'payerfsp' },
          { partyIdType: 'EMAIL', partyIdentifier: 'ann@example.org', fspId: 'payerfsp' },
          // Bad input: an entry for another FSP than the requester.
          { partyIdType: 'MSISDN', partyIdentifier: '46730000041', fspId: 'payeefsp1' },
        ],
        currency: 'USD',
      },
    });
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe(`/participants/${requestId}`);
    expect(callback.headers['fspiop-source']).toBe('Hub');
    expect(callback.headers['fspiop-destination']).toBe('payerfsp');
    const body = JSON.parse(callback.body.toString());
    expect(body.currency).toBe('USD');
    expect(body.partyList).toHaveLength(3);
    expect(body.partyList).toContainEqual({
      partyId: { partyIdType: 'MSISDN', partyIdentifier: '46730000041', fspId: 'payeefsp1', currency: 'USD' },
      errorInformation: {
        errorCode: '3204',
        errorDescription: 'Party not found',
        extensionList: { extension: [{ key: 'MSISDN', value: '46730000041' }] },
      },
    });
    expect(body.partyList).toContainEqual({
      partyId: { partyIdType: 'MSISDN', partyIdentifier: '46730000040', fspId: 'payerfsp' },
    });
    expect(body.partyList).toContainEqual({
      partyId: { partyIdType: 'EMAIL', partyIdentifier: 'ann@example.org', fspId: 'payerfsp' },
    });
    expect(stack.sims.oracle.lookup('EMAIL', 'ann@example.org')).toEqual([{ fspId: 'payerfsp', currency: 'USD' }]);
    expect(stack.sims.oracle.lookup('MSISDN', '46730000041')).not.toContainEqual({
      fspId: 'payeefsp1',
      currency: 'USD',
    });
  });

  it('answers 3003 for each entry when the oracle returns an empty partyList', async () => {
    stack.sims.oracle.answerWith('MSISDN', '46730000042', { status: 201, body: '{"partyList":[]}' });
    try {
      const { callback } = await send('POST', '/participants', {
        status: 200,
        body: { requestId, partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '46730000042', fspId: 'payerfsp' }] },
      });
      expect(JSON.parse(callback.body.toString())).toEqual({
        partyList: [
          {
            partyId: { partyIdType: 'MSISDN', partyIdentifier: '46730000042', fspId: 'payerfsp' },
            errorInformation: {
              errorCode: '3003',
              errorDescription: 'Add Party information error',
              extensionList: { extension: [{ key: 'MSISDN', value: '46730000042' }] },
            },
          },
        ],
      });
    } finally {
      stack.sims.oracle.answerWith('MSISDN', '46730000042', undefined);
    }
  });

  it('serves an inactive requester as the original does: its batch answer', async () => {
    const { callback } = await send('POST', '/participants', {
      status: 200,
      headers: { 'fspiop-source': 'ghostfsp' },
      body: { requestId, partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '46730000043', fspId: 'ghostfsp' }] },
    });
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe(`/participants/${requestId}`);
  });

  it('passes an oracle entry with an errorInformation of any shape on as received (one PUT, never none)', async () => {
    const wrapped = {
      partyId: { partyIdType: 'MSISDN', partyIdentifier: '46730000044', fspId: 'payerfsp' },
      errorInformation: { errorInformation: { errorCode: '3003', errorDescription: 'wrapped twice' } },
    };
    stack.sims.oracle.answerWith('MSISDN', '46730000044', {
      status: 201,
      body: JSON.stringify({ partyList: [wrapped] }),
    });
    try {
      const { callback } = await send('POST', '/participants', {
        status: 200,
        body: { requestId, partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '46730000044', fspId: 'payerfsp' }] },
      });
      expect(callback.path).toBe(`/participants/${requestId}`);
      expect(JSON.parse(callback.body.toString())).toEqual({ partyList: [wrapped] });
    } finally {
      stack.sims.oracle.answerWith('MSISDN', '46730000044', undefined);
    }
  });

  it("answers 400 3100 in the original's words to a requestId that is not a UUID", async () => {
    const res = await call(
      `${stack.als.url}/participants`,
      'POST',
      { ...lookupHeaders(newTraceId(), {}, 'participants'), ...contentType },
      JSON.stringify({ requestId: 'nope', partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '1' }] }),
    );
    expect(res.status).toBe(400);
    const { errorInformation } = JSON.parse(res.body);
    expect(errorInformation.errorCode).toBe('3100');
    expect(errorInformation.errorDescription).toMatch(
      /^Generic validation error - \/requestBody\/requestId must match pattern/,
    );
  });
});

describe('DELETE /endpointcache on the API port', () => {
  it('answers 202 and makes the next lookup ask central-ledger again', async () => {
    await send('GET', '/participants/MSISDN/46730000050');
    const before = stack.sims.admin.stats.endpoints;
    // The original's API definition asks for a Date and nothing else.
    const bare = await call(`${stack.als.url}/endpointcache`, 'DELETE', {});
    expect(bare.status).toBe(400);
    expect(JSON.parse(bare.body).errorInformation).toEqual({
      errorCode: '3102',
      errorDescription: "Missing mandatory element - /header must have required property 'date'",
    });
    const res = await call(`${stack.als.url}/endpointcache`, 'DELETE', { date: new Date().toUTCString() });
    expect(res.status).toBe(202);
    await send('GET', '/participants/MSISDN/46730000051');
    expect(stack.sims.admin.stats.endpoints).toBeGreaterThan(before);
  });
});
