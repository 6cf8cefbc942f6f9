import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acrossSchemes } from '../src/discovery/inter-scheme.js';
import { buildFakeAls, type FakeAls, sentFor } from './fake-app.js';
import { fakeWorld, MemoryProxyCache, proxyPorts } from './fake-ports.js';
import { callbackHeaders, lookupHeaders, newTraceId } from './helpers.js';

// Inter-scheme discovery through the routes, over fake ports and an in-memory proxy cache: how each request
// ends as the routes see it (the flows' own rules: discovery-inter-scheme.unit.test.ts).
let als: FakeAls;
beforeAll(() => {
  const world = fakeWorld(['payerfsp', 'payeefsp', 'proxyA', 'proxyB']);
  (world as { ports: typeof world.ports }).ports = {
    ...world.ports,
    interScheme: acrossSchemes(proxyPorts(new MemoryProxyCache())),
  };
  als = buildFakeAls({ world });
});
afterAll(() => als?.close());

const put = (traceId: string, source: string, proxy: string) =>
  als.app.inject({
    method: 'PUT',
    url: '/parties/MSISDN/16135551212',
    headers: callbackHeaders(traceId, { 'fspiop-source': source, 'fspiop-proxy': proxy }),
    payload: '{"party":{"partyIdInfo":{"partyIdType":"MSISDN","partyIdentifier":"16135551212","fspId":"x"}}}',
  });

describe('a lookup answered by two proxies, through the routes', () => {
  it('passes the first success on and drops the late one without making it good as a missing callback', async () => {
    const lookup = await als.app.inject({
      method: 'GET',
      url: '/parties/MSISDN/16135551212',
      headers: lookupHeaders(newTraceId()),
    });
    expect(lookup.statusCode).toBe(202);
    const first = newTraceId();
    expect((await put(first, 'farfsp', 'proxyA')).statusCode).toBe(200);
    expect((await sentFor(als, first)).map((sent) => sent.participant)).toEqual(['payerfsp']);
    const late = newTraceId();
    expect((await put(late, 'otherfsp', 'proxyB')).statusCode).toBe(200);
    expect(await sentFor(als, late)).toEqual([]);
    expect(als.world.events).toContain('proxy_success_dropped');
    expect(als.world.events).not.toContain('callback_missing');
  });
});
