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

/** One account's position, kept here: the floor is the only writer of its database. */
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

/**
 * The database floor of bench:position --floor: the handler's Kafka layer (its PositionRunner, as the passthrough)
 * writing exactly the rows central-ledger's schema needs for prepares and commits, with the fewest statements,
 * and no rules and no reads: per batch one round trip of START TRANSACTION, one multi-row INSERT of the state
 * changes, one of the position changes (naming their state change as LAST_INSERT_ID() + its index), one UPDATE
 * of each account's position, COMMIT; the SQL text is the handler's own (PositionStore's builders), so what the
 * handler costs beyond this is its read (locks, histories, payee amounts) and its rules. Positions are read
 * once at the start and kept; a commit's amount is its prepare's, remembered (so a run replays the prepares
 * first: --actions prepare,commit).
 */
export class DbFloor {
  readonly #runner: PositionRunner;
  readonly #positions = new Map<string, Position>();
  /** transferId → amount, from its prepare (a commit message carries none: central-ledger reads it). */
  readonly #amounts = new Map<string, Amount>();
  readonly #sql: PositionStore;
  applied = 0;

  constructor(
    readonly pool: Pool,
    bus: PositionBus,
    options: { batchSize: number; hubName: string; logger: Logger },
  ) {
    this.#sql = new PositionStore(pool, true);
    this.#runner = new PositionRunner(bus, this.#store(), createMetrics(new Registry()), options.logger, {
      batchSize: options.batchSize,
      hubName: options.hubName,
      retryInitialMs: 100,
      retryMaxMs: 5_000,
      plan: (input) => this.#plan(input),
    });
  }

  /** Reads every position once; refuses a server whose multi-row INSERT ids may not be consecutive. */
  async load(): Promise<void> {
    const [mode] = (await query(this.pool, {
      sql: 'SELECT @@innodb_autoinc_lock_mode AS mode, @@auto_increment_increment AS increment',
      values: [],
    })) as { mode: number; increment: number }[];
    if (!mode || Number(mode.mode) === 2 || Number(mode.increment) !== 1)
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
  }

  start(): Promise<void> {
    return this.#runner.start();
  }

  stop(): Promise<void> {
    return this.#runner.stop();
  }

  /** Every prepare reserves on its key's account, every commit moves its prepare's amount off the payee's. */
  #plan(input: PlanInput): PlanResult {
    const stateChanges: StateChangePlan[] = [];
    const positionChanges: PositionChangePlan[] = [];
    const touched = new Map<string, Position>();
    const outcomes = input.commands.map((c) => {
      const position = this.#positions.get(c.accountId);
      let change: Amount | undefined;
      let state: string;
      if (c.action === 'prepare' && c.amount !== undefined) {
        change = c.amount;
        state = TransferState.RESERVED;
        this.#amounts.set(c.transferId, c.amount);
      } else if (c.action === 'commit') {
        const amount = this.#amounts.get(c.transferId);
        change = amount === undefined ? undefined : -amount;
        state = TransferState.COMMITTED;
      } else {
        return { seq: c.seq, result: 'failed' as const, error: { name: 'UNSUPPORTED_ACTION' as const } };
      }
      if (!position || change === undefined)
        return { seq: c.seq, result: 'failed' as const, error: { name: 'ACCOUNT_NOT_FOUND' as const } };
      position.value += change;
      touched.set(c.accountId, position);
      stateChanges.push({ transferId: c.transferId, transferStateId: state, reason: null });
      positionChanges.push({
        stateChange: stateChanges.length - 1,
        participantCurrencyId: c.accountId,
        participantPositionId: position.participantPositionId,
        value: position.value,
        change,
        reservedValue: position.reservedValue,
      });
      this.applied++;
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

  #store(): BatchStore {
    const pool = this.pool;
    const sql = this.#sql;
    const positions = this.#positions;
    return {
      async transaction<T>(work: (tx: BatchTransaction) => Promise<T>): Promise<T> {
        const connection = await new Promise<PoolConnection>((resolve, reject) =>
          pool.getConnection((error, c) => (error ? reject(error) : resolve(c))),
        );
        try {
          return await work({
            // Nothing is read: the runner's checks of the plan (each position change follows the position as it
            // was before the batch) get the floor's own positions, copied before its plan moves them.
            referenceData: async (accountIds) => ({
              accounts: accountIds.map((id) => ({
                participantCurrencyId: id,
                participantId: id,
                currencyId: '',
                ledgerAccountTypeId: 0,
                netDebitCap: undefined,
              })),
              settlementModels: [],
            }),
            lockAndRead: async (reads) => ({
              positions: new Map(
                reads.accountIds.flatMap((id) => {
                  const p = positions.get(id);
                  return p ? [[id, { participantCurrencyId: id, ...p }] as const] : [];
                }),
              ),
              histories: new Map(),
              payeeAmounts: new Map(),
              fxHistories: new Map(),
              fxReservedChanges: new Map(),
            }),
            write: async (plan) => {
              if (plan.stateChanges.length === 0) return;
              const statements = [
                { sql: 'START TRANSACTION', values: [] },
                sql.stateChangesSql(plan.stateChanges),
                sql.positionChangesSql(
                  plan.positionChanges,
                  () => false,
                  (i) => ({ sql: `LAST_INSERT_ID() + ${i}`, values: [] }),
                ),
                sql.positionUpdatesSql(plan.positionUpdates),
                { sql: 'COMMIT', values: [] },
              ];
              await query(connection, {
                sql: statements.map((s) => s.sql).join(';\n'),
                values: statements.flatMap((s) => s.values),
              });
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
}
