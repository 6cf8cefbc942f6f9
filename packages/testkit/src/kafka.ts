import { Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import { recordResource } from './leftovers.js';
import { uniqueName } from './names.js';
import { type InfraSettings, loadInfraSettings, readTlsCredentials } from './settings.js';

export interface TestTopic {
  readonly name: string;
  readonly partitions: number;
  readonly brokers: readonly string[];
  /** Deletes the topic; safe to call twice. */
  drop(): Promise<void>;
}

export interface TopicOptions {
  readonly prefix?: string;
  /** The exact name, for a topic another program derives from a prefix (e.g. central-ledger's templates). */
  readonly name?: string;
  readonly partitions?: number;
  readonly settings?: InfraSettings;
  /** On the secure stack's broker (over its SSL listener) instead of the plain one. */
  readonly secure?: boolean;
}

/**
 * How a client reaches the secure stack's broker: `ssl` (encrypt-only), `mtls` (with the client certificate),
 * or SASL_SSL with one of the three mechanisms it offers.
 */
export type KafkaSecurity = 'ssl' | 'mtls' | 'sasl-plain' | 'sasl-scram-sha-256' | 'sasl-scram-sha-512';

/** The kafkajs brokers, ssl and sasl options for one of the secure stack's listeners. */
export function secureKafkaConfig(
  security: KafkaSecurity,
  settings: InfraSettings = loadInfraSettings(),
): Pick<KafkaConfig, 'brokers' | 'ssl' | 'sasl'> {
  const { kafka } = settings.tls;
  const { ca, cert, key } = readTlsCredentials(settings);
  switch (security) {
    case 'ssl':
      return { brokers: [...kafka.sslBrokers], ssl: { ca } };
    case 'mtls':
      return { brokers: [...kafka.mtlsBrokers], ssl: { ca, cert, key } };
    case 'sasl-plain':
      return { brokers: [...kafka.saslBrokers], ssl: { ca }, sasl: { mechanism: 'plain', ...kafka.sasl } };
    case 'sasl-scram-sha-256':
      return { brokers: [...kafka.saslBrokers], ssl: { ca }, sasl: { mechanism: 'scram-sha-256', ...kafka.sasl } };
    case 'sasl-scram-sha-512':
      return { brokers: [...kafka.saslBrokers], ssl: { ca }, sasl: { mechanism: 'scram-sha-512', ...kafka.sasl } };
  }
}

/** A kafkajs client of the plain broker, or with `security` of the secure stack's. */
export function testKafka(
  settings: InfraSettings = loadInfraSettings(),
  clientId = 'mojafast-test',
  security?: KafkaSecurity,
): Kafka {
  const connection = security ? secureKafkaConfig(security, settings) : { brokers: [...settings.kafka.brokers] };
  return new Kafka({ clientId, ...connection, logLevel: logLevel.ERROR });
}

type Admin = ReturnType<Kafka['admin']>;

/**
 * Until every partition of a new topic has a leader. kafkajs's own `waitForLeaders` gives up on the first
 * metadata answer that does not know the topic yet ("This server does not host this topic-partition"), which
 * a loaded broker gives for a moment after the creation; that answer is retried here, for at most 30 s.
 */
async function waitForLeaders(admin: Admin, topic: string, partitions: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = 'no metadata yet';
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      const found = topics[0]?.partitions ?? [];
      if (found.length === partitions && found.every((p) => p.leader >= 0)) return;
      last = `${found.filter((p) => p.leader >= 0).length} of ${partitions} partitions with a leader`;
    } catch (error) {
      if ((error as { type?: string }).type !== 'UNKNOWN_TOPIC_OR_PARTITION') throw error;
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`topic ${topic}: no leader for every partition within 30 s (${last})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Creates a topic that belongs to one test file, and waits until its partitions have leaders. */
export async function createTopic(options: TopicOptions = {}): Promise<TestTopic> {
  const settings = options.settings ?? loadInfraSettings();
  const name = options.name ?? uniqueName(options.prefix ?? 'test');
  const partitions = options.partitions ?? 1;
  const security = options.secure ? 'ssl' : undefined;
  const brokers = options.secure ? settings.tls.kafka.sslBrokers : settings.kafka.brokers;
  const admin = testKafka(settings, 'mojafast-testkit-admin', security).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions }] });
    await waitForLeaders(admin, name, partitions);
  } finally {
    await admin.disconnect();
  }
  const server = brokers.join(',');
  recordResource('topic', name, server, 'created');
  let dropped = false;
  return {
    name,
    partitions,
    brokers,
    async drop() {
      if (dropped) return;
      dropped = true;
      const dropper = testKafka(settings, 'mojafast-testkit-admin', security).admin();
      await dropper.connect();
      try {
        await dropper.deleteTopics({ topics: [name] });
        recordResource('topic', name, server, 'dropped');
      } finally {
        await dropper.disconnect();
      }
    },
  };
}

/**
 * Deletes every topic whose name starts with `prefix` (what an original's start created beside a run's own),
 * on the plain broker or, with `security`, the secure stack's.
 */
export async function dropTopicsWithPrefix(
  settings: InfraSettings,
  prefix: string,
  security?: KafkaSecurity,
): Promise<void> {
  const admin = testKafka(settings, 'mojafast-testkit-admin', security).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}
