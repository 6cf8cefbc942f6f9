import { describe, expect, it } from 'vitest';
import { cyrilStep } from '../../src/ledger/actions/cyril-step.js';
import { Batch, latestState } from '../../src/ledger/batch.js';
import { type CyrilPlan, type ErrorName, type LedgerCommand, TransferState } from '../../src/ledger/types.js';
import { $, command, expectNothingWritten, inputOf, states, type World } from './world.js';

const { RECEIVED_FULFIL, COMMITTED, RECEIVED_ERROR, ABORTED_ERROR } = TransferState;

/** One cyrilStep on a fresh batch: the message's own target is its transfer (fx: its fxTransfer) 't'. */
function step(world: World, c: LedgerCommand, needs: string, result: string, error?: ErrorName) {
  if (!c.cyril) throw new Error('a cyrilStep test needs a command with cyril');
  const batch = new Batch(inputOf(world));
  const own = batch.target(c.action.startsWith('fx-'), c.transferId);
  const account = c.accountId === '0' ? undefined : batch.account(c.accountId);
  cyrilStep(batch, c, own, c.cyril, needs, result, account, error);
  return { batch, result: batch.result() };
}

const fxStep = (over: Partial<CyrilPlan> = {}): CyrilPlan => ({
  step: { fx: true, id: 'x', accountId: '3', amount: $('-5') },
  transferStateChanges: [],
  ...over,
});
const commitWorld: World = {
  transfers: { t: { states: states('RESERVED', 'RECEIVED_FULFIL') } },
  fxTransfers: { x: { states: states('RESERVED', 'RECEIVED_FULFIL_DEPENDENT') } },
};

describe('cyrilStep: one cyrilResult step of a commit or an abort', () => {
  it('commit, fxTransfer step, one step after it: COMMITTED on the fxTransfer, the step amount, fx-notify, next', () => {
    const c = command('commit', { cyril: fxStep({ nextAccountId: '4' }) });
    const { result } = step(commitWorld, c, RECEIVED_FULFIL, COMMITTED);
    expect(result.stateChanges).toEqual([{ fx: true, transferId: 'x', transferStateId: 'COMMITTED', reason: null }]);
    expect(result.positionChanges.map((p) => [p.stateChange, p.participantCurrencyId, p.change])).toEqual([
      [0, '3', $('-5')],
    ]);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied', next: '4', fxNotify: true }]);
  });

  it('commit, the last step on a transfer: no fx-notify, no next', () => {
    const c = command('commit', {
      accountId: '4',
      cyril: { step: { fx: false, id: 't', accountId: '4', amount: $('-10') }, transferStateChanges: [] },
    });
    const { result } = step(commitWorld, c, RECEIVED_FULFIL, COMMITTED);
    expect(result.stateChanges).toEqual([{ transferId: 't', transferStateId: 'COMMITTED', reason: null }]);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
  });

  it('a step whose target already carries the result: replayed with the same extras, nothing written', () => {
    const world: World = {
      ...commitWorld,
      fxTransfers: { x: { states: states('RECEIVED_FULFIL_DEPENDENT', 'COMMITTED') } },
    };
    const { result } = step(
      world,
      command('commit', { cyril: fxStep({ nextAccountId: '4' }) }),
      RECEIVED_FULFIL,
      COMMITTED,
    );
    expect(result.outcomes).toEqual([{ seq: 0, result: 'replayed', next: '4', fxNotify: true }]);
    expectNothingWritten(result);
  });

  it('the message’s own transfer not in the needed state: 2001, nothing written', () => {
    const world: World = { ...commitWorld, transfers: { t: { states: states('RESERVED') } } };
    const { result } = step(world, command('commit', { cyril: fxStep() }), RECEIVED_FULFIL, COMMITTED);
    expect(result.outcomes).toEqual([
      {
        seq: 0,
        result: 'failed',
        error: { name: 'INCORRECT_STATE', detail: 'Invalid State: RESERVED - expected: RECEIVED_FULFIL' },
      },
    ]);
    expectNothingWritten(result);
  });

  it('a step on another account than the key: BAD_CYRIL_RESULT, nothing written', () => {
    const c = command('commit', { accountId: '4', cyril: fxStep() });
    const { result } = step(commitWorld, c, RECEIVED_FULFIL, COMMITTED);
    expect(result.outcomes).toEqual([
      {
        seq: 0,
        result: 'failed',
        error: { name: 'BAD_CYRIL_RESULT', detail: 'positionChange on account 3, message key 4' },
      },
    ]);
    expectNothingWritten(result);
  });

  it('on key 0 any step account is accepted, and no position moves', () => {
    const { result } = step(
      commitWorld,
      command('commit', { accountId: '0', cyril: fxStep() }),
      RECEIVED_FULFIL,
      COMMITTED,
    );
    expect(result.stateChanges).toHaveLength(1);
    expect(result.positionChanges).toEqual([]);
    expect(result.outcomes[0]?.result).toBe('applied');
  });

  describe('abort steps', () => {
    const abortWorld: World = {
      transfers: { t: { states: states('RESERVED', 'RECEIVED_ERROR') }, d: { states: states('RESERVED') } },
      fxTransfers: { x: { states: states('RESERVED', 'RECEIVED_ERROR') } },
    };
    const changes = [{ transferId: 'd', transferStateId: 'ABORTED_ERROR', reason: 'dependent aborted' }];

    it('the last step writes cyrilResult.transferStateChanges after its own, and carries the abort error', () => {
      const c = command('abort', { cyril: fxStep({ transferStateChanges: changes }) });
      const { result } = step(abortWorld, c, RECEIVED_ERROR, ABORTED_ERROR, 'ABORT_REJECTED');
      expect(result.stateChanges).toEqual([
        { fx: true, transferId: 'x', transferStateId: 'ABORTED_ERROR', reason: null },
        { transferId: 'd', transferStateId: 'ABORTED_ERROR', reason: 'dependent aborted' },
      ]);
      expect(result.outcomes).toEqual([{ seq: 0, result: 'applied', error: { name: 'ABORT_REJECTED' } }]);
    });

    it('a step with one after it leaves transferStateChanges for the last', () => {
      const c = command('abort', { cyril: fxStep({ nextAccountId: '4', transferStateChanges: changes }) });
      const { result } = step(abortWorld, c, RECEIVED_ERROR, ABORTED_ERROR, 'ABORT_VALIDATION');
      expect(result.stateChanges).toHaveLength(1);
      expect(result.outcomes).toEqual([{ seq: 0, result: 'applied', error: { name: 'ABORT_VALIDATION' }, next: '4' }]);
    });

    it('a follow-up whose own fxTransfer an earlier step of the message aborted (done) is applied', () => {
      const world: World = {
        transfers: { d: { states: states('RESERVED', 'RECEIVED_ERROR') } },
        fxTransfers: { t: { states: states('RESERVED', 'RECEIVED_ERROR', 'ABORTED_ERROR') } },
      };
      const follow = (done: CyrilPlan['done']) =>
        command('fx-abort', {
          accountId: '4',
          cyril: { step: { fx: false, id: 'd', accountId: '4', amount: $('-2') }, done, transferStateChanges: [] },
        });
      const applied = step(world, follow([{ fx: true, id: 't' }]), RECEIVED_ERROR, ABORTED_ERROR, 'ABORT_REJECTED');
      expect(applied.result.outcomes[0]?.result).toBe('applied');
      expect(latestState(applied.batch.target(false, 'd'))).toBe('ABORTED_ERROR');
      // Without the earlier step in done (or another target in it), the same message finds its fxTransfer moved on.
      for (const done of [undefined, [{ fx: false, id: 't' }]]) {
        const refused = step(world, follow(done), RECEIVED_ERROR, ABORTED_ERROR, 'ABORT_REJECTED');
        expect(refused.result.outcomes[0]).toMatchObject({ result: 'failed', error: { name: 'INCORRECT_STATE' } });
        expectNothingWritten(refused.result);
      }
    });
  });
});
