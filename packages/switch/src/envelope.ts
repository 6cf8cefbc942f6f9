import { randomBytes, randomUUID } from 'node:crypto';

/**
 * The Kafka messages ml-api-adapter 16.5.2 produces for the FSPIOP transfer requests (the release built on the
 * same central-services-shared 18.28.2 and central-services-stream 11.7.0 as central-ledger 19.5.5), so
 * central-ledger's prepare, fulfil and get handlers receive exactly what a deployment sends them:
 *
 * - topic: the general template `topic-{functionality}-{action}` with functionality `transfer` and action
 *   `prepare` (POST /transfers, POST /fxTransfers), `fulfil` (PUT /transfers/{id}, PUT .../error and the fx
 *   forms) or `get`; FX requests go to the same topics as plain ones;
 * - key: none (its producer's topic configuration carries key null), partition: none;
 * - value: `{from, to, id, content: {uriParams: {id}, headers, payload: <data URI of the raw body>, context},
 *   type: 'application/json', metadata: {correlationId, event: {type, action, createdAt, state}, trace,
 *   'protocol.createdAt'}}`; `from`/`to` are the payer and payee (initiating FSP and counter party for FX) on a
 *   prepare, the FSPIOP-Source and -Destination headers on a fulfil or error; the payload is the request's
 *   bytes as `data:<content-type>;base64,...` with the request's own content-type;
 * - metadata.event.action: prepare / fx-prepare; commit, reserve or reject by the body's transferState
 *   (COMMITTED, RESERVED, ABORTED), fx-commit, fx-reserve, fx-reject by conversionState; abort / fx-abort for
 *   an error callback; get / fx-get.
 *
 * The header names are lower case (hapi hands them over so). `metadata.trace` has the shape of event-sdk's span
 * context (the request's span, which central-ledger's handlers continue); its identifiers are random here.
 */

export type Resource = 'transfers' | 'fxTransfers';

export interface AdapterMessage {
  readonly topic: string;
  /** Always null: ml-api-adapter produces without a key. */
  readonly key: null;
  readonly value: string;
  /** The decoded value, for assertions. */
  readonly envelope: AdapterEnvelope;
}

export interface AdapterEnvelope {
  from: string;
  to: string;
  id: string;
  content: {
    uriParams: { id: string };
    headers: Record<string, string>;
    /** A data URI of the request's body; `{}` for a GET, which has none. */
    payload: string | Record<string, never>;
    context: Record<string, unknown>;
  };
  type: 'application/json';
  metadata: {
    correlationId: string;
    event: {
      type: 'prepare' | 'fulfil' | 'get';
      action: string;
      createdAt: string;
      state: { status: 'success'; code: 0; description: 'action successful' };
    };
    trace: Record<string, unknown>;
    'protocol.createdAt': number;
  };
}

/** FSPIOP API versions ml-api-adapter 16.5.x accepts: transfers at 1.1, fxTransfers only at 2.0. */
export const CONTENT_VERSION: Record<Resource, string> = { transfers: '1.1', fxTransfers: '2.0' };

export function contentType(resource: Resource, version = CONTENT_VERSION[resource]): string {
  return `application/vnd.interoperability.${resource}+json;version=${version}`;
}

/** The headers an FSP's request carries when ml-api-adapter passes them on (lower case, as hapi gives them). */
export function fspiopHeaders(
  resource: Resource,
  source: string,
  destination: string | undefined,
  body: string | undefined,
  date = new Date(),
): Record<string, string> {
  const headers: Record<string, string> = {
    accept: contentType(resource).replace(/;version=.*/, `;version=${CONTENT_VERSION[resource].split('.')[0]}`),
    'content-type': contentType(resource),
    date: date.toUTCString(),
    'fspiop-source': source,
  };
  if (destination !== undefined) headers['fspiop-destination'] = destination;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return headers;
}

/** The general topic template central-services-shared fills: topic-{functionality}-{action}, lower case. */
export function generalTopic(prefix: string, functionality: string, action: string): string {
  return `${prefix}topic-${functionality}-${action}`.toLowerCase();
}

function dataUri(body: string, type: string): string {
  return `data:${type};base64,${Buffer.from(body).toString('base64')}`;
}

function spanContext(service: string, tags: Record<string, string>): Record<string, unknown> {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return {
    service,
    traceId,
    spanId,
    startTimestamp: new Date().toISOString(),
    tags: { tracestate: `acmevendor=${Buffer.from(JSON.stringify({ spanId })).toString('base64')}`, ...tags },
    tracestates: { acmevendor: { spanId } },
  };
}

interface Build {
  readonly prefix: string;
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly type: 'prepare' | 'fulfil' | 'get';
  readonly action: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly service: string;
}

function build(b: Build): AdapterMessage {
  const topicAction = b.type === 'get' ? 'get' : b.type;
  const envelope: AdapterEnvelope = {
    from: b.from,
    to: b.to,
    id: b.id,
    content: {
      uriParams: { id: b.id },
      headers: b.headers,
      payload: b.body === undefined ? {} : dataUri(b.body, b.headers['content-type'] ?? 'application/json'),
      context: {},
    },
    type: 'application/json',
    metadata: {
      correlationId: b.id,
      event: {
        type: b.type,
        action: b.action,
        createdAt: new Date().toISOString(),
        state: { status: 'success', code: 0, description: 'action successful' },
      },
      trace: spanContext(b.service, {
        transactionType: 'transfer',
        transactionAction: b.type,
        transactionId: b.id,
        source: b.headers['fspiop-source'] ?? '',
        destination: b.headers['fspiop-destination'] ?? '',
      }),
      'protocol.createdAt': Date.now(),
    },
  };
  return {
    topic: generalTopic(b.prefix, 'transfer', topicAction),
    key: null,
    value: JSON.stringify(envelope),
    envelope,
  };
}

export interface TransferBody {
  readonly transferId: string;
  readonly payerFsp: string;
  readonly payeeFsp: string;
  readonly amount: { readonly currency: string; readonly amount: string };
  readonly ilpPacket: string;
  readonly condition: string;
  readonly expiration: string;
}

export interface FxTransferBody {
  readonly commitRequestId: string;
  readonly determiningTransferId: string;
  readonly initiatingFsp: string;
  readonly counterPartyFsp: string;
  readonly amountType: 'SEND' | 'RECEIVE';
  readonly sourceAmount: { readonly currency: string; readonly amount: string };
  readonly targetAmount: { readonly currency: string; readonly amount: string };
  readonly condition: string;
  readonly expiration: string;
}

export interface ErrorBody {
  readonly errorInformation: { readonly errorCode: string; readonly errorDescription: string };
}

/** POST /transfers or POST /fxTransfers from the payer (initiating FSP); `indent` spaces its JSON as some FSPs do. */
export function prepareMessage(
  prefix: string,
  body: TransferBody | FxTransferBody,
  headers?: Record<string, string>,
  indent?: number,
) {
  const fx = 'commitRequestId' in body;
  const raw = JSON.stringify(body, null, indent);
  const from = fx ? body.initiatingFsp : body.payerFsp;
  const to = fx ? body.counterPartyFsp : body.payeeFsp;
  const resource: Resource = fx ? 'fxTransfers' : 'transfers';
  return build({
    prefix,
    id: fx ? body.commitRequestId : body.transferId,
    from,
    to,
    type: 'prepare',
    action: fx ? 'fx-prepare' : 'prepare',
    headers: headers ?? fspiopHeaders(resource, from, to, raw),
    body: raw,
    service: fx ? 'ml_fxTransfer_prepare' : 'ml_transfer_prepare',
  });
}

export interface FulfilBody {
  readonly fulfilment?: string;
  readonly completedTimestamp?: string;
  readonly transferState?: 'COMMITTED' | 'RESERVED' | 'ABORTED';
  readonly conversionState?: 'COMMITTED' | 'RESERVED' | 'ABORTED';
  readonly [extra: string]: unknown;
}

/** ml-api-adapter's action for a PUT body: ABORTED → reject, RESERVED → reserve, anything else → commit. */
export function fulfilAction(body: FulfilBody): string {
  const fx = body.transferState === undefined;
  const state = body.transferState ?? body.conversionState;
  const key = state === 'ABORTED' ? 'reject' : state === 'RESERVED' ? 'reserve' : 'commit';
  return fx ? `fx-${key}` : key;
}

/** PUT /transfers/{id} or PUT /fxTransfers/{id} from the payee (counter party) to the payer. */
export function fulfilMessage(prefix: string, id: string, from: string, to: string, body: FulfilBody) {
  const raw = JSON.stringify(body);
  const resource: Resource = body.transferState === undefined ? 'fxTransfers' : 'transfers';
  return build({
    prefix,
    id,
    from,
    to,
    type: 'fulfil',
    action: fulfilAction(body),
    headers: fspiopHeaders(resource, from, to, raw),
    body: raw,
    service: resource === 'fxTransfers' ? 'ml_fxTransfer_fulfil' : 'ml_transfer_fulfil',
  });
}

/** PUT /transfers/{id}/error or PUT /fxTransfers/{id}/error. */
export function errorMessage(
  prefix: string,
  resource: Resource,
  id: string,
  from: string,
  to: string,
  body: ErrorBody,
) {
  const raw = JSON.stringify(body);
  return build({
    prefix,
    id,
    from,
    to,
    type: 'fulfil',
    action: resource === 'fxTransfers' ? 'fx-abort' : 'abort',
    headers: fspiopHeaders(resource, from, to, raw),
    body: raw,
    service: resource === 'fxTransfers' ? 'ml_fxTransfer_abort' : 'ml_transfer_abort',
  });
}

/** GET /transfers/{id} or GET /fxTransfers/{id}: no body (the payload is `{}`). */
export function getMessage(prefix: string, resource: Resource, id: string, from: string, to: string) {
  const headers = fspiopHeaders(resource, from, to, undefined);
  return build({
    prefix,
    id,
    from,
    to,
    type: 'get',
    action: resource === 'fxTransfers' ? 'fx-get' : 'get',
    headers,
    body: undefined,
    service: resource === 'fxTransfers' ? 'ml_fxTransfer_get' : 'ml_transfer_get',
  });
}

/** A transfer id as FSPs make them (UUID v4). */
export const newId = (): string => randomUUID();
