import { type Batch, latestState, type Running, type Target } from '../batch.js';
import { type CyrilPlan, type ErrorName, type LedgerCommand, NO_POSITION_ACCOUNT, TransferState } from '../types.js';

/**
 * A cyrilResult step of a commit (→ COMMITTED) or an abort (→ ABORTED_ERROR) on the step's transfer or
 * fxTransfer, when the message's own transfer is in `needs` (central-ledger 19.5.5 fulfil.js, abort.js). A step
 * whose target already carries the result is a replay: its notifications or follow-up go out again. The step must
 * name the message's account: the original books it on the key whatever the step says. With no step after it, the
 * abort's cyrilResult.transferStateChanges are written; with one, the message goes on to that step's account.
 */
export function cyrilStep(
  batch: Batch,
  command: LedgerCommand,
  own: Target,
  cyril: CyrilPlan,
  needs: string,
  result: string,
  account: Running | undefined,
  error: ErrorName | undefined,
): void {
  const { seq } = command;
  const { step } = cyril;
  const target = batch.target(step.fx, step.id);
  const extra = {
    ...(error ? { error: { name: error } } : {}),
    ...(cyril.nextAccountId === undefined ? {} : { next: cyril.nextAccountId }),
    ...(step.fx && result === TransferState.COMMITTED ? { fxNotify: true } : {}),
  };
  if (latestState(target) === result) {
    batch.outcomes.push({ seq, result: 'replayed', ...extra });
    return;
  }
  const current = latestState(own);
  // A follow-up finds its own transfer or fxTransfer already in the result when an earlier step of the same
  // message moved it (an fx-abort's first step aborts its own fxTransfer, the second releases the dependent
  // transfer's reservation on the FXP); abort.js refuses that follow-up and the abort never finishes.
  const movedByEarlierStep =
    current === result && (cyril.done ?? []).some((done) => done.fx === own.fx && done.id === own.id);
  if (current !== needs && !movedByEarlierStep) {
    batch.wrongState(seq, current, needs);
    return;
  }
  if (step.accountId !== command.accountId && command.accountId !== NO_POSITION_ACCOUNT) {
    batch.fail(
      seq,
      'BAD_CYRIL_RESULT',
      `positionChange on account ${step.accountId}, message key ${command.accountId}`,
    );
    return;
  }
  batch.move(account, batch.writeState(target, result, null), step.amount);
  if (cyril.nextAccountId === undefined) {
    for (const change of cyril.transferStateChanges) {
      batch.writeState(batch.target(false, change.transferId), change.transferStateId, change.reason);
    }
  }
  batch.outcomes.push({ seq, result: 'applied', ...extra });
}
