import { randomUUID } from 'node:crypto';
import { createTopic, type TestTopic } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTransfers, type ProvisionedState } from '../src/testing/transfers.js';
import {
  type BulkParties,
  bulkAbortMessage,
  bulkCommitMessage,
  bulkPrepareMessage,
  bulkTimeoutMessage,
  proceeded,
  rejectMessage,
} from './bulk-fixtures.js';
import { positionOf, produce, reservedThen, statesOf, TopicReader, useLedgerWithTopics } from './helpers.js';

/**
 * Against the real broker and database: each action of central-ledger's one-at-a-time position
 * handler (handlers/positions/handler.js) on its own input topic; its rows, positions and the message it produces,
 * field by field (shapes and their sources: bulk-fixtures.ts); a redelivery changes nothing; bad input gets the
 * original's error.
 */
let bulk: TestTopic;
let bulkReader: TopicReader;

const dfsps = [
  { name: 'bulkpayer', netDebitCap: '1000', liquidity: '10000' },
  { name: 'bulkpayee', netDebitCap: '1000', liquidity: '10000' },
];

const account = (name: string) => {
  const found = env.ledger.ledger.accounts.get(`${name}:USD`);
  if (!found) throw new Error(name);
  return found.position;
};

const parties = (amount = '10'): BulkParties => ({
  transferId: randomUUID(),
  payer: 'bulkpayer',
  payee: 'bulkpayee',
  currency: 'USD',
  amount,
});

async function provision(t: BulkParties, state: ProvisionedState) {
  await insertTransfers(env.ledger.knex, [{ ...t, state }], env.ledger.ledger.accounts);
  return t;
}

/** A state the upstream handler writes before it sends the message on (fulfil handler's handlePayeeResponse). */
async function addState(transferId: string, transferStateId: string, reason: string | null = null) {
  await env.ledger.knex('transferStateChange').insert({ transferId, transferStateId, reason });
}

/** Sends one message and returns what arrives on `reader` about the transfer after it. */
async function send(message: { key: string; value: string }, reader: TopicReader, transferId: string) {
  const before = reader.values.length;
  await produce(env.producer, env.input.name, [message]);
  let found: Record<string, unknown> | undefined;
  await expect
    .poll(() => (found = reader.values.slice(before).find((n) => n.id === transferId)), { timeout: 20_000 })
    .toBeDefined();
  return found as Record<string, unknown>;
}

async function reasonOf(transferId: string, transferStateId: string) {
  const row = await env.ledger.knex('transferStateChange').where({ transferId, transferStateId }).first('reason');
  return row?.reason as string | null | undefined;
}

async function positionChangesOf(transferId: string) {
  return env.ledger
    .knex('participantPositionChange as ppc')
    .join('transferStateChange as tsc', 'tsc.transferStateChangeId', 'ppc.transferStateChangeId')
    .where('tsc.transferId', transferId)
    .orderBy('ppc.participantPositionChangeId')
    .select('ppc.participantCurrencyId', 'ppc.change', 'tsc.transferStateId');
}

const anyId = expect.any(String);

/** Reserves `t` by its bulk-prepare, then writes the state the upstream handler writes before it sends the message on. */
async function reserveThen(t: BulkParties, payer: number, transferStateId: string, reason: string) {
  await send(bulkPrepareMessage(t, payer), bulkReader, t.transferId);
  await addState(t.transferId, transferStateId, reason);
}

/** Delivers `message` again: the position stays `position` and the transfer keeps its four state changes. */
async function expectRedeliveryChangesNothing(
  message: { key: string; value: string },
  reader: TopicReader,
  transferId: string,
  account: number,
  position: string,
) {
  await send(message, reader, transferId);
  expect(await positionOf(env.ledger.knex, account)).toBe(position);
  expect((await statesOf(env.ledger.knex, transferId)).length).toBe(4);
}

// The bulk-processing topic is made before the handler starts and dropped after it stopped (vitest runs
// after-hooks in reverse order).
beforeAll(async () => {
  bulk = await createTopic({ prefix: 'position_bulk_processing' });
  bulkReader = await TopicReader.open(bulk);
});

afterAll(async () => {
  await bulkReader?.close();
  await bulk?.drop();
});

const env = useLedgerWithTopics(
  'position_bulk',
  { currencies: ['USD'], dfsps },
  { timeout: 60_000, service: () => ({ bulkProcessingTopic: bulk.name }) },
);

describe('bulk-prepare', () => {
  it('RECEIVED_PREPARE → RESERVED, + amount on the payer, the message itself to topic-bulk-processing; a redelivery changes nothing', async () => {
    const t = await provision(parties('10'), 'RECEIVED_PREPARE');
    const payer = account('bulkpayer');
    const before = Number(await positionOf(env.ledger.knex, payer));
    const message = bulkPrepareMessage(t, payer);
    const note = await send(message, bulkReader, t.transferId);
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await positionOf(env.ledger.knex, payer)).toBe((before + 10).toFixed(4));
    expect(await positionChangesOf(t.transferId)).toEqual([
      { participantCurrencyId: payer, change: '10.00', transferStateId: 'RESERVED' },
    ]);
    // Kafka.proceed without an error: the incoming value, event type bulk-processing, state success.
    expect(note).toEqual(proceeded(message.value, 'bulk-processing', anyId));
    expect(env.reader.values.some((n) => n.id === t.transferId)).toBe(false);

    const again = await send(message, bulkReader, t.transferId);
    expect(again).toEqual(proceeded(message.value, 'bulk-processing', anyId));
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await positionOf(env.ledger.knex, payer)).toBe((before + 10).toFixed(4));
  });

  it('past the net debit cap (1000): ABORTED_REJECTED "Payer limit error", 4200 from the Hub to the payer on topic-bulk-processing', async () => {
    const t = await provision(parties('5000'), 'RECEIVED_PREPARE');
    const payer = account('bulkpayer');
    const before = await positionOf(env.ledger.knex, payer);
    const message = bulkPrepareMessage(t, payer);
    const note = await send(message, bulkReader, t.transferId);
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE', 'ABORTED_REJECTED']);
    expect(await reasonOf(t.transferId, 'ABORTED_REJECTED')).toBe('Payer limit error');
    expect(await positionOf(env.ledger.knex, payer)).toBe(before);
    // handler.js TransferService.logTransferError: a transferError row naming the ABORTED_REJECTED state change.
    const rejectedChange = await env.ledger
      .knex('transferStateChange')
      .where({ transferId: t.transferId, transferStateId: 'ABORTED_REJECTED' })
      .first('transferStateChangeId');
    const transferErrorRows = () =>
      env.ledger
        .knex('transferError')
        .where({ transferId: t.transferId })
        .select('transferStateChangeId', 'errorCode', 'errorDescription');
    expect(await transferErrorRows()).toEqual([
      {
        transferStateChangeId: rejectedChange?.transferStateChangeId,
        errorCode: 4200,
        errorDescription: 'Payer limit error',
      },
    ]);
    const sent = JSON.parse(message.value);
    // Kafka.proceed with fspiopError and fromSwitch: to = the sender, from = Hub, uriParams.id added, payload the
    // errorInformation, state {status: 'error', code, description}.
    expect(note).toMatchObject({
      id: t.transferId,
      from: 'Hub',
      to: 'bulkpayer',
      type: 'application/json',
      content: {
        uriParams: { id: t.transferId },
        headers: { ...sent.content.headers, 'fspiop-source': 'Hub', 'fspiop-destination': 'bulkpayer' },
        payload: { errorInformation: { errorCode: '4200', errorDescription: 'Payer limit error' } },
      },
      metadata: {
        correlationId: t.transferId,
        event: {
          type: 'bulk-processing',
          action: 'bulk-prepare',
          responseTo: sent.metadata.event.id,
          state: { status: 'error', code: '4200', description: 'Payer limit error' },
        },
      },
    });
    // Redelivered: a replay, the same 4200 again (read back from the stored reason), nothing written.
    const again = await send(message, bulkReader, t.transferId);
    expect(again).toMatchObject({
      from: 'Hub',
      to: 'bulkpayer',
      content: { payload: { errorInformation: { errorCode: '4200' } } },
    });
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE', 'ABORTED_REJECTED']);
    expect(await positionOf(env.ledger.knex, payer)).toBe(before);
    expect((await transferErrorRows()).length).toBe(1);
  });
});

describe('bulk-commit', () => {
  it('RECEIVED_FULFIL → COMMITTED, + the payee amount (negative) on the payee, the message to topic-bulk-processing; a redelivery changes nothing', async () => {
    const t = await provision(parties('7'), 'RECEIVED_FULFIL');
    const payee = account('bulkpayee');
    const before = Number(await positionOf(env.ledger.knex, payee));
    const message = bulkCommitMessage(t, payee);
    const note = await send(message, bulkReader, t.transferId);
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(reservedThen('RECEIVED_FULFIL', 'COMMITTED'));
    expect(await positionOf(env.ledger.knex, payee)).toBe((before - 7).toFixed(4));
    expect(await positionChangesOf(t.transferId)).toEqual([
      { participantCurrencyId: payee, change: '-7.00', transferStateId: 'COMMITTED' },
    ]);
    expect(note).toEqual(proceeded(message.value, 'bulk-processing', anyId));

    const again = await send(message, bulkReader, t.transferId);
    expect(again).toEqual(proceeded(message.value, 'bulk-processing', anyId));
    expect(await positionOf(env.ledger.knex, payee)).toBe((before - 7).toFixed(4));
    expect((await statesOf(env.ledger.knex, t.transferId)).length).toBe(4);
  });

  it('bad input, a transfer not in RECEIVED_FULFIL: nothing written, 2001 "Invalid State: RECEIVED_PREPARE - expected: RECEIVED_FULFIL" from the Hub', async () => {
    const t = await provision(parties('3'), 'RECEIVED_PREPARE');
    const payee = account('bulkpayee');
    const before = await positionOf(env.ledger.knex, payee);
    const note = await send(bulkCommitMessage(t, payee), bulkReader, t.transferId);
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE']);
    expect(await positionOf(env.ledger.knex, payee)).toBe(before);
    expect(note).toMatchObject({
      from: 'Hub',
      to: 'bulkpayee',
      content: {
        uriParams: { id: t.transferId },
        payload: {
          errorInformation: {
            errorCode: '2001',
            errorDescription: 'Internal server error - Invalid State: RECEIVED_PREPARE - expected: RECEIVED_FULFIL',
          },
        },
      },
      metadata: { event: { type: 'bulk-processing', action: 'bulk-commit', state: { status: 'error', code: '2001' } } },
    });
  });
});

describe('bulk-timeout-reserved', () => {
  it('RESERVED_TIMEOUT → EXPIRED_RESERVED "Transfer expired", - amount on the payer, 3303 as the message came (not from the Hub); a redelivery changes nothing', async () => {
    const t = await provision(parties('4'), 'RESERVED_TIMEOUT');
    const payer = account('bulkpayer');
    const before = Number(await positionOf(env.ledger.knex, payer));
    const message = bulkTimeoutMessage(t, payer);
    const note = await send(message, bulkReader, t.transferId);
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(reservedThen('RESERVED_TIMEOUT', 'EXPIRED_RESERVED'));
    expect(await reasonOf(t.transferId, 'EXPIRED_RESERVED')).toBe('Transfer expired');
    expect(await positionOf(env.ledger.knex, payer)).toBe((before - 4).toFixed(4));
    const sent = JSON.parse(message.value);
    expect(note).toMatchObject({
      id: t.transferId,
      from: 'bulkpayee',
      to: 'bulkpayer',
      content: {
        uriParams: { id: t.transferId },
        headers: sent.content.headers,
        context: { payer: 'bulkpayer', payee: 'bulkpayee' },
        payload: { errorInformation: { errorCode: '3303', errorDescription: 'Transfer expired' } },
      },
      metadata: {
        event: {
          type: 'bulk-processing',
          action: 'bulk-timeout-reserved',
          responseTo: sent.metadata.event.id,
          state: { status: 'error', code: '3303', description: 'Transfer expired' },
        },
      },
    });
    await expectRedeliveryChangesNothing(message, bulkReader, t.transferId, payer, (before - 4).toFixed(4));
  });
});

describe('bulk-abort', () => {
  it('RECEIVED_ERROR → ABORTED_ERROR with the reason the fulfil handler wrote, - amount on the payer, the message to topic-bulk-processing as a success; a redelivery changes nothing', async () => {
    const t = await provision(parties('6'), 'RECEIVED_PREPARE');
    const payer = account('bulkpayer');
    const start = await positionOf(env.ledger.knex, payer);
    await reserveThen(t, payer, 'RECEIVED_ERROR', 'Payee transaction limit reached');
    const message = bulkAbortMessage(t, payer);
    const note = await send(message, bulkReader, t.transferId);
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(reservedThen('RECEIVED_ERROR', 'ABORTED_ERROR'));
    expect(await reasonOf(t.transferId, 'ABORTED_ERROR')).toBe('Payee transaction limit reached');
    expect(await positionOf(env.ledger.knex, payer)).toBe(start);
    expect(await positionChangesOf(t.transferId)).toEqual([
      { participantCurrencyId: payer, change: '6.00', transferStateId: 'RESERVED' },
      { participantCurrencyId: payer, change: '-6.00', transferStateId: 'ABORTED_ERROR' },
    ]);
    // handler.js passes no fspiopError: a success carrying the payee's errorInformation as it came.
    expect(note).toEqual(proceeded(message.value, 'bulk-processing', anyId));
    await expectRedeliveryChangesNothing(message, bulkReader, t.transferId, payer, start);
  });
});

describe('reject', () => {
  it('RECEIVED_REJECT → ABORTED_REJECTED with its reason, - amount on the payer, the message to the notification topic; a redelivery changes nothing', async () => {
    const t = await provision(parties('8'), 'RECEIVED_PREPARE');
    const payer = account('bulkpayer');
    const start = await positionOf(env.ledger.knex, payer);
    await reserveThen(t, payer, 'RECEIVED_REJECT', 'rejected by payee');
    const message = rejectMessage(t, payer);
    const note = await send(message, env.reader, t.transferId);
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(reservedThen('RECEIVED_REJECT', 'ABORTED_REJECTED'));
    expect(await reasonOf(t.transferId, 'ABORTED_REJECTED')).toBe('rejected by payee');
    expect(await positionOf(env.ledger.knex, payer)).toBe(start);
    expect(note).toEqual(proceeded(message.value, 'notification', anyId));
    await expectRedeliveryChangesNothing(message, env.reader, t.transferId, payer, start);
  });

  it('bad input, a reject of a transfer whose prepare was refused: nothing written, 2001 from the Hub', async () => {
    const t = await provision(parties('9'), 'RECEIVED_PREPARE');
    await addState(t.transferId, 'ABORTED_REJECTED', 'Payer limit error');
    const payer = account('bulkpayer');
    const before = await positionOf(env.ledger.knex, payer);
    const note = await send(rejectMessage(t, payer), env.reader, t.transferId);
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE', 'ABORTED_REJECTED']);
    expect(await positionOf(env.ledger.knex, payer)).toBe(before);
    expect(note).toMatchObject({
      from: 'Hub',
      to: 'bulkpayee',
      content: { payload: { errorInformation: { errorCode: '2001' } } },
      metadata: { event: { type: 'notification', action: 'reject', state: { status: 'error', code: '2001' } } },
    });
  });
});
