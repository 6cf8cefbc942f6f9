import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LedgerCommand } from '../src/ledger/types.js';
import { planAndWriteBatch } from '../src/runner/unit-of-work.js';
import { TransferParticipantRoleType } from '../src/store/enums.js';
import { PositionStore } from '../src/store/position-store.js';
import { insertTransfers, type ProvisionedState } from '../src/testing/transfers.js';
import { createTestLedger, positionOf, statesOf, type TestLedger } from './helpers.js';

/**
 * Commits read their transfer's latest state with the payee amount (PositionStore.lockAndReadSql) instead of the
 * whole history: the same outcomes, a redelivery still recognised, and a transfer without a payee row still
 * judged by its state (read in one more round trip).
 */
let ledger: TestLedger;

beforeAll(async () => {
  ledger = await createTestLedger('position_latest_read', {
    currencies: ['USD'],
    dfsps: [
      { name: 'payer', netDebitCap: '1000', liquidity: '1000' },
      { name: 'payee', netDebitCap: '1000', liquidity: '1000' },
    ],
  });
}, 60_000);

afterAll(async () => {
  await ledger?.drop();
});

it('commits judged by their latest state: applied, redelivery replayed, wrong state refused, no payee row or no transfer as from the whole history', async () => {
  const store = await PositionStore.open(ledger.storePool);
  const payee = ledger.ledger.accounts.get('payee:USD')?.position as number;
  const transfer = (state: ProvisionedState) => ({
    transferId: randomUUID(),
    payer: 'payer',
    payee: 'payee',
    currency: 'USD',
    amount: '2',
    state,
  });
  const [fulfilled, redelivered, prepared, noPayee, noPayeeCommitted] = [
    transfer('RECEIVED_FULFIL'),
    transfer('RECEIVED_FULFIL'),
    transfer('RECEIVED_PREPARE'),
    transfer('RECEIVED_FULFIL'),
    transfer('RECEIVED_FULFIL'),
  ];
  await insertTransfers(
    ledger.knex,
    [fulfilled, redelivered, prepared, noPayee, noPayeeCommitted],
    ledger.ledger.accounts,
  );
  const commit = (seq: number, transferId: string): LedgerCommand => ({
    seq,
    action: 'commit',
    transferId,
    accountId: String(payee),
  });
  // Two of them committed first, so that their second commit is a redelivery.
  const first = await planAndWriteBatch(store, [
    commit(0, redelivered.transferId),
    commit(1, noPayeeCommitted.transferId),
  ]);
  expect(first.outcomes.map((o) => o.result)).toEqual(['applied', 'applied']);
  await ledger
    .knex('transferParticipant')
    .whereIn('transferId', [noPayee.transferId, noPayeeCommitted.transferId])
    .where('transferParticipantRoleTypeId', TransferParticipantRoleType.PAYEE_DFSP)
    .delete();
  const before = await positionOf(ledger.knex, payee);

  let roundTrips = 0;
  const counted = new WeakSet<object>();
  const count = (connection: { query: (...args: unknown[]) => unknown }) => {
    if (counted.has(connection)) return;
    counted.add(connection);
    const query = connection.query.bind(connection);
    connection.query = (...args: unknown[]) => {
      roundTrips++;
      return query(...args);
    };
  };
  ledger.storePool.on('acquire', count);
  try {
    const result = await planAndWriteBatch(store, [
      commit(0, fulfilled.transferId),
      commit(1, redelivered.transferId),
      commit(2, prepared.transferId),
      commit(3, noPayee.transferId),
      commit(4, noPayeeCommitted.transferId),
      commit(5, randomUUID()),
    ]);
    expect(result.outcomes).toEqual([
      { seq: 0, result: 'applied' },
      { seq: 1, result: 'replayed' },
      {
        seq: 2,
        result: 'failed',
        error: { name: 'INCORRECT_STATE', detail: 'Invalid State: RECEIVED_PREPARE - expected: RECEIVED_FULFIL' },
      },
      {
        seq: 3,
        result: 'failed',
        error: { name: 'TRANSFER_NOT_FOUND', detail: 'no PAYEE_DFSP transferParticipant' },
      },
      { seq: 4, result: 'replayed' },
      { seq: 5, result: 'failed', error: { name: 'TRANSFER_NOT_FOUND' } },
    ]);
    // The accounts (reference data, read every batch here), the locking read, the histories of the two transfers
    // without a payee row, the writes with the COMMIT.
    expect(roundTrips).toBe(4);

    // With every payee row there, no more round trips than before: the reads and the writes.
    roundTrips = 0;
    const again = await planAndWriteBatch(store, [commit(0, fulfilled.transferId), commit(1, redelivered.transferId)]);
    expect(again.outcomes.map((o) => o.result)).toEqual(['replayed', 'replayed']);
    expect(roundTrips).toBe(3);
  } finally {
    ledger.storePool.off('acquire', count);
  }
  expect(await statesOf(ledger.knex, fulfilled.transferId)).toEqual([
    'RECEIVED_PREPARE',
    'RESERVED',
    'RECEIVED_FULFIL',
    'COMMITTED',
  ]);
  expect(await statesOf(ledger.knex, noPayee.transferId)).toEqual(['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL']);
  // Only the first commit moved the payee's position, by its (negative) payee amount.
  expect(Number(await positionOf(ledger.knex, payee))).toBe(Number(before) - 2);
});
