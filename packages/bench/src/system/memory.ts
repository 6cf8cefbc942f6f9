import { readFile } from 'node:fs/promises';
import { processTree } from './cpu.js';

async function rssBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return kb ? Number(kb[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resident memory now, in MB, of each named process with its children (as CpuMeter counts them: the subtrees of
 * the other named processes apart), read from /proc: taken at the end of each phase, so growth across phases
 * or rounds shows.
 */
export async function residentMegabytes(pids: ReadonlyMap<string, number>): Promise<Record<string, number>> {
  const roots = new Set(pids.values());
  const result: Record<string, number> = {};
  for (const [name, pid] of pids) {
    const tree = await processTree(pid, roots);
    const sizes = await Promise.all(tree.map(rssBytes));
    if (sizes[0] === undefined) continue;
    result[name] = Number((sizes.reduce<number>((sum, s) => sum + (s ?? 0), 0) / 1e6).toFixed(1));
  }
  return result;
}
