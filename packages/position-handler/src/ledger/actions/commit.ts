import { type Batch, latestState, type Running, type Target } from '../batch.js';
import { type LedgerCommand, TransferState } from '../types.js';
import { cyrilStep } from './cyril-step.js';

/**
 * commit, reserve and bulk-commit: RECEIVED_FULFIL → COMMITTED, + the payee amount (stored negative) on the key.
 * With cyrilResult steps (an FX transfer's commit), the first step not done is applied instead (./cyril-step.ts).
 * Found COMMITTED: a redelivery, the success again; any other state: 2001, nothing written.
 */
export function commit(batch: Batch, command: LedgerCommand, own: Target, account: Running | undefined): void {
  const { seq } = command;
  if (command.cyril) {
    cyrilStep(
      batch,
      command,
      own,
      command.cyril,
      TransferState.RECEIVED_FULFIL,
      TransferState.COMMITTED,
      account,
      undefined,
    );
    return;
  }
  const current = latestState(own);
  if (current !== TransferState.RECEIVED_FULFIL) {
    if (current === TransferState.COMMITTED) batch.outcomes.push({ seq, result: 'replayed' });
    else batch.wrongState(seq, current, TransferState.RECEIVED_FULFIL);
    return;
  }
  const payeeAmount = batch.payeeAmount(own.id);
  if (payeeAmount === undefined) {
    batch.fail(seq, 'TRANSFER_NOT_FOUND', 'no PAYEE_DFSP transferParticipant');
    return;
  }
  batch.move(account, batch.writeState(own, TransferState.COMMITTED, null), payeeAmount);
  batch.outcomes.push({ seq, result: 'applied' });
}
