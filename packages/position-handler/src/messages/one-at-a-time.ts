import { randomUUID } from 'node:crypto';
import { isBulkAction, type Outcome } from '../ledger/types.js';
import type { PositionMessage } from './decode.js';
import { errorPayload, type NotifyContext, SUCCESS_STATE } from './notify.js';

/**
 * Where a result of the one-at-a-time handler's actions goes (central-ledger handlers/positions/handler.js
 * eventDetail): BULK_PROCESSING for bulk-prepare, bulk-commit, bulk-timeout-reserved and bulk-abort (every result,
 * errors included), NOTIFICATION for reject. central-services-shared 18.28.2 Enum.Kafka.TopicMap maps
 * bulk-processing/<bulk action> to topic-bulk-processing and notification/reject to topic-notification-event.
 */
export type OneAtATimeDestination = 'bulk-processing' | 'notification';

export interface OneAtATimeResult {
  readonly destination: OneAtATimeDestination;
  readonly value: string;
}

/**
 * The result of a bulk action or reject, shaped as central-services-shared 18.28.2 Kafka.proceed shapes it: the
 * incoming message value itself, with
 * - metadata.event: responseTo = the incoming event id, a new id, type = the destination's functionality, the
 *   same action, state = success, or {status: 'error', code: errorCode, description: errorDescription}
 *   (StreamingProtocol.updateMessageProtocolMetadata, createEventState);
 * - with an error: content.uriParams = {id: transferId} when it has no id, content.payload = errorInformation;
 * - from the Hub (handler.js passes fromSwitch for refusals and wrong states, not for the expiry of
 *   bulk-timeout-reserved): to = the sender, from = the Hub, fspiop-source / fspiop-destination rewritten.
 * Without an error the payload is forwarded as it came (the data URI): bulk-prepare's transfer, bulk-commit's
 * fulfil, bulk-abort's errorInformation, reject's body.
 */
export function oneAtATimeResult(message: PositionMessage, outcome: Outcome, ctx: NotifyContext): OneAtATimeResult {
  const { action, transferId } = message;
  const destination: OneAtATimeDestination = isBulkAction(action) ? 'bulk-processing' : 'notification';
  // A copy deep enough for what is rewritten below; the rest is the incoming value as it came.
  const value = structuredClone(message.envelope) as unknown as {
    from: string;
    to: string;
    content: { uriParams?: { id?: string }; headers?: Record<string, unknown>; payload: unknown };
    metadata: { event: Record<string, unknown> };
  };
  const error = outcome.error;
  let state: Record<string, unknown> = SUCCESS_STATE;
  if (error) {
    const payload = errorPayload(error.name, error.detail, ctx.errorHandling);
    if (!value.content.uriParams?.id) value.content.uriParams = { id: transferId };
    value.content.payload = payload;
    state = {
      status: 'error',
      code: payload.errorInformation.errorCode,
      description: payload.errorInformation.errorDescription,
    };
    // handler.js: every error it sends is fromSwitch except the expiry notification of an applied timeout.
    const fromSwitch = !(error.name === 'EXPIRED' && outcome.result !== 'failed');
    if (fromSwitch) {
      value.to = value.from;
      value.from = ctx.hubName;
      if (value.content.headers) {
        value.content.headers['fspiop-source'] = value.from;
        value.content.headers['fspiop-destination'] = value.to;
      }
    }
  }
  const event = value.metadata.event;
  event.responseTo = event.id;
  event.id = randomUUID();
  event.type = destination;
  event.action = action;
  event.state = state;
  return { destination, value: JSON.stringify(value) };
}
