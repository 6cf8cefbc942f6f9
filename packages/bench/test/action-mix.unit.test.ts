import { describe, expect, it } from 'vitest';
import { expectedPositionsOf, picked, planMix } from '../src/position/action-mix.js';

const transfers = Array.from({ length: 8 }, (_, i) => ({
  transferId: `t${i}`,
  payer: i % 2 === 0 ? 'a' : 'b',
  payee: i % 2 === 0 ? 'b' : 'a',
  currency: 'USD',
  amount: '10',
}));

describe('action mix of a generated bench:position run', () => {
  it('picks a share evenly and the same every time', () => {
    expect(Array.from({ length: 8 }, (_, i) => picked(i, 0.25))).toEqual([
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      true,
    ]);
    expect(Array.from({ length: 8 }, (_, i) => picked(i, 0)).some(Boolean)).toBe(false);
    expect(Array.from({ length: 8 }, (_, i) => picked(i, 1)).every(Boolean)).toBe(true);
  });

  it('prepare,commit with breaches and aborts: breaching prepares get no outcome; errors = breaches + aborts', () => {
    const plan = planMix(transfers, { phases: 'prepare,commit', aborts: 0.5, breaches: 0.25 }, '999');
    const [prepares, outcomes] = plan.phases;
    expect(prepares?.steps.map((s) => s.action)).toEqual(Array(8).fill('prepare'));
    expect([...plan.breaching]).toEqual(['t3', 't7']);
    expect(plan.transfers.filter((t) => t.amount === '999').map((t) => t.transferId)).toEqual(['t3', 't7']);
    expect(prepares?.expectedErrors).toBe(2);
    expect(outcomes?.steps.map((s) => `${s.transfer.transferId}:${s.action}`)).toEqual([
      't0:commit',
      't1:abort',
      't2:commit',
      't4:abort',
      't5:commit',
      't6:abort',
    ]);
    expect(outcomes?.expectedErrors).toBe(3);
    // a pays t0, t2, t4, t6 (10 each): reserves 40, t4 and t6 aborted; b pays t1, t5 (t3, t7 refused), t1 aborted.
    // Commits: t0, t2 credit b (payee), t5 credits a.
    expect(expectedPositionsOf(plan)).toEqual(
      new Map([
        ['a:USD', 400_000n - 200_000n - 100_000n],
        ['b:USD', 200_000n - 100_000n - 200_000n],
      ]),
    );
  });

  it('commit only: every transfer starts reserved; its payer holds the amount', () => {
    const plan = planMix(transfers, { phases: 'commit', aborts: 0, breaches: 0 }, '999');
    expect(plan.reserved).toHaveLength(8);
    expect(plan.phases.map((p) => [p.label, p.steps.length, p.expectedErrors])).toEqual([['commit', 8, 0]]);
    expect(expectedPositionsOf(plan)).toEqual(
      new Map([
        ['a:USD', 0n],
        ['b:USD', 0n],
      ]),
    );
  });

  it('mixed: one phase, outcomes of the reserved (even) transfers interleaved with prepares of the others', () => {
    const plan = planMix(transfers, { phases: 'mixed', aborts: 0, breaches: 0 }, '999');
    expect(plan.reserved.map((t) => t.transferId)).toEqual(['t0', 't2', 't4', 't6']);
    expect(plan.phases).toHaveLength(1);
    expect(plan.phases[0]?.steps.map((s) => `${s.transfer.transferId}:${s.action}`)).toEqual([
      't0:commit',
      't1:prepare',
      't2:commit',
      't3:prepare',
      't4:commit',
      't5:prepare',
      't6:commit',
      't7:prepare',
    ]);
  });

  it('refuses breaches without prepares (bad input: --actions commit --breaches 0.1)', () => {
    expect(() => planMix(transfers, { phases: 'commit', aborts: 0, breaches: 0.1 }, '999')).toThrow(/--breaches/);
  });

  it('an FX share (--fx 0.5): fx-prepare and the dependent prepare, then fx-commit; positions on payer, FXP and payee', () => {
    const fxOf = (t: (typeof transfers)[number]) => ({
      commitRequestId: `c-${t.transferId}`,
      transferId: t.transferId,
      payer: t.payer,
      payee: t.payee,
      fxp: 'x',
      sourceCurrency: 'USD',
      sourceAmount: t.amount,
      targetCurrency: 'EUR',
      targetAmount: t.amount,
    });
    const plan = planMix(
      transfers.slice(0, 2),
      { phases: 'prepare,commit', aborts: 0, breaches: 0, fx: 0.5 },
      '999',
      fxOf,
    );
    const [prepares, commits] = plan.phases;
    expect(plan.fx.map((fx) => fx.transferId)).toEqual(['t1']);
    expect(prepares?.steps.map((s) => `${s.transfer.transferId}:${s.action}`)).toEqual([
      't0:prepare',
      't1:fx-prepare',
      't1:fx-dependent-prepare',
    ]);
    expect(commits?.steps.map((s) => `${s.transfer.transferId}:${s.action}`)).toEqual(['t0:commit', 't1:fx-commit']);
    // t0: a pays b 10 USD. t1: b converts 10 USD at x (b:USD +10, x:EUR +10), then x:USD -10 and a:EUR -10.
    expect(expectedPositionsOf(plan)).toEqual(
      new Map([
        ['a:USD', 100_000n],
        ['b:USD', -100_000n + 100_000n],
        ['x:EUR', 100_000n],
        ['x:USD', -100_000n],
        ['a:EUR', -100_000n],
      ]),
    );
    expect(() => planMix(transfers, { phases: 'mixed', aborts: 0, breaches: 0, fx: 0.5 }, '999', fxOf)).toThrow(/--fx/);
  });
});
