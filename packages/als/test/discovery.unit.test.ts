import { describe, expect, it } from 'vitest';
import { encodeSegment, fillTemplate, partyPath } from '../src/discovery/endpoints.js';
import { endToEndStart, forwardHeaders, hubHeaders, oracleHeaders, withSpan } from '../src/discovery/headers.js';
import { chooseOracle, type OracleRecord } from '../src/discovery/oracles.js';
import { selectParties } from '../src/discovery/parties.js';
import { allowedMethods } from '../src/http/fspiop-routes.js';
import { type CacheOptions, createCache } from '../src/upstream/cache.js';

const oracle = (id: number, extra: Partial<OracleRecord> = {}): OracleRecord => ({
  id,
  type: 'MSISDN',
  currency: null,
  url: `http://oracle${id}`,
  endpointType: 'URL',
  isDefault: false,
  isActive: true,
  ...extra,
});

/** A cache of 10 entries that keeps each load for 1 s and serves nothing stale, unless `over` says otherwise. */
function testCache<V extends {}>(load: (key: string) => Promise<V>, over: Partial<CacheOptions<V>> = {}) {
  return createCache({ name: 't', ttlMs: 1_000, maxStaleMs: 0, max: 10, load, ...over });
}

/**
 * A cache on the test's clock (`clock.now`, ms) whose every load answers the next version (1, 2, …), or throws
 * 'down' while `failing()` says so; `results` lists what each get was (hit, miss, stale).
 */
function versionedCache(options: { ttlMs: number; maxStaleMs: number; failing?: () => boolean }) {
  const clock = { now: 0 };
  const results: string[] = [];
  let version = 0;
  const cache = testCache(
    async () => {
      if (options.failing?.()) throw new Error('down');
      return { version: ++version };
    },
    { ttlMs: options.ttlMs, maxStaleMs: options.maxStaleMs, now: () => clock.now, record: (_c, r) => results.push(r) },
  );
  return { cache, clock, results };
}

describe('discovery, plain values', () => {
  it('keeps sub-id entries only when a sub-id was asked for, one entry per FSP', () => {
    const list = [{ fspId: 'a' }, { fspId: 'b', partySubIdOrType: 'W' }, { fspId: 'a', currency: 'EUR' }];
    expect(selectParties(list, undefined)).toEqual(['a']);
    expect(selectParties(list, 'W')).toEqual(['b']);
    expect(selectParties(list, 'X')).toEqual([]);
  });

  it('chooses the one oracle, the default among several, the currency one when a currency is asked', () => {
    expect(chooseOracle([oracle(1)], 'MSISDN', undefined)).toBe('http://oracle1');
    expect(chooseOracle([oracle(1), oracle(2, { isDefault: true })], 'MSISDN', undefined)).toBe('http://oracle2');
    expect(chooseOracle([oracle(1), oracle(2, { currency: 'USD' })], 'MSISDN', 'USD')).toBe('http://oracle2');
  });

  it('has no fallback to rows without a currency: a currency with no oracle is 3003, as the original', () => {
    // Bad input: a currency no oracle row serves, while a row without currency exists.
    const rows = [oracle(1), oracle(2, { currency: 'USD' })];
    expect(() => chooseOracle(rows, 'MSISDN', 'EUR')).toThrow(
      expect.objectContaining({
        errorName: 'NO_ORACLE_FOR_CURRENCY',
        message: '3003 Add Party information error - Oracle type:MSISDN and currency:EUR not found',
      }),
    );
    expect(() => chooseOracle(rows, 'EMAIL', undefined)).toThrow(
      expect.objectContaining({ message: '3003 Add Party information error - Oracle type:EMAIL not found' }),
    );
  });

  it('names the failure when no oracle or no default one exists (3003, 2001)', () => {
    // Bad input: the type's only row is inactive; two rows and none is the default; no row at all.
    expect(() => chooseOracle([oracle(1, { isActive: false })], 'MSISDN', undefined)).toThrow(
      expect.objectContaining({ errorName: 'NO_ORACLE', message: expect.stringMatching(/^3003 /) }),
    );
    expect(() => chooseOracle([oracle(1), oracle(2)], 'MSISDN', undefined)).toThrow(
      expect.objectContaining({ errorName: 'NO_DEFAULT_ORACLE', message: expect.stringMatching(/^2001 /) }),
    );
    expect(() => chooseOracle([], 'EMAIL', undefined)).toThrow(
      expect.objectContaining({ errorName: 'NO_ORACLE', message: expect.stringMatching(/^3003 /) }),
    );
  });

  it('fills endpoint templates with the decoded values as path segments: + and @ as they are, / and spaces escaped', () => {
    expect(
      fillTemplate('http://fsp/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}', {
        partyIdType: 'EMAIL',
        partyIdentifier: 'a b/c@x',
        partySubIdOrType: 'W',
      }),
    ).toBe('http://fsp/parties/EMAIL/a%20b%2Fc@x/W');
    // The original sends `+16135551036` and `a@b.com` unescaped (its Mustache templates).
    expect(encodeSegment('+16135551036')).toBe('+16135551036');
    expect(encodeSegment('ann@example.org')).toBe('ann@example.org');
    expect(encodeSegment('a?b#c%d')).toBe('a%3Fb%23c%25d');
    expect(encodeSegment('é')).toBe('%C3%A9');
    expect(partyPath('parties', 'MSISDN', '1', undefined, true)).toBe('/parties/MSISDN/1/error');
  });

  it("answers 405 for the original's paths and their other methods, 404 for any other path", () => {
    expect(allowedMethods('/parties/MSISDN/1')).toEqual(['get', 'put']);
    expect(allowedMethods('/parties/MSISDN/1/error')).toEqual(['get', 'put']);
    expect(allowedMethods('/participants')).toEqual(['post']);
    expect(allowedMethods('/participants/MSISDN/1?x=1')).toEqual(['get', 'post', 'put', 'delete']);
    expect(allowedMethods('/endpointcache')).toEqual(['delete']);
    expect(allowedMethods('/parties/MSISDN')).toEqual([]);
    expect(allowedMethods('/parties/MSISDN/')).toEqual([]);
    expect(allowedMethods('/oracles')).toEqual([]);
  });

  it("writes the original's trace headers on a message sent with the request's span", () => {
    const incoming = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    const out: Record<string, string> = { ...incoming };
    withSpan(out, incoming);
    const [version, traceId, spanId, flags] = (out.traceparent as string).split('-');
    expect([version, traceId, flags]).toEqual(['00', '0af7651916cd43dd8448eb211c80319c', '01']);
    expect(spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(spanId).not.toBe('b7ad6b7169203331');
    expect(out.tracestate).toBe(`acmevendor=${btoa(`{"spanId":"${spanId}"}`)}`);
    // One that came in keeps its members behind the vendor's, an old vendor member replaced.
    const withState: Record<string, string> = { ...incoming, tracestate: 'acmevendor=old,tx_end2end_start_ts=1' };
    withSpan(withState, incoming);
    expect(withState.tracestate).toMatch(/^acmevendor=[A-Za-z0-9+/=]+,tx_end2end_start_ts=1$/);
    // None came in: one trace id for every message of the request, flags 00.
    const bare = {};
    const first: Record<string, string> = {};
    const second: Record<string, string> = {};
    withSpan(first, bare);
    withSpan(second, bare);
    expect(first.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(first.traceparent?.split('-')[1]).toBe(second.traceparent?.split('-')[1]);
  });

  it('rewrites forwarded headers: explicit source/destination, no Host/Content-Length, no Accept on PUT', () => {
    const incoming = {
      host: 'als',
      'content-length': '10',
      accept: 'x',
      'content-type': 'y',
      'fspiop-signature': 's',
      'fspiop-source': 'payee',
      date: 'd',
    };
    // FSPIOP-HTTP-Method only as the request had one (the original's header transformer adds none).
    expect(forwardHeaders(incoming, 'payee', 'payer', 'PUT')).toEqual({
      'content-type': 'y',
      'fspiop-signature': 's',
      'fspiop-source': 'payee',
      'fspiop-destination': 'payer',
      date: 'd',
    });
    expect(forwardHeaders({ ...incoming, 'fspiop-http-method': 'GET' }, 'payee', 'payer', 'PUT')).toMatchObject({
      'fspiop-http-method': 'PUT',
    });
    // The oracle gets the request's FSPIOP-Destination, the hub's name when it named none.
    expect(oracleHeaders(incoming, 'payee', 'Hub', 'GET')['fspiop-destination']).toBe('Hub');
    expect(
      oracleHeaders({ ...incoming, 'fspiop-destination': 'payer' }, 'payee', 'Hub', 'GET')['fspiop-destination'],
    ).toBe('payer');
    const hub = hubHeaders(
      { ...incoming, 'fspiop-proxy': 'p' },
      'Hub',
      'payer',
      '/parties/MSISDN/1/error',
      'parties',
      '2.0',
    );
    expect(hub).toMatchObject({
      'content-type': 'application/vnd.interoperability.parties+json;version=2.0',
      'fspiop-source': 'Hub',
      'fspiop-destination': 'payer',
      'fspiop-uri': '/parties/MSISDN/1/error',
    });
    expect(hub).not.toHaveProperty('fspiop-signature');
    expect(hub).not.toHaveProperty('fspiop-proxy');
    expect(hub).not.toHaveProperty('accept');
    // A /participants answer (no URI given): FSPIOP-HTTP-Method and FSPIOP-URI only as the request had them.
    const participants = hubHeaders(incoming, 'Hub', 'payer', undefined, 'participants', '2.0');
    expect(participants).not.toHaveProperty('fspiop-uri');
    expect(participants).not.toHaveProperty('fspiop-http-method');
  });

  it('reads tx_end2end_start_ts from tracestate', () => {
    expect(endToEndStart('a=b,tx_end2end_start_ts=1700000000123,c=d')).toBe(1700000000123);
    expect(endToEndStart('tx_end2end_start_ts=x')).toBeUndefined();
    expect(endToEndStart(undefined)).toBeUndefined();
  });
});

describe('read-through cache', () => {
  it('shares one load among concurrent misses and serves hits without loading', async () => {
    let loads = 0;
    const cache = testCache(async (key) => {
      loads++;
      await new Promise((r) => setTimeout(r, 20));
      return { key };
    });
    const values = await Promise.all(Array.from({ length: 50 }, () => cache.get('k')));
    expect(new Set(values).size).toBe(1);
    await cache.get('k');
    expect(loads).toBe(1);
  });

  it('serves a stale entry while one refresh runs, and never stores a failed load', async () => {
    let fail = false;
    const { cache, clock, results } = versionedCache({ ttlMs: 100, maxStaleMs: 1_000, failing: () => fail });
    expect(await cache.get('k')).toEqual({ version: 1 });
    clock.now = 500;
    expect(await cache.get('k')).toEqual({ version: 1 });
    await new Promise((r) => setImmediate(r));
    expect(await cache.get('k')).toEqual({ version: 2 });
    expect(results).toEqual(['miss', 'stale', 'hit']);

    fail = true;
    await expect(cache.get('other')).rejects.toThrow('down');
    fail = false;
    expect(await cache.get('other')).toEqual({ version: 3 });
  });

  it('loads again, and does not serve the old value, once an entry is past TTL plus its stale window', async () => {
    const { cache, clock, results } = versionedCache({ ttlMs: 100, maxStaleMs: 200 });
    expect(await cache.get('k')).toEqual({ version: 1 });
    clock.now = 300;
    expect(await cache.get('k')).toEqual({ version: 1 });
    await new Promise((r) => setImmediate(r));
    clock.now = 601;
    expect(await cache.get('k')).toEqual({ version: 3 });
    expect(results).toEqual(['miss', 'stale', 'miss']);
  });

  it('a delete during a load keeps that load out of the cache', async () => {
    let release!: () => void;
    let loads = 0;
    const cache = testCache(async () => {
      loads++;
      if (loads === 1) await new Promise<void>((r) => (release = r));
      return { loads };
    });
    const first = cache.get('k');
    await new Promise((r) => setImmediate(r));
    cache.delete('k');
    release();
    await first;
    expect(await cache.get('k')).toEqual({ loads: 2 });
  });
});
