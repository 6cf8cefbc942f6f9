import type { Amount } from './amount.js';

/**
 * The position actions of central-ledger's batch handler (binProcessor.js allowedActions) and of its one-at-a-time
 * handler (handlers/positions/handler.js: the bulk ones and reject), all applied here.
 * The fx- ones act on an fxTransfer (commitRequestId); the others on a transfer.
 */
export const POSITION_ACTIONS = [
  'prepare',
  'commit',
  'reserve',
  'abort',
  'abort-validation',
  'timeout-reserved',
  'fx-prepare',
  'fx-reserve',
  'fx-timeout-reserved',
  'fx-abort',
  'fx-abort-validation',
  // The one-at-a-time handler's (handlers/positions/handler.js) actions on topic-transfer-position.
  'bulk-prepare',
  'bulk-commit',
  'bulk-timeout-reserved',
  'bulk-abort',
  'reject',
] as const;
export type PositionAction = (typeof POSITION_ACTIONS)[number];

export function isFxAction(action: PositionAction): boolean {
  return action.startsWith('fx-');
}

/** The bulk actions: their results go to the bulk-processing topic (handler.js eventDetail BULK_PROCESSING). */
export const BULK_ACTIONS: readonly PositionAction[] = [
  'bulk-prepare',
  'bulk-commit',
  'bulk-timeout-reserved',
  'bulk-abort',
];

export function isBulkAction(action: PositionAction): boolean {
  return BULK_ACTIONS.includes(action);
}

/** The one-at-a-time handler's actions (bulk ones and reject): their results are shaped by Kafka.proceed. */
export function isOneAtATimeAction(action: PositionAction): boolean {
  return action === 'reject' || isBulkAction(action);
}

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
  RECEIVED_FULFIL_DEPENDENT: 'RECEIVED_FULFIL_DEPENDENT',
  /** Written by the fulfil handler's handlePayeeResponse for a reject (models/transfer/facade.js). */
  RECEIVED_REJECT: 'RECEIVED_REJECT',
});

/**
 * One entry of content.context.cyrilResult.positionChanges, as central-ledger's domain/fx/cyril.js builds it: a
 * position change of a transfer or (fx) an fxTransfer, on an account.
 */
export interface CyrilStep {
  readonly fx: boolean;
  /** transferId, or commitRequestId when fx. */
  readonly id: string;
  readonly accountId: string;
  readonly amount: Amount;
}

/** What a commit or abort message's cyrilResult asks of this handler: the first step not done yet. */
export interface CyrilPlan {
  readonly step: CyrilStep;
  /** The account of the step after it, when one remains: the message goes on there (a follow-up message). */
  readonly nextAccountId?: string;
  /**
   * The transfers and fxTransfers of the steps already marked isDone (a follow-up): an earlier step may have moved
   * the message's own transfer or fxTransfer (an fx-abort's first step aborts its own fxTransfer).
   */
  readonly done?: readonly { readonly fx: boolean; readonly id: string }[];
  /** Abort only: cyrilResult.transferStateChanges, written once the last step is applied. */
  readonly transferStateChanges: readonly {
    readonly transferId: string;
    readonly transferStateId: string;
    readonly reason: string | null;
  }[];
}

/** Key '0': central-ledger's marker for "no position change" (payer and payee behind the same proxy). */
export const NO_POSITION_ACCOUNT = '0';

/** One decoded message as the pure planner sees it: what to do, to which transfer, on which account. */
export interface LedgerCommand {
  /** Position of the message in the batch; outcomes refer back to it. */
  readonly seq: number;
  readonly action: PositionAction;
  readonly transferId: string;
  /** The message key: the position account's participantCurrencyId; '0' means "no position change". */
  readonly accountId: string;
  /** prepare: cyrilResult.amount or payload.amount.amount; fx-prepare: the amount in cyrilResult.currencyId. */
  readonly amount?: Amount;
  /** commit, reserve and the aborts: the cyrilResult step to apply (FX transfers; aborts from central-ledger 19.x). */
  readonly cyril?: CyrilPlan;
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

export interface FxTransferFacts {
  /** Every fxTransferStateChange of the fxTransfer, oldest first. Empty = no such fxTransfer. */
  readonly history: readonly StateRecord[];
  /** participantCurrencyId → change of the position change of its RESERVED state (what fx-timeout-reserved releases). */
  readonly reservedChanges: ReadonlyMap<string, Amount>;
}

export interface PlanInput {
  readonly commands: readonly LedgerCommand[];
  readonly accounts: ReadonlyMap<string, AccountFacts>;
  readonly transfers: ReadonlyMap<string, TransferFacts>;
  /** By commitRequestId; absent when the batch names no fxTransfer. */
  readonly fxTransfers?: ReadonlyMap<string, FxTransferFacts>;
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
  | 'BAD_CYRIL_RESULT'
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
  /**
   * A cyrilResult step was applied (or replayed) and another remains: instead of the final notification, the
   * message goes on to this account (a follow-up on the POSITION.COMMIT topic).
   */
  readonly next?: string;
  /** A commit's step was an fxTransfer's: the FXPs get their fx-notify (cyrilResult.patchNotifications). */
  readonly fxNotify?: boolean;
}

export interface StateChangePlan {
  /** true: an fxTransferStateChange, transferId is the commitRequestId. */
  readonly fx?: true;
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

/** A transferError row (handler.js TransferService.logTransferError for a refused bulk-prepare). */
export interface TransferErrorPlan {
  /** Index into PlanResult.stateChanges: the ABORTED_REJECTED row it names. */
  readonly stateChange: number;
  readonly errorCode: string;
  readonly errorDescription: string;
}

export interface PlanResult {
  readonly stateChanges: readonly StateChangePlan[];
  /** Absent or empty when the batch refused no bulk-prepare. */
  readonly transferErrors?: readonly TransferErrorPlan[];
  readonly positionChanges: readonly PositionChangePlan[];
  readonly positionUpdates: readonly PositionUpdatePlan[];
  readonly outcomes: readonly Outcome[];
}
