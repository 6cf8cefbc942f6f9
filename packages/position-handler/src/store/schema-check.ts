import type { Pool } from 'mysql2';

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

/** The required tables missing from the pool's database (none: it is migrated). */
export async function missingTables(pool: Pool): Promise<string[]> {
  const rows = await new Promise<{ name: string }[]>((resolve, reject) =>
    pool.query(
      `SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (${REQUIRED_TABLES.map(() => '?').join(', ')})`,
      [...REQUIRED_TABLES],
      (error, result) => (error ? reject(error) : resolve(result as { name: string }[])),
    ),
  );
  const present = new Set(rows.map((r) => r.name));
  return REQUIRED_TABLES.filter((table) => !present.has(table));
}
