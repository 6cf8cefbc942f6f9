import type { PositionAction } from '../ledger/types.js';
import { generatePositionMessages, type KeyedMessage } from '../testing/messages.js';

export const CURRENCY = 'USD';
/** The conversions' target currency: not the cyrilResult's, so fx-prepare reserves the source amount. */
const TARGET_CURRENCY = 'EUR';
/** The errorInformation an abort's sender gives (generatePositionMessages'), passed on in its notification. */
export const ABORT_CODE = '5100';
/** The errorInformation an FXP's fx-abort gives. */
export const FX_ABORT_CODE = '5104';

const FX_CONTENT_TYPE = 'application/vnd.interoperability.fxTransfers+json;version=2.0';

/** A transfer's parties, or a conversion's: payer = initiating FSP, payee = FXP, amount = source amount. */
export interface SimParties {
  readonly id: string;
  readonly payer: string;
  readonly payee: string;
  readonly amount: string;
}

/** The message each bulk action is built from (same envelope and key; the one-at-a-time handler's action). */
const BULK_BASE: Partial<Record<PositionAction, PositionAction>> = {
  'bulk-prepare': 'prepare',
  'bulk-commit': 'commit',
  'bulk-abort': 'abort',
  'bulk-timeout-reserved': 'timeout-reserved',
};

/** A plain or bulk transfer's message, keyed as central-ledger keys it (the payer's account, the payee's for a commit). */
export function transferMessage(
  t: SimParties,
  action: PositionAction,
  accountOf: (dfsp: string) => string,
  now: Date,
): KeyedMessage {
  const base = BULK_BASE[action] ?? action;
  const [message] = generatePositionMessages({
    transfers: [{ transferId: t.id, payer: t.payer, payee: t.payee, currency: CURRENCY, amount: t.amount }],
    action: base,
    accountOf,
    now,
  });
  const { key, value } = message as KeyedMessage;
  if (base === action) return { key, value };
  const envelope = JSON.parse(value) as { metadata: { event: { action: string } } };
  envelope.metadata.event.action = action;
  return { key, value: JSON.stringify(envelope) };
}

/**
 * A conversion's message, as central-ledger 19.x's handlers put it on the position topic (the shapes of
 * test/fx-fixtures.ts), keyed by the initiating FSP's account: fx-prepare reserves the source amount there, and
 * fx-abort (one cyrilResult step, as cyril.js computes it for a conversion whose dependent transfer was never
 * prepared) and fx-timeout-reserved release it there; fx-reserve moves no position.
 */
export function fxMessage(t: SimParties, action: PositionAction, payerAccount: string, now: Date): KeyedMessage {
  const fromFxp = action === 'fx-reserve' || action === 'fx-abort';
  const [from, to] = fromFxp ? [t.payee, t.payer] : [t.payer, t.payee];
  const dataUri = (body: unknown) =>
    `data:${FX_CONTENT_TYPE};base64,${Buffer.from(JSON.stringify(body)).toString('base64')}`;
  const content =
    action === 'fx-prepare'
      ? {
          payload: dataUri({
            commitRequestId: t.id,
            determiningTransferId: t.id.replace(/^0/, '1'),
            initiatingFsp: t.payer,
            counterPartyFsp: t.payee,
            sourceAmount: { currency: CURRENCY, amount: t.amount },
            targetAmount: { currency: TARGET_CURRENCY, amount: t.amount },
            condition: 'GRzLaTP7DJ9t4P-a_BA0WA9wzzlsugf00-Tn6kESAfM',
            expiration: new Date(now.getTime() + 86_400_000).toISOString(),
          }),
          context: { cyrilResult: { participantName: t.payer, currencyId: CURRENCY, amount: t.amount } },
        }
      : action === 'fx-reserve'
        ? {
            uriParams: { id: t.id },
            payload: dataUri({
              fulfilment: 'WLctttbu2HvTsa1XWvUoGRcQozHsqeu9Ahl2JW9Bsu8',
              completedTimestamp: now.toISOString(),
              conversionState: 'RESERVED',
            }),
            context: { cyrilResult: {} },
          }
        : action === 'fx-abort'
          ? {
              uriParams: { id: t.id },
              payload: { errorInformation: { errorCode: FX_ABORT_CODE, errorDescription: 'Payee Rejected' } },
              context: {
                cyrilResult: {
                  positionChanges: [
                    {
                      isFxTransferStateChange: true,
                      commitRequestId: t.id,
                      notifyTo: t.payer,
                      participantCurrencyId: payerAccount,
                      amount: `-${t.amount}`,
                      isOriginalId: true,
                    },
                  ],
                  transferStateChanges: [],
                },
              },
            }
          : { uriParams: { id: t.id }, payload: dataUri({ commitRequestId: t.id }) };
  const value = {
    id: t.id,
    from,
    to,
    type: 'application/json',
    content: {
      headers: {
        'content-type': FX_CONTENT_TYPE,
        accept: FX_CONTENT_TYPE,
        date: now.toUTCString(),
        'fspiop-source': from,
        'fspiop-destination': to,
      },
      ...content,
    },
    metadata: {
      correlationId: t.id,
      event: {
        id: `${t.id}-${action}`,
        type: 'position',
        action,
        createdAt: now.toISOString(),
        state: { status: 'success', code: 0, description: 'action successful' },
      },
    },
  };
  return { key: payerAccount, value: JSON.stringify(value) };
}
