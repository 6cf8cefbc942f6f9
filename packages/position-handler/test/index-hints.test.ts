import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planAndWriteBatch } from '../src/runner/unit-of-work.js';
import { PositionStore } from '../src/store/position-store.js';
import { insertTransfers } from '../src/testing/transfers.js';
import { createTestLedger, positionOf, statesOf, type TestLedger } from './helpers.js';

let ledger: TestLedger;

const dfsps = [
  { name: 'payerfsp', netDebitCap: '1000', liquidity: '10000' },
  { name: 'payeefsp', netDebitCap: '1000', liquidity: '10000' },
];

beforeAll(async () => {
  ledger = await createTestLedger('position_hints', { currencies: ['USD'], dfsps });
});

afterAll(async () => {
  await ledger?.drop();
});

describe('index hints of the batch reads', () => {
  it('a schema whose transferId indexes have other names (no index to force): prepare and commit still applied', async () => {
    // A hint naming a missing index would fail every batch (errno 1176) and the handler would retry forever.
    await ledger.knex.raw(
      'ALTER TABLE transferStateChange RENAME INDEX transferstatechange_transferid_index TO tsc_transfer_other',
    );
    await ledger.knex.raw(
      'ALTER TABLE transferParticipant RENAME INDEX getTransferInfoToChangePosition TO tp_transfer_other',
    );
    const accounts = ledger.ledger.accounts;
    const payer = accounts.get('payerfsp:USD')?.position as number;
    const payee = accounts.get('payeefsp:USD')?.position as number;
    const transferId = '00000000-0000-4000-8000-000000000001';
    const transfer = { transferId, payer: 'payerfsp', payee: 'payeefsp', currency: 'USD', amount: '12' };
    await insertTransfers(ledger.knex, [{ ...transfer, state: 'RECEIVED_PREPARE' }], accounts);
    const store = await PositionStore.open(ledger.storePool);

    const prepared = await planAndWriteBatch(store, [
      { seq: 0, action: 'prepare', transferId, accountId: String(payer), amount: 120_000n },
    ]);
    expect(prepared.outcomes[0]?.result).toBe('applied');
    await ledger.knex('transferStateChange').insert({ transferId, transferStateId: 'RECEIVED_FULFIL' });
    const committed = await planAndWriteBatch(store, [
      { seq: 0, action: 'commit', transferId, accountId: String(payee) },
    ]);
    expect(committed.outcomes[0]?.result).toBe('applied');
    expect(await statesOf(ledger.knex, transferId)).toEqual([
      'RECEIVED_PREPARE',
      'RESERVED',
      'RECEIVED_FULFIL',
      'COMMITTED',
    ]);
    expect(await positionOf(ledger.knex, payer)).toBe('12.0000');
    expect(await positionOf(ledger.knex, payee)).toBe('-12.0000');
  });
});

describe('state change ids on a server that may interleave them (innodb_autoinc_lock_mode = 2, MySQL 8)', () => {
  it('reads the ids back: each position change names the state change of its own transfer', async () => {
    const accounts = ledger.ledger.accounts;
    const payer = accounts.get('payerfsp:USD')?.position as number;
    const transfers = ['00000000-0000-4000-8000-000000000011', '00000000-0000-4000-8000-000000000012'].map(
      (transferId, i) => ({ transferId, payer: 'payerfsp', payee: 'payeefsp', currency: 'USD', amount: String(i + 1) }),
    );
    await insertTransfers(
      ledger.knex,
      transfers.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
      accounts,
    );
    // consecutiveIds = false: the path for servers where a multi-row INSERT's ids need not be consecutive.
    const store = new PositionStore(ledger.storePool, false);
    const result = await planAndWriteBatch(
      store,
      transfers.map((t, i) => ({
        seq: i,
        action: 'prepare' as const,
        transferId: t.transferId,
        accountId: String(payer),
        amount: BigInt(i + 1) * 10_000n,
      })),
    );
    expect(result.outcomes.map((o) => o.result)).toEqual(['applied', 'applied']);
    const rows = await ledger
      .knex('participantPositionChange as ppc')
      .join('transferStateChange as tsc', 'tsc.transferStateChangeId', 'ppc.transferStateChangeId')
      .select('tsc.transferId', 'tsc.transferStateId', 'ppc.change')
      .whereIn(
        'tsc.transferId',
        transfers.map((t) => t.transferId),
      )
      .orderBy('tsc.transferId');
    expect(rows).toEqual([
      { transferId: transfers[0]?.transferId, transferStateId: 'RESERVED', change: '1.00' },
      { transferId: transfers[1]?.transferId, transferStateId: 'RESERVED', change: '2.00' },
    ]);
  });
});
