import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `bench:als --baseline DIR` runs the built CLI of both checkouts; here both are this repository, so the
// comparison itself is what is tested: both sides really ran, each wrote its result, the env given for the
// baseline reached the baseline's ALS and only it.
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const cli = join(repoRoot, 'packages', 'bench', 'dist', 'cli.js');
const quick = ['--duration', '1', '--warmup', '0', '--vus', '2', '--rounds', '1'];

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'als-baseline-test-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function bench(args: string[]) {
  return spawnSync(process.execPath, [cli, 'als', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
}

describe('bench:als --baseline', () => {
  it('runs the scenario by both builds and reports each side and their ratio', async () => {
    const out = join(work, 'comparison.json');
    const run = bench(['--baseline', repoRoot, ...quick, '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    const comparison = JSON.parse(await readFile(out, 'utf8'));
    expect(comparison.comparison).toBe('baseline');
    expect(comparison.args).toEqual(['--duration', '1', '--warmup', '0', '--vus', '2']);
    expect(comparison.rounds).toHaveLength(1);
    const [round] = comparison.rounds;
    for (const side of [round.baseline, round.current]) {
      expect(side.lookupsPerSecond).toBeGreaterThan(0);
      expect(side.checksRate).toBe(1);
      expect(side.alsMicrosPerLookup).toBeGreaterThan(0);
    }
    expect(round.ratio).toBeCloseTo(round.current.lookupsPerSecond / round.baseline.lookupsPerSecond, 6);
    expect(run.stdout).toContain('| 1 | baseline first |');
    expect(run.stdout).toContain('ratio (this build / baseline): lowest');
  }, 90_000);

  it("sets --baseline-env for the baseline's runs: a bad ALS setting there fails the comparison, naming the run", () => {
    // Bad input: ALS_MAX_LOOKUPS_IN_FLIGHT=many, which the ALS refuses at start. Round 1 runs the baseline
    // first, so the comparison stops at its run.
    const run = bench(['--baseline', repoRoot, ...quick, '--baseline-env', 'ALS_MAX_LOOKUPS_IN_FLIGHT=many']);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('ALS_MAX_LOOKUPS_IN_FLIGHT');
    expect(run.stderr).toMatch(/exited \d+ without a result/);
  }, 90_000);

  it('refuses a directory that holds no built bench, saying how to build it', () => {
    const run = bench(['--baseline', work, ...quick]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('pnpm install && pnpm -r build');
  });
});
