import type { LatencySummary } from '../report/latency.js';
import type { ValidityGate } from './validity.js';

/**
 * What one bench:switch run measured, and the figure users ask for: cores of ALS and of position handler per
 * 1,000 completed transfers/s. A process's cores per 1,000 transfers/s is its CPU seconds per transfer times
 * 1,000, i.e. its CPU µs per transfer / 1,000: the rate it would need that many cores for, at the cost per
 * transfer measured (a process's idle cost, spread over few transfers at a low rate, counts against it).
 */
export type Stack = 'originals' | 'ours';

export interface SwitchBenchRun {
  readonly stack: Stack;
  readonly round: number;
  readonly offeredPerSecond: number;
  readonly durationS: number;
  readonly started: number;
  readonly dropped: number;
  readonly completed: number;
  readonly failed: number;
  /** Failures by stage and cause. */
  readonly failures: Record<string, number>;
  /** Completed transfers over the run's window, first arrival to last completion. */
  readonly completedPerSecond: number;
  readonly discovery: LatencySummary;
  readonly transfer: LatencySummary;
  readonly e2e: LatencySummary;
  readonly gate: ValidityGate;
  /** CPU µs per completed transfer, by process (als, als_admin, position, ...). */
  readonly cpuMicrosPerTransfer: Record<string, number>;
  /** Cores each process used with no load, measured just before the run (polling, timers, housekeeping). */
  readonly idleCores: Record<string, number>;
  /** CPU µs per transfer above each process's idle use: what one more transfer costs. */
  readonly marginalMicrosPerTransfer: Record<string, number>;
  readonly coresPer1000: CoresPer1000;
  /** The same from the marginal cost: the idle use, spread over few transfers at a low rate, left out. */
  readonly marginalCoresPer1000: CoresPer1000;
}

export interface CoresPer1000 {
  readonly als: number;
  readonly position: number;
}

/** The ALS's processes: ours serves both APIs in one; the original runs `--api` and `--admin` apart. */
const alsProcesses = ['als', 'als_admin'];

/** µs per transfer from cores over the window; with `idle`, only the cores above each process's idle use. */
export function microsPerTransfer(
  cores: Record<string, number>,
  windowS: number,
  completed: number,
  idle: Record<string, number> = {},
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(cores).map(([name, c]) => {
      const busy = Math.max(0, c - (idle[name] ?? 0));
      return [name, completed === 0 ? 0 : Math.round((busy * windowS * 1e6) / completed)];
    }),
  );
}

export function coresPer1000(cpuMicrosPerTransfer: Record<string, number>): CoresPer1000 {
  const sum = (names: readonly string[]) => names.reduce((s, n) => s + (cpuMicrosPerTransfer[n] ?? 0), 0);
  return { als: sum(alsProcesses) / 1000, position: (cpuMicrosPerTransfer.position ?? 0) / 1000 };
}

export interface StackSummary {
  readonly stack: Stack;
  readonly runs: number;
  readonly completedPerSecond: number;
  readonly e2eP95: number;
  readonly coresPer1000: CoresPer1000;
  readonly marginalCoresPer1000: CoresPer1000;
}

export interface SwitchBenchSummary {
  /** The stacks that ran (`--stacks` may run one alone). */
  readonly stacks: readonly StackSummary[];
  /** Originals' cores over ours': how many times fewer cores ours needs for the same rate; absent unless both ran. */
  readonly alsCoresRatio?: number;
  readonly positionCoresRatio?: number;
  readonly alsMarginalCoresRatio?: number;
  readonly positionMarginalCoresRatio?: number;
  /** Every run held the gate and completed every arrival (none failed, none dropped). */
  readonly allValid: boolean;
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export function summarise(runs: readonly SwitchBenchRun[]): SwitchBenchSummary {
  const stacks = (['originals', 'ours'] as const).flatMap((stack): StackSummary[] => {
    const mine = runs.filter((r) => r.stack === stack);
    if (mine.length === 0) return [];
    return [
      {
        stack,
        runs: mine.length,
        completedPerSecond: mean(mine.map((r) => r.completedPerSecond)),
        e2eP95: mean(mine.map((r) => r.e2e.p95)),
        coresPer1000: {
          als: mean(mine.map((r) => r.coresPer1000.als)),
          position: mean(mine.map((r) => r.coresPer1000.position)),
        },
        marginalCoresPer1000: {
          als: mean(mine.map((r) => r.marginalCoresPer1000.als)),
          position: mean(mine.map((r) => r.marginalCoresPer1000.position)),
        },
      },
    ];
  });
  const allValid = runs.length > 0 && runs.every((r) => r.gate.valid && r.failed === 0 && r.dropped === 0);
  const originals = stacks.find((s) => s.stack === 'originals');
  const ours = stacks.find((s) => s.stack === 'ours');
  if (!originals || !ours) return { stacks, allValid };
  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  return {
    stacks,
    alsCoresRatio: ratio(originals.coresPer1000.als, ours.coresPer1000.als),
    positionCoresRatio: ratio(originals.coresPer1000.position, ours.coresPer1000.position),
    alsMarginalCoresRatio: ratio(originals.marginalCoresPer1000.als, ours.marginalCoresPer1000.als),
    positionMarginalCoresRatio: ratio(originals.marginalCoresPer1000.position, ours.marginalCoresPer1000.position),
    allValid,
  };
}
