/**
 * What ml-api-adapter 16.5.2's notification handler (src/handlers/notification/index.js) makes of one message
 * on the notification topic: the HTTP callbacks it sends, to whom, with which method and FSPIOP-Source, or the
 * refusal it logs. A pure function of the message, so a scenario reads the switch's answers the way the FSPs
 * receive them. Its defaults are taken: SEND_TRANSFER_CONFIRMATION_TO_PAYEE true, HUB_NAME `Hub`, FSPIOP (not
 * ISO 20022) mode, no payload cache.
 */

export type CallbackKind = 'POST' | 'PUT' | 'PUT_ERROR' | 'PATCH';

export interface Callback {
  /** The FSP whose endpoint is called. */
  readonly fsp: string;
  readonly kind: CallbackKind;
  readonly resource: 'transfers' | 'fxTransfers';
  /** The FSPIOP-Source the callback carries (the Hub for the switch's own messages). */
  readonly source: string;
  /** The body sent, parsed. */
  readonly body: unknown;
}

export interface NotificationValue {
  readonly from: string;
  readonly to: string;
  readonly id?: string;
  readonly content: {
    readonly uriParams?: { readonly id?: string };
    readonly headers?: Record<string, string>;
    readonly payload?: unknown;
    readonly context?: Record<string, unknown>;
  };
  readonly metadata: {
    readonly event: {
      readonly type?: string;
      readonly action: string;
      readonly state: { readonly status: string; readonly code?: number | string; readonly description?: string };
    };
  };
}

export type NotificationOutcome =
  | { readonly ok: true; readonly callbacks: readonly Callback[] }
  | { readonly ok: false; readonly refused: string };

const HUB = 'Hub';

/** Actions ml-api-adapter accepts without a `content.context` (the switch's own messages). */
const WITHOUT_CONTEXT = new Set([
  'prepare-duplicate',
  'fx-prepare-duplicate',
  'abort-validation',
  'fx-abort-validation',
  'reserved-aborted',
  'fx-reserved-aborted',
  'fulfil-duplicate',
  'fx-fulfil-duplicate',
  'get',
  'fx-get',
  'fx-notify',
  'timeout-received',
  'fx-timeout-received',
  'timeout-reserved',
  'fx-timeout-reserved',
]);

/** Decodes a data URI payload (`data:<type>;base64,<bytes>`) or passes an object through. */
export function decodePayload(payload: unknown): unknown {
  if (typeof payload !== 'string') return payload;
  const match = /^data:([^,]*?)(;base64)?,(.*)$/s.exec(payload);
  if (!match) return JSON.parse(payload);
  const text = match[2] ? Buffer.from(match[3] ?? '', 'base64').toString('utf8') : decodeURIComponent(match[3] ?? '');
  return JSON.parse(text);
}

export function notificationCallbacks(value: NotificationValue): NotificationOutcome {
  const { content, metadata } = value;
  if (!content?.headers || content.payload === undefined || content.payload === null) {
    return { ok: false, refused: 'Invalid message received from kafka (no headers or payload)' };
  }
  const action = metadata.event.action.toLowerCase();
  if (!WITHOUT_CONTEXT.has(action) && !content.context) {
    return { ok: false, refused: `Invalid message received from kafka - wrong action "${action}" or no context` };
  }
  const isFx = action.startsWith('fx-');
  const resource: Callback['resource'] = isFx ? 'fxTransfers' : 'transfers';
  const isSuccess = metadata.event.state.status.toLowerCase() === 'success';
  const source = value.from;
  const destination = value.to;
  const body = decodePayload(content.payload);
  const sendToSource = source !== destination;
  const out: Callback[] = [];
  const add = (fsp: string, kind: CallbackKind, from: string, b: unknown = body, r = resource) =>
    out.push({ fsp, kind, resource: r, source: from, body: b });

  switch (action) {
    case 'prepare':
    case 'fx-prepare':
      if (!isSuccess) add(destination, 'PUT_ERROR', source);
      else add(destination, 'POST', source);
      break;
    case 'prepare-duplicate':
    case 'fx-prepare-duplicate':
      if (isSuccess) add(destination, 'PUT', source);
      break;
    case 'commit':
    case 'reserve':
    case 'fx-commit':
    case 'fx-reserve':
      if (isSuccess) {
        if (action === 'reserve') add(destination, 'PUT', HUB);
        else add(destination, 'PUT', source);
        if (action === 'reserve' || (sendToSource && action !== 'fx-reserve')) {
          let toPayee = body;
          if (action === 'reserve' && body && typeof body === 'object') {
            const { fulfilment: _dropped, ...rest } = body as Record<string, unknown>;
            toPayee = rest;
          }
          add(source, action === 'reserve' ? 'PATCH' : 'PUT', HUB, toPayee);
        }
      } else if (action === 'commit' || action === 'fx-commit') {
        add(destination, 'PUT_ERROR', source);
      }
      break;
    case 'reject':
    case 'fx-reject':
      add(destination, 'PUT', source);
      if (sendToSource) add(source, 'PUT', HUB);
      break;
    case 'abort':
    case 'fx-abort': {
      const fromSwitch = action === 'fx-abort' && !content.context?.isOriginalId;
      add(destination, 'PUT_ERROR', fromSwitch ? HUB : source);
      if (sendToSource) add(source, 'PUT_ERROR', HUB);
      break;
    }
    case 'abort-validation':
    case 'fx-abort-validation':
      add(destination, 'PUT_ERROR', HUB);
      if (sendToSource && source !== HUB) add(source, 'PUT_ERROR', HUB);
      break;
    case 'reserved-aborted':
    case 'fx-reserved-aborted':
      add(destination, 'PATCH', HUB);
      break;
    case 'fulfil-duplicate':
    case 'fx-fulfil-duplicate':
      add(destination, isSuccess ? 'PUT' : 'PUT_ERROR', source);
      break;
    case 'abort-duplicate':
    case 'fx-abort-duplicate':
      add(destination, isSuccess ? 'PUT' : 'PUT_ERROR', source);
      break;
    case 'timeout-received':
    case 'fx-timeout-received':
      add(destination, 'PUT_ERROR', HUB);
      break;
    case 'timeout-reserved':
    case 'fx-timeout-reserved':
    case 'forwarded':
    case 'fx-forwarded': {
      const payer = (content.context?.payer as string | undefined) ?? destination;
      const payee = (content.context?.payee as string | undefined) ?? source;
      add(payer, 'PUT_ERROR', HUB);
      add(payee, 'PUT_ERROR', HUB);
      break;
    }
    case 'get':
    case 'fx-get':
      add(destination, isSuccess ? 'PUT' : 'PUT_ERROR', source);
      break;
    case 'fx-notify': {
      if (!isSuccess) return { ok: false, refused: 'FX_NOTIFY action must be successful' };
      let toFxp = body;
      if (body && typeof body === 'object') {
        const { fulfilment: _dropped, ...rest } = body as Record<string, unknown>;
        toFxp = rest;
      }
      add(destination, 'PATCH', source, toFxp, 'fxTransfers');
      break;
    }
    default:
      // ml-api-adapter answers false and sends nothing for an action it does not know.
      break;
  }
  return { ok: true, callbacks: out };
}
