import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { comparedRunFailures, comparedRunJson, cpuMicrosPerMessage } from '../position/result-json.js';
import {
  type PhaseResult,
  type PositionBenchOptions,
  type PositionBenchResult,
  runPositionBench,
} from '../position/run.js';
import { writeJson } from '../report/json.js';
import { markdownTable } from '../report/table.js';
import { progress } from './outcome.js';

/**
 * `bench:position --original`: central-ledger 19.5.5's own batch position handler and ours on the same messages
 * in one invocation, alternating (round 1 the original first, round 2 ours first, ...), so a drift of the shared
 * machine favours neither. Each run gets a fresh database migrated with central-ledger's own migrations and
 * seeds and provisioned alike, the same dump replayed (the first run writes it), the same batch size and log
 * level (warn). Per run: prepares/s and commits/s from the first input to the last notification, and the
 * position process's CPU per message; then ours/original per round and their mean.
 */
export interface OriginalComparison {
  readonly rounds: { round: number; original: PositionBenchResult; ours: PositionBenchResult }[];
}

const PHASES = ['prepare', 'commit'] as const;

function phase(result: PositionBenchResult, label: string): PhaseResult | undefined {
  return result.phases.find((p) => p.action === label);
}

function cpuOf(result: PositionBenchResult, label: string, process: 'original' | 'handler'): number | undefined {
  const p = phase(result, label);
  return p ? cpuMicrosPerMessage(p)[process] : undefined;
}

export async function compareWithOriginal(base: PositionBenchOptions, rounds: number): Promise<OriginalComparison> {
  const scratch = base.dump ? undefined : await mkdtemp(join(tmpdir(), 'bench-position-original-'));
  const out: OriginalComparison['rounds'] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      const order: ('original' | 'handler')[] = round % 2 === 1 ? ['original', 'handler'] : ['handler', 'original'];
      const results: Partial<Record<'original' | 'handler', PositionBenchResult>> = {};
      for (const target of order) {
        const first = round === 1 && target === order[0];
        const dumpFiles = scratch
          ? first
            ? { writeDump: join(scratch, 'dump.txt') }
            : { dump: join(scratch, 'dump.txt') }
          : {};
        progress(
          `bench:position --original round ${round}: ${target === 'original' ? "central-ledger's" : 'our'} position handler`,
        );
        results[target] = await runPositionBench({ ...base, ...dumpFiles, target, centralLedgerSchema: true });
      }
      out.push({
        round,
        original: results.original as PositionBenchResult,
        ours: results.handler as PositionBenchResult,
      });
    }
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
  return { rounds: out };
}

const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? undefined : a / b;
const fmt = (x: number | undefined, digits = 0) => (x === undefined ? '-' : x.toFixed(digits));

/** The table: one row per run, then ours/original per round and the mean. */
export function originalTable(c: OriginalComparison): string {
  const header = ['round', 'position handler', ...PHASES.flatMap((p) => [`${p}s/s`, `${p} p99 ms`, `${p} CPU µs/msg`])];
  const rows: string[][] = [];
  const ratios: number[][] = [];
  for (const r of c.rounds) {
    for (const [label, result, proc] of [
      ["central-ledger's", r.original, 'original'],
      ['ours', r.ours, 'handler'],
    ] as const) {
      rows.push([
        String(r.round),
        label,
        ...PHASES.flatMap((p) => [
          fmt(phase(result, p)?.msgsPerSecond),
          fmt(phase(result, p)?.latency.p99),
          fmt(cpuOf(result, p, proc)),
        ]),
      ]);
    }
    const row = PHASES.flatMap((p) => [
      ratio(phase(r.ours, p)?.msgsPerSecond, phase(r.original, p)?.msgsPerSecond),
      ratio(phase(r.original, p)?.latency.p99, phase(r.ours, p)?.latency.p99),
      ratio(cpuOf(r.original, p, 'original'), cpuOf(r.ours, p, 'handler')),
    ]);
    ratios.push(row.map((x) => x ?? Number.NaN));
    rows.push([
      String(r.round),
      'ours / original (CPU, p99: original / ours)',
      ...row.map((x) => (x === undefined ? '-' : `${x.toFixed(1)}×`)),
    ]);
  }
  const mean = ratios[0]?.map((_, i) => ratios.reduce((s, r) => s + (r[i] ?? 0), 0) / ratios.length) ?? [];
  rows.push(['mean', 'ours / original', ...mean.map((x) => `${x.toFixed(1)}×`)]);
  return markdownTable(header, rows, { pad: true });
}

export async function writeOriginalJson(file: string, c: OriginalComparison, command: string): Promise<void> {
  await writeJson(file, {
    command,
    rounds: c.rounds.map((r) => ({
      round: r.round,
      original: comparedRunJson(r.original),
      ours: comparedRunJson(r.ours),
    })),
  });
}

/** Lost, duplicated or wrong positions in any run: the figures are not worth printing as a result then. */
export function originalFailures(c: OriginalComparison): string[] {
  return c.rounds.flatMap((r) => [
    ...comparedRunFailures(r.round, 'original', r.original),
    ...comparedRunFailures(r.round, 'ours', r.ours),
  ]);
}
