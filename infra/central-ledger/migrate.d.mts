// Types of migrate.mjs for the TypeScript tests that import it.

/** What the functions use of a knex instance (any Knex satisfies it). */
export interface KnexMigrator {
  migrate: { latest(config: object): Promise<unknown> };
}

export function centralLedgerPackageDir(): string;
export function migrateCentralLedger(knex: KnexMigrator, dir?: string): Promise<number>;
export function seedCentralLedger(knex: KnexMigrator, dir?: string): Promise<number>;
export function migrateAndSeedCentralLedger(knex: KnexMigrator): Promise<void>;
