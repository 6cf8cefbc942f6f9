#!/usr/bin/env node
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadInfraSettings } from '@mojafast/testkit';
import { servicesRoot } from './services.js';
import { runSmoke } from './smoke.js';

/**
 * `infra/smoke [--k8s]`: the whole-cluster smoke run without Docker (src/smoke.ts), wired as the compose file
 * says, or with --k8s as the Kubernetes manifests say. Needs `infra/svc start` (Kafka,
 * MySQL) and `pnpm run build`. Prints what it does, then the report as JSON; exit code 0 when the lookup got
 * its callback and the prepare and commit their notifications and position changes, else 1.
 */
const from = process.argv.slice(2).includes('--k8s') ? 'k8s' : 'compose';
const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const runDir = mkdtempSync(join(tmpdir(), 'mojafast-smoke-'));
try {
  const report = await runSmoke({
    repoRoot,
    servicesRoot: servicesRoot(repoRoot),
    settings: loadInfraSettings(),
    runDir,
    from,
    log: (line) => process.stderr.write(`smoke: ${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  const moved = (pair: [string, string]) => pair[0] !== pair[1];
  const ok =
    report.lookup.status === 202 &&
    report.lookup.callback === 'success' &&
    moved(report.prepare.payerPosition) &&
    moved(report.commit.payeePosition);
  process.stderr.write(`smoke: ${ok ? 'passed' : 'FAILED'}\n`);
  if (!ok) process.exitCode = 1;
} catch (error) {
  process.stderr.write(`smoke: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(runDir, { recursive: true, force: true });
}
