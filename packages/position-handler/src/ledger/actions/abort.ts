import type { Batch, Running, Target } from '../batch.js';
import { type ErrorName, type LedgerCommand, TransferState } from '../types.js';
import { cyrilStep } from './cyril-step.js';
import { type Release, releaseReservation } from './release.js';

/** The error every notification of an abort carries: 5100 for a payee's rejection, 3100 for a validation. */
function abortError(action: LedgerCommand['action']): ErrorName {
  return action === 'abort-validation' || action === 'fx-abort-validation' ? 'ABORT_VALIDATION' : 'ABORT_REJECTED';
}

const ABORT: Release = { needs: TransferState.RECEIVED_ERROR, result: TransferState.ABORTED_ERROR, reason: 'none' };

/**
 * abort, abort-validation, fx-abort and fx-abort-validation (abort.js): with cyrilResult steps (central-ledger 19.x
 * aborts), the first step not done, RECEIVED_ERROR → ABORTED_ERROR on the step's transfer or fxTransfer
 * (./cyril-step.ts); without, RECEIVED_ERROR → ABORTED_ERROR on the message's own, + the payee amount
 * (./release.ts). Applied or replayed, the notification is an error (5100 or 3100).
 */
export function abort(batch: Batch, command: LedgerCommand, own: Target, account: Running | undefined): void {
  const error = abortError(command.action);
  if (command.cyril) {
    cyrilStep(
      batch,
      command,
      own,
      command.cyril,
      TransferState.RECEIVED_ERROR,
      TransferState.ABORTED_ERROR,
      account,
      error,
    );
    return;
  }
  releaseReservation(batch, command, own, ABORT, account, error);
}
