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
 * in order), each transfer's state history, the payee amounts, and the position changes. A transaction sees the
 * committed state (READ COMMITTED) and writes only at its COMMIT, all at once; every await of it is a scheduler
 * event that may fail, and a member's crash rolls back its transactions and releases their locks.
 */
export class SimStore {
  readonly positions = new Map<string, { id: string; value: Amount }>();
  readonly histories = new Map<string, StateRecord[]>();
  readonly payeeAmounts = new Map<string, Amount>();
  /** Every participantPositionChange written: account and change. */
  readonly changes: { readonly account: string; readonly change: Amount }[] = [];
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
      this.histories.set(t.id, [{ transferStateId: TransferState.RECEIVED_PREPARE, reason: null }]);
      this.payeeAmounts.set(t.id, -t.amount);
    }
  }

  /** What upstream writes outside the handler (the fulfil handler's RECEIVED_FULFIL, RECEIVED_ERROR). */
  record(transferId: string, transferStateId: string, reason: string | null = null): void {
    this.histories.get(transferId)?.push({ transferStateId, reason });
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
            for (const change of plan.stateChanges)
              this.record(change.transferId, change.transferStateId, change.reason);
            for (const change of plan.positionChanges) {
              this.changes.push({ account: change.participantCurrencyId, change: change.change });
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
    for (const id of reads.transferIds) {
      const history = this.histories.get(id);
      if (history) histories.set(id, [...history]);
    }
    const payeeAmounts = new Map<string, Amount>();
    for (const id of reads.payeeTransferIds) {
      const amount = this.payeeAmounts.get(id);
      if (amount !== undefined) payeeAmounts.set(id, amount);
    }
    return { positions, histories, payeeAmounts, fxHistories: new Map(), fxReservedChanges: new Map() };
  }
}
