import { describe, expect, it } from 'vitest';
import { Endpoint } from '../src/discovery/endpoints.js';
import { acrossSchemes, answerExpiredLookup } from '../src/discovery/inter-scheme.js';
import { forwardCallback, lookUpParty } from '../src/discovery/parties.js';
import type { PartyCallback, PartyLookup } from '../src/discovery/types.js';
import { UpstreamError } from '../src/discovery/types.js';
import { errorOf, fakeWorld, info, MemoryProxyCache, proxyPorts } from './fake-ports.js';

// Inter-scheme discovery as the strategy of the one /parties flow, over fake ports and an in-memory proxy
// cache: which proxies are asked, what the cache and the oracle learn, who hears what.

const party = { type: 'MSISDN', id: '16135551212' };
const key = 'als:payerfsp:MSISDN:16135551212';

function schemes(names = ['payerfsp', 'payeefsp', 'proxyA', 'proxyB']) {
  const world = fakeWorld(names);
  const cache = new MemoryProxyCache();
  const proxy = proxyPorts(cache);
  const ports = { ...world.ports, interScheme: acrossSchemes(proxy) };
  return { world, cache, proxy, ports };
}

const lookup = (extra: Partial<PartyLookup> = {}): PartyLookup => ({
  party,
  currency: undefined,
  source: 'payerfsp',
  destination: undefined,
  version: '1.1',
  headers: { 'fspiop-source': 'payerfsp' },
  ...extra,
});

const callback = (extra: Partial<PartyCallback> = {}): PartyCallback => ({
  resource: 'parties',
  party,
  isError: false,
  source: 'payeefsp',
  destination: 'payerfsp',
  version: '1.1',
  headers: {},
  body: Buffer.from('{}'),
  ...extra,
});

describe('lookUpParty across schemes', () => {
  it('asks the FSP of this scheme the oracle places the party at, no proxy', async () => {
    const { world, ports } = schemes();
    world.oracle.set('MSISDN/16135551212', [{ fspId: 'payeefsp' }]);
    await lookUpParty(ports, lookup());
    expect(world.sent.map((r) => r.participant)).toEqual(['payeefsp']);
  });

  it('asks every proxy, without FSPIOP-Destination, when the oracle does not know the party', async () => {
    const { world, cache, ports } = schemes();
    await lookUpParty(ports, lookup());
    expect(world.sent.map((r) => r.participant)).toEqual(['proxyA', 'proxyB']);
    expect(world.sent[0]?.headers['fspiop-destination']).toBeUndefined();
    expect([...(cache.lookups.get(key)?.awaited ?? [])]).toEqual(['proxyA', 'proxyB']);
  });

  it('asks no proxy the request came through and answers 3204 when none is left', async () => {
    const { world, cache, ports } = schemes();
    cache.dfsps.set('payerfsp', 'proxyA');
    world.participants.delete('payerfsp');
    const proxyOnly = { ...ports, interScheme: acrossSchemes(proxyPorts(cache, ['proxyA'])) };
    await lookUpParty(proxyOnly, lookup({ requester: 'proxyA', proxy: 'proxyA' }));
    expect(world.sent).toHaveLength(1);
    expect(world.sent[0]?.participant).toBe('proxyA');
    expect(world.sent[0]?.headers['fspiop-destination']).toBe('payerfsp');
    expect(errorOf(world.sent[0])).toEqual(info('PARTY_NOT_FOUND'));
  });

  it('remembers the proxy of a source of another scheme, or answers that it could not', async () => {
    const { world, cache, ports } = schemes();
    world.oracle.set('MSISDN/16135551212', [{ fspId: 'payeefsp' }]);
    await lookUpParty(ports, lookup({ source: 'farfsp', requester: 'proxyA', proxy: 'proxyA' }));
    expect(cache.dfsps.get('farfsp')).toBe('proxyA');
    expect(world.sent.map((r) => r.participant)).toEqual(['payeefsp']);
    cache.mappingRefused = true;
    await lookUpParty(ports, lookup({ source: 'otherfsp', requester: 'proxyA', proxy: 'proxyA' }));
    expect(errorOf(world.sent[1])).toEqual(info('PROXY_MAPPING_FAILED'));
    expect(world.sent[1]?.participant).toBe('proxyA');
  });

  it('answers a failed proxy cache as a switch failure', async () => {
    const { world, cache, ports } = schemes();
    cache.down = true;
    await lookUpParty(ports, lookup({ source: 'farfsp', requester: 'proxyA', proxy: 'proxyA' }));
    expect(errorOf(world.sent[0])).toEqual(info('SWITCH_FAILED', { reason: 'redis down' }));
  });

  it.each([
    ['the list cannot be cached', (c: MemoryProxyCache) => (c.listRefused = true), 'PROXY_LIST_NOT_CACHED'],
    ['no proxy can be reached', undefined, 'PROXY_CONNECTION_ERROR'],
  ] as const)('answers when %s', async (_what, change, error) => {
    const { world, cache, ports } = schemes();
    change?.(cache);
    if (change === undefined) world.unreachable.add('proxyA').add('proxyB');
    await lookUpParty(ports, lookup());
    expect(errorOf(world.sent.at(-1))).toEqual(info(error));
  });

  it('waits for a reached proxy, and answers when the unreachable one was the last awaited', async () => {
    const { world, cache, ports } = schemes();
    world.unreachable.add('proxyB');
    expect(await lookUpParty(ports, lookup())).toEqual({ kind: 'sent' });
    // proxyA was reached and is still awaited: its answer (or the timeout) ends the lookup.
    expect(world.sent.map((r) => r.participant)).toEqual(['proxyA', 'proxyB']);
    expect(world.sent.some((r) => errorOf(r) !== undefined)).toBe(false);
    cache.lookups.clear();
    cache.receivedErrorResponse = async () => true;
    expect(await lookUpParty(ports, lookup())).toEqual({ kind: 'error_callback', delivered: true });
    expect(errorOf(world.sent.at(-1))).toEqual(info('NO_SUCCESSFUL_PROXY_RESPONSES'));
    cache.lookups.clear();
    cache.receivedErrorResponse = async () => {
      throw new Error('redis down');
    };
    const before = world.sent.length;
    await lookUpParty(ports, lookup());
    expect(world.sent.slice(before).map((r) => r.participant)).toEqual(['proxyA', 'proxyB']);
  });

  describe('with FSPIOP-Destination', () => {
    it('sends a destination behind a known proxy the lookup through it', async () => {
      const { world, cache, ports } = schemes();
      cache.dfsps.set('farfsp', 'proxyB');
      await lookUpParty(ports, lookup({ destination: 'farfsp' }));
      expect(world.sent.map((r) => [r.participant, r.headers['fspiop-destination']])).toEqual([['proxyB', 'farfsp']]);
    });

    it('drops the oracle entry of an unknown destination and asks the proxies', async () => {
      const { world, ports } = schemes();
      await lookUpParty(ports, lookup({ destination: 'gonefsp' }));
      expect(world.oracleCalls.map((c) => c.method)).toEqual(['DELETE']);
      expect(world.sent.map((r) => r.participant)).toEqual(['proxyA', 'proxyB']);
    });

    it('sends a request of another scheme to a local destination only where the oracle places the party', async () => {
      const { world, ports } = schemes();
      const external = lookup({ source: 'farfsp', requester: 'proxyA', proxy: 'proxyA', destination: 'payeefsp' });
      await lookUpParty(ports, external);
      expect(errorOf(world.sent[0])).toEqual(info('EXTERNAL_PARTY_ERROR'));
      world.oracle.set('MSISDN/16135551212', [{ fspId: 'payeefsp' }]);
      await lookUpParty(ports, external);
      expect(world.sent[1]?.participant).toBe('payeefsp');
      world.oracleFailure.lookup = new UpstreamError('oracle', 'down');
      await lookUpParty(ports, external);
      expect(errorOf(world.sent[2])).toEqual(info('ORACLE_UNREACHABLE'));
    });
  });

  describe('oracle FSPs not in this scheme', () => {
    it('sends the lookup through the proxy of an FSP of another scheme, for a local requester', async () => {
      const { world, cache, ports } = schemes();
      world.oracle.set('MSISDN/16135551212', [{ fspId: 'farfsp' }]);
      cache.dfsps.set('farfsp', 'proxyB');
      await lookUpParty(ports, lookup());
      expect(world.sent.map((r) => [r.participant, r.headers['fspiop-destination']])).toEqual([['proxyB', 'farfsp']]);
    });

    it('skips it for a requester of another scheme, and asks the proxies', async () => {
      const { world, cache, ports } = schemes();
      world.oracle.set('MSISDN/16135551212', [{ fspId: 'farfsp' }]);
      cache.dfsps.set('farfsp', 'proxyB');
      await lookUpParty(ports, lookup({ source: 'x', requester: 'proxyA', proxy: 'proxyA' }));
      expect(world.sent.map((r) => r.participant)).toEqual(['proxyB']);
      expect(world.sent[0]?.headers['fspiop-destination']).toBeUndefined();
    });

    it('drops the oracle entry of an FSP no proxy is known for, even when the DELETE fails', async () => {
      const { world, ports } = schemes();
      world.oracle.set('MSISDN/16135551212', [{ fspId: 'lostfsp' }]);
      world.oracleFailure.write = new UpstreamError('oracle', 'down');
      await lookUpParty(ports, lookup());
      expect(world.oracleCalls.map((c) => c.method)).toEqual(['GET', 'DELETE']);
      expect(world.sent.map((r) => r.participant)).toEqual(['proxyA', 'proxyB']);
    });

    it('answers the first catalogue error when no oracle FSP was reached', async () => {
      const { world, ports } = schemes();
      world.oracle.set('MSISDN/16135551212', [{ fspId: 'payeefsp' }]);
      world.endpoints.set('payeefsp', new Map());
      await lookUpParty(ports, lookup());
      expect(errorOf(world.sent[0])).toEqual(
        info('NO_ENDPOINT', { destination: 'payeefsp', endpoint: Endpoint.PARTIES_GET }),
      );
    });
  });
});

describe('forwardCallback across schemes', () => {
  it('forwards to a destination of another scheme through its proxy', async () => {
    const { world, cache, ports } = schemes();
    cache.dfsps.set('farfsp', 'proxyA');
    await forwardCallback(ports, callback({ destination: 'farfsp' }));
    expect(world.sent.map((r) => [r.participant, r.headers['fspiop-destination']])).toEqual([['proxyA', 'farfsp']]);
  });

  it('answers a destination in neither scheme, and one it has no name for', async () => {
    const { world, ports } = schemes();
    await forwardCallback(ports, callback({ destination: 'gonefsp' }));
    await forwardCallback(ports, callback({ destination: undefined }));
    expect(errorOf(world.sent[0])).toEqual(info('CALLBACK_DESTINATION_UNKNOWN', { destination: 'gonefsp' }));
    expect(errorOf(world.sent[1])).toEqual(info('CALLBACK_DESTINATION_UNKNOWN', { destination: '(none)' }));
  });

  it('counts a success from an unknown source with no proxy', async () => {
    const { world, ports } = schemes();
    const outcome = await forwardCallback(ports, callback({ source: 'strangerfsp' }));
    expect(outcome).toEqual({ kind: 'dropped', reason: 'unknown_source' });
    expect(world.events).toEqual(['unknown_source']);
    expect(world.sent).toEqual([]);
  });

  it('the first proxy to find the party: the oracle learns it, the requester gets it; a late one is dropped', async () => {
    const { world, cache, ports } = schemes();
    await lookUpParty(ports, lookup());
    world.sent.length = 0;
    await forwardCallback(ports, callback({ source: 'farfsp', proxy: 'proxyA' }));
    expect(cache.dfsps.get('farfsp')).toBe('proxyA');
    expect(world.oracleCalls.at(-1)).toMatchObject({ method: 'POST', body: '{"fspId":"farfsp"}' });
    expect(world.sent.map((r) => r.participant)).toEqual(['payerfsp']);
    const late = await forwardCallback(ports, callback({ source: 'otherfsp', proxy: 'proxyB' }));
    expect(late).toEqual({ kind: 'dropped', reason: 'proxy_success_dropped' });
    expect(world.events.at(-1)).toBe('proxy_success_dropped');
    expect(world.sent).toHaveLength(1);
  });

  it('answers a failed oracle POST, and a refused proxy mapping, to the proxy', async () => {
    const { world, cache, ports } = schemes();
    await lookUpParty(ports, lookup());
    world.sent.length = 0;
    world.oracleFailure.write = new UpstreamError('oracle', 'POST answered 500', 500);
    await forwardCallback(ports, callback({ source: 'farfsp', proxy: 'proxyA' }));
    expect(world.sent.map((r) => r.participant)).toEqual(['proxyA']);
    expect(errorOf(world.sent[0])).toEqual(info('ORACLE_UNREACHABLE'));
    cache.mappingRefused = true;
    await forwardCallback(ports, callback({ source: 'newfsp', proxy: 'proxyB' }));
    expect(errorOf(world.sent[1])).toEqual(info('PROXY_MAPPING_FAILED'));
  });

  it('a success from a proxy not awaited ends its timeout and is forwarded', async () => {
    const { world, cache, ports } = schemes();
    await forwardCallback(ports, callback({ proxy: 'proxyA' }));
    expect(cache.removedTimeouts).toEqual([`${key}/proxyA`]);
    expect(world.sent.map((r) => r.participant)).toEqual(['payerfsp']);
  });

  it('passes on only the last proxy error of a lookup nobody answered', async () => {
    const { world, ports } = schemes();
    await lookUpParty(ports, lookup());
    world.sent.length = 0;
    const error = callback({ isError: true, source: 'proxyA', proxy: 'proxyA' });
    expect(await forwardCallback(ports, error)).toEqual({ kind: 'dropped', reason: 'proxy_error_dropped' });
    expect(world.events.at(-1)).toBe('proxy_error_dropped');
    await forwardCallback(ports, { ...error, source: 'proxyB', proxy: 'proxyB' });
    expect(world.sent.map((r) => [r.participant, r.endpointType])).toEqual([['payerfsp', Endpoint.PARTIES_PUT_ERROR]]);
  });

  it('forgets a party the oracle placed in another scheme when its proxy answers an error', async () => {
    const { world, cache, ports } = schemes();
    world.oracle.set('MSISDN/16135551212', [{ fspId: 'farfsp' }]);
    await forwardCallback(ports, callback({ isError: true, source: 'farfsp', proxy: 'proxyA' }));
    expect(world.oracleCalls.map((c) => c.method)).toEqual(['GET', 'DELETE']);
    expect(cache.removedTimeouts).toEqual([`${key}/proxyA`]);
    expect(world.sent.map((r) => r.participant)).toEqual(['payerfsp']);
    world.oracleFailure.write = new UpstreamError('oracle', 'DELETE answered 404', 404);
    await forwardCallback(ports, callback({ isError: true, source: 'farfsp', proxy: 'proxyA' }));
    expect(world.sent.map((r) => r.participant)).toEqual(['payerfsp', 'proxyA']);
    expect(errorOf(world.sent[1])).toEqual(info('ORACLE_ID_NOT_FOUND'));
  });

  it('keeps the oracle entry when the oracle cannot be asked whose party it is', async () => {
    const { world, ports } = schemes();
    world.oracleFailure.lookup = new UpstreamError('oracle', 'down');
    await forwardCallback(ports, callback({ isError: true, source: 'payeefsp', proxy: 'proxyA' }));
    expect(world.oracleCalls.map((c) => c.method)).toEqual(['GET']);
    expect(world.sent.map((r) => r.participant)).toEqual(['payerfsp']);
  });

  it('tells only the source when central-ledger fails', async () => {
    const { world, ports } = schemes();
    world.ledgerDown.add('payerfsp');
    await forwardCallback(ports, callback());
    expect(world.sent.map((r) => r.participant)).toEqual(['payeefsp']);
    expect(errorOf(world.sent[0])).toEqual(
      info('SWITCH_FAILED', { reason: 'GET /participants/payerfsp answered 503' }),
    );
  });
});

describe('answerExpiredLookup (the timeout handler)', () => {
  it('answers 3300 to the FSP that asked, or the proxy it sits behind', async () => {
    const { world, cache, proxy, ports } = schemes();
    await answerExpiredLookup(ports, proxy, key);
    cache.dfsps.set('farfsp', 'proxyB');
    await answerExpiredLookup(ports, proxy, 'als:farfsp:MSISDN:1');
    expect(world.sent.map((r) => [r.participant, r.headers['fspiop-destination']])).toEqual([
      ['payerfsp', 'payerfsp'],
      ['proxyB', 'farfsp'],
    ]);
    expect(errorOf(world.sent[0])).toEqual(info('LOOKUP_EXPIRED'));
    expect(world.events.filter((e) => e === 'lookup_expired')).toHaveLength(2);
  });

  it('throws, sending nothing, when neither is known', async () => {
    const { world, proxy, ports } = schemes();
    await expect(answerExpiredLookup(ports, proxy, 'als:nobody:MSISDN:1')).rejects.toThrow(/Destination FSP Error/);
    expect(world.sent).toEqual([]);
  });
});
