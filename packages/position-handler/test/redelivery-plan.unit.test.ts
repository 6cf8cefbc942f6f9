import { describe, expect, it } from 'vitest';
import { parseAmount } from '../src/ledger/amount.js';
import { planBatch } from '../src/ledger/plan.js';
import type {
  AccountFacts,
  CyrilPlan,
  FxTransferFacts,
  LedgerCommand,
  PlanInput,
  PositionAction,
  StateRecord,
} from '../src/ledger/types.js';

/**
 * Redelivery: a message is re-notified only when its transfer's (or fxTransfer's) latest state is the one
 * that message produced; a redelivery after the transfer moved on writes nothing and is answered 2001 from the Hub.
 * One case per action, with plain values.
 */
const account = (id = '3'): AccountFacts => ({
  participantCurrencyId: id,
  participantPositionId: `${id}0`,
  value: 0n,
  reservedValue: 0n,
  netDebitCap: parseAmount('1000'),
  liquidityCover: parseAmount('1000'),
});
const history = (...states: string[]): StateRecord[] =>
  states.map((transferStateId) => ({ transferStateId, reason: null }));
const command = (action: PositionAction, extra: Partial<LedgerCommand> = {}): LedgerCommand => ({
  seq: 0,
  action,
  transferId: 't',
  accountId: '3',
  ...(action === 'prepare' || action === 'fx-prepare' ? { amount: parseAmount('10') } : {}),
  ...extra,
});

function plan(
  c: LedgerCommand,
  transfer: readonly StateRecord[],
  fx?: readonly StateRecord[],
  reserved = new Map<string, bigint>(),
) {
  const input: PlanInput = {
    commands: [c],
    accounts: new Map([
      ['3', account('3')],
      ['4', account('4')],
    ]),
    transfers: new Map([['t', { history: transfer, payeeAmount: parseAmount('-10') }]]),
    fxTransfers: new Map<string, FxTransferFacts>(fx ? [['t', { history: fx, reservedChanges: reserved }]] : []),
  };
  return planBatch(input);
}

const nothingWritten2001 = (result: ReturnType<typeof planBatch>) => {
  expect(result.outcomes[0]).toMatchObject({ result: 'failed', error: { name: 'INCORRECT_STATE' } });
  expect(result.stateChanges).toEqual([]);
  expect(result.positionChanges).toEqual([]);
  expect(result.positionUpdates).toEqual([]);
};

const fxStep = (accountId = '3', next?: string): CyrilPlan => ({
  step: { fx: true, id: 't', accountId, amount: parseAmount('-10') },
  ...(next ? { nextAccountId: next } : {}),
  transferStateChanges: [],
});

describe('a redelivery after the transfer moved on: nothing written, 2001', () => {
  it('prepare after ABORTED_ERROR (reserved, then aborted)', () => {
    nothingWritten2001(
      plan(command('prepare'), history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_ERROR', 'ABORTED_ERROR')),
    );
  });

  it('prepare after EXPIRED_RESERVED', () => {
    nothingWritten2001(
      plan(command('prepare'), history('RECEIVED_PREPARE', 'RESERVED', 'RESERVED_TIMEOUT', 'EXPIRED_RESERVED')),
    );
  });

  it('commit after the transfer was aborted instead (RECEIVED_FULFIL, then ABORTED_ERROR)', () => {
    nothingWritten2001(
      plan(
        command('commit'),
        history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'RECEIVED_ERROR', 'ABORTED_ERROR'),
      ),
    );
  });

  it('abort and abort-validation after the transfer was committed', () => {
    const committed = history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED');
    nothingWritten2001(plan(command('abort'), committed));
    nothingWritten2001(plan(command('abort-validation'), committed));
  });

  it('timeout-reserved after the transfer was committed', () => {
    nothingWritten2001(
      plan(command('timeout-reserved'), history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED')),
    );
  });

  it('fx-prepare after the fxTransfer was committed', () => {
    nothingWritten2001(
      plan(
        command('fx-prepare'),
        [],
        history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL_DEPENDENT', 'COMMITTED'),
      ),
    );
  });

  it('fx-reserve after the fxTransfer was committed (the original writes ABORTED_REJECTED on it)', () => {
    nothingWritten2001(
      plan(
        command('fx-reserve'),
        [],
        history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL_DEPENDENT', 'COMMITTED'),
      ),
    );
  });

  it('fx-timeout-reserved after the fxTransfer was committed', () => {
    nothingWritten2001(
      plan(
        command('fx-timeout-reserved'),
        [],
        history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL_DEPENDENT', 'COMMITTED'),
      ),
    );
  });

  it('fx-abort after the fxTransfer was committed', () => {
    nothingWritten2001(
      plan(
        command('fx-abort', { cyril: fxStep() }),
        [],
        history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL_DEPENDENT', 'COMMITTED'),
      ),
    );
  });
});

describe('a redelivery while the latest state is the one it produced: replayed, nothing written, the same notification', () => {
  it('fx-prepare of a RESERVED fxTransfer (success again) and of an ABORTED_REJECTED one (its error again)', () => {
    expect(plan(command('fx-prepare'), [], history('RECEIVED_PREPARE', 'RESERVED')).outcomes[0]).toEqual({
      seq: 0,
      result: 'replayed',
    });
    const rejected = plan(
      command('fx-prepare'),
      [],
      [
        { transferStateId: 'RECEIVED_PREPARE', reason: null },
        { transferStateId: 'ABORTED_REJECTED', reason: 'Payer limit error' },
      ],
    );
    expect(rejected.outcomes[0]).toEqual({ seq: 0, result: 'replayed', error: { name: 'LIMIT' } });
    expect(rejected.stateChanges).toEqual([]);
  });

  it('fx-timeout-reserved of an EXPIRED_RESERVED fxTransfer: 3303 again, nothing released twice', () => {
    const result = plan(
      command('fx-timeout-reserved'),
      [],
      history('RECEIVED_PREPARE', 'RESERVED', 'RESERVED_TIMEOUT', 'EXPIRED_RESERVED'),
      new Map([['3', parseAmount('10')]]),
    );
    expect(result.outcomes[0]).toEqual({ seq: 0, result: 'replayed', error: { name: 'EXPIRED' } });
    expect(result.positionChanges).toEqual([]);
  });

  it('a commit step on an fxTransfer already COMMITTED: fx-notify and the follow-up again, nothing written', () => {
    const result = plan(
      command('commit', { cyril: fxStep('3', '4') }),
      history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL'),
      history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL_DEPENDENT', 'COMMITTED'),
    );
    expect(result.outcomes[0]).toEqual({ seq: 0, result: 'replayed', next: '4', fxNotify: true });
    expect(result.stateChanges).toEqual([]);
  });

  it('an fx-abort step on an fxTransfer already ABORTED_ERROR: its 5100 notifications again, nothing written', () => {
    const result = plan(
      command('fx-abort', { cyril: fxStep() }),
      [],
      history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_ERROR', 'ABORTED_ERROR'),
    );
    expect(result.outcomes[0]).toEqual({ seq: 0, result: 'replayed', error: { name: 'ABORT_REJECTED' } });
    expect(result.positionChanges).toEqual([]);
  });
});

describe('FX rules with plain values', () => {
  it('fx-prepare and prepare share one running value: headroom 25, prepare 10, fx-prepare 10, fx-prepare 10 → the last gets 4200', () => {
    const commands: LedgerCommand[] = [
      command('prepare', { seq: 0, transferId: 'p' }),
      command('fx-prepare', { seq: 1, transferId: 'x1' }),
      command('fx-prepare', { seq: 2, transferId: 'x2' }),
    ];
    const result = planBatch({
      commands,
      accounts: new Map([['3', { ...account(), netDebitCap: parseAmount('25') }]]),
      transfers: new Map([['p', { history: history('RECEIVED_PREPARE'), payeeAmount: undefined }]]),
      fxTransfers: new Map(
        ['x1', 'x2'].map((id) => [id, { history: history('RECEIVED_PREPARE'), reservedChanges: new Map() }]),
      ),
    });
    expect(result.outcomes.map((o) => [o.result, o.error?.name])).toEqual([
      ['applied', undefined],
      ['applied', undefined],
      ['rejected', 'LIMIT'],
    ]);
    expect(result.stateChanges).toEqual([
      { transferId: 'p', transferStateId: 'RESERVED', reason: null },
      { fx: true, transferId: 'x1', transferStateId: 'RESERVED', reason: null },
      { fx: true, transferId: 'x2', transferStateId: 'ABORTED_REJECTED', reason: 'Payer limit error' },
    ]);
    expect(result.positionChanges.map((c) => c.stateChange)).toEqual([0, 1]);
  });

  it('the last abort step writes cyrilResult.transferStateChanges too (abort.js)', () => {
    const result = plan(
      command('fx-abort', {
        cyril: {
          ...fxStep(),
          transferStateChanges: [{ transferId: 'dependent', transferStateId: 'ABORTED_ERROR', reason: null }],
        },
      }),
      [],
      history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_ERROR'),
    );
    expect(result.stateChanges).toEqual([
      { fx: true, transferId: 't', transferStateId: 'ABORTED_ERROR', reason: null },
      { transferId: 'dependent', transferStateId: 'ABORTED_ERROR', reason: null },
    ]);
    expect(result.positionChanges.map((c) => c.change)).toEqual([parseAmount('-10')]);
  });
});

describe('the follow-up of a two-step fx-abort (its first step aborted the message own fxTransfer)', () => {
  const followUp = (done: CyrilPlan['done']) =>
    command('fx-abort', {
      accountId: '4',
      cyril: {
        step: { fx: false, id: 't', accountId: '4', amount: parseAmount('-9') },
        ...(done ? { done } : {}),
        transferStateChanges: [],
      },
    });
  const fxAborted = history('RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_ERROR', 'ABORTED_ERROR');
  const reserved = history('RECEIVED_PREPARE', 'RESERVED');

  it('applied: the dependent transfer RESERVED → ABORTED_ERROR, the FXP released', () => {
    const result = plan(followUp([{ fx: true, id: 't' }]), reserved, fxAborted);
    expect(result.outcomes[0]).toMatchObject({ result: 'applied', error: { name: 'ABORT_REJECTED' } });
    expect(result.stateChanges).toEqual([{ transferId: 't', transferStateId: 'ABORTED_ERROR', reason: null }]);
    expect(result.positionChanges.map((c) => [c.participantCurrencyId, c.change])).toEqual([['4', parseAmount('-9')]]);
  });

  it('redelivered after it was applied: replayed, nothing written', () => {
    const result = plan(followUp([{ fx: true, id: 't' }]), [...reserved, ...history('ABORTED_ERROR')], fxAborted);
    expect(result.outcomes[0]).toMatchObject({ result: 'replayed' });
    expect(result.stateChanges).toEqual([]);
  });

  it('the fxTransfer aborted by something else than a done step of this message: 2001, nothing written', () => {
    nothingWritten2001(plan(followUp(undefined), reserved, fxAborted));
    nothingWritten2001(plan(followUp([{ fx: false, id: 'other' }]), reserved, fxAborted));
  });
});
