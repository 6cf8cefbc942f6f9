import { describe, expect, it } from 'vitest';
import { Endpoint } from '../src/discovery/endpoints.js';
import { asAlsError, errorTarget, oracleError, PassedOnError, sendErrorCallback } from '../src/discovery/failures.js';
import { chooseOracle, type OracleRecord } from '../src/discovery/oracles.js';
import { forwardCallback, lookUpParty } from '../src/discovery/parties.js';
import { type PartyCallback, type PartyLookup, UpstreamError } from '../src/discovery/types.js';
import { AlsError } from '../src/fspiop/errors.js';
import { errorOf, fakeWorld, hubName, info } from './fake-ports.js';

// The /parties flows over fake ports (fake-ports.ts): no service, no socket. Each case names the request,
// the world it meets, and checks what was sent and counted.

const party = { type: 'MSISDN', id: '16135551212' };

const lookup = (extra: Partial<PartyLookup> = {}): PartyLookup => ({
  party,
  currency: undefined,
  source: 'payerfsp',
  destination: undefined,
  version: '1.1',
  headers: { 'fspiop-source': 'payerfsp', date: 'Thu, 01 Jan 2026 00:00:00 GMT' },
  ...extra,
});

const callback = (extra: Partial<PartyCallback> = {}): PartyCallback => ({
  resource: 'parties',
  party,
  isError: false,
  source: 'payeefsp',
  destination: 'payerfsp',
  version: '1.1',
  headers: { 'fspiop-source': 'payeefsp', 'fspiop-destination': 'payerfsp' },
  body: Buffer.from('{"party":{}}'),
  ...extra,
});

describe('lookUpParty (GET /parties after the 202)', () => {
  it('sends the GET to the one FSP the oracle places the party at', async () => {
    const world = fakeWorld();
    world.oracle.set('MSISDN/16135551212', [{ fspId: 'payeefsp' }]);
    expect(await lookUpParty(world.ports, lookup())).toEqual({ kind: 'sent' });
    expect(world.sent).toHaveLength(1);
    const [get] = world.sent;
    expect(get).toMatchObject({
      method: 'GET',
      url: `http://payeefsp.test/${Endpoint.PARTIES_GET}/MSISDN/16135551212`,
      participant: 'payeefsp',
      endpointType: Endpoint.PARTIES_GET,
    });
    expect(get?.headers['fspiop-destination']).toBe('payeefsp');
    expect(get?.headers['fspiop-source']).toBe('payerfsp');
    expect(get?.headers.traceparent).toMatch(/^00-[\da-f]{32}-[\da-f]{16}-00$/);
    expect(world.stages).toEqual(['oracle', 'endpoint', 'forward']);
    expect(world.oracleCalls[0]?.method).toBe('GET');
  });

  it('asks for the sub-id endpoint and keeps only the entries of that sub-id', async () => {
    const world = fakeWorld(['payerfsp', 'payeefsp', 'otherfsp']);
    world.oracle.set('MSISDN/16135551212', [
      { fspId: 'payeefsp', partySubIdOrType: 'SAVINGS' },
      { fspId: 'otherfsp' },
      { fspId: 'payeefsp', partySubIdOrType: 'SAVINGS' },
    ]);
    await lookUpParty(world.ports, lookup({ party: { ...party, subId: 'SAVINGS' } }));
    expect(world.sent.map((r) => r.url)).toEqual([
      `http://payeefsp.test/${Endpoint.PARTIES_SUB_ID_GET}/MSISDN/16135551212/SAVINGS`,
    ]);
  });

  it('answers an invalid ID with one error callback and asks nobody', async () => {
    const world = fakeWorld();
    expect(await lookUpParty(world.ports, lookup({ party: { type: 'MSISDN', id: 'not digits' } }))).toEqual({
      kind: 'error_callback',
      delivered: true,
    });
    expect(world.oracleCalls).toEqual([]);
    expect(world.sent).toHaveLength(1);
    expect(world.sent[0]?.url).toBe(`http://payerfsp.test/${Endpoint.PARTIES_PUT_ERROR}/MSISDN/not%20digits`);
    expect(errorOf(world.sent[0])?.errorCode).toBe(info('INVALID_PARTY_ID').errorCode);
    expect(world.events).toEqual(['error_callback_sent']);
  });

  it.each([
    ['no entry', [], 'PARTY_NOT_FOUND'],
    ['entries of sub-ids only', [{ fspId: 'payeefsp', partySubIdOrType: 'X' }], 'FILTERED_PARTY_LIST_EMPTY'],
  ] as const)('answers an oracle with %s', async (_what, entries, error) => {
    const world = fakeWorld();
    world.oracle.set('MSISDN/16135551212', [...entries]);
    await lookUpParty(world.ports, lookup());
    expect(world.sent).toHaveLength(1);
    expect(errorOf(world.sent[0])).toEqual(info(error));
    expect(world.sent[0]?.headers['fspiop-source']).toBe(hubName);
    expect(world.sent[0]?.headers['fspiop-uri']).toBe('/parties/MSISDN/16135551212/error');
  });

  it('passes an oracle failure on as the original maps it', async () => {
    const world = fakeWorld();
    world.oracleFailure.lookup = new UpstreamError('oracle', 'GET answered 404', 404);
    await lookUpParty(world.ports, lookup());
    expect(errorOf(world.sent[0])).toEqual(info('ORACLE_NOT_FOUND'));
  });

  it('tells the payer once, with the first reason, when no FSP of several can be reached', async () => {
    const world = fakeWorld(['payerfsp', 'a', 'b']);
    world.oracle.set('MSISDN/16135551212', [{ fspId: 'a' }, { fspId: 'b' }]);
    world.unreachable.add('a').add('b');
    expect(await lookUpParty(world.ports, lookup())).toEqual({ kind: 'error_callback', delivered: true });
    const errors = world.sent.filter((r) => r.participant === 'payerfsp');
    expect(errors).toHaveLength(1);
    expect(errorOf(errors[0])).toEqual(info('ORACLE_UNREACHABLE'));
    expect(world.events.filter((e) => e === 'forward_failed')).toHaveLength(2);
  });

  it('is done when one FSP of several is reached', async () => {
    const world = fakeWorld(['payerfsp', 'a', 'b']);
    world.oracle.set('MSISDN/16135551212', [{ fspId: 'a' }, { fspId: 'b' }]);
    world.unreachable.add('a');
    expect(await lookUpParty(world.ports, lookup())).toEqual({ kind: 'sent' });
    expect(world.sent.map((r) => r.participant)).toEqual(['a', 'b']);
    expect(world.events).toEqual(['forward_failed']);
  });

  it.each([
    ['is unknown', (w: ReturnType<typeof fakeWorld>) => w.participants.delete('payeefsp'), info('PARTY_NOT_FOUND')],
    [
      'has no GET endpoint',
      (w: ReturnType<typeof fakeWorld>) => w.endpoints.set('payeefsp', new Map()),
      info('NO_ENDPOINT', { destination: 'payeefsp', endpoint: Endpoint.PARTIES_GET }),
    ],
    [
      'cannot be checked',
      (w: ReturnType<typeof fakeWorld>) => w.ledgerDown.add('payeefsp'),
      info('SWITCH_FAILED', { reason: 'GET /participants/payeefsp answered 503' }),
    ],
  ])('answers the payer when the oracle FSP %s', async (_what, change, expected) => {
    const world = fakeWorld();
    world.oracle.set('MSISDN/16135551212', [{ fspId: 'payeefsp' }]);
    change(world);
    await lookUpParty(world.ports, lookup());
    expect(world.sent).toHaveLength(1);
    expect(errorOf(world.sent[0])).toEqual(expected);
  });

  describe('with FSPIOP-Destination', () => {
    it('sends the GET to a destination central-ledger knows, without asking the oracle', async () => {
      const world = fakeWorld();
      await lookUpParty(world.ports, lookup({ destination: 'payeefsp' }));
      expect(world.oracleCalls).toEqual([]);
      expect(world.sent.map((r) => r.participant)).toEqual(['payeefsp']);
    });

    it('asks the oracle when the destination is the Hub', async () => {
      const world = fakeWorld();
      world.oracle.set('MSISDN/16135551212', [{ fspId: 'payeefsp' }]);
      await lookUpParty(world.ports, lookup({ destination: hubName }));
      expect(world.oracleCalls.map((c) => c.method)).toEqual(['GET']);
    });

    it('drops the stale oracle entry of an unknown destination and answers 3204', async () => {
      const world = fakeWorld();
      await lookUpParty(world.ports, lookup({ destination: 'gonefsp' }));
      expect(world.oracleCalls.map((c) => c.method)).toEqual(['DELETE']);
      expect(errorOf(world.sent[0])).toEqual(info('DESTINATION_NOT_FOUND', { destination: 'gonefsp' }));
    });

    it('answers the failed DELETE instead', async () => {
      const world = fakeWorld();
      world.oracleFailure.write = new UpstreamError('oracle', 'DELETE answered 404', 404);
      await lookUpParty(world.ports, lookup({ destination: 'gonefsp' }));
      expect(errorOf(world.sent[0])).toEqual(info('ORACLE_ID_NOT_FOUND'));
    });

    it('answers 2001 when central-ledger cannot be asked about it', async () => {
      const world = fakeWorld();
      world.ledgerDown.add('payeefsp');
      await lookUpParty(world.ports, lookup({ destination: 'payeefsp' }));
      expect(errorOf(world.sent[0])).toEqual(
        info('SWITCH_FAILED', { reason: 'GET /participants/payeefsp answered 503' }),
      );
      expect(world.stages[0]).toBe('endpoint');
    });

    it('answers a destination whose lookup cannot be forwarded', async () => {
      const world = fakeWorld();
      world.unreachable.add('payeefsp');
      await lookUpParty(world.ports, lookup({ destination: 'payeefsp' }));
      expect(errorOf(world.sent[1])).toEqual(info('ORACLE_UNREACHABLE'));
    });
  });

  it('counts a failed error callback when the requester cannot be reached', async () => {
    const world = fakeWorld();
    world.unreachable.add('payerfsp');
    await lookUpParty(world.ports, lookup({ party: { type: 'MSISDN', id: 'x y' } }));
    expect(world.events).toEqual(['error_callback_failed']);
  });
});

describe('forwardCallback (PUT /parties and /participants after the 200)', () => {
  it('forwards the bytes as received to the destination', async () => {
    const world = fakeWorld();
    const body = Buffer.from('{"party":{"partyIdInfo":{}}}');
    const outcome = await forwardCallback(
      world.ports,
      callback({ body, headers: { tracestate: 'tx_end2end_start_ts=1700000000000' } }),
    );
    expect(outcome).toEqual({ kind: 'sent' });
    expect(world.sent).toHaveLength(1);
    expect(world.sent[0]).toMatchObject({
      method: 'PUT',
      url: `http://payerfsp.test/${Endpoint.PARTIES_PUT}/MSISDN/16135551212`,
      body,
      participant: 'payerfsp',
    });
    expect(world.sent[0]?.headers.traceparent).toBeUndefined();
    expect(world.events).toEqual(['callback_forwarded']);
    expect(world.endToEnd).toEqual([1700000000000]);
    expect(world.stages).toEqual(['endpoint', 'callback']);
  });

  it('forwards an error callback with its span, its source unchecked', async () => {
    const world = fakeWorld();
    world.participants.delete('payeefsp');
    await forwardCallback(world.ports, callback({ isError: true }));
    expect(world.sent[0]?.url).toBe(`http://payerfsp.test/${Endpoint.PARTIES_PUT_ERROR}/MSISDN/16135551212`);
    expect(world.sent[0]?.headers.traceparent).toBeDefined();
  });

  it('counts a success callback from an unknown source and sends nothing', async () => {
    const world = fakeWorld();
    world.participants.delete('payeefsp');
    expect(await forwardCallback(world.ports, callback())).toEqual({ kind: 'dropped', reason: 'unknown_source' });
    expect(world.sent).toEqual([]);
    expect(world.events).toEqual(['unknown_source']);
  });

  it.each([
    ['parties', undefined, info('CALLBACK_DESTINATION_UNKNOWN', { destination: '(none)' })],
    ['parties', 'gonefsp', info('CALLBACK_DESTINATION_UNKNOWN', { destination: 'gonefsp' })],
    ['participants', 'gonefsp', info('DESTINATION_FSP_ERROR', { destination: 'gonefsp' })],
  ] as const)('answers a %s callback to destination %s to its source', async (resource, destination, expected) => {
    const world = fakeWorld();
    await forwardCallback(world.ports, callback({ resource, destination }));
    expect(world.sent).toHaveLength(1);
    expect(world.sent[0]?.participant).toBe('payeefsp');
    expect(errorOf(world.sent[0])).toEqual(expected);
  });

  it('drops the cached oracle answer of a /participants callback', async () => {
    const world = fakeWorld();
    await forwardCallback(world.ports, callback({ resource: 'participants' }));
    expect(world.forgotten).toEqual([party]);
    expect(world.sent[0]?.endpointType).toBe(Endpoint.PARTICIPANT_PUT);
  });

  it('answers a destination without the endpoint', async () => {
    const world = fakeWorld();
    world.endpoints.set('payerfsp', new Map());
    await forwardCallback(world.ports, callback());
    expect(errorOf(world.sent[0])).toEqual(
      info('NO_ENDPOINT', { destination: 'payerfsp', endpoint: Endpoint.PARTIES_PUT }),
    );
  });

  it('answers an invalid ID to the source', async () => {
    const world = fakeWorld();
    await forwardCallback(world.ports, callback({ party: { type: 'MSISDN', id: 'abc' } }));
    expect(errorOf(world.sent[0])?.errorCode).toBe(info('INVALID_PARTY_ID').errorCode);
  });

  it('tells both the source and the requester when central-ledger cannot be asked', async () => {
    const world = fakeWorld();
    world.ledgerDown.add('payeefsp');
    // The source's endpoints cannot be read either, but the requester's can: it hears of the failure. The
    // outcome is the source's.
    expect(await forwardCallback(world.ports, callback())).toEqual({ kind: 'error_callback', delivered: false });
    expect(world.sent.map((r) => r.participant)).toEqual(['payerfsp']);
    expect(errorOf(world.sent[0])).toEqual(
      info('SWITCH_FAILED', { reason: 'GET /participants/payeefsp answered 503' }),
    );
    expect(world.events.sort()).toEqual(['error_callback_failed', 'error_callback_sent']);
  });

  it('tells only the source of a /participants callback when central-ledger cannot be asked', async () => {
    const world = fakeWorld();
    world.ledgerDown.add('payerfsp');
    await forwardCallback(world.ports, callback({ resource: 'participants' }));
    expect(world.sent.map((r) => r.participant)).toEqual(['payeefsp']);
    expect(world.events).toEqual(['error_callback_sent']);
  });

  it('answers a failed forward to the source', async () => {
    const world = fakeWorld();
    world.unreachable.add('payerfsp');
    expect(await forwardCallback(world.ports, callback())).toEqual({ kind: 'error_callback', delivered: true });
    expect(world.sent.map((r) => r.participant)).toEqual(['payerfsp', 'payeefsp']);
    expect(errorOf(world.sent[1])).toEqual(info('ORACLE_UNREACHABLE'));
    expect(world.events).toEqual(['forward_failed', 'error_callback_sent']);
  });
});

describe('failures', () => {
  it.each([
    [true, 400, 'ORACLE_BAD_REQUEST', {}],
    [false, 400, 'ORACLE_CLIENT_ERROR', { reason: 'Bad Request' }],
    [true, 404, 'ORACLE_NOT_FOUND', {}],
    [false, 404, 'ORACLE_ID_NOT_FOUND', {}],
    [false, 403, 'ORACLE_CLIENT_ERROR', { reason: 'Permission denied' }],
    [false, 418, 'ORACLE_CLIENT_ERROR', { reason: 'Client error' }],
    [false, 503, 'ORACLE_UNREACHABLE', {}],
    [false, undefined, 'ORACLE_UNREACHABLE', {}],
    [false, 302, 'ORACLE_FAILED', { reason: 'r' }],
  ] as const)('maps an oracle answer (lookup %s, status %s) to %s', (lookupCall, status, name, values) => {
    expect(oracleError(new UpstreamError('oracle', 'r', status), lookupCall).information()).toEqual(info(name, values));
  });

  it('passes an answered error body on, keeps catalogue errors, names anything else', () => {
    const answered = { errorCode: '3204', errorDescription: 'Party not found' };
    expect(oracleError(new UpstreamError('oracle', 'r', 400, answered), true)).toBeInstanceOf(PassedOnError);
    expect(oracleError(new UpstreamError('oracle', 'r', 400, answered), true).information()).toEqual(answered);
    const own = new AlsError('NO_ORACLE', { type: 'X' });
    expect(oracleError(own, true)).toBe(own);
    expect(oracleError(new TypeError('boom'), true).information()).toEqual(info('ORACLE_FAILED', { reason: 'boom' }));
    expect(asAlsError('text', 'SWITCH_FAILED').information()).toEqual(info('SWITCH_FAILED', { reason: 'text' }));
  });

  it('sends a /parties error callback to a requester whose check failed but whose endpoints are known', async () => {
    const world = fakeWorld();
    let asked = 0;
    const ports = {
      ...world.ports,
      directory: {
        ...world.ports.directory,
        participant: async () => {
          asked++;
          throw new UpstreamError('central-ledger', 'down');
        },
      },
    };
    await sendErrorCallback(
      ports,
      errorTarget('parties', { party, source: 'payerfsp', version: '1.1', headers: {} }),
      new AlsError('PARTY_NOT_FOUND'),
    );
    expect(asked).toBe(1);
    expect(world.events).toEqual(['error_callback_sent']);
  });

  it('sends no /parties error callback to a requester central-ledger does not know', async () => {
    const world = fakeWorld();
    await sendErrorCallback(
      world.ports,
      errorTarget('parties', { party, source: 'strangerfsp', version: '1.1', headers: {} }),
      new AlsError('PARTY_NOT_FOUND'),
    );
    expect(world.sent).toEqual([]);
    expect(world.events).toEqual(['error_callback_failed']);
  });

  it('sends a /participants error callback without FSPIOP-URI, unchecked, and counts a missing endpoint', async () => {
    const world = fakeWorld();
    await sendErrorCallback(
      world.ports,
      errorTarget('participants', { party, source: 'payerfsp', version: '2.0', headers: {} }),
      new AlsError('PARTICIPANT_NOT_FOUND'),
    );
    expect(world.sent[0]?.headers['fspiop-uri']).toBeUndefined();
    expect(world.sent[0]?.headers['content-type']).toContain('version=2.0');
    world.endpoints.set('payerfsp', new Map());
    await sendErrorCallback(
      world.ports,
      errorTarget('participants', { party, source: 'payerfsp', version: '1.1', headers: {} }),
      new AlsError('PARTICIPANT_NOT_FOUND'),
    );
    expect(world.events).toEqual(['error_callback_sent', 'error_callback_failed']);
  });
});

describe('the span the Hub sends with', () => {
  it('keeps a valid traceparent trace id and flags, puts its own vendor member first, drops an older one', async () => {
    const world = fakeWorld();
    world.oracle.set('MSISDN/16135551212', [{ fspId: 'payeefsp' }]);
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await lookUpParty(world.ports, lookup({ headers: { traceparent, tracestate: 'acmevendor=old,other=1' } }));
    const sent = world.sent[0]?.headers;
    expect(sent?.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[\da-f]{16}-01$/);
    expect(sent?.tracestate).toMatch(/^acmevendor=[^,]+,other=1$/);
    await lookUpParty(world.ports, lookup({ headers: { traceparent, tracestate: 'acmevendor=old' } }));
    expect(world.sent[1]?.headers.tracestate).toMatch(/^acmevendor=[^,]+$/);
  });
});

describe('chooseOracle', () => {
  const row = (id: number, extra: Partial<OracleRecord> = {}): OracleRecord => ({
    id,
    type: 'MSISDN',
    currency: null,
    url: `http://oracle-${id}`,
    endpointType: 'URL',
    isDefault: false,
    isActive: true,
    ...extra,
  });

  it('takes the one row, else the last default one, of the type and (for a lookup) the currency', () => {
    expect(chooseOracle([row(1), row(2, { type: 'EMAIL' })], 'MSISDN', undefined)).toBe('http://oracle-1');
    const rows = [row(1, { isDefault: true }), row(2, { isDefault: true }), row(3, { currency: 'XXX' })];
    expect(chooseOracle(rows, 'MSISDN', undefined)).toBe('http://oracle-2');
    expect(chooseOracle(rows, 'MSISDN', 'XXX')).toBe('http://oracle-3');
  });

  it('names what is missing', () => {
    expect(() => chooseOracle([row(1, { isActive: false })], 'MSISDN', undefined)).toThrow(
      new AlsError('NO_ORACLE', { type: 'MSISDN' }).message,
    );
    expect(() => chooseOracle([row(1)], 'MSISDN', 'XTS')).toThrow(
      new AlsError('NO_ORACLE_FOR_CURRENCY', { type: 'MSISDN', currency: 'XTS' }).message,
    );
    expect(() => chooseOracle([row(1), row(2)], 'MSISDN', undefined)).toThrow(
      new AlsError('NO_DEFAULT_ORACLE', { type: 'MSISDN' }).message,
    );
  });
});
