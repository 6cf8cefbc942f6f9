import {
  type Amount,
  type BatchStore,
  type BatchTransaction,
  createMetrics,
  type Logger,
  type PlanInput,
  type PlanResult,
  type PositionBus,
  type PositionChangePlan,
  PositionRunner,
  PositionStore,
  parseAmount,
  type StateChangePlan,
  TransferState,
} from '@mojafast/position-handler';
import type { Pool, PoolConnection } from 'mysql2';
import { Registry } from 'prom-client';
import { floorFactsOf, floorReadsSql } from './db-floor-reads.js';

/** One account's position, as the floor last wrote it (no reads) or as the batch read it (reads). */
interface Position {
  readonly participantPositionId: string;
  value: Amount;
  readonly reservedValue: Amount;
}

type Sql = { sql: string; values: unknown[] };

function query(connection: Pool | PoolConnection, statement: Sql): Promise<unknown> {
  return new Promise((resolve, reject) =>
    connection.query(statement.sql, statement.values, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

type ReferenceRecords = Awaited<ReturnType<BatchTransaction['referenceData']>>;

/**
 * The database floors of bench:position --floor: the writes of exactly the rows central-ledger's schema needs
 * for prepares and commits, with the fewest statements and no rules; the SQL text is the handler's own
 * (PositionStore's builders). Two readings:
 * - no reads: one round trip per batch of START TRANSACTION, one multi-row INSERT of the state changes, one of
 *   the position changes (naming their state change as LAST_INSERT_ID() + its index), one UPDATE of each
 *   account's position, COMMIT. Positions are read once at the start and kept, a commit's amount is its
 *   prepare's, remembered (so a run replays the prepares first: --actions prepare,commit). No correct handler
 *   can do this: a commit message carries no amount and a redelivery must be recognised.
 * - reads: first, in one round trip, START TRANSACTION and the fewest reads the schema forces
 *   (db-floor-reads.ts: the positions locked, a commit's payee amount and its transfer's latest state, a
 *   prepare's state), then the same writes; positions and amounts come from what was read.
 * What the handler costs beyond the second is its own: its reads beyond the fewest, its checks and its rules.
 * Accounts, limits and settlement models are read once at the start, as the handler keeps them for
 * POSITION_REFERENCE_TTL_MS, so the runner locks the same accounts (settlement accounts too) as the handler's.
 */
export class FloorLedger {
  /** participantCurrencyId → position (the no-read floor's own copy; the only writer of its database). */
  readonly #positions = new Map<string, Position>();
  /** transferId → amount, from its prepare (the no-read floor: a commit message carries none). */
  readonly #amounts = new Map<string, Amount>();
  /** The handler's store: its SQL builders, with central-ledger's index hints once load() has opened it. */
  #sql: PositionStore;
  #reference: ReferenceRecords = { accounts: [], settlementModels: [] };
  applied = 0;

  constructor(
    readonly pool: Pool,
    readonly reads: boolean,
  ) {
    this.#sql = new PositionStore(pool, true);
  }

  /** Reads every position and account once; refuses a server whose multi-row INSERT ids may not be consecutive. */
  async load(): Promise<void> {
    // The handler's own opening: its AUTO_INCREMENT check and central-ledger's index hints (the prepares' history
    // read is the handler's statement: without its hint, at 1,000 ids MariaDB scans the table).
    this.#sql = await PositionStore.open(this.pool);
    if (!this.#sql.consecutiveIds)
      throw new Error('the database floor needs consecutive AUTO_INCREMENT ids (innodb_autoinc_lock_mode < 2)');
    const rows = (await query(this.pool, {
      sql: 'SELECT participantCurrencyId AS k, participantPositionId AS id, value, reservedValue FROM participantPosition',
      values: [],
    })) as { k: number | string; id: number | string; value: string; reservedValue: string }[];
    for (const r of rows)
      this.#positions.set(String(r.k), {
        participantPositionId: String(r.id),
        value: parseAmount(r.value),
        reservedValue: parseAmount(r.reservedValue),
      });
    // The handler's own reference-data read (outside any transaction: it takes no lock).
    this.#reference = await this.#sql.transaction((tx) =>
      tx.referenceData(rows.length > 0 ? rows.map((r) => String(r.k)) : ['0'], true),
    );
  }

  /**
   * Every prepare reserves its amount on its key's account, every commit moves the payee amount (read) or its
   * prepare's amount (no reads) off the payee's, starting from the positions the batch was given.
   */
  plan(input: PlanInput): PlanResult {
    const stateChanges: StateChangePlan[] = [];
    const positionChanges: PositionChangePlan[] = [];
    const touched = new Map<string, Position>();
    const outcomes = input.commands.map((c) => {
      let change: Amount | undefined;
      let state: string;
      if (c.action === 'prepare' && c.amount !== undefined) {
        change = c.amount;
        state = TransferState.RESERVED;
        if (!this.reads) this.#amounts.set(c.transferId, c.amount);
      } else if (c.action === 'commit') {
        const amount = this.#amounts.get(c.transferId);
        change = this.reads
          ? input.transfers.get(c.transferId)?.payeeAmount
          : amount === undefined
            ? undefined
            : -amount;
        state = TransferState.COMMITTED;
      } else {
        return { seq: c.seq, result: 'failed' as const, error: { name: 'UNSUPPORTED_ACTION' as const } };
      }
      const account = input.accounts.get(c.accountId);
      let position = touched.get(c.accountId);
      if (!position && account) {
        position = {
          participantPositionId: account.participantPositionId,
          value: account.value,
          reservedValue: account.reservedValue,
        };
        touched.set(c.accountId, position);
      }
      if (!position || change === undefined)
        return { seq: c.seq, result: 'failed' as const, error: { name: 'ACCOUNT_NOT_FOUND' as const } };
      position.value += change;
      stateChanges.push({ transferId: c.transferId, transferStateId: state, reason: null });
      positionChanges.push({
        stateChange: stateChanges.length - 1,
        participantCurrencyId: c.accountId,
        participantPositionId: position.participantPositionId,
        value: position.value,
        change,
        reservedValue: position.reservedValue,
      });
      return { seq: c.seq, result: 'applied' as const };
    });
    return {
      stateChanges,
      positionChanges,
      positionUpdates: [...touched.values()].map((p) => ({
        participantPositionId: p.participantPositionId,
        value: p.value,
      })),
      outcomes,
    };
  }

  /** The reads floor's one round trip of reads for a batch (db-floor-reads.ts), with the hints load() found. */
  readsSql(reads: Parameters<typeof floorReadsSql>[1]) {
    return floorReadsSql(this.#sql, reads);
  }

  /** The batch store the runner drives: the reference data kept, the reads (or the kept positions), the writes. */
  store(): BatchStore {
    const floor = this;
    return {
      async transaction<T>(work: (tx: BatchTransaction) => Promise<T>): Promise<T> {
        const connection = await new Promise<PoolConnection>((resolve, reject) =>
          floor.pool.getConnection((error, c) => (error ? reject(error) : resolve(c))),
        );
        try {
          return await work({
            referenceData: async () => floor.#reference,
            lockAndRead: async (reads) => {
              if (!floor.reads) return floor.#kept(reads.accountIds);
              const payee = new Set(reads.payeeTransferIds);
              const read = floor.readsSql({
                accountIds: reads.accountIds,
                prepareIds: reads.transferIds.filter((id) => !payee.has(id)),
                commitIds: reads.payeeTransferIds,
              });
              const facts = floorFactsOf(read.kinds, (await query(connection, read)) as unknown[]);
              return {
                positions: new Map(
                  [...facts.positions].map(([id, p]) => [id, { participantCurrencyId: id, ...p }] as const),
                ),
                // The latest state stands for the history: the floor judges none of it.
                histories: new Map(
                  [...facts.latestStates].map(([id, s]) => [id, [{ transferStateId: s, reason: null }]]),
                ),
                payeeAmounts: facts.payeeAmounts,
                fxHistories: new Map(),
                fxReservedChanges: new Map(),
              };
            },
            write: async (plan) => {
              if (plan.stateChanges.length === 0) {
                if (floor.reads) await query(connection, { sql: 'COMMIT', values: [] });
                return;
              }
              const statements = [
                ...(floor.reads ? [] : [{ sql: 'START TRANSACTION', values: [] }]),
                floor.#sql.stateChangesSql(plan.stateChanges),
                floor.#sql.positionChangesSql(
                  plan.positionChanges,
                  () => false,
                  (i) => ({ sql: `LAST_INSERT_ID() + ${i}`, values: [] }),
                ),
                floor.#sql.positionUpdatesSql(plan.positionUpdates),
                { sql: 'COMMIT', values: [] },
              ];
              await query(connection, {
                sql: statements.map((s) => s.sql).join(';\n'),
                values: statements.flatMap((s) => s.values),
              });
              floor.#wrote(plan);
            },
          });
        } catch (error) {
          await query(connection, { sql: 'ROLLBACK', values: [] }).catch(() => {});
          throw error;
        } finally {
          connection.release();
        }
      },
    };
  }

  /** The no-read floor's positions, copied: its plan must not move them before the write commits. */
  #kept(accountIds: readonly string[]) {
    return {
      positions: new Map(
        accountIds.flatMap((id) => {
          const p = this.#positions.get(id);
          return p ? [[id, { participantCurrencyId: id, ...p }] as const] : [];
        }),
      ),
      histories: new Map(),
      payeeAmounts: new Map(),
      fxHistories: new Map(),
      fxReservedChanges: new Map(),
    };
  }

  /** After a commit: what was applied, and the no-read floor's copy of the positions moved as written. */
  #wrote(plan: PlanResult): void {
    this.applied += plan.outcomes.filter((o) => o.result === 'applied').length;
    for (const c of plan.positionChanges) {
      const p = this.#positions.get(c.participantCurrencyId);
      if (p) p.value = c.value;
    }
  }
}

/** A floor in the handler's Kafka layer: its PositionRunner (as the passthrough) around a FloorLedger. */
export class DbFloor {
  readonly #runner: PositionRunner;

  constructor(
    readonly ledger: FloorLedger,
    bus: PositionBus,
    options: { batchSize: number; hubName: string; logger: Logger },
  ) {
    this.#runner = new PositionRunner(bus, ledger.store(), createMetrics(new Registry()), options.logger, {
      batchSize: options.batchSize,
      hubName: options.hubName,
      retryInitialMs: 100,
      retryMaxMs: 5_000,
      plan: (input) => ledger.plan(input),
    });
  }

  start(): Promise<void> {
    return this.#runner.start();
  }

  stop(): Promise<void> {
    return this.#runner.stop();
  }
}
