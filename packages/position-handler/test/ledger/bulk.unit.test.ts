import { describe, expect, it } from 'vitest';
import { bulkAbort, logTransferError } from '../../src/ledger/actions/bulk.js';
import { prepare } from '../../src/ledger/actions/prepare.js';
import { Batch } from '../../src/ledger/batch.js';
import { rejectionReason } from '../../src/ledger/errors.js';
import { $, accountFacts, apply, command, expectNothingWritten, inputOf, states } from './world.js';

describe('bulk-prepare: a prepare that also logs a transferError when refused (handler.js logTransferError)', () => {
  it('refused with 4200: the ABORTED_REJECTED row and a transferError naming it', () => {
    const result = apply(
      {
        transfers: { ok: { states: states('RECEIVED_PREPARE') }, t: { states: states('RECEIVED_PREPARE') } },
        accounts: [accountFacts('3', { netDebitCap: $('10') })],
      },
      prepare,
      command('bulk-prepare', { seq: 0, transferId: 'ok', amount: $('10') }),
      command('bulk-prepare', { seq: 1, amount: $('10') }),
    );
    expect(result.outcomes.map((o) => o.result)).toEqual(['applied', 'rejected']);
    expect(result.stateChanges[1]).toEqual({
      transferId: 't',
      transferStateId: 'ABORTED_REJECTED',
      reason: rejectionReason.LIMIT,
    });
    expect(result.transferErrors).toEqual([
      { stateChange: 1, errorCode: '4200', errorDescription: 'Payer limit error' },
    ]);
  });

  it('refused with 4001 and for a wrong state: the code of each', () => {
    const liquidity = apply(
      {
        transfers: { t: { states: states('RECEIVED_PREPARE') } },
        accounts: [accountFacts('3', { liquidityCover: 0n })],
      },
      prepare,
      command('bulk-prepare', { amount: $('1') }),
    );
    expect(liquidity.transferErrors).toEqual([
      { stateChange: 0, errorCode: '4001', errorDescription: 'Payer FSP insufficient liquidity' },
    ]);
    const wrong = apply(
      { transfers: { t: { states: states('RECEIVED_FULFIL') } } },
      prepare,
      command('bulk-prepare', { amount: $('1') }),
    );
    expect(wrong.transferErrors).toEqual([
      { stateChange: 0, errorCode: '2001', errorDescription: 'Internal server error' },
    ]);
  });

  it('logTransferError writes nothing for the batch handler’s own prepare', () => {
    const batch = new Batch(inputOf({}));
    logTransferError(batch, command('prepare'), 0, 'LIMIT');
    logTransferError(batch, command('fx-prepare'), 0, 'LIMIT');
    expect(batch.transferErrors).toEqual([]);
    logTransferError(batch, command('bulk-prepare'), 3, 'INCORRECT_STATE');
    expect(batch.transferErrors).toEqual([
      { stateChange: 3, errorCode: '2001', errorDescription: 'Internal server error' },
    ]);
  });
});

describe('bulk-abort: RECEIVED_ERROR → ABORTED_ERROR, + the payee amount, the reason kept, a success notification', () => {
  it('applies with the reason the fulfil handler wrote', () => {
    const result = apply(
      { transfers: { t: { states: states('RESERVED', ['RECEIVED_ERROR', 'payee says no']), payee: $('-7') } } },
      bulkAbort,
      command('bulk-abort'),
    );
    expect(result.stateChanges).toEqual([
      { transferId: 't', transferStateId: 'ABORTED_ERROR', reason: 'payee says no' },
    ]);
    expect(result.positionChanges.map((c) => [c.change, c.value])).toEqual([[$('-7'), $('-7')]]);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
  });

  it('replays ABORTED_ERROR without an error; 2001 with the expected state for another', () => {
    const replay = apply(
      { transfers: { t: { states: states('RECEIVED_ERROR', 'ABORTED_ERROR') } } },
      bulkAbort,
      command('bulk-abort'),
    );
    expect(replay.outcomes).toEqual([{ seq: 0, result: 'replayed' }]);
    expectNothingWritten(replay);
    const wrong = apply({ transfers: { t: { states: states('RESERVED') } } }, bulkAbort, command('bulk-abort'));
    expect(wrong.outcomes).toEqual([
      {
        seq: 0,
        result: 'failed',
        error: { name: 'INCORRECT_STATE', detail: 'Invalid State: RESERVED - expected: RECEIVED_ERROR' },
      },
    ]);
    expectNothingWritten(wrong);
  });
});
