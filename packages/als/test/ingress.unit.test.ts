import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFakeAls, type FakeAls } from './fake-app.js';
import { callbackHeaders, lookupHeaders, newTraceId } from './helpers.js';

// The synchronous answers of the API, driven with inject over fake ports: what is checked is the route's
// answer and, for an accepted callback, what the Hub sends on.
let als: FakeAls;
beforeAll(() => {
  als = buildFakeAls({ config: { bodyLimitBytes: 4_096 } });
});
afterAll(() => als?.close());

async function inject(
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: string,
) {
  const res = await als.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  const copy = { ...headers };
  delete copy[name];
  return copy;
}

const party = '{"party":{"partyIdInfo":{"partyIdType":"MSISDN","partyIdentifier":"123"}}}';

describe('synchronous header and path validation', () => {
  const get = lookupHeaders(newTraceId());
  // Each answer in the original's words (central-services-shared headerValidation.js and its OpenAPI
  // validation; checked against account-lookup-service v17.16.1 by the parity corpus).
  const putParty = (headers: Record<string, string>) => inject('PUT', '/parties/MSISDN/123', headers, party);
  const cases: [string, () => Promise<{ status: number; body: unknown }>, number, string, string][] = [
    [
      'a GET without Date',
      () => inject('GET', '/parties/MSISDN/123', without(get, 'date')),
      400,
      '3102',
      'Missing mandatory element - Missing required date header',
    ],
    [
      'a GET with a Date that is no IMF-fixdate',
      () => inject('GET', '/parties/MSISDN/123', { ...get, date: '2026-01-01T00:00:00Z' }),
      400,
      '3101',
      'Malformed syntax - Invalid date header',
    ],
    [
      'a GET without Accept',
      () => inject('GET', '/parties/MSISDN/123', without(get, 'accept')),
      400,
      '3102',
      'Missing mandatory element - Accept is required',
    ],
    [
      'a GET without FSPIOP-Source',
      () => inject('GET', '/parties/MSISDN/123', without(get, 'fspiop-source')),
      400,
      '3102',
      "Missing mandatory element - /header must have required property 'fspiop-source'",
    ],
    [
      'a GET with an FSPIOP-Source longer than an FspId',
      () => inject('GET', '/parties/MSISDN/123', { ...get, 'fspiop-source': 'f'.repeat(33) }),
      400,
      '3100',
      'Generic validation error - /header/fspiop-source must NOT have more than 32 characters',
    ],
    [
      'a GET with Accept application/json',
      () => inject('GET', '/parties/MSISDN/123', { ...get, accept: 'application/json' }),
      400,
      '3101',
      'Malformed syntax - Invalid accept header',
    ],
    [
      'a GET with an Accept for another resource',
      () =>
        inject('GET', '/parties/MSISDN/123', {
          ...get,
          accept: 'application/vnd.interoperability.quotes+json;version=1.1',
        }),
      400,
      '3101',
      'Malformed syntax - Invalid accept header',
    ],
    [
      'a GET asking for version 3',
      () =>
        inject('GET', '/parties/MSISDN/123', {
          ...get,
          accept: 'application/vnd.interoperability.parties+json;version=3',
        }),
      406,
      '3001',
      'Unacceptable version requested - The Client requested an unsupported version, see extension list for supported version(s).',
    ],
    [
      'a GET whose Accept names no version',
      () => inject('GET', '/parties/MSISDN/123', { ...get, accept: 'application/vnd.interoperability.parties+json' }),
      406,
      '3001',
      'Unacceptable version requested - The Client requested an unsupported version, see extension list for supported version(s).',
    ],
    [
      'a GET for an unknown Type',
      () => inject('GET', '/parties/PHONE/123', get),
      400,
      '3100',
      'Generic validation error - /path/Type must be equal to one of the allowed values',
    ],
    [
      'a GET for an ID with a brace (%7B)',
      () => inject('GET', '/parties/PERSONAL_ID/ab%7Bcd', get),
      400,
      '3100',
      'Generic validation error - /path/ID must match pattern "^[^\\s{}]+$"',
    ],
    [
      'a GET for an ID with a space (%20)',
      () => inject('GET', '/parties/PERSONAL_ID/ab%20cd', get),
      400,
      '3100',
      'Generic validation error - /path/ID must match pattern "^[^\\s{}]+$"',
    ],
    [
      'a GET with a query parameter the API does not define',
      () => inject('GET', '/parties/MSISDN/123?foo=1', get),
      400,
      '3103',
      'Too many elements - /query must NOT have additional properties',
    ],
    [
      'a GET from an unknown FSPIOP-Source',
      () => inject('GET', '/parties/MSISDN/123', { ...get, 'fspiop-source': 'nobodyfsp' }),
      400,
      '3101',
      'Malformed syntax - invalid fspiop-source header',
    ],
    ['an unknown path', () => inject('GET', '/partiez/MSISDN/123', get), 404, '3002', 'Unknown URI - Not Found'],
    ['a path with an empty ID', () => inject('GET', '/parties/MSISDN/', get), 404, '3002', 'Unknown URI - Not Found'],
    [
      'a path with too many segments',
      () => inject('GET', '/parties/MSISDN/123/a/b/c', get),
      404,
      '3002',
      'Unknown URI - Not Found',
    ],
    [
      'a DELETE on /parties',
      () => inject('DELETE', '/parties/MSISDN/123', get),
      405,
      '3000',
      'Generic client error - Method Not Allowed',
    ],
    [
      'a GET /participants (only POST there)',
      () => inject('GET', '/participants', lookupHeaders(newTraceId(), {}, 'participants')),
      405,
      '3000',
      'Generic client error - Method Not Allowed',
    ],
    [
      'a PUT without Content-Type',
      () => putParty(without(callbackHeaders(newTraceId()), 'content-type')),
      400,
      '3102',
      'Missing mandatory element - Content-type is required',
    ],
    [
      'a PUT with Content-Type version 3.0',
      () =>
        putParty(
          callbackHeaders(newTraceId(), {
            'content-type': 'application/vnd.interoperability.parties+json;version=3.0',
          }),
        ),
      406,
      '3001',
      'Unacceptable version requested - Client supplied a protocol version which is not supported by the server',
    ],
    [
      'a PUT with a Content-Type without a version',
      () =>
        putParty(callbackHeaders(newTraceId(), { 'content-type': 'application/vnd.interoperability.parties+json' })),
      400,
      '3101',
      'Malformed syntax - Invalid content-type header',
    ],
    [
      'a PUT with an Accept that is not FSPIOP (checked when a PUT carries one)',
      () => putParty(callbackHeaders(newTraceId(), { accept: 'application/json' })),
      400,
      '3101',
      'Malformed syntax - Invalid accept header',
    ],
  ];
  for (const [name, send, status, code, description] of cases) {
    it(`answers ${status} ${code} to ${name}`, async () => {
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ errorInformation: { errorCode: code, errorDescription: description } });
    });
  }

  it('lists the supported versions in a 406, and names the allowed methods in a 405', async () => {
    const accept = await inject('GET', '/parties/MSISDN/123', {
      ...get,
      accept: 'application/vnd.interoperability.parties+json;version=3',
    });
    expect(accept.body).toMatchObject({
      errorInformation: {
        extensionList: {
          extension: [
            { key: '1', value: '0' },
            { key: '1', value: '1' },
            { key: '2', value: '0' },
          ],
        },
      },
    });
    const method = await als.app.inject({ method: 'PATCH', url: '/parties/MSISDN/123/error', headers: get });
    expect(method.statusCode).toBe(405);
    // GET matches too: /parties/{Type}/{ID}/{SubId} with SubId "error".
    expect(method.headers.allow).toBe('get,put');
  });

  it('accepts every Accept version of the reference (1, 1.0, 1.1, 2, 2.0) and a list of media types', async () => {
    for (const version of ['1', '1.0', '1.1', '2', '2.0']) {
      const res = await inject('GET', '/parties/MSISDN/40499', {
        ...get,
        accept: `application/vnd.interoperability.parties+json;version=${version}`,
      });
      expect(res.status, version).toBe(202);
    }
    // A list: every member the resource's media type, joined without spaces (the original's pattern); one
    // supported version is enough.
    const list = await inject('GET', '/parties/MSISDN/40499', {
      ...get,
      accept:
        'application/vnd.interoperability.parties+json;version=3,application/vnd.interoperability.parties+json;version=1.1',
    });
    expect(list.status).toBe(202);
    const mixed = await inject('GET', '/parties/MSISDN/40499', {
      ...get,
      accept: 'application/json, application/vnd.interoperability.parties+json;version=1.1',
    });
    expect(mixed.status).toBe(400);
  });
});

describe('malformed bodies: the right error, no 5xx', () => {
  const put = (payload: string, extra: Record<string, string> = {}) =>
    inject('PUT', '/parties/MSISDN/123', callbackHeaders(newTraceId(), extra), payload);

  it('answers a body that is not JSON, or none, as the original: its validator sees an empty object', async () => {
    const missingParty = {
      errorCode: '3102',
      errorDescription: "Missing mandatory element - /requestBody must have required property 'party'",
    };
    expect(await put('{"party": {')).toMatchObject({ status: 400, body: { errorInformation: missingParty } });
    expect(await put('')).toMatchObject({ status: 400, body: { errorInformation: missingParty } });
  });

  it('answers 400 3102 to a party without partyIdInfo', async () => {
    const res = await put('{"party":{"name":"x"}}');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorInformation: { errorCode: '3102' } });
    expect(
      (res.body as { errorInformation: { errorDescription: string } }).errorInformation.errorDescription,
    ).toContain('partyIdInfo');
  });

  it('answers 400 to a party with an unknown partyIdType (schema enum from api-snippets)', async () => {
    const res = await put('{"party":{"partyIdInfo":{"partyIdType":"PHONE","partyIdentifier":"1"}}}');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorInformation: { errorCode: '3100' } });
  });

  it('answers 400 3100 to a 2.0 party whose identifier is too long', async () => {
    const res = await put(`{"party":{"partyIdInfo":{"partyIdType":"MSISDN","partyIdentifier":"${'1'.repeat(200)}"}}}`, {
      'content-type': 'application/vnd.interoperability.parties+json;version=2.0',
    });
    expect(res).toMatchObject({
      status: 400,
      body: {
        errorInformation: {
          errorCode: '3100',
          errorDescription:
            'Generic validation error - /requestBody/party/partyIdInfo/partyIdentifier must NOT have more than 128 characters',
        },
      },
    });
  });

  it('answers 400 3101 to a JSON null body', async () => {
    expect(await put('null')).toMatchObject({
      status: 400,
      body: {
        errorInformation: { errorCode: '3101', errorDescription: 'Malformed syntax - /requestBody must be object' },
      },
    });
  });

  it('accepts an error callback whose errorCode is a number and forwards it unchanged (the original coerces)', async () => {
    const traceId = newTraceId();
    const body = '{"errorInformation":{"errorCode":5100,"errorDescription":"Generic payee error"}}';
    const res = await inject('PUT', '/parties/MSISDN/46700000123/error', callbackHeaders(traceId), body);
    expect(res.status).toBe(200);
    await als.inflight.idle();
    const forwarded = als.world.sent.find((sent) => sent.headers.traceparent?.includes(traceId));
    expect(forwarded?.url).toBe('http://payerfsp.test/FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR/MSISDN/46700000123');
    expect(forwarded?.body?.toString()).toBe(body);
  });

  it('answers 400 3104 to an oversized body', async () => {
    const res = await put(`{"party":{"name":"${'x'.repeat(10_000)}"}}`);
    expect(res).toMatchObject({ status: 400, body: { errorInformation: { errorCode: '3104' } } });
  });

  it('answers 400 3100 to an error callback whose errorCode is not four digits', async () => {
    const res = await inject(
      'PUT',
      '/parties/MSISDN/123/error',
      callbackHeaders(newTraceId()),
      '{"errorInformation":{"errorCode":"12","errorDescription":"x"}}',
    );
    expect(res.status).toBe(400);
    expect(['3100', '3101']).toContain(
      (res.body as { errorInformation: { errorCode: string } }).errorInformation.errorCode,
    );
  });
});

describe('header injection attempts', () => {
  it('treats two FSPIOP-Source values as one unknown source (400 3101), not as either', async () => {
    const res = await als.app.inject({
      method: 'GET',
      url: '/parties/MSISDN/123',
      headers: { ...lookupHeaders(newTraceId()), 'fspiop-source': ['payerfsp', 'payeefsp1'] as unknown as string },
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ errorInformation: { errorCode: '3101' } });
  });

  it('rejects an FSPIOP-Source with an encoded line break as an unknown source', async () => {
    const res = await inject('GET', '/parties/MSISDN/123', {
      ...lookupHeaders(newTraceId()),
      'fspiop-source': 'payerfsp%0d%0aX-Evil: 1',
    });
    expect(res).toMatchObject({ status: 400, body: { errorInformation: { errorCode: '3101' } } });
  });

  it('refuses an encoded line break in an ID before anything is sent (the ID pattern has no whitespace)', async () => {
    const res = await inject('GET', '/parties/MSISDN/123%0D%0AX-Evil:%201', lookupHeaders(newTraceId()));
    expect(res).toMatchObject({ status: 400, body: { errorInformation: { errorCode: '3100' } } });
  });
});
