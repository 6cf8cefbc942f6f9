import type { Knex } from 'knex';

/**
 * central-ledger's tables the handler reads and writes. The handler, like the original's (`handler`
 * starts with runMigrations: false, central-ledger src/handlers/index.js), migrates nothing: a database
 * without them is reported by name instead of failing every batch with "table doesn't exist".
 */
const REQUIRED_TABLES = [
  'participantCurrency',
  'participantLimit',
  'participantPosition',
  'participantPositionChange',
  'settlementModel',
  'transfer',
  'transferParticipant',
  'transferStateChange',
] as const;

/** The required tables missing from the connection's database (none: it is migrated). */
export async function missingTables(knex: Knex): Promise<string[]> {
  const [rows] = (await knex.raw(
    `SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (${REQUIRED_TABLES.map(() => '?').join(', ')})`,
    [...REQUIRED_TABLES],
  )) as unknown as [{ name: string }[]];
  const present = new Set(rows.map((r) => r.name));
  return REQUIRED_TABLES.filter((table) => !present.has(table));
}
