/**
 * central-ledger 19.5.5's own migrations and seeds, run with our knex against a fresh database, so the
 * handler is tested on the schema a real deployment has; and the unpacked npm package (its config/). The
 * same module brings the default database to that schema at `infra/svc start`.
 */
export { centralLedgerPackageDir, migrateAndSeedCentralLedger } from '../../../infra/central-ledger/migrate.mjs';
