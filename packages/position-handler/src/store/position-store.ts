import type { Pool, PoolConnection } from 'mysql2';
import type { AccountRecord, PositionRecord, SettlementModelRecord } from '../ledger/accounts.js';
import { type Amount, formatAmount, parseAmount } from '../ledger/amount.js';
import type {
  PlanResult,
  PositionChangePlan,
  PositionUpdatePlan,
  StateChangePlan,
  StateRecord,
} from '../ledger/types.js';
import { InvariantViolation } from '../runner/plan-invariants.js';
import type { BatchTransaction, LockedFacts, LockReads } from '../runner/unit-of-work.js';
import { LedgerEntryType, ParticipantLimitType, TransferParticipantRoleType } from './enums.js';
import { type AccountRow, ReferenceData, type SettlementModelRow } from './reference-data.js';

/** A connection of the store's mysql2 pool (store/db.ts createStorePool). */
type Connection = PoolConnection;

/** A statement and its values, `?` placeholders escaped by mysql2 (sqlstring rules). */
interface Sql {
  readonly sql: string;
  readonly values: unknown[];
}

/** One COM_QUERY on a connection, or on any connection of the pool; answers mysql2's result (rows, or one per statement). */
function query(connection: Connection | Pool, statement: Sql): Promise<unknown> {
  return new Promise((resolve, reject) =>
    connection.query(statement.sql, statement.values, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

function acquire(pool: Pool): Promise<Connection> {
  return new Promise((resolve, reject) =>
    pool.getConnection((error, connection) => (error ? reject(error) : resolve(connection))),
  );
}

/** Several statements in one COM_QUERY (the connection allows multiple statements; see createStorePool). */
function joined(...statements: Sql[]): Sql {
  return { sql: statements.map((s) => s.sql).join(';\n'), values: statements.flatMap((s) => s.values) };
}

function placeholders(rows: number, columns: number): string {
  const row = `(${new Array(columns).fill('?').join(',')})`;
  return new Array(rows).fill(row).join(',');
}

function list(length: number): string {
  return new Array(length).fill('?').join(',');
}

/**
 * Fails the statement list here (and so leaves the COMMIT after it unsent) unless the statement before it
 * matched `rows` rows: a scalar subquery of two rows is MariaDB's and MySQL's error 1242, evaluated only when the
 * count differs. No extra round trip: it travels with the writes. A SET, not a SELECT: no result set to send and
 * parse (DO would do neither either, but MariaDB's DO turns the error into a warning and goes on to the COMMIT).
 */
function rowCountIs(rows: number): Sql {
  return {
    sql: 'SET @mojafast_rows_as_planned = IF(ROW_COUNT() = ?, 0, (SELECT 1 UNION ALL SELECT 2))',
    values: [rows],
  };
}

/** Error 1242 from rowCountIs: the write matched other rows than the plan's. */
const ROWS_NOT_AS_PLANNED = 1242;

function rowsAsPlanned(error: unknown): never {
  if ((error as { errno?: unknown }).errno === ROWS_NOT_AS_PLANNED) {
    throw new InvariantViolation('the position UPDATE matched other rows than the plan’s positions', { cause: error });
  }
  throw error;
}

const START = { sql: 'START TRANSACTION', values: [] } satisfies Sql;
const COMMIT = { sql: 'COMMIT', values: [] } satisfies Sql;
const ROLLBACK = { sql: 'ROLLBACK', values: [] } satisfies Sql;

/**
 * central-ledger's tables: one transaction per batch with a constant number of statements whatever the batch
 * size, sent in two round trips (three when a commit's transfer has no payee row: lockAndRead). The store only
 * locks, reads and writes; the runner drives the unit of work (runner/unit-of-work.ts) and the ledger decides
 * what to lock, how much of a history to read (readsFor) and what to write:
 *   1. START TRANSACTION; the reads that lock the positions and read the transfers' state histories (and, for
 *      non-prepares, the payee amounts; for commits, their payee amounts with their latest states alone;
 *      lockAndReadSql);
 *   2. (after the pure plan) INSERT the state changes; INSERT the position changes; UPDATE the positions; check
 *      the UPDATE's row count (rowCountIs); COMMIT.
 * 8 statements for a batch of commits or of prepares. The position changes name
 * their state change as LAST_INSERT_ID() + its index: the state changes' ids, one multi-row INSERT ... VALUES, are consecutive from the first one (InnoDB, unless
 * innodb_autoinc_lock_mode = 2, MySQL 8's default: there the ids are read back, one more round trip).
 * The accounts with their limits and the settlement models come from ReferenceData and are read (2 more
 * statements) only when its copy has expired.
 *
 * Round trips, not statements, are what a batch waits for; fewer also means fewer socket writes, each of which
 * hands the CPU to the database on a machine the two share. Connections run READ COMMITTED (createStorePool): the
 * history read must see what any other process committed before we got the position locks, or a message
 * applied by the previous owner of a partition would look new after a rebalance. The store runs on its own mysql2
 * pool (createStorePool), which it does not own: whoever made the pool ends it.
 */
export class PositionStore {
  constructor(
    private readonly pool: Pool,
    /** true when multi-row INSERT ids are consecutive (innodb_autoinc_lock_mode < 2, increment 1). */
    readonly consecutiveIds: boolean,
    /** Index hints for the batch reads; empty where the index is missing (a schema migrated differently). */
    readonly hints: { readonly history: string; readonly payee: string } = { history: '', payee: '' },
    private readonly reference: ReferenceData = new ReferenceData(0),
  ) {}

  /** `referenceTtlMs`: how long accounts, limits and settlement models are reused (ReferenceData). */
  static async open(pool: Pool, referenceTtlMs = 0): Promise<PositionStore> {
    const rows = rowsOfQuery<{ mode: number | string; increment: number | string }>(
      await query(pool, {
        sql: 'SELECT @@innodb_autoinc_lock_mode AS mode, @@auto_increment_increment AS increment',
        values: [],
      }),
    );
    const row = rows[0];
    // central-ledger's index names (knex .index('transferId') and its getTransferInfoToChangePosition). A hint
    // naming a missing index fails every statement (errno 1176), so it is used only when the index exists.
    const indexes = new Set(
      rowsOfQuery<{ name: string }>(
        await query(pool, {
          sql: `SELECT DISTINCT CONCAT(TABLE_NAME, '.', INDEX_NAME) AS name FROM information_schema.STATISTICS
            WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('transferStateChange', 'transferParticipant')`,
          values: [],
        }),
      ).map((r) => r.name),
    );
    const hint = (table: string, index: string) => (indexes.has(`${table}.${index}`) ? `FORCE INDEX (${index})` : '');
    return new PositionStore(
      pool,
      Number(row?.mode) < 2 && Number(row?.increment) === 1,
      {
        history: hint('transferStateChange', 'transferstatechange_transferid_index'),
        payee: hint('transferParticipant', 'getTransferInfoToChangePosition'),
      },
      new ReferenceData(referenceTtlMs),
    );
  }

  async ping(): Promise<void> {
    await query(this.pool, { sql: 'SELECT 1', values: [] });
  }

  /**
   * One batch's transaction on one pooled connection: `work` reads the reference data, locks and reads, and
   * writes through the BatchTransaction (see runner/unit-of-work.ts); whatever ran is rolled back if it throws.
   */
  async transaction<T>(work: (tx: BatchTransaction) => Promise<T>): Promise<T> {
    const connection = await acquire(this.pool);
    let reusable = true;
    try {
      return await work({
        referenceData: (accountIds, withModels) => this.referenceData(connection, accountIds, withModels),
        lockAndRead: (reads) => this.lockAndRead(connection, reads),
        write: (plan) => this.write(connection, plan),
      });
    } catch (error) {
      // Whatever ran of the transaction is undone; a connection that cannot even roll back is closed instead of
      // being handed out again with a transaction open.
      reusable = await query(connection, ROLLBACK).then(
        () => true,
        () => false,
      );
      throw error;
    } finally {
      if (reusable) connection.release();
      else connection.destroy();
    }
  }

  /** Reference data, from ReferenceData's copy while it is fresh (outside the transaction: it takes no lock). */
  private async referenceData(connection: Connection, accountIds: readonly string[], withModels: boolean) {
    const rows = await this.reference.accounts(accountIds, async (ids) =>
      rowsOfQuery<AccountRow>(await query(connection, this.accountsSql(ids))),
    );
    const models = withModels
      ? await this.reference.settlementModels(async () =>
          rowsOfQuery<SettlementModelRow>(await query(connection, this.settlementModelsSql())),
        )
      : [];
    return { accounts: rows.map(accountRecordOf), settlementModels: models.map(settlementModelOf) };
  }

  /**
   * START TRANSACTION and the locking reads, in one round trip; one more only for a transfer to be judged by its
   * latest state that has no payee row (its state then comes from its history, as for any other transfer).
   */
  private async lockAndRead(connection: Connection, reads: LockReads): Promise<LockedFacts> {
    const read = this.lockAndReadSql(reads);
    const results = (await query(connection, joined(START, read))) as [unknown, ...FactRow[][]];
    const facts = factsOf(read.kinds, results.slice(1) as FactRow[][]);
    const unread = read.latestIds.filter((id) => !facts.payeeAmounts.has(id));
    if (unread.length > 0) {
      const rows = (await query(connection, this.historiesSql(unread))) as FactRow[];
      for (const [id, history] of historiesOf(rows)) facts.histories.set(id, history);
    }
    return facts;
  }

  /**
   * The plan's rows and the COMMIT: one round trip when the state changes' ids are known to be consecutive.
   * Transfers' and fxTransfers' state changes go to their own tables; when a batch has both, the first INSERT's
   * first id is kept in a session variable (one more statement) for the position changes that name them.
   */
  private async write(connection: Connection, result: PlanResult): Promise<void> {
    if (result.stateChanges.length === 0) {
      await query(connection, COMMIT);
      return;
    }
    const plain: StateChangePlan[] = [];
    const fx: StateChangePlan[] = [];
    // Each state change's index within its own table's INSERT.
    const local = result.stateChanges.map((c) => (c.fx ? fx.push(c) : plain.push(c)) - 1);
    const isFx = (i: number) => result.stateChanges[i]?.fx === true;
    // The UPDATE is the one write that can touch other rows than planned without an error (a multi-row INSERT
    // inserts every row or fails): a position row missing or doubled stops the COMMIT.
    const updates =
      result.positionUpdates.length > 0
        ? [this.positionUpdatesSql(result.positionUpdates), rowCountIs(result.positionUpdates.length)]
        : [];
    if (this.consecutiveIds) {
      const both = plain.length > 0 && fx.length > 0;
      const first = (i: number) => (isFx(i) || !both ? 'LAST_INSERT_ID()' : '@mojafast_first_tsc');
      const changes =
        result.positionChanges.length > 0
          ? [
              this.positionChangesSql(result.positionChanges, isFx, (i) => ({
                sql: `${first(i)} + ${local[i]}`,
                values: [],
              })),
            ]
          : [];
      // Right after the transferStateChange INSERT: transferError has no AUTO_INCREMENT column, so LAST_INSERT_ID()
      // is still that INSERT's first id.
      const errors = result.transferErrors?.length
        ? [this.transferErrorsSql(result, (i) => ({ sql: `LAST_INSERT_ID() + ${local[i]}`, values: [] }))]
        : [];
      await query(
        connection,
        joined(
          ...(plain.length > 0 ? [this.stateChangesSql(plain)] : []),
          ...errors,
          ...(both ? [{ sql: 'SET @mojafast_first_tsc = LAST_INSERT_ID()', values: [] }] : []),
          ...(fx.length > 0 ? [this.fxStateChangesSql(fx)] : []),
          ...changes,
          ...updates,
          COMMIT,
        ),
      ).catch(rowsAsPlanned);
      return;
    }
    const plainIds = plain.length > 0 ? await this.insertAndReadBack(connection, plain, false) : [];
    const fxIds = fx.length > 0 ? await this.insertAndReadBack(connection, fx, true) : [];
    const changes =
      result.positionChanges.length > 0
        ? [
            this.positionChangesSql(result.positionChanges, isFx, (i) => ({
              sql: '?',
              values: [(isFx(i) ? fxIds : plainIds)[local[i] as number] ?? null],
            })),
          ]
        : [];
    const errors = result.transferErrors?.length
      ? [this.transferErrorsSql(result, (i) => ({ sql: '?', values: [plainIds[local[i] as number] ?? null] }))]
      : [];
    await query(connection, joined(...errors, ...changes, ...updates, COMMIT)).catch(rowsAsPlanned);
  }

  /** transferError rows (a refused bulk-prepare, handler.js logTransferError), each naming its state change. */
  transferErrorsSql(result: PlanResult, stateChangeId: (stateChange: number) => Sql): Sql {
    const rows = (result.transferErrors ?? []).map((e) => {
      const id = stateChangeId(e.stateChange);
      return {
        sql: `(?, ${id.sql}, ?, ?)`,
        values: [result.stateChanges[e.stateChange]?.transferId, ...id.values, e.errorCode, e.errorDescription],
      };
    });
    return {
      sql: `INSERT INTO transferError (transferId, transferStateChangeId, errorCode, errorDescription) VALUES ${rows.map((r) => r.sql).join(', ')}`,
      values: rows.flatMap((r) => r.values),
    };
  }

  /**
   * Inserts state changes and reads their ids back, where they may interleave with other sessions' (lock mode
   * 2). At most one state change per transfer (or fxTransfer) per batch (no action's result state is another
   * action's precondition), so the id of the transfer identifies the row.
   */
  private async insertAndReadBack(connection: Connection, changes: readonly StateChangePlan[], fx: boolean) {
    const inserted = (await query(
      connection,
      fx ? this.fxStateChangesSql(changes) : this.stateChangesSql(changes),
    )) as {
      insertId: number | string;
    };
    const [table, id, key] = fx
      ? ['fxTransferStateChange', 'fxTransferStateChangeId', 'commitRequestId']
      : ['transferStateChange', 'transferStateChangeId', 'transferId'];
    const rows = rowsOfQuery<{ id: number | string; k: string }>(
      await query(connection, {
        sql: `SELECT ${id} AS id, ${key} AS k FROM ${table} WHERE ${id} >= ? AND ${key} IN (${list(changes.length)})`,
        values: [String(inserted.insertId), ...changes.map((c) => c.transferId)],
      }),
    );
    const byTransfer = new Map(rows.map((r) => [r.k, String(r.id)]));
    return changes.map((c) => {
      const found = byTransfer.get(c.transferId);
      if (found === undefined) throw new Error(`${table} of ${c.transferId} not found after insert`);
      return found;
    });
  }

  /** Every account of the participants involved: the position accounts and the settlement accounts beside them. */
  accountsSql(accountIds: readonly string[]): Sql {
    return {
      sql: `SELECT pc.participantCurrencyId, pc.participantId, pc.currencyId, pc.ledgerAccountTypeId, pl.value AS netDebitCap
              FROM participantCurrency pc
              LEFT JOIN participantLimit pl ON pl.participantCurrencyId = pc.participantCurrencyId
                   AND pl.participantLimitTypeId = ? AND pl.isActive = 1
             WHERE pc.participantId IN (SELECT participantId FROM participantCurrency WHERE participantCurrencyId IN (${list(accountIds.length)}))`,
      values: [ParticipantLimitType.NET_DEBIT_CAP, ...accountIds],
    };
  }

  settlementModelsSql(): Sql {
    return {
      sql: 'SELECT currencyId, ledgerAccountTypeId, settlementAccountTypeId, requireLiquidityCheck FROM settlementModel WHERE isActive = 1',
      values: [],
    };
  }

  /**
   * One round trip: locks the batch's position rows and reads the transfers' state histories and payee amounts,
   * one SELECT per kind of fact in one COM_QUERY (only the first takes locks), each answering its own result set
   * (`kinds`, in order). Not a UNION ALL of the same blocks: MariaDB materializes a UNION in a temporary table,
   * every row written and read once more, and the unioned columns are converted to text (about 8 % of the read's
   * server CPU for a batch of 1,000 commits).
   *
   * Positions are locked in participantCurrencyId order (the index range the scan walks), so two batches
   * that share accounts always take their locks in the same order and cannot deadlock.
   *
   * A transfer judged by its latest state alone (`latestIds`: reads.latestStateIds that need a payee amount, a
   * commit's above all) is read with its payee amount in one SELECT: the payee row, then the last entry of the
   * transferId index (its rows ordered by the primary key), one state change fetched instead of the whole
   * history (three for a commit). Only the payee rows found carry a state: lockAndRead reads the history of the
   * others.
   *
   * Histories: no ORDER BY in SQL (with "ORDER BY transferStateChangeId" the optimizer may walk the primary
   * key of the whole table instead of the transferId index); the few rows per transfer are sorted here.
   * FORCE INDEX: past eq_range_index_dive_limit (200) values the optimizer estimates from index statistics
   * and, with a few rows per transfer, picks a full table scan (158 ms for 1,000 ids in an 80k-row table,
   * against 35 ms on the index); the batch's ids are always a tiny part of a table that only grows. The
   * payee amounts use central-ledger's (transferId, role, ledgerEntryType) index the same way. See open().
   */
  lockAndReadSql(reads: LockReads): Sql & { readonly kinds: readonly FactKind[]; readonly latestIds: string[] } {
    const { accountIds, transferIds, payeeTransferIds: payeeIds } = reads;
    const latestStateIds = new Set(reads.latestStateIds);
    const latestIds = payeeIds.filter((id) => latestStateIds.has(id));
    const latest = new Set(latestIds);
    const historyIds = transferIds.filter((id) => !latest.has(id));
    const payeeOnlyIds = payeeIds.filter((id) => !latest.has(id));
    // Always the positions' SELECT, so the statement list is valid even for a batch with nothing to read.
    const statements: Sql[] = [
      {
        sql: `SELECT participantCurrencyId AS k, participantPositionId AS id, value AS a, reservedValue AS b
                FROM participantPosition WHERE participantCurrencyId IN (${accountIds.length > 0 ? list(accountIds.length) : 'NULL'})
               ORDER BY participantCurrencyId FOR UPDATE`,
        values: [...accountIds].sort((a, b) => Number(a) - Number(b)),
      },
    ];
    const kinds: FactKind[] = ['position'];
    if (historyIds.length > 0) {
      statements.push(this.historiesSql(historyIds));
      kinds.push('history');
    }
    if (payeeOnlyIds.length > 0) {
      statements.push({
        sql: `SELECT transferId AS k, amount AS a FROM transferParticipant ${this.hints.payee}
               WHERE transferId IN (${list(payeeOnlyIds.length)}) AND transferParticipantRoleTypeId = ? AND ledgerEntryTypeId = ?`,
        values: [...payeeOnlyIds, TransferParticipantRoleType.PAYEE_DFSP, LedgerEntryType.PRINCIPLE_VALUE],
      });
      kinds.push('payee');
    }
    if (latestIds.length > 0) {
      statements.push({
        sql: `SELECT p.transferId AS k, p.amount AS a,
                     (SELECT s.transferStateId FROM transferStateChange s ${this.hints.history} WHERE s.transferId = p.transferId
                       ORDER BY s.transferStateChangeId DESC LIMIT 1) AS b
                FROM transferParticipant p ${this.hints.payee}
               WHERE p.transferId IN (${list(latestIds.length)}) AND p.transferParticipantRoleTypeId = ? AND p.ledgerEntryTypeId = ?`,
        values: [...latestIds, TransferParticipantRoleType.PAYEE_DFSP, LedgerEntryType.PRINCIPLE_VALUE],
      });
      kinds.push('latest');
    }
    if (reads.fxTransferIds.length > 0) {
      statements.push({
        sql: `SELECT commitRequestId AS k, fxTransferStateChangeId AS id, transferStateId AS a, reason AS b
                FROM fxTransferStateChange WHERE commitRequestId IN (${list(reads.fxTransferIds.length)})`,
        values: [...reads.fxTransferIds],
      });
      kinds.push('fxhistory');
    }
    if (reads.fxReservedIds.length > 0) {
      // batch.js getReservedPositionChangesByCommitRequestIds: the position changes of the RESERVED state.
      statements.push({
        sql: `SELECT f.commitRequestId AS k, p.participantCurrencyId AS id, p.change AS a
                FROM fxTransferStateChange f JOIN participantPositionChange p ON p.fxTransferStateChangeId = f.fxTransferStateChangeId
               WHERE f.commitRequestId IN (${list(reads.fxReservedIds.length)}) AND f.transferStateId = ?`,
        values: [...reads.fxReservedIds, 'RESERVED'],
      });
      kinds.push('fxreserved');
    }
    return { ...joined(...statements), kinds, latestIds };
  }

  /** The transfers' whole state histories, unordered (see lockAndReadSql). */
  historiesSql(transferIds: readonly string[]): Sql {
    return {
      sql: `SELECT transferId AS k, transferStateChangeId AS id, transferStateId AS a, reason AS b
              FROM transferStateChange ${this.hints.history} WHERE transferId IN (${list(transferIds.length)})`,
      values: [...transferIds],
    };
  }

  stateChangesSql(changes: readonly StateChangePlan[]): Sql {
    return {
      sql: `INSERT INTO transferStateChange (transferId, transferStateId, reason) VALUES ${placeholders(changes.length, 3)}`,
      values: changes.flatMap((c) => [c.transferId, c.transferStateId, c.reason]),
    };
  }

  fxStateChangesSql(changes: readonly StateChangePlan[]): Sql {
    return {
      sql: `INSERT INTO fxTransferStateChange (commitRequestId, transferStateId, reason) VALUES ${placeholders(changes.length, 3)}`,
      values: changes.flatMap((c) => [c.transferId, c.transferStateId, c.reason]),
    };
  }

  /**
   * `stateChangeId(i)`: the SQL expression of the id of the batch's i-th state change, which is an
   * fxTransferStateChange when `isFx(i)` (then the row names it in fxTransferStateChangeId, as fx-prepare.js and
   * binProcessor.js write it).
   */
  positionChangesSql(
    changes: readonly PositionChangePlan[],
    isFx: (index: number) => boolean,
    stateChangeId: (index: number) => Sql,
  ): Sql {
    const rows: string[] = [];
    const values: unknown[] = [];
    for (const c of changes) {
      const id = stateChangeId(c.stateChange);
      rows.push(isFx(c.stateChange) ? `(?,?,NULL,${id.sql},?,?,?)` : `(?,?,${id.sql},NULL,?,?,?)`);
      values.push(
        c.participantPositionId,
        c.participantCurrencyId,
        ...id.values,
        formatAmount(c.value),
        formatAmount(c.change),
        formatAmount(c.reservedValue),
      );
    }
    return {
      sql: `INSERT INTO participantPositionChange
              (participantPositionId, participantCurrencyId, transferStateChangeId, fxTransferStateChangeId, value, \`change\`, reservedValue)
            VALUES ${rows.join(',')}`,
      values,
    };
  }

  positionUpdatesSql(updates: readonly PositionUpdatePlan[]): Sql {
    return {
      sql: `UPDATE participantPosition SET value = CASE participantPositionId ${updates.map(() => 'WHEN ? THEN ?').join(' ')} END,
                   changedDate = CURRENT_TIMESTAMP
             WHERE participantPositionId IN (${list(updates.length)})`,
      values: [
        ...updates.flatMap((u) => [u.participantPositionId, formatAmount(u.value)]),
        ...updates.map((u) => u.participantPositionId),
      ],
    };
  }
}

/** What each result set of lockAndReadSql holds, in the order of its statements. */
type FactKind = 'position' | 'history' | 'payee' | 'latest' | 'fxhistory' | 'fxreserved';

/** A row of any of lockAndReadSql's result sets (payee rows have no id or b, latest ones no id). */
interface FactRow {
  k: string | number;
  id?: string | number | null;
  a: string | null;
  b?: string | null;
}

function rowsOfQuery<T>(result: unknown): T[] {
  return result as T[];
}

/**
 * The result sets of lockAndReadSql by kind: positions by account, histories oldest first (a latest state alone
 * for the `latest` rows), payee amounts, FX facts.
 */
function factsOf(
  kinds: readonly FactKind[],
  results: readonly FactRow[][],
): LockedFacts & { readonly histories: Map<string, StateRecord[]> } {
  const positions = new Map<string, PositionRecord>();
  const payeeAmounts = new Map<string, Amount>();
  const fxReservedChanges = new Map<string, Map<string, Amount>>();
  let latestRows: FactRow[] = [];
  let stateRows: FactRow[] = [];
  let fxStateRows: FactRow[] = [];
  kinds.forEach((kind, i) => {
    const rows = results[i] ?? [];
    if (kind === 'position') {
      for (const row of rows) {
        positions.set(String(row.k), {
          participantPositionId: String(row.id),
          participantCurrencyId: String(row.k),
          value: parseAmount(String(row.a)),
          reservedValue: parseAmount(String(row.b)),
        });
      }
    } else if (kind === 'history') {
      stateRows = rows;
    } else if (kind === 'latest') {
      latestRows = rows;
    } else if (kind === 'fxhistory') {
      fxStateRows = rows;
    } else if (kind === 'fxreserved') {
      for (const row of rows) {
        let byAccount = fxReservedChanges.get(String(row.k));
        if (!byAccount) {
          byAccount = new Map();
          fxReservedChanges.set(String(row.k), byAccount);
        }
        byAccount.set(String(row.id), parseAmount(String(row.a)));
      }
    } else {
      payeeAmountsOf(rows, payeeAmounts);
    }
  });
  const histories = historiesOf(stateRows);
  payeeAmountsOf(latestRows, payeeAmounts);
  for (const row of latestRows) {
    // No state: the transfer has no state change, an empty history (the planner's TRANSFER_NOT_FOUND).
    if (row.b !== null && row.b !== undefined) histories.set(String(row.k), [{ transferStateId: row.b, reason: null }]);
  }
  return {
    positions,
    histories,
    payeeAmounts,
    fxHistories: historiesOf(fxStateRows),
    fxReservedChanges,
  };
}

/** The first payee row of each transfer (central-ledger's index does not make it unique). */
function payeeAmountsOf(rows: readonly FactRow[], payeeAmounts: Map<string, Amount>): void {
  for (const row of rows) {
    if (!payeeAmounts.has(String(row.k))) payeeAmounts.set(String(row.k), parseAmount(String(row.a)));
  }
}

function historiesOf(stateRows: FactRow[]): Map<string, StateRecord[]> {
  const histories = new Map<string, StateRecord[]>();
  stateRows.sort((x, y) => Number(x.id) - Number(y.id));
  for (const row of stateRows) {
    const transferId = String(row.k);
    let history = histories.get(transferId);
    if (!history) {
      history = [];
      histories.set(transferId, history);
    }
    history.push({ transferStateId: String(row.a), reason: row.b ?? null });
  }
  return histories;
}

function accountRecordOf(row: AccountRow): AccountRecord {
  return {
    participantCurrencyId: String(row.participantCurrencyId),
    participantId: String(row.participantId),
    currencyId: row.currencyId,
    ledgerAccountTypeId: Number(row.ledgerAccountTypeId),
    netDebitCap: row.netDebitCap === null ? undefined : parseAmount(row.netDebitCap),
  };
}

function settlementModelOf(row: SettlementModelRow): SettlementModelRecord {
  return {
    currencyId: row.currencyId,
    ledgerAccountTypeId: Number(row.ledgerAccountTypeId),
    settlementAccountTypeId: Number(row.settlementAccountTypeId),
    requireLiquidityCheck: Boolean(Number(row.requireLiquidityCheck)),
  };
}
