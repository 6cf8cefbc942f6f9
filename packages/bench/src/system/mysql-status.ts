import type { Connection, RowDataPacket } from 'mysql2/promise';

export const statusCounters = [
  'Questions',
  'Com_select',
  'Com_insert',
  'Com_update',
  'Com_delete',
  'Com_commit',
  'Com_rollback',
  // Rows the server looked at and wrote, and the row locks waited for: where a phase spends the database.
  'Handler_read_key',
  'Handler_read_next',
  'Handler_read_rnd_next',
  'Handler_write',
  'Handler_update',
  // (MariaDB 11 has no Innodb_rows_*: the Handler_* counters count the rows each statement reads and writes.)
  'Innodb_row_lock_waits',
  'Innodb_row_lock_time',
  'Innodb_data_fsyncs',
  'Innodb_log_writes',
] as const;
export type StatementCounts = Record<(typeof statusCounters)[number], number>;

async function read(connection: Connection): Promise<StatementCounts> {
  const [rows] = await connection.query<RowDataPacket[]>(
    `SHOW GLOBAL STATUS WHERE Variable_name IN (${statusCounters.map(() => '?').join(',')})`,
    [...statusCounters],
  );
  const values = Object.fromEntries(statusCounters.map((c) => [c, 0])) as StatementCounts;
  for (const row of rows) values[row.Variable_name as keyof StatementCounts] = Number(row.Value);
  return values;
}

/**
 * Statements the server executed during a run, from its global status counters (`Questions` counts every
 * statement a client sent; `Com_commit` every COMMIT): what the handler costs the database per message,
 * whatever its SQL looks like. The two SHOW STATUS queries of the meter itself are subtracted.
 */
export class StatementMeter {
  #before: StatementCounts | undefined;

  constructor(readonly connection: Connection) {}

  async start(): Promise<void> {
    this.#before = await read(this.connection);
  }

  async stop(): Promise<StatementCounts> {
    const after = await read(this.connection);
    const before = this.#before ?? after;
    const delta = Object.fromEntries(statusCounters.map((c) => [c, after[c] - before[c]])) as StatementCounts;
    delta.Questions = Math.max(0, delta.Questions - 1);
    return delta;
  }
}
