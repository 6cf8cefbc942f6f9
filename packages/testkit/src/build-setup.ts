import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// Two lanes that need dist/ list this file; the build is done once per vitest process.
const built = Symbol.for('mojafast.testkit.build-setup');

/**
 * Vitest global setup: `tsc -b` once before any test file runs, for the tests that start a service from
 * its built dist/ (as an operator runs it). Incremental, so it costs seconds when nothing changed; done
 * once here because two test files building the same package at once could read half-written files.
 */
export default function buildDist(): void {
  const state = globalThis as { [built]?: true };
  if (state[built] || process.env.MOJAFAST_SKIP_BUILD === '1') return;
  state[built] = true;
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const tsc = createRequire(`${root}/package.json`).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: 'inherit' });
}
