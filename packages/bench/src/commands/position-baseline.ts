import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { comparedRunFailures, comparedRunJson, cpuMicrosPerMessage } from '../position/result-json.js';
import type { PhaseResult, PositionBenchOptions, PositionBenchResult } from '../position/run.js';
import { writeJson } from '../report/json.js';
import { markdownTable } from '../report/table.js';
import { progress } from './outcome.js';

/**
 * `bench:position --baseline DIR`: the handler of another build of this repository (DIR, a checkout built with
 * `pnpm -r build`, e.g. the commit before a change) and this build's, on the same messages in one invocation:
 * the same bench, database schema, dump and settings, only the handler process differs. Rounds alternate who goes
 * first (round 1 the baseline), so a drift of the shared machine favours neither side.
 */
export interface BaselineComparison {
  readonly baselineDir: string;
  readonly rounds: readonly { round: number; baseline: PositionBenchResult; current: PositionBenchResult }[];
}

/** Runs one replay: runPositionBench, or a stand-in in tests. */
export type Replay = (options: PositionBenchOptions) => Promise<PositionBenchResult>;

const PHASES = ['prepare', 'commit'] as const;

/** The baseline checkout's built handler, or an error saying how to build it. */
export function baselineHandler(dir: string): string {
  const entry = join(resolve(dir), 'packages', 'position-handler', 'dist', 'position.js');
  if (!existsSync(entry))
    throw new Error(`--baseline ${dir}: no ${entry}; check out the other commit there and build it (pnpm -r build)`);
  return entry;
}

export async function compareWithBaseline(
  base: PositionBenchOptions,
  rounds: number,
  dir: string,
  replay: Replay,
): Promise<BaselineComparison> {
  const baselineEntry = baselineHandler(dir);
  const scratch = base.dump ? undefined : await mkdtemp(join(tmpdir(), 'bench-position-baseline-'));
  const out: { round: number; baseline: PositionBenchResult; current: PositionBenchResult }[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      const order: ('baseline' | 'current')[] = round % 2 === 1 ? ['baseline', 'current'] : ['current', 'baseline'];
      const results: Partial<Record<'baseline' | 'current', PositionBenchResult>> = {};
      for (const side of order) {
        // The first run writes the generated messages, every other run replays them.
        const first = round === 1 && side === order[0];
        const dumpFiles = scratch
          ? first
            ? { writeDump: join(scratch, 'dump.txt') }
            : { dump: join(scratch, 'dump.txt') }
          : {};
        progress(
          `bench:position --baseline round ${round}: ${side === 'baseline' ? 'the baseline' : 'this build'}'s handler`,
        );
        results[side] = await replay({
          ...base,
          ...dumpFiles,
          target: 'handler',
          ...(side === 'baseline' ? { handlerEntry: baselineEntry } : {}),
        });
      }
      out.push({
        round,
        baseline: results.baseline as PositionBenchResult,
        current: results.current as PositionBenchResult,
      });
    }
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
  return { baselineDir: resolve(dir), rounds: out };
}

function phase(result: PositionBenchResult, label: string): PhaseResult | undefined {
  return result.phases.find((p) => p.action === label);
}

/** msgs/s, p99, the handler's and MariaDB's CPU µs per message of one phase. */
function figures(result: PositionBenchResult, label: string): (number | undefined)[] {
  const p = phase(result, label);
  const cpu = p ? cpuMicrosPerMessage(p) : {};
  return [p?.msgsPerSecond, p?.latency.p99, cpu.handler, cpu.mariadb];
}

const fmt = (x: number | undefined, digits = 0) => (x === undefined ? '-' : x.toFixed(digits));
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? undefined : a / b;

/** One row per run, then this build / baseline per round (msgs/s; CPU and p99 as this build's over the baseline's) and the mean. */
export function baselineTable(c: BaselineComparison): string {
  const header = [
    'round',
    'handler',
    ...PHASES.flatMap((p) => [`${p} msgs/s`, `${p} p99 ms`, `${p} handler µs/msg`, `${p} MariaDB µs/msg`]),
  ];
  const rows: string[][] = [];
  const ratios: (number | undefined)[][] = [];
  for (const r of c.rounds) {
    rows.push([String(r.round), 'baseline', ...PHASES.flatMap((p) => figures(r.baseline, p).map((x) => fmt(x)))]);
    rows.push([String(r.round), 'this build', ...PHASES.flatMap((p) => figures(r.current, p).map((x) => fmt(x)))]);
    const row = PHASES.flatMap((p) => {
      const [b, t] = [figures(r.baseline, p), figures(r.current, p)];
      return t.map((x, i) => ratio(x, b[i]));
    });
    ratios.push(row);
    rows.push([String(r.round), 'this / baseline', ...row.map((x) => fmt(x, 2))]);
  }
  const mean = (ratios[0] ?? []).map((_, i) => {
    const xs = ratios.map((r) => r[i]).filter((x): x is number => x !== undefined);
    return xs.length === ratios.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined;
  });
  rows.push(['mean', 'this / baseline', ...mean.map((x) => fmt(x, 2))]);
  return markdownTable(header, rows, { pad: true });
}

export async function writeBaselineJson(file: string, c: BaselineComparison, command: string): Promise<void> {
  await writeJson(file, {
    command,
    baseline_dir: c.baselineDir,
    rounds: c.rounds.map((r) => ({
      round: r.round,
      baseline: comparedRunJson(r.baseline),
      current: comparedRunJson(r.current),
    })),
  });
}

/** Lost, duplicated or wrong positions in any run: the figures are not worth printing as a result then. */
export function baselineFailures(c: BaselineComparison): string[] {
  return c.rounds.flatMap((r) => [
    ...comparedRunFailures(r.round, 'baseline', r.baseline),
    ...comparedRunFailures(r.round, 'this build', r.current),
  ]);
}
