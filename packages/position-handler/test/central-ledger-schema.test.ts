import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { expect, it } from 'vitest';
import { startPositionService } from '../src/main.js';
import { insertFxTransfers, insertTransfers, provisionLedger } from '../src/testing/index.js';
import { generatePositionMessages, generateTransfers } from '../src/testing/messages.js';
import { migrateAndSeedCentralLedger } from './central-ledger.js';
import { fxPrepareMessage, fxTimeoutMessage } from './fx-fixtures.js';
import {
  createTestLedger,
  errorOf,
  positionOf,
  produce,
  provisionFxParties,
  quietLogger,
  statesOf,
  testConfig,
  useLedgerWithTopics,
} from './helpers.js';

const env = useLedgerWithTopics(
  'position_clschema',
  {
    currencies: ['USD'],
    dfsps: [
      { name: 'clpayer', netDebitCap: '15', liquidity: '1000' },
      { name: 'clpayee', netDebitCap: '1000', liquidity: '1000' },
    ],
  },
  { migrate: migrateAndSeedCentralLedger, timeout: 180_000 },
);

it('runs unchanged on a database made by central-ledger 19.5.5 migrations and seeds: prepare, 4200, commit', async () => {
  const migrations = await env.ledger.knex('migration').count({ n: '*' });
  expect(Number(migrations[0]?.n)).toBeGreaterThan(200);
  const account = (name: string) => env.ledger.ledger.accounts.get(`${name}:USD`)?.position ?? -1;
  const [first, second] = generateTransfers({ transfers: 2, dfsps: ['clpayer', 'clpayee'], currencies: ['USD'] }).map(
    (t) => ({ ...t, payer: 'clpayer', payee: 'clpayee' }),
  );
  const [committed] = generateTransfers({
    transfers: 1,
    dfsps: ['clpayer', 'clpayee'],
    currencies: ['USD'],
    amount: '4',
  });
  if (!first || !second || !committed) throw new Error('generator');
  await insertTransfers(
    env.ledger.knex,
    [
      { ...first, state: 'RECEIVED_PREPARE' },
      { ...second, state: 'RECEIVED_PREPARE' },
      { ...committed, state: 'RECEIVED_FULFIL' },
    ],
    env.ledger.ledger.accounts,
  );
  const accountOf = (dfsp: string) => account(dfsp);
  await produce(env.producer, env.input.name, [
    ...generatePositionMessages({ transfers: [first, second], action: 'prepare', accountOf }),
    ...generatePositionMessages({ transfers: [committed], action: 'commit', accountOf }),
  ]);
  const service = await startPositionService(testConfig(env.ledger.db, env.input, env.output), { logger: quietLogger });
  try {
    const notes = await env.reader.waitFor(3);
    expect(await statesOf(env.ledger.knex, first.transferId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await statesOf(env.ledger.knex, second.transferId)).toEqual(['RECEIVED_PREPARE', 'ABORTED_REJECTED']);
    expect((await statesOf(env.ledger.knex, committed.transferId)).at(-1)).toBe('COMMITTED');
    expect(await positionOf(env.ledger.knex, account('clpayer'))).toBe('10.0000');
    expect(await positionOf(env.ledger.knex, account('clpayee'))).toBe('-4.0000');
    const byId = new Map(notes.map((n) => [n.id, n]));
    expect(errorOf(byId.get(second.transferId) as never)?.errorCode).toBe('4200');
    const change = await env.ledger.knex('participantPositionChange').first('participantCurrencyId', 'change', 'value');
    expect(change).toMatchObject({ participantCurrencyId: account('clpayer'), change: '10.00', value: '10.0000' });
  } finally {
    await service.stop();
  }
});

it("our migrations' FX tables have central-ledger 19.5.5's columns, types, nullability, indexes and seeds", async () => {
  const ours = await createTestLedger('position_fxschema', { currencies: ['USD'], dfsps: [] });
  try {
    const fxTables = [
      'fxTransfer',
      'fxTransferStateChange',
      'fxTransferParticipant',
      'fxWatchList',
      'fxTransferDuplicateCheck',
      'fxTransferType',
      'fxParticipantCurrencyType',
      'participantPositionChange',
      'transferError',
    ];
    const columns = async (knex: Knex) =>
      (
        await knex.raw(
          `SELECT TABLE_NAME AS t, COLUMN_NAME AS c, COLUMN_TYPE AS type, IS_NULLABLE AS nullable
             FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (?)
            ORDER BY TABLE_NAME, COLUMN_NAME`,
          [fxTables],
        )
      )[0] as unknown[];
    const indexes = async (knex: Knex) =>
      (
        await knex.raw(
          `SELECT DISTINCT TABLE_NAME AS t, INDEX_NAME AS i FROM information_schema.STATISTICS
            WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (?) ORDER BY TABLE_NAME, INDEX_NAME`,
          [fxTables],
        )
      )[0] as unknown[];
    const foreignKeys = async (knex: Knex) =>
      (
        await knex.raw(
          `SELECT TABLE_NAME AS t, COLUMN_NAME AS c, REFERENCED_TABLE_NAME AS rt FROM information_schema.KEY_COLUMN_USAGE
            WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (?) AND REFERENCED_TABLE_NAME IS NOT NULL
              AND REFERENCED_TABLE_NAME <> 'externalParticipant'
            ORDER BY TABLE_NAME, COLUMN_NAME`,
          [fxTables],
        )
      )[0] as unknown[];
    const seeds = async (knex: Knex) => ({
      types: await knex('fxTransferType').select('fxTransferTypeId', 'name').orderBy('fxTransferTypeId'),
      currencyTypes: await knex('fxParticipantCurrencyType')
        .select('fxParticipantCurrencyTypeId', 'name')
        .orderBy('fxParticipantCurrencyTypeId'),
      roles: await knex('transferParticipantRoleType')
        .select('transferParticipantRoleTypeId', 'name')
        .whereIn('name', ['INITIATING_FSP', 'COUNTER_PARTY_FSP'])
        .orderBy('transferParticipantRoleTypeId'),
    });
    expect(await columns(ours.knex)).toEqual(await columns(env.ledger.knex));
    expect(await indexes(ours.knex)).toEqual(await indexes(env.ledger.knex));
    expect(await foreignKeys(ours.knex)).toEqual(await foreignKeys(env.ledger.knex));
    expect(await seeds(ours.knex)).toEqual(await seeds(env.ledger.knex));

    // Provisioning makes an FXP and an FX transfer past its reservation in either schema.
    for (const knex of [ours.knex, env.ledger.knex]) {
      const fx = await provisionLedger(knex, {
        currencies: ['USD', 'EUR'],
        dfsps: [
          { name: 'fxinitiator', netDebitCap: '100', liquidity: '100' },
          { name: 'fxp', netDebitCap: '100', liquidity: '100' },
        ],
      });
      const commitRequestId = randomUUID();
      await insertFxTransfers(
        knex,
        [
          {
            commitRequestId,
            determiningTransferId: randomUUID(),
            initiator: 'fxinitiator',
            fxp: 'fxp',
            sourceCurrency: 'USD',
            sourceAmount: '10',
            targetCurrency: 'EUR',
            targetAmount: '9',
            state: 'RESERVED_TIMEOUT',
          },
        ],
        fx.accounts,
      );
      const states = await knex('fxTransferStateChange')
        .where({ commitRequestId })
        .orderBy('fxTransferStateChangeId')
        .pluck('transferStateId');
      expect(states).toEqual(['RECEIVED_PREPARE', 'RESERVED', 'RESERVED_TIMEOUT']);
      const initiator = fx.accounts.get('fxinitiator:USD')?.position as number;
      expect(await positionOf(knex, initiator)).toBe('10.0000');
      const roles = await knex('fxTransferParticipant')
        .where({ commitRequestId })
        .orderBy('fxTransferParticipantId')
        .select('transferParticipantRoleTypeId', 'fxParticipantCurrencyTypeId', 'amount');
      expect(roles).toEqual([
        { transferParticipantRoleTypeId: 6, fxParticipantCurrencyTypeId: null, amount: '10.0000' },
        { transferParticipantRoleTypeId: 7, fxParticipantCurrencyTypeId: 1, amount: '-10.0000' },
        { transferParticipantRoleTypeId: 7, fxParticipantCurrencyTypeId: 2, amount: '-9.0000' },
      ]);
    }
  } finally {
    await ours.drop();
  }
});

it('runs FX on a database made by central-ledger 19.5.5 migrations: fx-prepare reserved with its position change, fx-timeout-reserved releasing a reservation', async () => {
  const { accounts: fxAccounts, payer } = await provisionFxParties(env.ledger.knex, 'clfxpayer', 'clfxp', '1000');
  const fx = (state: 'RECEIVED_PREPARE' | 'RESERVED_TIMEOUT') => ({
    commitRequestId: randomUUID(),
    determiningTransferId: randomUUID(),
    initiator: 'clfxpayer',
    fxp: 'clfxp',
    sourceCurrency: 'USD',
    sourceAmount: '7',
    targetCurrency: 'EUR',
    targetAmount: '6',
    state,
  });
  const prepared = fx('RECEIVED_PREPARE');
  const expiring = fx('RESERVED_TIMEOUT');
  await insertFxTransfers(env.ledger.knex, [prepared, expiring], fxAccounts);
  // The expiring one's reservation is on the payer: 7.
  expect(await positionOf(env.ledger.knex, payer)).toBe('7.0000');
  const before = env.reader.values.length;
  await produce(env.producer, env.input.name, [fxPrepareMessage(prepared, payer), fxTimeoutMessage(expiring, payer)]);
  const service = await startPositionService(testConfig(env.ledger.db, env.input, env.output), { logger: quietLogger });
  try {
    await env.reader.waitFor(before + 2);
    const states = async (commitRequestId: string) =>
      env.ledger
        .knex('fxTransferStateChange')
        .where({ commitRequestId })
        .orderBy('fxTransferStateChangeId')
        .pluck('transferStateId');
    expect(await states(prepared.commitRequestId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await states(expiring.commitRequestId)).toEqual([
      'RECEIVED_PREPARE',
      'RESERVED',
      'RESERVED_TIMEOUT',
      'EXPIRED_RESERVED',
    ]);
    // + 7 (fx-prepare) - 7 (fx-timeout-reserved) on 7.
    expect(await positionOf(env.ledger.knex, payer)).toBe('7.0000');
    const changes = await env.ledger
      .knex('participantPositionChange as ppc')
      .join('fxTransferStateChange as f', 'f.fxTransferStateChangeId', 'ppc.fxTransferStateChangeId')
      .whereIn('f.commitRequestId', [prepared.commitRequestId, expiring.commitRequestId])
      .orderBy('ppc.participantPositionChangeId')
      .select('f.transferStateId', 'ppc.change', 'ppc.value');
    expect(changes).toEqual([
      { transferStateId: 'RESERVED', change: '7.00', value: '7.0000' },
      { transferStateId: 'RESERVED', change: '7.00', value: '14.0000' },
      { transferStateId: 'EXPIRED_RESERVED', change: '-7.00', value: '7.0000' },
    ]);
  } finally {
    await service.stop();
  }
});
