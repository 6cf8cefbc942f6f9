import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { formatAmount, parseAmount } from '../ledger/amount.js';
import { TransferState } from '../ledger/types.js';
import {
  FxParticipantCurrencyType,
  FxTransferType,
  LedgerAccountType,
  LedgerEntryType,
  ParticipantLimitType,
  TransferParticipantRoleType,
} from './enums.js';

export interface DfspSpec {
  readonly name: string;
  /** NET_DEBIT_CAP per currency account. */
  readonly netDebitCap: string;
  /** Liquidity cover: the settlement account's value is its negative. */
  readonly liquidity: string;
  /** Starting position value; default 0. */
  readonly position?: string;
}

/** States a provisioned transfer can be left in, with the history central-ledger's handlers would have written. */
export type ProvisionedState = 'RECEIVED_PREPARE' | 'RECEIVED_FULFIL' | 'RECEIVED_ERROR' | 'RESERVED_TIMEOUT';

export interface TransferSpec {
  readonly transferId: string;
  readonly payer: string;
  readonly payee: string;
  readonly currency: string;
  readonly amount: string;
  readonly state: ProvisionedState;
}

export interface LedgerSpec {
  readonly currencies: readonly string[];
  readonly dfsps: readonly DfspSpec[];
  readonly requireLiquidityCheck?: boolean;
  readonly transfers?: readonly TransferSpec[];
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

const histories: Record<ProvisionedState, readonly string[]> = {
  RECEIVED_PREPARE: [TransferState.RECEIVED_PREPARE],
  RECEIVED_FULFIL: [TransferState.RECEIVED_PREPARE, TransferState.RESERVED, TransferState.RECEIVED_FULFIL],
  RECEIVED_ERROR: [TransferState.RECEIVED_PREPARE, TransferState.RESERVED, TransferState.RECEIVED_ERROR],
  RESERVED_TIMEOUT: [TransferState.RECEIVED_PREPARE, TransferState.RESERVED, TransferState.RESERVED_TIMEOUT],
};

async function idByName(knex: Knex, table: string, idColumn: string, name: string): Promise<number> {
  const row = await knex(table).first(idColumn).where({ name });
  if (!row) throw new Error(`${table} has no row named ${name}; is the schema seeded?`);
  return Number(row[idColumn]);
}

/**
 * Creates what the handler needs to run, in either schema (ours or central-ledger's own migrations and
 * seeds): a DEFERREDNET settlement model on POSITION settling against SETTLEMENT, each DFSP with a POSITION
 * and a SETTLEMENT account per currency, positions (settlement value = -liquidity), a NET_DEBIT_CAP, the
 * Hub's accounts, and optional transfers in the states the upstream handlers leave them in. Existing
 * participants and models are reused, so it can run twice.
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

  if (spec.transfers && spec.transfers.length > 0) await insertTransfers(knex, spec.transfers, accounts);
  return { accounts };
}

const CHUNK = 1000;

/** Inserts transfers with their participants and state history, a thousand per statement. */
export async function insertTransfers(
  knex: Knex,
  transfers: readonly TransferSpec[],
  accounts: ReadonlyMap<string, ProvisionedAccount>,
): Promise<void> {
  const expiration = new Date(Date.now() + 24 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
  for (let start = 0; start < transfers.length; start += CHUNK) {
    const chunk = transfers.slice(start, start + CHUNK);
    const account = (name: string, currency: string) => {
      const found = accounts.get(`${name}:${currency}`);
      if (!found) throw new Error(`no provisioned account for ${name} in ${currency}`);
      return found;
    };
    await knex.transaction(async (trx) => {
      await trx('transferDuplicateCheck').insert(
        chunk.map((t) => ({
          transferId: t.transferId,
          hash: createHash('sha256').update(t.transferId).digest('base64'),
        })),
      );
      await trx('transfer').insert(
        chunk.map((t) => ({
          transferId: t.transferId,
          amount: formatAmount(parseAmount(t.amount)),
          currencyId: t.currency,
          ilpCondition: 'provisioned',
          expirationDate: expiration,
        })),
      );
      await trx('transferParticipant').insert(
        chunk.flatMap((t) => {
          const amount = parseAmount(t.amount);
          const payer = account(t.payer, t.currency);
          const payee = account(t.payee, t.currency);
          return [
            {
              transferId: t.transferId,
              participantCurrencyId: payer.position,
              participantId: payer.participantId,
              transferParticipantRoleTypeId: TransferParticipantRoleType.PAYER_DFSP,
              ledgerEntryTypeId: LedgerEntryType.PRINCIPLE_VALUE,
              amount: formatAmount(amount),
            },
            {
              transferId: t.transferId,
              participantCurrencyId: payee.position,
              participantId: payee.participantId,
              transferParticipantRoleTypeId: TransferParticipantRoleType.PAYEE_DFSP,
              ledgerEntryTypeId: LedgerEntryType.PRINCIPLE_VALUE,
              amount: formatAmount(-amount),
            },
          ];
        }),
      );
      await trx('transferStateChange').insert(
        chunk.flatMap((t) =>
          histories[t.state].map((transferStateId) => ({ transferId: t.transferId, transferStateId })),
        ),
      );
    });
  }
}

/** States a provisioned fxTransfer can be left in, with the history central-ledger's FX handlers would have written. */
export type ProvisionedFxState =
  | 'RECEIVED_PREPARE'
  | 'RECEIVED_FULFIL_DEPENDENT'
  | 'RECEIVED_ERROR'
  | 'RESERVED_TIMEOUT';

/** A payer-side conversion: `initiator` (the payer DFSP) buys `targetAmount` from the FXP `fxp` for `sourceAmount`. */
export interface FxTransferSpec {
  readonly commitRequestId: string;
  /** The transfer that depends on this conversion. */
  readonly determiningTransferId: string;
  readonly initiator: string;
  readonly fxp: string;
  readonly sourceCurrency: string;
  readonly sourceAmount: string;
  readonly targetCurrency: string;
  readonly targetAmount: string;
  readonly state: ProvisionedFxState;
}

const fxHistories: Record<ProvisionedFxState, readonly string[]> = {
  RECEIVED_PREPARE: [TransferState.RECEIVED_PREPARE],
  RECEIVED_FULFIL_DEPENDENT: [TransferState.RECEIVED_PREPARE, TransferState.RESERVED, 'RECEIVED_FULFIL_DEPENDENT'],
  RECEIVED_ERROR: [TransferState.RECEIVED_PREPARE, TransferState.RESERVED, TransferState.RECEIVED_ERROR],
  RESERVED_TIMEOUT: [TransferState.RECEIVED_PREPARE, TransferState.RESERVED, TransferState.RESERVED_TIMEOUT],
};

/**
 * Inserts fxTransfers the way central-ledger's FX prepare handler leaves them (models/fxTransfer/fxTransfer.js
 * savePreparedRequest: the fxTransfer, its INITIATING_FSP row with no account, the FXP's COUNTER_PARTY_FSP rows
 * for the SOURCE and TARGET currencies; the fxWatchList row of a PAYER_CONVERSION), with the state history the
 * later handlers write. A conversion past RESERVED also gets the reservation the position handler wrote: a
 * participantPositionChange naming its RESERVED fxTransferStateChange, on the initiator's source-currency
 * position, and that position raised by sourceAmount.
 */
export async function insertFxTransfers(
  knex: Knex,
  fxTransfers: readonly FxTransferSpec[],
  accounts: ReadonlyMap<string, ProvisionedAccount>,
): Promise<void> {
  const expiration = new Date(Date.now() + 24 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
  const account = (name: string, currency: string) => {
    const found = accounts.get(`${name}:${currency}`);
    if (!found) throw new Error(`no provisioned account for ${name} in ${currency}`);
    return found;
  };
  for (let start = 0; start < fxTransfers.length; start += CHUNK) {
    const chunk = fxTransfers.slice(start, start + CHUNK);
    await knex.transaction(async (trx) => {
      await trx('fxTransferDuplicateCheck').insert(
        chunk.map((t) => ({
          commitRequestId: t.commitRequestId,
          hash: createHash('sha256').update(t.commitRequestId).digest('base64'),
        })),
      );
      await trx('fxTransfer').insert(
        chunk.map((t) => ({
          commitRequestId: t.commitRequestId,
          determiningTransferId: t.determiningTransferId,
          sourceAmount: formatAmount(parseAmount(t.sourceAmount)),
          sourceCurrency: t.sourceCurrency,
          targetAmount: formatAmount(parseAmount(t.targetAmount)),
          targetCurrency: t.targetCurrency,
          ilpCondition: 'provisioned',
          expirationDate: expiration,
        })),
      );
      await trx('fxTransferParticipant').insert(
        chunk.flatMap((t) => {
          const fxpSource = account(t.fxp, t.sourceCurrency);
          const fxpTarget = account(t.fxp, t.targetCurrency);
          const common = { commitRequestId: t.commitRequestId, ledgerEntryTypeId: LedgerEntryType.PRINCIPLE_VALUE };
          return [
            {
              ...common,
              participantId: account(t.initiator, t.sourceCurrency).participantId,
              participantCurrencyId: null,
              transferParticipantRoleTypeId: TransferParticipantRoleType.INITIATING_FSP,
              amount: formatAmount(parseAmount(t.sourceAmount)),
            },
            {
              ...common,
              participantId: fxpSource.participantId,
              participantCurrencyId: fxpSource.position,
              transferParticipantRoleTypeId: TransferParticipantRoleType.COUNTER_PARTY_FSP,
              fxParticipantCurrencyTypeId: FxParticipantCurrencyType.SOURCE,
              amount: formatAmount(-parseAmount(t.sourceAmount)),
            },
            {
              ...common,
              participantId: fxpTarget.participantId,
              participantCurrencyId: fxpTarget.position,
              transferParticipantRoleTypeId: TransferParticipantRoleType.COUNTER_PARTY_FSP,
              fxParticipantCurrencyTypeId: FxParticipantCurrencyType.TARGET,
              amount: formatAmount(-parseAmount(t.targetAmount)),
            },
          ];
        }),
      );
      await trx('fxWatchList').insert(
        chunk.map((t) => ({
          commitRequestId: t.commitRequestId,
          determiningTransferId: t.determiningTransferId,
          fxTransferTypeId: FxTransferType.PAYER_CONVERSION,
        })),
      );
      await trx('fxTransferStateChange').insert(
        chunk.flatMap((t) =>
          fxHistories[t.state].map((transferStateId) => ({ commitRequestId: t.commitRequestId, transferStateId })),
        ),
      );
      const reserved = chunk.filter((t) => t.state !== 'RECEIVED_PREPARE');
      if (reserved.length === 0) return;
      const ids = await trx('fxTransferStateChange')
        .select('fxTransferStateChangeId', 'commitRequestId')
        .where({ transferStateId: TransferState.RESERVED })
        .whereIn(
          'commitRequestId',
          reserved.map((t) => t.commitRequestId),
        );
      const idOf = new Map(
        ids.map((r: { commitRequestId: string; fxTransferStateChangeId: number }) => [
          r.commitRequestId,
          r.fxTransferStateChangeId,
        ]),
      );
      for (const t of reserved) {
        const accountId = account(t.initiator, t.sourceCurrency).position;
        const position = await trx('participantPosition')
          .forUpdate()
          .first('participantPositionId', 'value', 'reservedValue')
          .where({ participantCurrencyId: accountId });
        const value = parseAmount(String(position.value)) + parseAmount(t.sourceAmount);
        await trx('participantPositionChange').insert({
          participantPositionId: position.participantPositionId,
          participantCurrencyId: accountId,
          fxTransferStateChangeId: idOf.get(t.commitRequestId),
          value: formatAmount(value),
          change: formatAmount(parseAmount(t.sourceAmount)),
          reservedValue: String(position.reservedValue),
        });
        await trx('participantPosition')
          .update({ value: formatAmount(value) })
          .where({ participantPositionId: position.participantPositionId });
      }
    });
  }
}
