import type { Batch, Running, Target } from '../batch.js';
import { handlerErrors } from '../errors.js';
import { type ErrorName, type LedgerCommand, TransferState } from '../types.js';
import { type Release, releaseReservation } from './release.js';

/**
 * The one-at-a-time handler's (handlers/positions/handler.js) bulk actions: bulk-prepare goes through ./prepare.ts,
 * bulk-commit through ./commit.ts, bulk-timeout-reserved through ./timeout.ts; what is theirs alone is here.
 */

/**
 * handler.js answers a refused bulk-prepare after TransferService.logTransferError: a transferError row naming
 * the transfer's latest state change (the ABORTED_REJECTED just written) with the error's code and description.
 * The batch handler's prepare writes none.
 */
export function logTransferError(batch: Batch, command: LedgerCommand, stateChange: number, name: ErrorName): void {
  if (command.action !== 'bulk-prepare') return;
  const { fspiop } = handlerErrors[name];
  batch.transferErrors.push({ stateChange, errorCode: fspiop.code, errorDescription: fspiop.description });
}

/**
 * handler.js books bulk-abort's ABORTED_ERROR with the reason of the state the fulfil handler wrote
 * (getTransferInfoToChangePosition reads the latest transferStateChange's reason) and answers with a success
 * notification carrying the message as it came (no fspiopError to Kafka.proceed).
 */
const BULK_ABORT: Release = {
  needs: TransferState.RECEIVED_ERROR,
  result: TransferState.ABORTED_ERROR,
  reason: 'kept',
};

/** bulk-abort: RECEIVED_ERROR → ABORTED_ERROR, + the payee amount, the reason kept. */
export function bulkAbort(batch: Batch, command: LedgerCommand, own: Target, account: Running | undefined): void {
  releaseReservation(batch, command, own, BULK_ABORT, account, undefined);
}
