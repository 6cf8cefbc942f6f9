import { randomUUID } from 'node:crypto';
import { handlerErrors } from '../ledger/errors.js';
import type { ErrorName, Outcome, PositionAction } from '../ledger/types.js';
import type { Envelope, PositionMessage } from './decode.js';

/** metadata.event.state of notifications, as captured from the original (position-examples/notif-*.json). */
const SUCCESS_STATE = Object.freeze({ status: 'success', code: 0, description: 'action successful' });
const FAILURE_STATE = Object.freeze({ status: 'error', code: 999, description: 'action failed' });

export interface NotifyContext {
  readonly hubName: string;
  readonly now: Date;
}

interface Parts {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly action: string;
  readonly uriParams: Record<string, string>;
  readonly headers: Record<string, string>;
  /** JSON text of the payload: the incoming payload's own text when it is forwarded unchanged. */
  readonly payloadJson: string;
  readonly context: Record<string, unknown> | undefined;
  readonly error: boolean;
}

const SUCCESS_JSON = JSON.stringify(SUCCESS_STATE);
const FAILURE_JSON = JSON.stringify(FAILURE_STATE);

/**
 * The envelope as text, field by field: the payload's JSON is embedded as it arrived instead of parsed and
 * re-serialised (JSON.stringify of the whole envelope was the handler's largest self time in CPU profiles).
 * Same fields, in the same order, as JSON.stringify of the envelope object.
 */
function envelopeOf(parts: Parts, now: Date): string {
  const context = parts.context === undefined ? '' : `,"context":${JSON.stringify(parts.context)}`;
  const id = JSON.stringify(parts.id);
  return (
    `{"from":${JSON.stringify(parts.from)},"to":${JSON.stringify(parts.to)},"id":${id},` +
    `"content":{"uriParams":${JSON.stringify(parts.uriParams)},"headers":${JSON.stringify(parts.headers)},` +
    `"payload":${parts.payloadJson}${context}},"type":"application/json",` +
    `"metadata":{"correlationId":${id},"event":{"type":"notification","action":${JSON.stringify(parts.action)},` +
    `"createdAt":"${now.toISOString()}","state":${parts.error ? FAILURE_JSON : SUCCESS_JSON},` +
    `"id":"${randomUUID()}"},"protocol.createdAt":${now.getTime()}}}`
  );
}

/** errorInformation as central-services-error-handling's toApiErrorObject writes it (with the cause extension). */
export function errorPayload(name: ErrorName, detail?: string) {
  const { fspiop } = handlerErrors[name];
  const text = detail ? `${fspiop.description} - ${detail}` : fspiop.description;
  return {
    errorInformation: {
      errorCode: fspiop.code,
      errorDescription: text.length > 128 ? text.slice(0, 128) : text,
      extensionList: { extension: [{ key: 'cause', value: `FSPIOPError: ${name} (mojafast position-handler)` }] },
    },
  };
}

function headersWithout(headers: Readonly<Record<string, string>> | undefined, override?: Record<string, string>) {
  const copy: Record<string, string> = { ...(headers ?? {}) };
  delete copy['content-length'];
  return override ? Object.assign(copy, override) : copy;
}

/** An error notification from the Hub, for a message that could not be applied. */
export function hubErrorNotification(
  envelope: Envelope,
  id: string,
  to: string,
  action: string,
  name: ErrorName,
  detail: string | undefined,
  ctx: NotifyContext,
): string {
  return envelopeOf(
    {
      id,
      from: ctx.hubName,
      to,
      action,
      uriParams: { id },
      headers: headersWithout(envelope.content.headers, { 'fspiop-source': ctx.hubName, 'fspiop-destination': to }),
      payloadJson: JSON.stringify(errorPayload(name, detail)),
      context: envelope.content.context,
      error: true,
    },
    ctx.now,
  );
}

/**
 * The notification of one applied, rejected, replayed or failed message, addressed the way central-ledger's
 * domain/position/*.js address theirs: prepare payer → payee (errors Hub → payer); commit/reserve payee → payer
 * (errors Hub → payee); abort sender → receiver (abort-validation from the Hub); timeout-reserved as the message.
 */
export function notificationFor(message: PositionMessage, outcome: Outcome, ctx: NotifyContext): string {
  const { envelope, transferId } = message;
  const action: PositionAction = message.action;
  const error = outcome.error;
  if (action === 'abort' || action === 'abort-validation' || action === 'timeout-reserved') {
    if (error && outcome.result !== 'failed') {
      const fromHub = action === 'abort-validation';
      return envelopeOf(
        {
          id: transferId,
          from: fromHub ? ctx.hubName : envelope.from,
          to: envelope.to,
          action,
          uriParams: { id: transferId },
          headers: headersWithout(envelope.content.headers),
          payloadJson: JSON.stringify(errorPayload(error.name, error.detail)),
          context:
            action === 'timeout-reserved'
              ? envelope.content.context
              : { ...envelope.content.context, isOriginalId: true },
          error: true,
        },
        ctx.now,
      );
    }
  }
  if (error) {
    const to = action === 'prepare' ? message.payerFsp : envelope.from;
    return hubErrorNotification(envelope, transferId, to, action, error.name, error.detail, ctx);
  }
  if (action === 'prepare') {
    return envelopeOf(
      {
        id: transferId,
        from: message.payerFsp,
        to: String(message.payload.payeeFsp ?? envelope.to),
        action,
        uriParams: {},
        headers: headersWithout(envelope.content.headers),
        payloadJson: message.payloadJson,
        context: envelope.content.context,
        error: false,
      },
      ctx.now,
    );
  }
  return envelopeOf(
    {
      id: transferId,
      from: envelope.from,
      to: envelope.to,
      action,
      uriParams: { id: transferId },
      headers: headersWithout(envelope.content.headers),
      // reserve: the fulfil body with the state the transfer now has (fulfil.js sets transferState for reserve).
      payloadJson:
        action === 'reserve' ? JSON.stringify({ ...message.payload, transferState: 'COMMITTED' }) : message.payloadJson,
      context: envelope.content.context,
      error: false,
    },
    ctx.now,
  );
}
