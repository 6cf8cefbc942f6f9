import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * A built entry point (`dist/<file>`) of a workspace package this one declares (package.json dependencies):
 * the package is found as Node resolves it, so an undeclared one is not, and its directory is the one holding
 * its package.json above the module it resolves to (dist/ or, under vitest's `source` condition, src/).
 */
function entryOf(packageName: string, file: string): string {
  let dir = dirname(require.resolve(packageName));
  while (!isPackageDir(dir, packageName)) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json of ${packageName} above ${require.resolve(packageName)}`);
    dir = parent;
  }
  return join(dir, 'dist', file);
}

function isPackageDir(dir: string, packageName: string): boolean {
  const manifest = join(dir, 'package.json');
  return existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === packageName;
}

/** Built entry points of the services the bench runs, each from a package it declares. */
export const entryPoints = {
  get sim() {
    return entryOf('@mojafast/sim', 'sim.js');
  },
  /** This checkout's ALS, or another checkout's (`--als-build DIR` sets MOJAFAST_BENCH_ALS_BUILD). */
  get als() {
    const other = process.env.MOJAFAST_BENCH_ALS_BUILD;
    return other ? join(other, 'packages', 'als', 'dist', 'als.js') : entryOf('@mojafast/als', 'als.js');
  },
  get position() {
    return entryOf('@mojafast/position-handler', 'position.js');
  },
  /** bench:position's Kafka-only floor; from dist/ also when this module runs from src/ under vitest. */
  positionPassthrough: fileURLToPath(new URL('../../dist/position/passthrough-process.js', import.meta.url)),
  /** bench:position's database floor, likewise. */
  positionDbFloor: fileURLToPath(new URL('../../dist/position/db-floor-process.js', import.meta.url)),
  /** bench:als's relay floor, from dist/ likewise. */
  alsRelay: fileURLToPath(new URL('../../dist/als/relay-process.js', import.meta.url)),
} as const;

/** Where infra/svc keeps pid files and data (infra/lib/common.sh: MOJAFAST_STATE_DIR or <repo>/.infra). */
export const stateDir = process.env.MOJAFAST_STATE_DIR ?? fileURLToPath(new URL('../../../../.infra', import.meta.url));
