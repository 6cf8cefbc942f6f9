import { type Consumer, Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import type { PositionConfig } from '../config/index.js';
import type { Logger } from '../observe/logger.js';
import type { OutboundMessage, PartitionBatch, PositionBus } from './types.js';

export interface KafkajsBusOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly notificationTopic: string;
  readonly fromBeginning: boolean;
  readonly partitionsConsumedConcurrently: number;
  readonly maxBytesPerPartition: number;
  readonly sessionTimeoutMs: number;
  readonly logger: Logger;
}

/** The bus settings of a handler configuration (the handler, and the bench's processes that share its env). */
export function busOptionsFromConfig(config: PositionConfig, logger: Logger, clientId = config.kafkaClientId) {
  return {
    brokers: config.kafkaBrokers,
    clientId,
    groupId: config.consumerGroup,
    topics: config.positionTopics,
    notificationTopic: config.notificationTopic,
    fromBeginning: config.fromBeginning,
    partitionsConsumedConcurrently: config.partitionsConsumedConcurrently,
    maxBytesPerPartition: config.maxBytesPerPartition,
    sessionTimeoutMs: config.sessionTimeoutMs,
    logger,
  } satisfies KafkajsBusOptions;
}

/**
 * kafkajs sends one record batch per partition per call, and the broker refuses a batch larger than
 * message.max.bytes (1 MiB by default), so sends are cut at this many bytes of values.
 */
const PRODUCE_CHUNK_BYTES = 800_000;

/** Splits messages into sends under PRODUCE_CHUNK_BYTES each (a single larger message goes alone). */
export function chunkBySize<T extends { readonly value: string }>(
  messages: readonly T[],
  limit = PRODUCE_CHUNK_BYTES,
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const message of messages) {
    const length = Buffer.byteLength(message.value) + 64;
    if (current.length > 0 && size + length > limit) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(message);
    size += length;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export function createKafkajsBus(options: KafkajsBusOptions): PositionBus {
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }) => {
        const { message, ...extra } = log;
        if (level <= logLevel.ERROR) options.logger.error(`kafkajs: ${message}`, extra);
        else options.logger.warn(`kafkajs: ${message}`, extra);
      },
    retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 5_000 },
  });
  const consumer: Consumer = kafka.consumer({
    groupId: options.groupId,
    maxBytesPerPartition: options.maxBytesPerPartition,
    maxBytes: options.maxBytesPerPartition * Math.max(1, options.partitionsConsumedConcurrently),
    maxWaitTimeInMs: 100,
    sessionTimeout: options.sessionTimeoutMs,
    heartbeatInterval: Math.max(500, Math.floor(options.sessionTimeoutMs / 10)),
    allowAutoTopicCreation: false,
  });
  const producer: Producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: true,
  });
  let inGroup = false;
  let producerUp = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    inGroup = true;
  });
  consumer.on(consumer.events.CRASH, (event) => {
    inGroup = false;
    options.logger.error('consumer crashed; kafkajs restarts it', { error: String(event.payload.error) });
  });
  consumer.on(consumer.events.STOP, () => {
    inGroup = false;
  });
  producer.on(producer.events.CONNECT, () => {
    producerUp = true;
  });
  producer.on(producer.events.DISCONNECT, () => {
    producerUp = false;
  });

  return {
    async start(handle) {
      await producer.connect();
      await consumer.connect();
      await consumer.subscribe({ topics: [...options.topics], fromBeginning: options.fromBeginning });
      await consumer.run({
        // Offsets are committed by the runner, only after the DB commit and the notifications (issue #5).
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently,
        eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
          const partitionBatch: PartitionBatch = {
            topic: batch.topic,
            partition: batch.partition,
            messages: batch.messages.map((m) => ({ key: m.key, value: m.value, offset: m.offset })),
            highWatermark: batch.highWatermark,
            heartbeat,
            resolve: resolveOffset,
            isActive: () => isRunning() && !isStale(),
          };
          await handle(partitionBatch);
        },
      });
    },
    async produce(messages: readonly OutboundMessage[]) {
      // The sends go out together (kafkajs pipelines requests on the connection) and are awaited as one.
      const byTopic = new Map<string, OutboundMessage[]>();
      for (const m of messages) {
        const topic = m.topic ?? options.notificationTopic;
        const group = byTopic.get(topic);
        if (group) group.push(m);
        else byTopic.set(topic, [m]);
      }
      await Promise.all(
        [...byTopic].flatMap(([topic, group]) =>
          chunkBySize(group).map((chunk) =>
            producer.send({ topic, acks: -1, messages: chunk.map((m) => ({ key: m.key, value: m.value })) }),
          ),
        ),
      );
    },
    async commit(topic, partition, nextOffset) {
      await consumer.commitOffsets([{ topic, partition, offset: nextOffset }]);
    },
    seek(topic, partition, offset) {
      // kafkajs applies a seek on its next fetch and marks the batches fetched before it stale.
      consumer.seek({ topic, partition, offset });
    },
    isReady() {
      return inGroup && producerUp;
    },
    async stop() {
      // kafkajs' disconnect stops fetching and waits for the eachBatch in progress before leaving the group.
      await consumer.disconnect();
      await producer.disconnect();
    },
  };
}
