import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `bench:als --baseline DIR`: the same scenario run alternately by another build of this repository (DIR, a
 * checkout built with `pnpm -r build`, e.g. the commit before a change) and by this one, each through its own
 * bench CLI, so each runs its ALS with its own defaults, as an issue's "at least 0.9 × what it measured before
 * this change in the same invocation" asks. The machines are shared and noisy: rounds alternate the order
 * (baseline first, then this build first), so a drift of the machine does not favour one side.
 */
export interface BaselineOptions {
  /** The other checkout's root. */
  readonly dir: string;
  /** This build's bench CLI (dist/cli.js). */
  readonly ownCli: string;
  /** The scenario's flags, passed to both sides as they are (no --out, --baseline, --rounds). */
  readonly args: readonly string[];
  readonly rounds: number;
  /** Variables set for the baseline's run only (e.g. one of its cache settings, for a like-for-like pair). */
  readonly baselineEnv: Readonly<Record<string, string>>;
  readonly progress: (line: string) => void;
}

/** What one side measured in one run, from the result JSON its CLI wrote. */
export interface SideResult {
  readonly lookupsPerSecond: number;
  readonly p99Ms: number;
  readonly checksRate: number;
  /** Cores the ALS process used, and its CPU per lookup in µs (undefined when its run did not report it). */
  readonly alsCores: number | undefined;
  readonly alsMicrosPerLookup: number | undefined;
  readonly commit: string | undefined;
}

export interface BaselineRound {
  readonly round: number;
  readonly order: 'baseline first' | 'this build first';
  readonly baseline: SideResult;
  readonly current: SideResult;
  /** this build's lookups/s over the baseline's. */
  readonly ratio: number;
}

export interface BaselineComparison {
  readonly baselineDir: string;
  readonly baselineEnv: Readonly<Record<string, string>>;
  readonly args: readonly string[];
  readonly rounds: readonly BaselineRound[];
  readonly lowestRatio: number;
  readonly meanRatio: number;
}

/** Flags of this run that are not the scenario's: each side writes its own --out, and only this run compares. */
const comparisonOnlyFlags = new Set(['--baseline', '--rounds', '--baseline-env', '--out']);

/** `argv` without the comparison's own flags (as `--flag value` or `--flag=value`): the scenario's flags. */
export function scenarioArgs(argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (!comparisonOnlyFlags.has(name)) kept.push(arg);
    else if (!arg.includes('=')) i++;
  }
  return kept;
}

/** `KEY=VALUE` items of --baseline-env as an environment. */
export function parseBaselineEnv(items: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    if (at <= 0) throw new Error(`--baseline-env must be KEY=VALUE, got "${item}"`);
    env[item.slice(0, at)] = item.slice(at + 1);
  }
  return env;
}

/** The baseline checkout's bench CLI, or an error saying how to build it. */
export function baselineCli(dir: string): string {
  const cli = join(resolve(dir), 'packages', 'bench', 'dist', 'cli.js');
  if (!existsSync(cli))
    throw new Error(
      `--baseline ${dir}: no ${cli}; check out the other commit there and build it (pnpm install && pnpm -r build)`,
    );
  return cli;
}

export async function compareWithBaseline(options: BaselineOptions): Promise<BaselineComparison> {
  const cli = baselineCli(options.dir);
  // `--drop-in` is newer than the builds it compares against: this build's bench drives both, the baseline's
  // ALS started from its checkout (the scenario is the bench's, the ALS is what differs).
  const dropIn = options.args.some((a) => a === '--drop-in' || a.startsWith('--drop-in='));
  const dropInEnv = { ...options.baselineEnv, MOJAFAST_BENCH_ALS_BUILD: resolve(options.dir) };
  const work = await mkdtemp(join(tmpdir(), 'bench-als-baseline-'));
  try {
    const rounds: BaselineRound[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      const baselineFirst = round % 2 === 1;
      const run = (side: 'baseline' | 'current') =>
        side === 'current'
          ? runSide(options.ownCli, process.cwd(), options, {}, join(work, `current-${round}.json`))
          : dropIn
            ? runSide(options.ownCli, resolve(options.dir), options, dropInEnv, join(work, `baseline-${round}.json`))
            : runSide(cli, resolve(options.dir), options, options.baselineEnv, join(work, `baseline-${round}.json`));
      options.progress(`round ${round}/${options.rounds}: ${baselineFirst ? 'baseline first' : 'this build first'}`);
      const first = await run(baselineFirst ? 'baseline' : 'current');
      const second = await run(baselineFirst ? 'current' : 'baseline');
      const [baseline, current] = baselineFirst ? [first, second] : [second, first];
      const ratio = baseline.lookupsPerSecond > 0 ? current.lookupsPerSecond / baseline.lookupsPerSecond : 0;
      options.progress(
        `  baseline ${baseline.lookupsPerSecond.toFixed(0)}/s, this build ${current.lookupsPerSecond.toFixed(0)}/s: ${ratio.toFixed(2)}`,
      );
      rounds.push({ round, order: baselineFirst ? 'baseline first' : 'this build first', baseline, current, ratio });
    }
    const ratios = rounds.map((r) => r.ratio);
    return {
      baselineDir: resolve(options.dir),
      baselineEnv: options.baselineEnv,
      args: options.args,
      rounds,
      lowestRatio: Math.min(...ratios),
      meanRatio: ratios.reduce((a, b) => a + b, 0) / ratios.length,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** One side's run: its own CLI, its own working directory, its result JSON read back. */
async function runSide(
  cli: string,
  cwd: string,
  options: BaselineOptions,
  extraEnv: Readonly<Record<string, string>>,
  out: string,
): Promise<SideResult> {
  const args = [cli, 'als', ...options.args, '--out', out];
  const code = await new Promise<number | null>((done, fail) => {
    // The side's summary goes nowhere (its figures are in the table this run prints); its progress and
    // errors are this run's stderr, so a failing side says why.
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, ...extraEnv },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', fail);
    child.on('exit', done);
  });
  if (code !== 0 || !existsSync(out))
    throw new Error(`${cwd}: \`node ${args.join(' ')}\` exited ${code} without a result (run it alone to see why)`);
  return sideResult(JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>);
}

/** The fields every build's `bench:als --out` has written (cpu_cores only the later ones: absent is unknown). */
export function sideResult(json: Record<string, unknown>): SideResult {
  const lookupsPerSecond = Number(json.lookups_per_s);
  const e2e = json.e2e_ms as { p99?: number } | undefined;
  const cpu = json.cpu_cores as Record<string, number> | undefined;
  const alsCores = typeof cpu?.als === 'number' ? cpu.als : undefined;
  const run = json.run as { commit?: string } | undefined;
  return {
    lookupsPerSecond,
    p99Ms: Number(e2e?.p99),
    checksRate: Number(json.checks_rate),
    alsCores,
    alsMicrosPerLookup:
      alsCores !== undefined && lookupsPerSecond > 0 ? (alsCores / lookupsPerSecond) * 1e6 : undefined,
    commit: run?.commit,
  };
}

/** The comparison as a markdown table, a row per round, then the lowest and the mean ratio. */
export function baselineTable(comparison: BaselineComparison): string {
  const us = (side: SideResult) => (side.alsMicrosPerLookup === undefined ? 'n/a' : side.alsMicrosPerLookup.toFixed(1));
  const env = Object.entries(comparison.baselineEnv).map(([k, v]) => `${k}=${v}`);
  const lines = [
    `baseline: ${comparison.baselineDir}${comparison.rounds[0]?.baseline.commit ? ` (${comparison.rounds[0].baseline.commit})` : ''}${env.length ? `, run with ${env.join(' ')}` : ''}`,
    `scenario flags: ${comparison.args.length ? comparison.args.join(' ') : '(defaults)'}`,
    '',
    '| round | order | baseline lookups/s | baseline ALS µs/lookup | this build lookups/s | this build ALS µs/lookup | ratio |',
    '|---|---|---|---|---|---|---|',
    ...comparison.rounds.map(
      (r) =>
        `| ${r.round} | ${r.order} | ${r.baseline.lookupsPerSecond.toFixed(0)} | ${us(r.baseline)} | ${r.current.lookupsPerSecond.toFixed(0)} | ${us(r.current)} | ${r.ratio.toFixed(2)} |`,
    ),
    '',
    `ratio (this build / baseline): lowest ${comparison.lowestRatio.toFixed(2)}, mean ${comparison.meanRatio.toFixed(2)}`,
  ];
  return lines.join('\n');
}
