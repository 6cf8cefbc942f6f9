import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePartyIdMode } from '../src/als/party-ids.js';
import { compareTls, tlsTable } from '../src/als/tls.js';

// `bench:als --tls` runs the ALS with its oracle registry on the plain MariaDB and on the secure stack's, which
// refuses plaintext: a TLS side that ran at all spoke TLS to it, and the registry was read from each database
// (the oracle registered through the admin API), or no lookup would have reached the oracle.
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const cli = join(repoRoot, 'packages', 'bench', 'dist', 'cli.js');
const quick = ['--duration', '1', '--warmup', '0', '--vus', '2', '--rounds', '1'];

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'als-tls-test-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function bench(args: string[]) {
  return spawnSync(process.execPath, [cli, 'als', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 80_000 });
}

describe('bench:als --tls', () => {
  it('runs lookups with the registry on the plain and on the TLS database, and reports both and their ratio', async () => {
    const comparison = await compareTls(
      {
        name: 'ALS x1, 2 VUs',
        stack: { fsps: 3, processes: 1, cache: true, keepAlive: true, simsOnly: false },
        model: { kind: 'closed', vus: 2, thinkMs: 0 },
        ids: parsePartyIdMode('hot', 100),
        version: '1.1',
        warmupSeconds: 0,
        durationSeconds: 1,
        timeoutMs: 5000,
      },
      1,
      () => {},
    );
    expect(comparison.rounds).toHaveLength(1);
    const [round] = comparison.rounds;
    for (const side of [round?.plain, round?.tls]) {
      expect(side?.lookupsPerSecond).toBeGreaterThan(0);
      expect(side?.failed).toBe(0);
      expect(side?.alsMicrosPerLookup).toBeGreaterThan(0);
      // Each side's database server was measured beside the ALS.
      expect(side?.mariadbMicrosPerLookup).toBeGreaterThan(0);
    }
    expect(comparison.lookupsRatio).toBeCloseTo(
      (round?.tls.lookupsPerSecond ?? 0) / (round?.plain.lookupsPerSecond ?? 1),
      6,
    );
    const table = tlsTable(comparison);
    expect(table).toContain('| 1 | plain first |');
    expect(table).toContain('TLS/plain (mean of rounds): lookups/s');
  }, 90_000);

  it('writes the comparison from the command line (--tls --out)', async () => {
    const out = join(work, 'tls.json');
    const run = bench(['--tls', ...quick, '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    const comparison = JSON.parse(await readFile(out, 'utf8'));
    expect(comparison.comparison).toBe('tls');
    expect(comparison.rounds).toHaveLength(1);
  }, 90_000);

  it('refuses --tls without an ALS of its own (bad input: --sims-only)', () => {
    const run = bench(['--tls', '--sims-only', ...quick]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('--tls runs the ALS on each stack');
  });
});
