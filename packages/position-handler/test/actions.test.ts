import { readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { type GeneratedTransfer, generatePositionMessages } from '../src/testing/messages.js';
import { insertTransfers, type ProvisionedState } from '../src/testing/transfers.js';
import {
  errorOf,
  eventOf,
  kafkaClients,
  plus,
  positionOf,
  produce,
  reservedThen,
  statesOf,
  useKafkaClient,
  useLedgerWithTopics,
} from './helpers.js';

describe.each(kafkaClients)('actions (KAFKA_CLIENT=%s)', (kafkaClient) => {
  beforeAll(() => useKafkaClient(kafkaClient));

  let counter = 0;

  const dfsps = [
    { name: 'payerfsp', netDebitCap: '1000', liquidity: '10000' },
    { name: 'payeefsp', netDebitCap: '1000', liquidity: '10000' },
    { name: 'lowliquidity', netDebitCap: '1000', liquidity: '5' },
    { name: 'capped', netDebitCap: '25', liquidity: '10000' },
    { name: 'nolimit', netDebitCap: '1000', liquidity: '10000' },
  ];

  const account = (name: string) => {
    const found = env.ledger.ledger.accounts.get(`${name}:USD`);
    if (!found) throw new Error(name);
    return found;
  };

  async function transfer(payer: string, state: ProvisionedState, amount = '10', payee = 'payeefsp') {
    counter += 1;
    const t: GeneratedTransfer = {
      transferId: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
      payer,
      payee,
      currency: 'USD',
      amount,
    };
    await insertTransfers(env.ledger.knex, [{ ...t, state }], env.ledger.ledger.accounts);
    return t;
  }

  function messages(transfers: GeneratedTransfer[], action: Parameters<typeof generatePositionMessages>[0]['action']) {
    return generatePositionMessages({ transfers, action, accountOf: (dfsp) => account(dfsp).position });
  }

  /** Sends the messages and returns the notifications about the given transfer ids, once all arrived. */
  async function send(batch: { key: string | null; value: string }[], expectIds: string[]) {
    const before = env.reader.values.length;
    await produce(env.producer, env.input.name, batch);
    return vi.waitFor(
      () => {
        const fresh = env.reader.values.slice(before);
        const found = expectIds.map((id) => fresh.find((n) => n.id === id));
        expect(
          expectIds.filter((_, i) => !found[i]),
          'transfers without a notification',
        ).toEqual([]);
        return found as Record<string, unknown>[];
      },
      { timeout: 20_000, interval: 20 },
    );
  }

  const env = useLedgerWithTopics('position_actions', { currencies: ['USD'], dfsps }, { service: () => ({}) });

  describe('prepare', () => {
    it('reserves: RESERVED, position + amount, a position change, and the transfer notified from payer to payee', async () => {
      const t = await transfer('payerfsp', 'RECEIVED_PREPARE', '12.3456');
      const before = await positionOf(env.ledger.knex, account('payerfsp').position);
      const [note] = await send(messages([t], 'prepare'), [t.transferId]);
      expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
      expect(await positionOf(env.ledger.knex, account('payerfsp').position)).toBe(plus(before, '12.3456'));
      const change = await env.ledger
        .knex('participantPositionChange as ppc')
        .join('transferStateChange as tsc', 'tsc.transferStateChangeId', 'ppc.transferStateChangeId')
        .first('ppc.value', 'ppc.participantCurrencyId', 'ppc.reservedValue')
        .where('tsc.transferId', t.transferId);
      expect(change).toMatchObject({ participantCurrencyId: account('payerfsp').position, reservedValue: '0.0000' });
      expect(note).toMatchObject({ from: 'payerfsp', to: 'payeefsp', type: 'application/json' });
      expect(eventOf(note as never)).toMatchObject({
        type: 'notification',
        action: 'prepare',
        state: { status: 'success', code: 0 },
      });
      const content = (note as { content: { payload: { transferId: string; amount: unknown }; uriParams: unknown } })
        .content;
      expect(content.payload).toMatchObject({
        transferId: t.transferId,
        amount: { amount: '12.3456', currency: 'USD' },
      });
      expect(content.uriParams).toEqual({});
    });

    it('rejects with 4001 when the amount exceeds the liquidity cover: ABORTED_REJECTED, position unchanged, Hub → payer', async () => {
      const t = await transfer('lowliquidity', 'RECEIVED_PREPARE', '10');
      const [note] = await send(messages([t], 'prepare'), [t.transferId]);
      expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE', 'ABORTED_REJECTED']);
      expect(await positionOf(env.ledger.knex, account('lowliquidity').position)).toBe('0.0000');
      const reason = await env.ledger
        .knex('transferStateChange')
        .first('reason')
        .where({ transferId: t.transferId, transferStateId: 'ABORTED_REJECTED' });
      expect(reason?.reason).toBe('Payer FSP insufficient liquidity');
      expect(note).toMatchObject({ from: 'Hub', to: 'lowliquidity' });
      expect(eventOf(note as never).state).toEqual({ status: 'error', code: 999, description: 'action failed' });
      expect(errorOf(note as never)).toMatchObject({
        errorCode: '4001',
        errorDescription: 'Payer FSP insufficient liquidity',
      });
    });

    it('net debit cap 25, ten prepares of 10 in one batch: exactly two RESERVED and eight 4200', async () => {
      const ten: GeneratedTransfer[] = [];
      for (let i = 0; i < 10; i++) ten.push(await transfer('capped', 'RECEIVED_PREPARE', '10'));
      const notes = await send(
        messages(ten, 'prepare'),
        ten.map((t) => t.transferId),
      );
      const states = await Promise.all(ten.map((t) => statesOf(env.ledger.knex, t.transferId)));
      expect(states.filter((s) => s[1] === 'RESERVED')).toHaveLength(2);
      expect(states.filter((s) => s[1] === 'ABORTED_REJECTED')).toHaveLength(8);
      expect(await positionOf(env.ledger.knex, account('capped').position)).toBe('20.0000');
      expect(notes.map((n) => errorOf(n)?.errorCode ?? 'ok').sort()).toEqual([
        '4200',
        '4200',
        '4200',
        '4200',
        '4200',
        '4200',
        '4200',
        '4200',
        'ok',
        'ok',
      ]);
    });

    it('rejects a transfer in an incorrect state (INVALID) with 2001 and ABORTED_REJECTED, as the original does', async () => {
      const t = await transfer('payerfsp', 'RECEIVED_PREPARE');
      await env.ledger.knex('transferStateChange').insert({ transferId: t.transferId, transferStateId: 'INVALID' });
      const [note] = await send(messages([t], 'prepare'), [t.transferId]);
      expect(await statesOf(env.ledger.knex, t.transferId)).toEqual([
        'RECEIVED_PREPARE',
        'INVALID',
        'ABORTED_REJECTED',
      ]);
      expect(errorOf(note as never)).toMatchObject({ errorCode: '2001', errorDescription: 'Internal server error' });
    });

    it('answers a prepare for an unknown transfer with 3208 and writes nothing', async () => {
      const t: GeneratedTransfer = {
        transferId: 'ffffffff-0000-4000-8000-000000000001',
        payer: 'payerfsp',
        payee: 'payeefsp',
        currency: 'USD',
        amount: '1',
      };
      const [note] = await send(messages([t], 'prepare'), [t.transferId]);
      expect(await statesOf(env.ledger.knex, t.transferId)).toEqual([]);
      expect(errorOf(note as never)?.errorCode).toBe('3208');
    });
  });

  describe('account errors', () => {
    it('a key that is no position account: 2001 naming the account, nothing written', async () => {
      const t = await transfer('payerfsp', 'RECEIVED_PREPARE');
      const [message] = messages([t], 'prepare');
      const [note] = await send([{ key: '999999', value: message?.value ?? '' }], [t.transferId]);
      expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE']);
      expect(errorOf(note as never)).toMatchObject({
        errorCode: '2001',
        errorDescription: 'Internal server error - position account 999999',
      });
    });

    it('a payer without an active NET_DEBIT_CAP: 2001, the transfer left in RECEIVED_PREPARE', async () => {
      const t = await transfer('nolimit', 'RECEIVED_PREPARE');
      await env.ledger
        .knex('participantLimit')
        .update({ isActive: 0 })
        .where({ participantCurrencyId: account('nolimit').position });
      const [note] = await send(messages([t], 'prepare'), [t.transferId]);
      expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE']);
      expect(errorOf(note as never)).toMatchObject({
        errorCode: '2001',
        errorDescription: 'Internal server error - no active NET_DEBIT_CAP limit',
      });
    });
  });

  describe('commit and reserve', () => {
    it('commits: COMMITTED, payee position - amount, notification payee → payer with the fulfil body', async () => {
      const t = await transfer('payerfsp', 'RECEIVED_FULFIL', '7');
      const before = await positionOf(env.ledger.knex, account('payeefsp').position);
      const [note] = await send(messages([t], 'commit'), [t.transferId]);
      expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(reservedThen('RECEIVED_FULFIL', 'COMMITTED'));
      expect(await positionOf(env.ledger.knex, account('payeefsp').position)).toBe(plus(before, '-7'));
      expect(note).toMatchObject({
        from: 'payeefsp',
        to: 'payerfsp',
        content: { uriParams: { id: t.transferId }, payload: { transferState: 'COMMITTED' } },
      });
      expect(eventOf(note as never)).toMatchObject({ action: 'commit', state: { status: 'success' } });
    });

    it('reserve commits too and notifies with transferState COMMITTED', async () => {
      const t = await transfer('payerfsp', 'RECEIVED_FULFIL', '3');
      const [note] = await send(messages([t], 'reserve'), [t.transferId]);
      expect((await statesOf(env.ledger.knex, t.transferId)).at(-1)).toBe('COMMITTED');
      expect(note).toMatchObject({ content: { payload: { transferState: 'COMMITTED' } } });
      expect(eventOf(note as never).action).toBe('reserve');
    });

    it('answers a commit in the wrong state (RECEIVED_PREPARE) with 2001 Invalid State to the payee, writing nothing', async () => {
      const t = await transfer('payerfsp', 'RECEIVED_PREPARE');
      const [note] = await send(messages([t], 'commit'), [t.transferId]);
      expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(['RECEIVED_PREPARE']);
      expect(note).toMatchObject({ from: 'Hub', to: 'payeefsp' });
      expect(errorOf(note as never)).toMatchObject({
        errorCode: '2001',
        errorDescription: 'Internal server error - Invalid State: RECEIVED_PREPARE - expected: RECEIVED_FULFIL',
      });
    });
  });

  describe('abort, abort-validation, timeout-reserved', () => {
    it('abort: ABORTED_ERROR, payer position released, 5100 notification', async () => {
      const t = await transfer('payerfsp', 'RECEIVED_ERROR', '4');
      const before = await positionOf(env.ledger.knex, account('payerfsp').position);
      const [note] = await send(messages([t], 'abort'), [t.transferId]);
      expect((await statesOf(env.ledger.knex, t.transferId)).at(-1)).toBe('ABORTED_ERROR');
      expect(await positionOf(env.ledger.knex, account('payerfsp').position)).toBe(plus(before, '-4'));
      expect(errorOf(note as never)?.errorCode).toBe('5100');
      expect(note).toMatchObject({ from: 'payeefsp', to: 'payerfsp' });
    });

    it('abort-validation: ABORTED_ERROR and a 3100 from the Hub', async () => {
      const t = await transfer('payerfsp', 'RECEIVED_ERROR', '2');
      const [note] = await send(messages([t], 'abort-validation'), [t.transferId]);
      expect((await statesOf(env.ledger.knex, t.transferId)).at(-1)).toBe('ABORTED_ERROR');
      expect(note).toMatchObject({ from: 'Hub' });
      expect(errorOf(note as never)?.errorCode).toBe('3100');
    });

    it('timeout-reserved: EXPIRED_RESERVED with reason, payer position released, 3303', async () => {
      const t = await transfer('payerfsp', 'RESERVED_TIMEOUT', '5');
      const before = await positionOf(env.ledger.knex, account('payerfsp').position);
      const [note] = await send(messages([t], 'timeout-reserved'), [t.transferId]);
      expect((await statesOf(env.ledger.knex, t.transferId)).at(-1)).toBe('EXPIRED_RESERVED');
      expect(await positionOf(env.ledger.knex, account('payerfsp').position)).toBe(plus(before, '-5'));
      expect(errorOf(note as never)).toMatchObject({ errorCode: '3303', errorDescription: 'Transfer expired' });
    });

    it('timeout-reserved for a transfer not in RESERVED_TIMEOUT: 2001, nothing written', async () => {
      const t = await transfer('payerfsp', 'RECEIVED_FULFIL', '5');
      const [note] = await send(messages([t], 'timeout-reserved'), [t.transferId]);
      expect((await statesOf(env.ledger.knex, t.transferId)).at(-1)).toBe('RECEIVED_FULFIL');
      expect(errorOf(note as never)?.errorCode).toBe('2001');
    });
  });

  describe('duplicates and redelivery change nothing', () => {
    it('a duplicated prepare and commit are re-notified, with no new rows and no position change', async () => {
      const p = await transfer('payerfsp', 'RECEIVED_PREPARE', '6');
      const c = await transfer('payerfsp', 'RECEIVED_FULFIL', '6');
      await send([...messages([p], 'prepare'), ...messages([c], 'commit')], [p.transferId, c.transferId]);
      const positions = [
        await positionOf(env.ledger.knex, account('payerfsp').position),
        await positionOf(env.ledger.knex, account('payeefsp').position),
      ];
      const rows = async () => (await env.ledger.knex('participantPositionChange').count({ n: '*' }))[0]?.n;
      const changes = await rows();
      const again = await send(
        [...messages([p], 'prepare'), ...messages([c], 'commit'), ...messages([p], 'prepare')],
        [p.transferId, c.transferId],
      );
      expect(await statesOf(env.ledger.knex, p.transferId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
      expect((await statesOf(env.ledger.knex, c.transferId)).filter((s) => s === 'COMMITTED')).toHaveLength(1);
      expect([
        await positionOf(env.ledger.knex, account('payerfsp').position),
        await positionOf(env.ledger.knex, account('payeefsp').position),
      ]).toEqual(positions);
      expect(await rows()).toBe(changes);
      expect(again.map((n) => eventOf(n).state.status)).toEqual(['success', 'success']);
    });

    it('a prepare redelivered after its transfer was COMMITTED writes no ABORTED_REJECTED (the original does) and is answered 2001 from the Hub, not with a second prepare to the payee', async () => {
      const t = await transfer('payerfsp', 'RECEIVED_FULFIL', '1');
      await send(messages([t], 'commit'), [t.transferId]);
      const position = await positionOf(env.ledger.knex, account('payerfsp').position);
      const [note] = await send(messages([t], 'prepare'), [t.transferId]);
      expect(await statesOf(env.ledger.knex, t.transferId)).toEqual(reservedThen('RECEIVED_FULFIL', 'COMMITTED'));
      expect(await positionOf(env.ledger.knex, account('payerfsp').position)).toBe(position);
      expect(eventOf(note as never).state.status).toBe('error');
      expect(note).toMatchObject({ from: 'Hub', to: 'payerfsp' });
      expect(errorOf(note as never)?.errorCode).toBe('2001');
    });
  });

  describe('malformed messages: error notification or counted skip, and the batch goes on', () => {
    it('bad JSON is skipped and counted; bad base64 gets 3101; an action the batch handler does not take (fx-commit) gets 2002; the valid message beside them is applied', async () => {
      const good = await transfer('payerfsp', 'RECEIVED_PREPARE', '1');
      const [valid] = messages([good], 'prepare');
      const [template] = messages([await transfer('payerfsp', 'RECEIVED_PREPARE', '1')], 'prepare');
      const badBase64 = JSON.parse(template?.value ?? '{}');
      badBase64.id = 'bad-base64-0000';
      badBase64.content.payload =
        'data:application/vnd.interoperability.transfers+json;version=1.1;base64,@@not base64@@';
      const fx = JSON.parse(template?.value ?? '{}');
      fx.id = 'fx-commit-0000';
      fx.metadata.event.action = 'fx-commit';
      const notes = await send(
        [
          { key: '1', value: '{"not json' },
          { key: template?.key ?? '1', value: JSON.stringify(badBase64) },
          { key: template?.key ?? '1', value: JSON.stringify(fx) },
          valid as { key: string; value: string },
        ],
        ['bad-base64-0000', 'fx-commit-0000', good.transferId],
      );
      expect(errorOf(notes[0] as never)).toMatchObject({ errorCode: '3101' });
      expect(notes[0]).toMatchObject({ from: 'Hub', to: 'payerfsp' });
      expect(errorOf(notes[1] as never)).toMatchObject({
        errorCode: '2002',
        errorDescription: 'Not implemented - action fx-commit',
      });
      expect(await statesOf(env.ledger.knex, good.transferId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
      const metrics = await env.service.registry.getSingleMetricAsString('position_messages_total');
      expect(metrics).toMatch(/position_messages_total\{action="unknown",result="skipped"\} 1/);
    });
  });

  describe('operability', () => {
    it('reports broker and database readiness on /health and the counters on /metrics', async () => {
      const base = `http://127.0.0.1:${env.service.http.address.port}`;
      const health = await fetch(`${base}/health`);
      expect(health.status).toBe(200);
      // central-ledger's handler /health shape: status, uptime, startTime, versionNumber, services.
      expect(await health.json()).toEqual({
        status: 'OK',
        uptime: expect.any(Number),
        startTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        // The handler package's own version, as central-ledger reports its package.json's.
        versionNumber: (
          JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
        ).version,
        services: [
          { name: 'datastore', status: 'OK' },
          { name: 'broker', status: 'OK' },
        ],
      });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/position_messages_total\{action="prepare",result="applied"\} \d+/);
      expect(metrics).toMatch(/position_stage_seconds_count\{stage="write"\} \d+/);
      expect(metrics).toMatch(/nodejs_eventloop_lag_p99_seconds/);
      expect(metrics).toMatch(/position_consumer_lag\{topic="[^"]+",partition="0"\} 0/);
    });

    it('writes an on-demand .cpuprofile from POST /admin/profile, and refuses a bad duration with 400', async () => {
      const base = `http://127.0.0.1:${env.service.http.address.port}`;
      expect((await fetch(`${base}/admin/profile?seconds=0`, { method: 'POST' })).status).toBe(400);
      const answer = await fetch(`${base}/admin/profile?seconds=1`, { method: 'POST' });
      expect(answer.status).toBe(200);
      const { file } = (await answer.json()) as { file: string };
      expect(file).toMatch(/\.cpuprofile$/);
      const profile = JSON.parse(await readFile(file, 'utf8')) as { nodes: unknown[] };
      expect(profile.nodes.length).toBeGreaterThan(0);
      await rm(file);
    });
  });
});
