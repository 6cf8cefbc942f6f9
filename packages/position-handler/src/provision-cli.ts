import { readFile } from 'node:fs/promises';
import { loadConfig } from './config/index.js';
import { dbSsl } from './security.js';
import { knexFromConfig } from './store/db.js';
import { migrateLatest } from './store/migrations.js';
import { type LedgerSpec, provisionLedger } from './store/provision.js';

/**
 * `node dist/provision-cli.js [--migrate] spec.json`: creates the settlement model, participants, accounts,
 * positions and limits of spec.json in the database of DB_* (the handler's env variables).
 * --migrate first creates the handler's own schema; leave it out on a central-ledger database.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const migrate = args.includes('--migrate');
  const file = args.find((a) => !a.startsWith('--'));
  if (!file) {
    process.stderr.write('usage: mojafast-position-provision [--migrate] <spec.json>\n');
    process.exitCode = 2;
    return;
  }
  const spec = JSON.parse(await readFile(file, 'utf8')) as LedgerSpec;
  const config = loadConfig();
  const knex = knexFromConfig(config, dbSsl(config));
  try {
    if (migrate) await migrateLatest(knex);
    const ledger = await provisionLedger(knex, spec);
    process.stdout.write(`${JSON.stringify(Object.fromEntries(ledger.accounts), null, 2)}\n`);
  } finally {
    await knex.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`provisioning failed: ${String(error)}\n`);
  process.exitCode = 1;
});
