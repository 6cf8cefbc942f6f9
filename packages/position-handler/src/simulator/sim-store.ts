import type { PositionRecord } from '../ledger/accounts.js';
import type { Amount } from '../ledger/amount.js';
import { type StateRecord, TransferState } from '../ledger/types.js';
import type { BatchStore, BatchTransaction, LockedFacts } from '../runner/unit-of-work.js';
import type { Prng } from './prng.js';
import type { Scheduler } from './scheduler.js';
import type { Workload } from './workload.js';

/** How often each await of a transaction fails, in one seed (0 when the seed leaves that fault out). */
export interface StoreFaults {
  /** A call fails before the database did anything (connection lost): the transaction is rolled back. */
  readonly callFails: number;
  /** The COMMIT went through but its reply is lost: the runner sees an error and retries (a replay). */
  readonly commitReplyLost: number;
}

interface Tx {
  readonly owner: number;
  /** Positions locked, in the order taken. */
  readonly held: string[];
  open: boolean;
}

interface Lock {
  holder: Tx | undefined;
  readonly waiting: { readonly tx: Tx; readonly grant: () => void }[];
}

/** Thrown by a simulated call that fails (a lost connection, a lost reply). */
export class SimulatedDbError extends Error {
  constructor(what: string) {
    super(`simulated database failure: ${what}`);
    this.name = 'SimulatedDbError';
  }
}

/**
 * central-ledger's tables as the handler uses them, in memory: positions with row locks (FOR UPDATE, waited for
 * in order), each transfer's and fxTransfer's state history, the payee amounts, the fxTransfers' reserved changes,
 * and the position changes. A transaction sees the
 * committed state (READ COMMITTED) and writes only at its COMMIT, all at once; every await of it is a scheduler
 * event that may fail, and a member's crash rolls back its transactions and releases their locks.
 */
export class SimStore {
  readonly positions = new Map<string, { id: string; value: Amount }>();
  readonly histories = new Map<string, StateRecord[]>();
  /** Each fxTransfer's fxTransferStateChange history, by commitRequestId. */
  readonly fxHistories = new Map<string, StateRecord[]>();
  /** commitRequestId → account → change of the position change of its RESERVED state. */
  readonly fxReserved = new Map<string, Map<string, Amount>>();
  readonly payeeAmounts = new Map<string, Amount>();
  /** Every participantPositionChange written: account, change, and the transfer (or fxTransfer) it is of. */
  readonly changes: {
    readonly account: string;
    readonly change: Amount;
    readonly transferId: string;
    readonly transferStateId: string;
  }[] = [];
  readonly #locks = new Map<string, Lock>();
  readonly #open = new Set<Tx>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly prng: Prng,
    private readonly workload: Workload,
    private readonly faults: () => StoreFaults,
  ) {
    for (const account of workload.accounts) {
      const id = account.participantCurrencyId;
      this.positions.set(id, { id: `9${id}`, value: workload.initialValue(id) });
    }
    for (const t of workload.transfers) {
      const prepared = [{ transferStateId: TransferState.RECEIVED_PREPARE, reason: null }];
      if (t.kind === 'fx') {
        this.fxHistories.set(t.id, prepared);
        if (t.dependent) this.histories.set(t.dependent.id, [...prepared]);
      } else {
        this.histories.set(t.id, prepared);
        this.payeeAmounts.set(t.id, -t.amount);
      }
    }
  }

  /**
   * What upstream writes outside the handler (the fulfil handler's RECEIVED_FULFIL, RECEIVED_ERROR, the timeout
   * handler's RESERVED_TIMEOUT), on a transfer or an fxTransfer.
   */
  record(transferId: string, transferStateId: string, reason: string | null = null): void {
    (this.histories.get(transferId) ?? this.fxHistories.get(transferId))?.push({ transferStateId, reason });
  }

  /** Open transactions and held locks, for a trace. */
  describe(): string {
    const locks = [...this.#locks]
      .filter(([, l]) => l.holder)
      .map(([a, l]) => `${a} held by ${l.holder?.owner} (${l.waiting.length} waiting)`);
    return `${this.#open.size} open; ${locks.join(', ') || 'no lock held'}`;
  }

  /** The port as one member's runner sees it. */
  forMember(owner: number): BatchStore {
    return { transaction: (work) => this.#transaction(owner, work) };
  }

  /** A member crashed: its transactions end without a COMMIT. */
  crash(owner: number): void {
    for (const tx of [...this.#open]) if (tx.owner === owner) this.#rollback(tx);
    for (const lock of this.#locks.values()) {
      const left = lock.waiting.filter((w) => w.tx.owner !== owner);
      lock.waiting.length = 0;
      lock.waiting.push(...left);
    }
  }

  async #transaction<T>(owner: number, work: (tx: BatchTransaction) => Promise<T>): Promise<T> {
    const tx: Tx = { owner, held: [], open: true };
    this.#open.add(tx);
    try {
      return await work({
        referenceData: (accountIds) =>
          this.#call(owner, () => {
            const owners = new Set(
              this.workload.accounts
                .filter((a) => accountIds.includes(a.participantCurrencyId))
                .map((a) => a.participantId),
            );
            return {
              accounts: this.workload.accounts.filter((a) => owners.has(a.participantId)),
              settlementModels: this.workload.settlementModels,
            };
          }),
        lockAndRead: async (reads) => {
          await this.#call(owner, () => undefined);
          for (const account of reads.accountIds) await this.#lock(tx, account);
          return this.#call(owner, () => this.#read(reads));
        },
        write: (plan) =>
          this.#call(owner, () => {
            if (!tx.open) throw new SimulatedDbError('transaction no longer open');
            for (const change of plan.stateChanges) {
              const histories = change.fx ? this.fxHistories : this.histories;
              histories
                .get(change.transferId)
                ?.push({ transferStateId: change.transferStateId, reason: change.reason });
            }
            for (const change of plan.positionChanges) {
              // A position change naming no state change is booked on no transfer: the replay's check finds it.
              const state = plan.stateChanges[change.stateChange];
              this.changes.push({
                account: change.participantCurrencyId,
                change: change.change,
                transferId: state?.transferId ?? 'none',
                transferStateId: state?.transferStateId ?? 'none',
              });
              if (state?.fx && state.transferStateId === TransferState.RESERVED) {
                const reserved = this.fxReserved.get(state.transferId) ?? new Map<string, Amount>();
                reserved.set(change.participantCurrencyId, change.change);
                this.fxReserved.set(state.transferId, reserved);
              }
            }
            for (const update of plan.positionUpdates) {
              const position = [...this.positions.values()].find((p) => p.id === update.participantPositionId);
              if (position) position.value = update.value;
            }
            this.#rollback(tx);
            if (this.prng.chance(this.faults().commitReplyLost)) throw new SimulatedDbError('COMMIT reply lost');
          }),
      });
    } finally {
      this.#rollback(tx);
    }
  }

  /** One round trip: the reply comes at a step the scheduler picks, or the call fails. */
  #call<T>(owner: number, answer: () => T): Promise<T> {
    return this.scheduler.reply(owner, () => {
      if (this.prng.chance(this.faults().callFails)) throw new SimulatedDbError('connection lost');
      return answer();
    });
  }

  #lock(tx: Tx, account: string): Promise<void> {
    let lock = this.#locks.get(account);
    if (!lock) {
      lock = { holder: undefined, waiting: [] };
      this.#locks.set(account, lock);
    }
    if (lock.holder === undefined) {
      lock.holder = tx;
      tx.held.push(account);
      return Promise.resolve();
    }
    if (lock.holder === tx) return Promise.resolve();
    const waiting = lock.waiting;
    return new Promise((resolve) => waiting.push({ tx, grant: resolve }));
  }

  /** Ends a transaction (committed or not): its locks go to the next waiters, in the order they asked. */
  #rollback(tx: Tx): void {
    if (!tx.open) return;
    tx.open = false;
    this.#open.delete(tx);
    for (const account of tx.held) {
      const lock = this.#locks.get(account);
      if (!lock) continue;
      lock.holder = undefined;
      const next = lock.waiting.shift();
      if (next) {
        lock.holder = next.tx;
        next.tx.held.push(account);
        this.scheduler.post(next.tx.owner, next.grant);
      }
    }
    tx.held.length = 0;
  }

  #read(reads: Parameters<BatchTransaction['lockAndRead']>[0]): LockedFacts {
    const positions = new Map<string, PositionRecord>();
    for (const id of reads.accountIds) {
      const position = this.positions.get(id);
      if (position) {
        positions.set(id, {
          participantCurrencyId: id,
          participantPositionId: position.id,
          value: position.value,
          reservedValue: 0n,
        });
      }
    }
    const histories = new Map<string, StateRecord[]>();
    // As the store reads them: the latest state alone (no reason) where the batch judges no more, so a rule
    // reading more of such a history shows up as a changed outcome.
    const latestOnly = new Set(reads.latestStateIds);
    for (const id of reads.transferIds) {
      const history = this.histories.get(id);
      const latest = history?.at(-1);
      if (latest && latestOnly.has(id)) histories.set(id, [{ transferStateId: latest.transferStateId, reason: null }]);
      else if (history) histories.set(id, [...history]);
    }
    const payeeAmounts = new Map<string, Amount>();
    for (const id of reads.payeeTransferIds) {
      const amount = this.payeeAmounts.get(id);
      if (amount !== undefined) payeeAmounts.set(id, amount);
    }
    const fxHistories = new Map<string, StateRecord[]>();
    for (const id of reads.fxTransferIds) {
      const history = this.fxHistories.get(id);
      if (history) fxHistories.set(id, [...history]);
    }
    const fxReservedChanges = new Map<string, ReadonlyMap<string, Amount>>();
    for (const id of reads.fxReservedIds) {
      const reserved = this.fxReserved.get(id);
      if (reserved) fxReservedChanges.set(id, new Map(reserved));
    }
    return { positions, histories, payeeAmounts, fxHistories, fxReservedChanges };
  }
}
