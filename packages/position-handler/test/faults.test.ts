import type { TestTopic } from '@mojafast/testkit';
import type { Producer } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPositionService } from '../src/main.js';
import { generatePositionMessages, generateTransfers } from '../src/messages/generate.js';
import { insertTransfers } from '../src/store/provision.js';
import {
  committedOffset,
  createTestLedger,
  newTopics,
  openProducer,
  positionOf,
  produce,
  quietLogger,
  type TestLedger,
  TopicReader,
  testConfig,
} from './helpers.js';

let ledger: TestLedger;
let input: TestTopic;
let output: TestTopic;
let producer: Producer;
let reader: TopicReader;

beforeAll(async () => {
  ledger = await createTestLedger('position_faults', {
    currencies: ['USD'],
    dfsps: [
      { name: 'faultpayer', netDebitCap: '100000', liquidity: '100000' },
      { name: 'faultpayee', netDebitCap: '100000', liquidity: '100000' },
    ],
  });
  [input, output] = await newTopics('position_faults');
  producer = await openProducer();
  reader = await TopicReader.open(output);
});

afterAll(async () => {
  await reader?.close();
  await producer?.disconnect();
  await input?.drop();
  await output?.drop();
  await ledger?.drop();
});

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
    ledger.knex,
    transfers.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
    ledger.ledger.accounts,
  );
  const payer = ledger.ledger.accounts.get('faultpayer:USD')?.position ?? -1;
  await produce(producer, topic, generatePositionMessages({ transfers, action: 'prepare', accountOf: () => payer }));
  return { transfers, payer };
}

it('DB fault mid-batch (position-change insert fails 3 times): rolled back, retried, applied once, offsets held back meanwhile', async () => {
  const { payer } = await preparesFromFaultPayer(50, input.name, '10');
  const group = `${input.name}-group`;
  const offsetsDuringFaults: string[] = [];
  let failures = 0;
  const service = await startPositionService(testConfig(ledger.db, input, output, { batchSize: 20 }), {
    logger: quietLogger,
    decorateStore(store) {
      const insert = store.insertPositionChanges.bind(store);
      // The fault: the second write of the transaction fails after the state changes were inserted.
      store.insertPositionChanges = async (...args) => {
        if (failures < 3) {
          failures += 1;
          offsetsDuringFaults.push(await committedOffset(group, input.name));
          throw new Error('injected fault: connection lost');
        }
        return insert(...args);
      };
      return store;
    },
  });
  try {
    await reader.waitFor(50);
    await new Promise((r) => setTimeout(r, 300));
    expect(offsetsDuringFaults).toEqual(['-1', '-1', '-1']);
    expect(await committedOffset(group, input.name)).toBe('50');
    const states = await ledger.knex('transferStateChange').count({ n: '*' }).where({ transferStateId: 'RESERVED' });
    expect(Number(states[0]?.n)).toBe(50);
    expect(await positionOf(ledger.knex, payer)).toBe('500.0000');
    const ids = reader.values.map((n) => n.id);
    expect(new Set(ids).size).toBe(50);
    expect(ids).toHaveLength(50);
    expect(await service.registry.getSingleMetricAsString('position_db_retries_total')).toMatch(
      /position_db_retries_total 3/,
    );
  } finally {
    await service.stop();
  }
});

it('graceful stop in the middle of the work: every written chunk is notified and its offset committed', async () => {
  const [stopIn, stopOut] = await newTopics('position_stop');
  const stopReader = await TopicReader.open(stopOut);
  try {
    const { transfers } = await preparesFromFaultPayer(1500, stopIn.name, '1');
    const service = await startPositionService(testConfig(ledger.db, stopIn, stopOut, { batchSize: 10 }), {
      logger: quietLogger,
    });
    await stopReader.waitFor(1);
    await service.stop();
    const reserved = await ledger
      .knex('transferStateChange')
      .count({ n: '*' })
      .where({ transferStateId: 'RESERVED' })
      .whereIn(
        'transferId',
        transfers.map((t) => t.transferId),
      );
    const applied = Number(reserved[0]?.n);
    expect(applied).toBeGreaterThan(0);
    expect(applied).toBeLessThan(1500); // it really stopped in the middle
    expect(await committedOffset(`${stopIn.name}-group`, stopIn.name)).toBe(String(applied));
    await stopReader.waitFor(applied);
    expect(new Set(stopReader.values.map((n) => n.id)).size).toBe(applied);
  } finally {
    await stopReader.close();
    await stopIn.drop();
    await stopOut.drop();
  }
});
