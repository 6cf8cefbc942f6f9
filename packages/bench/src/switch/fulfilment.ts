import { createHash } from 'node:crypto';
import type { Secret } from '@mojafast/switch';

/**
 * The fulfilment of a benchmark transfer, derived from its id and the invocation's seed: the payer (the
 * generator) writes the condition into POST /transfers and the payee simulator, another process, finds the
 * same fulfilment for its PUT without a message between them. The preimage is the SHA-256 of seed and id, so
 * it has the 32 bytes central-ledger's fulfil handler expects.
 */
export function benchSecret(seed: string, transferId: string): Secret {
  const preimage = createHash('sha256').update(`${seed}:${transferId}`).digest();
  return {
    fulfilment: preimage.toString('base64url'),
    condition: createHash('sha256').update(preimage).digest('base64url'),
  };
}
