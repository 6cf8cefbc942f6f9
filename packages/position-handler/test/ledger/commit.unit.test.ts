import { describe, expect, it } from 'vitest';
import { commit } from '../../src/ledger/actions/commit.js';
import type { PositionAction } from '../../src/ledger/types.js';
import { $, accountFacts, apply, command, expectNothingWritten, states } from './world.js';

const fulfilled = (payee: bigint | null = $('-10')) => ({
  t: { states: states('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL'), payee },
});

describe('commit, reserve, bulk-commit: RECEIVED_FULFIL → COMMITTED, + the payee amount on the key', () => {
  it.each<PositionAction>(['commit', 'reserve', 'bulk-commit'])('%s books the (negative) payee amount', (action) => {
    const result = apply(
      { transfers: fulfilled($('-12.5')), accounts: [accountFacts('4', { value: $('100') })] },
      commit,
      command(action, { accountId: '4' }),
    );
    expect(result.stateChanges).toEqual([{ transferId: 't', transferStateId: 'COMMITTED', reason: null }]);
    expect(result.positionChanges).toEqual([
      {
        stateChange: 0,
        participantCurrencyId: '4',
        participantPositionId: '40',
        value: $('87.5'),
        change: $('-12.5'),
        reservedValue: 0n,
      },
    ]);
    expect(result.positionUpdates).toEqual([{ participantPositionId: '40', value: $('87.5') }]);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
  });

  it('on key 0 commits without a position change', () => {
    const result = apply({ transfers: fulfilled() }, commit, command('commit', { accountId: '0' }));
    expect(result.stateChanges).toHaveLength(1);
    expect(result.positionChanges).toEqual([]);
    expect(result.positionUpdates).toEqual([]);
  });

  it('COMMITTED already: a redelivery, replayed with the success', () => {
    const result = apply(
      { transfers: { t: { states: states('RECEIVED_FULFIL', 'COMMITTED') } } },
      commit,
      command('commit'),
    );
    expect(result.outcomes).toEqual([{ seq: 0, result: 'replayed' }]);
    expectNothingWritten(result);
  });

  it('another state: 2001 "Invalid State", nothing written', () => {
    const result = apply({ transfers: { t: { states: states('RESERVED') } } }, commit, command('commit'));
    expect(result.outcomes).toEqual([
      {
        seq: 0,
        result: 'failed',
        error: { name: 'INCORRECT_STATE', detail: 'Invalid State: RESERVED - expected: RECEIVED_FULFIL' },
      },
    ]);
    expectNothingWritten(result);
  });

  it('no PAYEE_DFSP participant row: 3208, nothing written', () => {
    const result = apply({ transfers: fulfilled(null) }, commit, command('commit'));
    expect(result.outcomes).toEqual([
      { seq: 0, result: 'failed', error: { name: 'TRANSFER_NOT_FOUND', detail: 'no PAYEE_DFSP transferParticipant' } },
    ]);
    expectNothingWritten(result);
  });

  it('with a cyrilResult step: the step is applied instead, on its fxTransfer, not the payee amount', () => {
    const result = apply(
      {
        transfers: fulfilled(),
        fxTransfers: { x: { states: states('RESERVED', 'RECEIVED_FULFIL_DEPENDENT') } },
      },
      commit,
      command('commit', {
        cyril: {
          step: { fx: true, id: 'x', accountId: '3', amount: $('-3') },
          nextAccountId: '4',
          transferStateChanges: [],
        },
      }),
    );
    expect(result.stateChanges).toEqual([{ fx: true, transferId: 'x', transferStateId: 'COMMITTED', reason: null }]);
    expect(result.positionChanges.map((c) => c.change)).toEqual([$('-3')]);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied', next: '4', fxNotify: true }]);
  });
});
