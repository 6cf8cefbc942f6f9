import { describe, expect, it } from 'vitest';
import { fxReserve } from '../../src/ledger/actions/fx-reserve.js';
import { apply, command, expectNothingWritten, states } from './world.js';

describe('fx-reserve: only a notification while RECEIVED_FULFIL_DEPENDENT', () => {
  it('RECEIVED_FULFIL_DEPENDENT: applied, nothing written (the dependent transfer’s fulfil commits it)', () => {
    const result = apply(
      { fxTransfers: { t: { states: states('RESERVED', 'RECEIVED_FULFIL_DEPENDENT') } } },
      fxReserve,
      command('fx-reserve'),
    );
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
    expectNothingWritten(result);
  });

  it('already rejected, or moved on after RECEIVED_FULFIL_DEPENDENT: 2001, nothing written', () => {
    for (const history of [
      states('RESERVED', 'ABORTED_REJECTED'),
      states('RESERVED', 'RECEIVED_FULFIL_DEPENDENT', 'COMMITTED'),
    ]) {
      const result = apply({ fxTransfers: { t: { states: history } } }, fxReserve, command('fx-reserve'));
      expect(result.outcomes[0]).toEqual({
        seq: 0,
        result: 'failed',
        error: {
          name: 'INCORRECT_STATE',
          detail: `Invalid State: ${history.at(-1)?.transferStateId} - expected: RECEIVED_FULFIL_DEPENDENT`,
        },
      });
      expectNothingWritten(result);
    }
  });

  it('any other state: the fxTransfer → ABORTED_REJECTED "FxFulfil in incorrect state", rejected with 2001', () => {
    const result = apply({ fxTransfers: { t: { states: states('RESERVED') } } }, fxReserve, command('fx-reserve'));
    expect(result.stateChanges).toEqual([
      { fx: true, transferId: 't', transferStateId: 'ABORTED_REJECTED', reason: 'FxFulfil in incorrect state' },
    ]);
    expect(result.positionChanges).toEqual([]);
    expect(result.outcomes).toEqual([
      {
        seq: 0,
        result: 'rejected',
        error: { name: 'INCORRECT_STATE', detail: 'Invalid State: RESERVED - expected: RECEIVED_FULFIL_DEPENDENT' },
      },
    ]);
  });
});
