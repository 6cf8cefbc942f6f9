import { type Batch, latestState, type Running, type Target } from '../batch.js';
import { rejectionReason } from '../errors.js';
import { type LedgerCommand, TransferState } from '../types.js';

/**
 * fx-timeout-reserved (fx-timeout-reserved.js): RESERVED_TIMEOUT → EXPIRED_RESERVED, − the change the fxTransfer's
 * RESERVED state made on this account (what its fx-prepare reserved). Found EXPIRED_RESERVED: a redelivery, 3303
 * again; any other state: 2001, nothing written. Applied, the notification carries 3303.
 */
export function fxTimeout(batch: Batch, command: LedgerCommand, own: Target, account: Running | undefined): void {
  const { seq } = command;
  const needs = TransferState.RESERVED_TIMEOUT;
  const current = latestState(own);
  if (current !== needs) {
    if (current === TransferState.EXPIRED_RESERVED)
      batch.outcomes.push({ seq, result: 'replayed', error: { name: 'EXPIRED' } });
    else batch.wrongState(seq, current, needs);
    return;
  }
  // No account: the key is '0' (no position change), nothing to release.
  const reserved = account ? batch.input.fxTransfers?.get(own.id)?.reservedChanges.get(command.accountId) : 0n;
  if (reserved === undefined) {
    batch.fail(seq, 'TRANSFER_NOT_FOUND', `no RESERVED position change on account ${command.accountId}`);
    return;
  }
  batch.move(account, batch.writeState(own, TransferState.EXPIRED_RESERVED, rejectionReason.EXPIRED), -reserved);
  batch.outcomes.push({ seq, result: 'applied', error: { name: 'EXPIRED' } });
}
