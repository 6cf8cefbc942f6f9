import { describe, expect, it } from 'vitest';
import { timeout } from '../../src/ledger/actions/timeout.js';
import { rejectionReason } from '../../src/ledger/errors.js';
import type { PositionAction } from '../../src/ledger/types.js';
import { $, apply, command, expectNothingWritten, states } from './world.js';

describe('timeout-reserved and bulk-timeout-reserved: RESERVED_TIMEOUT → EXPIRED_RESERVED, + the payee amount, 3303', () => {
  it.each<PositionAction>(['timeout-reserved', 'bulk-timeout-reserved'])('%s', (action) => {
    const result = apply(
      { transfers: { t: { states: states('RESERVED', 'RESERVED_TIMEOUT'), payee: $('-8') } } },
      timeout,
      command(action),
    );
    expect(result.stateChanges).toEqual([
      { transferId: 't', transferStateId: 'EXPIRED_RESERVED', reason: rejectionReason.EXPIRED },
    ]);
    expect(rejectionReason.EXPIRED).toBe('Transfer expired');
    expect(result.positionChanges.map((c) => [c.change, c.value])).toEqual([[$('-8'), $('-8')]]);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied', error: { name: 'EXPIRED' } }]);
  });

  it('EXPIRED_RESERVED already: replayed with 3303; RESERVED (not timed out yet): 2001, nothing written', () => {
    const replay = apply(
      { transfers: { t: { states: states('RESERVED_TIMEOUT', 'EXPIRED_RESERVED') } } },
      timeout,
      command('timeout-reserved'),
    );
    expect(replay.outcomes).toEqual([{ seq: 0, result: 'replayed', error: { name: 'EXPIRED' } }]);
    expectNothingWritten(replay);
    const early = apply({ transfers: { t: { states: states('RESERVED') } } }, timeout, command('timeout-reserved'));
    expect(early.outcomes[0]?.error).toEqual({
      name: 'INCORRECT_STATE',
      detail: 'Invalid State: RESERVED - expected: RESERVED_TIMEOUT',
    });
    expectNothingWritten(early);
  });
});
