import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { relative } from 'node:path';

/** When this process started and how loaded the machine was then: a run's figures depend on both. */
const startedAt = new Date();
const loadAtStart = loadavg();

function git(args: readonly string[]): string | null {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

const twoDecimals = (values: readonly number[]) => values.map((v) => Number(v.toFixed(2)));

/**
 * What a result file must carry for its figures to be quoted (bench:report prints it beside each row): the
 * code measured (commit, and whether the work tree differed from it), when, how loaded the machine was (load
 * average over 1, 5 and 15 minutes at the start and at the end of the run, and its core count), and the
 * command that produced it.
 */
export function provenance(argv: readonly string[] = process.argv): Record<string, unknown> {
  const status = git(['status', '--porcelain', '--untracked-files=no']);
  const script = argv[1] ? relative(process.cwd(), argv[1]) : '';
  return {
    commit: git(['rev-parse', 'HEAD']),
    dirty: status === null ? null : status !== '',
    date: startedAt.toISOString(),
    finished: new Date().toISOString(),
    load_avg_start: twoDecimals(loadAtStart),
    load_avg_end: twoDecimals(loadavg()),
    cores: cpus().length,
    command: ['node', script, ...argv.slice(2)].join(' '),
  };
}
