import { readFile } from 'node:fs/promises';

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

/**
 * CPU time used by named processes over an interval, read from /proc: how much of the 2 cores the
 * handler, the broker and the database each took while the benchmark ran.
 */
export class CpuMeter {
  readonly #start = new Map<string, number>();
  #startedAt = 0;

  constructor(readonly pids: ReadonlyMap<string, number>) {}

  async start(): Promise<void> {
    this.#startedAt = performance.now();
    for (const [name, pid] of this.pids) {
      const seconds = await cpuSeconds(pid);
      if (seconds !== undefined) this.#start.set(name, seconds);
    }
  }

  /** Cores used on average per process since start(): 1.0 = one core fully busy. */
  async stop(): Promise<Record<string, number>> {
    const wall = (performance.now() - this.#startedAt) / 1000;
    const result: Record<string, number> = {};
    for (const [name, pid] of this.pids) {
      const before = this.#start.get(name);
      const after = await cpuSeconds(pid);
      if (before !== undefined && after !== undefined && wall > 0) result[name] = (after - before) / wall;
    }
    return result;
  }
}
