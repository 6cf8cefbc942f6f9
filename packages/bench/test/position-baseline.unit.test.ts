import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineTable, compareWithBaseline } from '../src/commands/position-baseline.js';
import type { PhaseResult } from '../src/position/measure-phase.js';
import type { PositionBenchOptions, PositionBenchResult } from '../src/position/run.js';

// The comparison's own parts, with a stand-in for the replay: which handler each run gets, in which order, on
// which messages, and the table. The replay itself is position-replay.test.ts's.
const phase = (action: 'prepare' | 'commit', msgsPerSecond: number, handlerCores: number): PhaseResult => ({
  action,
  messages: 1000,
  durationSeconds: 1000 / msgsPerSecond,
  msgsPerSecond,
  latency: { count: 1000, avg: 1, min: 1, med: 1, max: 9, p90: 5, p95: 6, p99: 8 },
  sqlStatements: 7,
  sqlPerMessage: 0.007,
  commitsPerSecond: 1,
  lost: 0,
  duplicated: 0,
  errorNotifications: 0,
  expectedErrorNotifications: 0,
  cpu: { handler: handlerCores, mariadb: 0.5 },
  handlerStages: {},
  mysqlStatus: {} as PhaseResult['mysqlStatus'],
  rssMb: {},
});

const base = { transfers: 10, batchSize: 1000 } as PositionBenchOptions;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'position-baseline-unit-'));
  await mkdir(join(dir, 'packages/position-handler/dist'), { recursive: true });
  await writeFile(join(dir, 'packages/position-handler/dist/position.js'), '');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('bench:position --baseline', () => {
  it("alternates who goes first, gives the baseline's handler to its runs only, and replays the first run's messages", async () => {
    const runs: PositionBenchOptions[] = [];
    const comparison = await compareWithBaseline(base, 2, dir, async (options) => {
      runs.push(options);
      const rate = options.handlerEntry ? 1000 : 1500;
      return {
        phases: [phase('prepare', rate, 0.5), phase('commit', rate, 0.25)],
        positionMismatches: [],
        database: 'x',
      };
    });
    expect(runs.map((r) => (r.handlerEntry ? 'baseline' : 'current'))).toEqual([
      'baseline',
      'current',
      'current',
      'baseline',
    ]);
    expect(runs[0]?.handlerEntry).toBe(join(dir, 'packages/position-handler/dist/position.js'));
    expect(runs[0]?.writeDump).toMatch(/dump\.txt$/);
    expect(runs.slice(1).map((r) => r.dump)).toEqual([runs[0]?.writeDump, runs[0]?.writeDump, runs[0]?.writeDump]);
    const table = baselineTable(comparison);
    // msgs/s 1.5×; handler CPU per message: 0.5 cores at 1500/s against 0.5 at 1000/s → 0.67.
    expect(table).toMatch(/\| mean +\| this \/ baseline \| 1\.50 +\| 1\.00 +\| 0\.67 +\| 0\.67 +\| 1\.50/);
  });

  it('names the missing build', async () => {
    await expect(
      compareWithBaseline(base, 1, join(dir, 'nowhere'), async () => ({}) as PositionBenchResult),
    ).rejects.toThrow(/--baseline .*nowhere: no .*position\.js; check out the other commit there and build it/);
  });
});
