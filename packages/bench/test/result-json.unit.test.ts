import { describe, expect, it } from 'vitest';
import type { PhaseLabel, PhaseResult } from '../src/position/measure-phase.js';
import { comparedRunFailures, comparedRunJson, phasesJson, toDbFloor } from '../src/position/result-json.js';
import { type StatementCounts, statusCounters } from '../src/system/mysql-status.js';

function phase(action: PhaseLabel, messages: number): PhaseResult {
  return {
    action,
    messages,
    durationSeconds: 2,
    msgsPerSecond: messages / 2,
    latency: { count: messages, min: 1, med: 2, avg: 2, p90: 3, p95: 4, p99: 5, max: 6 },
    sqlStatements: 10,
    sqlPerMessage: 10 / messages,
    commitsPerSecond: 1,
    lost: 0,
    duplicated: 0,
    errorNotifications: 0,
    expectedErrorNotifications: 0,
    cpu: { handler: 0.5 },
    handlerStages: {},
    mysqlStatus: Object.fromEntries(statusCounters.map((c) => [c, 0])) as StatementCounts,
    rssMb: { handler: 100 },
  };
}

// The JSON names each phase by what it replayed (--actions), never by its position in the run: a commit-only
// or mixed run has no prepare phase, and its first phase must not be reported as one.
describe('bench:position JSON phases', () => {
  it.each([
    ['prepare,commit', [phase('prepare', 10), phase('commit', 10)], ['prepare', 'commit']],
    ['prepare', [phase('prepare', 10)], ['prepare']],
    ['commit', [phase('commit', 10)], ['commit']],
    ['mixed', [phase('mixed', 10)], ['mixed']],
  ] as const)('--actions %s fills exactly its phases', (_actions, phases, filled) => {
    const json = phasesJson({ phases: [...phases] });
    expect(Object.entries(json).flatMap(([label, value]) => (value === null ? [] : [label]))).toEqual(filled);
    for (const label of filled) expect(json[label]?.messages).toBe(10);
  });

  it('gives CPU per message from the cores a process used over the phase', () => {
    // 0.5 cores over 2 s is 1 s of CPU; over 10 messages, 100,000 µs each.
    expect(phasesJson({ phases: [phase('commit', 10)] }).commit?.cpu_us_per_msg).toEqual({ handler: 100_000 });
  });
});

describe('one run of a side-by-side comparison (--baseline, --original)', () => {
  it('names each phase that lost or doubled messages and each wrong position, with the round and the side', () => {
    const run = {
      phases: [{ ...phase('prepare', 100), lost: 2, duplicated: 1 }, phase('commit', 100)],
      positionMismatches: ['account 7: 10 ≠ 12'],
    };
    expect(comparedRunFailures(3, 'this build', run)).toEqual([
      'round 3 this build prepare: 2 lost, 1 duplicated',
      'round 3 this build: account 7: 10 ≠ 12',
    ]);
    expect(comparedRunFailures(1, 'ours', { phases: [phase('commit', 100)], positionMismatches: [] })).toEqual([]);
    expect(comparedRunJson(run).position_mismatches).toEqual(['account 7: 10 ≠ 12']);
    expect(comparedRunJson(run).prepare?.lost).toBe(2);
  });
});

// --floor's handler/floor ratios: msgs/s over the floor's, and MariaDB's CPU per message over the floor's.
describe('bench:position handler against a database floor', () => {
  it('divides msgs/s and MariaDB CPU per message by the floor’s', () => {
    const handler = { ...phase('commit', 1000), msgsPerSecond: 400, cpu: { handler: 0.5, mariadb: 0.3 } };
    const floor = { ...phase('commit', 1000), msgsPerSecond: 500, cpu: { 'db-reads-floor': 0.4, mariadb: 0.2 } };
    expect(toDbFloor(handler, floor)).toEqual({ msgs_per_s: 0.8, mariadb_cpu_per_msg: 1.5 });
  });
});
