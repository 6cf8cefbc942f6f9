import { describe, expect, it } from 'vitest';
import { fxTimeout } from '../../src/ledger/actions/fx-timeout.js';
import { rejectionReason } from '../../src/ledger/errors.js';
import { $, apply, command, expectNothingWritten, states } from './world.js';

const timedOut = (reserved: Record<string, bigint> = { '3': $('10') }) => ({
  fxTransfers: { t: { states: states('RESERVED', 'RESERVED_TIMEOUT'), reserved } },
});

describe('fx-timeout-reserved: RESERVED_TIMEOUT → EXPIRED_RESERVED, − what the fxTransfer reserved on the key', () => {
  it('releases the RESERVED change of this account, 3303', () => {
    const result = apply(timedOut({ '3': $('10'), '4': $('99') }), fxTimeout, command('fx-timeout-reserved'));
    expect(result.stateChanges).toEqual([
      { fx: true, transferId: 't', transferStateId: 'EXPIRED_RESERVED', reason: rejectionReason.EXPIRED },
    ]);
    expect(result.positionChanges.map((c) => [c.change, c.value])).toEqual([[$('-10'), $('-10')]]);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied', error: { name: 'EXPIRED' } }]);
  });

  it('on key 0 expires without a position change', () => {
    const result = apply(timedOut({}), fxTimeout, command('fx-timeout-reserved', { accountId: '0' }));
    expect(result.stateChanges).toHaveLength(1);
    expect(result.positionChanges).toEqual([]);
    expect(result.outcomes[0]?.result).toBe('applied');
  });

  it('no RESERVED change on the key: 3208 naming the account, nothing written', () => {
    const result = apply(timedOut({ '4': $('10') }), fxTimeout, command('fx-timeout-reserved'));
    expect(result.outcomes).toEqual([
      {
        seq: 0,
        result: 'failed',
        error: { name: 'TRANSFER_NOT_FOUND', detail: 'no RESERVED position change on account 3' },
      },
    ]);
    expectNothingWritten(result);
  });

  it('EXPIRED_RESERVED already: replayed with 3303; another state: 2001; nothing written', () => {
    const replay = apply(
      { fxTransfers: { t: { states: states('RESERVED_TIMEOUT', 'EXPIRED_RESERVED') } } },
      fxTimeout,
      command('fx-timeout-reserved'),
    );
    expect(replay.outcomes).toEqual([{ seq: 0, result: 'replayed', error: { name: 'EXPIRED' } }]);
    expectNothingWritten(replay);
    const wrong = apply(
      { fxTransfers: { t: { states: states('RESERVED') } } },
      fxTimeout,
      command('fx-timeout-reserved'),
    );
    expect(wrong.outcomes[0]?.error).toEqual({
      name: 'INCORRECT_STATE',
      detail: 'Invalid State: RESERVED - expected: RESERVED_TIMEOUT',
    });
    expectNothingWritten(wrong);
  });
});
