#!/usr/bin/env node
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadInfraSettings } from '@mojafast/testkit';
import { type ChartPlayReport, runChartPlay } from './chart-play.js';
import { type ContainerLaunch, composeCommand, composeLauncher, runLauncher } from './container-smoke.js';
import { engineName } from './engine.js';
import { type KubePlayReport, runKubePlay } from './kube-play.js';
import { runSmoke, type SmokeReport } from './smoke.js';

/**
 * `infra/images run [containers|compose|kube|charts ...]` (all four by default), after `infra/images build`:
 * - containers: the whole-cluster smoke with the three images run by the engine (container-smoke.ts);
 * - compose: the same smoke with the compose tool bringing the services up, or the reason it cannot;
 * - kube: `podman kube play` of the position handler's manifest, two replicas, one killed (kube-play.ts);
 * - charts: Mojaloop's own helm charts, rendered with only our image and addresses set, played by podman
 *   (chart-play.ts).
 * One line per part, `passed` or `FAILED: <cause>`; the reports as JSON (--out FILE, else stdout). Exit code 1
 * when a part failed.
 */
type Part = 'containers' | 'compose' | 'kube' | 'charts';
const parts: readonly Part[] = ['containers', 'compose', 'kube', 'charts'];

const argv = process.argv.slice(2);
const outAt = argv.indexOf('--out');
const out = outAt >= 0 ? argv[outAt + 1] : undefined;
const asked = argv.filter((a, i) => !a.startsWith('--') && (outAt < 0 || i !== outAt + 1));
const unknown = asked.filter((a) => !parts.includes(a as Part));
if (unknown.length > 0) {
  process.stderr.write(`images run: unknown part ${unknown.join(', ')} (parts: ${parts.join(', ')})\n`);
  process.exit(2);
}
const chosen = asked.length > 0 ? (asked as Part[]) : parts;
const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const engine = engineName();
const settings = loadInfraSettings();
const say = (line: string) => process.stderr.write(`images run: ${line}\n`);

/** Why a smoke report does not pass, or undefined when it does. */
export function smokeProblems(report: SmokeReport): string | undefined {
  const moved = (pair: [string, string]) => pair[0] !== pair[1];
  if (report.lookup.status !== 202 || report.lookup.callback !== 'success')
    return `lookup answered ${report.lookup.status} with callback ${report.lookup.callback}`;
  if (!moved(report.prepare.payerPosition)) return 'the prepare did not move the payer position';
  if (!moved(report.commit.payeePosition)) return 'the commit did not move the payee position';
  const checks = (report.inspection ?? {}) as Record<string, { uid: number; healthcheck: number | null }>;
  for (const [id, check] of Object.entries(checks)) {
    if (check.uid === 0) return `${id} runs as root`;
    if (check.healthcheck !== 0) return `${id}'s HEALTHCHECK exited ${check.healthcheck}`;
  }
  for (const stop of report.stops)
    if (stop.code !== 0 || (stop.ms ?? 0) >= 30_000) return `${stop.id} stopped with ${stop.code} after ${stop.ms} ms`;
  return undefined;
}

function kubeProblems(report: KubePlayReport): string | undefined {
  for (const replica of report.replicas) {
    if (replica.partitions.length === 0) return `${replica.name} got no partition`;
    if (replica.uid === 0) return `${replica.name} runs as root`;
    for (const [probe, status] of Object.entries(replica.probes))
      if (status !== 200) return `${replica.name}'s ${probe} answered ${status}`;
  }
  const { result, transfers, stop } = report;
  if (result.reservedTwice > 0) return `${result.reservedTwice} transfers reserved more than once`;
  if (result.reserved !== transfers) return `${result.reserved} of ${transfers} transfers reserved`;
  if (!result.positionsMatch) return 'a payer position differs from the sum of its transfers';
  if (!result.changesMatch) return 'a position differs from the sum of its position changes';
  if (result.notified !== transfers) return `${result.notified} of ${transfers} transfers notified`;
  if (stop.code !== 0 || stop.ms >= stop.graceSeconds * 1000)
    return `SIGTERM ended the replica with ${stop.code} after ${stop.ms} ms (grace ${stop.graceSeconds} s)`;
  return undefined;
}

/** Why a chart play does not pass, or undefined when it does. */
export function chartProblems(report: ChartPlayReport): string | undefined {
  if (report.lookup.oracleStatus !== 201)
    return `the admin deployment answered ${report.lookup.oracleStatus} to POST /oracles`;
  if (report.lookup.status !== 202 || report.lookup.callback !== 'success')
    return `the API deployment answered the lookup ${report.lookup.status} with callback ${report.lookup.callback}`;
  const { count, reserved, committed, notified } = report.transfers;
  if (reserved !== count || committed !== count) return `${reserved} reserved and ${committed} committed of ${count}`;
  if (notified !== 2 * count) return `${notified} of ${2 * count} notifications`;
  for (const chart of report.charts) {
    for (const [probe, answer] of Object.entries(chart.probes))
      if (answer.status !== 200) return `${chart.chart}'s ${probe} ${answer.path} answered ${answer.status}`;
    if (chart.runAsUser !== null && chart.uid !== chart.runAsUser)
      return `${chart.chart} runs as uid ${chart.uid}, not the chart's ${chart.runAsUser}`;
    if (chart.written.length > 0) return `${chart.chart} wrote ${chart.written.join(', ')}`;
    if (chart.otherPortRefused === false) return `${chart.chart} also serves the other API's port`;
    if (chart.stop.code !== 0 || chart.stop.ms >= chart.stop.graceSeconds * 1000)
      return `SIGTERM ended ${chart.chart} with ${chart.stop.code} after ${chart.stop.ms} ms`;
  }
  return undefined;
}

async function smokeWith(launch: ContainerLaunch, runDir: string): Promise<SmokeReport> {
  try {
    return await runSmoke({
      repoRoot,
      servicesRoot: repoRoot,
      settings,
      runDir,
      launch: launch.launch,
      inspect: launch.inspect,
      ...(launch.prepare ? { prepare: launch.prepare } : {}),
      log: (line) => say(line),
      waitMs: 60_000,
    });
  } finally {
    await launch.cleanup();
  }
}

const reports: Record<string, unknown> = { engine };
let failed = false;
for (const part of chosen) {
  const runDir = mkdtempSync(join(tmpdir(), `mojafast-images-${part}-`));
  const started = Date.now();
  try {
    let problem: string | undefined;
    if (part === 'containers') {
      const report = await smokeWith(runLauncher(engine), runDir);
      reports[part] = report;
      problem = smokeProblems(report);
    } else if (part === 'compose') {
      const tool = await composeCommand(engine);
      if ('reason' in tool) {
        say(`compose: not run: ${tool.reason}`);
        reports[part] = { skipped: tool.reason };
        continue;
      }
      const report = await smokeWith(composeLauncher(engine, tool.command, repoRoot, runDir), runDir);
      reports[part] = { tool: tool.command.join(' '), ...report };
      problem = smokeProblems(report);
    } else if (engine !== 'podman') {
      say(`${part}: not run: kube play needs podman (docker has no kube play)`);
      reports[part] = { skipped: 'docker has no kube play' };
      continue;
    } else if (part === 'charts') {
      const report = await runChartPlay({ repoRoot, settings, runDir, log: say });
      reports[part] = report;
      problem = chartProblems(report);
    } else {
      const report = await runKubePlay({ engine, repoRoot, settings, runDir, log: say });
      reports[part] = report;
      problem = kubeProblems(report);
    }
    const seconds = Math.round((Date.now() - started) / 1000);
    say(`${part}: ${problem ? `FAILED: ${problem}` : 'passed'} (${seconds} s)`);
    if (problem) failed = true;
  } catch (error) {
    failed = true;
    const message = error instanceof Error ? error.message : String(error);
    reports[part] = { error: message };
    say(`${part}: FAILED: ${message.split('\n')[0]}`);
    process.stderr.write(`${message}\n`);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
}
const json = `${JSON.stringify(reports, null, 2)}\n`;
if (out) writeFileSync(out, json);
else process.stdout.write(json);
if (failed) process.exitCode = 1;
