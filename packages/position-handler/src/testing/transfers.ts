import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { formatAmount, parseAmount } from '../ledger/amount.js';
import { TransferState } from '../ledger/types.js';
import {
  FxParticipantCurrencyType,
  FxTransferType,
  LedgerEntryType,
  TransferParticipantRoleType,
} from '../store/enums.js';
import type { ProvisionedAccount } from '../store/provision.js';

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

const histories: Record<ProvisionedState, readonly string[]> = {
  RECEIVED_PREPARE: [TransferState.RECEIVED_PREPARE],
  RECEIVED_FULFIL: [TransferState.RECEIVED_PREPARE, TransferState.RESERVED, TransferState.RECEIVED_FULFIL],
  RECEIVED_ERROR: [TransferState.RECEIVED_PREPARE, TransferState.RESERVED, TransferState.RECEIVED_ERROR],
  RESERVED_TIMEOUT: [TransferState.RECEIVED_PREPARE, TransferState.RESERVED, TransferState.RESERVED_TIMEOUT],
};

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

/** Rows per INSERT of the state-history helpers below. */
const STATE_CHUNK = 5000;

/**
 * Appends `transferStateId` to the history of each transfer: what an upstream handler writes before it hands
 * a transfer to the position handler (central-ledger's fulfil handler: RECEIVED_FULFIL before a commit,
 * RECEIVED_ERROR before an abort).
 */
export async function recordTransferStates(
  knex: Knex,
  transferIds: readonly string[],
  transferStateId: string,
): Promise<void> {
  for (let i = 0; i < transferIds.length; i += STATE_CHUNK) {
    await knex('transferStateChange').insert(
      transferIds.slice(i, i + STATE_CHUNK).map((transferId) => ({ transferId, transferStateId })),
    );
  }
}

/** The same for fxTransfers (the FX fulfil handler leaves a conversion RECEIVED_FULFIL_DEPENDENT). */
export async function recordFxTransferStates(
  knex: Knex,
  commitRequestIds: readonly string[],
  transferStateId: string,
): Promise<void> {
  for (let i = 0; i < commitRequestIds.length; i += STATE_CHUNK) {
    await knex('fxTransferStateChange').insert(
      commitRequestIds.slice(i, i + STATE_CHUNK).map((commitRequestId) => ({ commitRequestId, transferStateId })),
    );
  }
}

/**
 * Transfers inserted in RECEIVED_PREPARE as a position handler would leave them after their prepares: RESERVED,
 * and each payer's position set to the sum of its transfers' amounts (the payers' positions start at 0).
 */
export async function reserveTransfers(
  knex: Knex,
  transfers: readonly { transferId: string; payer: string; currency: string; amount: string }[],
  accounts: ReadonlyMap<string, ProvisionedAccount>,
): Promise<void> {
  await recordTransferStates(
    knex,
    transfers.map((t) => t.transferId),
    TransferState.RESERVED,
  );
  const totals = new Map<number, bigint>();
  for (const t of transfers) {
    const account = accounts.get(`${t.payer}:${t.currency}`);
    if (!account) throw new Error(`no provisioned account for ${t.payer} in ${t.currency}`);
    totals.set(account.position, (totals.get(account.position) ?? 0n) + parseAmount(t.amount));
  }
  for (const [participantCurrencyId, total] of totals) {
    await knex('participantPosition')
      .where({ participantCurrencyId })
      .update({ value: formatAmount(total) });
  }
}
