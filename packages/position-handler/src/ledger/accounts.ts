import type { Amount } from './amount.js';
import { type AccountFacts, type LedgerCommand, NO_POSITION_ACCOUNT, type PositionAction } from './types.js';

/** One participantCurrency row with its active NET_DEBIT_CAP, as reference data (read, then cached). */
export interface AccountRecord {
  readonly participantCurrencyId: string;
  readonly participantId: string;
  readonly currencyId: string;
  readonly ledgerAccountTypeId: number;
  /** undefined when the account has no active NET_DEBIT_CAP limit. */
  readonly netDebitCap: Amount | undefined;
}

/** An active settlementModel row. */
export interface SettlementModelRecord {
  /** null: the model applies to every currency without a model of its own. */
  readonly currencyId: string | null;
  readonly ledgerAccountTypeId: number;
  readonly settlementAccountTypeId: number;
  readonly requireLiquidityCheck: boolean;
}

/** A participantPosition row, read under lock in the batch's transaction. */
export interface PositionRecord {
  readonly participantCurrencyId: string;
  readonly participantPositionId: string;
  readonly value: Amount;
  readonly reservedValue: Amount;
}

export interface SettlementChoice {
  readonly model: SettlementModelRecord | undefined;
  /** The participant's settlement account for the model; undefined when it has none. */
  readonly accountId: string | undefined;
}

/**
 * What a batch must read before it can be planned: the position accounts its messages name (sorted, the order
 * the locks are taken in), those whose prepares need the liquidity check, and the transfers and fxTransfers.
 */
export interface BatchReads {
  readonly accountIds: readonly string[];
  readonly prepareAccountIds: ReadonlySet<string>;
  /** The transfers of plain messages and of cyrilResult transfer steps. */
  readonly transferIds: readonly string[];
  /** Transfers whose payee amount a message needs (commit, reserve, the aborts and timeout without steps). */
  readonly payeeTransferIds: readonly string[];
  /**
   * The transfers of transferIds that every message of the batch judges by their latest state alone
   * (LATEST_STATE_ONLY): for them the history's last entry is as good as the whole history, and cheaper to read.
   */
  readonly latestStateIds: readonly string[];
  /** The fxTransfers of fx- messages and of cyrilResult fxTransfer steps. */
  readonly fxTransferIds: readonly string[];
  /** fxTransfers whose reservation fx-timeout-reserved releases. */
  readonly fxReservedIds: readonly string[];
}

/**
 * The actions that, without cyrilResult steps, judge their transfer by its latest state's id alone (and whether it
 * has a history at all): never an earlier state (a prepare looks for RESERVED anywhere, a reject at the state
 * before the latest) nor a reason (bulk-abort and reject keep the latest state's). ./actions/ says which reads what.
 */
const LATEST_STATE_ONLY: ReadonlySet<PositionAction> = new Set<PositionAction>([
  'commit',
  'reserve',
  'bulk-commit',
  'abort',
  'abort-validation',
  'timeout-reserved',
  'bulk-timeout-reserved',
]);

export function readsFor(commands: readonly LedgerCommand[]): BatchReads {
  const accountIds = new Set<string>();
  const prepareAccountIds = new Set<string>();
  const transferIds = new Set<string>();
  const payeeTransferIds = new Set<string>();
  const fxTransferIds = new Set<string>();
  const fxReservedIds = new Set<string>();
  // Transfers some message of the batch judges by more than their latest state (or names in a cyrilResult step).
  const wholeHistory = new Set<string>();
  for (const c of commands) {
    if (c.accountId !== NO_POSITION_ACCOUNT) accountIds.add(c.accountId);
    const fx = c.action.startsWith('fx-');
    (fx ? fxTransferIds : transferIds).add(c.transferId);
    if (c.action === 'prepare' || c.action === 'bulk-prepare' || c.action === 'fx-prepare')
      prepareAccountIds.add(c.accountId);
    else if (c.action === 'fx-timeout-reserved') fxReservedIds.add(c.transferId);
    else if (!fx && !c.cyril) payeeTransferIds.add(c.transferId);
    if (c.cyril) (c.cyril.step.fx ? fxTransferIds : transferIds).add(c.cyril.step.id);
    if (c.cyril || !LATEST_STATE_ONLY.has(c.action)) {
      wholeHistory.add(c.transferId);
      if (c.cyril) wholeHistory.add(c.cyril.step.id);
    }
  }
  return {
    accountIds: [...accountIds].sort((a, b) => Number(a) - Number(b)),
    prepareAccountIds,
    transferIds: [...transferIds],
    payeeTransferIds: [...payeeTransferIds],
    latestStateIds: [...transferIds].filter((id) => !wholeHistory.has(id)),
    fxTransferIds: [...fxTransferIds],
    fxReservedIds: [...fxReservedIds],
  };
}

/**
 * The settlement account of each prepare account: the settlement model of the account's currency on its
 * ledger account type, else the model with no currency (central-ledger binProcessor _constructRequiredMaps);
 * then the participant's account in that currency of the model's settlementAccountTypeId.
 */
export function resolveSettlementAccounts(
  accounts: readonly AccountRecord[],
  models: readonly SettlementModelRecord[],
  prepareAccountIds: ReadonlySet<string>,
): Map<string, SettlementChoice> {
  const choices = new Map<string, SettlementChoice>();
  for (const account of accounts) {
    const id = account.participantCurrencyId;
    if (!prepareAccountIds.has(id)) continue;
    const type = account.ledgerAccountTypeId;
    const model =
      models.find((m) => m.currencyId === account.currencyId && m.ledgerAccountTypeId === type) ??
      models.find((m) => m.currencyId === null && m.ledgerAccountTypeId === type);
    const settlement = model
      ? accounts.find(
          (r) =>
            r.participantId === account.participantId &&
            r.currencyId === account.currencyId &&
            r.ledgerAccountTypeId === model.settlementAccountTypeId,
        )
      : undefined;
    choices.set(id, { model, accountId: settlement?.participantCurrencyId });
  }
  return choices;
}

/** The positions to lock: the batch's accounts and the settlement accounts their prepares are checked against. */
export function accountsToLock(reads: BatchReads, settlement: ReadonlyMap<string, SettlementChoice>): string[] {
  const ids = new Set(reads.accountIds);
  for (const choice of settlement.values()) if (choice.accountId) ids.add(choice.accountId);
  return [...ids].sort((a, b) => Number(a) - Number(b));
}

/**
 * The planner's view of each account the batch names: its locked position, NET_DEBIT_CAP and, for prepare
 * accounts, the liquidity cover = -(settlement account value), or why it cannot be checked (no settlement model,
 * no settlement account). A model that does not require the liquidity check leaves the cover null.
 * An account without a participantCurrency row or a position is left out (the planner answers ACCOUNT_NOT_FOUND).
 */
export function accountFactsOf(
  reads: BatchReads,
  accounts: readonly AccountRecord[],
  settlement: ReadonlyMap<string, SettlementChoice>,
  positions: ReadonlyMap<string, PositionRecord>,
): Map<string, AccountFacts> {
  const byId = new Map(accounts.map((a) => [a.participantCurrencyId, a]));
  const facts = new Map<string, AccountFacts>();
  for (const id of reads.accountIds) {
    const account = byId.get(id);
    const position = positions.get(id);
    if (!account || !position) continue;
    let liquidityCover: Amount | null = null;
    let prepareProblem: string | undefined;
    if (reads.prepareAccountIds.has(id)) {
      const choice = settlement.get(id);
      const settlementPosition = choice?.accountId ? positions.get(choice.accountId) : undefined;
      if (!choice?.model) prepareProblem = `no settlement model for currency ${account.currencyId}`;
      else if (choice.model.requireLiquidityCheck) {
        if (!settlementPosition) prepareProblem = `no settlement account position for account ${id}`;
        else liquidityCover = -settlementPosition.value;
      }
    }
    facts.set(id, {
      participantCurrencyId: id,
      participantPositionId: position.participantPositionId,
      value: position.value,
      reservedValue: position.reservedValue,
      netDebitCap: account.netDebitCap,
      liquidityCover,
      ...(prepareProblem === undefined ? {} : { prepareProblem }),
    });
  }
  return facts;
}
