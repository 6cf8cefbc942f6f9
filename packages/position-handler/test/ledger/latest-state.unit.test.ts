import { describe, expect, it } from 'vitest';
import { readsFor } from '../../src/ledger/accounts.js';
import { planBatch } from '../../src/ledger/plan.js';
import {
  isFxAction,
  type LedgerCommand,
  POSITION_ACTIONS,
  type PositionAction,
  TransferState as S,
  type StateRecord,
} from '../../src/ledger/types.js';
import { $, inputOf, states } from './world.js';

/**
 * The store may read a transfer of readsFor's latestStateIds as its latest state alone, without its reason. That
 * must plan exactly what the whole history plans, for every action and every pair of actions on one transfer in
 * one batch (a rule reading an earlier state or a reason must keep its transfer out of latestStateIds).
 */

const PLAIN_ACTIONS = POSITION_ACTIONS.filter((a) => !isFxAction(a));

/** A history ending in each state a transfer can be found in, with reasons where the originals write them. */
const HISTORIES: readonly StateRecord[][] = [
  [],
  states(S.RECEIVED_PREPARE),
  states(S.RECEIVED_PREPARE, S.RESERVED),
  states(S.RECEIVED_PREPARE, S.RESERVED, S.RECEIVED_FULFIL),
  states(S.RECEIVED_PREPARE, S.RESERVED, S.RECEIVED_FULFIL, S.COMMITTED),
  states(S.RECEIVED_PREPARE, S.RESERVED, [S.RECEIVED_ERROR, 'payee error']),
  states(S.RECEIVED_PREPARE, S.RESERVED, [S.RECEIVED_ERROR, 'payee error'], S.ABORTED_ERROR),
  states(S.RECEIVED_PREPARE, S.RESERVED, [S.RESERVED_TIMEOUT, 'expired']),
  states(S.RECEIVED_PREPARE, S.RESERVED, [S.RESERVED_TIMEOUT, 'expired'], [S.EXPIRED_RESERVED, 'expired']),
  states(S.RECEIVED_PREPARE, S.RESERVED, [S.RECEIVED_REJECT, 'rejected']),
  states(S.RECEIVED_PREPARE, S.RESERVED, [S.RECEIVED_REJECT, 'rejected'], [S.ABORTED_REJECTED, 'rejected']),
  states(S.RECEIVED_PREPARE, [S.ABORTED_REJECTED, 'limit']),
];

function commandOf(seq: number, action: PositionAction): LedgerCommand {
  const prepares = action === 'prepare' || action === 'bulk-prepare';
  return { seq, action, transferId: 't', accountId: prepares ? '3' : '4', ...(prepares ? { amount: $('10') } : {}) };
}

/** The plan from the whole history, and the plan from what the store may read for latestStateIds. */
function bothPlans(history: StateRecord[], commands: LedgerCommand[]) {
  const whole = inputOf({ commands, transfers: { t: { states: history } } });
  const latestOnly = new Set(readsFor(commands).latestStateIds);
  const last = history.at(-1);
  const read =
    latestOnly.has('t') && last
      ? [{ transferStateId: last.transferStateId, reason: null }]
      : history.map((record) => ({ ...record }));
  const latest = inputOf({ commands, transfers: { t: { states: read } } });
  return { whole: planBatch(whole), latest: planBatch(latest), latestOnly: latestOnly.has('t') };
}

describe('a transfer read as its latest state alone (readsFor latestStateIds)', () => {
  it('commits and the releases that keep no reason are judged by the latest state alone; prepares, rejects, bulk-aborts and cyrilResult steps are not', () => {
    const only = (actions: PositionAction[]) => readsFor(actions.map((a, i) => commandOf(i, a))).latestStateIds;
    for (const action of ['commit', 'reserve', 'bulk-commit', 'abort', 'timeout-reserved'] as const)
      expect(only([action])).toEqual(['t']);
    for (const action of ['prepare', 'bulk-prepare', 'reject', 'bulk-abort'] as const)
      expect(only([action])).toEqual([]);
    expect(only(['commit', 'prepare'])).toEqual([]);
    const cyril = {
      ...commandOf(0, 'commit'),
      cyril: { step: { fx: false, id: 'u', accountId: '4', amount: $('1') }, transferStateChanges: [] },
    };
    expect(readsFor([cyril, { ...commandOf(1, 'commit'), transferId: 'u' }]).latestStateIds).toEqual([]);
  });

  it('plans the same rows, updates and outcomes as the whole history for every action and pair of actions', () => {
    let truncated = 0;
    for (const history of HISTORIES) {
      for (const first of PLAIN_ACTIONS) {
        for (const second of [undefined, ...PLAIN_ACTIONS]) {
          const commands = [commandOf(0, first), ...(second ? [commandOf(1, second)] : [])];
          const { whole, latest, latestOnly } = bothPlans(history, commands);
          if (latestOnly && history.length > 1) truncated++;
          expect(latest, `${commands.map((c) => c.action).join(', ')} on ${JSON.stringify(history)}`).toEqual(whole);
        }
      }
    }
    // The comparison is not empty: many of those batches did read a shorter history.
    expect(truncated).toBeGreaterThan(100);
  });
});
