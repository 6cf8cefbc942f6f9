import type { ConnectionOptions } from 'node:tls';
import { Consumer, type MessagesStream, ProduceAcks, Producer } from '@platformatic/kafka';
import type { NotificationSource, ReadNotification } from './notifications.js';
import { keyPartitions } from './raw-producer.js';
import type { PreparedSends, ReplayMessage, ReplayProducer } from './replay.js';

/** Record overhead beside key and value in a v2 record batch (length, attributes, deltas, header count). */
const RECORD_OVERHEAD_BYTES = 8;

/**
 * The replay's producer on @platformatic/kafka, the client the handler runs on by default:
 * keys and values encoded to bytes and partitioned before the measured window, as the raw producer does; each
 * send is one `send` of the client (acks=all), which batches per partition and leader itself.
 */
export class PlatformaticReplayProducer implements ReplayProducer {
  private constructor(
    private readonly producer: Producer,
    readonly topic: string,
    private readonly partitionIds: readonly number[],
  ) {}

  static async connect(
    brokers: readonly string[],
    topic: string,
    tls?: ConnectionOptions,
  ): Promise<PlatformaticReplayProducer> {
    const producer = new Producer({
      clientId: 'mojafast-bench-replay',
      bootstrapBrokers: [...brokers],
      ...(tls ? { tls } : {}),
      acks: ProduceAcks.ALL,
      retries: 0,
    });
    const metadata = await producer.metadata({ topics: [topic] });
    const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
    if (count === 0) throw new Error(`topic ${topic} has no partitions`);
    // Kafka numbers a topic's partitions 0..n-1.
    return new PlatformaticReplayProducer(
      producer,
      topic,
      Array.from({ length: count }, (_, i) => i),
    );
  }

  prepare(messages: readonly ReplayMessage[]): PreparedSends {
    const keys = messages.map((m) => (m.key === null ? null : Buffer.from(m.key)));
    const partitions = keyPartitions(this.topic, this.partitionIds, keys);
    const records = messages.map((m, i) => {
      const key = keys[i] ?? undefined;
      return { topic: this.topic, partition: partitions[i] as number, value: Buffer.from(m.value), key };
    });
    return {
      sizeOf: (i) => {
        const r = records[i] as (typeof records)[number];
        return (r.key?.length ?? 0) + r.value.length + RECORD_OVERHEAD_BYTES;
      },
      send: (from, to, timestamp) => {
        const stamp = BigInt(timestamp);
        return this.producer.send({
          messages: records.slice(from, to).map((r) => ({ ...r, timestamp: stamp })),
        });
      },
    };
  }

  async disconnect(): Promise<void> {
    await this.producer.close();
  }
}

/**
 * The notification reader on @platformatic/kafka: the topic from its start, fetched lazily as the kafkajs
 * reader does (1 MiB or 200 ms: latency comes from the notifications' CreateTime, not from when they are read).
 */
export class PlatformaticNotificationSource implements NotificationSource {
  readonly #consumer: Consumer;
  #stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;

  constructor(
    brokers: readonly string[],
    readonly topic: string,
    tls?: ConnectionOptions,
  ) {
    this.#consumer = new Consumer({
      clientId: 'mojafast-bench-reader',
      bootstrapBrokers: [...brokers],
      ...(tls ? { tls } : {}),
      groupId: `${topic}-bench-reader`,
      autocommit: false,
      minBytes: 1024 * 1024,
      maxWaitTime: 200,
      maxBytesPerPartition: 8 * 1024 * 1024,
    });
  }

  async start(onMessages: (messages: readonly ReadNotification[]) => void): Promise<void> {
    this.#stream = await this.#consumer.consume({ topics: [this.topic], mode: 'earliest', autocommit: false });
    this.#stream.on('data', (message) => {
      onMessages([{ timestamp: Number(message.timestamp), value: message.value ?? null }]);
    });
  }

  async stop(): Promise<void> {
    await this.#stream?.close();
    await this.#consumer.close(true);
  }
}
