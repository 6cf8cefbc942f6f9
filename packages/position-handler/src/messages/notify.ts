import { randomUUID } from 'node:crypto';
import { handlerErrors } from '../ledger/errors.js';
import type { ErrorName, Outcome, PositionAction } from '../ledger/types.js';
import type { Envelope, PositionMessage } from './decode.js';

/**
 * metadata.event.state of notifications, as captured from the original (position-examples/notif-*.json);
 * the success one is also central-services-shared's Enum.Events.EventStatus.SUCCESS.
 */
export const SUCCESS_STATE = Object.freeze({ status: 'success', code: 0, description: 'action successful' });
const FAILURE_STATE = Object.freeze({ status: 'error', code: 999, description: 'action failed' });

/**
 * central-ledger's ERROR_HANDLING, the options of its error library's toApiErrorObject: whether errorInformation
 * carries a `cause` extension, and whether each extension value is cut to the API's 128 characters.
 */
export interface ErrorHandling {
  readonly includeCauseExtension: boolean;
  readonly truncateExtensions: boolean;
}

/** central-ledger's repository config/default.json ERROR_HANDLING (the config's defaults are the same). */
export const DEFAULT_ERROR_HANDLING: ErrorHandling = Object.freeze({
  includeCauseExtension: true,
  truncateExtensions: false,
});

export interface NotifyContext {
  readonly hubName: string;
  readonly now: Date;
  /** DEFAULT_ERROR_HANDLING when not given. */
  readonly errorHandling?: ErrorHandling;
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
  /** metadata.event.type: 'notification', or 'position' for a follow-up to the position topic. */
  readonly type?: 'notification' | 'position';
}

const SUCCESS_JSON = JSON.stringify(SUCCESS_STATE);
const FAILURE_JSON = JSON.stringify(FAILURE_STATE);

/** metadata.event.createdAt of the last `now` seen: every notification of a chunk has the chunk's `now`. */
let createdAtOf: { readonly now: Date; readonly iso: string; readonly ms: number } | undefined;

function createdAt(now: Date) {
  if (createdAtOf?.now !== now) createdAtOf = { now, iso: now.toISOString(), ms: now.getTime() };
  return createdAtOf;
}

/**
 * The envelope as text, field by field: the payload's JSON is embedded as it arrived instead of parsed and
 * re-serialised (JSON.stringify of the whole envelope was the handler's largest self time in CPU profiles).
 * Same fields, in the same order, as JSON.stringify of the envelope object.
 */
function envelopeOf(parts: Parts, now: Date): string {
  const context = parts.context === undefined ? '' : `,"context":${JSON.stringify(parts.context)}`;
  const id = JSON.stringify(parts.id);
  const created = createdAt(now);
  return (
    `{"from":${JSON.stringify(parts.from)},"to":${JSON.stringify(parts.to)},"id":${id},` +
    `"content":{"uriParams":${JSON.stringify(parts.uriParams)},"headers":${JSON.stringify(parts.headers)},` +
    `"payload":${parts.payloadJson}${context}},"type":"application/json",` +
    `"metadata":{"correlationId":${id},"event":{"type":"${parts.type ?? 'notification'}","action":${JSON.stringify(parts.action)},` +
    `"createdAt":"${created.iso}","state":${parts.error ? FAILURE_JSON : SUCCESS_JSON},` +
    `"id":"${randomUUID()}"},"protocol.createdAt":${created.ms}}}`
  );
}

/** The API's length limit of errorDescription and of an extension value (ErrorDescription, ExtensionValue). */
const API_TEXT_MAX = 128;

/**
 * errorInformation as central-services-error-handling's toApiErrorObject(Config.ERROR_HANDLING) writes it (its
 * outputs under each setting are recorded in test/fixtures/original-errors.json). The original's `cause` is the
 * error's stack: its first line (`FSPIOPError`, `: message` when the error has one), then the frames. Ours has
 * that first line and, for frames, one naming this handler and the error; there are no incoming extensions.
 */
export function errorPayload(name: ErrorName, detail?: string, errorHandling = DEFAULT_ERROR_HANDLING) {
  const { fspiop, originalMessage } = handlerErrors[name];
  const text = detail ? `${fspiop.description} - ${detail}` : fspiop.description;
  const errorInformation: {
    errorCode: string;
    errorDescription: string;
    extensionList?: { extension: { key: string; value: string }[] };
  } = { errorCode: fspiop.code, errorDescription: text.length > API_TEXT_MAX ? text.slice(0, API_TEXT_MAX) : text };
  if (errorHandling.includeCauseExtension) {
    // The message the original makes this error with: a null one reads "null" in its stack, as Error writes it.
    const message = detail || originalMessage;
    const head = message === undefined ? 'FSPIOPError' : `FSPIOPError: ${message}`;
    const cause = `${head}\n    at mojafast position-handler (${name})`;
    const value = errorHandling.truncateExtensions ? cause.slice(0, API_TEXT_MAX) : cause;
    errorInformation.extensionList = { extension: [{ key: 'cause', value }] };
  }
  return { errorInformation };
}

type Extension = { key: string; value: string };

/**
 * The payload of an abort's notifications in central-ledger 19.14.0 (abort.js createFSPIOPErrorFromErrorInformation,
 * then toApiErrorObject): the sender's own errorInformation, its code and description as sent (the description cut
 * to the API's length), its extensions kept, and under includeCauseExtension a `cause` first-lined with that
 * description (joined to a cause the sender gave); without it, the sender's cause extensions dropped.
 */
export function forwardedErrorPayload(sent: unknown, errorHandling = DEFAULT_ERROR_HANDLING) {
  const given = (typeof sent === 'object' && sent !== null ? sent : {}) as {
    errorCode?: unknown;
    errorDescription?: unknown;
    extensionList?: unknown;
  };
  const description = String(given.errorDescription);
  const errorInformation: {
    errorCode: string;
    errorDescription: string;
    extensionList?: { extension: Extension[] };
  } = { errorCode: String(given.errorCode), errorDescription: description.slice(0, API_TEXT_MAX) };
  const list = given.extensionList as { extension?: unknown } | unknown[] | undefined;
  const sentExtensions = Array.isArray(list) ? list : Array.isArray(list?.extension) ? list.extension : undefined;
  let extension = sentExtensions?.map((e) => ({ ...(e as Extension) }));
  const stack = `FSPIOPError: ${description}\n    at mojafast position-handler (ABORT_REJECTED)`;
  if (errorHandling.includeCauseExtension) {
    extension ??= [];
    const cause = extension.find((e) => e.key === 'cause');
    if (cause) cause.value = `${stack}\n${cause.value}`;
    else extension.push({ key: 'cause', value: stack });
  } else if (extension) {
    extension = extension.filter((e) => e.key !== 'cause' && e.key !== '_cause');
  }
  if (extension && extension.length > 0) {
    if (errorHandling.truncateExtensions)
      for (const e of extension) if (typeof e.value === 'string') e.value = e.value.slice(0, API_TEXT_MAX);
    errorInformation.extensionList = { extension };
  }
  return { errorInformation };
}

/** An abort's error payload: the sender's error passed on for a rejection, the Hub's 3100 for a validation. */
function abortPayloadJson(message: PositionMessage, name: ErrorName, ctx: NotifyContext): string {
  const sent = message.payload.errorInformation;
  if (name === 'ABORT_REJECTED' && sent !== undefined)
    return JSON.stringify(forwardedErrorPayload(sent, ctx.errorHandling));
  return JSON.stringify(errorPayload(name, undefined, ctx.errorHandling));
}

function headersWithout(headers: Readonly<Record<string, string>> | undefined, override?: Record<string, string>) {
  // Only serialised: without a content-length to drop or a header to set, the incoming object serialises the same.
  if (headers !== undefined && override === undefined && !Object.hasOwn(headers, 'content-length')) return headers;
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
      payloadJson: JSON.stringify(errorPayload(name, detail, ctx.errorHandling)),
      context: envelope.content.context,
      error: true,
    },
    ctx.now,
  );
}

/** One message to produce for an outcome: a notification (key null), or a follow-up keyed by the next account. */
export interface Produced {
  readonly key: string | null;
  readonly value: string;
  readonly followUp?: boolean;
}

/**
 * The context with the step this message applied marked isDone, as central-ledger's fulfil.js and abort.js leave
 * it (they set positionChanges[i].isDone on the message's own context before the messages that carry it are sent).
 */
function contextAfterStep(envelope: Envelope): Record<string, unknown> | undefined {
  const context = envelope.content.context;
  const cyril = context?.cyrilResult as { positionChanges?: unknown[] } | undefined;
  if (!context || !cyril || !Array.isArray(cyril.positionChanges)) return context;
  const changes = cyril.positionChanges.map((c) => ({ ...(c as Record<string, unknown>) }));
  const index = changes.findIndex((c) => c.isDone !== true);
  if (index !== -1) (changes[index] as Record<string, unknown>).isDone = true;
  return { ...context, cyrilResult: { ...cyril, positionChanges: changes } };
}

interface PatchNotification {
  readonly commitRequestId: string;
  readonly fxpName: string;
  readonly fulfilment?: unknown;
  readonly completedTimestamp?: unknown;
}

/**
 * fulfil.js and abort.js _constructPatchNotificationResultMessage: fx-notify from the Hub to each FXP of
 * cyrilResult.patchNotifications, conversionState COMMITTED (with the fulfilment) or ABORTED.
 */
function fxNotifications(
  message: PositionMessage,
  context: Record<string, unknown> | undefined,
  ctx: NotifyContext,
  state: 'COMMITTED' | 'ABORTED' = 'COMMITTED',
) {
  const cyril = message.envelope.content.context?.cyrilResult as { patchNotifications?: PatchNotification[] };
  const out: Produced[] = [];
  for (const patch of Array.isArray(cyril?.patchNotifications) ? cyril.patchNotifications : []) {
    out.push({
      key: null,
      value: envelopeOf(
        {
          id: patch.commitRequestId,
          from: ctx.hubName,
          to: patch.fxpName,
          action: 'fx-notify',
          uriParams: { id: patch.commitRequestId },
          // Not without content-length here: the original copies the headers as they are.
          headers: {
            ...(message.envelope.content.headers ?? {}),
            'fspiop-source': ctx.hubName,
            'fspiop-destination': patch.fxpName,
          },
          payloadJson: JSON.stringify(
            state === 'ABORTED'
              ? { conversionState: state }
              : { conversionState: state, fulfilment: patch.fulfilment, completedTimestamp: patch.completedTimestamp },
          ),
          context,
          error: false,
        },
        ctx.now,
      ),
    });
  }
  return out;
}

interface AbortNotice {
  readonly id: string;
  readonly fx: boolean;
  readonly notifyTo: string;
  /** As cyril.js set it (absent in some: then the notification is from the Hub and its context has none). */
  readonly isOriginalId: unknown;
}

/**
 * abort.js once the last step is applied: one error notification per positionChanges entry and per
 * transferStateChanges entry, to its notifyTo; from the Hub for abort-validation and for ids other than the
 * message's own; action fx-abort for an fxTransfer that is not the message's own (handlerBatch keeps it).
 */
function abortNotifications(message: PositionMessage, outcome: Outcome, ctx: NotifyContext): Produced[] {
  const { envelope } = message;
  const cyril = envelope.content.context?.cyrilResult as {
    positionChanges?: Record<string, unknown>[];
    transferStateChanges?: Record<string, unknown>[];
  };
  const notices: AbortNotice[] = [
    // An fxTransfer's step is notified only when cyril.js named whom to tell (19.14.0 abort.js).
    ...(cyril.positionChanges ?? [])
      .filter((c) => c.isFxTransferStateChange !== true || Boolean(c.notifyTo))
      .map((c) => ({
        id: String(c.isFxTransferStateChange === true ? c.commitRequestId : c.transferId),
        fx: c.isFxTransferStateChange === true,
        notifyTo: String(c.notifyTo),
        isOriginalId: c.isOriginalId,
      })),
    ...(Array.isArray(cyril.transferStateChanges) ? cyril.transferStateChanges : []).map((c) => ({
      id: String(c.transferId),
      fx: false,
      notifyTo: String(c.notifyTo),
      isOriginalId: c.isOriginalId,
    })),
  ];
  const validation = message.action === 'abort-validation' || message.action === 'fx-abort-validation';
  const context = contextAfterStep(envelope);
  const name = outcome.error?.name ?? 'ABORT_REJECTED';
  return notices.map((notice) => ({
    key: null,
    value: envelopeOf(
      {
        id: notice.id,
        from: validation || !notice.isOriginalId ? ctx.hubName : envelope.from,
        to: notice.notifyTo,
        action: notice.fx && !notice.isOriginalId ? 'fx-abort' : message.action,
        uriParams: { id: notice.id },
        headers: { ...(envelope.content.headers ?? {}) },
        payloadJson: abortPayloadJson(message, name, ctx),
        context: { ...context, isOriginalId: notice.isOriginalId },
        error: true,
      },
      ctx.now,
    ),
  }));
}

/**
 * The follow-up of a cyrilResult step with another step left, keyed by that step's account, to the POSITION.COMMIT
 * topic: for a commit, the commit result message (fulfil.js, with the context); for an abort, the message
 * itself (abort.js); both with this step marked isDone and metadata.event.type position.
 */
function followUp(message: PositionMessage, next: string, ctx: NotifyContext): Produced {
  const { envelope, transferId } = message;
  const commit = message.action === 'commit' || message.action === 'reserve';
  const value = envelopeOf(
    {
      id: commit ? transferId : envelope.id,
      from: envelope.from,
      to: envelope.to,
      action: message.action,
      uriParams: commit ? { id: transferId } : ({ ...(envelope.content.uriParams ?? {}) } as Record<string, string>),
      headers: commit ? headersWithout(envelope.content.headers) : { ...(envelope.content.headers ?? {}) },
      payloadJson: commit
        ? message.action === 'reserve'
          ? JSON.stringify({ ...message.payload, transferState: 'COMMITTED' })
          : message.payloadJson
        : JSON.stringify(envelope.content.payload),
      context: contextAfterStep(envelope),
      error: false,
      type: 'position',
    },
    ctx.now,
  );
  return { key: next, value, followUp: true };
}

/** Every message to produce for one outcome: notifications, fx-notify messages, or a follow-up. */
export function notificationsFor(message: PositionMessage, outcome: Outcome, ctx: NotifyContext): Produced[] {
  if (!message.cyril || outcome.result === 'failed')
    return [{ key: null, value: notificationFor(message, outcome, ctx) }];
  const commit = message.action === 'commit' || message.action === 'reserve';
  const out: Produced[] = [];
  if (commit && outcome.fxNotify) out.push(...fxNotifications(message, contextAfterStep(message.envelope), ctx));
  // An abort's step on an fxTransfer tells the FXPs their conversion is aborted (19.14.0 abort.js).
  if (!commit && message.cyril.step.fx)
    out.push(...fxNotifications(message, contextAfterStep(message.envelope), ctx, 'ABORTED'));
  if (outcome.next !== undefined) {
    out.push(followUp(message, outcome.next, ctx));
    return out;
  }
  if (commit) {
    out.push({ key: null, value: notificationFor(message, outcome, ctx, contextAfterStep(message.envelope)) });
    return out;
  }
  return abortNotifications(message, outcome, ctx);
}

/**
 * The notification of one applied, rejected, replayed or failed message, addressed the way central-ledger's
 * domain/position/*.js address theirs: prepare payer → payee (errors Hub → payer); fx-prepare initiating FSP →
 * FXP (errors Hub → initiating FSP); commit/reserve/fx-reserve sender → receiver, i.e. payee → payer and FXP →
 * initiating FSP (errors Hub → sender); abort sender → receiver (abort-validation from the Hub);
 * timeout-reserved and fx-timeout-reserved as the message.
 */
export function notificationFor(
  message: PositionMessage,
  outcome: Outcome,
  ctx: NotifyContext,
  context = message.envelope.content.context,
): string {
  const { envelope, transferId } = message;
  const action: PositionAction = message.action;
  const error = outcome.error;
  if (
    action === 'abort' ||
    action === 'abort-validation' ||
    action === 'timeout-reserved' ||
    action === 'fx-timeout-reserved'
  ) {
    if (error && outcome.result !== 'failed') {
      const fromHub = action === 'abort-validation';
      const timeout = action === 'timeout-reserved' || action === 'fx-timeout-reserved';
      return envelopeOf(
        {
          id: transferId,
          from: fromHub ? ctx.hubName : envelope.from,
          to: envelope.to,
          action,
          uriParams: { id: transferId },
          headers: headersWithout(envelope.content.headers),
          payloadJson:
            action === 'abort' && error.detail === undefined
              ? abortPayloadJson(message, error.name, ctx)
              : JSON.stringify(errorPayload(error.name, error.detail, ctx.errorHandling)),
          context: timeout ? context : { ...context, isOriginalId: true },
          error: true,
        },
        ctx.now,
      );
    }
  }
  if (error) {
    const to = action === 'prepare' || action === 'fx-prepare' ? message.payerFsp : envelope.from;
    return hubErrorNotification(envelope, transferId, to, action, error.name, error.detail, ctx);
  }
  if (action === 'prepare' || action === 'fx-prepare') {
    const to = action === 'prepare' ? message.payload.payeeFsp : message.payload.counterPartyFsp;
    return envelopeOf(
      {
        id: transferId,
        from: message.payerFsp,
        to: String(to ?? envelope.to),
        action,
        uriParams: {},
        headers: headersWithout(envelope.content.headers),
        payloadJson: message.payloadJson,
        context,
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
      context,
      error: false,
    },
    ctx.now,
  );
}
