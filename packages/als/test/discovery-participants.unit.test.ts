import { describe, expect, it } from 'vitest';
import { Endpoint } from '../src/discovery/endpoints.js';
import {
  type BatchRequest,
  type BatchSerialisers,
  handleBatch,
  handleParticipant,
  type ParticipantRequest,
  sendBatchError,
} from '../src/discovery/participants.js';
import { UpstreamError } from '../src/discovery/types.js';
import { AlsError } from '../src/fspiop/errors.js';
import { errorOf, fakeWorld, hubName, info } from './fake-ports.js';

// The /participants flows over fake ports (fake-ports.ts): what the oracle is asked, what the requester
// (or the FSPIOP-Destination) is sent.

const party = { type: 'MSISDN', id: '16135551212' };

const request = (extra: Partial<ParticipantRequest> = {}): ParticipantRequest => ({
  method: 'GET',
  party,
  currency: undefined,
  source: 'payerfsp',
  destination: undefined,
  version: '1.1',
  headers: { 'fspiop-source': 'payerfsp' },
  ...extra,
});

describe('handleParticipant', () => {
  it('GET answers the first oracle entry from the Hub', async () => {
    const world = fakeWorld();
    world.oracle.set('MSISDN/16135551212', [{ fspId: 'payeefsp', partySubIdOrType: 'X' }, { fspId: 'payerfsp' }]);
    expect(await handleParticipant(world.ports, request())).toEqual({ kind: 'sent' });
    expect(world.sent).toHaveLength(1);
    expect(world.sent[0]).toMatchObject({
      url: `http://payerfsp.test/${Endpoint.PARTICIPANT_PUT}/MSISDN/16135551212`,
      body: '{"fspId":"payeefsp"}',
      participant: 'payerfsp',
    });
    expect(world.sent[0]?.headers['fspiop-source']).toBe(hubName);
    expect(world.sent[0]?.headers.traceparent).toBeDefined();
  });

  it('GET of a party the oracle does not hold answers 3204', async () => {
    const world = fakeWorld();
    await handleParticipant(world.ports, request({ party: { ...party, subId: 'S' } }));
    expect(world.sent[0]?.endpointType).toBe(Endpoint.PARTICIPANT_SUB_ID_PUT_ERROR);
    expect(errorOf(world.sent[0])).toEqual(info('PARTICIPANT_NOT_FOUND'));
  });

  it.each([
    ['an invalid ID', request({ party: { type: 'MSISDN', id: 'abc' } }), undefined],
    ['an unknown requester', request({ source: 'strangerfsp' }), info('SOURCE_NOT_FOUND')],
    [
      'an fspId that is no participant',
      request({ method: 'POST', fspId: 'strangerfsp', body: Buffer.from('{}') }),
      info('UNKNOWN_FSP', { fspId: 'strangerfsp' }),
    ],
  ])('answers %s', async (_what, given, expected) => {
    const world = fakeWorld(['payerfsp', 'payeefsp', 'strangerfsp']);
    world.participants.delete('strangerfsp');
    await handleParticipant(world.ports, given);
    expect(world.oracleCalls).toEqual([]);
    const answered = errorOf(world.sent[0]);
    if (expected === undefined) expect(answered?.errorCode).toBe(info('INVALID_PARTY_ID').errorCode);
    else expect(answered).toEqual(expected);
  });

  it('answers 2001 when central-ledger cannot be asked about the requester', async () => {
    const world = fakeWorld();
    world.ledgerDown.add('payerfsp');
    await handleParticipant(world.ports, request());
    // Its endpoints cannot be read either: the error callback fails, counted.
    expect(world.sent).toEqual([]);
    expect(world.events).toEqual(['error_callback_failed']);
    expect(world.stages).toEqual(['oracle', 'callback']);
  });

  it('POST stores the party and announces it to the body fspId from the Hub', async () => {
    const world = fakeWorld();
    const body = Buffer.from('{"fspId":"payerfsp","currency":"XXX"}');
    await handleParticipant(world.ports, request({ method: 'POST', fspId: 'payerfsp', currency: 'XXX', body }));
    expect(world.oracleCalls[0]).toMatchObject({ method: 'POST', body: body.toString() });
    expect(JSON.parse(world.sent[0]?.body as string)).toEqual({
      partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '16135551212', fspId: 'payerfsp' }],
      currency: 'XXX',
    });
    expect(world.sent[0]?.headers['fspiop-source']).toBe(hubName);
  });

  it('PUT with FSPIOP-Destination answers it with the requester headers, sub-id kept', async () => {
    const world = fakeWorld();
    world.writeStatus = 200;
    await handleParticipant(
      world.ports,
      request({ method: 'PUT', fspId: 'payerfsp', destination: 'payeefsp', party: { ...party, subId: 'S' } }),
    );
    expect(world.sent[0]?.participant).toBe('payeefsp');
    expect(world.sent[0]?.headers['fspiop-source']).toBe('payerfsp');
    expect(world.sent[0]?.headers.traceparent).toBeUndefined();
    expect(JSON.parse(world.sent[0]?.body as string).partyList[0].partySubIdOrType).toBe('S');
  });

  it.each([
    ['a POST the oracle did not create', 'POST', 200, 'payerfsp'],
    ['a PUT without an fspId', 'PUT', 200, undefined],
  ] as const)('answers %s with 3003', async (_what, method, status, fspId) => {
    const world = fakeWorld();
    world.writeStatus = status;
    await handleParticipant(world.ports, request({ method, fspId }));
    expect(errorOf(world.sent[0])).toEqual(info('ADD_PARTY_FAILED'));
  });

  it('passes a failed oracle write on', async () => {
    const world = fakeWorld();
    world.oracleFailure.write = new UpstreamError('oracle', 'POST answered 400', 400);
    await handleParticipant(world.ports, request({ method: 'POST', fspId: 'payerfsp' }));
    expect(errorOf(world.sent[0])).toEqual(info('ORACLE_CLIENT_ERROR', { reason: 'Bad Request' }));
  });

  describe('DELETE', () => {
    it('drops the party and answers the requester fspId', async () => {
      const world = fakeWorld();
      await handleParticipant(world.ports, request({ method: 'DELETE' }));
      expect(world.oracleCalls.map((c) => c.method)).toEqual(['DELETE']);
      expect(world.sent[0]?.body).toBe('{"fspId":"payerfsp"}');
    });

    it.each([
      [[], 'No participant found for the party'],
      [[{ fspId: 'payeefsp' }], 'The party MSISDN:16135551212 does not belong to the requesting FSP'],
    ])('with the owner check, refuses when the oracle holds %j', async (entries, reason) => {
      const world = fakeWorld();
      world.oracle.set('MSISDN/16135551212', entries);
      await handleParticipant(world.ports, request({ method: 'DELETE', checkDeleteOwner: true }));
      expect(world.oracleCalls.map((c) => c.method)).toEqual(['GET']);
      expect(errorOf(world.sent[0])).toEqual(info('DELETE_PARTY_FAILED', { reason }));
    });

    it('with the owner check, drops the requester own party', async () => {
      const world = fakeWorld();
      world.oracle.set('MSISDN/16135551212', [{ fspId: 'payerfsp' }]);
      await handleParticipant(world.ports, request({ method: 'DELETE', checkDeleteOwner: true }));
      expect(world.oracleCalls.map((c) => c.method)).toEqual(['GET', 'DELETE']);
    });
  });

  it('answers an answer that cannot be delivered: no endpoint, or a failed send', async () => {
    const world = fakeWorld();
    world.oracle.set('MSISDN/16135551212', [{ fspId: 'payeefsp' }]);
    world.endpoints.set(
      'payerfsp',
      new Map([[Endpoint.PARTICIPANT_PUT_ERROR, 'http://payerfsp.test/error/{{partyIdType}}/{{partyIdentifier}}']]),
    );
    await handleParticipant(world.ports, request());
    expect(errorOf(world.sent[0])).toEqual(
      info('NO_ENDPOINT', { destination: 'payerfsp', endpoint: Endpoint.PARTICIPANT_PUT }),
    );
    world.endpoints.delete('payerfsp');
    world.unreachable.add('payerfsp');
    expect(await handleParticipant(world.ports, request())).toEqual({ kind: 'error_callback', delivered: false });
    expect(world.events).toEqual(['forward_failed', 'error_callback_sent', 'forward_failed', 'error_callback_failed']);
  });
});

const serialisers: BatchSerialisers = {
  request: (body) => JSON.stringify(body),
  result: (body) => JSON.stringify(body),
};

const batch = (extra: Partial<BatchRequest> = {}): BatchRequest => ({
  requestId: 'b7d1e7b6-9d0c-4a1e-8f1a-0f1e2d3c4b5a',
  partyList: [
    { partyIdType: 'MSISDN', partyIdentifier: '1', fspId: 'payerfsp' },
    { partyIdType: 'MSISDN', partyIdentifier: '2', fspId: 'payeefsp' },
    { partyIdType: 'UNKNOWN', partyIdentifier: '3', fspId: 'payerfsp' },
  ],
  currency: 'XXX',
  source: 'payerfsp',
  version: '1.1',
  headers: {},
  ...extra,
});

const known = new Set(['MSISDN', 'EMAIL']);

describe('handleBatch', () => {
  it('sends the requester own entries to the oracle and answers every entry', async () => {
    const world = fakeWorld();
    world.batchAnswer = Buffer.from(
      JSON.stringify({ partyList: [{ partyId: { partyIdType: 'MSISDN', partyIdentifier: '1', currency: 'XXX' } }] }),
    );
    expect(await handleBatch(world.ports, serialisers, batch(), known)).toEqual({ kind: 'sent' });
    expect(JSON.parse(world.oracleCalls[0]?.body as string).partyList).toEqual([
      { partyIdType: 'MSISDN', partyIdentifier: '1', fspId: 'payerfsp', currency: 'XXX' },
    ]);
    expect(world.forgotten).toEqual([{ type: 'MSISDN', id: '1', subId: undefined }]);
    const answer = JSON.parse(world.sent[0]?.body as string);
    expect(world.sent[0]?.url).toBe(
      `http://payerfsp.test/${Endpoint.PARTICIPANT_BATCH_PUT}/b7d1e7b6-9d0c-4a1e-8f1a-0f1e2d3c4b5a`,
    );
    expect(answer.currency).toBe('XXX');
    expect(answer.partyList.map((e: { partyId: { partyIdentifier: string } }) => e.partyId.partyIdentifier)).toEqual([
      '2',
      '3',
      '1',
    ]);
    expect(answer.partyList[0].errorInformation.errorCode).toBe(info('PARTICIPANT_NOT_FOUND').errorCode);
    expect(answer.partyList[2].partyId.currency).toBeUndefined();
  });

  it('answers 3003 per entry when the oracle answers an empty list, or one that is not JSON', async () => {
    const world = fakeWorld();
    world.batchAnswer = Buffer.from('not json');
    await handleBatch(world.ports, serialisers, batch({ currency: undefined, destination: 'payeefsp' }), known);
    const answer = JSON.parse(world.sent[0]?.body as string);
    expect(answer.partyList[2].errorInformation.errorCode).toBe(info('ADD_PARTY_FAILED').errorCode);
    expect(answer.currency).toBeUndefined();
    expect(world.sent[0]?.headers['fspiop-destination']).toBe('payeefsp');
  });

  it.each([
    [
      'an unknown requester',
      (w: ReturnType<typeof fakeWorld>) => w.participants.delete('payerfsp'),
      info('SOURCE_NOT_FOUND'),
    ],
    [
      'no oracle for the currency',
      (w: ReturnType<typeof fakeWorld>) => {
        w.oracleFailure.oracleFor = new AlsError('NO_ORACLE_FOR_CURRENCY', { type: 'MSISDN', currency: 'XXX' });
      },
      info('NO_ORACLE', { type: 'MSISDN' }),
    ],
    [
      'no oracle',
      (w: ReturnType<typeof fakeWorld>) => {
        w.oracleFailure.oracleFor = new AlsError('NO_DEFAULT_ORACLE', { type: 'MSISDN' });
      },
      info('NO_DEFAULT_ORACLE', { type: 'MSISDN' }),
    ],
    [
      'a failing oracle',
      (w: ReturnType<typeof fakeWorld>) => {
        w.oracleFailure.batch = new UpstreamError('oracle', 'batch POST answered 500', 500);
      },
      info('ORACLE_UNREACHABLE'),
    ],
    [
      'an answer entry without a partyId',
      (w: ReturnType<typeof fakeWorld>) => {
        w.batchAnswer = Buffer.from('{"partyList":[{"errorInformation":{}}]}');
      },
      info('ORACLE_FAILED', { reason: 'batch answer entry without a partyId' }),
    ],
  ])('fails the whole batch for %s: one PUT …/error', async (_what, change, expected) => {
    const world = fakeWorld();
    change(world);
    expect(await handleBatch(world.ports, serialisers, batch(), known)).toEqual({
      kind: 'error_callback',
      delivered: true,
    });
    expect(world.sent).toHaveLength(1);
    expect(world.sent[0]?.endpointType).toBe(Endpoint.PARTICIPANT_BATCH_PUT_ERROR);
    expect(errorOf(world.sent[0])).toEqual(expected);
    expect(world.events).toEqual(['error_callback_sent']);
  });

  it('fails the batch with 2001 when central-ledger cannot be asked, or on anything unexpected', async () => {
    const world = fakeWorld();
    world.participants.set('other', { name: 'other', isActive: true, currencies: [] });
    const ports = {
      ...world.ports,
      directory: {
        ...world.ports.directory,
        participant: async () => {
          throw new UpstreamError('central-ledger', 'down');
        },
      },
    };
    await handleBatch(ports, serialisers, batch(), known);
    expect(errorOf(world.sent[0])).toEqual(info('SWITCH_FAILED', { reason: 'down' }));
    world.oracleFailure.oracleFor = new TypeError('bug');
    await handleBatch(world.ports, serialisers, batch(), known);
    expect(errorOf(world.sent[1])).toEqual(info('ORACLE_FAILED', { reason: 'bug' }));
    world.oracleFailure.oracleFor = undefined;
    world.oracleFailure.batch = new UpstreamError('oracle', 'r', 400, { errorCode: '3000', errorDescription: 'x' });
    await handleBatch(world.ports, serialisers, batch(), known);
    expect(errorOf(world.sent[2])).toEqual({ errorCode: '3000', errorDescription: 'x' });
  });

  it('counts an answer that cannot be delivered', async () => {
    const world = fakeWorld();
    world.unreachable.add('payerfsp');
    expect(await handleBatch(world.ports, serialisers, batch(), known)).toEqual({ kind: 'answer_undelivered' });
    expect(world.events).toEqual(['error_callback_failed']);
    world.endpoints.set('payerfsp', new Map());
    expect(await sendBatchError(world.ports, batch(), new AlsError('UNEXPECTED_FAILURE'))).toEqual({
      kind: 'error_callback',
      delivered: false,
    });
    expect(world.events).toEqual(['error_callback_failed', 'error_callback_failed']);
  });
});
