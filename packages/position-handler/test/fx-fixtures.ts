import { randomUUID } from 'node:crypto';
import type { FxTransferSpec } from '../src/testing/transfers.js';

/**
 * FX position messages in central-ledger's envelope, built as the original's own unit tests build them (central-ledger
 * 19.14.0 test/unit/domain/position/*.test.js; the domain files they test are the same in the 19.5.5 npm package
 * except abort.js and fulfil.js, see below). Where each fact comes from:
 * - fx-prepare: fx-prepare.test.js constructFxTransferTestData: from initiatingFsp to counterPartyFsp, payload
 *   {commitRequestId, determiningTransferId, initiatingFsp, counterPartyFsp, sourceAmount, targetAmount, condition,
 *   expiration} as an fxTransfers+json;version=2.0 data URI, context.cyrilResult {participantName, currencyId, amount},
 *   headers with content-length, key = the initiating FSP's account.
 * - fx-reserve: fx-fulfil.test.js constructFxTransferCallbackTestData: from counterPartyFsp to initiatingFsp,
 *   uriParams.id = commitRequestId, payload {fulfilment, completedTimestamp, conversionState: 'RESERVED'},
 *   context.cyrilResult {}.
 * - fx-timeout-reserved: fx-timeout-reserved.test.js: from the initiating FSP (perffsp1) to the FXP, uriParams.id.
 * - commit with cyrilResult: fulfil.test.js _constructContextForFx: {isFx: true, positionChanges: [{isFxTransferStateChange:
 *   true, commitRequestId, participantCurrencyId, amount, isDone}, {isFxTransferStateChange: false, transferId, ...}],
 *   patchNotifications: [{commitRequestId, fxpName, fulfilment, completedTimestamp}]}; amounts as strings.
 * - fx-abort with cyrilResult: abort.test.js buildPositionMessage: payload {errorInformation}, context.cyrilResult
 *   {positionChanges: [{..., notifyTo, participantCurrencyId, amount}], transferStateChanges: []}; cyril.js
 *   _getPositionChanges adds isOriginalId and uses amount = -(reserved change).
 */
const FX_CONTENT_TYPE = 'application/vnd.interoperability.fxTransfers+json;version=2.0';
const TRANSFERS_CONTENT_TYPE = 'application/vnd.interoperability.transfers+json;version=1.1';

const dataUri = (type: string, body: unknown) =>
  `data:${type};base64,${Buffer.from(JSON.stringify(body)).toString('base64')}`;

function headers(type: string, source: string, destination: string) {
  return {
    host: 'ml-api-adapter:3000',
    'content-length': 1314,
    accept: type,
    'content-type': type,
    date: '2023-08-17T15:25:08.000Z',
    'fspiop-destination': destination,
    'fspiop-source': source,
    traceparent: '00-e11ece8cc6ca3dc170a8ab693910d934-25d85755f1bc6898-01',
  };
}

function metadata(id: string, action: string) {
  return {
    correlationId: id,
    event: {
      id: randomUUID(),
      type: 'position',
      action,
      createdAt: '2023-08-17T15:25:08.511Z',
      state: { status: 'success', code: 0, description: 'action successful' },
    },
  };
}

/**
 * A message about `id` from `from` to `to` as central-ledger's handlers carry it: uriParams.id, the sender's headers
 * of `contentType`, then `content` (payload and, where the message has one, context), keyed by `key`.
 */
function envelope(
  key: number | string,
  action: string,
  contentType: string,
  route: { from: string; to: string; id: string },
  content: { payload: unknown; context?: unknown },
) {
  const value = {
    ...route,
    content: {
      uriParams: { id: route.id },
      headers: headers(contentType, route.from, route.to),
      ...content,
    },
    type: 'application/json',
    metadata: metadata(route.id, action),
  };
  return { key: String(key), value: JSON.stringify(value) };
}

/** The parties and amounts of a conversion, as the testing entry point provisions it (without its state). */
/** A message about the conversion `fx`, sent by `sender` (its initiator or the FXP) to the other. */
function fxEnvelope(
  fx: FxParties,
  key: number | string,
  action: string,
  sender: 'initiator' | 'fxp',
  content: { payload: unknown; context?: unknown },
) {
  const [from, to] = sender === 'initiator' ? [fx.initiator, fx.fxp] : [fx.fxp, fx.initiator];
  return envelope(key, action, FX_CONTENT_TYPE, { from, to, id: fx.commitRequestId }, content);
}

export type FxParties = Omit<FxTransferSpec, 'state'>;

export function fxPreparePayload(fx: FxParties) {
  return {
    commitRequestId: fx.commitRequestId,
    determiningTransferId: fx.determiningTransferId,
    initiatingFsp: fx.initiator,
    counterPartyFsp: fx.fxp,
    sourceAmount: { currency: fx.sourceCurrency, amount: fx.sourceAmount },
    targetAmount: { currency: fx.targetCurrency, amount: fx.targetAmount },
    condition: 'GRzLaTP7DJ9t4P-a_BA0WA9wzzlsugf00-Tn6kESAfM',
    expiration: '2030-04-19T14:06:08.936Z',
  };
}

/** `cyril`: content.context.cyrilResult; null leaves it out (bad input). */
export function fxPrepareMessage(
  fx: FxParties,
  key: number | string,
  cyril: Record<string, unknown> | null = {
    participantName: fx.initiator,
    currencyId: fx.sourceCurrency,
    amount: fx.sourceAmount,
  },
) {
  return fxEnvelope(fx, key, 'fx-prepare', 'initiator', {
    payload: dataUri(FX_CONTENT_TYPE, fxPreparePayload(fx)),
    context: cyril === null ? {} : { cyrilResult: cyril },
  });
}

export const FX_FULFIL = {
  fulfilment: 'WLctttbu2HvTsa1XWvUoGRcQozHsqeu9Ahl2JW9Bsu8',
  completedTimestamp: '2024-04-19T14:06:08.936Z',
  conversionState: 'RESERVED',
};

export function fxReserveMessage(fx: FxParties, key: number | string) {
  return fxEnvelope(fx, key, 'fx-reserve', 'fxp', {
    payload: dataUri(FX_CONTENT_TYPE, FX_FULFIL),
    context: { cyrilResult: {} },
  });
}

export function fxTimeoutMessage(fx: FxParties, key: number | string) {
  return fxEnvelope(fx, key, 'fx-timeout-reserved', 'initiator', {
    payload: dataUri(FX_CONTENT_TYPE, { commitRequestId: fx.commitRequestId }),
  });
}

export const FULFIL = {
  transferState: 'COMMITTED',
  fulfilment: 'lnYe4rYwLthWbzhVyX5cAuDfL1Ulw4WdaTgyGDREysw',
  completedTimestamp: '2024-04-19T14:07:00.000Z',
};

/** A dependent transfer's commit from the payee, with the cyrilResult of a payer-side conversion. */
export function fxCommitMessage(
  transfer: { transferId: string; payer: string; payee: string },
  key: number | string,
  cyrilResult: Record<string, unknown>,
) {
  return envelope(
    key,
    'commit',
    TRANSFERS_CONTENT_TYPE,
    { from: transfer.payee, to: transfer.payer, id: transfer.transferId },
    {
      payload: dataUri(TRANSFERS_CONTENT_TYPE, FULFIL),
      context: { cyrilResult },
    },
  );
}

/** An fx-abort (or fx-abort-validation) from the FXP with its cyrilResult. */
export function fxAbortMessage(
  fx: FxParties,
  key: number | string,
  cyrilResult: Record<string, unknown>,
  action: 'fx-abort' | 'fx-abort-validation' = 'fx-abort',
) {
  return fxEnvelope(fx, key, action, 'fxp', {
    payload: { errorInformation: { errorCode: '5104', errorDescription: 'Payee Rejected' } },
    context: { cyrilResult },
  });
}
