import { abort } from './actions/abort.js';
import { bulkAbort } from './actions/bulk.js';
import { commit } from './actions/commit.js';
import { fxReserve } from './actions/fx-reserve.js';
import { fxTimeout } from './actions/fx-timeout.js';
import { prepare } from './actions/prepare.js';
import { reject } from './actions/reject.js';
import { timeout } from './actions/timeout.js';
import { Batch } from './batch.js';
import { isFxAction, NO_POSITION_ACCOUNT, type PlanInput, type PlanResult } from './types.js';

/**
 * Applies one batch in memory, in message order, and returns every row to write and every notification to
 * send. Pure: the same input gives the same output, so a crash-safety test can replay it.
 *
 * Idempotency rests on the transfer's own history, read in the same transaction as the write: each action
 * has a precondition state and a result state. A message whose transfer's latest state is the action's result is
 * a replay: nothing is written and the first delivery's notification is re-sent. A message whose transfer has
 * moved on since (a redelivered prepare of a committed transfer) writes nothing and gets the original's answer
 * for a transfer in the wrong state, 2001 from the Hub, without the original's ABORTED_REJECTED on top of a
 * finished transfer. Since state changes, position changes and positions commit in one DB transaction, "result
 * state recorded" and "position moved" are the same fact.
 *
 * Each action's rules are in its own module under ./actions/; this loop finds the message's transfer (or
 * fxTransfer) and account, answers for a missing one, and hands both to the action with the batch's running state.
 */
export function planBatch(input: PlanInput): PlanResult {
  const batch = new Batch(input);
  for (const command of input.commands) {
    const { seq, action, accountId } = command;
    const own = batch.target(isFxAction(action), command.transferId);
    if (own.history.length === 0) {
      batch.fail(seq, 'TRANSFER_NOT_FOUND');
      continue;
    }
    const changesPosition = accountId !== NO_POSITION_ACCOUNT;
    const account = changesPosition ? batch.account(accountId) : undefined;
    if (changesPosition && !account) {
      batch.fail(seq, 'ACCOUNT_NOT_FOUND', `position account ${accountId}`);
      continue;
    }
    switch (action) {
      case 'prepare':
      case 'bulk-prepare':
      case 'fx-prepare':
        prepare(batch, command, own, account);
        break;
      case 'commit':
      case 'reserve':
      case 'bulk-commit':
        commit(batch, command, own, account);
        break;
      case 'fx-reserve':
        fxReserve(batch, command, own);
        break;
      case 'abort':
      case 'abort-validation':
      case 'fx-abort':
      case 'fx-abort-validation':
        abort(batch, command, own, account);
        break;
      case 'timeout-reserved':
      case 'bulk-timeout-reserved':
        timeout(batch, command, own, account);
        break;
      case 'fx-timeout-reserved':
        fxTimeout(batch, command, own, account);
        break;
      case 'bulk-abort':
        bulkAbort(batch, command, own, account);
        break;
      case 'reject':
        reject(batch, command, own, account);
        break;
      default:
        // Compile-time only: a new PositionAction fails the build until it is dispatched here.
        action satisfies never;
    }
  }
  return batch.result();
}
