import { tmpdir } from 'node:os';
import {
  createDatabase,
  createTopic,
  loadInfraSettings,
  type TestDatabase,
  type TestTopic,
  testKafka,
} from '@mojafast/testkit';
import type { Consumer, Producer } from 'kafkajs';
import type { Knex } from 'knex';
import type { Pool } from 'mysql2';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { chunkBySize } from '../src/bus/chunk.js';
import type { PositionBus } from '../src/bus/types.js';
import { loadConfig, type PositionConfig } from '../src/config/index.js';
import { formatAmount, parseAmount } from '../src/ledger/amount.js';
import { type PositionService, startPositionService } from '../src/main.js';
import { createLogger } from '../src/observe/logger.js';
import { createKnex, createStorePool, endStorePool } from '../src/store/db.js';
import { migrateLatest } from '../src/store/migrations.js';
import { type LedgerSpec, type ProvisionedLedger, provisionLedger } from '../src/store/provision.js';

export interface TestLedger {
  readonly db: TestDatabase;
  readonly knex: Knex;
  /** The store's pool on the same database, as main makes it (connections opened on first use). */
  readonly storePool: Pool;
  readonly ledger: ProvisionedLedger;
  drop(): Promise<void>;
}

export async function createTestLedger(prefix: string, spec: LedgerSpec, migrate = migrateLatest): Promise<TestLedger> {
  const db = await createDatabase({ prefix });
  const knex = createKnex(db.connection);
  await migrate(knex);
  const ledger = await provisionLedger(knex, spec);
  const storePool = createStorePool(db.connection);
  return {
    db,
    knex,
    storePool,
    ledger,
    async drop() {
      await endStorePool(storePool);
      await knex.destroy();
      await db.drop();
    },
  };
}

/**
 * Adds a payer-side conversion's parties to a test's ledger: `payer` and the FXP `fxp` in USD and EUR, each with
 * `limit` as net debit cap and liquidity. Answers their accounts and the payer's USD position account.
 */
export async function provisionFxParties(knex: Knex, payer: string, fxp: string, limit: string) {
  const { accounts } = await provisionLedger(knex, {
    currencies: ['USD', 'EUR'],
    dfsps: [
      { name: payer, netDebitCap: limit, liquidity: limit },
      { name: fxp, netDebitCap: limit, liquidity: limit },
    ],
  });
  return { accounts, payer: accounts.get(`${payer}:USD`)?.position as number };
}

/** The Kafka clients the handler's suites run over (describe.each), KAFKA_CLIENT's values. */
export const kafkaClients = ['platformatic', 'kafkajs'] as const satisfies readonly PositionConfig['kafkaClient'][];

let testKafkaClient: PositionConfig['kafkaClient'] = 'platformatic';

/** The client testConfig gives the handler: set by a describe.each over kafkaClients in its beforeAll. */
export function useKafkaClient(client: PositionConfig['kafkaClient']): void {
  testKafkaClient = client;
}

/** Handler settings for a test: its own database, topics and group, HTTP on port 0, errors-only logs. */
export function testConfig(db: TestDatabase, input: TestTopic, output: TestTopic, over: Partial<PositionConfig> = {}) {
  const settings = loadInfraSettings();
  return loadConfig(
    {},
    {
      kafkaClient: testKafkaClient,
      kafkaBrokers: settings.kafka.brokers,
      consumerGroup: `${input.name}-group`,
      positionTopics: [input.name],
      notificationTopic: output.name,
      dbHost: db.connection.host,
      dbPort: db.connection.port,
      dbUser: db.connection.user,
      dbPassword: db.connection.password,
      dbName: db.connection.database,
      httpPort: 0,
      retryInitialMs: 20,
      retryMaxMs: 200,
      logLevel: 'error',
      profileDir: tmpdir(),
      ...over,
    },
  );
}

export const quietLogger = process.env.POSITION_TEST_LOG ? createLogger('debug') : createLogger('error', () => {});

export async function openProducer(): Promise<Producer> {
  const producer = testKafka().producer();
  await producer.connect();
  return producer;
}

export async function produce(
  producer: Producer,
  topic: string,
  messages: readonly { key: string | null; value: string }[],
): Promise<void> {
  for (const chunk of chunkBySize(messages)) {
    await producer.send({ topic, acks: -1, messages: chunk.map((m) => ({ ...m })) });
  }
}

/** Reads a topic from the start and collects every value, parsed; `until` says when to stop waiting. */
export class TopicReader {
  readonly values: Record<string, unknown>[] = [];
  private constructor(private readonly consumer: Consumer) {}

  static async open(topic: TestTopic): Promise<TopicReader> {
    const consumer = testKafka().consumer({ groupId: `${topic.name}-reader`, maxWaitTimeInMs: 50 });
    await consumer.connect();
    await consumer.subscribe({ topic: topic.name, fromBeginning: true });
    const reader = new TopicReader(consumer);
    await consumer.run({
      eachMessage: async ({ message }) => {
        reader.values.push(JSON.parse(String(message.value)) as Record<string, unknown>);
      },
    });
    return reader;
  }

  async waitFor(count: number, timeoutMs = 30_000): Promise<Record<string, unknown>[]> {
    await vi.waitFor(() => expect(this.values.length, 'notifications arrived').toBeGreaterThanOrEqual(count), {
      timeout: timeoutMs,
      interval: 25,
    });
    return this.values;
  }

  async close(): Promise<void> {
    await this.consumer.disconnect();
  }
}

export async function newTopics(prefix: string, partitions = 1): Promise<[TestTopic, TestTopic]> {
  return [await createTopic({ prefix: `${prefix}_in`, partitions }), await createTopic({ prefix: `${prefix}_out` })];
}

export async function positionOf(knex: Knex, participantCurrencyId: number): Promise<string> {
  const row = await knex('participantPosition').first('value').where({ participantCurrencyId });
  return String(row?.value);
}

export async function statesOf(knex: Knex, transferId: string): Promise<string[]> {
  const rows = await knex('transferStateChange')
    .select('transferStateId')
    .where({ transferId })
    .orderBy('transferStateChangeId');
  return rows.map((r: { transferStateId: string }) => r.transferStateId);
}

/** A transfer's (or fxTransfer's) state history: RECEIVED_PREPARE, RESERVED, then `later`. */
export const reservedThen = (...later: string[]) => ['RECEIVED_PREPARE', 'RESERVED', ...later];

/** The committed offset of the group on partition 0 ('-1' when none). */
export async function committedOffset(group: string, topic: string): Promise<string> {
  const admin = testKafka().admin();
  await admin.connect();
  try {
    const [entry] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    return entry?.partitions[0]?.offset ?? '-1';
  } finally {
    await admin.disconnect();
  }
}

/** Waits until the group's committed offset on partition 0 is `offset` (the handler commits after its notifications). */
export async function waitForCommittedOffset(group: string, topic: string, offset: string, timeout = 30_000) {
  await vi.waitFor(async () => expect(await committedOffset(group, topic)).toBe(offset), { timeout, interval: 100 });
}

/** A test's own input and output topics and a reader of the output, closed and dropped after `work`. */
export async function withTopics<T>(
  prefix: string,
  work: (topics: { input: TestTopic; output: TestTopic; reader: TopicReader }) => Promise<T>,
): Promise<T> {
  const [input, output] = await newTopics(prefix);
  const reader = await TopicReader.open(output);
  try {
    return await work({ input, output, reader });
  } finally {
    await reader.close();
    await input.drop();
    await output.drop();
  }
}

/**
 * Wraps one bus call to inject a broker fault: from its `from`-th call on, the next `times` calls run
 * `beforeFailing` (a test records what it sees at the fault) and throw `message`; the others pass through.
 * `failures()` says how many were refused.
 */
export function refuseBusCalls<K extends 'produce' | 'commit'>(
  bus: PositionBus,
  call: K,
  fault: { from: number; times: number; message: string; beforeFailing?: () => Promise<void> },
): { failures(): number } {
  const real = (bus[call] as (...args: unknown[]) => Promise<unknown>).bind(bus);
  let calls = 0;
  let failures = 0;
  (bus as unknown as Record<K, (...args: unknown[]) => Promise<unknown>>)[call] = async (...args: unknown[]) => {
    calls += 1;
    if (calls >= fault.from && failures < fault.times) {
      failures += 1;
      await fault.beforeFailing?.();
      throw new Error(fault.message);
    }
    return real(...args);
  };
  return { failures: () => failures };
}

export type ErrorInfo = { errorCode: string; errorDescription: string };
export function errorOf(notification: Record<string, unknown>): ErrorInfo | undefined {
  const content = notification.content as { payload?: { errorInformation?: ErrorInfo } };
  return content.payload?.errorInformation;
}
export function eventOf(notification: Record<string, unknown>) {
  return (notification.metadata as { event: { type: string; action: string; state: { status: string; code: number } } })
    .event;
}

/** a + b of two decimal amounts, as the position columns print them. */
export const plus = (a: string, b: string) => formatAmount(parseAmount(a) + parseAmount(b));

/** What useLedgerWithTopics sets up for a suite: filled in its beforeAll, closed and dropped in its afterAll. */
export interface LedgerWithTopics {
  readonly ledger: TestLedger;
  readonly input: TestTopic;
  readonly output: TestTopic;
  readonly producer: Producer;
  /** Reads `output` from its start. */
  readonly reader: TopicReader;
  /** Only when `service` was asked for. */
  readonly service: PositionService;
}

/**
 * A suite's own ledger (migrated by `migrate`, provisioned with `spec`), input and output topics, a producer and a
 * reader of the output; with `service`, a handler over them with those settings on top of testConfig's. Registers
 * the suite's beforeAll (`timeout` ms) and afterAll, so call it in the suite's body: vitest runs after-hooks in
 * reverse order, so the suite's own afterAll hooks registered before this one run after it.
 */
export function useLedgerWithTopics(
  prefix: string,
  spec: LedgerSpec,
  options: {
    migrate?: (knex: Knex) => Promise<void>;
    timeout?: number;
    service?: (env: LedgerWithTopics) => Partial<PositionConfig>;
  } = {},
): LedgerWithTopics {
  const env: { -readonly [K in keyof LedgerWithTopics]?: LedgerWithTopics[K] } = {};
  beforeAll(async () => {
    env.ledger = await createTestLedger(prefix, spec, options.migrate);
    [env.input, env.output] = await newTopics(prefix);
    env.producer = await openProducer();
    env.reader = await TopicReader.open(env.output);
    if (options.service) {
      const over = options.service(env as LedgerWithTopics);
      env.service = await startPositionService(testConfig(env.ledger.db, env.input, env.output, over), {
        logger: quietLogger,
      });
    }
  }, options.timeout);
  afterAll(async () => {
    await env.service?.stop();
    await env.reader?.close();
    await env.producer?.disconnect();
    await env.input?.drop();
    await env.output?.drop();
    await env.ledger?.drop();
  });
  return env as LedgerWithTopics;
}
