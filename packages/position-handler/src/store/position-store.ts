import type { Knex } from 'knex';
import { type Amount, formatAmount, parseAmount } from '../ledger/amount.js';
import { NO_POSITION_ACCOUNT } from '../ledger/plan.js';
import type {
  AccountFacts,
  LedgerCommand,
  PlanInput,
  PlanResult,
  PositionChangePlan,
  PositionUpdatePlan,
  StateChangePlan,
  StateRecord,
  TransferFacts,
} from '../ledger/types.js';
import { LedgerEntryType, ParticipantLimitType, TransferParticipantRoleType } from './enums.js';
import { type AccountRow, ReferenceData, type SettlementModelRow } from './reference-data.js';

export interface StageTimings {
  lock: number;
  compute: number;
  write: number;
}

interface PositionRow {
  participantPositionId: number | string;
  participantCurrencyId: number | string;
  value: string;
  reservedValue: string;
}

type Trx = Knex.Transaction;

function placeholders(rows: number, columns: number): string {
  const row = `(${new Array(columns).fill('?').join(',')})`;
  return new Array(rows).fill(row).join(',');
}

function list(length: number): string {
  return new Array(length).fill('?').join(',');
}

function rowsOf<T>(result: unknown): T[] {
  // mysql2 through knex.raw answers [rows, fields].
  return (result as [T[], unknown])[0];
}

/**
 * central-ledger's tables through knex: one transaction per batch with a constant number of statements,
 * whatever the batch size: one read that locks the positions and reads the transfers' state histories (and,
 * for non-prepares, the payee amounts), then insert state changes (1), insert position changes (1), update
 * positions (1), between BEGIN and COMMIT: 6 statements. The accounts and settlement models come from
 * ReferenceData and are read only when its copy has expired (2 more statements then).
 *
 * Connections run READ COMMITTED (set once per connection in createKnex): the history read must see what any
 * other process committed before we got the position locks, or a message applied by the previous owner of a
 * partition would look new after a rebalance.
 */
export class PositionStore {
  constructor(
    private readonly knex: Knex,
    /** true when multi-row INSERT ids are consecutive (innodb_autoinc_lock_mode < 2, increment 1). */
    private readonly consecutiveIds: boolean,
    /** Index hints for the batch reads; empty where the index is missing (a schema migrated differently). */
    private readonly hints: { readonly history: string; readonly payee: string } = { history: '', payee: '' },
    private readonly reference: ReferenceData = new ReferenceData(0),
  ) {}

  /** `referenceTtlMs`: how long accounts, limits and settlement models are reused (ReferenceData). */
  static async open(knex: Knex, referenceTtlMs = 0): Promise<PositionStore> {
    const rows = rowsOf<{ mode: number | string; increment: number | string }>(
      await knex.raw('SELECT @@innodb_autoinc_lock_mode AS mode, @@auto_increment_increment AS increment'),
    );
    const row = rows[0];
    // central-ledger's index names (knex .index('transferId') and its getTransferInfoToChangePosition). A hint
    // naming a missing index fails every statement (errno 1176), so it is used only when the index exists.
    const indexes = new Set(
      rowsOf<{ name: string }>(
        await knex.raw(
          `SELECT DISTINCT CONCAT(TABLE_NAME, '.', INDEX_NAME) AS name FROM information_schema.STATISTICS
            WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('transferStateChange', 'transferParticipant')`,
        ),
      ).map((r) => r.name),
    );
    const hint = (table: string, index: string) => (indexes.has(`${table}.${index}`) ? `FORCE INDEX (${index})` : '');
    return new PositionStore(
      knex,
      Number(row?.mode) < 2 && Number(row?.increment) === 1,
      {
        history: hint('transferStateChange', 'transferstatechange_transferid_index'),
        payee: hint('transferParticipant', 'getTransferInfoToChangePosition'),
      },
      new ReferenceData(referenceTtlMs),
    );
  }

  async ping(): Promise<void> {
    await this.knex.raw('SELECT 1');
  }

  /** Reads, locks, plans with `plan` and writes one batch in one transaction; returns the plan it wrote. */
  async applyBatch(
    commands: readonly LedgerCommand[],
    plan: (input: PlanInput) => PlanResult,
    timings: StageTimings = { lock: 0, compute: 0, write: 0 },
  ): Promise<PlanResult> {
    return this.knex.transaction(async (trx) => {
      let started = performance.now();
      const accountIds = [...new Set(commands.map((c) => c.accountId).filter((id) => id !== NO_POSITION_ACCOUNT))].sort(
        (a, b) => Number(a) - Number(b),
      );
      const prepareAccounts = new Set(commands.filter((c) => c.action === 'prepare').map((c) => c.accountId));
      const accountRows =
        accountIds.length > 0 ? await this.reference.accounts(accountIds, (ids) => this.readAccounts(trx, ids)) : [];
      const models =
        prepareAccounts.size > 0 ? await this.reference.settlementModels(() => this.readSettlementModels(trx)) : [];
      const settlementOf = resolveSettlementAccounts(accountRows, models, prepareAccounts);
      const lockIds = [
        ...new Set([...accountIds, ...[...settlementOf.values()].flatMap((s) => (s.accountId ? [s.accountId] : []))]),
      ];
      const transferIds = [...new Set(commands.map((c) => c.transferId))];
      const payeeIds = [...new Set(commands.filter((c) => c.action !== 'prepare').map((c) => c.transferId))];
      const { positions, histories, payeeAmounts } = await this.lockAndRead(trx, lockIds, transferIds, payeeIds);
      timings.lock += performance.now() - started;

      started = performance.now();
      const accounts = new Map<string, AccountFacts>();
      const accountRowById = new Map(accountRows.map((r) => [String(r.participantCurrencyId), r]));
      for (const id of accountIds) {
        const row = accountRowById.get(id);
        const position = positions.get(id);
        if (!row || !position) continue;
        const settlement = settlementOf.get(id);
        const settlementPosition = settlement?.accountId ? positions.get(settlement.accountId) : undefined;
        let liquidityCover: Amount | null = null;
        let prepareProblem: string | undefined;
        if (prepareAccounts.has(id)) {
          if (!settlement?.model) prepareProblem = `no settlement model for currency ${row.currencyId}`;
          else if (settlement.model.requireLiquidityCheck) {
            if (!settlementPosition) prepareProblem = `no settlement account position for account ${id}`;
            else liquidityCover = -parseAmount(settlementPosition.value);
          }
        }
        accounts.set(id, {
          participantCurrencyId: id,
          participantPositionId: String(position.participantPositionId),
          value: parseAmount(position.value),
          reservedValue: parseAmount(position.reservedValue),
          netDebitCap: row.netDebitCap === null ? undefined : parseAmount(row.netDebitCap),
          liquidityCover,
          ...(prepareProblem === undefined ? {} : { prepareProblem }),
        });
      }
      const transfers = new Map<string, TransferFacts>();
      for (const id of transferIds) {
        transfers.set(id, { history: histories.get(id) ?? [], payeeAmount: payeeAmounts.get(id) });
      }
      const result = plan({ commands, accounts, transfers });
      timings.compute += performance.now() - started;

      started = performance.now();
      if (result.stateChanges.length > 0) {
        const ids = await this.insertStateChanges(trx, result.stateChanges);
        if (result.positionChanges.length > 0) await this.insertPositionChanges(trx, result.positionChanges, ids);
        if (result.positionUpdates.length > 0) await this.updatePositions(trx, result.positionUpdates);
      }
      timings.write += performance.now() - started;
      return result;
    });
  }

  async readAccounts(trx: Trx, accountIds: readonly string[]): Promise<AccountRow[]> {
    // Every account of the participants involved: the position accounts and the settlement accounts beside them.
    const result = await trx.raw(
      `SELECT pc.participantCurrencyId, pc.participantId, pc.currencyId, pc.ledgerAccountTypeId, pl.value AS netDebitCap
         FROM participantCurrency pc
         LEFT JOIN participantLimit pl ON pl.participantCurrencyId = pc.participantCurrencyId
              AND pl.participantLimitTypeId = ? AND pl.isActive = 1
        WHERE pc.participantId IN (SELECT participantId FROM participantCurrency WHERE participantCurrencyId IN (${list(accountIds.length)}))`,
      [ParticipantLimitType.NET_DEBIT_CAP, ...accountIds],
    );
    return rowsOf<AccountRow>(result);
  }

  async readSettlementModels(trx: Trx): Promise<SettlementModelRow[]> {
    const result = await trx.raw(
      'SELECT currencyId, ledgerAccountTypeId, settlementAccountTypeId, requireLiquidityCheck FROM settlementModel WHERE isActive = 1',
    );
    return rowsOf<SettlementModelRow>(result);
  }

  /**
   * One statement, one round trip: locks the batch's position rows and reads the transfers' state histories
   * and payee amounts, as a UNION ALL of three query blocks tagged by `kind` (only the first takes locks: a
   * locking clause inside a parenthesized block applies to that block, in MariaDB 10.4+ and MySQL 8). The
   * columns of the three are unioned as text, which is how mysql2 hands DECIMAL and BIGINT over anyway.
   *
   * Positions are locked in participantCurrencyId order (the index range the scan walks), so two batches
   * that share accounts always take their locks in the same order and cannot deadlock.
   *
   * Histories: no ORDER BY in SQL (with "ORDER BY transferStateChangeId" the optimizer may walk the primary
   * key of the whole table instead of the transferId index); the few rows per transfer are sorted here.
   * FORCE INDEX: past eq_range_index_dive_limit (200) values the optimizer estimates from index statistics
   * and, with a few rows per transfer, picks a full table scan (158 ms for 1,000 ids in an 80k-row table,
   * against 35 ms on the index); the batch's ids are always a tiny part of a table that only grows. The
   * payee amounts use central-ledger's (transferId, role, ledgerEntryType) index the same way. See open().
   */
  async lockAndRead(
    trx: Trx,
    accountIds: readonly string[],
    transferIds: readonly string[],
    payeeIds: readonly string[],
  ): Promise<{
    positions: Map<string, PositionRow>;
    histories: Map<string, StateRecord[]>;
    payeeAmounts: Map<string, Amount>;
  }> {
    const blocks: string[] = [];
    const bindings: (string | number)[] = [];
    if (accountIds.length > 0) {
      blocks.push(
        `(SELECT 'position' AS kind, participantCurrencyId AS k, participantPositionId AS id, value AS a, reservedValue AS b
            FROM participantPosition WHERE participantCurrencyId IN (${list(accountIds.length)})
           ORDER BY participantCurrencyId FOR UPDATE)`,
      );
      bindings.push(...[...accountIds].sort((a, b) => Number(a) - Number(b)));
    }
    if (transferIds.length > 0) {
      blocks.push(
        `(SELECT 'history', transferId, transferStateChangeId, transferStateId, reason
            FROM transferStateChange ${this.hints.history} WHERE transferId IN (${list(transferIds.length)}))`,
      );
      bindings.push(...transferIds);
    }
    if (payeeIds.length > 0) {
      blocks.push(
        `(SELECT 'payee', transferId, NULL, amount, NULL FROM transferParticipant ${this.hints.payee}
           WHERE transferId IN (${list(payeeIds.length)}) AND transferParticipantRoleTypeId = ? AND ledgerEntryTypeId = ?)`,
      );
      bindings.push(...payeeIds, TransferParticipantRoleType.PAYEE_DFSP, LedgerEntryType.PRINCIPLE_VALUE);
    }
    const positions = new Map<string, PositionRow>();
    const histories = new Map<string, StateRecord[]>();
    const payeeAmounts = new Map<string, Amount>();
    if (blocks.length === 0) return { positions, histories, payeeAmounts };
    type Row = { kind: string; k: string | number; id: string | number | null; a: string | null; b: string | null };
    const rows = rowsOf<Row>(await trx.raw(blocks.join(' UNION ALL '), bindings));
    const stateRows: Row[] = [];
    for (const row of rows) {
      if (row.kind === 'position') {
        positions.set(String(row.k), {
          participantPositionId: String(row.id),
          participantCurrencyId: String(row.k),
          value: String(row.a),
          reservedValue: String(row.b),
        });
      } else if (row.kind === 'history') {
        stateRows.push(row);
      } else if (!payeeAmounts.has(String(row.k))) {
        payeeAmounts.set(String(row.k), parseAmount(String(row.a)));
      }
    }
    stateRows.sort((x, y) => Number(x.id) - Number(y.id));
    for (const row of stateRows) {
      const transferId = String(row.k);
      let history = histories.get(transferId);
      if (!history) {
        history = [];
        histories.set(transferId, history);
      }
      history.push({ transferStateId: String(row.a), reason: row.b });
    }
    return { positions, histories, payeeAmounts };
  }

  /** Inserts the state changes with one statement and returns their ids, in order. */
  async insertStateChanges(trx: Trx, changes: readonly StateChangePlan[]): Promise<string[]> {
    const result = await trx.raw(
      `INSERT INTO transferStateChange (transferId, transferStateId, reason) VALUES ${placeholders(changes.length, 3)}`,
      changes.flatMap((c) => [c.transferId, c.transferStateId, c.reason]),
    );
    const first = BigInt((result as [{ insertId: number | string }])[0].insertId);
    // InnoDB gives a multi-row INSERT ... VALUES ("simple insert") consecutive ids unless
    // innodb_autoinc_lock_mode = 2 (MySQL 8's default); then the ids are read back. At most one state change
    // per transfer per batch (no action's result state is another action's precondition), so the transfer
    // id identifies the row.
    if (this.consecutiveIds) return changes.map((_, i) => String(first + BigInt(i)));
    const rows = rowsOf<{ transferStateChangeId: number | string; transferId: string }>(
      await trx.raw(
        `SELECT transferStateChangeId, transferId FROM transferStateChange
          WHERE transferStateChangeId >= ? AND transferId IN (${list(changes.length)})`,
        [String(first), ...changes.map((c) => c.transferId)],
      ),
    );
    const byTransfer = new Map(rows.map((r) => [r.transferId, String(r.transferStateChangeId)]));
    return changes.map((c) => {
      const id = byTransfer.get(c.transferId);
      if (id === undefined) throw new Error(`transferStateChange of ${c.transferId} not found after insert`);
      return id;
    });
  }

  async insertPositionChanges(
    trx: Trx,
    changes: readonly PositionChangePlan[],
    stateChangeIds: readonly string[],
  ): Promise<void> {
    await trx.raw(
      `INSERT INTO participantPositionChange
         (participantPositionId, participantCurrencyId, transferStateChangeId, value, \`change\`, reservedValue)
       VALUES ${placeholders(changes.length, 6)}`,
      changes.flatMap((c) => [
        c.participantPositionId,
        c.participantCurrencyId,
        stateChangeIds[c.stateChange] ?? null,
        formatAmount(c.value),
        formatAmount(c.change),
        formatAmount(c.reservedValue),
      ]),
    );
  }

  async updatePositions(trx: Trx, updates: readonly PositionUpdatePlan[]): Promise<void> {
    const cases = updates.map(() => 'WHEN ? THEN ?').join(' ');
    await trx.raw(
      `UPDATE participantPosition SET value = CASE participantPositionId ${cases} END, changedDate = CURRENT_TIMESTAMP
        WHERE participantPositionId IN (${list(updates.length)})`,
      [
        ...updates.flatMap((u) => [u.participantPositionId, formatAmount(u.value)]),
        ...updates.map((u) => u.participantPositionId),
      ],
    );
  }
}

interface SettlementChoice {
  readonly model: { readonly requireLiquidityCheck: boolean } | undefined;
  readonly accountId: string | undefined;
}

/**
 * The settlement account of each prepare account: the settlement model of the account's currency on its
 * ledger account type, else the model with no currency (central-ledger binProcessor _constructRequiredMaps);
 * then the participant's account in that currency of the model's settlementAccountTypeId.
 */
function resolveSettlementAccounts(
  rows: readonly AccountRow[],
  models: readonly SettlementModelRow[],
  prepareAccounts: ReadonlySet<string>,
): Map<string, SettlementChoice> {
  const choices = new Map<string, SettlementChoice>();
  for (const row of rows) {
    const id = String(row.participantCurrencyId);
    if (!prepareAccounts.has(id)) continue;
    const type = Number(row.ledgerAccountTypeId);
    const model =
      models.find((m) => m.currencyId === row.currencyId && Number(m.ledgerAccountTypeId) === type) ??
      models.find((m) => m.currencyId === null && Number(m.ledgerAccountTypeId) === type);
    const settlement = model
      ? rows.find(
          (r) =>
            String(r.participantId) === String(row.participantId) &&
            r.currencyId === row.currencyId &&
            Number(r.ledgerAccountTypeId) === Number(model.settlementAccountTypeId),
        )
      : undefined;
    choices.set(id, {
      model: model ? { requireLiquidityCheck: Boolean(Number(model.requireLiquidityCheck)) } : undefined,
      accountId: settlement ? String(settlement.participantCurrencyId) : undefined,
    });
  }
  return choices;
}
