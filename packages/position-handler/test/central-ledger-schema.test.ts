import type { TestTopic } from '@mojafast/testkit';
import type { Producer } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPositionService } from '../src/main.js';
import { generatePositionMessages, generateTransfers } from '../src/messages/generate.js';
import { insertTransfers } from '../src/store/provision.js';
import { migrateAndSeedCentralLedger } from './central-ledger.js';
import {
  createTestLedger,
  errorOf,
  newTopics,
  openProducer,
  positionOf,
  produce,
  quietLogger,
  statesOf,
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
  ledger = await createTestLedger(
    'position_clschema',
    {
      currencies: ['USD'],
      dfsps: [
        { name: 'clpayer', netDebitCap: '15', liquidity: '1000' },
        { name: 'clpayee', netDebitCap: '1000', liquidity: '1000' },
      ],
    },
    migrateAndSeedCentralLedger,
  );
  [input, output] = await newTopics('position_clschema');
  producer = await openProducer();
  reader = await TopicReader.open(output);
}, 180_000);

afterAll(async () => {
  await reader?.close();
  await producer?.disconnect();
  await input?.drop();
  await output?.drop();
  await ledger?.drop();
});

it('runs unchanged on a database made by central-ledger 19.5.5 migrations and seeds: prepare, 4200, commit', async () => {
  const migrations = await ledger.knex('migration').count({ n: '*' });
  expect(Number(migrations[0]?.n)).toBeGreaterThan(200);
  const account = (name: string) => ledger.ledger.accounts.get(`${name}:USD`)?.position ?? -1;
  const [first, second] = generateTransfers({ transfers: 2, dfsps: ['clpayer', 'clpayee'], currencies: ['USD'] }).map(
    (t) => ({ ...t, payer: 'clpayer', payee: 'clpayee' }),
  );
  const [committed] = generateTransfers({
    transfers: 1,
    dfsps: ['clpayer', 'clpayee'],
    currencies: ['USD'],
    amount: '4',
  });
  if (!first || !second || !committed) throw new Error('generator');
  await insertTransfers(
    ledger.knex,
    [
      { ...first, state: 'RECEIVED_PREPARE' },
      { ...second, state: 'RECEIVED_PREPARE' },
      { ...committed, state: 'RECEIVED_FULFIL' },
    ],
    ledger.ledger.accounts,
  );
  const accountOf = (dfsp: string) => account(dfsp);
  await produce(producer, input.name, [
    ...generatePositionMessages({ transfers: [first, second], action: 'prepare', accountOf }),
    ...generatePositionMessages({ transfers: [committed], action: 'commit', accountOf }),
  ]);
  const service = await startPositionService(testConfig(ledger.db, input, output), { logger: quietLogger });
  try {
    const notes = await reader.waitFor(3);
    expect(await statesOf(ledger.knex, first.transferId)).toEqual(['RECEIVED_PREPARE', 'RESERVED']);
    expect(await statesOf(ledger.knex, second.transferId)).toEqual(['RECEIVED_PREPARE', 'ABORTED_REJECTED']);
    expect((await statesOf(ledger.knex, committed.transferId)).at(-1)).toBe('COMMITTED');
    expect(await positionOf(ledger.knex, account('clpayer'))).toBe('10.0000');
    expect(await positionOf(ledger.knex, account('clpayee'))).toBe('-4.0000');
    const byId = new Map(notes.map((n) => [n.id, n]));
    expect(errorOf(byId.get(second.transferId) as never)?.errorCode).toBe('4200');
    const change = await ledger.knex('participantPositionChange').first('participantCurrencyId', 'change', 'value');
    expect(change).toMatchObject({ participantCurrencyId: account('clpayer'), change: '10.00', value: '10.0000' });
  } finally {
    await service.stop();
  }
});
