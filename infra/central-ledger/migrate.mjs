// central-ledger's own migrations and seeds, the ones its API runs at start, run with our knex from its npm
// tarball alone: its whole install (hundreds of packages and a native Kafka client built from source) is not
// needed for its schema. infra/svc start runs this on its default database (node migrate.mjs), so the
// position handler started with no settings finds the tables a deployment has; the position handler's
// tests run it on their own databases (migrateAndSeedCentralLedger).
//
// Its migrations and seeds require only two things besides knex, given here as shims: `../src/lib/config`
// (HUB_ID, HUB_NAME; DB_RUN_DATA_MIGRATIONS is undefined in the original too) and
// `@mojaloop/central-services-shared` (Util.Time.getYMDString, Enum.EndPoints.FspEndpointTypes).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** infra/services.env's value of KEY, unless the environment sets it. */
function setting(key) {
  if (process.env[key] !== undefined) return process.env[key];
  const line = readFileSync(join(root, 'infra/services.env'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${key}=`));
  if (line === undefined) throw new Error(`${key} is not in infra/services.env`);
  return line.slice(key.length + 1);
}

/**
 * The unpacked npm package @mojaloop/central-ledger@CENTRAL_LEDGER_SCHEMA_VERSION (migrations/, seeds/, config/),
 * fetched once with `npm pack` into MOJAFAST_CACHE_DIR (default ~/.cache/mojafast), which outlives a clone;
 * or the folder CENTRAL_LEDGER_SCHEMA_DIR names.
 */
export function centralLedgerPackageDir() {
  // A central-ledger source folder given instead (e.g. the switch's build, to compare its API's own migration).
  if (process.env.CENTRAL_LEDGER_SCHEMA_DIR) return process.env.CENTRAL_LEDGER_SCHEMA_DIR;
  const version = setting('CENTRAL_LEDGER_SCHEMA_VERSION');
  const cache = process.env.MOJAFAST_CACHE_DIR || join(homedir(), '.cache', 'mojafast');
  const base = join(cache, `central-ledger-${version}-package`);
  const dir = join(base, 'package');
  if (existsSync(join(dir, 'seeds'))) return dir;
  const staging = `${base}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    execFileSync('npm', ['pack', `@mojaloop/central-ledger@${version}`, '--pack-destination', staging, '--silent'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    const stderr = String(error.stderr ?? '')
      .trim()
      .split('\n')[0];
    throw new Error(`npm pack @mojaloop/central-ledger@${version} failed: ${stderr || error.message}`);
  }
  const tarball = readdirSync(staging).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack @mojaloop/central-ledger@${version} wrote no tarball`);
  execFileSync('tar', ['xzf', join(staging, tarball), '-C', staging]);
  mkdirSync(base, { recursive: true });
  // Two first runs at once: the first rename wins, the other's copy is dropped.
  if (!existsSync(dir)) renameSync(join(staging, 'package'), dir);
  rmSync(staging, { recursive: true, force: true });
  return dir;
}

const shims = {
  '../src/lib/config': { HUB_ID: 1, HUB_NAME: 'Hub' },
  '@mojaloop/central-services-shared': {
    Util: { Time: { getYMDString: (d) => d.toISOString().replace(/-/g, '').slice(0, 8) } },
    Enum: {
      EndPoints: {
        FspEndpointTypes: new Proxy({}, { get: (_target, name) => (typeof name === 'string' ? name : undefined) }),
      },
    },
  },
};

/** A migration or seed file (CommonJS) loaded with the shims in place of its two outside requires. */
function load(file) {
  const real = createRequire(file);
  const module = { exports: {} };
  const source = readFileSync(file, 'utf8');
  const requireShimmed = (id) => (id in shims ? shims[id] : real(id));
  new Function('exports', 'require', 'module', '__filename', '__dirname', source)(
    module.exports,
    requireShimmed,
    module,
    file,
    join(file, '..'),
  );
  return module.exports;
}

function jsFiles(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort();
}

/** Runs all of central-ledger's migrations (table `migration`, as its knexfile names it). */
export async function migrateCentralLedger(knex, dir = centralLedgerPackageDir()) {
  const migrationFiles = jsFiles(join(dir, 'migrations'));
  const [, applied] = await knex.migrate.latest({
    tableName: 'migration',
    migrationSource: {
      getMigrations: async () => migrationFiles,
      getMigrationName: (name) => name,
      getMigration: async (name) => {
        const loaded = load(join(dir, 'migrations', name));
        return { up: loaded.up ?? (async () => {}), down: loaded.down ?? (async () => {}) };
      },
    },
  });
  return applied.length;
}

/** Runs central-ledger's seeds, in its order (file names); they insert what is missing only. */
export async function seedCentralLedger(knex, dir = centralLedgerPackageDir()) {
  const seedFiles = jsFiles(join(dir, 'seeds'));
  for (const file of seedFiles) {
    const result = await load(join(dir, 'seeds', file)).seed?.(knex);
    // The seeds swallow their errors and return -1000 (seeds/*.js); a failed seed must fail the run.
    if (result === -1000) throw new Error(`central-ledger seed ${file} failed`);
  }
  return seedFiles.length;
}

/** Its migrations, then its seeds, as its API does at start with MIGRATIONS.DISABLED false. */
export async function migrateAndSeedCentralLedger(knex) {
  const dir = centralLedgerPackageDir();
  await migrateCentralLedger(knex, dir);
  await seedCentralLedger(knex, dir);
}

/**
 * CLI: brings database CENTRAL_LEDGER_DB on MYSQL_HOST:MYSQL_PORT (as MYSQL_USER) to central-ledger's schema
 * and seeds. Warm (every migration applied, the seeds' Hub participant present) it changes nothing. A
 * database holding tables of another schema is refused: migrating over them would fail half-way.
 * `--port N --ssl-ca FILE` does the same on another port over TLS (the secure stack's MariaDB).
 */
async function main() {
  const database = setting('CENTRAL_LEDGER_DB');
  if (!/^\w+$/.test(database)) throw new Error(`CENTRAL_LEDGER_DB '${database}' is not a plain database name`);
  const { values: options } = parseArgs({ options: { port: { type: 'string' }, 'ssl-ca': { type: 'string' } } });
  const requireFromHandler = createRequire(join(root, 'packages/position-handler/package.json'));
  const createKnex = requireFromHandler('knex');
  const connection = {
    host: setting('MYSQL_HOST'),
    port: Number(options.port ?? setting('MYSQL_PORT')),
    user: setting('MYSQL_USER'),
    password: setting('MYSQL_PASSWORD'),
    ...(options['ssl-ca'] ? { ssl: { ca: readFileSync(options['ssl-ca'], 'utf8') } } : {}),
  };
  const started = Date.now();
  const dir = centralLedgerPackageDir();
  const server = createKnex({ client: 'mysql2', connection });
  try {
    await server.raw(`CREATE DATABASE IF NOT EXISTS \`${database}\``);
  } finally {
    await server.destroy();
  }
  const knex = createKnex({ client: 'mysql2', connection: { ...connection, database }, pool: { min: 0, max: 2 } });
  try {
    const tables = (await knex('information_schema.tables').where({ table_schema: database }).pluck('table_name')).map(
      String,
    );
    if (tables.length > 0 && !tables.includes('migration')) {
      throw new Error(
        `database ${database} holds ${tables.length} tables but no central-ledger migration record (another schema, e.g. the position handler's own --migrate); drop them (or run 'infra/svc reset mysql') and re-run`,
      );
    }
    const applied = await migrateCentralLedger(knex, dir);
    const seeded = tables.includes('participant')
      ? (await knex('participant').where({ name: 'Hub' }).first()) !== undefined
      : false;
    if (applied === 0 && seeded) {
      console.log(`database ${database}: central-ledger's schema is current`);
      return;
    }
    const seeds = await seedCentralLedger(knex, dir);
    console.log(
      `database ${database}: ${applied} central-ledger migrations applied, ${seeds} seeds run in ${Date.now() - started} ms`,
    );
  } finally {
    await knex.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
