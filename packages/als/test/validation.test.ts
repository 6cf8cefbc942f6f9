import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from './admin-client.js';
import { call, lookupHeaders, newTraceId, type Stack, startStack } from './helpers.js';

// Party-ID validation as account-lookup-service v17.16.1 src/lib/validators.js: one table of patterns per
// type, the general safe-string rule for every {ID} and {SubId}, the original's 3101 messages.
// The pattern table itself: validation.unit.test.ts.

describe('party ID validation on the wire', () => {
  let stack: Stack;
  let extended: Stack;
  beforeAll(async () => {
    stack = await startStack();
    extended = await startStack({ config: { extendedPartyIdTypes: true } });
  });
  afterAll(async () => {
    await stack?.close();
    await extended?.close();
  });

  it('calls back 3101 for an IBAN in lower case (GET /parties)', async () => {
    const traceId = newTraceId();
    const res = await call(`${stack.als.url}/parties/IBAN/de89370400440532013000`, 'GET', lookupHeaders(traceId));
    expect(res.status).toBe(202);
    const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.path).toBe('/parties/IBAN/de89370400440532013000/error');
    expect(JSON.parse(callback?.body.toString() ?? '{}')).toEqual({
      errorInformation: {
        errorCode: '3101',
        errorDescription: "Malformed syntax - Invalid IBAN identifier: 'de89370400440532013000'",
      },
    });
  });

  it('refuses the extended type CONSENT (400 3100) unless the switch is on', async () => {
    const path = '/participants/CONSENT/c0ffee';
    const off = await call(`${stack.als.url}${path}`, 'GET', lookupHeaders(newTraceId(), {}, 'participants'));
    expect(off.status).toBe(400);
    expect(JSON.parse(off.body).errorInformation.errorCode).toBe('3100');

    const traceId = newTraceId();
    const on = await call(`${extended.als.url}${path}`, 'GET', lookupHeaders(traceId, {}, 'participants'));
    expect(on.status).toBe(202);
    const callback = await extended.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.kind).toBe('success');
    expect(callback?.path).toBe(path);
  });

  it('registers an oracle for CONSENT on the admin port whatever the switch, as the original (its admin document lists it)', async () => {
    const body = JSON.stringify({
      oracleIdType: 'CONSENT',
      endpoint: { value: 'http://127.0.0.1:9', endpointType: 'URL' },
      currency: 'USD',
    });
    expect((await call(`${stack.als.adminUrl}/oracles`, 'POST', adminHeaders(), body)).status).toBe(201);
    expect((await call(`${extended.als.adminUrl}/oracles`, 'POST', adminHeaders(), body)).status).toBe(201);
  });
});
