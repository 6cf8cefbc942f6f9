import { readdirSync, readFileSync } from 'node:fs';
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { centralLedgerPackageDir } from '../../../infra/central-ledger/migrate.mjs';
import { loadInfraSettings, parseEnvFile, testKafka } from '../src/index.js';

// What `infra/svc start` (run by the global setup) leaves behind for a service started with the originals'
// defaults: the topics a Mojaloop cluster's provisioning creates, and the originals' database users.
const servicesEnv = {
  ...parseEnvFile(readFileSync(new URL('../../../infra/services.env', import.meta.url), 'utf8')),
  ...process.env,
};
const settings = loadInfraSettings();

/** `a:b:c d:e:f` (the services.env list format) as [a, b, c] triples; missing parts are ''. */
function entries(list: string | undefined): [string, string, string][] {
  return (list ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((entry) => {
      const [first = '', second = '', third = ''] = entry.split(':');
      return [first, second, third];
    });
}

describe('infra/svc start: the first run of an original configuration', () => {
  it('creates every KAFKA_TOPICS topic with its partition count', async () => {
    const wanted = entries(servicesEnv.KAFKA_TOPICS).map(([name, partitions]) => ({
      name,
      partitions: Number(partitions),
    }));
    expect(wanted.map((t) => t.name)).toContain('topic-transfer-position-batch');
    const admin = testKafka(settings, 'mojafast-first-run').admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: wanted.map((t) => t.name) });
      const found = Object.fromEntries(topics.map((t) => [t.name, t.partitions.length]));
      expect(found).toEqual(Object.fromEntries(wanted.map((t) => [t.name, t.partitions])));
    } finally {
      await admin.disconnect();
    }
  });

  // An external server (MYSQL_EXTERNAL=1) is only checked, never provisioned.
  it.skipIf(servicesEnv.MYSQL_EXTERNAL === '1')(
    "lets each original's default user (central_ledger, account_lookup) into its own database",
    async () => {
      const users = entries(servicesEnv.MYSQL_ORIGINAL_USERS);
      expect(users.map(([user]) => user)).toEqual(['central_ledger', 'account_lookup']);
      for (const [user, password, database] of users) {
        const connection = await mysql.createConnection({ ...settings.mysql, user, password, database });
        try {
          const [rows] = await connection.query('SELECT DATABASE() AS db, CURRENT_USER() AS who');
          expect(rows).toEqual([{ db: database, who: `${user}@127.0.0.1` }]);
        } finally {
          await connection.end();
        }
      }
    },
  );

  // As a deployment's central-ledger API leaves it at its start: every one of its migrations applied (its
  // knexfile's `migration` table) and its seeds in (the Hub participant, the transfer states).
  it("leaves central-ledger's default database migrated and seeded with central-ledger's own migrations", async () => {
    const database = servicesEnv.CENTRAL_LEDGER_DB ?? 'central_ledger';
    const migrations = readdirSync(`${centralLedgerPackageDir()}/migrations`).filter((f) => f.endsWith('.js'));
    const connection = await mysql.createConnection({ ...settings.mysql, database });
    try {
      const [applied] = await connection.query<mysql.RowDataPacket[]>('SELECT name FROM migration ORDER BY name');
      expect(applied.map((row) => String(row.name)).sort()).toEqual([...migrations].sort());
      const [hub] = await connection.query<mysql.RowDataPacket[]>("SELECT name FROM participant WHERE name = 'Hub'");
      expect(hub).toHaveLength(1);
      const [states] = await connection.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM transferState');
      expect(Number(states[0]?.n)).toBeGreaterThan(10);
    } finally {
      await connection.end();
    }
  });
});
