import { entryPoints } from '../load/paths.js';
import { spawnUntilReadyLine } from '../load/processes.js';
import { markdownTable } from '../report/table.js';
import { runScenario, type Scenario } from './scenario.js';
import type { AlsUnderTest } from './stack.js';

/**
 * Two or more ALSs (or an ALS and its floor) driven by the same scenario on fresh simulators, one after the
 * other, `rounds` times, the order reversed every other round, so a drift of the shared machine favours no
 * side. CPU per lookup is the measured process's own CPU time over the lookups it completed: the one figure
 * that does not depend on what else ran.
 */
export interface Side {
  readonly name: string;
  /** undefined: ours at the bench's defaults. */
  readonly als?: AlsUnderTest;
}

export interface SideRun {
  readonly side: string;
  readonly round: number;
  readonly lookupsPerSecond: number;
  readonly p99Ms: number;
  readonly checksRate: number;
  readonly failed: number;
  /** Cores per process during the window, and resident MB per process at its end. */
  readonly cores: Record<string, number>;
  readonly rssMb: Record<string, number>;
  /** The measured ALS process's (`als`) CPU per completed lookup, µs. */
  readonly alsMicrosPerLookup: number;
}

export async function alternate(
  sides: readonly Side[],
  scenario: Scenario,
  rounds: number,
  progress: (line: string) => void,
): Promise<SideRun[]> {
  const runs: SideRun[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? sides : [...sides].reverse();
    for (const side of order) {
      progress(`round ${round}/${rounds}: ${side.name}`);
      const result = await runScenario({ ...scenario, stack: { ...scenario.stack, als: side.als } }, progress);
      const { driver } = result;
      const cores = result.cpu.als ?? 0;
      const run: SideRun = {
        side: side.name,
        round,
        lookupsPerSecond: driver.lookupsPerSecond,
        p99Ms: driver.e2e.p99,
        checksRate: driver.passes + driver.fails === 0 ? 0 : driver.passes / (driver.passes + driver.fails),
        failed: driver.fails,
        cores: result.cpu,
        rssMb: result.rssMb,
        alsMicrosPerLookup: driver.lookupsPerSecond > 0 ? (cores / driver.lookupsPerSecond) * 1e6 : Number.NaN,
      };
      progress(
        `  ${side.name}: ${run.lookupsPerSecond.toFixed(0)} lookups/s, p99 ${run.p99Ms.toFixed(1)} ms, ALS ${cores.toFixed(2)} cores = ${run.alsMicrosPerLookup.toFixed(0)} µs/lookup, RSS ${JSON.stringify(run.rssMb)}`,
      );
      runs.push(run);
    }
  }
  return runs;
}

export interface SideSummary {
  readonly side: string;
  readonly lookupsPerSecond: number;
  readonly p99Ms: number;
  readonly alsMicrosPerLookup: number;
  readonly alsCores: number;
  /** The measured ALS's largest RSS at the end of a round, MB. */
  readonly alsRssMb: number;
  readonly failed: number;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** Each side's mean over its rounds (RSS: the largest, so growth across rounds is not averaged away). */
export function summarise(runs: readonly SideRun[]): SideSummary[] {
  const names = [...new Set(runs.map((r) => r.side))];
  return names.map((side) => {
    const own = runs.filter((r) => r.side === side);
    return {
      side,
      lookupsPerSecond: mean(own.map((r) => r.lookupsPerSecond)),
      p99Ms: mean(own.map((r) => r.p99Ms)),
      alsMicrosPerLookup: mean(own.map((r) => r.alsMicrosPerLookup)),
      alsCores: mean(own.map((r) => r.cores.als ?? 0)),
      alsRssMb: Math.max(...own.map((r) => r.rssMb.als ?? 0)),
      failed: own.reduce((sum, r) => sum + r.failed, 0),
    };
  });
}

/** A markdown table: a row per run, then each side's mean. */
export function runsTable(runs: readonly SideRun[]): string {
  const rss = (r: SideRun) =>
    Object.entries(r.rssMb)
      .map(([k, v]) => `${k} ${v.toFixed(0)}`)
      .join(', ');
  return markdownTable(
    ['round', 'side', 'lookups/s', 'p99 ms', 'ALS cores', 'ALS µs/lookup', 'failed', 'RSS MB at the end'],
    runs.map((r) => [
      String(r.round),
      r.side,
      r.lookupsPerSecond.toFixed(0),
      r.p99Ms.toFixed(1),
      (r.cores.als ?? 0).toFixed(2),
      r.alsMicrosPerLookup.toFixed(0),
      String(r.failed),
      rss(r),
    ]),
    { align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'left'] },
  );
}

/** The relay floor (relay.ts) in its own process, measured as `als`. */
export const relayFloor: AlsUnderTest = async (sims, port) => {
  const relay = await spawnUntilReadyLine({
    name: 'relay',
    command: process.execPath,
    args: [entryPoints.alsRelay, '--port', String(port), '--switch', sims.admin, '--oracle', sims.oracle],
  });
  // The relay reports a lookup it could not relay on stderr: the first few reach the bench's own, so a run
  // that loses lookups says why.
  let told = 0;
  relay.child.stderr?.on('data', (chunk: Buffer) => {
    if (told++ < 5) process.stderr.write(chunk);
  });
  return { pids: new Map([['als', relay.child.pid ?? 0]]), stop: () => relay.stop() };
};
