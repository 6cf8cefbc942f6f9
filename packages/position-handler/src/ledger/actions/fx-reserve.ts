import { type Batch, latestState, type Target } from '../batch.js';
import { rejectionReason } from '../errors.js';
import { type LedgerCommand, TransferState } from '../types.js';

/**
 * fx-reserve (fx-fulfil.js): RECEIVED_FULFIL_DEPENDENT stays as it is (the fulfil of the dependent transfer
 * commits it) and no position moves; only a notification to the initiating FSP. Found ABORTED_REJECTED, or a later
 * state after RECEIVED_FULFIL_DEPENDENT: 2001, nothing written. Any other state: → ABORTED_REJECTED with 2001.
 */
export function fxReserve(batch: Batch, command: LedgerCommand, own: Target): void {
  const { seq } = command;
  const needs = TransferState.RECEIVED_FULFIL_DEPENDENT;
  const current = latestState(own);
  if (current === needs) {
    batch.outcomes.push({ seq, result: 'applied' });
  } else if (current === TransferState.ABORTED_REJECTED || own.history.some((r) => r.transferStateId === needs)) {
    // Already rejected, or redelivered after the fxTransfer moved on: nothing written.
    batch.wrongState(seq, current, needs);
  } else {
    batch.writeState(own, TransferState.ABORTED_REJECTED, rejectionReason.FX_FULFIL_INCORRECT_STATE);
    batch.outcomes.push({
      seq,
      result: 'rejected',
      error: { name: 'INCORRECT_STATE', detail: `Invalid State: ${current} - expected: ${needs}` },
    });
  }
}
