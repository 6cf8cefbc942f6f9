import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { startPositionService } from '../src/main.js';
import { insertFxTransfers, insertTransfers } from '../src/testing/index.js';
import { generatePositionMessages, generateTransfers } from '../src/testing/messages.js';
import { fxPrepareMessage } from './fx-fixtures.js';
import {
  committedOffset,
  kafkaClients,
  plus,
  positionOf,
  produce,
  provisionFxParties,
  quietLogger,
  refuseBusCalls,
  testConfig,
  useKafkaClient,
  useLedgerWithTopics,
  waitForCommittedOffset,
  withTopics,
} from './helpers.js';

describe.each(kafkaClients)('faults (KAFKA_CLIENT=%s)', (kafkaClient) => {
  beforeAll(() => useKafkaClient(kafkaClient));

  const env = useLedgerWithTopics('position_faults', {
    currencies: ['USD'],
    dfsps: [
      { name: 'faultpayer', netDebitCap: '100000', liquidity: '100000' },
      { name: 'faultpayee', netDebitCap: '100000', liquidity: '100000' },
    ],
  });

  /** How many of these transfers have a RESERVED state change: each prepare applied writes exactly one. */
  async function reservedCount(transfers: readonly { transferId: string }[]): Promise<number> {
    const rows = await env.ledger
      .knex('transferStateChange')
      .count({ n: '*' })
      .where({ transferStateId: 'RESERVED' })
      .whereIn(
        'transferId',
        transfers.map((t) => t.transferId),
      );
    return Number(rows[0]?.n);
  }

  /**
   * `count` transfers from faultpayer to faultpayee in RECEIVED_PREPARE, their prepares produced to `topic`;
   * answers them and the payer's position account.
   */
  async function preparesFromFaultPayer(count: number, topic: string, amount: string) {
    const transfers = generateTransfers({
      transfers: count,
      dfsps: ['faultpayer', 'faultpayee'],
      currencies: ['USD'],
    }).map((t) => ({ ...t, payer: 'faultpayer', payee: 'faultpayee', amount }));
    await insertTransfers(
      env.ledger.knex,
      transfers.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
      env.ledger.ledger.accounts,
    );
    const payer = env.ledger.ledger.accounts.get('faultpayer:USD')?.position ?? -1;
    await produce(
      env.producer,
      topic,
      generatePositionMessages({ transfers, action: 'prepare', accountOf: () => payer }),
    );
    return { transfers, payer };
  }

  it('DB fault mid-batch (the position-change INSERT is refused 3 times, after the state changes were inserted): rolled back, retried, applied once, offsets held back meanwhile', async () => {
    const { payer } = await preparesFromFaultPayer(50, env.input.name, '10');
    const group = `${env.input.name}-group`;
    const offsetsDuringFaults: Promise<string>[] = [];
    let failures = 0;
    const service = await startPositionService(testConfig(env.ledger.db, env.input, env.output, { batchSize: 20 }), {
      logger: quietLogger,
      decorateStore(store) {
        const positionChangesSql = store.positionChangesSql.bind(store);
        // The fault: the server refuses the second statement of the write, after it executed the first (the
        // state changes' INSERT) in the same transaction.
        store.positionChangesSql = (...args) => {
          if (failures < 3) {
            failures += 1;
            offsetsDuringFaults.push(committedOffset(group, env.input.name));
            return { sql: 'INSERT INTO participantPositionChange (injectedFaultNoSuchColumn) VALUES (1)', values: [] };
          }
          return positionChangesSql(...args);
        };
        return store;
      },
    });
    try {
      await env.reader.waitFor(50);
      await waitForCommittedOffset(group, env.input.name, '50', 10_000);
      expect(await Promise.all(offsetsDuringFaults)).toEqual(['-1', '-1', '-1']);
      const states = await env.ledger
        .knex('transferStateChange')
        .count({ n: '*' })
        .where({ transferStateId: 'RESERVED' });
      expect(Number(states[0]?.n)).toBe(50);
      expect(await positionOf(env.ledger.knex, payer)).toBe('500.0000');
      const ids = env.reader.values.map((n) => n.id);
      expect(new Set(ids).size).toBe(50);
      expect(ids).toHaveLength(50);
      expect(await service.registry.getSingleMetricAsString('position_db_retries_total')).toMatch(
        /position_db_retries_total\{class="permanent"\} 3/,
      );
    } finally {
      await service.stop();
    }
  });

  it('graceful stop in the middle of the work: every written chunk is notified and its offset committed', async () => {
    await withTopics('position_stop', async ({ input: stopIn, output: stopOut, reader: stopReader }) => {
      const { transfers } = await preparesFromFaultPayer(1500, stopIn.name, '1');
      const service = await startPositionService(testConfig(env.ledger.db, stopIn, stopOut, { batchSize: 10 }), {
        logger: quietLogger,
      });
      await stopReader.waitFor(1);
      await service.stop();
      const applied = await reservedCount(transfers);
      expect(applied).toBeGreaterThan(0);
      expect(applied).toBeLessThan(1500); // it really stopped in the middle
      expect(await committedOffset(`${stopIn.name}-group`, stopIn.name)).toBe(String(applied));
      await stopReader.waitFor(applied);
      expect(new Set(stopReader.values.map((n) => n.id)).size).toBe(applied);
    });
  });

  it('notifications refused by the broker (the second chunk produce fails twice): fetched again, replayed, nothing written twice, every transfer notified, offsets past acknowledged notifications only', async () => {
    await withTopics('position_produce_fault', async ({ input: faultIn, output: faultOut, reader: faultReader }) => {
      const { transfers, payer } = await preparesFromFaultPayer(100, faultIn.name, '3');
      const before = await positionOf(env.ledger.knex, payer);
      const group = `${faultIn.name}-group`;
      const offsetsAtFaults: string[] = [];
      let fault = { failures: () => 0 };
      const service = await startPositionService(testConfig(env.ledger.db, faultIn, faultOut, { batchSize: 20 }), {
        logger: quietLogger,
        decorateBus(bus) {
          fault = refuseBusCalls(bus, 'produce', {
            from: 2,
            times: 2,
            message: 'injected fault: NOT_ENOUGH_REPLICAS',
            beforeFailing: async () => {
              offsetsAtFaults.push(await committedOffset(group, faultIn.name));
            },
          });
          return bus;
        },
      });
      try {
        await faultReader.waitFor(100);
        await waitForCommittedOffset(group, faultIn.name, '100', 10_000);
        expect(fault.failures()).toBe(2);
        // A plain Error (no errno, code or retriable flag): counted as permanent; once per seek (the second refused
        // produce may be the next chunk's, fetched again by the same seek).
        expect(await service.registry.getSingleMetricAsString('position_notify_retries_total')).toMatch(
          /position_notify_retries_total\{class="permanent"\} [12]/,
        );
        // Never committed past the chunk whose notifications failed (the first chunk is offsets 0-19).
        for (const offset of offsetsAtFaults) expect(Number(offset)).toBeLessThanOrEqual(20);
        expect(await reservedCount(transfers)).toBe(100);
        expect(await positionOf(env.ledger.knex, payer)).toBe(plus(before, '300'));
        expect(new Set(faultReader.values.map((n) => n.id)).size).toBe(100);
        expect(await service.registry.getSingleMetricAsString('position_messages_total')).toMatch(
          /position_messages_total\{action="prepare",result="replayed"\} [1-9]/,
        );
      } finally {
        await service.stop();
      }
    });
  });

  it('offset commit refused by the broker (the first two commits fail): the commit is tried again, nothing fetched again or notified twice, every transfer notified once, the offset committed in the end', async () => {
    await withTopics('position_commit_fault', async ({ input: commitIn, output: commitOut, reader: commitReader }) => {
      const { transfers, payer } = await preparesFromFaultPayer(60, commitIn.name, '2');
      const before = await positionOf(env.ledger.knex, payer);
      const group = `${commitIn.name}-group`;
      let fault = { failures: () => 0 };
      const service = await startPositionService(testConfig(env.ledger.db, commitIn, commitOut, { batchSize: 20 }), {
        logger: quietLogger,
        decorateBus(bus) {
          fault = refuseBusCalls(bus, 'commit', {
            from: 1,
            times: 2,
            message: 'injected fault: COORDINATOR_NOT_AVAILABLE',
          });
          return bus;
        },
      });
      try {
        await waitForCommittedOffset(group, commitIn.name, '60');
        expect(fault.failures()).toBe(2);
        expect(await reservedCount(transfers)).toBe(60);
        expect(await positionOf(env.ledger.knex, payer)).toBe(plus(before, '120'));
        await commitReader.waitFor(60);
        expect(new Set(commitReader.values.map((n) => n.id)).size).toBe(60);
        // The notifications were acknowledged: a refused commit is no reason to handle the chunk again.
        expect(await service.registry.getSingleMetricAsString('position_messages_total')).not.toMatch(
          /result="replayed"/,
        );
        expect(commitReader.values).toHaveLength(60);
      } finally {
        await service.stop();
      }
    });
  });

  it('FX in the stream: fx-prepares interleaved with prepares, the second chunk produce refused twice: every transfer and fxTransfer RESERVED once, the payer moved once by each, every one notified', async () => {
    await withTopics('position_fx_fault', async ({ input: fxIn, output: fxOut, reader: fxReader }) => {
      const { accounts: fxAccounts, payer } = await provisionFxParties(
        env.ledger.knex,
        'faultpayer',
        'faultfxp',
        '100000',
      );
      const before = await positionOf(env.ledger.knex, payer);
      const transfers = generateTransfers({
        transfers: 40,
        dfsps: ['faultpayer', 'faultpayee'],
        currencies: ['USD'],
      }).map((t) => ({ ...t, payer: 'faultpayer', payee: 'faultpayee', amount: '2' }));
      await insertTransfers(
        env.ledger.knex,
        transfers.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
        env.ledger.ledger.accounts,
      );
      const fxs = transfers.map((t) => ({
        commitRequestId: randomUUID(),
        determiningTransferId: t.transferId,
        initiator: 'faultpayer',
        fxp: 'faultfxp',
        sourceCurrency: 'USD',
        sourceAmount: '1',
        targetCurrency: 'EUR',
        targetAmount: '1',
      }));
      await insertFxTransfers(
        env.ledger.knex,
        fxs.map((fx) => ({ ...fx, state: 'RECEIVED_PREPARE' as const })),
        fxAccounts,
      );
      const prepares = generatePositionMessages({ transfers, action: 'prepare', accountOf: () => payer });
      await produce(
        env.producer,
        fxIn.name,
        fxs.flatMap((fx, i) => [fxPrepareMessage(fx, payer), prepares[i] as { key: string; value: string }]),
      );
      let fault = { failures: () => 0 };
      const service = await startPositionService(testConfig(env.ledger.db, fxIn, fxOut, { batchSize: 20 }), {
        logger: quietLogger,
        decorateBus(bus) {
          fault = refuseBusCalls(bus, 'produce', { from: 2, times: 2, message: 'injected fault: NOT_ENOUGH_REPLICAS' });
          return bus;
        },
      });
      try {
        await fxReader.waitFor(80);
        await waitForCommittedOffset(`${fxIn.name}-group`, fxIn.name, '80', 10_000);
        expect(fault.failures()).toBe(2);
        expect(await reservedCount(transfers)).toBe(40);
        const fxReserved = await env.ledger
          .knex('fxTransferStateChange')
          .count({ n: '*' })
          .where({ transferStateId: 'RESERVED' })
          .whereIn(
            'commitRequestId',
            fxs.map((fx) => fx.commitRequestId),
          );
        expect(Number(fxReserved[0]?.n)).toBe(40);
        // 40 × 2 (plain) + 40 × 1 (FX source amount), each once.
        expect(await positionOf(env.ledger.knex, payer)).toBe(plus(before, '120'));
        const ids = new Set(fxReader.values.map((n) => n.id));
        for (const id of [...transfers.map((t) => t.transferId), ...fxs.map((fx) => fx.commitRequestId)]) {
          expect(ids.has(id)).toBe(true);
        }
        expect(await service.registry.getSingleMetricAsString('position_messages_total')).toMatch(
          /position_messages_total\{action="fx-prepare",result="replayed"\} [1-9]/,
        );
      } finally {
        await service.stop();
      }
    });
  });
});
