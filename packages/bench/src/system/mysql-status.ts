import type { Connection, RowDataPacket } from 'mysql2/promise';

const counters = [
  'Questions',
  'Com_select',
  'Com_insert',
  'Com_update',
  'Com_delete',
  'Com_commit',
  'Com_rollback',
] as const;
export type StatementCounts = Record<(typeof counters)[number], number>;

async function read(connection: Connection): Promise<StatementCounts> {
  const [rows] = await connection.query<RowDataPacket[]>(
    `SHOW GLOBAL STATUS WHERE Variable_name IN (${counters.map(() => '?').join(',')})`,
    [...counters],
  );
  const values = Object.fromEntries(counters.map((c) => [c, 0])) as StatementCounts;
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
    const delta = Object.fromEntries(counters.map((c) => [c, after[c] - before[c]])) as StatementCounts;
    delta.Questions = Math.max(0, delta.Questions - 1);
    return delta;
  }
}
