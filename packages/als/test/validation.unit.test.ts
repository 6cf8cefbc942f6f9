import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partyIdPatterns, partyIdProblem } from '../src/fspiop/party-id.js';
import { adminHeaders } from './admin-client.js';
import { buildFakeAls, type FakeAls, sentFor } from './fake-app.js';
import { lookupHeaders, newTraceId } from './helpers.js';

// Party-ID validation as account-lookup-service v17.16.1 src/lib/validators.js: one table of patterns per
// type, the general safe-string rule for every {ID} and {SubId}, the original's 3101 messages.

describe('party ID patterns (plain values)', () => {
  it('has a pattern for exactly MSISDN, EMAIL and IBAN', () => {
    expect(Object.keys(partyIdPatterns).sort()).toEqual(['EMAIL', 'IBAN', 'MSISDN']);
  });

  it.each([
    ['MSISDN', '+46730000001'],
    ['MSISDN', '123'],
    ['EMAIL', 'ann.lee+tag@example.co.uk'],
    ['IBAN', 'DE89370400440532013000'],
    ['ALIAS', 'any-printable_chars.!$%'],
    ['PERSONAL_ID', 'x'.repeat(128)],
  ])('accepts %s %s', (type, id) => {
    expect(partyIdProblem(type, id)).toBeUndefined();
  });

  it.each([
    ['MSISDN', '4673abc', "Invalid MSISDN identifier: '4673abc'"],
    ['MSISDN', `+${'1'.repeat(31)}`, `Invalid MSISDN identifier: '+${'1'.repeat(31)}'`],
    ['EMAIL', 'ann@example', "Invalid EMAIL identifier: 'ann@example'"],
    ['EMAIL', 'ann@@example.org', "Invalid EMAIL identifier: 'ann@@example.org'"],
    ['IBAN', 'de89370400440532013000', "Invalid IBAN identifier: 'de89370400440532013000'"],
    ['ALIAS', 'x'.repeat(129), 'ID parameter exceeds maximum length of 128 characters (got 129)'],
    [
      'ALIAS',
      'a{b}',
      "Invalid ID parameter: 'a{b}'. Must be 1-128 printable characters with no whitespace, curly braces, angle brackets, backticks, or backslashes",
    ],
    [
      'PERSONAL_ID',
      'a b',
      "Invalid ID parameter: 'a b'. Must be 1-128 printable characters with no whitespace, curly braces, angle brackets, backticks, or backslashes",
    ],
    [
      'ALIAS',
      'a\u0001',
      "Invalid ID parameter: 'a\u0001'. Must be 1-128 printable characters with no whitespace, curly braces, angle brackets, backticks, or backslashes",
    ],
  ])('refuses %s %j with the original message', (type, id, message) => {
    expect(partyIdProblem(type, id)).toBe(message);
  });

  it('applies the general rule to a SubId', () => {
    expect(partyIdProblem('MSISDN', '123', 'WALLET')).toBeUndefined();
    expect(partyIdProblem('MSISDN', '123', 'a<b>')).toBe(
      "Invalid SubId parameter: 'a<b>'. Must be 1-128 printable characters with no whitespace, curly braces, angle brackets, backticks, or backslashes",
    );
  });
});

describe('party ID validation through the API (fake ports)', () => {
  let als: FakeAls;
  let extended: FakeAls;
  beforeAll(() => {
    als = buildFakeAls();
    extended = buildFakeAls({ config: { extendedPartyIdTypes: true } });
    extended.world.oracle.set('CONSENT/c0ffee', [{ fspId: 'payeefsp' }]);
  });
  afterAll(async () => {
    await als?.close();
    await extended?.close();
  });

  it('calls back 3101 for an IBAN in lower case (GET /parties)', async () => {
    const traceId = newTraceId();
    const url = '/parties/IBAN/de89370400440532013000';
    const res = await als.app.inject({ method: 'GET', url, headers: lookupHeaders(traceId) });
    expect(res.statusCode).toBe(202);
    const [callback, ...more] = await sentFor(als, traceId);
    expect(more).toHaveLength(0);
    expect(callback?.url).toBe(
      'http://payerfsp.test/FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR/IBAN/de89370400440532013000',
    );
    expect(JSON.parse(callback?.body?.toString() ?? '{}')).toEqual({
      errorInformation: {
        errorCode: '3101',
        errorDescription: "Malformed syntax - Invalid IBAN identifier: 'de89370400440532013000'",
      },
    });
  });

  it('refuses the extended type CONSENT (400 3100) unless the switch is on', async () => {
    const url = '/participants/CONSENT/c0ffee';
    const off = await als.app.inject({ method: 'GET', url, headers: lookupHeaders(newTraceId(), {}, 'participants') });
    expect(off.statusCode).toBe(400);
    expect(JSON.parse(off.body).errorInformation.errorCode).toBe('3100');

    const traceId = newTraceId();
    const on = await extended.app.inject({ method: 'GET', url, headers: lookupHeaders(traceId, {}, 'participants') });
    expect(on.statusCode).toBe(202);
    const [callback] = await sentFor(extended, traceId);
    expect(callback?.url).toBe('http://payerfsp.test/FSPIOP_CALLBACK_URL_PARTICIPANT_PUT/CONSENT/c0ffee');
    expect(JSON.parse(callback?.body?.toString() ?? '{}')).toEqual({ fspId: 'payeefsp' });
  });

  it('registers an oracle for CONSENT on the admin port whatever the switch, as the original (its admin document lists it)', async () => {
    const payload = JSON.stringify({
      oracleIdType: 'CONSENT',
      endpoint: { value: 'http://127.0.0.1:9', endpointType: 'URL' },
      currency: 'USD',
    });
    for (const app of [als.admin, extended.admin]) {
      const res = await app.inject({ method: 'POST', url: '/oracles', headers: adminHeaders(), payload });
      expect(res.statusCode).toBe(201);
    }
  });
});
