import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareWithBaseline } from '../src/commands/position-baseline.js';
import { parseDumpLine } from '../src/position/dump.js';
import { workloadFromDump } from '../src/position/dump-workload.js';
import { runPositionBench } from '../src/position/run.js';

// The replay against the real handler process, the real broker and the real database: small, so it
// proves the plumbing and the outcome checks, not the speed.

// The handler runs from its built dist/ (built by the vitest global setup), as bench:position runs it.
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bench-position-'));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** A small burst run: enough messages to cross chunk and partition boundaries, few enough to be quick. */
const small = {
  transfers: 200,
  dfsps: 3,
  currencies: 1,
  partitions: 2,
  instances: 1,
  batchSize: 50,
  rate: 0,
  delimiter: '|',
  stallMs: 20_000,
  keep: false,
} as const;

describe('bench:position replay', () => {
  it('notifies every transfer once per phase and leaves the expected positions; the dump it writes replays the same', async () => {
    const dump = join(dir, 'dump.txt');
    const generated = await runPositionBench({
      transfers: 300,
      dfsps: 3,
      currencies: 2,
      partitions: 2,
      instances: 1,
      batchSize: 50,
      rate: 0,
      writeDump: dump,
      delimiter: '|',
      stallMs: 20_000,
      keep: false,
    });
    expect(generated.phases.map((p) => [p.action, p.messages, p.lost, p.duplicated, p.errorNotifications])).toEqual([
      ['prepare', 300, 0, 0, 0],
      ['commit', 300, 0, 0, 0],
    ]);
    expect(generated.positionMismatches).toEqual([]);
    expect(generated.phases[0]?.latency.count).toBe(300);

    const lines = (await readFile(dump, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(600);
    const workload = workloadFromDump(lines.map((l) => parseDumpLine(l, '|')));
    expect(workload.transfers).toHaveLength(300);

    const replayed = await runPositionBench({
      transfers: 1,
      dfsps: 2,
      currencies: 1,
      partitions: 2,
      instances: 1,
      batchSize: 50,
      rate: 2000,
      dump,
      delimiter: '|',
      stallMs: 20_000,
      keep: false,
    });
    expect(replayed.phases.map((p) => [p.action, p.messages, p.lost, p.duplicated])).toEqual([
      ['prepare', 300, 0, 0],
      ['commit', 300, 0, 0],
    ]);
    expect(replayed.positionMismatches).toEqual([]);
  });

  it.each(['kafkajs', 'platformatic'] as const)(
    'the Kafka-only floor (passthrough process on %s) notifies every transfer once per phase, as a success',
    async (client) => {
      const floor = await runPositionBench({
        ...small,
        target: 'passthrough',
        handlerClient: client,
      });
      expect(floor.phases.map((p) => [p.action, p.messages, p.lost, p.duplicated, p.errorNotifications])).toEqual([
        ['prepare', 200, 0, 0, 0],
        ['commit', 200, 0, 0, 0],
      ]);
      expect(floor.phases[0]?.cpu.passthrough).toBeGreaterThan(0);
    },
  );

  it.each(['platformatic', 'kafkajs'] as const)(
    'the handler on %s (--handler-client) notifies once and leaves the expected positions',
    async (client) => {
      const result = await runPositionBench({ ...small, handlerClient: client });
      expect(result.phases.map((p) => [p.action, p.messages, p.lost, p.duplicated, p.errorNotifications])).toEqual([
        ['prepare', 200, 0, 0, 0],
        ['commit', 200, 0, 0, 0],
      ]);
      expect(result.positionMismatches).toEqual([]);
    },
  );

  // --floor's database floors: the handler's runner writing the rows with no reads, and after the fewest reads;
  // the runner checks their plans as the handler's, so a floor whose plans fail those checks loses every message.
  it.each(['db-floor', 'db-reads-floor'] as const)(
    'the database floor %s (--floor) notifies every transfer once and leaves the expected positions',
    async (target) => {
      const result = await runPositionBench({ ...small, target });
      expect(result.phases.map((p) => [p.action, p.messages, p.lost, p.duplicated, p.errorNotifications])).toEqual([
        ['prepare', 200, 0, 0, 0],
        ['commit', 200, 0, 0, 0],
      ]);
      expect(result.positionMismatches).toEqual([]);
    },
  );

  // --baseline with this checkout as the baseline: each side's handler process runs the same dump.
  it('--baseline runs the other build and this one on the same messages, both notified once', async () => {
    const comparison = await compareWithBaseline(
      small,
      1,
      fileURLToPath(new URL('../../../', import.meta.url)),
      runPositionBench,
    );
    for (const side of [comparison.rounds[0]?.baseline, comparison.rounds[0]?.current]) {
      expect(side?.phases.map((p) => [p.action, p.messages, p.lost, p.duplicated])).toEqual([
        ['prepare', 200, 0, 0],
        ['commit', 200, 0, 0],
      ]);
      expect(side?.positionMismatches).toEqual([]);
    }
  });

  // The other runs use the bench's defaults (raw producer, @platformatic/kafka reader); this one the other two.
  it('the bench on its other clients (--bench-producer platformatic --bench-reader kafkajs) notifies once and leaves the expected positions', async () => {
    const result = await runPositionBench({ ...small, benchProducer: 'platformatic', benchReader: 'kafkajs' });
    expect(result.phases.map((p) => [p.action, p.messages, p.lost, p.duplicated, p.errorNotifications])).toEqual([
      ['prepare', 200, 0, 0, 0],
      ['commit', 200, 0, 0, 0],
    ]);
    expect(result.positionMismatches).toEqual([]);
    expect(result.phases[0]?.latency.count).toBe(200);
  });

  // --tls: every client (the bench's raw producer and both readers, the handler's) on the secure stack's broker
  // and database, which refuse plaintext, so a client left in plaintext fails the run.
  it.each([
    ['raw', 'platformatic'],
    ['platformatic', 'kafkajs'],
  ] as const)(
    'on the secure stack (--tls) with the bench producer %s and reader %s: notified once, the expected positions',
    async (benchProducer, benchReader) => {
      const result = await runPositionBench({ ...small, stack: 'tls', benchProducer, benchReader });
      expect(result.phases.map((p) => [p.action, p.messages, p.lost, p.duplicated, p.errorNotifications])).toEqual([
        ['prepare', 200, 0, 0, 0],
        ['commit', 200, 0, 0, 0],
      ]);
      expect(result.positionMismatches).toEqual([]);
    },
  );

  it('a mixed phase with aborts and limit breaches (--actions mixed --aborts 0.25 --breaches 0.1): each transfer answered once, the refusals and aborts as errors, positions as the mix makes them', async () => {
    const result = await runPositionBench({ ...small, mix: { phases: 'mixed', aborts: 0.25, breaches: 0.1 } });
    // 100 reserved transfers settle (25 aborts), 100 new ones prepare (10 over the cap).
    expect(
      result.phases.map((p) => [
        p.action,
        p.messages,
        p.lost,
        p.duplicated,
        p.errorNotifications,
        p.expectedErrorNotifications,
      ]),
    ).toEqual([['mixed', 200, 0, 0, 35, 35]]);
    expect(result.positionMismatches).toEqual([]);
  });

  it('an FX mix (--fx 0.5): every fx-prepare, dependent prepare and commit answered once, the two cyrilResult steps of each commit applied, positions as the mix makes them', async () => {
    const result = await runPositionBench({
      ...small,
      mix: { phases: 'prepare,commit', aborts: 0, breaches: 0, fx: 0.5 },
    });
    // 200 transfers, 100 of them FX: 300 prepare-phase messages (100 prepares, 100 fx-prepares, 100 dependent
    // prepares), 200 commits.
    expect(result.phases.map((p) => [p.action, p.messages, p.lost, p.duplicated, p.errorNotifications])).toEqual([
      ['prepare', 300, 0, 0, 0],
      ['commit', 200, 0, 0, 0],
    ]);
    expect(result.positionMismatches).toEqual([]);
  });

  it('refuses a dump with a commit whose prepare is missing (bad input: commit-only dump)', () => {
    const commit = JSON.stringify({ metadata: { correlationId: 't1', event: { action: 'commit' } } });
    expect(() => workloadFromDump([{ key: '3', value: commit }])).toThrow('commit for t1 has no prepare in the dump');
  });
});
