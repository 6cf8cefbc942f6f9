import { createHash, randomBytes } from 'node:crypto';
import type { FxTransferBody, TransferBody } from './envelope.js';
import { newId } from './envelope.js';

/**
 * FSPIOP request bodies as FSPs make them: a fulfilment of 32 random bytes and its condition (the SHA-256 of
 * the preimage, base64url), which central-ledger's fulfil handler checks; an expiration in the future, which
 * its prepare handler checks and its timeout handler acts on.
 */
export interface Secret {
  readonly fulfilment: string;
  readonly condition: string;
}

export function newSecret(): Secret {
  const preimage = randomBytes(32);
  return {
    fulfilment: preimage.toString('base64url'),
    condition: createHash('sha256').update(preimage).digest('base64url'),
  };
}

/** An opaque ILP packet (base64url): central-ledger stores it and does not read it on these paths. */
function ilpPacket(transferId: string, amount: string, currency: string): string {
  return Buffer.from(JSON.stringify({ transferId, amount, currency, note: 'mojafast switch scenario' })).toString(
    'base64url',
  );
}

export interface TransferSpec {
  readonly payer: string;
  readonly payee: string;
  readonly currency: string;
  readonly amount: string;
  /** Milliseconds from now until the transfer expires. */
  readonly expiresInMs?: number;
  readonly transferId?: string;
}

export function transferBody(spec: TransferSpec, secret: Secret): TransferBody {
  const transferId = spec.transferId ?? newId();
  return {
    transferId,
    payerFsp: spec.payer,
    payeeFsp: spec.payee,
    amount: { currency: spec.currency, amount: spec.amount },
    ilpPacket: ilpPacket(transferId, spec.amount, spec.currency),
    condition: secret.condition,
    expiration: new Date(Date.now() + (spec.expiresInMs ?? 240_000)).toISOString(),
  };
}

export interface FxSpec {
  readonly payer: string;
  readonly fxp: string;
  readonly source: { readonly currency: string; readonly amount: string };
  readonly target: { readonly currency: string; readonly amount: string };
  readonly determiningTransferId: string;
  readonly expiresInMs?: number;
  readonly commitRequestId?: string;
}

export function fxTransferBody(spec: FxSpec, secret: Secret): FxTransferBody {
  return {
    commitRequestId: spec.commitRequestId ?? newId(),
    determiningTransferId: spec.determiningTransferId,
    initiatingFsp: spec.payer,
    counterPartyFsp: spec.fxp,
    amountType: 'SEND',
    sourceAmount: spec.source,
    targetAmount: spec.target,
    condition: secret.condition,
    expiration: new Date(Date.now() + (spec.expiresInMs ?? 240_000)).toISOString(),
  };
}

export const completedTimestamp = (): string => new Date().toISOString();
