import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';

/**
 * central-ledger 19.5.5's own migrations and seeds, run with our knex against a fresh database, so the
 * handler is tested on the schema a real deployment has. The npm package is fetched once with `npm pack`
 * into a cache directory (not installed: its dependency tree pulls native node-rdkafka and hundreds of
 * packages). Its migrations and seeds require only three things outside knex, given here as shims:
 * `../src/lib/config` (HUB_ID, HUB_NAME; DB_RUN_DATA_MIGRATIONS is undefined in the original too) and
 * `@mojaloop/central-services-shared` (Util.Time.getYMDString, Enum.EndPoints.FspEndpointTypes).
 */
const VERSION = '19.5.5';

export function centralLedgerPackageDir(): string {
  const base = join(process.env.MOJAFAST_STATE_DIR ?? tmpdir(), 'cache', `central-ledger-${VERSION}`);
  const dir = join(base, 'package');
  if (existsSync(join(dir, 'migrations'))) return dir;
  const staging = `${base}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  execFileSync('npm', ['pack', `@mojaloop/central-ledger@${VERSION}`, '--pack-destination', staging, '--silent'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(staging).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack @mojaloop/central-ledger@${VERSION} wrote no tarball`);
  execFileSync('tar', ['xzf', join(staging, tarball), '-C', staging]);
  mkdirSync(base, { recursive: true });
  if (!existsSync(dir)) renameSync(join(staging, 'package'), dir);
  rmSync(staging, { recursive: true, force: true });
  return dir;
}

const shims: Record<string, unknown> = {
  '../src/lib/config': { HUB_ID: 1, HUB_NAME: 'Hub' },
  '@mojaloop/central-services-shared': {
    Util: { Time: { getYMDString: (d: Date) => d.toISOString().replace(/-/g, '').slice(0, 8) } },
    Enum: {
      EndPoints: {
        FspEndpointTypes: new Proxy({}, { get: (_target, name) => (typeof name === 'string' ? name : undefined) }),
      },
    },
  },
};

interface LoadedModule {
  up?: (knex: Knex) => Promise<unknown>;
  down?: (knex: Knex) => Promise<unknown>;
  seed?: (knex: Knex) => Promise<unknown>;
}

function load(file: string): LoadedModule {
  const real = createRequire(file);
  const module = { exports: {} as LoadedModule };
  const source = readFileSync(file, 'utf8');
  const requireShimmed = (id: string) => (id in shims ? shims[id] : real(id));
  new Function('exports', 'require', 'module', '__filename', '__dirname', source)(
    module.exports,
    requireShimmed,
    module,
    file,
    join(file, '..'),
  );
  return module.exports;
}

/** Runs all of central-ledger's migrations (table `migration`, as its knexfile names it), then its seeds. */
export async function migrateAndSeedCentralLedger(knex: Knex): Promise<void> {
  const dir = centralLedgerPackageDir();
  const migrationFiles = readdirSync(join(dir, 'migrations'))
    .filter((f) => f.endsWith('.js'))
    .sort();
  await knex.migrate.latest({
    tableName: 'migration',
    migrationSource: {
      getMigrations: async () => migrationFiles,
      getMigrationName: (name: string) => name,
      getMigration: async (name: string) => {
        const loaded = load(join(dir, 'migrations', name));
        return { up: loaded.up ?? (async () => {}), down: loaded.down ?? (async () => {}) };
      },
    },
  });
  const seedFiles = readdirSync(join(dir, 'seeds'))
    .filter((f) => f.endsWith('.js'))
    .sort();
  for (const file of seedFiles) {
    const result = await load(join(dir, 'seeds', file)).seed?.(knex);
    // The seeds swallow their errors and return -1000 (seeds/*.js); a failed seed must fail the test.
    if (result === -1000) throw new Error(`central-ledger seed ${file} failed`);
  }
}
