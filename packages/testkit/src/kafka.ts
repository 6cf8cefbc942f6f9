import { Kafka, logLevel } from 'kafkajs';
import { recordResource } from './leftovers.js';
import { uniqueName } from './names.js';
import { type InfraSettings, loadInfraSettings } from './settings.js';

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
}

export function testKafka(settings: InfraSettings = loadInfraSettings(), clientId = 'mojafast-test'): Kafka {
  return new Kafka({ clientId, brokers: [...settings.kafka.brokers], logLevel: logLevel.ERROR });
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
  const admin = testKafka(settings, 'mojafast-testkit-admin').admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions }] });
    await waitForLeaders(admin, name, partitions);
  } finally {
    await admin.disconnect();
  }
  const server = settings.kafka.brokers.join(',');
  recordResource('topic', name, server, 'created');
  let dropped = false;
  return {
    name,
    partitions,
    brokers: settings.kafka.brokers,
    async drop() {
      if (dropped) return;
      dropped = true;
      const dropper = testKafka(settings, 'mojafast-testkit-admin').admin();
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
