import { type Amount, AmountError, parseAmount } from '../ledger/amount.js';
import { type CyrilPlan, type CyrilStep, isPositionAction, type PositionAction } from '../ledger/types.js';

/** central-ledger's message envelope (central-services-shared StreamingProtocol.createMessage). */
export interface Envelope {
  readonly id: string;
  readonly to: string;
  readonly from: string;
  readonly type?: string;
  readonly content: {
    readonly uriParams?: { readonly id?: string };
    readonly headers?: Readonly<Record<string, string>>;
    readonly payload: unknown;
    readonly context?: Record<string, unknown>;
  };
  readonly metadata: {
    readonly correlationId?: string;
    readonly event: { readonly id?: string; readonly type: string; readonly action: string };
  };
}

export interface PositionMessage {
  readonly key: string;
  readonly envelope: Envelope;
  readonly action: PositionAction;
  readonly transferId: string;
  readonly payload: Record<string, unknown>;
  /** The payload's JSON text as it arrived: a notification that forwards the payload unchanged embeds it. */
  readonly payloadJson: string;
  /** prepare and fx-prepare (bulk-prepare too); undefined otherwise. */
  readonly amount: Amount | undefined;
  /** prepare: the payer; fx-prepare: the initiating FSP (errors go to them). */
  readonly payerFsp: string;
  /** The cyrilResult step of a commit, reserve or abort (see cyrilOf); undefined otherwise. */
  readonly cyril: CyrilPlan | undefined;
}

export type MalformedKind =
  | 'BAD_JSON'
  | 'BAD_PAYLOAD'
  | 'MISSING_FIELD'
  | 'BAD_AMOUNT'
  | 'BAD_CYRIL_RESULT'
  | 'UNSUPPORTED_ACTION';

/**
 * A message the handler cannot apply. `envelope` is set when enough of it was readable to address an error
 * notification (id and from); otherwise the message is a logged, counted skip.
 */
export class MalformedMessageError extends Error {
  constructor(
    readonly kind: MalformedKind,
    detail: string,
    readonly envelope?: Envelope,
    readonly transferId?: string,
  ) {
    super(detail);
    this.name = 'MalformedMessageError';
  }
}

const ONE_AT_A_TIME: ReadonlySet<string> = new Set([
  'bulk-prepare',
  'bulk-commit',
  'bulk-timeout-reserved',
  'bulk-abort',
  'reject',
]);

const DATA_URI = /^data:[^,]*;base64,/;

/** A decoded payload and the JSON text it was read from (re-used as is in the notification). */
export interface DecodedPayload {
  readonly value: Record<string, unknown>;
  readonly json: string;
}

/** Decodes the data-URI payload ("data:application/vnd.interoperability.transfers+json;version=1.1;base64,..."). */
export function decodePayload(payload: unknown): Record<string, unknown> {
  return decodePayloadWithText(payload).value;
}

export function decodePayloadWithText(payload: unknown): DecodedPayload {
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    return { value: payload as Record<string, unknown>, json: JSON.stringify(payload) };
  }
  if (typeof payload !== 'string') throw new Error('payload is neither a data URI nor an object');
  const match = DATA_URI.exec(payload);
  const base64 = match ? payload.slice(match[0].length) : undefined;
  if (base64 === undefined) throw new Error('payload is not a base64 data URI');
  // Node's decoder skips characters outside the alphabet, so a bad character shows as missing bytes:
  // an O(1) strictness check instead of a regular expression over every payload (it showed in profiles).
  const bytes = Buffer.from(base64, 'base64');
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  if (base64.length % 4 !== 0 || bytes.length !== (base64.length / 4) * 3 - padding) {
    throw new Error('payload is not valid base64');
  }
  const text = bytes.toString('utf8');
  const parsed: unknown = JSON.parse(text);
  // The original decodes the payload and serialises it again in its notifications, compact: a payer's JSON
  // spaced over lines would otherwise put line breaks into the notification's Kafka value. Text without any
  // whitespace is compact already, which spares the payloads FSPs usually send a second serialisation.
  const json = /\s/.test(text) ? JSON.stringify(parsed) : text;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('payload is not a JSON object');
  }
  return { value: parsed as Record<string, unknown>, json };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Reads one Kafka message of a position topic. Throws MalformedMessageError for anything it cannot apply.
 * `pnpm bench:micro --case decode-message` measures it beside JSON.parse of the value alone.
 */
export function decodeMessage(key: Buffer | string | null, value: Buffer | string | null): PositionMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(value === null ? '' : value.toString());
  } catch (error) {
    throw new MalformedMessageError('BAD_JSON', `value is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(raw) || !isObject(raw.content) || !isObject(raw.metadata) || !isObject(raw.metadata.event)) {
    throw new MalformedMessageError('MISSING_FIELD', 'value is not a central-ledger message envelope');
  }
  const envelope = raw as unknown as Envelope;
  const from = text(raw.from);
  const uriId = isObject(raw.content.uriParams) ? text(raw.content.uriParams.id) : undefined;
  const knownId = uriId ?? text(raw.id);
  const addressable = from !== undefined && knownId !== undefined ? envelope : undefined;
  const action = String(raw.metadata.event.action);
  if (!isPositionAction(action)) {
    throw new MalformedMessageError('UNSUPPORTED_ACTION', `action ${action}`, addressable, knownId);
  }
  let payload: Record<string, unknown>;
  let payloadJson: string;
  try {
    ({ value: payload, json: payloadJson } = decodePayloadWithText(raw.content.payload));
  } catch (error) {
    throw new MalformedMessageError('BAD_PAYLOAD', (error as Error).message, addressable, knownId);
  }
  const keyText = key === null ? undefined : key.toString();
  if (keyText === undefined || !/^\d+$/.test(keyText)) {
    throw new MalformedMessageError('MISSING_FIELD', `key "${keyText}" is not a participantCurrencyId`, addressable);
  }
  // Transfer id: the payload's transferId for prepare, its commitRequestId for fx-prepare, uriParams.id otherwise
  // (binProcessor.js _getTransferIdList).
  // The one-at-a-time handler's actions: payload.transferId, else uriParams.id (handlers/positions/handler.js).
  const transferId =
    action === 'prepare'
      ? text(payload.transferId)
      : action === 'fx-prepare'
        ? text(payload.commitRequestId)
        : ONE_AT_A_TIME.has(action)
          ? (text(payload.transferId) ?? uriId)
          : uriId;
  if (transferId === undefined) {
    throw new MalformedMessageError('MISSING_FIELD', 'no transfer id', addressable, knownId);
  }
  const context = isObject(raw.content.context) ? raw.content.context : undefined;
  const cyrilResult = isObject(context?.cyrilResult) ? context.cyrilResult : undefined;
  // Each result is one object literal of one shape (no spreads of a partial one): this runs per message, and
  // spreads showed as allocation and garbage-collection time in the handler's profiles.
  const message = (payerFsp: string, amount: Amount | undefined, cyril: CyrilPlan | undefined): PositionMessage => ({
    key: keyText,
    envelope,
    action,
    transferId,
    payload,
    payloadJson,
    amount,
    payerFsp,
    cyril,
  });
  if (action === 'prepare' || action === 'bulk-prepare' || action === 'fx-prepare') {
    let amountText: unknown;
    let payerFsp: string;
    if (action !== 'fx-prepare') {
      amountText =
        cyrilResult && cyrilResult.amount !== undefined
          ? cyrilResult.amount
          : (payload.amount as { amount?: unknown })?.amount;
      payerFsp = text(payload.payerFsp) ?? from ?? '';
    } else {
      payerFsp = text(payload.initiatingFsp) ?? from ?? '';
      // fx-prepare.js: the amount in cyrilResult.currencyId, the target amount when that is its currency, else the
      // source amount. Without cyrilResult the original throws (a TypeError that fails its batch).
      if (!cyrilResult || typeof cyrilResult.currencyId !== 'string') {
        throw new MalformedMessageError(
          'BAD_CYRIL_RESULT',
          'no content.context.cyrilResult.currencyId',
          addressable && { ...envelope, from: payerFsp },
          transferId,
        );
      }
      const target = isObject(payload.targetAmount) ? payload.targetAmount : undefined;
      const source = isObject(payload.sourceAmount) ? payload.sourceAmount : undefined;
      amountText = target?.currency === cyrilResult.currencyId ? target.amount : source?.amount;
    }
    let amount: Amount;
    try {
      if (typeof amountText !== 'string' && typeof amountText !== 'number') throw new AmountError(String(amountText));
      amount = parseAmount(amountText);
      if (amount <= 0n) throw new AmountError(String(amountText));
    } catch (error) {
      throw new MalformedMessageError('BAD_AMOUNT', (error as Error).message, addressable, transferId);
    }
    return message(payerFsp, amount, undefined);
  }
  const receiver = String(raw.to ?? '');
  if (action === 'commit' || action === 'reserve') {
    if (cyrilResult?.isFx !== true) return message(receiver, undefined, undefined);
    return message(receiver, undefined, cyrilOf(cyrilResult, false, addressable, transferId));
  }
  if (
    action === 'abort' ||
    action === 'abort-validation' ||
    action === 'fx-abort' ||
    action === 'fx-abort-validation'
  ) {
    const changes = cyrilResult?.positionChanges;
    // abort.js requires cyrilResult.positionChanges (19.x's cyril computes them for every abort); a plain abort
    // without them is applied from the payee's transferParticipant amount, as central-ledger 17 did.
    if (action.startsWith('fx-') || (Array.isArray(changes) && changes.length > 0)) {
      return message(receiver, undefined, cyrilOf(cyrilResult, true, addressable, transferId));
    }
  }
  return message(receiver, undefined, undefined);
}

/**
 * The first step of cyrilResult.positionChanges not marked isDone, and the account of the one after it
 * (fulfil.js and abort.js walk the list one step per message). Throws BAD_CYRIL_RESULT when there is none
 * or a step is not a transfer or fxTransfer change with an account and an amount.
 */
function cyrilOf(
  cyrilResult: Record<string, unknown> | undefined,
  abort: boolean,
  envelope: Envelope | undefined,
  transferId: string,
): CyrilPlan {
  const bad = (detail: string) => new MalformedMessageError('BAD_CYRIL_RESULT', detail, envelope, transferId);
  const changes = cyrilResult?.positionChanges;
  if (!Array.isArray(changes) || changes.length === 0) throw bad('no content.context.cyrilResult.positionChanges');
  const index = changes.findIndex((c) => !(isObject(c) && c.isDone === true));
  if (index === -1) throw bad('every cyrilResult.positionChanges step is done');
  const stepOf = (change: unknown): CyrilStep => {
    if (!isObject(change)) throw bad('a positionChanges entry is not an object');
    const fx = change.isFxTransferStateChange === true;
    const id = text(fx ? change.commitRequestId : change.transferId);
    const accountId = change.participantCurrencyId;
    if (id === undefined) throw bad(`a positionChanges entry names no ${fx ? 'commitRequestId' : 'transferId'}`);
    if ((typeof accountId !== 'string' && typeof accountId !== 'number') || !/^\d+$/.test(String(accountId))) {
      throw bad(`a positionChanges entry names no participantCurrencyId`);
    }
    let amount: Amount;
    try {
      if (typeof change.amount !== 'string' && typeof change.amount !== 'number') throw new AmountError('');
      amount = parseAmount(change.amount);
    } catch {
      throw bad(`positionChanges amount "${String(change.amount)}" is not a DECIMAL(18,4)`);
    }
    return { fx, id, accountId: String(accountId), amount };
  };
  const step = stepOf(changes[index]);
  const done = changes.slice(0, index).map((change) => {
    const { fx, id } = stepOf(change);
    return { fx, id };
  });
  const next = changes.slice(index + 1).find((c) => !(isObject(c) && c.isDone === true));
  const transferStateChanges = [];
  if (abort && Array.isArray(cyrilResult?.transferStateChanges)) {
    for (const change of cyrilResult.transferStateChanges) {
      const id = isObject(change) ? text(change.transferId) : undefined;
      const state = isObject(change) ? text(change.transferStateId) : undefined;
      if (!id || !state) throw bad('a transferStateChanges entry names no transferId or transferStateId');
      const reason = isObject(change) && typeof change.reason === 'string' ? change.reason : null;
      transferStateChanges.push({ transferId: id, transferStateId: state, reason });
    }
  }
  return {
    step,
    ...(next === undefined ? {} : { nextAccountId: stepOf(next).accountId }),
    ...(done.length > 0 ? { done } : {}),
    transferStateChanges,
  };
}
