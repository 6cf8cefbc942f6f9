import type { PositionAction } from '../ledger/types.js';
import { generatePositionMessages, type KeyedMessage } from '../testing/messages.js';

export const CURRENCY = 'USD';
/**
 * The conversions' target currency: not the fx-prepare's cyrilResult's, so fx-prepare reserves the source amount;
 * the dependent transfer is in it (reserved on the FXP's account in it, committed to the creditor's).
 */
export const TARGET_CURRENCY = 'EUR';
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
  /** A conversion's target amount (what its dependent transfer reserves on the FXP). */
  readonly targetAmount?: string;
  /** A conversion's dependent transfer (its determiningTransferId). */
  readonly dependentId?: string;
}

/**
 * One position change of a cyrilResult, as cyril.js builds it: an fxTransfer's (commitRequestId) or a transfer's,
 * on an account, by an amount (the reservation's negation).
 */
export interface SimCyrilChange {
  readonly fx: boolean;
  readonly id: string;
  readonly account: string;
  readonly amount: string;
  /** Aborts only: whom the notification goes to, and whether it is the message's own id. */
  readonly notifyTo?: string;
  readonly isOriginalId?: boolean;
}

const cyrilChange = (c: SimCyrilChange) => ({
  isFxTransferStateChange: c.fx,
  ...(c.fx ? { commitRequestId: c.id } : { transferId: c.id }),
  ...(c.isOriginalId === undefined ? {} : { isOriginalId: c.isOriginalId }),
  ...(c.notifyTo === undefined ? {} : { notifyTo: c.notifyTo }),
  participantCurrencyId: c.account,
  amount: c.amount,
});

/** The message with its content.context.cyrilResult replaced. */
function withCyrilResult(message: KeyedMessage, cyrilResult: Record<string, unknown>): KeyedMessage {
  const envelope = JSON.parse(message.value) as { content: { context?: unknown } };
  envelope.content.context = { cyrilResult };
  return { key: message.key, value: JSON.stringify(envelope) };
}

/**
 * The dependent transfer's commit of a payer-side conversion, as central-ledger's fulfil handler sends it
 * (cyril.js processFulfilMessage, test/fx-fixtures.ts fxCommitMessage): from the creditor to the payer, keyed by the
 * first step's account (the FXP's source-currency account); step 1 commits the fxTransfer there, step 2 (the
 * follow-up the handler puts back on the log, keyed by the creditor's target-currency account) the transfer.
 */
export function fxCommitMessage(
  t: SimParties,
  creditor: string,
  steps: readonly [SimCyrilChange, SimCyrilChange],
  now: Date,
): KeyedMessage {
  const dependentId = t.dependentId ?? t.id;
  const commit = transferMessage(
    { id: dependentId, payer: t.payer, payee: creditor, amount: t.targetAmount ?? t.amount },
    'commit',
    () => steps[0].account,
    now,
    TARGET_CURRENCY,
  );
  return withCyrilResult(commit, {
    isFx: true,
    positionChanges: steps.map(cyrilChange),
    patchNotifications: [
      {
        commitRequestId: t.id,
        fxpName: t.payee,
        fulfilment: 'WLctttbu2HvTsa1XWvUoGRcQozHsqeu9Ahl2JW9Bsu8',
        completedTimestamp: now.toISOString(),
      },
    ],
  });
}

/**
 * The payee's abort of a conversion's dependent transfer once it was reserved (the fulfil handler's
 * processAbortMessage: the fxTransfer's reserved changes, then the transfer's), keyed by the first step's account:
 * step 1 releases the initiating FSP's reservation (aborting the fxTransfer), step 2 (the follow-up, keyed by the
 * FXP's target-currency account) the FXP's (aborting the transfer).
 */
export function payeeTwoStepAbortMessage(
  t: SimParties,
  creditor: string,
  steps: readonly [SimCyrilChange, SimCyrilChange],
  now: Date,
): KeyedMessage {
  const abort = transferMessage(
    { id: t.dependentId ?? t.id, payer: t.payer, payee: creditor, amount: t.targetAmount ?? t.amount },
    'abort',
    () => steps[0].account,
    now,
    TARGET_CURRENCY,
  );
  return withCyrilResult(abort, { positionChanges: steps.map(cyrilChange), transferStateChanges: [] });
}

/**
 * The FXP's fx-abort once the dependent transfer was reserved (cyril.js processFxAbortMessage: the fxTransfer's
 * reserved changes, then the dependent transfer's), keyed by the first step's account (FxFulfilService): step 1
 * releases the initiating FSP's reservation, step 2 (the follow-up, keyed by the FXP's target-currency account)
 * the FXP's.
 */
export function fxTwoStepAbortMessage(
  t: SimParties,
  steps: readonly [SimCyrilChange, SimCyrilChange],
  now: Date,
): KeyedMessage {
  return withCyrilResult(fxMessage(t, 'fx-abort', steps[0].account, now), {
    positionChanges: steps.map(cyrilChange),
    transferStateChanges: [],
  });
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
  currency = CURRENCY,
): KeyedMessage {
  const base = BULK_BASE[action] ?? action;
  const [message] = generatePositionMessages({
    transfers: [{ transferId: t.id, payer: t.payer, payee: t.payee, currency, amount: t.amount }],
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
            determiningTransferId: t.dependentId ?? t.id.replace(/^0/, '1'),
            initiatingFsp: t.payer,
            counterPartyFsp: t.payee,
            sourceAmount: { currency: CURRENCY, amount: t.amount },
            targetAmount: { currency: TARGET_CURRENCY, amount: t.targetAmount ?? t.amount },
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
