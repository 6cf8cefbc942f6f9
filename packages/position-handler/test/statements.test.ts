import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseAmount } from '../src/ledger/amount.js';
import type { LedgerCommand } from '../src/ledger/types.js';
import { planAndWriteBatch } from '../src/runner/unit-of-work.js';
import { PositionStore } from '../src/store/position-store.js';
import { insertFxTransfers, insertTransfers } from '../src/testing/transfers.js';
import { createTestLedger, type TestLedger } from './helpers.js';

/**
 * One transaction per batch with a bounded number of statements whatever the batch size, for a
 * mixed batch of plain and FX actions. Counts the statements the store sends on its connection.
 */
let ledger: TestLedger;

beforeAll(async () => {
  ledger = await createTestLedger('position_statements', {
    currencies: ['USD', 'EUR'],
    dfsps: [
      { name: 'payer', netDebitCap: '100000', liquidity: '100000' },
      { name: 'fxp', netDebitCap: '100000', liquidity: '100000' },
      { name: 'payee', netDebitCap: '100000', liquidity: '100000' },
    ],
  });
}, 60_000);

afterAll(async () => {
  await ledger?.drop();
});

/** A mixed batch of `n` of each: prepare, fx-prepare, commit, fx-timeout-reserved, fx-reserve. */
async function mixedBatch(n: number): Promise<LedgerCommand[]> {
  const accounts = ledger.ledger.accounts;
  const payer = String(accounts.get('payer:USD')?.position);
  const payee = String(accounts.get('payee:USD')?.position);
  const fxpUsd = String(accounts.get('fxp:USD')?.position);
  const transfer = (state: 'RECEIVED_PREPARE' | 'RECEIVED_FULFIL') => ({
    transferId: randomUUID(),
    payer: 'payer',
    payee: 'payee',
    currency: 'USD',
    amount: '1',
    state,
  });
  const fx = (state: 'RECEIVED_PREPARE' | 'RESERVED_TIMEOUT' | 'RECEIVED_FULFIL_DEPENDENT') => ({
    commitRequestId: randomUUID(),
    determiningTransferId: randomUUID(),
    initiator: 'payer',
    fxp: 'fxp',
    sourceCurrency: 'USD',
    sourceAmount: '1',
    targetCurrency: 'EUR',
    targetAmount: '1',
    state,
  });
  const prepares = Array.from({ length: n }, () => transfer('RECEIVED_PREPARE'));
  const commits = Array.from({ length: n }, () => transfer('RECEIVED_FULFIL'));
  const fxPrepares = Array.from({ length: n }, () => fx('RECEIVED_PREPARE'));
  const fxTimeouts = Array.from({ length: n }, () => fx('RESERVED_TIMEOUT'));
  const fxReserves = Array.from({ length: n }, () => fx('RECEIVED_FULFIL_DEPENDENT'));
  await insertTransfers(ledger.knex, [...prepares, ...commits], accounts);
  await insertFxTransfers(ledger.knex, [...fxPrepares, ...fxTimeouts, ...fxReserves], accounts);
  const commands: LedgerCommand[] = [];
  const add = (c: Omit<LedgerCommand, 'seq'>) => commands.push({ ...c, seq: commands.length });
  for (let i = 0; i < n; i++) {
    add({
      action: 'prepare',
      transferId: prepares[i]?.transferId as string,
      accountId: payer,
      amount: parseAmount('1'),
    });
    add({
      action: 'fx-prepare',
      transferId: fxPrepares[i]?.commitRequestId as string,
      accountId: payer,
      amount: parseAmount('1'),
    });
    add({ action: 'commit', transferId: commits[i]?.transferId as string, accountId: payee });
    add({ action: 'fx-timeout-reserved', transferId: fxTimeouts[i]?.commitRequestId as string, accountId: payer });
    add({ action: 'fx-reserve', transferId: fxReserves[i]?.commitRequestId as string, accountId: fxpUsd });
  }
  return commands;
}

it('a mixed plain + FX batch is one transaction of 13 statements in two round trips at 5 and at 500 messages (2 more when the reference data is read)', async () => {
  const store = await PositionStore.open(ledger.storePool);
  const counts: number[] = [];
  let statements = 0;
  const counted = new WeakSet<object>();
  // mysql2's pool announces each connection it hands out ('acquire'): wrap its query once per connection.
  const count = (connection: { query: (sql: unknown, ...rest: unknown[]) => unknown }) => {
    if (counted.has(connection)) return;
    counted.add(connection);
    const query = connection.query.bind(connection);
    connection.query = (sql: unknown, ...rest: unknown[]) => {
      // The store sends its statements as text, several joined in one COM_QUERY.
      statements += typeof sql === 'string' ? sql.split(';\n').length : 1;
      return query(sql, ...rest);
    };
  };
  ledger.storePool.on('acquire', count);
  try {
    for (const n of [1, 100]) {
      const commands = await mixedBatch(n);
      statements = 0;
      const result = await planAndWriteBatch(store, commands);
      expect(result.outcomes.every((o) => o.result === 'applied')).toBe(true);
      counts.push(statements);
    }
  } finally {
    ledger.storePool.off('acquire', count);
  }
  // START, the locking read of the positions, the reads of the histories, payee amounts, fx histories and fx
  // reserved changes, INSERT transferStateChange, SET (its first id), INSERT fxTransferStateChange, INSERT
  // participantPositionChange, UPDATE participantPosition, its row count checked, COMMIT; + the accounts and settlement models (reference
  // data, read every batch with POSITION_REFERENCE_TTL_MS=0 as here).
  expect(counts).toEqual([15, 15]);
});
