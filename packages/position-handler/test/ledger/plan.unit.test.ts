import { describe, expect, it } from 'vitest';
import { abort } from '../../src/ledger/actions/abort.js';
import { bulkAbort } from '../../src/ledger/actions/bulk.js';
import { commit } from '../../src/ledger/actions/commit.js';
import { fxReserve } from '../../src/ledger/actions/fx-reserve.js';
import { fxTimeout } from '../../src/ledger/actions/fx-timeout.js';
import { prepare } from '../../src/ledger/actions/prepare.js';
import { reject } from '../../src/ledger/actions/reject.js';
import { timeout } from '../../src/ledger/actions/timeout.js';
import { Batch, latestState } from '../../src/ledger/batch.js';
import { planBatch } from '../../src/ledger/plan.js';
import { POSITION_ACTIONS, type PositionAction } from '../../src/ledger/types.js';
import {
  $,
  type Action,
  accountFacts,
  apply,
  command,
  expectNothingWritten,
  inputOf,
  states,
  type World,
} from './world.js';

/** Each action's module and the state of transfer (and fxTransfer) 't' in which it applies. */
const ROUTES: Record<PositionAction, readonly [Action, string]> = {
  prepare: [prepare, 'RECEIVED_PREPARE'],
  'bulk-prepare': [prepare, 'RECEIVED_PREPARE'],
  'fx-prepare': [prepare, 'RECEIVED_PREPARE'],
  commit: [commit, 'RECEIVED_FULFIL'],
  reserve: [commit, 'RECEIVED_FULFIL'],
  'bulk-commit': [commit, 'RECEIVED_FULFIL'],
  'fx-reserve': [(batch, c, own) => fxReserve(batch, c, own), 'RECEIVED_FULFIL_DEPENDENT'],
  abort: [abort, 'RECEIVED_ERROR'],
  'abort-validation': [abort, 'RECEIVED_ERROR'],
  'fx-abort': [abort, 'RECEIVED_ERROR'],
  'fx-abort-validation': [abort, 'RECEIVED_ERROR'],
  'timeout-reserved': [timeout, 'RESERVED_TIMEOUT'],
  'bulk-timeout-reserved': [timeout, 'RESERVED_TIMEOUT'],
  'fx-timeout-reserved': [fxTimeout, 'RESERVED_TIMEOUT'],
  'bulk-abort': [bulkAbort, 'RECEIVED_ERROR'],
  reject: [reject, 'RECEIVED_REJECT'],
};

describe('planBatch: the loop that finds each message’s transfer and account and dispatches to its action', () => {
  it.each(POSITION_ACTIONS)('dispatches %s to its module', (action) => {
    const [module, needs] = ROUTES[action];
    const world: World = {
      // Unlike amounts, so an action sent to another's module books another change.
      transfers: { t: { states: states('RESERVED', needs), payee: $('-10') } },
      fxTransfers: { t: { states: states('RESERVED', needs), reserved: { '3': $('7') } } },
    };
    const c = command(action, action.endsWith('prepare') ? { amount: $('10') } : {});
    const planned = planBatch(inputOf({ ...world, commands: [c] }));
    expect(planned.outcomes[0]?.result).toBe('applied');
    expect(planned).toEqual(apply(world, module, c));
  });

  it('a transfer the batch did not find: 3208, nothing written; an fx- action looks among the fxTransfers', () => {
    const result = planBatch(
      inputOf({
        transfers: { t: { states: states('RECEIVED_PREPARE') } },
        commands: [command('prepare', { transferId: 'other' }), command('fx-prepare', { seq: 1 })],
      }),
    );
    expect(result.outcomes).toEqual([
      { seq: 0, result: 'failed', error: { name: 'TRANSFER_NOT_FOUND' } },
      { seq: 1, result: 'failed', error: { name: 'TRANSFER_NOT_FOUND' } },
    ]);
    expectNothingWritten(result);
  });

  it('a key that is no position account: 2001 naming it, nothing written; key 0 needs no account', () => {
    const result = planBatch(
      inputOf({
        accounts: [],
        transfers: { t: { states: states('RECEIVED_PREPARE') }, u: { states: states('RECEIVED_PREPARE') } },
        commands: [
          command('prepare', { accountId: '9', amount: $('1') }),
          command('prepare', { seq: 1, transferId: 'u', accountId: '0', amount: $('1') }),
        ],
      }),
    );
    expect(result.outcomes).toEqual([
      { seq: 0, result: 'failed', error: { name: 'ACCOUNT_NOT_FOUND', detail: 'position account 9' } },
      { seq: 1, result: 'applied' },
    ]);
    expect(result.stateChanges).toEqual([{ transferId: 'u', transferStateId: 'RESERVED', reason: null }]);
    expect(result.positionChanges).toEqual([]);
  });

  it('folds the state through the batch: outcomes in message order, one final position per account touched', () => {
    const commands = [
      command('prepare', { seq: 0, transferId: 'a', accountId: '4', amount: $('5') }),
      command('commit', { seq: 1, transferId: 'b', accountId: '3' }),
      command('prepare', { seq: 2, transferId: 'c', accountId: '4', amount: $('7') }),
      // Account 5 is read but nothing moves it: no positionUpdate.
      command('commit', { seq: 3, transferId: 'd', accountId: '5' }),
    ];
    const result = planBatch(
      inputOf({
        accounts: [accountFacts('3'), accountFacts('4'), accountFacts('5')],
        transfers: {
          a: { states: states('RECEIVED_PREPARE') },
          b: { states: states('RECEIVED_FULFIL'), payee: $('-2') },
          c: { states: states('RECEIVED_PREPARE') },
          d: { states: states('RESERVED') },
        },
        commands,
      }),
    );
    expect(result.outcomes.map((o) => [o.seq, o.result])).toEqual([
      [0, 'applied'],
      [1, 'applied'],
      [2, 'applied'],
      [3, 'failed'],
    ]);
    expect(result.positionChanges.map((c) => [c.stateChange, c.participantCurrencyId, c.value])).toEqual([
      [0, '4', $('5')],
      [1, '3', $('-2')],
      [2, '4', $('12')],
    ]);
    expect(result.positionUpdates).toEqual([
      { participantPositionId: '40', value: $('12') },
      { participantPositionId: '30', value: $('-2') },
    ]);
    expect(result).not.toHaveProperty('transferErrors');
  });

  it('is pure: the input is not changed and planning it again gives the same plan', () => {
    const input = inputOf({
      transfers: { t: { states: states('RECEIVED_PREPARE') } },
      commands: [command('prepare', { amount: $('10') }), command('prepare', { seq: 1, amount: $('10') })],
    });
    const first = planBatch(input);
    expect(input.transfers.get('t')?.history).toEqual(states('RECEIVED_PREPARE'));
    expect(input.accounts.get('3')?.value).toBe(0n);
    expect(planBatch(input)).toEqual(first);
  });
});

describe('Batch: the running state the actions are given', () => {
  it('keeps one target per transfer and one per fxTransfer, their stored histories copied', () => {
    const input = inputOf({
      transfers: { t: { states: states('RECEIVED_PREPARE') } },
      fxTransfers: { t: { states: states('RESERVED') } },
    });
    const batch = new Batch(input);
    const transfer = batch.target(false, 't');
    expect(batch.target(false, 't')).toBe(transfer);
    expect(latestState(batch.target(true, 't'))).toBe('RESERVED');
    batch.writeState(transfer, 'RESERVED', null);
    expect(latestState(transfer)).toBe('RESERVED');
    expect(input.transfers.get('t')?.history).toHaveLength(1);
    const unknown = batch.target(true, 'nope');
    expect(unknown.history).toEqual([]);
    expect(latestState(unknown)).toBeUndefined();
  });

  it('keeps one running value per account, and moves none for no account', () => {
    const batch = new Batch(inputOf({ accounts: [accountFacts('3', { value: $('1') })] }));
    expect(batch.account('3')).toBe(batch.account('3'));
    expect(batch.account('9')).toBeUndefined();
    batch.move(undefined, 0, $('5'));
    expect(batch.positionChanges).toEqual([]);
    batch.move(batch.account('3'), 0, $('5'));
    expect(batch.account('3')?.value).toBe($('6'));
    expect(batch.result().positionUpdates).toEqual([{ participantPositionId: '30', value: $('6') }]);
  });
});
