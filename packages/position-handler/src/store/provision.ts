import type { Knex } from 'knex';
import { formatAmount, parseAmount } from '../ledger/amount.js';
import { LedgerAccountType, ParticipantLimitType } from './enums.js';

export interface DfspSpec {
  readonly name: string;
  /** NET_DEBIT_CAP per currency account. */
  readonly netDebitCap: string;
  /** Liquidity cover: the settlement account's value is its negative. */
  readonly liquidity: string;
  /** Starting position value; default 0. */
  readonly position?: string;
}

export interface LedgerSpec {
  readonly currencies: readonly string[];
  readonly dfsps: readonly DfspSpec[];
  readonly requireLiquidityCheck?: boolean;
}

export interface ProvisionedAccount {
  readonly participantId: number;
  readonly position: number;
  readonly settlement: number;
}

export interface ProvisionedLedger {
  /** `${dfsp}:${currency}` → its account ids. */
  readonly accounts: ReadonlyMap<string, ProvisionedAccount>;
}

async function idByName(knex: Knex, table: string, idColumn: string, name: string): Promise<number> {
  const row = await knex(table).first(idColumn).where({ name });
  if (!row) throw new Error(`${table} has no row named ${name}; is the schema seeded?`);
  return Number(row[idColumn]);
}

/**
 * Creates what the handler needs to run, in either schema (ours or central-ledger's own migrations and
 * seeds): a DEFERREDNET settlement model on POSITION settling against SETTLEMENT, each DFSP with a POSITION
 * and a SETTLEMENT account per currency, positions (settlement value = -liquidity), a NET_DEBIT_CAP, the
 * Hub's accounts. Existing participants and models are reused, so it can run twice. (Transfers in the states
 * the upstream handlers leave them in are test fixtures: testing/transfers.ts.)
 */
export async function provisionLedger(knex: Knex, spec: LedgerSpec): Promise<ProvisionedLedger> {
  for (const currencyId of spec.currencies) {
    await knex.raw('INSERT IGNORE INTO currency (currencyId, name) VALUES (?, ?)', [currencyId, currencyId]);
  }
  const modelName = 'DEFERREDNET';
  if (!(await knex('settlementModel').first('settlementModelId').where({ name: modelName }))) {
    await knex('settlementModel').insert({
      name: modelName,
      isActive: 1,
      settlementGranularityId: await idByName(knex, 'settlementGranularity', 'settlementGranularityId', 'NET'),
      settlementInterchangeId: await idByName(knex, 'settlementInterchange', 'settlementInterchangeId', 'MULTILATERAL'),
      settlementDelayId: await idByName(knex, 'settlementDelay', 'settlementDelayId', 'DEFERRED'),
      currencyId: null,
      requireLiquidityCheck: spec.requireLiquidityCheck === false ? 0 : 1,
      ledgerAccountTypeId: LedgerAccountType.POSITION,
      autoPositionReset: 1,
      adjustPosition: 0,
      settlementAccountTypeId: LedgerAccountType.SETTLEMENT,
    });
  }

  const accountOf = async (participantId: number, currencyId: string, ledgerAccountTypeId: number) => {
    const existing = await knex('participantCurrency')
      .first('participantCurrencyId')
      .where({ participantId, currencyId, ledgerAccountTypeId });
    if (existing) return { id: Number(existing.participantCurrencyId), created: false };
    const [id] = await knex('participantCurrency').insert({
      participantId,
      currencyId,
      ledgerAccountTypeId,
      isActive: 1,
      createdBy: 'provision',
    });
    return { id: Number(id), created: true };
  };
  const positionFor = async (participantCurrencyId: number, value: string) => {
    await knex('participantPosition').insert({
      participantCurrencyId,
      value: formatAmount(parseAmount(value)),
      reservedValue: '0.0000',
    });
  };

  const hub = await knex('participant').first('participantId').where({ participantId: 1 });
  if (hub) {
    for (const currencyId of spec.currencies) {
      for (const name of ['HUB_MULTILATERAL_SETTLEMENT', 'HUB_RECONCILIATION']) {
        const type = await idByName(knex, 'ledgerAccountType', 'ledgerAccountTypeId', name);
        const account = await accountOf(1, currencyId, type);
        if (account.created) await positionFor(account.id, '0');
      }
    }
  }

  const accounts = new Map<string, ProvisionedAccount>();
  for (const dfsp of spec.dfsps) {
    let participant = await knex('participant').first('participantId').where({ name: dfsp.name });
    if (!participant) {
      const [id] = await knex('participant').insert({
        name: dfsp.name,
        description: dfsp.name,
        createdBy: 'provision',
      });
      participant = { participantId: id };
    }
    const participantId = Number(participant.participantId);
    for (const currencyId of spec.currencies) {
      const position = await accountOf(participantId, currencyId, LedgerAccountType.POSITION);
      if (position.created) {
        await positionFor(position.id, dfsp.position ?? '0');
        await knex('participantLimit').insert({
          participantCurrencyId: position.id,
          participantLimitTypeId: ParticipantLimitType.NET_DEBIT_CAP,
          value: formatAmount(parseAmount(dfsp.netDebitCap)),
          thresholdAlarmPercentage: 10,
          isActive: 1,
          createdBy: 'provision',
        });
      }
      const settlement = await accountOf(participantId, currencyId, LedgerAccountType.SETTLEMENT);
      if (settlement.created) await positionFor(settlement.id, formatAmount(-parseAmount(dfsp.liquidity)));
      accounts.set(`${dfsp.name}:${currencyId}`, {
        participantId,
        position: position.id,
        settlement: settlement.id,
      });
    }
  }

  return { accounts };
}
