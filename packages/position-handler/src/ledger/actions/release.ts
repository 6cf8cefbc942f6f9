import { type Batch, latestState, type Running, type Target } from '../batch.js';
import { rejectionReason } from '../errors.js';
import { type ErrorName, type LedgerCommand, TransferState } from '../types.js';

/** What a releasing action needs, writes, and with which transferStateChange.reason. */
export interface Release {
  readonly needs: string;
  readonly result: string;
  /** null; the expiry text; or the reason of the state the message found (handler.js transferInfo.reason). */
  readonly reason: 'none' | 'expired' | 'kept';
}

/**
 * What abort, abort-validation (without cyrilResult steps), timeout-reserved and the one-at-a-time handler's
 * bulk-abort, bulk-timeout-reserved and reject share: from `needs` to `result`, + the payee amount on the key. The
 * payee row is stored negative, so adding it releases what the prepare reserved on the payer. `error`: the error
 * every notification of the action carries, applied or replayed.
 */
export function releaseReservation(
  batch: Batch,
  command: LedgerCommand,
  own: Target,
  release: Release,
  account: Running | undefined,
  error: ErrorName | undefined,
): void {
  const { seq } = command;
  const { needs, result } = release;
  const withError = error ? { error: { name: error } } : {};
  const { history } = own;
  const current = latestState(own);
  if (current !== needs) {
    // A reject's ABORTED_REJECTED is its own only after RECEIVED_REJECT: a prepare writes that state too.
    const replay =
      current === result && (result !== TransferState.ABORTED_REJECTED || history.at(-2)?.transferStateId === needs);
    if (replay) batch.outcomes.push({ seq, result: 'replayed', ...withError });
    else batch.wrongState(seq, current, needs);
    return;
  }
  const reason =
    release.reason === 'expired'
      ? rejectionReason.EXPIRED
      : release.reason === 'kept'
        ? (history.at(-1)?.reason ?? null)
        : null;
  const payeeAmount = batch.payeeAmount(own.id);
  if (payeeAmount === undefined) {
    batch.fail(seq, 'TRANSFER_NOT_FOUND', 'no PAYEE_DFSP transferParticipant');
    return;
  }
  batch.move(account, batch.writeState(own, result, reason), payeeAmount);
  batch.outcomes.push({ seq, result: 'applied', ...withError });
}
