import { describe, expect, it } from 'vitest';
import { PartitionProgress } from '../src/observe/progress.js';

/** The per-partition progress rules on a hand-driven clock. */
describe('PartitionProgress', () => {
  const clocked = () => {
    const clock = { now: 1_000_000 };
    return { clock, progress: new PartitionProgress(1000, () => clock.now) };
  };
  const deadlock = Object.assign(new Error('Deadlock found'), { errno: 1213, code: 'ER_LOCK_DEADLOCK' });

  it('a failing transaction: stalled from the bound on, counted from its first failure; a commit ends it', () => {
    const { clock, progress } = clocked();
    progress.handles('t', 1);
    expect(progress.failed('t', 0, 'transaction', deadlock)).toEqual({
      errorClass: 'transient',
      stalledForMs: 0,
      failures: 1,
    });
    clock.now += 999;
    progress.failed('t', 0, 'transaction', new TypeError('bug'));
    expect(progress.stalled()).toEqual([]);
    expect(progress.crossedBound('t', 0)).toBeUndefined();
    clock.now += 1;
    expect(progress.stalled()).toEqual([
      {
        topic: 't',
        partition: 0,
        stalledForSeconds: 1,
        failures: 2,
        lastError: { class: 'permanent', type: 'TypeError', message: 'bug' },
      },
    ]);
    expect(progress.crossedBound('t', 0)).toBeDefined();
    expect(progress.crossedBound('t', 0)).toBeUndefined();
    expect(progress.secondsSinceProgress()).toEqual([
      { topic: 't', partition: 1, seconds: 0 },
      { topic: 't', partition: 0, seconds: 1 },
    ]);
    expect(progress.progressed('t', 0, false)).toMatchObject({ reported: true, failures: 2 });
    expect(progress.stalled()).toEqual([]);
    expect(progress.secondsSinceProgress().map((p) => p.seconds)).toEqual([0, 0]);
  });

  it('a failing produce: a transaction (a replay) does not end it, an offset commit does; not repeated for the bound, it is dropped (the partition went elsewhere)', () => {
    const { clock, progress } = clocked();
    progress.failed('t', 0, 'notify', deadlock);
    expect(progress.progressed('t', 0, false)).toBeUndefined();
    clock.now += 1500;
    expect(progress.stalled()).toEqual([]);
    progress.failed('t', 0, 'notify', deadlock);
    clock.now += 600;
    progress.failed('t', 0, 'notify', deadlock);
    clock.now += 600;
    expect(progress.stalled().map((p) => p.stalledForSeconds)).toEqual([1.2]);
    expect(progress.progressed('t', 0, true)).toMatchObject({ failures: 2, reported: false });
  });

  it('a revoked partition is forgotten', () => {
    const { clock, progress } = clocked();
    progress.failed('t', 0, 'transaction', deadlock);
    clock.now += 5000;
    progress.forget('t', 0);
    expect(progress.stalled()).toEqual([]);
  });
});
