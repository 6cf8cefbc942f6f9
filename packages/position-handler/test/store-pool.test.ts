import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import type { Pool, PoolConnection } from 'mysql2';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStorePool, endStorePool } from '../src/store/db.js';

/**
 * The store's pool (mysql2's public pool, not knex's private client) sets every connection up before its first
 * statement: READ COMMITTED (PositionStore's history read must see other processes' commits) and MariaDB's IN-list
 * rewrite off (in_predicate_conversion_threshold = 0, see createStorePool).
 */
let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createDatabase({ prefix: 'position_pool' });
  pool = createStorePool({ ...db.connection, poolMax: 2 });
});

afterAll(async () => {
  if (pool) await endStorePool(pool);
  await db?.drop();
});

const acquire = () =>
  new Promise<PoolConnection>((resolve, reject) =>
    pool.getConnection((error, connection) => (error ? reject(error) : resolve(connection))),
  );

function sessionOf(connection: PoolConnection): Promise<Record<string, string>> {
  return new Promise((resolve, reject) =>
    connection.query(
      `SELECT LOWER(VARIABLE_NAME) AS name, VARIABLE_VALUE AS value FROM information_schema.SESSION_VARIABLES
        WHERE VARIABLE_NAME IN ('TX_ISOLATION', 'TRANSACTION_ISOLATION', 'IN_PREDICATE_CONVERSION_THRESHOLD')`,
      (error, rows) =>
        error
          ? reject(error)
          : resolve(Object.fromEntries((rows as { name: string; value: string }[]).map((r) => [r.name, r.value]))),
    ),
  );
}

it('every connection it opens runs READ COMMITTED with the IN-list rewrite off, from its first statement', async () => {
  // Two connections held at once: both are new, so both went through the set-up.
  const connections = [await acquire(), await acquire()];
  try {
    expect(connections[0]).not.toBe(connections[1]);
    for (const connection of connections) {
      const session = await sessionOf(connection);
      expect(session.tx_isolation ?? session.transaction_isolation).toBe('READ-COMMITTED');
      expect(session.in_predicate_conversion_threshold).toBe('0');
    }
  } finally {
    for (const connection of connections) connection.release();
  }
});
