import { randomUUID } from 'node:crypto';

/**
 * Messages of the one-at-a-time handler's actions on topic-transfer-position, as central-ledger 19.5.5's producers
 * build them, and the shapes it answers with. Where each fact comes from (npm @mojaloop/central-ledger 19.5.5; its
 * handlers/positions/handler.js is byte-identical to the 19.14.0 source in the mirror; central-services-shared
 * 18.28.2, the version 19.5.5 pins):
 * - bulk-prepare: the prepare message forwarded from the prepare handler (transfers/handler.js, bulk/prepare
 *   creates one per individual transfer): from payer to payee, payload the transfer as a transfers+json data URI,
 *   no uriParams; key = the payer's position account.
 * - bulk-commit: the fulfil message forwarded by transfers/handler.js processFulfilMessage (case BULK_COMMIT,
 *   messageKey = the payee's position account): from payee to payer, uriParams.id, payload the fulfil data URI.
 * - bulk-abort: transfers/handler.js case BULK_ABORT: Kafka.proceed with the fspiopError, so payload = the
 *   errorInformation object; messageKey = the payer's position account.
 * - bulk-timeout-reserved: timeouts/handler.js _processTimedOutTransfers: createMessage(transferId, payer (to),
 *   payee (from), ..., payload = 3303 errorInformation, uriParams {id}), context {payer, payee}, event type position,
 *   key = payerParticipantCurrencyId.
 * - reject: nothing in 19.5.5 sends it (processFulfilMessage logs "action REJECT is not allowed into fulfil handler"
 *   and stops); handler.js still applies it; built like a bulk-commit from the payee, key = the payer's account.
 * - The answers: central-services-shared Kafka.proceed (src/util/kafka/index.js) forwards message.value with
 *   StreamingProtocol.updateMessageProtocolMetadata (event.responseTo = old id, new id, type = functionality,
 *   action, state) to topic-{functionality}-{action} after Enum.Kafka.TopicMap: bulk-processing/<bulk action> →
 *   topic-bulk-processing, notification/reject → topic-notification-event; with an fspiopError, payload =
 *   errorInformation, uriParams.id set when missing, state {status: 'error', code, description}; fromSwitch: to =
 *   from, from = Hub, fspiop-source/-destination rewritten.
 */
export interface BulkParties {
  readonly transferId: string;
  readonly payer: string;
  readonly payee: string;
  readonly currency: string;
  readonly amount: string;
}

const TRANSFERS = 'application/vnd.interoperability.transfers+json;version=1.1';
const dataUri = (body: unknown) => `data:${TRANSFERS};base64,${Buffer.from(JSON.stringify(body)).toString('base64')}`;

function headers(source: string, destination: string) {
  return {
    accept: TRANSFERS,
    'content-type': TRANSFERS,
    date: '2024-05-02T10:00:00.000Z',
    'fspiop-source': source,
    'fspiop-destination': destination,
    'content-length': 512,
  };
}

function envelope(
  t: BulkParties,
  from: string,
  to: string,
  action: string,
  payload: unknown,
  uriParams?: { id: string },
  context?: Record<string, unknown>,
) {
  return {
    id: t.transferId,
    from,
    to,
    type: 'application/json',
    content: {
      headers: headers(from, to),
      payload,
      ...(uriParams ? { uriParams } : {}),
      ...(context ? { context } : {}),
    },
    metadata: {
      correlationId: t.transferId,
      event: {
        id: randomUUID(),
        type: 'position',
        action,
        createdAt: '2024-05-02T10:00:00.511Z',
        state: { status: 'success', code: 0, description: 'action successful' },
      },
    },
  };
}

export const bulkPreparePayload = (t: BulkParties) => ({
  transferId: t.transferId,
  payerFsp: t.payer,
  payeeFsp: t.payee,
  amount: { currency: t.currency, amount: t.amount },
  ilpPacket:
    'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4wCk5vbmNlOiB1SXlweUYzY3pYSXBFdzVVc05TYWh3CkVuY3J5cHRpb246IG5vbmUKUGF5bWVudC1JZDogMTMyMzZhM2ItOGZhOC00MTYzLTg0NDctNGMzZWQzZGE5OGE3CgpDb250ZW50LUxlbmd0aDogMTM1CkNvbnRlbnQtVHlwZTogYXBwbGljYXRpb24vanNvbgpTZW5kZXItSWRlbnRpZmllcjogOTI4MDYzOTEKCiJ7XCJmZWVcIjowLFwidHJhbnNmZXJDb2RlXCI6XCJpbnZvaWNlXCIsXCJkZWJpdE5hbWVcIjpcImFsaWNlIGNvb3BlclwiLFwiY3JlZGl0TmFtZVwiOlwibWVyIGNoYW50XCIsXCJkZWJpdElkZW50aWZpZXJcIjpcIjkyODA2MzkxXCJ9IgA',
  condition: 'GRzLaTP7DJ9t4P-a_BA0WA9wzzlsugf00-Tn6kESAfM',
  expiration: '2099-01-01T00:00:00.000Z',
});

export const BULK_FULFIL = {
  completedTimestamp: '2024-05-02T10:00:01.000Z',
  transferState: 'COMMITTED',
  fulfilment: 'UNlJ98hZTY_dsw0cAqw4i_UN3v4utt7CZFB4yfLbVFA',
};

export const EXPIRED_ERROR = { errorInformation: { errorCode: '3303', errorDescription: 'Transfer expired' } };
export const PAYEE_ERROR = {
  errorInformation: { errorCode: '5105', errorDescription: 'Payee transaction limit reached' },
};

export const bulkPrepareMessage = (t: BulkParties, key: number) => ({
  key: String(key),
  value: JSON.stringify(envelope(t, t.payer, t.payee, 'bulk-prepare', dataUri(bulkPreparePayload(t)))),
});

export const bulkCommitMessage = (t: BulkParties, key: number) => ({
  key: String(key),
  value: JSON.stringify(envelope(t, t.payee, t.payer, 'bulk-commit', dataUri(BULK_FULFIL), { id: t.transferId })),
});

export const bulkAbortMessage = (t: BulkParties, key: number) => ({
  key: String(key),
  value: JSON.stringify(envelope(t, t.payee, t.payer, 'bulk-abort', PAYEE_ERROR, { id: t.transferId })),
});

export const bulkTimeoutMessage = (t: BulkParties, key: number) => ({
  key: String(key),
  value: JSON.stringify(
    envelope(
      t,
      t.payee,
      t.payer,
      'bulk-timeout-reserved',
      EXPIRED_ERROR,
      { id: t.transferId },
      {
        payer: t.payer,
        payee: t.payee,
      },
    ),
  ),
});

export const rejectMessage = (t: BulkParties, key: number) => ({
  key: String(key),
  value: JSON.stringify(
    envelope(t, t.payee, t.payer, 'reject', dataUri({ ...BULK_FULFIL, transferState: 'ABORTED' }), {
      id: t.transferId,
    }),
  ),
});

/**
 * What Kafka.proceed makes of a message without an error: the same value, metadata.event with responseTo, a new
 * id, the destination's type and state success. `id` is not compared (random).
 */
export function proceeded(sent: string, type: 'bulk-processing' | 'notification', anyId: unknown) {
  const value = JSON.parse(sent);
  const event = value.metadata.event;
  return {
    ...value,
    metadata: {
      ...value.metadata,
      event: {
        ...event,
        responseTo: event.id,
        id: anyId,
        type,
        state: { status: 'success', code: 0, description: 'action successful' },
      },
    },
  };
}
