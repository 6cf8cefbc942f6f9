import { describe, expect, it } from 'vitest';
import { planBatch } from '../src/ledger/plan.js';
import type { AccountFacts, PlanInput, PlanResult } from '../src/ledger/types.js';
import { checkPlan, InvariantViolation } from '../src/runner/plan-invariants.js';

const UNIT = 10_000n;
const account = (id: string, value: bigint): AccountFacts => ({
  participantCurrencyId: id,
  participantPositionId: `pp${id}`,
  value,
  reservedValue: 0n,
  netDebitCap: 1_000n * UNIT,
  liquidityCover: 1_000_000n * UNIT,
});

/** Three prepares on two accounts, planned by the real planner. */
const input: PlanInput = {
  commands: [
    { seq: 0, action: 'prepare', transferId: 't1', accountId: '1', amount: 10n * UNIT },
    { seq: 1, action: 'prepare', transferId: 't2', accountId: '1', amount: 5n * UNIT },
    { seq: 2, action: 'prepare', transferId: 't3', accountId: '3', amount: 7n * UNIT },
  ],
  accounts: new Map([
    ['1', account('1', 100n * UNIT)],
    ['3', account('3', -20n * UNIT)],
  ]),
  transfers: new Map(
    ['t1', 't2', 't3'].map((id) => [
      id,
      { history: [{ transferStateId: 'RECEIVED_PREPARE', reason: null }], payeeAmount: undefined },
    ]),
  ),
};
const plan = planBatch(input);

describe('checkPlan: the invariants a batch must hold before it is written', () => {
  it('the planner’s own plan holds them', () => {
    expect(plan.positionUpdates).toHaveLength(2);
    expect(() => checkPlan(input, plan)).not.toThrow();
  });

  const broken: [string, (p: PlanResult) => PlanResult, RegExp][] = [
    ['an outcome missing', (p) => ({ ...p, outcomes: p.outcomes.slice(1) }), /2 outcomes for 3 commands/],
    [
      'one command answered twice',
      (p) => ({ ...p, outcomes: [p.outcomes[0], p.outcomes[0], p.outcomes[2]] as PlanResult['outcomes'] }),
      /twice or unknown/,
    ],
    [
      'a final position other than initial + Σ changes',
      (p) => ({
        ...p,
        positionUpdates: p.positionUpdates.map((u, i) => (i === 0 ? { ...u, value: u.value + 1n } : u)),
      }),
      /final .* ≠ initial/,
    ],
    [
      'a running value that skips a change',
      (p) => ({
        ...p,
        positionChanges: p.positionChanges.map((c, i) => (i === 1 ? { ...c, value: c.value + UNIT } : c)),
      }),
      /running value/,
    ],
    [
      'an account changed but not updated',
      (p) => ({ ...p, positionUpdates: p.positionUpdates.slice(1) }),
      /not updated/,
    ],
    [
      'an update without a change',
      (p) => ({ ...p, positionChanges: p.positionChanges.filter((c) => c.participantPositionId !== 'pp3') }),
      /updated without a position change/,
    ],
    [
      'a change on a position not read under lock',
      (p) => ({
        ...p,
        positionChanges: [
          ...p.positionChanges,
          { ...(p.positionChanges[0] as PlanResult['positionChanges'][number]), participantPositionId: 'pp9' },
        ],
      }),
      /not read under lock/,
    ],
  ];
  for (const [what, corrupt, message] of broken) {
    it(`refuses ${what}`, () => {
      expect(() => checkPlan(input, corrupt(plan))).toThrow(InvariantViolation);
      expect(() => checkPlan(input, corrupt(plan))).toThrow(message);
    });
  }
});
