import { describe, expect, it } from 'vitest';
import { abort } from '../../src/ledger/actions/abort.js';
import type { PositionAction } from '../../src/ledger/types.js';
import { $, apply, command, expectNothingWritten, states } from './world.js';

const errorOf: Record<string, string> = {
  abort: 'ABORT_REJECTED',
  'abort-validation': 'ABORT_VALIDATION',
  'fx-abort': 'ABORT_REJECTED',
  'fx-abort-validation': 'ABORT_VALIDATION',
};

describe('abort and abort-validation without cyrilResult steps: RECEIVED_ERROR → ABORTED_ERROR, + the payee amount', () => {
  it.each<PositionAction>(['abort', 'abort-validation'])(
    '%s releases the reservation and always answers with its error',
    (action) => {
      const result = apply(
        { transfers: { t: { states: states('RESERVED', ['RECEIVED_ERROR', 'payee error']), payee: $('-10') } } },
        abort,
        command(action),
      );
      // The reason of the abort's own state is null: the error text stays on RECEIVED_ERROR.
      expect(result.stateChanges).toEqual([{ transferId: 't', transferStateId: 'ABORTED_ERROR', reason: null }]);
      expect(result.positionChanges.map((c) => c.change)).toEqual([$('-10')]);
      expect(result.outcomes).toEqual([{ seq: 0, result: 'applied', error: { name: errorOf[action] } }]);
    },
  );

  it('ABORTED_ERROR already: replayed, with the error again', () => {
    const result = apply(
      { transfers: { t: { states: states('RECEIVED_ERROR', 'ABORTED_ERROR') } } },
      abort,
      command('abort-validation'),
    );
    expect(result.outcomes).toEqual([{ seq: 0, result: 'replayed', error: { name: 'ABORT_VALIDATION' } }]);
    expectNothingWritten(result);
  });

  it('another state: 2001 naming it; no payee row: 3208; nothing written either way', () => {
    const wrong = apply({ transfers: { t: { states: states('COMMITTED') } } }, abort, command('abort'));
    expect(wrong.outcomes[0]).toEqual({
      seq: 0,
      result: 'failed',
      error: { name: 'INCORRECT_STATE', detail: 'Invalid State: COMMITTED - expected: RECEIVED_ERROR' },
    });
    expectNothingWritten(wrong);
    const noPayee = apply(
      { transfers: { t: { states: states('RECEIVED_ERROR'), payee: null } } },
      abort,
      command('abort'),
    );
    expect(noPayee.outcomes[0]?.error).toEqual({
      name: 'TRANSFER_NOT_FOUND',
      detail: 'no PAYEE_DFSP transferParticipant',
    });
    expectNothingWritten(noPayee);
  });
});

describe('aborts with cyrilResult steps (fx-abort, fx-abort-validation, 19.x aborts)', () => {
  it.each<PositionAction>(['fx-abort', 'fx-abort-validation', 'abort'])(
    '%s applies its first step with its own error',
    (action) => {
      const fx = action.startsWith('fx-');
      const result = apply(
        {
          transfers: { t: { states: states('RESERVED', 'RECEIVED_ERROR') } },
          fxTransfers: { t: { states: states('RESERVED', 'RECEIVED_ERROR') } },
        },
        abort,
        command(action, {
          cyril: { step: { fx, id: 't', accountId: '3', amount: $('-4') }, transferStateChanges: [] },
        }),
      );
      expect(result.stateChanges).toEqual([
        { ...(fx ? { fx: true } : {}), transferId: 't', transferStateId: 'ABORTED_ERROR', reason: null },
      ]);
      expect(result.positionChanges.map((c) => c.change)).toEqual([$('-4')]);
      expect(result.outcomes).toEqual([{ seq: 0, result: 'applied', error: { name: errorOf[action] } }]);
    },
  );

  it('fx-abort without steps looks for the payee amount of a transfer and finds none: 3208', () => {
    const result = apply({ fxTransfers: { t: { states: states('RECEIVED_ERROR') } } }, abort, command('fx-abort'));
    expect(result.outcomes[0]?.error?.name).toBe('TRANSFER_NOT_FOUND');
    expectNothingWritten(result);
  });
});
