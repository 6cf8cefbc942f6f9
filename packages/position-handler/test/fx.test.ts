import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { describe, expect, it, vi } from 'vitest';
import { generateFxPositionMessages, generatePositionMessages } from '../src/testing/messages.js';
import { type FxTransferSpec, insertFxTransfers, insertTransfers } from '../src/testing/transfers.js';
import {
  FULFIL,
  FX_FULFIL,
  type FxParties,
  fxAbortMessage,
  fxCommitMessage,
  fxPrepareMessage,
  fxPreparePayload,
  fxReserveMessage,
  fxTimeoutMessage,
} from './fx-fixtures.js';
import { errorOf, eventOf, plus, positionOf, produce, reservedThen, statesOf, useLedgerWithTopics } from './helpers.js';

// fxpayer converts USD → EUR at the FXP to pay fxpayee in EUR. capped: a payer with a net debit cap of 100 USD.
const dfsps = [
  { name: 'fxpayer', netDebitCap: '1000', liquidity: '10000' },
  { name: 'fxp', netDebitCap: '1000', liquidity: '10000' },
  { name: 'fxpayee', netDebitCap: '1000', liquidity: '10000' },
  { name: 'fxcapped', netDebitCap: '100', liquidity: '10000' },
];

const account = (name: string, currency = 'USD') => {
  const found = env.ledger.ledger.accounts.get(`${name}:${currency}`);
  if (!found) throw new Error(`${name}:${currency}`);
  return found.position;
};

function parties(initiator = 'fxpayer', sourceAmount = '10', targetAmount = '9'): FxParties {
  return {
    commitRequestId: randomUUID(),
    determiningTransferId: randomUUID(),
    initiator,
    fxp: 'fxp',
    sourceCurrency: 'USD',
    sourceAmount,
    targetCurrency: 'EUR',
    targetAmount,
  };
}

async function provisionFx(fx: FxParties, state: FxTransferSpec['state']) {
  await insertFxTransfers(env.ledger.knex, [{ ...fx, state }], env.ledger.ledger.accounts);
  return fx;
}

/** The transfer `fx` was made for (fxpayer pays 9 EUR to fxpayee), fulfilled and waiting on the fx's commit. */
async function provisionDependentTransfer(fx: FxParties) {
  const transfer = {
    transferId: fx.determiningTransferId,
    payer: 'fxpayer',
    payee: 'fxpayee',
    currency: 'EUR',
    amount: '9',
  };
  await insertTransfers(env.ledger.knex, [{ ...transfer, state: 'RECEIVED_FULFIL' }], env.ledger.ledger.accounts);
  return transfer;
}

async function fxStatesOf(knex: Knex, commitRequestId: string): Promise<string[]> {
  return knex('fxTransferStateChange')
    .where({ commitRequestId })
    .orderBy('fxTransferStateChangeId')
    .pluck('transferStateId');
}

/** Sends the messages and returns the messages about the given ids that arrive after, once all did. */
async function send(batch: { key: string | null; value: string }[], expectIds: string[], count = expectIds.length) {
  const before = env.reader.values.length;
  await produce(env.producer, env.input.name, batch);
  return vi.waitFor(
    () => {
      const fresh = env.reader.values.slice(before).filter((n) => expectIds.includes(String(n.id)));
      expect(fresh.length, 'notifications arrived').toBeGreaterThanOrEqual(count);
      expect(
        expectIds.filter((id) => !fresh.some((n) => n.id === id)),
        'ids without a notification',
      ).toEqual([]);
      return fresh;
    },
    { timeout: 20_000, interval: 20 },
  );
}

const content = (note: Record<string, unknown>) =>
  note.content as {
    uriParams: Record<string, string>;
    headers: Record<string, unknown>;
    payload: Record<string, unknown>;
    context?: Record<string, unknown>;
  };

const env = useLedgerWithTopics(
  'position_fx',
  { currencies: ['USD', 'EUR'], dfsps },
  {
    timeout: 60_000,
    // POSITION.COMMIT pointed at the topic the handler consumes, as a batching deployment does: follow-ups come back.
    service: ({ input }) => ({ positionCommitTopic: input.name }),
  },
);

describe('fx-prepare (fx-prepare.js)', () => {
  it('RECEIVED_PREPARE → RESERVED, + source amount on the initiating FSP, position change naming the fxTransferStateChange, notification initiator → FXP with the fxTransfer', async () => {
    const fx = await provisionFx(parties('fxpayer', '10', '9'), 'RECEIVED_PREPARE');
    const payer = account('fxpayer');
    const before = await positionOf(env.ledger.knex, payer);
    const message = fxPrepareMessage(fx, payer);
    const [note] = await send([message], [fx.commitRequestId]);
    expect(await fxStatesOf(env.ledger.knex, fx.commitRequestId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await positionOf(env.ledger.knex, payer)).toBe((Number(before) + 10).toFixed(4));
    const change = await env.ledger
      .knex('participantPositionChange as ppc')
      .join('fxTransferStateChange as f', 'f.fxTransferStateChangeId', 'ppc.fxTransferStateChangeId')
      .where('f.commitRequestId', fx.commitRequestId)
      .first('ppc.participantCurrencyId', 'ppc.change', 'ppc.transferStateChangeId', 'f.transferStateId');
    expect(change).toEqual({
      participantCurrencyId: payer,
      change: '10.00',
      transferStateChangeId: null,
      transferStateId: 'RESERVED',
    });
    const sent = JSON.parse(message.value);
    // Field by field, as fx-prepare.js builds it: createMessage(commitRequestId, counterPartyFsp, initiatingFsp, ...,
    // headers without content-length, fxTransfer, {}, ..., context); handlerBatch sets type notification, the action.
    expect(note).toMatchObject({ id: fx.commitRequestId, from: 'fxpayer', to: 'fxp', type: 'application/json' });
    const { 'content-length': _dropped, ...headers } = sent.content.headers;
    expect(content(note as never)).toEqual({
      uriParams: {},
      headers,
      payload: fxPreparePayload(fx),
      context: sent.content.context,
    });
    expect(eventOf(note as never)).toMatchObject({
      type: 'notification',
      action: 'fx-prepare',
      state: { status: 'success', code: 0, description: 'action successful' },
    });
    // Redelivered while still RESERVED: a replay, the same notification again and nothing written.
    const [again] = await send([message], [fx.commitRequestId]);
    expect(content(again as never).payload).toEqual(fxPreparePayload(fx));
    expect(await fxStatesOf(env.ledger.knex, fx.commitRequestId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await positionOf(env.ledger.knex, payer)).toBe((Number(before) + 10).toFixed(4));
  });

  it('a mixed batch of plain and FX prepares of one payer crossing its net debit cap (100): exactly the ones that fit are RESERVED', async () => {
    const payer = account('fxcapped');
    const plain = [
      { transferId: randomUUID(), payer: 'fxcapped', payee: 'fxpayee', currency: 'USD', amount: '40' },
      { transferId: randomUUID(), payer: 'fxcapped', payee: 'fxpayee', currency: 'USD', amount: '20' },
    ];
    await insertTransfers(
      env.ledger.knex,
      plain.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
      env.ledger.ledger.accounts,
    );
    const fx1 = await provisionFx(parties('fxcapped', '40', '36'), 'RECEIVED_PREPARE');
    const fx2 = await provisionFx(parties('fxcapped', '30', '27'), 'RECEIVED_PREPARE');
    const [p1, p2] = generatePositionMessages({ transfers: plain, action: 'prepare', accountOf: () => payer });
    // 40 (plain) + 40 (FX) = 80; 30 (FX) would make 110 > 100: 4200; 20 (plain) makes 100: fits.
    const notes = await send(
      [p1, fxPrepareMessage(fx1, payer), fxPrepareMessage(fx2, payer), p2] as { key: string; value: string }[],
      [plain[0]?.transferId, fx1.commitRequestId, fx2.commitRequestId, plain[1]?.transferId] as string[],
    );
    expect(await statesOf(env.ledger.knex, plain[0]?.transferId as string)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await fxStatesOf(env.ledger.knex, fx1.commitRequestId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await fxStatesOf(env.ledger.knex, fx2.commitRequestId)).toEqual(['RECEIVED_PREPARE', 'ABORTED_REJECTED']);
    expect(await statesOf(env.ledger.knex, plain[1]?.transferId as string)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await positionOf(env.ledger.knex, payer)).toBe('100.0000');
    const reason = await env.ledger
      .knex('fxTransferStateChange')
      .where({ commitRequestId: fx2.commitRequestId, transferStateId: 'ABORTED_REJECTED' })
      .first('reason');
    expect(reason?.reason).toBe('Payer limit error');
    const rejected = notes.find((n) => n.id === fx2.commitRequestId) as Record<string, unknown>;
    // fx-prepare.js: createMessage(commitRequestId, initiatingFsp, Hub, ..., headers with fspiop-source Hub and
    // fspiop-destination initiatingFsp, error, {id}, ...).
    expect(rejected).toMatchObject({ from: 'Hub', to: 'fxcapped' });
    expect(content(rejected).uriParams).toEqual({ id: fx2.commitRequestId });
    expect(content(rejected).headers).toMatchObject({ 'fspiop-source': 'Hub', 'fspiop-destination': 'fxcapped' });
    expect(errorOf(rejected)).toMatchObject({ errorCode: '4200', errorDescription: 'Payer limit error' });
    expect(eventOf(rejected)).toMatchObject({ action: 'fx-prepare', state: { status: 'error' } });
  });

  it('bad input: an fx-prepare without cyrilResult gets 2001 from the Hub to the initiating FSP, nothing written', async () => {
    const fx = await provisionFx(parties(), 'RECEIVED_PREPARE');
    const payer = account('fxpayer');
    const before = await positionOf(env.ledger.knex, payer);
    const [note] = await send([fxPrepareMessage(fx, payer, null)], [fx.commitRequestId]);
    expect(note).toMatchObject({ from: 'Hub', to: 'fxpayer' });
    expect(errorOf(note as never)?.errorCode).toBe('2001');
    expect(await fxStatesOf(env.ledger.knex, fx.commitRequestId)).toEqual(['RECEIVED_PREPARE']);
    expect(await positionOf(env.ledger.knex, payer)).toBe(before);
  });
});

describe('redelivery after the fxTransfer moved on', () => {
  it('an fx-prepare redelivered after its fxTransfer was committed: 2001 from the Hub to the initiating FSP, nothing written (no second fx-prepare to the FXP)', async () => {
    const fx = await provisionFx(parties(), 'RECEIVED_FULFIL_DEPENDENT');
    await env.ledger
      .knex('fxTransferStateChange')
      .insert({ commitRequestId: fx.commitRequestId, transferStateId: 'COMMITTED' });
    const payer = account('fxpayer');
    const before = await positionOf(env.ledger.knex, payer);
    const [note] = await send([fxPrepareMessage(fx, payer)], [fx.commitRequestId]);
    expect(note).toMatchObject({ from: 'Hub', to: 'fxpayer' });
    expect(errorOf(note as never)?.errorCode).toBe('2001');
    expect(await fxStatesOf(env.ledger.knex, fx.commitRequestId)).toEqual(
      reservedThen('RECEIVED_FULFIL_DEPENDENT', 'COMMITTED'),
    );
    expect(await positionOf(env.ledger.knex, payer)).toBe(before);
  });
});

describe('fx-reserve (fx-fulfil.js)', () => {
  it('RECEIVED_FULFIL_DEPENDENT: no state or position change, notification FXP → initiating FSP with the fulfil', async () => {
    const fx = await provisionFx(parties(), 'RECEIVED_FULFIL_DEPENDENT');
    const fxpAccount = account('fxp');
    const before = await positionOf(env.ledger.knex, fxpAccount);
    const [note] = await send([fxReserveMessage(fx, fxpAccount)], [fx.commitRequestId]);
    expect(note).toMatchObject({ id: fx.commitRequestId, from: 'fxp', to: 'fxpayer' });
    expect(content(note as never).uriParams).toEqual({ id: fx.commitRequestId });
    expect(content(note as never).payload).toEqual(FX_FULFIL);
    expect(content(note as never).headers['content-length']).toBeUndefined();
    expect(eventOf(note as never)).toMatchObject({ action: 'fx-reserve', state: { status: 'success' } });
    expect(await fxStatesOf(env.ledger.knex, fx.commitRequestId)).toEqual(reservedThen('RECEIVED_FULFIL_DEPENDENT'));
    expect(await positionOf(env.ledger.knex, fxpAccount)).toBe(before);
  });

  it('in a wrong state (RECEIVED_PREPARE): ABORTED_REJECTED "FxFulfil in incorrect state" and 2001 from the Hub to the FXP', async () => {
    const fx = await provisionFx(parties(), 'RECEIVED_PREPARE');
    const [note] = await send([fxReserveMessage(fx, account('fxp'))], [fx.commitRequestId]);
    expect(note).toMatchObject({ from: 'Hub', to: 'fxp' });
    expect(errorOf(note as never)).toMatchObject({
      errorCode: '2001',
      errorDescription: 'Internal server error - Invalid State: RECEIVED_PREPARE - expected: RECEIVED_FULFIL_DEPENDENT',
    });
    expect(await fxStatesOf(env.ledger.knex, fx.commitRequestId)).toEqual(['RECEIVED_PREPARE', 'ABORTED_REJECTED']);
  });
});

describe('commit with cyrilResult (fulfil.js): payer-side conversion', () => {
  it('step 1 commits the fxTransfer on the FXP (fx-notify to the FXP, follow-up on POSITION.COMMIT keyed by the payee), step 2 the transfer (commit notification to the payer)', async () => {
    const fx = await provisionFx(parties('fxpayer', '10', '9'), 'RECEIVED_FULFIL_DEPENDENT');
    const transfer = await provisionDependentTransfer(fx);
    const fxpUsd = account('fxp', 'USD');
    const payeeEur = account('fxpayee', 'EUR');
    const before = {
      fxp: await positionOf(env.ledger.knex, fxpUsd),
      payee: await positionOf(env.ledger.knex, payeeEur),
    };
    const patch = {
      commitRequestId: fx.commitRequestId,
      fxpName: 'fxp',
      fulfilment: FX_FULFIL.fulfilment,
      completedTimestamp: FX_FULFIL.completedTimestamp,
    };
    // cyril.js processFulfilMessage for a PAYER_CONVERSION: the FXP's source-currency change, then the payee's.
    const cyrilResult = {
      isFx: true,
      positionChanges: [
        {
          isFxTransferStateChange: true,
          commitRequestId: fx.commitRequestId,
          participantCurrencyId: String(fxpUsd),
          amount: '-10',
        },
        {
          isFxTransferStateChange: false,
          transferId: transfer.transferId,
          participantCurrencyId: String(payeeEur),
          amount: '-9',
        },
      ],
      patchNotifications: [patch],
    };
    const message = fxCommitMessage(transfer, fxpUsd, cyrilResult);
    const notes = await send([message], [fx.commitRequestId, transfer.transferId]);
    const fxNotify = notes.find((n) => n.id === fx.commitRequestId) as Record<string, unknown>;
    const commit = notes.find((n) => n.id === transfer.transferId) as Record<string, unknown>;

    expect(await fxStatesOf(env.ledger.knex, fx.commitRequestId)).toEqual(
      reservedThen('RECEIVED_FULFIL_DEPENDENT', 'COMMITTED'),
    );
    expect(await statesOf(env.ledger.knex, transfer.transferId)).toEqual(reservedThen('RECEIVED_FULFIL', 'COMMITTED'));
    expect(await positionOf(env.ledger.knex, fxpUsd)).toBe((Number(before.fxp) - 10).toFixed(4));
    expect(await positionOf(env.ledger.knex, payeeEur)).toBe((Number(before.payee) - 9).toFixed(4));

    const sent = JSON.parse(message.value);
    const doneFirst = {
      cyrilResult: {
        ...cyrilResult,
        positionChanges: [{ ...cyrilResult.positionChanges[0], isDone: true }, cyrilResult.positionChanges[1]],
      },
    };
    // fx-notify: createMessage(commitRequestId, fxpName, Hub, ..., {...headers, fspiop-source: Hub,
    // fspiop-destination: fxpName}, {conversionState: COMMITTED, fulfilment, completedTimestamp}, {id}, ..., context).
    expect(fxNotify).toMatchObject({ from: 'Hub', to: 'fxp' });
    expect(content(fxNotify)).toEqual({
      uriParams: { id: fx.commitRequestId },
      headers: { ...sent.content.headers, 'fspiop-source': 'Hub', 'fspiop-destination': 'fxp' },
      payload: {
        conversionState: 'COMMITTED',
        fulfilment: patch.fulfilment,
        completedTimestamp: patch.completedTimestamp,
      },
      context: doneFirst,
    });
    expect(eventOf(fxNotify)).toMatchObject({
      type: 'notification',
      action: 'fx-notify',
      state: { status: 'success' },
    });
    // The commit notification once the last step is done (from the follow-up): payee → payer with the fulfil.
    const { 'content-length': _dropped, ...headers } = sent.content.headers;
    expect(commit).toMatchObject({ from: 'fxpayee', to: 'fxpayer' });
    expect(content(commit)).toEqual({
      uriParams: { id: transfer.transferId },
      headers,
      payload: FULFIL,
      context: {
        cyrilResult: {
          ...cyrilResult,
          positionChanges: cyrilResult.positionChanges.map((c) => ({ ...c, isDone: true })),
        },
      },
    });
    expect(eventOf(commit)).toMatchObject({ type: 'notification', action: 'commit', state: { status: 'success' } });

    // The follow-up went to POSITION.COMMIT (here the input topic), keyed by the payee's EUR account: the input
    // topic holds the commit we sent (keyed by the FXP) and that one follow-up.
    const onInput = await readTopic(env.input.name, (v) => v.id === transfer.transferId);
    expect(onInput.map((m) => m.key)).toEqual([String(fxpUsd), String(payeeEur)]);
    const followUp = onInput[1]?.value as Record<string, unknown>;
    expect(followUp).toMatchObject({ from: 'fxpayee', to: 'fxpayer' });
    expect(eventOf(followUp)).toMatchObject({ type: 'position', action: 'commit', state: { status: 'success' } });
    expect(content(followUp)).toEqual({
      uriParams: { id: transfer.transferId },
      headers,
      payload: FULFIL,
      context: doneFirst,
    });
  });

  it('bad input: a cyrilResult step naming another account than the key gets 2001, nothing written', async () => {
    const fx = await provisionFx(parties(), 'RECEIVED_FULFIL_DEPENDENT');
    const transfer = await provisionDependentTransfer(fx);
    const cyrilResult = {
      isFx: true,
      positionChanges: [
        {
          isFxTransferStateChange: true,
          commitRequestId: fx.commitRequestId,
          participantCurrencyId: '999999',
          amount: '-10',
        },
      ],
      patchNotifications: [],
    };
    const [note] = await send([fxCommitMessage(transfer, account('fxp'), cyrilResult)], [transfer.transferId]);
    expect(note).toMatchObject({ from: 'Hub', to: 'fxpayee' });
    expect(errorOf(note as never)?.errorCode).toBe('2001');
    expect((await fxStatesOf(env.ledger.knex, fx.commitRequestId)).at(-1)).toBe('RECEIVED_FULFIL_DEPENDENT');
    expect((await statesOf(env.ledger.knex, transfer.transferId)).at(-1)).toBe('RECEIVED_FULFIL');
  });
});

describe('fx-timeout-reserved (fx-timeout-reserved.js) and fx-abort (abort.js)', () => {
  it('fx-timeout-reserved: RESERVED_TIMEOUT → EXPIRED_RESERVED "Transfer expired", the reservation subtracted, 3303 initiating FSP → FXP', async () => {
    const payer = account('fxpayer');
    const before = await positionOf(env.ledger.knex, payer);
    // insertFxTransfers leaves the reservation: + 10 on the payer.
    const fx = await provisionFx(parties('fxpayer', '10', '9'), 'RESERVED_TIMEOUT');
    expect(await positionOf(env.ledger.knex, payer)).toBe((Number(before) + 10).toFixed(4));
    const message = fxTimeoutMessage(fx, payer);
    const [note] = await send([message], [fx.commitRequestId]);
    expect(await fxStatesOf(env.ledger.knex, fx.commitRequestId)).toEqual(
      reservedThen('RESERVED_TIMEOUT', 'EXPIRED_RESERVED'),
    );
    expect(await positionOf(env.ledger.knex, payer)).toBe(before);
    const reason = await env.ledger
      .knex('fxTransferStateChange')
      .where({ commitRequestId: fx.commitRequestId, transferStateId: 'EXPIRED_RESERVED' })
      .first('reason');
    expect(reason?.reason).toBe('Transfer expired');
    // The change is the position's move (-10), as every other row's; the original writes +10 here (a listed
    // difference): the payer's position still ends equal in both.
    const expiry = await env.ledger
      .knex('participantPositionChange as ppc')
      .join('fxTransferStateChange as fsc', 'fsc.fxTransferStateChangeId', 'ppc.fxTransferStateChangeId')
      .where({ 'fsc.commitRequestId': fx.commitRequestId, 'fsc.transferStateId': 'EXPIRED_RESERVED' })
      .first('ppc.change');
    expect(Number(expiry?.change)).toBe(-10);
    expect(note).toMatchObject({ from: 'fxpayer', to: 'fxp' });
    expect(content(note as never).uriParams).toEqual({ id: fx.commitRequestId });
    expect(errorOf(note as never)).toMatchObject({ errorCode: '3303', errorDescription: 'Transfer expired' });
    expect(eventOf(note as never)).toMatchObject({ action: 'fx-timeout-reserved', state: { status: 'error' } });
    // Redelivered: replayed, nothing subtracted twice.
    const [again] = await send([message], [fx.commitRequestId]);
    expect(errorOf(again as never)?.errorCode).toBe('3303');
    expect(await positionOf(env.ledger.knex, payer)).toBe(before);
  });

  it("fx-abort: RECEIVED_ERROR → ABORTED_ERROR, the reservation released, the FXP's error to the notifyTo of each position change", async () => {
    const payer = account('fxpayer');
    const before = await positionOf(env.ledger.knex, payer);
    const fx = await provisionFx(parties('fxpayer', '10', '9'), 'RECEIVED_ERROR');
    const cyrilResult = {
      positionChanges: [
        {
          isFxTransferStateChange: true,
          commitRequestId: fx.commitRequestId,
          isOriginalId: true,
          notifyTo: 'fxpayer',
          participantCurrencyId: payer,
          amount: -10,
        },
      ],
      transferStateChanges: [],
    };
    const message = fxAbortMessage(fx, payer, cyrilResult);
    const [note] = await send([message], [fx.commitRequestId]);
    expect(await fxStatesOf(env.ledger.knex, fx.commitRequestId)).toEqual(
      reservedThen('RECEIVED_ERROR', 'ABORTED_ERROR'),
    );
    expect(await positionOf(env.ledger.knex, payer)).toBe(before);
    const sent = JSON.parse(message.value);
    // abort.js _constructAbortResultMessage: createMessage(id, notifyTo, from, ..., headers as they are, error,
    // {id}, ..., context + isOriginalId).
    expect(note).toMatchObject({ id: fx.commitRequestId, from: 'fxp', to: 'fxpayer' });
    expect(content(note as never)).toMatchObject({
      uriParams: { id: fx.commitRequestId },
      headers: sent.content.headers,
      context: {
        cyrilResult: { ...cyrilResult, positionChanges: [{ ...cyrilResult.positionChanges[0], isDone: true }] },
        isOriginalId: true,
      },
    });
    // central-ledger 19.14.0 passes the sender's errorInformation on (the fixture's 5104).
    expect(errorOf(note as never)?.errorCode).toBe('5104');
    expect(eventOf(note as never)).toMatchObject({ action: 'fx-abort', state: { status: 'error' } });
  });

  it('two-step fx-abort with the dependent transfer RESERVED: step 1 releases the payer on the fxTransfer, the follow-up (keyed by the FXP) releases the FXP on the transfer, both ABORTED_ERROR, the FXP error to the payer for each; redelivered: nothing moved twice', async () => {
    const payerUsd = account('fxpayer');
    const fxpEur = account('fxp', 'EUR');
    const before = {
      payer: await positionOf(env.ledger.knex, payerUsd),
      fxp: await positionOf(env.ledger.knex, fxpEur),
    };
    // The payer's USD reservation of the conversion (+10), left by insertFxTransfers.
    const fx = await provisionFx(parties('fxpayer', '10', '9'), 'RECEIVED_ERROR');
    // The dependent transfer reserved through this handler as cyril.js routes a payer-side conversion's prepare:
    // keyed by the FXP's EUR account, + 9 there.
    const transfer = {
      transferId: fx.determiningTransferId,
      payer: 'fxpayer',
      payee: 'fxpayee',
      currency: 'EUR',
      amount: '9',
    };
    await insertTransfers(env.ledger.knex, [{ ...transfer, state: 'RECEIVED_PREPARE' }], env.ledger.ledger.accounts);
    await send(generatePositionMessages({ transfers: [transfer], action: 'prepare', accountOf: () => fxpEur }), [
      transfer.transferId,
    ]);
    expect(await statesOf(env.ledger.knex, transfer.transferId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await positionOf(env.ledger.knex, fxpEur)).toBe(plus(before.fxp, '9'));

    // cyril.js processFxAbortMessage: the fxTransfer's reserved changes first, then the dependent transfer's.
    const cyrilResult = {
      positionChanges: [
        {
          isFxTransferStateChange: true,
          commitRequestId: fx.commitRequestId,
          isOriginalId: true,
          notifyTo: 'fxpayer',
          participantCurrencyId: payerUsd,
          amount: -10,
        },
        {
          isFxTransferStateChange: false,
          transferId: transfer.transferId,
          isOriginalId: false,
          notifyTo: 'fxpayer',
          participantCurrencyId: fxpEur,
          amount: -9,
        },
      ],
      transferStateChanges: [],
    };
    const message = fxAbortMessage(fx, payerUsd, cyrilResult);
    const notes = await send([message], [fx.commitRequestId, transfer.transferId]);

    expect(await fxStatesOf(env.ledger.knex, fx.commitRequestId)).toEqual(
      reservedThen('RECEIVED_ERROR', 'ABORTED_ERROR'),
    );
    expect(await statesOf(env.ledger.knex, transfer.transferId)).toEqual([
      'RECEIVED_PREPARE',
      'RESERVED',
      'ABORTED_ERROR',
    ]);
    expect(await positionOf(env.ledger.knex, payerUsd)).toBe(before.payer);
    expect(await positionOf(env.ledger.knex, fxpEur)).toBe(before.fxp);
    // abort.js once the last step is done: the FXP's error (5104) per position change, to its notifyTo; from the FXP for the
    // message's own fxTransfer, from the Hub for the transfer.
    expect(notes.map((n) => errorOf(n as never)?.errorCode)).toEqual(['5104', '5104']);
    expect(notes.find((n) => n.id === fx.commitRequestId)).toMatchObject({ from: 'fxp', to: 'fxpayer' });
    expect(notes.find((n) => n.id === transfer.transferId)).toMatchObject({ from: 'Hub', to: 'fxpayer' });
    for (const note of notes) expect(eventOf(note as never)).toMatchObject({ action: 'fx-abort' });

    // The follow-up went to POSITION.COMMIT (the input topic here), keyed by the FXP's EUR account.
    const onInput = await readTopic(env.input.name, (v) => v.id === fx.commitRequestId);
    expect(onInput.map((m) => m.key)).toEqual([String(payerUsd), String(fxpEur)]);

    // The first message redelivered: both steps replayed (the follow-up sent again), nothing moved twice.
    const again = await send([message], [fx.commitRequestId, transfer.transferId]);
    expect(again.map((n) => errorOf(n as never)?.errorCode)).toEqual(['5104', '5104']);
    expect(await positionOf(env.ledger.knex, payerUsd)).toBe(before.payer);
    expect(await positionOf(env.ledger.knex, fxpEur)).toBe(before.fxp);
    expect((await statesOf(env.ledger.knex, transfer.transferId)).filter((s) => s === 'ABORTED_ERROR')).toHaveLength(1);
  });

  it('bad input: an fx-abort without cyrilResult.positionChanges gets 2001 (abort.js throws), nothing written', async () => {
    const fx = await provisionFx(parties(), 'RECEIVED_ERROR');
    const [note] = await send([fxAbortMessage(fx, account('fxpayer'), {})], [fx.commitRequestId]);
    expect(errorOf(note as never)?.errorCode).toBe('2001');
    expect((await fxStatesOf(env.ledger.knex, fx.commitRequestId)).at(-1)).toBe('RECEIVED_ERROR');
  });
});

/** Every message of a topic (from the start) that `match` accepts, with its key. */
async function readTopic(topic: string, match: (value: Record<string, unknown>) => boolean) {
  const { testKafka } = await import('@mojafast/testkit');
  const consumer = testKafka().consumer({ groupId: `${topic}-check-${randomUUID()}`, maxWaitTimeInMs: 50 });
  const found: { key: string; value: Record<string, unknown> }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    const admin = testKafka().admin();
    await admin.connect();
    const end = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    const last = Number(end[0]?.high ?? 0);
    let seen = 0;
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen = Number(message.offset) + 1;
          const value = JSON.parse(String(message.value)) as Record<string, unknown>;
          if (match(value)) found.push({ key: String(message.key), value });
          if (seen >= last) resolve();
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return found;
}

describe('generateFxPositionMessages (the generator bench:position uses)', () => {
  it('fx-prepare, dependent prepare and commit of a payer-side conversion: every account moved as the original moves it, notified once each', async () => {
    const t = {
      commitRequestId: randomUUID(),
      transferId: randomUUID(),
      payer: 'fxpayer',
      payee: 'fxpayee',
      fxp: 'fxp',
      sourceCurrency: 'USD',
      sourceAmount: '5',
      targetCurrency: 'EUR',
      targetAmount: '4',
    };
    await insertFxTransfers(
      env.ledger.knex,
      [{ ...t, determiningTransferId: t.transferId, initiator: t.payer, state: 'RECEIVED_PREPARE' }],
      env.ledger.ledger.accounts,
    );
    await insertTransfers(
      env.ledger.knex,
      [
        {
          transferId: t.transferId,
          payer: t.payer,
          payee: t.payee,
          currency: 'EUR',
          amount: '4',
          state: 'RECEIVED_PREPARE',
        },
      ],
      env.ledger.ledger.accounts,
    );
    const accountOf = (dfsp: string, currency: string) => account(dfsp, currency);
    const positions = async () =>
      Promise.all(
        [
          ['fxpayer', 'USD'],
          ['fxp', 'EUR'],
          ['fxp', 'USD'],
          ['fxpayee', 'EUR'],
        ].map(([dfsp, currency]) => positionOf(env.ledger.knex, account(dfsp as string, currency))),
      );
    const [payerUsd = 0, fxpEur = 0, fxpUsd = 0, payeeEur = 0] = (await positions()).map(Number);
    const prepared = await send(
      [
        ...generateFxPositionMessages({ transfers: [t], action: 'fx-prepare', accountOf }),
        ...generateFxPositionMessages({ transfers: [t], action: 'prepare', accountOf }),
      ],
      [t.commitRequestId, t.transferId],
    );
    expect(prepared.map((n) => eventOf(n).state.status)).toEqual(['success', 'success']);
    await env.ledger
      .knex('fxTransferStateChange')
      .insert({ commitRequestId: t.commitRequestId, transferStateId: 'RECEIVED_FULFIL_DEPENDENT' });
    await env.ledger
      .knex('transferStateChange')
      .insert({ transferId: t.transferId, transferStateId: 'RECEIVED_FULFIL' });
    const committed = await send(generateFxPositionMessages({ transfers: [t], action: 'commit', accountOf }), [
      t.commitRequestId,
      t.transferId,
    ]);
    expect(committed.map((n) => eventOf(n).action).sort()).toEqual(['commit', 'fx-notify']);
    // +5 USD on the payer (fx-prepare); +4 EUR on the FXP (dependent prepare), then -5 USD on the FXP and
    // -4 EUR on the payee (commit's two steps).
    expect((await positions()).map(Number)).toEqual([payerUsd + 5, fxpEur + 4, fxpUsd - 5, payeeEur - 4]);
    expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(reservedThen('RECEIVED_FULFIL', 'COMMITTED'));
  });
});
