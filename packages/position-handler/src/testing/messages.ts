import { randomUUID } from 'node:crypto';
import type { PositionAction } from '../ledger/types.js';
import { SUCCESS_STATE } from '../messages/notify.js';

/** A transfer as the generators and the transfer fixtures (testing/transfers.ts) both describe it. */
export interface GeneratedTransfer {
  readonly transferId: string;
  readonly payer: string;
  readonly payee: string;
  readonly currency: string;
  readonly amount: string;
}

export interface KeyedMessage {
  readonly key: string;
  readonly value: string;
}

const TRANSFERS_CONTENT_TYPE = 'application/vnd.interoperability.transfers+json;version=1.1';

/** A position message's metadata as central-ledger's prepare and fulfil handlers put it on the topic. */
function positionMetadata(correlationId: string, action: string, now: Date) {
  return {
    correlationId,
    event: { id: randomUUID(), type: 'position', action, createdAt: now.toISOString(), state: SUCCESS_STATE },
  };
}

function dataUri(body: unknown): string {
  return `data:${TRANSFERS_CONTENT_TYPE};base64,${Buffer.from(JSON.stringify(body)).toString('base64')}`;
}

function headers(source: string, destination: string, date: Date) {
  return {
    'content-type': TRANSFERS_CONTENT_TYPE,
    accept: TRANSFERS_CONTENT_TYPE,
    date: date.toUTCString(),
    'fspiop-source': source,
    'fspiop-destination': destination,
  };
}

/** `count` transfers between the DFSPs, payer i paying payee i+1, round robin over DFSPs and currencies. */
export function generateTransfers(options: {
  readonly transfers: number;
  readonly dfsps: readonly string[];
  readonly currencies: readonly string[];
  readonly amount?: string;
}): GeneratedTransfer[] {
  const { dfsps, currencies } = options;
  if (dfsps.length < 2) throw new Error('at least two DFSPs');
  return Array.from({ length: options.transfers }, (_, i) => ({
    transferId: randomUUID(),
    payer: dfsps[i % dfsps.length] as string,
    payee: dfsps[(i + 1) % dfsps.length] as string,
    currency: currencies[Math.floor(i / dfsps.length) % currencies.length] as string,
    amount: options.amount ?? '10',
  }));
}

/**
 * Position messages in central-ledger's envelope, as its prepare and fulfil handlers produce them
 * (reference position-examples/in-*.json): the key is the position account (`accountOf(dfsp, currency)`):
 * the payer's for prepare, abort and timeout-reserved, the payee's for commit and reserve.
 */
export function generatePositionMessages(options: {
  readonly transfers: readonly GeneratedTransfer[];
  readonly action: PositionAction;
  readonly accountOf: (dfsp: string, currency: string) => number | string;
  readonly now?: Date;
}): KeyedMessage[] {
  const now = options.now ?? new Date();
  const action = options.action;
  return options.transfers.map((t) => {
    const payerSide =
      action === 'prepare' || action === 'abort' || action === 'abort-validation' || action === 'timeout-reserved';
    const key = String(options.accountOf(payerSide ? t.payer : t.payee, t.currency));
    const metadata = positionMetadata(t.transferId, action, now);
    if (action === 'prepare') {
      const payload = {
        transferId: t.transferId,
        payerFsp: t.payer,
        payeeFsp: t.payee,
        amount: { amount: t.amount, currency: t.currency },
        ilpPacket:
          'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4wCk5vbmNlOiB1SXlweUYzY3pYSXBFdzVVc05TYWh3CkVuY3J5cHRpb246IG5vbmUKUGF5bWVudC1JZDogMTMyMzZhM2ItOGZhOC00MTYzLTg0NDctNGMzZWQzZGE5OGE3CgpDb250ZW50LUxlbmd0aDogMTM1CkNvbnRlbnQtVHlwZTogYXBwbGljYXRpb24vanNvbgpTZW5kZXItSWRlbnRpZmllcjogOTI4MDYzOTEKCiJ7XCJmZWVcIjowLFwidHJhbnNmZXJDb2RlXCI6XCJpbnZvaWNlXCIsXCJkZWJpdE5hbWVcIjpcImFsaWNlIGNvb3BlclwiLFwiY3JlZGl0TmFtZVwiOlwibWVyIGNoYW50XCIsXCJkZWJpdElkZW50aWZpZXJcIjpcIjkyODA2MzkxXCJ9IgA',
        condition: '5m0gq_5dLQlTSSRKQmLpj0MZ1MtWLWgSu1oLGVTJyYs',
        expiration: new Date(now.getTime() + 86_400_000).toISOString(),
      };
      const value = {
        id: t.transferId,
        to: t.payee,
        from: t.payer,
        type: 'application/json',
        content: {
          headers: headers(t.payer, t.payee, now),
          payload: dataUri(payload),
          context: { cyrilResult: { participantName: t.payer, currencyId: t.currency, amount: t.amount } },
        },
        metadata,
      };
      return { key, value: JSON.stringify(value) };
    }
    const fromPayee = action !== 'timeout-reserved';
    const from = fromPayee ? t.payee : t.payer;
    const to = fromPayee ? t.payer : t.payee;
    const payload =
      action === 'commit' || action === 'reserve'
        ? {
            transferState: action === 'commit' ? 'COMMITTED' : 'RESERVED',
            fulfilment: 'lnYe4rYwLthWbzhVyX5cAuDfL1Ulw4WdaTgyGDREysw',
            completedTimestamp: now.toISOString(),
          }
        : action === 'timeout-reserved'
          ? { transferId: t.transferId }
          : { errorInformation: { errorCode: '5100', errorDescription: 'Payee rejected' } };
    const value = {
      id: t.transferId,
      to,
      from,
      type: 'application/json',
      content: {
        uriParams: { id: t.transferId },
        headers: headers(from, to, now),
        payload: dataUri(payload),
        context: { cyrilResult: { isFx: false } },
      },
      metadata,
    };
    return { key, value: JSON.stringify(value) };
  });
}

/**
 * A payer-side conversion and its dependent transfer: `payer` buys `targetAmount` in `targetCurrency` from
 * `fxp` for `sourceAmount` in `sourceCurrency`, then pays `payee` the target amount (transferId).
 */
export interface GeneratedFxTransfer {
  readonly commitRequestId: string;
  /** The dependent transfer (its determiningTransferId). */
  readonly transferId: string;
  readonly payer: string;
  readonly payee: string;
  readonly fxp: string;
  readonly sourceCurrency: string;
  readonly sourceAmount: string;
  readonly targetCurrency: string;
  readonly targetAmount: string;
}

const FX_CONTENT_TYPE = 'application/vnd.interoperability.fxTransfers+json;version=2.0';
const FULFILMENT = 'lnYe4rYwLthWbzhVyX5cAuDfL1Ulw4WdaTgyGDREysw';

/**
 * The position messages of a payer-side conversion as central-ledger 19.x's handlers put them on the position
 * topic (shapes of its unit tests, see test/fx-fixtures.ts): `fx-prepare` keyed by the payer's source-currency
 * account; `prepare` of the dependent transfer keyed by the FXP's target-currency account (cyril.js
 * getParticipantAndCurrencyForTransferMessage: the FXP holds the payer's obligation in the target currency);
 * `commit` of the dependent transfer keyed by the FXP's source-currency account, its cyrilResult committing the
 * fxTransfer there (fx-notify to the FXP) and then the transfer on the payee's target-currency account
 * (cyril.js processFulfilMessage).
 */
export function generateFxPositionMessages(options: {
  readonly transfers: readonly GeneratedFxTransfer[];
  readonly action: 'fx-prepare' | 'prepare' | 'commit';
  readonly accountOf: (dfsp: string, currency: string) => number | string;
  readonly now?: Date;
}): KeyedMessage[] {
  const now = options.now ?? new Date();
  const { action, accountOf } = options;
  return options.transfers.map((t) => {
    const id = action === 'fx-prepare' ? t.commitRequestId : t.transferId;
    const metadata = positionMetadata(id, action, now);
    if (action === 'fx-prepare') {
      const payload = {
        commitRequestId: t.commitRequestId,
        determiningTransferId: t.transferId,
        initiatingFsp: t.payer,
        counterPartyFsp: t.fxp,
        sourceAmount: { currency: t.sourceCurrency, amount: t.sourceAmount },
        targetAmount: { currency: t.targetCurrency, amount: t.targetAmount },
        condition: 'GRzLaTP7DJ9t4P-a_BA0WA9wzzlsugf00-Tn6kESAfM',
        expiration: new Date(now.getTime() + 86_400_000).toISOString(),
      };
      const value = {
        id: t.commitRequestId,
        to: t.fxp,
        from: t.payer,
        type: 'application/json',
        content: {
          uriParams: { id: t.commitRequestId },
          headers: headers(t.payer, t.fxp, now),
          payload: `data:${FX_CONTENT_TYPE};base64,${Buffer.from(JSON.stringify(payload)).toString('base64')}`,
          context: {
            cyrilResult: { participantName: t.payer, currencyId: t.sourceCurrency, amount: t.sourceAmount },
          },
        },
        metadata,
      };
      return { key: String(accountOf(t.payer, t.sourceCurrency)), value: JSON.stringify(value) };
    }
    if (action === 'prepare') {
      const [message] = generatePositionMessages({
        transfers: [
          {
            transferId: t.transferId,
            payer: t.payer,
            payee: t.payee,
            currency: t.targetCurrency,
            amount: t.targetAmount,
          },
        ],
        action: 'prepare',
        accountOf: () => accountOf(t.fxp, t.targetCurrency),
        now,
      });
      const value = JSON.parse((message as KeyedMessage).value);
      value.content.context.cyrilResult = {
        participantName: t.fxp,
        currencyId: t.targetCurrency,
        amount: t.targetAmount,
      };
      return { key: String(accountOf(t.fxp, t.targetCurrency)), value: JSON.stringify(value) };
    }
    const value = {
      id: t.transferId,
      to: t.payer,
      from: t.payee,
      type: 'application/json',
      content: {
        uriParams: { id: t.transferId },
        headers: headers(t.payee, t.payer, now),
        payload: dataUri({ transferState: 'COMMITTED', fulfilment: FULFILMENT, completedTimestamp: now.toISOString() }),
        context: {
          cyrilResult: {
            isFx: true,
            positionChanges: [
              {
                isFxTransferStateChange: true,
                commitRequestId: t.commitRequestId,
                participantCurrencyId: String(accountOf(t.fxp, t.sourceCurrency)),
                amount: `-${t.sourceAmount}`,
              },
              {
                isFxTransferStateChange: false,
                transferId: t.transferId,
                participantCurrencyId: String(accountOf(t.payee, t.targetCurrency)),
                amount: `-${t.targetAmount}`,
              },
            ],
            patchNotifications: [
              {
                commitRequestId: t.commitRequestId,
                fxpName: t.fxp,
                fulfilment: FULFILMENT,
                completedTimestamp: now.toISOString(),
              },
            ],
          },
        },
      },
      metadata,
    };
    return { key: String(accountOf(t.fxp, t.sourceCurrency)), value: JSON.stringify(value) };
  });
}
