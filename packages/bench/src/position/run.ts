import { createKnex, migrateLatest } from '@mojafast/position-handler';
import {
  createDatabase,
  createTopic,
  dropTopicsWithPrefix,
  loadInfraSettings,
  type TestTopic,
  testKafka,
  uniqueName,
} from '@mojafast/testkit';
import mysql from 'mysql2/promise';
import { migrateAndSeedCentralLedger } from '../../../../infra/central-ledger/migrate.mjs';
import type { ActionMix } from './action-mix.js';
import { type Fleet, type PositionTarget, startFleet } from './fleet.js';
import { measurePhase, type PhaseResult } from './measure-phase.js';
import { KafkajsNotificationSource, NotificationCollector } from './notifications.js';
import { PlatformaticNotificationSource, PlatformaticReplayProducer } from './platformatic-replay.js';
import { provisionWorkload, recordFulfilOutcomes } from './provision-workload.js';
import { RawProducer } from './raw-producer.js';
import type { ReplayProducer } from './replay.js';
import { type BenchStack, stackConnections } from './stack.js';
import { positionMismatches } from './verify.js';

export type { PositionTarget } from './fleet.js';
export type { PhaseLabel, PhaseResult } from './measure-phase.js';

export interface PositionBenchOptions {
  readonly target?: PositionTarget;
  /** KAFKA_CLIENT of the handler (and of the passthrough: the floor is measured on the same client). */
  readonly handlerClient?: 'kafkajs' | 'platformatic';
  /** The bench's replay producer: its own Produce requests (raw-producer.ts, default) or @platformatic/kafka's. */
  readonly benchProducer?: BenchProducer;
  /**
   * The bench's notification reader: @platformatic/kafka (default: the handler's default client, and it cost the
   * bench less CPU per message than kafkajs, measured/bench-clients-*.json) or kafkajs.
   */
  readonly benchReader?: BenchReader;
  readonly transfers: number;
  readonly dfsps: number;
  readonly currencies: number;
  readonly partitions: number;
  readonly instances: number;
  readonly batchSize: number;
  /** Messages per second offered; 0 = burst. */
  readonly rate: number;
  readonly dump?: string | undefined;
  readonly writeDump?: string | undefined;
  readonly delimiter: string;
  /** Give up waiting when no notification arrived for this long. */
  readonly stallMs: number;
  readonly keep: boolean;
  readonly handlerEnv?: Record<string, string>;
  /** The handler's built entry point: this checkout's by default, another build's for --baseline. */
  readonly handlerEntry?: string;
  readonly onProgress?: (line: string) => void;
  /** Which actions a generated run replays; a dump is replayed as it is (prepares, then commits). */
  readonly mix?: ActionMix;
  /**
   * The database migrated with central-ledger 19.5.5's own migrations and seeds instead of ours, and the topics
   * named as its templates make them from a prefix (`<prefix>topic-transfer-position-batch`,
   * `<prefix>topic-notification-event`): what the original's handler needs, given to ours too when the two are
   * compared.
   */
  readonly centralLedgerSchema?: boolean;
  /** The plain servers (default) or the secure stack's: TLS to the broker and the database (stack.ts). */
  readonly stack?: BenchStack;
}

export type BenchProducer = 'raw' | 'platformatic';
export type BenchReader = 'kafkajs' | 'platformatic';

export interface PositionBenchResult {
  readonly phases: PhaseResult[];
  readonly positionMismatches: string[];
  readonly database: string;
}

/**
 * One replay: a fresh database provisioned as central-ledger's prepare handler would leave it
 * (provision-workload.ts), fresh topics, our handler started as separate processes (fleet.ts), then each
 * phase (after the fulfil handler's state is written) replayed and measured from the first input to the last
 * notification (measure-phase.ts), and checked (verify.ts): every transfer notified exactly once, final
 * positions equal to the expected totals.
 */
export async function runPositionBench(options: PositionBenchOptions): Promise<PositionBenchResult> {
  const say = options.onProgress ?? (() => {});
  const target = options.target ?? 'handler';
  const settings = loadInfraSettings();
  const stack = stackConnections(options.stack ?? 'plain', settings);
  const secure = stack.stack === 'tls';
  const clSchema = options.centralLedgerSchema === true || target === 'original';
  if (secure && target === 'original')
    throw new Error("the secure stack runs our handler and the passthrough, not central-ledger's own");
  const db = await createDatabase({ prefix: 'bench_position', secure });
  // mysql2 writes its defaults into the ssl object it is given: each client gets its own copy.
  const dbConnection = () => ({ ...db.connection, ...(db.connection.ssl ? { ssl: { ...db.connection.ssl } } : {}) });
  const knex = createKnex({ ...dbConnection(), poolMax: 2 });
  const prefix = clSchema ? `${uniqueName('bench')}-` : undefined;
  // A topic refused half-way (no leader yet) must not leave the database and the first topic behind.
  let inputTopic: TestTopic | undefined;
  let notificationTopic: TestTopic;
  try {
    inputTopic = await createTopic(
      prefix
        ? { name: `${prefix}topic-transfer-position-batch`, partitions: options.partitions }
        : { prefix: 'bench-position', partitions: options.partitions, secure },
    );
    notificationTopic = await createTopic(
      prefix
        ? { name: `${prefix}topic-notification-event`, partitions: options.partitions }
        : { prefix: 'bench-notification', partitions: options.partitions, secure },
    );
  } catch (error) {
    await knex.destroy();
    await Promise.all([inputTopic?.drop(), db.drop()]).catch(() => {});
    throw error;
  }
  const kafka = testKafka(settings, 'mojafast-bench-position', stack.kafkajs);
  let producer: ReplayProducer | undefined;
  const collector = new NotificationCollector(
    options.benchReader === 'kafkajs'
      ? new KafkajsNotificationSource(kafka, notificationTopic.name)
      : new PlatformaticNotificationSource(stack.brokers, notificationTopic.name, stack.tls),
  );
  let fleet: Fleet | undefined;
  const statusConnection = await mysql.createConnection(dbConnection());
  try {
    if (clSchema) await migrateAndSeedCentralLedger(knex);
    else await migrateLatest(knex);
    say(`provisioning ${db.name}`);
    const work = await provisionWorkload(options, knex);
    say(
      `${work.transfers} transfers, ${work.phases.map((p) => `${p.label} ${p.messages.length} messages`).join(', ')}, ${work.ledger.accounts.size} accounts`,
    );
    const [replayProducer] = await Promise.all([
      options.benchProducer === 'platformatic'
        ? PlatformaticReplayProducer.connect(stack.brokers, inputTopic.name, stack.tls)
        : RawProducer.connect(kafka, inputTopic.name, stack.tls),
      collector.start(),
    ]);
    producer = replayProducer;
    fleet = await startFleet({
      target,
      ...(options.handlerEntry ? { handlerEntry: options.handlerEntry } : {}),
      instances: options.instances,
      stack,
      ...(prefix ? { original: { prefix, database: db.name, batchSize: options.batchSize } } : {}),
      env: {
        KAFKA_BROKERS: stack.brokers.join(','),
        POSITION_TOPICS: inputTopic.name,
        NOTIFICATION_TOPIC: notificationTopic.name,
        POSITION_CONSUMER_GROUP: `${inputTopic.name}-handlers`,
        POSITION_BATCH_SIZE: String(options.batchSize),
        // The follow-ups of FX commits come back to the topic the handlers consume (a batching deployment's
        // KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.COMMIT).
        POSITION_COMMIT_TOPIC: inputTopic.name,
        DB_HOST: db.connection.host,
        DB_PORT: String(db.connection.port),
        DB_USER: db.connection.user,
        DB_PASSWORD: db.connection.password,
        DB_NAME: db.name,
        LOG_LEVEL: 'warn',
        ...stack.handlerEnv,
        ...(options.handlerClient ? { KAFKA_CLIENT: options.handlerClient } : {}),
        ...options.handlerEnv,
      },
    });
    const rig = {
      producer: replayProducer,
      collector,
      statusConnection,
      pids: fleet.pids,
      metricsUrls: fleet.metricsUrls,
      target,
      rate: options.rate,
      stallMs: options.stallMs,
      say,
    };
    const phases: PhaseResult[] = [];
    for (const phase of work.phases) {
      if (target !== 'passthrough') await recordFulfilOutcomes(knex, phase.outcomes);
      phases.push(await measurePhase(rig, phase));
    }
    // The passthrough writes nothing: exactly-once notification is its only outcome to check.
    if (target === 'passthrough') return { phases, positionMismatches: [], database: db.name };
    return {
      phases,
      positionMismatches: await positionMismatches(knex, work.ledger, work.expected),
      database: db.name,
    };
  } finally {
    await fleet?.stop();
    await collector.stop().catch(() => {});
    await producer?.disconnect().catch(() => {});
    await statusConnection.end().catch(() => {});
    await knex.destroy();
    if (!options.keep) {
      await Promise.all([inputTopic.drop(), notificationTopic.drop(), db.drop()]).catch(() => {});
      // The original's start creates the rest of its prefixed topics (prepare, fulfil, ...): they go too.
      if (prefix) await dropTopicsWithPrefix(settings, prefix, stack.kafkajs).catch(() => {});
    }
  }
}
