import { readdir, readFile } from 'node:fs/promises';

const clockTicksPerSecond = 100; // USER_HZ on Linux, the unit of utime/stime in /proc/<pid>/stat

async function cpuSeconds(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name, which may itself hold spaces (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
  } catch {
    return undefined;
  }
}

async function parentOf(pid: string): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * A process and every process below it (an ALS started with ALS_PROCESSES=4 is one primary and 4
 * workers), except the subtrees of `others`: the generator's children measured under names of their own.
 */
export async function processTree(root: number, others: ReadonlySet<number>): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const parents = await Promise.all(pids.map(async (pid) => [Number(pid), await parentOf(pid)] as const));
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, parent] of parents) if (parent === tree[i] && !others.has(pid)) tree.push(pid);
  }
  return tree;
}

async function treeCpuSeconds(root: number, others: ReadonlySet<number>): Promise<number | undefined> {
  const seconds = await Promise.all((await processTree(root, others)).map(cpuSeconds));
  if (seconds[0] === undefined) return undefined;
  return seconds.reduce<number>((sum, s) => sum + (s ?? 0), 0);
}

/**
 * CPU time used by named processes (each with its child processes) over an interval, read from /proc: how much of the 2 cores the
 * handler, the broker and the database each took while the benchmark ran.
 */
export class CpuMeter {
  readonly #start = new Map<string, number>();
  #startedAt = 0;

  readonly #roots: ReadonlySet<number>;

  constructor(readonly pids: ReadonlyMap<string, number>) {
    this.#roots = new Set(pids.values());
  }

  async start(): Promise<void> {
    this.#startedAt = performance.now();
    for (const [name, pid] of this.pids) {
      const seconds = await treeCpuSeconds(pid, this.#roots);
      if (seconds !== undefined) this.#start.set(name, seconds);
    }
  }

  /** Cores used on average per process since start(): 1.0 = one core fully busy. */
  async stop(): Promise<Record<string, number>> {
    const wall = (performance.now() - this.#startedAt) / 1000;
    const result: Record<string, number> = {};
    for (const [name, pid] of this.pids) {
      const before = this.#start.get(name);
      const after = await treeCpuSeconds(pid, this.#roots);
      if (before !== undefined && after !== undefined && wall > 0) result[name] = (after - before) / wall;
    }
    return result;
  }
}
