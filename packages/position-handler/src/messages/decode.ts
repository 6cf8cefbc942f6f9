import { type Amount, AmountError, parseAmount } from '../ledger/amount.js';
import { isPositionAction, type PositionAction } from '../ledger/types.js';

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
  /** Prepare only. */
  readonly amount?: Amount;
  readonly payerFsp: string;
}

export type MalformedKind = 'BAD_JSON' | 'BAD_PAYLOAD' | 'MISSING_FIELD' | 'BAD_AMOUNT' | 'UNSUPPORTED_ACTION';

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
  const json = bytes.toString('utf8');
  const parsed: unknown = JSON.parse(json);
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

/** Reads one Kafka message of a position topic. Throws MalformedMessageError for anything it cannot apply. */
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
  // Transfer id: the payload's transferId for prepare, uriParams.id otherwise (reference, "Processes").
  const transferId = action === 'prepare' ? text(payload.transferId) : uriId;
  if (transferId === undefined) {
    throw new MalformedMessageError('MISSING_FIELD', 'no transfer id', addressable, knownId);
  }
  if (action !== 'prepare') {
    return { key: keyText, envelope, action, transferId, payload, payloadJson, payerFsp: String(raw.to ?? '') };
  }
  const cyril = isObject(raw.content.context) ? raw.content.context.cyrilResult : undefined;
  const amountText =
    isObject(cyril) && cyril.amount !== undefined ? cyril.amount : (payload.amount as { amount?: unknown })?.amount;
  let amount: Amount;
  try {
    if (typeof amountText !== 'string' && typeof amountText !== 'number') throw new AmountError(String(amountText));
    amount = parseAmount(amountText);
    if (amount <= 0n) throw new AmountError(String(amountText));
  } catch (error) {
    throw new MalformedMessageError('BAD_AMOUNT', (error as Error).message, addressable, transferId);
  }
  const payerFsp = text(payload.payerFsp) ?? from ?? '';
  return { key: keyText, envelope, action, transferId, payload, payloadJson, amount, payerFsp };
}
