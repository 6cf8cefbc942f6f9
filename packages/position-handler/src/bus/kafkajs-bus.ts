import {
  CompressionTypes,
  type Consumer,
  Kafka,
  type KafkaConfig,
  logLevel,
  Partitioners,
  type Producer,
  type SASLOptions,
} from 'kafkajs';
import { chunkBySize } from './chunk.js';
import { withLinger } from './linger.js';
import { SettleChain } from './settle-chain.js';
import type { BusOptions, KafkaSecurity, OutboundMessage, PartitionBatch, PositionBus } from './types.js';

/** kafkajs compresses with gzip only, unless codecs are plugged in (config.ts refuses the others for it). */
const KAFKAJS_COMPRESSION = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP } as const;

/**
 * kafkajs' `ssl` (Node's tls.connect options; it sends the broker's host as SNI unless it is an address) and
 * `sasl` (its mechanism names are lower case).
 */
export function kafkajsConnection(security: KafkaSecurity): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const sasl = security.sasl;
  const mechanism = sasl?.mechanism.toLowerCase() as 'plain' | 'scram-sha-256' | 'scram-sha-512' | undefined;
  return {
    ...(security.tls === undefined ? {} : { ssl: security.tls }),
    ...(sasl === undefined || mechanism === undefined
      ? {}
      : { sasl: { mechanism, username: sasl.username, password: sasl.password } as SASLOptions }),
  };
}

/** The wait before a failed offset commit is tried again. */
const COMMIT_RETRY_MS = 200;

export function createKafkajsBus(options: BusOptions): PositionBus {
  if (options.compression !== 'none' && options.compression !== 'gzip') {
    throw new Error(`kafkajs cannot compress with ${options.compression} (none or gzip)`);
  }
  const compression = KAFKAJS_COMPRESSION[options.compression];
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }) => {
        const { message, ...extra } = log;
        if (level <= logLevel.ERROR) options.logger.error(extra, `kafkajs: ${message}`);
        else options.logger.warn(extra, `kafkajs: ${message}`);
      },
    retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 5_000 },
    ...kafkajsConnection(options.security),
  });
  const consumer: Consumer = kafka.consumer({
    groupId: options.groupId,
    maxBytesPerPartition: options.maxBytesPerPartition,
    maxBytes: options.maxBytesPerPartition * Math.max(1, options.partitionsConsumedConcurrently),
    minBytes: options.fetchMinBytes,
    maxWaitTimeInMs: options.fetchMaxWaitMs,
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
  /**
   * Each partition's settle chain (settle-chain.ts), beside kafkajs' own fetch position; a seek starts a new
   * one. kafkajs keeps the rest of the partition's state (its fetch position, and marking batches stale).
   */
  const chains = new Map<string, SettleChain>();
  const seek = (topic: string, partition: number, offset: string) => {
    chains.delete(`${topic}:${partition}`);
    // kafkajs applies a seek on its next fetch and marks the batches fetched before it stale.
    consumer.seek({ topic, partition, offset });
  };
  const chainOf = (topic: string, partition: number) => {
    const key = `${topic}:${partition}`;
    let chain = chains.get(key);
    if (!chain) {
      chain = new SettleChain({
        seek: (offset) => seek(topic, partition, offset.toString()),
        pause: () => new Promise((resolve) => setTimeout(resolve, COMMIT_RETRY_MS)),
      });
      chains.set(key, chain);
    }
    return chain;
  };
  consumer.on(consumer.events.GROUP_JOIN, () => {
    inGroup = true;
  });
  consumer.on(consumer.events.CRASH, (event) => {
    inGroup = false;
    options.logger.error({ err: event.payload.error }, 'consumer crashed; kafkajs restarts it');
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
        // Offsets are committed by the runner, only after the DB commit and the notifications (at least once).
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: options.partitionsConsumedConcurrently,
        eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
          const chain = chainOf(batch.topic, batch.partition);
          const isActive = () => isRunning() && !isStale();
          const partitionBatch: PartitionBatch = {
            topic: batch.topic,
            partition: batch.partition,
            messages: batch.messages.map((m) => ({ key: m.key, value: m.value, offset: m.offset })),
            highWatermark: batch.highWatermark,
            heartbeat,
            resolve: resolveOffset,
            isActive,
            settle: (produced, firstOffset, lastOffset, commit, commitFailed) =>
              chain.settle({ produced, firstOffset, lastOffset, isActive, commit, commitFailed }),
          };
          await handle(partitionBatch);
        },
      });
    },
    produce: withLinger(async (messages: readonly OutboundMessage[]) => {
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
          chunkBySize(group, options.produceBatchBytes).map((chunk) =>
            producer.send({
              topic,
              acks: options.acks,
              compression,
              messages: chunk.map((m) => ({ key: m.key, value: m.value })),
            }),
          ),
        ),
      );
    }, options.produceLingerMs),
    async commit(topic, partition, nextOffset) {
      await consumer.commitOffsets([{ topic, partition, offset: nextOffset }]);
    },
    seek,
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
