import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fxTransferBody, newSecret, transferBody } from '../src/bodies.js';
import { decodePayload, type NotificationValue, notificationCallbacks } from '../src/callbacks.js';
import { type Difference, judge, loadDifferences, renderInto } from '../src/differences.js';
import { errorMessage, fulfilMessage, getMessage, prepareMessage } from '../src/envelope.js';
import type { Observation } from '../src/scenarios.js';

// The pieces that need no switch: ml-api-adapter's envelopes, its notification handler's callbacks, the
// differences list and the table rendered from it (position-handler docs/differences.md).
describe("ml-api-adapter's messages", () => {
  const secret = newSecret();
  const body = transferBody({ payer: 'dfspa', payee: 'dfspb', currency: 'USD', amount: '10.5' }, secret);

  it('POST /transfers: the prepare topic, no key, the raw body as a data URI with its content-type', () => {
    const m = prepareMessage('p-', body);
    expect(m.topic).toBe('p-topic-transfer-prepare');
    expect(m.key).toBeNull();
    const v = JSON.parse(m.value);
    expect(v).toMatchObject({
      from: 'dfspa',
      to: 'dfspb',
      id: body.transferId,
      type: 'application/json',
      content: { uriParams: { id: body.transferId }, context: {} },
      metadata: {
        correlationId: body.transferId,
        event: { type: 'prepare', action: 'prepare', state: { status: 'success', code: 0 } },
      },
    });
    expect(v.content.payload).toMatch(/^data:application\/vnd\.interoperability\.transfers\+json;version=1\.1;base64,/);
    expect(decodePayload(v.content.payload)).toEqual(body);
    expect(v.content.headers).toMatchObject({ 'fspiop-source': 'dfspa', 'fspiop-destination': 'dfspb' });
  });

  it('the condition is the SHA-256 of the fulfilment, as the fulfil handler checks', () => {
    const digest = createHash('sha256').update(Buffer.from(secret.fulfilment, 'base64url')).digest('base64url');
    expect(body.condition).toBe(digest);
  });

  it('PUT /transfers/{id}: the fulfil topic, the action from transferState; errors are aborts', () => {
    const commit = fulfilMessage('', body.transferId, 'dfspb', 'dfspa', { transferState: 'COMMITTED' });
    expect(commit.topic).toBe('topic-transfer-fulfil');
    expect(commit.envelope.metadata.event).toMatchObject({ type: 'fulfil', action: 'commit' });
    expect(fulfilMessage('', 'x', 'b', 'a', { transferState: 'RESERVED' }).envelope.metadata.event.action).toBe(
      'reserve',
    );
    expect(fulfilMessage('', 'x', 'b', 'a', { transferState: 'ABORTED' }).envelope.metadata.event.action).toBe(
      'reject',
    );
    expect(fulfilMessage('', 'x', 'b', 'a', { conversionState: 'RESERVED' }).envelope.metadata.event.action).toBe(
      'fx-reserve',
    );
    const error = errorMessage('', 'fxTransfers', 'x', 'fxp', 'a', {
      errorInformation: { errorCode: '5100', errorDescription: 'no' },
    });
    expect(error.topic).toBe('topic-transfer-fulfil');
    expect(error.envelope.metadata.event.action).toBe('fx-abort');
    expect(error.envelope.content.headers['content-type']).toContain('fxTransfers+json;version=2.0');
  });

  it('POST /fxTransfers goes to the prepare topic as fx-prepare; GET to the get topic with an empty payload', () => {
    const fx = fxTransferBody(
      {
        payer: 'a',
        fxp: 'f',
        source: { currency: 'USD', amount: '1' },
        target: { currency: 'EUR', amount: '1' },
        determiningTransferId: body.transferId,
      },
      secret,
    );
    const m = prepareMessage('', fx);
    expect(m.topic).toBe('topic-transfer-prepare');
    expect(m.envelope).toMatchObject({
      from: 'a',
      to: 'f',
      id: fx.commitRequestId,
      metadata: { event: { action: 'fx-prepare' } },
    });
    const get = getMessage('', 'transfers', body.transferId, 'dfspa', 'dfspb');
    expect(get.topic).toBe('topic-transfer-get');
    expect(get.envelope.content.payload).toEqual({});
  });
});

describe("ml-api-adapter's notification handler", () => {
  const note = (
    action: string,
    status: string,
    over: Partial<NotificationValue['content']> = {},
  ): NotificationValue => ({
    from: 'payer',
    to: 'payee',
    content: { uriParams: { id: 't' }, headers: {}, payload: { transferState: 'COMMITTED' }, context: {}, ...over },
    metadata: { event: { action, state: { status } } },
  });

  it('commit: the payee-side PUT to the payer, and the payee told by the Hub', () => {
    const out = notificationCallbacks({ ...note('commit', 'success'), from: 'payee', to: 'payer' });
    expect(out).toMatchObject({
      ok: true,
      callbacks: [
        { fsp: 'payer', kind: 'PUT', source: 'payee' },
        { fsp: 'payee', kind: 'PUT', source: 'Hub' },
      ],
    });
  });

  it('reserve: PUT to the payer from the Hub, PATCH to the payee without the fulfilment', () => {
    const out = notificationCallbacks({
      ...note('reserve', 'success', { payload: { fulfilment: 'f', transferState: 'COMMITTED' } }),
      from: 'payee',
      to: 'payer',
    });
    expect(out.ok && out.callbacks.map((c) => [c.fsp, c.kind, c.source, c.body])).toEqual([
      ['payer', 'PUT', 'Hub', { fulfilment: 'f', transferState: 'COMMITTED' }],
      ['payee', 'PATCH', 'Hub', { transferState: 'COMMITTED' }],
    ]);
  });

  it('a prepare error goes to the payer as PUT .../error; a notification without context is refused', () => {
    expect(notificationCallbacks({ ...note('prepare', 'error'), from: 'Hub', to: 'payer' })).toMatchObject({
      callbacks: [{ fsp: 'payer', kind: 'PUT_ERROR', source: 'Hub' }],
    });
    const { context: _none, ...noContext } = note('commit', 'success').content;
    expect(notificationCallbacks({ ...note('commit', 'success'), content: noContext })).toMatchObject({ ok: false });
    // timeout-reserved is the switch's own: no context needed; payer and payee both told.
    expect(
      notificationCallbacks({ ...note('timeout-reserved', 'error'), content: noContext, from: 'payee', to: 'payer' }),
    ).toMatchObject({
      ok: true,
      callbacks: [
        { fsp: 'payer', kind: 'PUT_ERROR' },
        { fsp: 'payee', kind: 'PUT_ERROR' },
      ],
    });
  });
});

describe('the differences list', () => {
  const obs = (scenario: string, positions: Record<string, string>): Observation => ({
    scenario,
    notifications: ['T1 commit success: payer PUT from payee'],
    positions,
    states: { T1: 'COMMITTED' },
    refused: [],
    callbacks: [],
  });
  const listed: Difference = {
    scenario: 'b',
    ours: ['position payer USD = 1'],
    original: ['position payer USD = 2'],
    reason: 'r',
  };

  it('accepts a listed difference, reports an unlisted one and a listed one that did not happen', () => {
    const ours = [obs('a', { 'payer USD': '1' }), obs('b', { 'payer USD': '1' })];
    expect(judge(ours, [obs('a', { 'payer USD': '1' }), obs('b', { 'payer USD': '2' })], [listed])).toMatchObject({
      unexpected: [],
      stale: [],
    });
    expect(judge(ours, [obs('a', { 'payer USD': '3' }), obs('b', { 'payer USD': '1' })], [listed])).toMatchObject({
      unexpected: [{ scenario: 'a', ours: ['position payer USD = 1'], original: ['position payer USD = 3'] }],
      stale: [listed],
    });
    expect(
      judge(ours, [obs('a', { 'payer USD': '1' }), obs('b', { 'payer USD': '9' })], [{ ...listed, pending: 'a fix' }])
        .pending,
    ).toHaveLength(1);
  });

  it("the position handler's docs/differences.md table is the list rendered", () => {
    const page = readFileSync(new URL('../../position-handler/docs/differences.md', import.meta.url), 'utf8');
    expect(renderInto(page, loadDifferences())).toBe(page);
  });
});
