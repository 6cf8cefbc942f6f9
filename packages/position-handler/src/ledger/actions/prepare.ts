import { type Batch, latestState, type Running, type Target } from '../batch.js';
import { rejectionFromReason, rejectionReason } from '../errors.js';
import { type LedgerCommand, TransferState } from '../types.js';
import { logTransferError } from './bulk.js';
import { checkLiquidityAndLimit } from './liquidity-and-limit.js';

/**
 * prepare, bulk-prepare and fx-prepare (fx-prepare.js: the initiating FSP's position moves like a prepare's, on the
 * same running value, so plain and FX prepares of one account share the headroom): RECEIVED_PREPARE → RESERVED,
 * + the amount, or → ABORTED_REJECTED with 4001 or 4200 (checkLiquidityAndLimit).
 * Found RESERVED or ABORTED_REJECTED: a redelivery, the first answer again. Found a later state after RESERVED:
 * 2001 and nothing written. Any other state: rejected with 2001.
 */
export function prepare(batch: Batch, command: LedgerCommand, own: Target, account: Running | undefined): void {
  const { seq } = command;
  const { history } = own;
  const current = latestState(own);
  if (current !== TransferState.RECEIVED_PREPARE) {
    if (current === TransferState.RESERVED) {
      batch.outcomes.push({ seq, result: 'replayed' });
    } else if (current === TransferState.ABORTED_REJECTED) {
      batch.outcomes.push({
        seq,
        result: 'replayed',
        error: { name: rejectionFromReason(history.at(-1)?.reason ?? null) },
      });
    } else if (history.some((r) => r.transferStateId === TransferState.RESERVED)) {
      // Redelivered after the transfer moved on (committed, aborted, expired): nothing written.
      batch.fail(seq, 'INCORRECT_STATE');
    } else {
      const reason = own.fx ? rejectionReason.FX_INCORRECT_STATE : rejectionReason.INCORRECT_STATE;
      const stateChange = batch.writeState(own, TransferState.ABORTED_REJECTED, reason);
      logTransferError(batch, command, stateChange, 'INCORRECT_STATE');
      batch.outcomes.push({ seq, result: 'rejected', error: { name: 'INCORRECT_STATE' } });
    }
    return;
  }
  const amount = command.amount ?? 0n;
  if (account) {
    const facts = account.facts;
    if (facts.prepareProblem !== undefined || facts.netDebitCap === undefined) {
      batch.fail(seq, 'ACCOUNT_MISCONFIGURED', facts.prepareProblem ?? 'no active NET_DEBIT_CAP limit');
      return;
    }
    const refusal = checkLiquidityAndLimit(account.value, facts, amount);
    if (refusal) {
      const stateChange = batch.writeState(own, TransferState.ABORTED_REJECTED, rejectionReason[refusal]);
      logTransferError(batch, command, stateChange, refusal);
      batch.outcomes.push({ seq, result: 'rejected', error: { name: refusal } });
      return;
    }
  }
  batch.move(account, batch.writeState(own, TransferState.RESERVED, null), amount);
  batch.outcomes.push({ seq, result: 'applied' });
}
