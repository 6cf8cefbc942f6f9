import { FspiopError, type FspiopErrorDefinition } from '@mojafast/fspiop';
import type { ErrorName } from './types.js';

export interface HandlerErrorEntry {
  readonly fspiop: FspiopErrorDefinition;
  /** When it happens; the error table of docs/actions.md is checked against these. */
  readonly when: string;
  /**
   * The message central-ledger makes this error with when it is not ours to give (no detail): `null` where it
   * passes null (timeout-reserved.js, abort.js), which its error's stack, and so its `cause` extension, reads as
   * "FSPIOPError: null".
   */
  readonly originalMessage?: 'null';
}

/**
 * The package's one error catalogue: every error a notification can carry. Codes and texts follow
 * central-ledger's domain/position/*.js (prepare: 2001 with no detail, 4001, 4200; commit: 2001 "Invalid State";
 * abort: 5100, abort-validation: 3100; timeout-reserved: 3303) plus the cases the original crashes on.
 */
export const handlerErrors: { readonly [K in ErrorName]: HandlerErrorEntry } = Object.freeze({
  INCORRECT_STATE: {
    fspiop: FspiopError.INTERNAL_SERVER_ERROR,
    when: 'the transfer is not in the state the action needs',
  },
  LIQUIDITY: {
    fspiop: FspiopError.PAYER_FSP_INSUFFICIENT_LIQUIDITY,
    when: 'prepare: amount > liquidity cover - (value + reservedValue)',
  },
  LIMIT: {
    fspiop: FspiopError.PAYER_LIMIT_ERROR,
    when: 'prepare: amount > net debit cap - (value + reservedValue)',
  },
  TRANSFER_NOT_FOUND: {
    fspiop: FspiopError.TRANSFER_ID_NOT_FOUND,
    when: 'no transferStateChange (or no payee transferParticipant) for the transfer',
  },
  ACCOUNT_NOT_FOUND: {
    fspiop: FspiopError.INTERNAL_SERVER_ERROR,
    when: 'the message key is not a participantCurrencyId with a participantPosition',
  },
  ACCOUNT_MISCONFIGURED: {
    fspiop: FspiopError.INTERNAL_SERVER_ERROR,
    when: 'prepare: no settlement model, settlement account or NET_DEBIT_CAP for the account',
  },
  ABORT_REJECTED: { fspiop: FspiopError.PAYEE_REJECTED, when: 'abort applied (always an error notification)' },
  ABORT_VALIDATION: {
    fspiop: FspiopError.VALIDATION_ERROR,
    when: 'abort-validation applied (always an error notification)',
    originalMessage: 'null',
  },
  EXPIRED: {
    fspiop: FspiopError.TRANSFER_EXPIRED,
    when: 'timeout-reserved applied (always an error notification)',
    originalMessage: 'null',
  },
  MALFORMED: {
    fspiop: FspiopError.MALFORMED_SYNTAX,
    when: 'the payload is not a base64 data URI of JSON, or a required field or amount is bad',
  },
  BAD_CYRIL_RESULT: {
    fspiop: FspiopError.INTERNAL_SERVER_ERROR,
    when: 'an FX message whose content.context.cyrilResult is missing, has no step left, or names another account than the key',
  },
  UNSUPPORTED_ACTION: {
    fspiop: FspiopError.NOT_IMPLEMENTED,
    when: 'an unknown action: never applied, never silently dropped',
  },
});

/** transferStateChange.reason of a rejected prepare, as central-ledger writes it. */
export const rejectionReason = Object.freeze({
  EXPIRED: FspiopError.TRANSFER_EXPIRED.description,
  INCORRECT_STATE: 'Transfer in incorrect state',
  /** fx-prepare.js */
  FX_INCORRECT_STATE: 'FxTransfer in incorrect state',
  /** fx-fulfil.js */
  FX_FULFIL_INCORRECT_STATE: 'FxFulfil in incorrect state',
  LIQUIDITY: FspiopError.PAYER_FSP_INSUFFICIENT_LIQUIDITY.description,
  LIMIT: FspiopError.PAYER_LIMIT_ERROR.description,
});

/** Reads a rejection back from its stored reason, so a replayed prepare re-sends the same error. */
export function rejectionFromReason(reason: string | null): 'INCORRECT_STATE' | 'LIQUIDITY' | 'LIMIT' {
  if (reason === rejectionReason.LIQUIDITY) return 'LIQUIDITY';
  if (reason === rejectionReason.LIMIT) return 'LIMIT';
  return 'INCORRECT_STATE';
}
