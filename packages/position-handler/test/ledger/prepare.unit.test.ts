import { describe, expect, it } from 'vitest';
import { prepare } from '../../src/ledger/actions/prepare.js';
import { rejectionReason } from '../../src/ledger/errors.js';
import { $, accountFacts, apply, command, expectNothingWritten, states } from './world.js';

const received = { t: { states: states('RECEIVED_PREPARE') } };
const prep = (amount = '10', over = {}) => command('prepare', { amount: $(amount), ...over });

describe('prepare: RECEIVED_PREPARE → RESERVED, + the amount', () => {
  it('reserves within the headroom: one state change, one position change referring to it, the new position', () => {
    const result = apply(
      { transfers: received, accounts: [accountFacts('3', { value: $('5'), reservedValue: $('2') })] },
      prepare,
      prep('10'),
    );
    expect(result.stateChanges).toEqual([{ transferId: 't', transferStateId: 'RESERVED', reason: null }]);
    expect(result.positionChanges).toEqual([
      {
        stateChange: 0,
        participantCurrencyId: '3',
        participantPositionId: '30',
        value: $('15'),
        change: $('10'),
        reservedValue: $('2'),
      },
    ]);
    expect(result.positionUpdates).toEqual([{ participantPositionId: '30', value: $('15') }]);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
    expect(result.transferErrors).toBeUndefined();
  });

  it('shares the headroom between the prepares of one batch, plain and FX: the third is refused with 4200', () => {
    const result = apply(
      {
        transfers: { a: { states: states('RECEIVED_PREPARE') }, c: { states: states('RECEIVED_PREPARE') } },
        fxTransfers: { b: { states: states('RECEIVED_PREPARE') } },
        accounts: [accountFacts('3', { netDebitCap: $('25') })],
      },
      prepare,
      prep('10', { seq: 0, transferId: 'a' }),
      command('fx-prepare', { seq: 1, transferId: 'b', amount: $('10') }),
      prep('10', { seq: 2, transferId: 'c' }),
    );
    expect(result.outcomes.map((o) => o.result)).toEqual(['applied', 'applied', 'rejected']);
    expect(result.outcomes[2]?.error).toEqual({ name: 'LIMIT' });
    expect(result.stateChanges).toEqual([
      { transferId: 'a', transferStateId: 'RESERVED', reason: null },
      { fx: true, transferId: 'b', transferStateId: 'RESERVED', reason: null },
      { transferId: 'c', transferStateId: 'ABORTED_REJECTED', reason: rejectionReason.LIMIT },
    ]);
    expect(result.positionChanges.map((c) => [c.stateChange, c.value])).toEqual([
      [0, $('10')],
      [1, $('20')],
    ]);
    expect(result.positionUpdates).toEqual([{ participantPositionId: '30', value: $('20') }]);
  });

  it('refuses with 4001 when the liquidity cover is short, before the limit', () => {
    const result = apply(
      { transfers: received, accounts: [accountFacts('3', { liquidityCover: $('5'), netDebitCap: $('1') })] },
      prepare,
      prep('10'),
    );
    expect(result.outcomes).toEqual([{ seq: 0, result: 'rejected', error: { name: 'LIQUIDITY' } }]);
    expect(result.stateChanges).toEqual([
      { transferId: 't', transferStateId: 'ABORTED_REJECTED', reason: rejectionReason.LIQUIDITY },
    ]);
    expect(result.positionChanges).toEqual([]);
    expect(result.positionUpdates).toEqual([]);
    expect(result.transferErrors).toBeUndefined();
  });

  it('takes a missing amount as 0', () => {
    const result = apply({ transfers: received }, prepare, command('prepare'));
    expect(result.positionChanges[0]?.change).toBe(0n);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
  });

  it('reserves without a position change on key 0 (payer and payee behind one proxy): no check, no account', () => {
    const result = apply({ transfers: received, accounts: [] }, prepare, prep('1000000', { accountId: '0' }));
    expect(result.stateChanges).toEqual([{ transferId: 't', transferStateId: 'RESERVED', reason: null }]);
    expect(result.positionChanges).toEqual([]);
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
  });
});

describe('prepare on a misconfigured account: nothing written, the cause named', () => {
  it('no settlement model or account (prepareProblem)', () => {
    const result = apply(
      {
        transfers: received,
        accounts: [accountFacts('3', { prepareProblem: 'no settlement model for currency XTS' })],
      },
      prepare,
      prep(),
    );
    expect(result.outcomes).toEqual([
      {
        seq: 0,
        result: 'failed',
        error: { name: 'ACCOUNT_MISCONFIGURED', detail: 'no settlement model for currency XTS' },
      },
    ]);
    expectNothingWritten(result);
  });

  it('no active NET_DEBIT_CAP', () => {
    const result = apply(
      { transfers: received, accounts: [accountFacts('3', { netDebitCap: undefined })] },
      prepare,
      prep(),
    );
    expect(result.outcomes[0]?.error).toEqual({
      name: 'ACCOUNT_MISCONFIGURED',
      detail: 'no active NET_DEBIT_CAP limit',
    });
    expectNothingWritten(result);
  });
});

describe('prepare of a transfer not in RECEIVED_PREPARE', () => {
  it('RESERVED: a redelivery, replayed with the success', () => {
    const result = apply({ transfers: { t: { states: states('RECEIVED_PREPARE', 'RESERVED') } } }, prepare, prep());
    expect(result.outcomes).toEqual([{ seq: 0, result: 'replayed' }]);
    expectNothingWritten(result);
  });

  it('ABORTED_REJECTED: replayed with the error its stored reason names', () => {
    for (const [reason, name] of [
      [rejectionReason.LIMIT, 'LIMIT'],
      [rejectionReason.LIQUIDITY, 'LIQUIDITY'],
      [rejectionReason.INCORRECT_STATE, 'INCORRECT_STATE'],
      [null, 'INCORRECT_STATE'],
    ] as const) {
      const history = states('RECEIVED_PREPARE', ['ABORTED_REJECTED', reason]);
      const result = apply({ transfers: { t: { states: history } } }, prepare, prep());
      expect(result.outcomes).toEqual([{ seq: 0, result: 'replayed', error: { name } }]);
      expectNothingWritten(result);
    }
  });

  it('moved on after RESERVED (committed, aborted, expired): 2001 without detail, nothing written', () => {
    for (const last of ['COMMITTED', 'ABORTED_ERROR', 'EXPIRED_RESERVED', 'RECEIVED_FULFIL']) {
      const history = states('RECEIVED_PREPARE', 'RESERVED', last);
      const result = apply({ transfers: { t: { states: history } } }, prepare, prep());
      expect(result.outcomes).toEqual([{ seq: 0, result: 'failed', error: { name: 'INCORRECT_STATE' } }]);
      expectNothingWritten(result);
    }
  });

  it('never reserved: rejected, → ABORTED_REJECTED "Transfer in incorrect state"', () => {
    const result = apply({ transfers: { t: { states: states('RECEIVED_FULFIL') } } }, prepare, prep());
    expect(result.outcomes).toEqual([{ seq: 0, result: 'rejected', error: { name: 'INCORRECT_STATE' } }]);
    expect(result.stateChanges).toEqual([
      { transferId: 't', transferStateId: 'ABORTED_REJECTED', reason: 'Transfer in incorrect state' },
    ]);
    expect(result.positionChanges).toEqual([]);
  });

  it('fx-prepare never reserved: → the fxTransfer ABORTED_REJECTED "FxTransfer in incorrect state"', () => {
    const result = apply(
      { fxTransfers: { t: { states: states('RECEIVED_FULFIL_DEPENDENT') } } },
      prepare,
      command('fx-prepare', { amount: $('10') }),
    );
    expect(result.stateChanges).toEqual([
      { fx: true, transferId: 't', transferStateId: 'ABORTED_REJECTED', reason: 'FxTransfer in incorrect state' },
    ]);
    expect(result.outcomes[0]).toMatchObject({ result: 'rejected', error: { name: 'INCORRECT_STATE' } });
  });

  it('a second prepare of one transfer in one batch replays the first', () => {
    const result = apply({ transfers: received }, prepare, prep('10', { seq: 0 }), prep('10', { seq: 1 }));
    expect(result.outcomes).toEqual([
      { seq: 0, result: 'applied' },
      { seq: 1, result: 'replayed' },
    ]);
    expect(result.stateChanges).toHaveLength(1);
  });
});
