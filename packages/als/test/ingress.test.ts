import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMediaType } from '../src/fspiop/versions.js';
import { callbackHeaders, lookupHeaders, newTraceId, type Stack, startStack } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ config: { bodyLimitBytes: 4_096 } });
});
afterAll(() => stack?.close());

async function inject(
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: string,
) {
  const res = await stack.als.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
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
  const cases: [string, () => Promise<{ status: number; body: unknown }>, number, string][] = [
    ['a GET without Date', () => inject('GET', '/parties/MSISDN/123', without(get, 'date')), 400, '3102'],
    ['a GET without Accept', () => inject('GET', '/parties/MSISDN/123', without(get, 'accept')), 400, '3102'],
    [
      'a GET without FSPIOP-Source',
      () => inject('GET', '/parties/MSISDN/123', without(get, 'fspiop-source')),
      400,
      '3102',
    ],
    [
      'a GET with Accept application/json',
      () => inject('GET', '/parties/MSISDN/123', { ...get, accept: 'application/json' }),
      400,
      '3101',
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
    ],
    ['a GET for an unknown Type', () => inject('GET', '/parties/PHONE/123', get), 400, '3100'],
    [
      'a GET from an unknown FSPIOP-Source',
      () => inject('GET', '/parties/MSISDN/123', { ...get, 'fspiop-source': 'ghostfsp' }),
      400,
      '3101',
    ],
    ['an unknown path', () => inject('GET', '/partiez/MSISDN/123', get), 404, '3002'],
    ['a path with an empty ID', () => inject('GET', '/parties/MSISDN/', get), 404, '3002'],
    ['a path with broken percent-encoding', () => inject('GET', '/parties/MSISDN/%E0%A4%A', get), 400, '3101'],
    ['a path with too many segments', () => inject('GET', '/parties/MSISDN/123/a/b/c', get), 404, '3002'],
    [
      'a PUT without Content-Type',
      () => inject('PUT', '/parties/MSISDN/123', without(callbackHeaders(newTraceId()), 'content-type'), party),
      400,
      '3102',
    ],
    [
      'a PUT with Content-Type version 3.0',
      () =>
        inject(
          'PUT',
          '/parties/MSISDN/123',
          callbackHeaders(newTraceId(), {
            'content-type': 'application/vnd.interoperability.parties+json;version=3.0',
          }),
          party,
        ),
      406,
      '3001',
    ],
    [
      'a PUT with a Content-Type without a version',
      () =>
        inject(
          'PUT',
          '/parties/MSISDN/123',
          callbackHeaders(newTraceId(), { 'content-type': 'application/vnd.interoperability.parties+json' }),
          party,
        ),
      400,
      '3101',
    ],
  ];
  for (const [name, send, status, code] of cases) {
    it(`answers ${status} ${code} to ${name}`, async () => {
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ errorInformation: { errorCode: code } });
    });
  }

  it('accepts every Accept version of the reference (1, 1.0, 1.1, 2, 2.0) and a list of media types', async () => {
    for (const version of ['1', '1.0', '1.1', '2', '2.0']) {
      const res = await inject('GET', '/parties/MSISDN/40499', {
        ...get,
        accept: `application/vnd.interoperability.parties+json;version=${version}`,
      });
      expect(res.status, version).toBe(202);
    }
    const list = await inject('GET', '/parties/MSISDN/40499', {
      ...get,
      accept: 'application/json, application/vnd.interoperability.parties+json;version=1.1',
    });
    expect(list.status).toBe(202);
  });
});

describe('malformed bodies: the right error, no 5xx', () => {
  const put = (payload: string, extra: Record<string, string> = {}) =>
    inject('PUT', '/parties/MSISDN/123', callbackHeaders(newTraceId(), extra), payload);

  it('answers 400 3101 to a body that is not JSON', async () => {
    const res = await put('{"party": {');
    expect(res).toMatchObject({ status: 400, body: { errorInformation: { errorCode: '3101' } } });
  });

  it('answers 400 3102 to a PUT without a body and to a party without partyIdInfo', async () => {
    expect((await put('')).body).toMatchObject({ errorInformation: { errorCode: '3102' } });
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

  it('answers 400 3101 to a 2.0 party whose identifier is too long', async () => {
    const res = await put(`{"party":{"partyIdInfo":{"partyIdType":"MSISDN","partyIdentifier":"${'1'.repeat(200)}"}}}`, {
      'content-type': 'application/vnd.interoperability.parties+json;version=2.0',
    });
    expect(res).toMatchObject({ status: 400, body: { errorInformation: { errorCode: '3101' } } });
  });

  it('answers 400 3101 to a JSON null body', async () => {
    expect(await put('null')).toMatchObject({ status: 400, body: { errorInformation: { errorCode: '3101' } } });
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
    const res = await stack.als.app.inject({
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

  it('keeps an encoded line break in an ID inside the path segment it came in', async () => {
    const traceId = newTraceId();
    const res = await inject('GET', '/parties/MSISDN/123%0D%0AX-Evil:%201', lookupHeaders(traceId));
    expect(res.status).toBe(202);
    const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.kind).toBe('error');
    expect(callback?.path).toBe('/parties/MSISDN/123%0D%0AX-Evil%3A%201/error');
    expect(callback?.headers['x-evil']).toBeUndefined();
  });
});

describe('media type parsing (remembered per header text)', () => {
  it('gives the same answer for a header seen before, also after many distinct headers filled the memory', () => {
    const fspiop = 'application/vnd.interoperability.parties+json;version=1.1';
    expect(parseMediaType(fspiop)).toEqual({ resource: 'parties', version: '1.1' });
    expect(parseMediaType('application/json')).toBeUndefined();
    const letters = (n: number) =>
      n.toString(26).replace(/./g, (d) => String.fromCharCode(97 + Number.parseInt(d, 26)));
    for (let i = 0; i < 300; i++) {
      expect(parseMediaType(`application/vnd.interoperability.${letters(i)}x+json;version=2.0`)?.resource).toBe(
        `${letters(i)}x`,
      );
    }
    expect(parseMediaType('application/json')).toBeUndefined();
    expect(parseMediaType(fspiop)).toEqual({ resource: 'parties', version: '1.1' });
    expect(parseMediaType(' APPLICATION/VND.INTEROPERABILITY.PARTIES+JSON ; version = 2.0 ')).toEqual({
      resource: 'parties',
      version: '2.0',
    });
  });
});
