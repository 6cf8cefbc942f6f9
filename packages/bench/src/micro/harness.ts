/**
 * A micro-benchmark harness small enough to read in one go: each case sets up its sides (ours first, then the
 * library alternatives and any floor), measures one warm-up sample of every side, then `samples` rounds in which
 * every side measures one sample, the order of the sides rotating each round so that no side always runs first
 * (or right after the garbage another one left). A sample is a cost per operation (nanoseconds of wall time for
 * a loop in this process, or microseconds of CPU for a loopback exchange); the median of the samples is the
 * figure, the spread beside it.
 */

/** ours; a library's way; the plain way of doing the same without a library or a hand-written piece; a floor. */
export type SideRole = 'ours' | 'library' | 'plain' | 'floor';

export interface MicroSide {
  readonly label: string;
  readonly role: SideRole;
  /** One sample: runs the operation `operations` times and returns its cost per operation, in the case's unit. */
  sample(operations: number): Promise<number> | number;
}

export interface MicroCase {
  readonly name: string;
  /** The piece measured and the operation, in a sentence (shown beside the figures). */
  readonly operation: string;
  /** The load of one sample: inputs, concurrency, sizes. */
  readonly load: string;
  readonly unit: 'ns/op' | 'µs CPU/op';
  /** Operations per sample. */
  readonly operations: number;
  /** Builds the sides (servers, inputs from the seed); `close` ends whatever they opened. */
  setUp(seed: number): Promise<{ sides: readonly MicroSide[]; close(): Promise<void> }>;
}

export interface SideResult {
  readonly label: string;
  readonly role: SideRole;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly samples: readonly number[];
  /** This side's median over ours (above 1: ours is cheaper); 1 for ours. */
  readonly vs_ours: number;
}

export interface CaseResult {
  readonly name: string;
  readonly operation: string;
  readonly load: string;
  readonly unit: string;
  readonly operations_per_sample: number;
  readonly sides: readonly SideResult[];
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const round3 = (n: number) => Number(n.toPrecision(4));

export async function runCase(
  micro: MicroCase,
  options: { seed: number; samples: number; scale: number; log?: (line: string) => void },
): Promise<CaseResult> {
  const { sides, close } = await micro.setUp(options.seed);
  const operations = Math.max(1, Math.round(micro.operations * options.scale));
  const figures: number[][] = sides.map(() => []);
  try {
    for (const side of sides) await side.sample(operations);
    for (let round = 0; round < options.samples; round++) {
      for (let k = 0; k < sides.length; k++) {
        const i = (round + k) % sides.length;
        (figures[i] as number[]).push(await (sides[i] as MicroSide).sample(operations));
      }
      options.log?.(
        `${micro.name} round ${round + 1}/${options.samples}: ${sides.map((s, i) => `${s.label} ${(figures[i] as number[]).at(-1)?.toFixed(1)}`).join(', ')}`,
      );
    }
  } finally {
    await close();
  }
  const oursMedian = median(figures[0] as number[]);
  return {
    name: micro.name,
    operation: micro.operation,
    load: micro.load,
    unit: micro.unit,
    operations_per_sample: operations,
    sides: sides.map((side, i) => {
      const values = figures[i] as number[];
      return {
        label: side.label,
        role: side.role,
        median: round3(median(values)),
        min: round3(Math.min(...values)),
        max: round3(Math.max(...values)),
        samples: values.map(round3),
        vs_ours: round3(median(values) / oursMedian),
      };
    }),
  };
}

/** Wall nanoseconds per call of `body` over `operations` calls (a synchronous loop). */
export function timeLoop(operations: number, body: (i: number) => void): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < operations; i++) body(i);
  return Number(process.hrtime.bigint() - start) / operations;
}

/** Wall nanoseconds per call of an asynchronous `body`, awaited one at a time. */
export async function timeAsyncLoop(operations: number, body: (i: number) => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < operations; i++) await body(i);
  return Number(process.hrtime.bigint() - start) / operations;
}

/** This process's CPU microseconds (user + system) per operation while `work` runs `operations` of them. */
export async function cpuPerOperation(operations: number, work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / operations;
}

/** A small seeded PRNG (mulberry32): the inputs of a case are the same for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Keeps a value alive so the compiler cannot drop the work that made it. */
export let sink: unknown;
export function keep(value: unknown): void {
  sink = value;
}
