import type { Knex } from 'knex';

/**
 * The subset of central-ledger 19.5.5's schema the position handler touches, with its table names, column
 * names and types (the state after its migrations 110200..960110 for these tables), so the handler runs on
 * a database of its own. Foreign keys to tables outside the subset (externalParticipant, fxTransferStateChange,
 * settlement windows...) are left out; everything the handler reads or writes is the same.
 */
interface Migration {
  readonly name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

function enumTable(t: Knex.CreateTableBuilder, idColumn: string, now: Knex.Raw): void {
  t.increments(idColumn).primary().notNullable();
  t.string('name', 50).notNullable().unique();
  t.string('description', 512).defaultTo(null).nullable();
  t.boolean('isActive').defaultTo(true).notNullable();
  t.dateTime('createdDate').defaultTo(now).notNullable();
}

const transferStates: readonly [string, string][] = [
  ['RECEIVED_PREPARE', 'RECEIVED'],
  ['RESERVED', 'RESERVED'],
  ['RECEIVED_FULFIL', 'RESERVED'],
  ['RECEIVED_FULFIL_DEPENDENT', 'RESERVED'],
  ['COMMITTED', 'COMMITTED'],
  ['FAILED', 'ABORTED'],
  ['RESERVED_TIMEOUT', 'RESERVED'],
  ['RECEIVED_REJECT', 'RESERVED'],
  ['ABORTED_REJECTED', 'ABORTED'],
  ['RECEIVED_ERROR', 'RESERVED'],
  ['ABORTED_ERROR', 'ABORTED'],
  ['EXPIRED_PREPARED', 'ABORTED'],
  ['EXPIRED_RESERVED', 'ABORTED'],
  ['INVALID', 'ABORTED'],
  ['SETTLED', 'SETTLED'],
  ['RESERVED_FORWARDED', 'RESERVED'],
];

const enumSeeds: Record<string, readonly string[]> = {
  // Order matters: the ids are the seeds' insertion order, which central-ledger's Enum constants assume.
  ledgerAccountType: [
    'POSITION',
    'SETTLEMENT',
    'HUB_RECONCILIATION',
    'HUB_MULTILATERAL_SETTLEMENT',
    'INTERCHANGE_FEE',
    'INTERCHANGE_FEE_SETTLEMENT',
  ],
  participantLimitType: ['NET_DEBIT_CAP'],
  transferParticipantRoleType: ['PAYER_DFSP', 'PAYEE_DFSP', 'HUB', 'DFSP_SETTLEMENT', 'DFSP_POSITION'],
  ledgerEntryType: [
    'PRINCIPLE_VALUE',
    'INTERCHANGE_FEE',
    'HUB_FEE',
    'POSITION_DEPOSIT',
    'POSITION_WITHDRAWAL',
    'SETTLEMENT_NET_RECIPIENT',
    'SETTLEMENT_NET_SENDER',
    'SETTLEMENT_NET_ZERO',
    'RECORD_FUNDS_IN',
    'RECORD_FUNDS_OUT',
  ],
  settlementGranularity: ['GROSS', 'NET'],
  settlementInterchange: ['BILATERAL', 'MULTILATERAL'],
  settlementDelay: ['IMMEDIATE', 'DEFERRED'],
};

const enumIds: Record<string, string> = {
  ledgerAccountType: 'ledgerAccountTypeId',
  participantLimitType: 'participantLimitTypeId',
  transferParticipantRoleType: 'transferParticipantRoleTypeId',
  ledgerEntryType: 'ledgerEntryTypeId',
  settlementGranularity: 'settlementGranularityId',
  settlementInterchange: 'settlementInterchangeId',
  settlementDelay: 'settlementDelayId',
};

const tables = [
  'participantPositionChange',
  'transferStateChange',
  'transferParticipant',
  'transfer',
  'transferDuplicateCheck',
  'participantLimit',
  'participantPosition',
  'settlementModel',
  'participantCurrency',
  'participant',
  'transferState',
  'currency',
  ...Object.keys(enumIds).reverse(),
];

const schema: Migration = {
  name: '0001_position_schema',
  async up(knex) {
    const now = knex.fn.now();
    await knex.schema.createTable('currency', (t) => {
      t.string('currencyId', 3).primary().notNullable();
      t.string('name', 128).defaultTo(null).nullable();
      t.boolean('isActive').defaultTo(true).notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.integer('scale').unsigned().defaultTo(4).notNullable();
    });
    for (const [table, id] of Object.entries(enumIds)) {
      await knex.schema.createTable(table, (t) => enumTable(t, id, now));
    }
    await knex.schema.createTable('transferState', (t) => {
      t.string('transferStateId', 50).primary().notNullable();
      t.string('enumeration', 50).notNullable();
      t.string('description', 512).defaultTo(null).nullable();
      t.boolean('isActive').defaultTo(true).notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
    });
    await knex.schema.createTable('participant', (t) => {
      t.increments('participantId').primary().notNullable();
      t.string('name', 256).notNullable().unique();
      t.string('description', 512).defaultTo(null).nullable();
      t.boolean('isActive').defaultTo(true).notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.string('createdBy', 128).notNullable();
      t.boolean('isProxy').defaultTo(false).notNullable();
    });
    await knex.schema.createTable('participantCurrency', (t) => {
      t.increments('participantCurrencyId').primary().notNullable();
      t.integer('participantId').unsigned().notNullable().references('participantId').inTable('participant');
      t.string('currencyId', 3).notNullable().references('currencyId').inTable('currency');
      t.integer('ledgerAccountTypeId')
        .unsigned()
        .notNullable()
        .references('ledgerAccountTypeId')
        .inTable('ledgerAccountType');
      t.boolean('isActive').defaultTo(true).notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.string('createdBy', 128).notNullable();
      t.index('participantId');
      t.index('currencyId');
      t.unique(['participantId', 'currencyId', 'ledgerAccountTypeId'], { indexName: 'participantcurrency_pcl_unique' });
    });
    await knex.schema.createTable('settlementModel', (t) => {
      t.increments('settlementModelId').primary().notNullable();
      t.string('name', 50).notNullable().unique();
      t.boolean('isActive').defaultTo(true).notNullable();
      t.integer('settlementGranularityId')
        .unsigned()
        .notNullable()
        .references('settlementGranularityId')
        .inTable('settlementGranularity');
      t.integer('settlementInterchangeId')
        .unsigned()
        .notNullable()
        .references('settlementInterchangeId')
        .inTable('settlementInterchange');
      t.integer('settlementDelayId')
        .unsigned()
        .notNullable()
        .references('settlementDelayId')
        .inTable('settlementDelay');
      t.string('currencyId', 3).nullable().references('currencyId').inTable('currency');
      t.boolean('requireLiquidityCheck').defaultTo(true).notNullable();
      t.integer('ledgerAccountTypeId')
        .unsigned()
        .notNullable()
        .references('ledgerAccountTypeId')
        .inTable('ledgerAccountType');
      t.boolean('autoPositionReset').defaultTo(false).notNullable();
      t.boolean('adjustPosition').defaultTo(false).notNullable();
      t.integer('settlementAccountTypeId').notNullable();
    });
    await knex.schema.createTable('participantPosition', (t) => {
      t.bigIncrements('participantPositionId').primary().notNullable();
      t.integer('participantCurrencyId')
        .unsigned()
        .notNullable()
        .references('participantCurrencyId')
        .inTable('participantCurrency');
      t.decimal('value', 18, 4).notNullable();
      t.decimal('reservedValue', 18, 4).notNullable();
      t.dateTime('changedDate').defaultTo(now).notNullable();
      t.index('participantCurrencyId');
    });
    await knex.schema.createTable('transferDuplicateCheck', (t) => {
      t.string('transferId', 36).primary().notNullable();
      t.string('hash', 256).notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
    });
    await knex.schema.createTable('transfer', (t) => {
      t.string('transferId', 36).primary().notNullable().references('transferId').inTable('transferDuplicateCheck');
      t.decimal('amount', 18, 4).notNullable();
      t.string('currencyId', 3).notNullable().references('currencyId').inTable('currency');
      t.string('ilpCondition', 256).notNullable();
      t.dateTime('expirationDate').notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
    });
    await knex.schema.createTable('transferParticipant', (t) => {
      t.bigIncrements('transferParticipantId').primary().notNullable();
      t.string('transferId', 36).notNullable().references('transferId').inTable('transfer');
      t.integer('participantCurrencyId')
        .unsigned()
        .nullable()
        .references('participantCurrencyId')
        .inTable('participantCurrency');
      t.integer('transferParticipantRoleTypeId')
        .unsigned()
        .notNullable()
        .references('transferParticipantRoleTypeId')
        .inTable('transferParticipantRoleType');
      t.integer('ledgerEntryTypeId')
        .unsigned()
        .notNullable()
        .references('ledgerEntryTypeId')
        .inTable('ledgerEntryType');
      t.decimal('amount', 18, 4).notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.integer('participantId').unsigned().notNullable();
      t.bigInteger('externalParticipantId').unsigned().nullable();
      t.index('participantId');
      t.index(['transferId', 'transferParticipantRoleTypeId', 'ledgerEntryTypeId'], 'getTransferInfoToChangePosition');
    });
    await knex.schema.createTable('transferStateChange', (t) => {
      t.bigIncrements('transferStateChangeId').primary().notNullable();
      t.string('transferId', 36).notNullable().references('transferId').inTable('transfer');
      t.string('transferStateId', 50).notNullable().references('transferStateId').inTable('transferState');
      t.string('reason', 512).defaultTo(null).nullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.index('transferId');
      t.index('transferStateId');
    });
    await knex.schema.createTable('participantPositionChange', (t) => {
      t.bigIncrements('participantPositionChangeId').primary().notNullable();
      t.bigInteger('participantPositionId')
        .unsigned()
        .notNullable()
        .references('participantPositionId')
        .inTable('participantPosition');
      t.bigInteger('transferStateChangeId')
        .unsigned()
        .defaultTo(null)
        .references('transferStateChangeId')
        .inTable('transferStateChange');
      t.decimal('value', 18, 4).notNullable();
      t.decimal('reservedValue', 18, 4).notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.integer('participantCurrencyId')
        .unsigned()
        .notNullable()
        .references('participantCurrencyId')
        .inTable('participantCurrency');
      // DECIMAL(18,2) in central-ledger (310404_participantPositionChange-change.js), unlike value.
      t.decimal('change', 18, 2).notNullable();
      t.bigInteger('fxTransferStateChangeId').unsigned().defaultTo(null);
      t.index('participantPositionId');
      t.index('transferStateChangeId');
    });
    await knex.schema.createTable('participantLimit', (t) => {
      t.increments('participantLimitId').primary().notNullable();
      t.integer('participantCurrencyId')
        .unsigned()
        .notNullable()
        .references('participantCurrencyId')
        .inTable('participantCurrency');
      t.integer('participantLimitTypeId')
        .unsigned()
        .notNullable()
        .references('participantLimitTypeId')
        .inTable('participantLimitType');
      t.decimal('value', 18, 4).defaultTo(0).notNullable();
      t.decimal('thresholdAlarmPercentage', 5, 2).defaultTo(10).notNullable();
      t.bigInteger('startAfterParticipantPositionChangeId')
        .unsigned()
        .nullable()
        .references('participantPositionChangeId')
        .inTable('participantPositionChange');
      t.boolean('isActive').defaultTo(true).notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.string('createdBy', 128).notNullable();
      t.index(
        ['participantCurrencyId', 'participantLimitTypeId', 'isActive'],
        'participantlimit_pcid_pltid_active_index',
      );
    });

    for (const [table, names] of Object.entries(enumSeeds)) {
      await knex(table).insert(names.map((name) => ({ name, description: name })));
    }
    await knex('transferState').insert(
      transferStates.map(([transferStateId, enumeration]) => ({
        transferStateId,
        enumeration,
        description: transferStateId,
      })),
    );
    await knex('currency').insert(
      ['USD', 'EUR', 'TZS', 'XOF', 'KES', 'ZAR'].map((currencyId) => ({ currencyId, name: currencyId })),
    );
    // The Hub participant is id 1, as central-ledger's seeds/participant.js makes it.
    await knex('participant').insert({
      participantId: 1,
      name: 'Hub',
      description: 'Hub Operator',
      createdBy: 'seeds',
    });
  },
  async down(knex) {
    for (const table of tables) await knex.schema.dropTableIfExists(table);
  },
};

const fxTables = [
  'fxWatchList',
  'fxTransferParticipant',
  'fxTransferStateChange',
  'fxTransfer',
  'fxTransferDuplicateCheck',
  'fxParticipantCurrencyType',
  'fxTransferType',
];

/**
 * The FX tables the handler reads and writes (fx-prepare, fx-reserve, fx-timeout-reserved, fx-abort and the
 * cyrilResult steps of commit and abort), as central-ledger 19.5.5's migrations 600010..610403 and 960111/960112
 * leave them: fxTransfer, fxTransferStateChange, fxTransferParticipant, fxWatchList and what they reference
 * (fxTransferDuplicateCheck, fxTransferType, fxParticipantCurrencyType), the foreign key of
 * participantPositionChange.fxTransferStateChangeId, and the seeds of seeds/fxTransferType.js,
 * seeds/fxParticipantCurrencyType.js and the two FX roles of seeds/transferParticipantRoleType.js.
 * fxTransferParticipant.externalParticipantId has no foreign key (externalParticipant is outside the subset).
 */
const fxSchema: Migration = {
  name: '0002_fx_schema',
  async up(knex) {
    const now = knex.fn.now();
    for (const [table, id] of [
      ['fxTransferType', 'fxTransferTypeId'],
      ['fxParticipantCurrencyType', 'fxParticipantCurrencyTypeId'],
    ] as const) {
      await knex.schema.createTable(table, (t) => {
        t.increments(id).primary().notNullable();
        t.string('name', 50).notNullable();
        t.string('description', 512).defaultTo(null).nullable();
        t.dateTime('createdDate').defaultTo(now).notNullable();
        // 600011/600013: unique names (the seeds' onConflict('name')).
        t.unique(['name']);
      });
    }
    await knex.schema.createTable('fxTransferDuplicateCheck', (t) => {
      t.string('commitRequestId', 36).primary().notNullable();
      t.string('hash', 256).notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
    });
    await knex.schema.createTable('fxTransfer', (t) => {
      t.string('commitRequestId', 36).primary().notNullable();
      t.foreign('commitRequestId').references('commitRequestId').inTable('fxTransferDuplicateCheck');
      t.string('determiningTransferId', 36).defaultTo(null).nullable();
      t.decimal('sourceAmount', 18, 4).notNullable();
      t.decimal('targetAmount', 18, 4).notNullable();
      t.string('sourceCurrency', 3).notNullable();
      t.foreign('sourceCurrency').references('currencyId').inTable('currency');
      t.string('targetCurrency', 3).notNullable();
      t.foreign('targetCurrency').references('currencyId').inTable('currency');
      t.string('ilpCondition', 256).notNullable();
      t.dateTime('expirationDate').notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.index('sourceCurrency');
      t.index('targetCurrency');
      t.index('determiningTransferId');
    });
    await knex.schema.createTable('fxTransferStateChange', (t) => {
      t.bigIncrements('fxTransferStateChangeId').primary().notNullable();
      t.string('commitRequestId', 36).notNullable();
      t.foreign('commitRequestId').references('commitRequestId').inTable('fxTransfer');
      t.string('transferStateId', 50).notNullable();
      t.foreign('transferStateId').references('transferStateId').inTable('transferState');
      t.string('reason', 512).defaultTo(null).nullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.index('commitRequestId');
      t.index('transferStateId');
    });
    await knex.schema.createTable('fxWatchList', (t) => {
      t.bigIncrements('fxWatchListId').primary().notNullable();
      t.string('commitRequestId', 36).notNullable();
      t.foreign('commitRequestId').references('commitRequestId').inTable('fxTransfer');
      t.string('determiningTransferId', 36).notNullable();
      t.integer('fxTransferTypeId').unsigned().notNullable();
      t.foreign('fxTransferTypeId').references('fxTransferTypeId').inTable('fxTransferType');
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.index('commitRequestId');
      t.index('determiningTransferId');
    });
    await knex.schema.createTable('fxTransferParticipant', (t) => {
      t.bigIncrements('fxTransferParticipantId').primary().notNullable();
      t.string('commitRequestId', 36).notNullable();
      t.foreign('commitRequestId').references('commitRequestId').inTable('fxTransfer');
      // Nullable since 610202 (an initiating FSP's row names no account).
      t.integer('participantCurrencyId').unsigned().nullable();
      t.foreign('participantCurrencyId').references('participantCurrencyId').inTable('participantCurrency');
      t.integer('transferParticipantRoleTypeId').unsigned().notNullable();
      t.foreign('transferParticipantRoleTypeId')
        .references('transferParticipantRoleTypeId')
        .inTable('transferParticipantRoleType');
      t.integer('ledgerEntryTypeId').unsigned().notNullable();
      t.foreign('ledgerEntryTypeId').references('ledgerEntryTypeId').inTable('ledgerEntryType');
      t.integer('fxParticipantCurrencyTypeId').unsigned();
      t.foreign('fxParticipantCurrencyTypeId')
        .references('fxParticipantCurrencyTypeId')
        .inTable('fxParticipantCurrencyType');
      t.decimal('amount', 18, 4).notNullable();
      t.dateTime('createdDate').defaultTo(now).notNullable();
      t.integer('participantId').unsigned().notNullable();
      t.bigInteger('externalParticipantId').unsigned().nullable();
      t.index('commitRequestId');
      t.index('participantCurrencyId');
      t.index('transferParticipantRoleTypeId');
      t.index('ledgerEntryTypeId');
      t.index('participantId');
      t.index('externalParticipantId');
    });
    await knex.schema.alterTable('participantPositionChange', (t) => {
      t.foreign('fxTransferStateChangeId').references('fxTransferStateChangeId').inTable('fxTransferStateChange');
    });
    await knex('fxTransferType').insert([
      { name: 'PAYER_CONVERSION', description: 'Payer side currency conversion' },
      { name: 'PAYEE_CONVERSION', description: 'Payee side currency conversion' },
    ]);
    await knex('fxParticipantCurrencyType').insert([
      { name: 'SOURCE', description: 'The participant currency is the source of the currency conversion' },
      { name: 'TARGET', description: 'The participant currency is the target of the currency conversion' },
    ]);
    // Ids 6 and 7, after the five roles of 0001, as in seeds/transferParticipantRoleType.js.
    for (const name of ['INITIATING_FSP', 'COUNTER_PARTY_FSP']) {
      await knex.raw('INSERT IGNORE INTO transferParticipantRoleType (name, description) VALUES (?, ?)', [name, name]);
    }
  },
  async down(knex) {
    await knex.schema.alterTable('participantPositionChange', (t) => {
      t.dropForeign(['fxTransferStateChangeId']);
    });
    await knex('transferParticipantRoleType').whereIn('name', ['INITIATING_FSP', 'COUNTER_PARTY_FSP']).delete();
    for (const table of fxTables) await knex.schema.dropTableIfExists(table);
  },
};

/**
 * transferError as central-ledger 19.5.5 leaves it (910100_feature904DDL.js recreates it keyed by transferId;
 * 910102_hotfix954.js drops its foreign key to transferErrorDuplicateCheck): a refused bulk-prepare writes one
 * (handler.js TransferService.logTransferError).
 */
const transferErrorSchema: Migration = {
  name: '0003_transfer_error',
  async up(knex) {
    await knex.schema.createTable('transferError', (t) => {
      t.string('transferId', 36).primary().notNullable();
      t.bigInteger('transferStateChangeId').unsigned().notNullable();
      t.foreign('transferStateChangeId').references('transferStateChangeId').inTable('transferStateChange');
      t.integer('errorCode').unsigned().notNullable();
      t.string('errorDescription', 128).notNullable();
      t.dateTime('createdDate').defaultTo(knex.fn.now()).notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('transferError');
  },
};

/** A knex migration source, so `knex.migrate.latest({ migrationSource })` needs no files on disk. */
export const positionMigrationSource: Knex.MigrationSource<Migration> = {
  async getMigrations() {
    return [schema, fxSchema, transferErrorSchema];
  },
  getMigrationName(migration) {
    return migration.name;
  },
  async getMigration(migration) {
    return migration;
  },
};

/** Creates (or completes) the handler's own schema. */
export async function migrateLatest(knex: Knex): Promise<void> {
  await knex.migrate.latest({ migrationSource: positionMigrationSource, tableName: 'mojafast_position_migrations' });
}
