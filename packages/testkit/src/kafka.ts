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

/** Creates a topic that belongs to one test file, and waits until its partitions have leaders. */
export async function createTopic(options: TopicOptions = {}): Promise<TestTopic> {
  const settings = options.settings ?? loadInfraSettings();
  const name = options.name ?? uniqueName(options.prefix ?? 'test');
  const partitions = options.partitions ?? 1;
  const admin = testKafka(settings, 'mojafast-testkit-admin').admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions }], waitForLeaders: true });
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
