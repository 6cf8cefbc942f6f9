import type { Amount } from './amount.js';

/** The position actions of central-ledger's batch handler that this handler applies (reference, "Processes"). */
export const POSITION_ACTIONS = [
  'prepare',
  'commit',
  'reserve',
  'abort',
  'abort-validation',
  'timeout-reserved',
] as const;
export type PositionAction = (typeof POSITION_ACTIONS)[number];

export function isPositionAction(action: string): action is PositionAction {
  return (POSITION_ACTIONS as readonly string[]).includes(action);
}

/** central-ledger's transferState ids the handler reads or writes (seeds/transferState.js). */
export const TransferState = Object.freeze({
  RECEIVED_PREPARE: 'RECEIVED_PREPARE',
  RESERVED: 'RESERVED',
  ABORTED_REJECTED: 'ABORTED_REJECTED',
  RECEIVED_FULFIL: 'RECEIVED_FULFIL',
  COMMITTED: 'COMMITTED',
  RECEIVED_ERROR: 'RECEIVED_ERROR',
  ABORTED_ERROR: 'ABORTED_ERROR',
  RESERVED_TIMEOUT: 'RESERVED_TIMEOUT',
  EXPIRED_RESERVED: 'EXPIRED_RESERVED',
});

/** One decoded message as the pure planner sees it: what to do, to which transfer, on which account. */
export interface LedgerCommand {
  /** Position of the message in the batch; outcomes refer back to it. */
  readonly seq: number;
  readonly action: PositionAction;
  readonly transferId: string;
  /** The message key: the position account's participantCurrencyId; '0' means "no position change". */
  readonly accountId: string;
  /** Prepare only: cyrilResult.amount or payload.amount.amount. */
  readonly amount?: Amount;
}

export interface AccountFacts {
  readonly participantCurrencyId: string;
  readonly participantPositionId: string;
  readonly value: Amount;
  readonly reservedValue: Amount;
  /** NET_DEBIT_CAP limit; undefined when the account has no active one. */
  readonly netDebitCap: Amount | undefined;
  /** -(settlement account value); null when the settlement model requires no liquidity check. */
  readonly liquidityCover: Amount | null;
  /** Why prepares on this account cannot be checked (no settlement model or settlement account). */
  readonly prepareProblem?: string;
}

export interface StateRecord {
  readonly transferStateId: string;
  readonly reason: string | null;
}

export interface TransferFacts {
  /** Every transferStateChange of the transfer, oldest first. Empty = no such transfer. */
  readonly history: readonly StateRecord[];
  /** transferParticipant.amount of the PAYEE_DFSP PRINCIPLE_VALUE row (stored negative). */
  readonly payeeAmount: Amount | undefined;
}

export interface PlanInput {
  readonly commands: readonly LedgerCommand[];
  readonly accounts: ReadonlyMap<string, AccountFacts>;
  readonly transfers: ReadonlyMap<string, TransferFacts>;
}

export type ErrorName =
  | 'INCORRECT_STATE'
  | 'LIQUIDITY'
  | 'LIMIT'
  | 'TRANSFER_NOT_FOUND'
  | 'ACCOUNT_NOT_FOUND'
  | 'ACCOUNT_MISCONFIGURED'
  | 'ABORT_REJECTED'
  | 'ABORT_VALIDATION'
  | 'EXPIRED'
  | 'MALFORMED'
  | 'UNSUPPORTED_ACTION';

/**
 * What became of one command:
 * - applied: the state moved and the position changed (success notification, or the abort/expiry error
 *   notification those actions always send);
 * - rejected: a prepare was refused and the transfer moved to ABORTED_REJECTED;
 * - replayed: the transfer already carries this action's outcome (a redelivery); nothing is written and the
 *   first delivery's notification is sent again;
 * - failed: nothing written, an error notification.
 */
export interface Outcome {
  readonly seq: number;
  readonly result: 'applied' | 'rejected' | 'replayed' | 'failed';
  /** The notification's error, when it is an error notification. */
  readonly error?: { readonly name: ErrorName; readonly detail?: string };
}

export interface StateChangePlan {
  readonly transferId: string;
  readonly transferStateId: string;
  readonly reason: string | null;
}

export interface PositionChangePlan {
  /** Index into PlanResult.stateChanges: the row whose id the position change references. */
  readonly stateChange: number;
  readonly participantCurrencyId: string;
  readonly participantPositionId: string;
  readonly value: Amount;
  readonly change: Amount;
  readonly reservedValue: Amount;
}

export interface PositionUpdatePlan {
  readonly participantPositionId: string;
  readonly value: Amount;
}

export interface PlanResult {
  readonly stateChanges: readonly StateChangePlan[];
  readonly positionChanges: readonly PositionChangePlan[];
  readonly positionUpdates: readonly PositionUpdatePlan[];
  readonly outcomes: readonly Outcome[];
}
