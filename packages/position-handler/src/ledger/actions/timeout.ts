import type { Batch, Running, Target } from '../batch.js';
import { type LedgerCommand, TransferState } from '../types.js';
import { type Release, releaseReservation } from './release.js';

const TIMEOUT: Release = {
  needs: TransferState.RESERVED_TIMEOUT,
  result: TransferState.EXPIRED_RESERVED,
  reason: 'expired',
};

/**
 * timeout-reserved and bulk-timeout-reserved: RESERVED_TIMEOUT → EXPIRED_RESERVED with the expiry text as reason,
 * + the payee amount; the notification always carries 3303.
 */
export function timeout(batch: Batch, command: LedgerCommand, own: Target, account: Running | undefined): void {
  releaseReservation(batch, command, own, TIMEOUT, account, 'EXPIRED');
}
