import type { Batch, Running, Target } from '../batch.js';
import { type LedgerCommand, TransferState } from '../types.js';
import { type Release, releaseReservation } from './release.js';

/**
 * handler.js checks no state for reject; the fulfil handler writes RECEIVED_REJECT before it (transfer facade).
 * Like bulk-abort, the reason of that state is kept and the notification is a success carrying the message.
 */
const REJECT: Release = {
  needs: TransferState.RECEIVED_REJECT,
  result: TransferState.ABORTED_REJECTED,
  reason: 'kept',
};

/** reject: RECEIVED_REJECT → ABORTED_REJECTED, + the payee amount (the reservation released). */
export function reject(batch: Batch, command: LedgerCommand, own: Target, account: Running | undefined): void {
  releaseReservation(batch, command, own, REJECT, account, undefined);
}
