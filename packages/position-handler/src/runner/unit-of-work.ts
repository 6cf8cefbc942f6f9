import {
  type AccountRecord,
  accountFactsOf,
  accountsToLock,
  type PositionRecord,
  readsFor,
  resolveSettlementAccounts,
  type SettlementModelRecord,
} from '../ledger/accounts.js';
import type { Amount } from '../ledger/amount.js';
import { planBatch } from '../ledger/plan.js';
import type {
  FxTransferFacts,
  LedgerCommand,
  PlanInput,
  PlanResult,
  StateRecord,
  TransferFacts,
} from '../ledger/types.js';
import { checkPlan } from './plan-invariants.js';

/** What one batch's transaction reads under its locks. */
export interface LockedFacts {
  readonly positions: ReadonlyMap<string, PositionRecord>;
  /**
   * Every transferStateChange of each transfer, oldest first; for the transfers of LockReads.latestStateIds it
   * may be the latest one alone, its reason not read (null): the messages judging them read neither.
   */
  readonly histories: ReadonlyMap<string, readonly StateRecord[]>;
  /** transferParticipant.amount of the PAYEE_DFSP PRINCIPLE_VALUE row. */
  readonly payeeAmounts: ReadonlyMap<string, Amount>;
  /** Every fxTransferStateChange of each fxTransfer, oldest first. */
  readonly fxHistories: ReadonlyMap<string, readonly StateRecord[]>;
  /** commitRequestId → participantCurrencyId → change of the position change of its RESERVED state. */
  readonly fxReservedChanges: ReadonlyMap<string, ReadonlyMap<string, Amount>>;
}

/** What to lock and read in one statement: the ledger's BatchReads with the settlement accounts added. */
export interface LockReads {
  readonly accountIds: readonly string[];
  readonly transferIds: readonly string[];
  readonly payeeTransferIds: readonly string[];
  readonly latestStateIds: readonly string[];
  readonly fxTransferIds: readonly string[];
  readonly fxReservedIds: readonly string[];
}

/** One batch's transaction as the runner drives it: the store only locks, reads and writes. */
export interface BatchTransaction {
  /** Accounts (with NET_DEBIT_CAP) of the participants owning `accountIds`; settlement models when asked. */
  referenceData(
    accountIds: readonly string[],
    withSettlementModels: boolean,
  ): Promise<{ accounts: readonly AccountRecord[]; settlementModels: readonly SettlementModelRecord[] }>;
  /** Starts the transaction, locks the accounts' positions (in that order) and reads the transfers' facts. */
  lockAndRead(reads: LockReads): Promise<LockedFacts>;
  /** Writes the plan's rows and commits. */
  write(plan: PlanResult): Promise<void>;
}

/** What the runner needs from the store: a transaction on one connection, rolled back if `work` throws. */
export interface BatchStore {
  transaction<T>(work: (tx: BatchTransaction) => Promise<T>): Promise<T>;
}

/** Milliseconds one batch's transaction spent reading and locking, planning (src/ledger), and writing. */
export interface StageTimings {
  lock: number;
  plan: number;
  write: number;
}

export type Planner = (input: PlanInput) => PlanResult;

/**
 * One batch, one transaction: read the reference data → lock and read → plan (pure, src/ledger) → check the
 * plan's invariants (plan-invariants.ts) → write.
 * Every rule (which accounts to lock, settlement accounts, liquidity cover, state checks) is the ledger's.
 */
export async function planAndWriteBatch(
  store: BatchStore,
  commands: readonly LedgerCommand[],
  timings: StageTimings = { lock: 0, plan: 0, write: 0 },
  plan: Planner = planBatch,
): Promise<PlanResult> {
  return store.transaction(async (tx) => {
    let started = performance.now();
    const reads = readsFor(commands);
    const reference =
      reads.accountIds.length > 0
        ? await tx.referenceData(reads.accountIds, reads.prepareAccountIds.size > 0)
        : { accounts: [], settlementModels: [] };
    const settlement = resolveSettlementAccounts(
      reference.accounts,
      reference.settlementModels,
      reads.prepareAccountIds,
    );
    const facts = await tx.lockAndRead({ ...reads, accountIds: accountsToLock(reads, settlement) });
    timings.lock += performance.now() - started;

    started = performance.now();
    const transfers = new Map<string, TransferFacts>();
    for (const id of reads.transferIds) {
      transfers.set(id, { history: facts.histories.get(id) ?? [], payeeAmount: facts.payeeAmounts.get(id) });
    }
    const fxTransfers = new Map<string, FxTransferFacts>();
    for (const id of reads.fxTransferIds) {
      fxTransfers.set(id, {
        history: facts.fxHistories.get(id) ?? [],
        reservedChanges: facts.fxReservedChanges.get(id) ?? new Map(),
      });
    }
    const accounts = accountFactsOf(reads, reference.accounts, settlement, facts.positions);
    const input = { commands, accounts, transfers, fxTransfers };
    const result = plan(input);
    // Money that does not add up is never written: the transaction rolls back (InvariantViolation).
    checkPlan(input, result);
    timings.plan += performance.now() - started;

    started = performance.now();
    await tx.write(result);
    timings.write += performance.now() - started;
    return result;
  });
}
