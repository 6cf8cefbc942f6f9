import { describe, expect, it } from 'vitest';
import { parseAmount } from '../src/ledger/amount.js';
import { planBatch } from '../src/ledger/plan.js';
import type { AccountFacts, LedgerCommand, PlanInput, PositionAction, StateRecord } from '../src/ledger/types.js';

/**
 * The planner with plain values: the one-at-a-time handler's actions as central-ledger 19.5.5
 * handlers/positions/handler.js applies them (state checks, position effects, states and reasons written), with
 * the idempotency rule of every other action (a replay writes nothing, a wrong state writes nothing and is 2001).
 */
const account = (id: string, netDebitCap = '1000'): AccountFacts => ({
  participantCurrencyId: id,
  participantPositionId: `${id}0`,
  value: parseAmount('50'),
  reservedValue: 0n,
  netDebitCap: parseAmount(netDebitCap),
  liquidityCover: parseAmount('1000'),
});
const history = (...states: (string | [string, string])[]): StateRecord[] =>
  states.map((s) =>
    Array.isArray(s) ? { transferStateId: s[0], reason: s[1] } : { transferStateId: s, reason: null },
  );

function plan(action: PositionAction, transfer: readonly StateRecord[], amount = '10', netDebitCap = '1000') {
  const command: LedgerCommand = {
    seq: 0,
    action,
    transferId: 't',
    accountId: '3',
    ...(action === 'bulk-prepare' || action === 'prepare' ? { amount: parseAmount(amount) } : {}),
  };
  const input: PlanInput = {
    commands: [command],
    accounts: new Map([['3', account('3', netDebitCap)]]),
    // transferParticipant PAYEE_DFSP is stored negative: -(the PAYER_DFSP amount handler.js reverses).
    transfers: new Map([['t', { history: transfer, payeeAmount: parseAmount('-10') }]]),
  };
  return planBatch(input);
}

const nothingWritten = (result: ReturnType<typeof planBatch>) => {
  expect(result.stateChanges).toEqual([]);
  expect(result.positionChanges).toEqual([]);
  expect(result.positionUpdates).toEqual([]);
};

describe('bulk-prepare (handler.js → PositionService.calculatePreparePositionsBatch, position facade)', () => {
  it('RECEIVED_PREPARE → RESERVED, + amount on the payer account', () => {
    const result = plan('bulk-prepare', history('RECEIVED_PREPARE'));
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
    expect(result.stateChanges).toEqual([{ transferId: 't', transferStateId: 'RESERVED', reason: null }]);
    expect(result.positionChanges).toMatchObject([
      { participantCurrencyId: '3', change: parseAmount('10'), value: parseAmount('60') },
    ]);
  });
  it('past the net debit cap: ABORTED_REJECTED "Payer limit error", 4200, no position change', () => {
    const result = plan('bulk-prepare', history('RECEIVED_PREPARE'), '60', '100');
    expect(result.outcomes).toEqual([{ seq: 0, result: 'rejected', error: { name: 'LIMIT' } }]);
    expect(result.stateChanges).toEqual([
      { transferId: 't', transferStateId: 'ABORTED_REJECTED', reason: 'Payer limit error' },
    ]);
    expect(result.positionChanges).toEqual([]);
    // handler.js logTransferError: a transferError naming that ABORTED_REJECTED; the batch handler's prepare writes none.
    expect(result.transferErrors).toEqual([
      { stateChange: 0, errorCode: '4200', errorDescription: 'Payer limit error' },
    ]);
    expect(plan('prepare', history('RECEIVED_PREPARE'), '60', '100').transferErrors).toBeUndefined();
  });
  it('redelivered while RESERVED: a replay; after a commit: nothing written, 2001', () => {
    const replay = plan('bulk-prepare', history('RECEIVED_PREPARE', 'RESERVED'));
    expect(replay.outcomes).toEqual([{ seq: 0, result: 'replayed' }]);
    nothingWritten(replay);
    const late = plan('bulk-prepare', history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED'));
    expect(late.outcomes[0]).toMatchObject({ result: 'failed', error: { name: 'INCORRECT_STATE' } });
    nothingWritten(late);
  });
});

describe('bulk-prepare beside prepare in one batch', () => {
  it('shares the running headroom of the payer: 60 + 30 fit a cap of 100 over a position of 0, the next 20 does not', () => {
    const commands: LedgerCommand[] = [
      { seq: 0, action: 'prepare', transferId: 'a', accountId: '3', amount: parseAmount('60') },
      { seq: 1, action: 'bulk-prepare', transferId: 'b', accountId: '3', amount: parseAmount('30') },
      { seq: 2, action: 'bulk-prepare', transferId: 'c', accountId: '3', amount: parseAmount('20') },
    ];
    const prepared = { history: history('RECEIVED_PREPARE'), payeeAmount: undefined };
    const result = planBatch({
      commands,
      accounts: new Map([['3', { ...account('3', '100'), value: 0n }]]),
      transfers: new Map(['a', 'b', 'c'].map((id) => [id, prepared])),
    });
    expect(result.outcomes.map((o) => o.result)).toEqual(['applied', 'applied', 'rejected']);
    expect(result.outcomes[2]?.error).toEqual({ name: 'LIMIT' });
    expect(result.positionUpdates).toEqual([{ participantPositionId: '30', value: parseAmount('90') }]);
  });
});

describe('bulk-commit (handler.js commit branch: PAYEE_DFSP amount, not a reversal)', () => {
  it('RECEIVED_FULFIL → COMMITTED, + the payee amount (negative) on the payee account', () => {
    const result = plan('bulk-commit', history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL'));
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
    expect(result.stateChanges).toEqual([{ transferId: 't', transferStateId: 'COMMITTED', reason: null }]);
    expect(result.positionChanges).toMatchObject([{ change: parseAmount('-10'), value: parseAmount('40') }]);
  });
  it('not RECEIVED_FULFIL: 2001 "Invalid State: RESERVED - expected: RECEIVED_FULFIL", nothing written', () => {
    const result = plan('bulk-commit', history('RECEIVED_PREPARE', 'RESERVED'));
    expect(result.outcomes[0]).toEqual({
      seq: 0,
      result: 'failed',
      error: { name: 'INCORRECT_STATE', detail: 'Invalid State: RESERVED - expected: RECEIVED_FULFIL' },
    });
    nothingWritten(result);
  });
  it('redelivered once COMMITTED: a replay, nothing written', () => {
    const result = plan('bulk-commit', history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED'));
    expect(result.outcomes).toEqual([{ seq: 0, result: 'replayed' }]);
    nothingWritten(result);
  });
});

describe('bulk-timeout-reserved (handler.js timeout branch: PAYER_DFSP amount reversed)', () => {
  it('RESERVED_TIMEOUT → EXPIRED_RESERVED "Transfer expired", - amount on the payer, 3303', () => {
    const result = plan('bulk-timeout-reserved', history('RECEIVED_PREPARE', 'RESERVED', 'RESERVED_TIMEOUT'));
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied', error: { name: 'EXPIRED' } }]);
    expect(result.stateChanges).toEqual([
      { transferId: 't', transferStateId: 'EXPIRED_RESERVED', reason: 'Transfer expired' },
    ]);
    expect(result.positionChanges).toMatchObject([{ change: parseAmount('-10'), value: parseAmount('40') }]);
  });
  it('not RESERVED_TIMEOUT: nothing written, 2001 (the original throws and answers nothing)', () => {
    const result = plan('bulk-timeout-reserved', history('RECEIVED_PREPARE', 'RESERVED'));
    expect(result.outcomes[0]).toMatchObject({ result: 'failed', error: { name: 'INCORRECT_STATE' } });
    nothingWritten(result);
  });
  it('redelivered once EXPIRED_RESERVED: a replay with the 3303 again, nothing written', () => {
    const result = plan(
      'bulk-timeout-reserved',
      history('RECEIVED_PREPARE', 'RESERVED', 'RESERVED_TIMEOUT', ['EXPIRED_RESERVED', 'Transfer expired']),
    );
    expect(result.outcomes).toEqual([{ seq: 0, result: 'replayed', error: { name: 'EXPIRED' } }]);
    nothingWritten(result);
  });
});

describe('bulk-abort and reject (handler.js abort branch: PAYER_DFSP amount reversed, the reason kept)', () => {
  it('bulk-abort: RECEIVED_ERROR → ABORTED_ERROR with the RECEIVED_ERROR reason, - amount, a success result', () => {
    const result = plan('bulk-abort', history('RECEIVED_PREPARE', 'RESERVED', ['RECEIVED_ERROR', 'payee said no']));
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
    expect(result.stateChanges).toEqual([
      { transferId: 't', transferStateId: 'ABORTED_ERROR', reason: 'payee said no' },
    ]);
    expect(result.positionChanges).toMatchObject([{ change: parseAmount('-10'), value: parseAmount('40') }]);
  });
  it('reject: RECEIVED_REJECT → ABORTED_REJECTED with its reason, - amount', () => {
    const result = plan('reject', history('RECEIVED_PREPARE', 'RESERVED', ['RECEIVED_REJECT', 'rejected']));
    expect(result.outcomes).toEqual([{ seq: 0, result: 'applied' }]);
    expect(result.stateChanges).toEqual([{ transferId: 't', transferStateId: 'ABORTED_REJECTED', reason: 'rejected' }]);
    expect(result.positionChanges).toMatchObject([{ change: parseAmount('-10') }]);
  });
  it('redelivered: a replay, nothing written; reject of a transfer whose prepare was rejected: 2001, not a replay', () => {
    const abort = plan('bulk-abort', history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_ERROR', 'ABORTED_ERROR'));
    expect(abort.outcomes).toEqual([{ seq: 0, result: 'replayed' }]);
    nothingWritten(abort);
    const reject = plan('reject', history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_REJECT', 'ABORTED_REJECTED'));
    expect(reject.outcomes).toEqual([{ seq: 0, result: 'replayed' }]);
    nothingWritten(reject);
    const refused = plan('reject', history('RECEIVED_PREPARE', 'ABORTED_REJECTED'));
    expect(refused.outcomes[0]).toMatchObject({ result: 'failed', error: { name: 'INCORRECT_STATE' } });
    nothingWritten(refused);
  });
  it('wrong state (a committed transfer): nothing written, 2001 (the original releases the position anyway)', () => {
    const result = plan('bulk-abort', history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED'));
    expect(result.outcomes[0]).toEqual({
      seq: 0,
      result: 'failed',
      error: { name: 'INCORRECT_STATE', detail: 'Invalid State: COMMITTED - expected: RECEIVED_ERROR' },
    });
    nothingWritten(result);
  });
});
