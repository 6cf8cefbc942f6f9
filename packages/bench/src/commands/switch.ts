import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type OriginalConfig, originalConfigs } from '../als/original.js';
import { table } from '../report/figures.js';
import { LatencyRecorder } from '../report/latency.js';
import type { Metric } from '../report/metrics.js';
import type { Stack, SwitchBenchRun } from '../switch/results.js';
import { summarise } from '../switch/results.js';
import { type LatencySinks, measureRun, type RunOptions } from '../switch/run.js';
import { startSwitchStack } from '../switch/stack.js';
import { switchTables } from '../switch/tables.js';
import { positiveInteger } from './http.js';
import { finish, progress } from './outcome.js';

export const switchUsage = `mojafast-bench switch [options]
  The switch end to end, as Mojaloop's performance programme measures it, on this machine: at an offered rate
  (k6 constant-arrival-rate), each transfer a party lookup through the ALS (GET /parties to the PUT /parties
  callback) then a transfer through ml-api-adapter 16.10.1 and central-ledger 19.14.0 (POST /transfers, the
  payee's PUT, to the payer's callback). Quotes are out of scope: no quoting service runs. Per run: discovery,
  transfer and end-to-end percentiles, completed transfers/s, the validity gate from topic offsets
  (fulfil/prepare = 1.0, notification/prepare = 2.0), CPU per process per transfer; the originals (ALS
  v17.16.1, central-ledger's own position handler) and ours, rounds alternating; cores of ALS and of position
  handler per 1,000 transfers/s. Loopback only.
  --rate R             transfers started per second (default 20)
  --duration S         measured seconds per run (default 30)
  --warmup S           seconds at the same rate before measuring, not counted (default 5)
  --idle S             seconds with no load after the warm-up, each process's idle CPU (default 5): the cost
                       per transfer is also given above it, as at a high rate where the idle use vanishes
  --rounds N           rounds, each runs the stacks, the order swapped each round (default 2)
  --stacks S           both (default), ours or originals: one stack alone, e.g. ours at a rate the originals
                       cannot keep up with on this machine (no ratio is given then)
  --max-in-flight N    transfers in flight at most; beyond, arrivals are dropped and counted (default 200)
  --timeout MS         per step (lookup, transfer), request to callback (default 30000)
  --als-config C       both ALSs' configuration file: chart (default: the helm chart's, caches on) or default
                       (account-lookup-service's config/default.json)
  --als-port P         the ALS's API port, the same for both (default 41400)
  --threshold EXPR     k6 syntax, repeatable, e.g. 'ours_e2e:p(95)<500', 'ours_checks:rate>0.99'
  --out FILE           result JSON (default bench-results/switch-<date>.json)`;

export interface SwitchOptions extends Omit<RunOptions, 'seed'> {
  readonly rounds: number;
  readonly stacks: readonly Stack[];
  readonly alsConfig: OriginalConfig;
  readonly alsPort: number;
  readonly thresholds: string[];
  readonly out: string | undefined;
  readonly help: boolean;
}

const stackChoices: Readonly<Record<string, readonly Stack[]>> = {
  both: ['originals', 'ours'],
  ours: ['ours'],
  originals: ['originals'],
};

function wholeNumber(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${flag} must be a whole number, got "${text}"`);
  return value;
}

export function parseSwitchArgs(argv: readonly string[]): SwitchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      rate: { type: 'string', default: '20' },
      duration: { type: 'string', default: '30' },
      warmup: { type: 'string', default: '5' },
      idle: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '2' },
      stacks: { type: 'string', default: 'both' },
      'max-in-flight': { type: 'string', default: '200' },
      timeout: { type: 'string', default: '30000' },
      'als-config': { type: 'string', default: 'chart' },
      'als-port': { type: 'string', default: '41400' },
      threshold: { type: 'string', multiple: true, default: [] },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const alsConfig = values['als-config'] as OriginalConfig;
  if (!originalConfigs.includes(alsConfig))
    throw new Error(`--als-config must be one of ${originalConfigs.join(', ')}, got "${alsConfig}"`);
  const stacks = stackChoices[values.stacks];
  if (!stacks)
    throw new Error(`--stacks must be one of ${Object.keys(stackChoices).join(', ')}, got "${values.stacks}"`);
  return {
    rate: positiveInteger('--rate', values.rate),
    durationS: positiveInteger('--duration', values.duration),
    warmupS: wholeNumber('--warmup', values.warmup),
    idleS: wholeNumber('--idle', values.idle),
    rounds: positiveInteger('--rounds', values.rounds),
    stacks,
    maxInFlight: positiveInteger('--max-in-flight', values['max-in-flight']),
    timeoutMs: positiveInteger('--timeout', values.timeout),
    alsConfig,
    alsPort: positiveInteger('--als-port', values['als-port']),
    thresholds: values.threshold,
    out: values.out,
    help: values.help,
  };
}

/** Round r runs the originals first when r is odd, ours first when even; of `stacks` only. */
export function roundOrder(round: number, stacks: readonly Stack[] = ['originals', 'ours']): Stack[] {
  const order: Stack[] = round % 2 === 1 ? ['originals', 'ours'] : ['ours', 'originals'];
  return order.filter((s) => stacks.includes(s));
}

/** The k6 metrics of each stack over its runs: latency trends, completed transfers, and checks (completed). */
export function switchMetrics(
  runs: readonly SwitchBenchRun[],
  sinks: Readonly<Record<Stack, LatencySinks>>,
): Map<string, Metric> {
  const metrics = new Map<string, Metric>();
  for (const stack of ['originals', 'ours'] as const) {
    const mine = runs.filter((r) => r.stack === stack);
    if (mine.length === 0) continue;
    const completed = mine.reduce((s, r) => s + r.completed, 0);
    const failed = mine.reduce((s, r) => s + r.failed + r.dropped, 0);
    const seconds = mine.reduce((s, r) => s + r.completed / Math.max(r.completedPerSecond, 1e-9), 0);
    metrics.set(`${stack}_discovery`, { type: 'trend', values: sinks[stack].discovery.summary() });
    metrics.set(`${stack}_transfer`, { type: 'trend', values: sinks[stack].transfer.summary() });
    metrics.set(`${stack}_e2e`, { type: 'trend', values: sinks[stack].e2e.summary() });
    metrics.set(`${stack}_transfers`, { type: 'counter', count: completed, perSecond: completed / seconds });
    metrics.set(`${stack}_checks`, { type: 'rate', passes: completed, fails: failed });
    metrics.set(`${stack}_valid_runs`, {
      type: 'rate',
      passes: mine.filter((r) => r.gate.valid).length,
      fails: mine.filter((r) => !r.gate.valid).length,
    });
  }
  return metrics;
}

export async function switchCommand(argv: string[]): Promise<void> {
  const o = parseSwitchArgs(argv);
  if (o.help) {
    process.stdout.write(`${switchUsage}\n`);
    return;
  }
  const seed = randomBytes(8).toString('hex');
  const sw = await startSwitchStack({ alsPort: o.alsPort, alsConfig: o.alsConfig, seed, progress });
  const stopOnSignal = () => {
    progress('bench:switch: interrupted, stopping the switch');
    sw.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const runs: SwitchBenchRun[] = [];
  const sinks = {
    originals: { discovery: new LatencyRecorder(), transfer: new LatencyRecorder(), e2e: new LatencyRecorder() },
    ours: { discovery: new LatencyRecorder(), transfer: new LatencyRecorder(), e2e: new LatencyRecorder() },
  };
  try {
    for (let round = 1; round <= o.rounds; round++) {
      for (const stack of roundOrder(round, o.stacks)) {
        progress(`round ${round}: ${stack}, ${o.rate} transfers/s offered for ${o.durationS} s`);
        runs.push(await measureRun(sw, stack, round, { ...o, seed }, progress, sinks[stack]));
      }
    }
  } finally {
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
    await sw.close();
  }
  const summary = summarise(runs);
  const scope =
    'Quotes are out of scope: each transfer is a lookup then a transfer, with no quoting service (the programme also times POST /quotes).';
  process.stdout.write(`\n${switchTables({ runs, summary }, table)}\n\n${scope}\n`);
  await finish({
    title: `bench:switch ${o.rate} transfers/s offered, ${o.durationS} s per run, ${o.rounds} rounds${o.stacks.length === 1 ? `, ${o.stacks[0]} alone` : ''}`,
    metrics: switchMetrics(runs, sinks),
    thresholds: o.thresholds,
    defaultMetric: `${o.stacks.includes('ours') ? 'ours' : 'originals'}_e2e`,
    out: o.out ?? join('bench-results', `switch-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    json: { bench: 'switch', scope, options: { ...o, help: undefined }, runs, summary },
  });
  if (!summary.allValid) {
    process.stderr.write('OUTCOME CHECK FAILED: a run failed or dropped transfers, or failed the validity gate\n');
    process.exitCode = 1;
  }
}
