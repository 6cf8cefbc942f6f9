import { describe, expect, it } from 'vitest';
import { reject } from '../../src/ledger/actions/reject.js';
import { $, apply, command, expectNothingWritten, states } from './world.js';

describe('reject: RECEIVED_REJECT → ABORTED_REJECTED, + the payee amount, the reason kept, a success notification', () => {
  it('releases the reservation with the reason the fulfil handler wrote', () => {
    const result = apply(
      { transfers: { t: { states: states('RESERVED', ['RECEIVED_REJECT', 'payee rejected']), payee: $('-6') } } },
      reject,
      command('reject'),
    );
    expect(result.stateChanges).toEqual([
      { transferId: 't', transferStateId: 'ABORTED_REJECTED', reason: 'payee rejected' },
    ]);
    expect(result.positionChanges.map((c) => c.change)).toEqual([$('-6')]);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
  });

  it('its own ABORTED_REJECTED (right after RECEIVED_REJECT): replayed without an error', () => {
    const result = apply(
      { transfers: { t: { states: states('RESERVED', 'RECEIVED_REJECT', 'ABORTED_REJECTED') } } },
      reject,
      command('reject'),
    );
    expect(result.outcomes).toEqual([{ seq: 0, result: 'replayed' }]);
    expectNothingWritten(result);
  });

  it('a prepare’s ABORTED_REJECTED is not its own: 2001, nothing written', () => {
    for (const history of [states('RECEIVED_PREPARE', 'ABORTED_REJECTED'), states('RESERVED')]) {
      const result = apply({ transfers: { t: { states: history } } }, reject, command('reject'));
      expect(result.outcomes[0]).toMatchObject({ result: 'failed', error: { name: 'INCORRECT_STATE' } });
      expectNothingWritten(result);
    }
  });
});
