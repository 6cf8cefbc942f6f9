import type { GeneratedTransfer } from '@mojafast/position-handler/testing';
import type { DumpedMessage } from './dump.js';

interface Envelope {
  from?: string;
  content?: { payload?: unknown };
  metadata?: { correlationId?: string; event?: { action?: string } };
}

export interface DumpWorkload {
  readonly transfers: GeneratedTransfer[];
  readonly prepares: { transferId: string; value: string }[];
  readonly commits: { transferId: string; value: string }[];
}

function decodeDataUri(payload: unknown): Record<string, unknown> {
  if (typeof payload !== 'string') return payload as Record<string, unknown>;
  const comma = payload.indexOf(',');
  if (!payload.startsWith('data:') || comma < 0) throw new Error('payload is neither JSON nor a data URI');
  const data = payload.slice(comma + 1);
  const text = payload.slice(0, comma).endsWith(';base64')
    ? Buffer.from(data, 'base64').toString()
    : decodeURIComponent(data);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * Reads a kcat dump of a real central-ledger position topic. Its keys are account ids of the cluster it
 * came from, so the replay provisions the DFSPs and currencies it names and re-keys each message to the
 * provisioned account (payer's for prepare, payee's for commit, as central-ledger keys them); the values
 * are replayed byte for byte. Prepares define the transfers; a commit needs its prepare in the dump.
 */
export function workloadFromDump(messages: readonly DumpedMessage[]): DumpWorkload {
  const transfers = new Map<string, GeneratedTransfer>();
  const prepares: DumpWorkload['prepares'] = [];
  const commits: DumpWorkload['commits'] = [];
  for (const message of messages) {
    const envelope = JSON.parse(message.value) as Envelope;
    const transferId = envelope.metadata?.correlationId;
    const action = envelope.metadata?.event?.action;
    if (!transferId) throw new Error('dump message without metadata.correlationId');
    if (action === 'prepare') {
      const body = decodeDataUri(envelope.content?.payload) as {
        payerFsp: string;
        payeeFsp: string;
        amount: { amount: string; currency: string };
      };
      transfers.set(transferId, {
        transferId,
        payer: body.payerFsp,
        payee: body.payeeFsp,
        currency: body.amount.currency,
        amount: body.amount.amount,
      });
      prepares.push({ transferId, value: message.value });
    } else if (action === 'commit') {
      commits.push({ transferId, value: message.value });
    } else {
      throw new Error(`the replay handles prepare and commit dumps; found action "${action}"`);
    }
  }
  const orphan = commits.find((c) => !transfers.has(c.transferId));
  if (orphan) throw new Error(`commit for ${orphan.transferId} has no prepare in the dump`);
  return { transfers: [...transfers.values()], prepares, commits };
}
