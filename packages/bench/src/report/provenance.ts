import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { relative } from 'node:path';

function git(args: readonly string[]): string | null {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/**
 * The code, the time and the machine's load when this process started (the work tree may move on while a long
 * run goes): a run's figures depend on all three.
 */
const startedAt = new Date();
const loadAtStart = loadavg();
const commitAtStart = git(['rev-parse', 'HEAD']);
/** Tracked files that differ from the commit, prose and result files aside (they change no figure). */
const statusAtStart = git([
  'status',
  '--porcelain',
  '--untracked-files=no',
  '--',
  ':(top)',
  ':(top,exclude,glob)**/*.md',
  ':(top,exclude,glob)**/measured/**',
]);

const twoDecimals = (values: readonly number[]) => values.map((v) => Number(v.toFixed(2)));

/**
 * What a result file must carry for its figures to be quoted (bench:report prints it beside each row): the
 * code measured (commit, and whether the work tree differed from it), when, how loaded the machine was (load
 * average over 1, 5 and 15 minutes at the start and at the end of the run, and its core count), and the
 * command that produced it.
 */
export function provenance(argv: readonly string[] = process.argv): Record<string, unknown> {
  const script = argv[1] ? relative(process.cwd(), argv[1]) : '';
  return {
    commit: commitAtStart,
    dirty: statusAtStart === null ? null : statusAtStart !== '',
    date: startedAt.toISOString(),
    finished: new Date().toISOString(),
    load_avg_start: twoDecimals(loadAtStart),
    load_avg_end: twoDecimals(loadavg()),
    cores: cpus().length,
    command: ['node', script, ...argv.slice(2)].join(' '),
  };
}
