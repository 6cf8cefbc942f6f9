import type { InboundMessage, KafkajsBusOptions, OutboundMessage, PositionBus } from '@mojafast/position-handler';
import { Consumer, type Message, type MessagesStream, Producer, stringSerializers } from '@platformatic/kafka';

/** Sends are cut at this many bytes of values: the broker refuses a partition batch over message.max.bytes (1 MiB). */
const PRODUCE_CHUNK_BYTES = 800_000;
/** Messages held for partitions whose previous batch is still in hand before the stream is paused. */
const MAX_BUFFERED = 50_000;

/**
 * The handler's PositionBus on @platformatic/kafka instead of kafkajs, for the passthrough only: the same
 * floor measured with another client (bench dependency; the handler stays on kafkajs). platformatic's
 * consumer is a stream of messages, so batches are rebuilt per partition: whatever arrived for a partition
 * while its previous batch was in hand is its next batch, as kafkajs hands over a fetch.
 */
export function createPlatformaticBus(options: KafkajsBusOptions): PositionBus {
  const base = { clientId: options.clientId, bootstrapBrokers: [...options.brokers] };
  const consumer = new Consumer({
    ...base,
    groupId: options.groupId,
    autocommit: false,
    maxBytesPerPartition: options.maxBytesPerPartition,
    maxWaitTime: 100,
    sessionTimeout: options.sessionTimeoutMs,
    heartbeatInterval: Math.max(500, Math.floor(options.sessionTimeoutMs / 10)),
  });
  const producer = new Producer({ ...base, serializers: stringSerializers, acks: -1 });
  let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  let running = false;
  const inHand = new Set<Promise<void>>();

  return {
    async start(handle) {
      stream = await consumer.consume({
        topics: [...options.topics],
        mode: 'committed',
        fallbackMode: options.fromBeginning ? 'earliest' : 'latest',
      });
      running = true;
      const buffered = new Map<string, Message<Buffer, Buffer, Buffer, Buffer>[]>();
      const busy = new Set<string>();
      let count = 0;
      const run = (id: string, topic: string, partition: number) => {
        const messages = buffered.get(id);
        if (busy.has(id) || !messages || messages.length === 0 || !running) return;
        buffered.set(id, []);
        count -= messages.length;
        if (count < MAX_BUFFERED / 2 && stream?.isPaused()) stream.resume();
        busy.add(id);
        const inbound: InboundMessage[] = messages.map((m) => ({
          key: m.key ?? null,
          value: m.value ?? null,
          offset: m.offset.toString(),
        }));
        const work = handle({
          topic,
          partition,
          messages: inbound,
          highWatermark: '0',
          heartbeat: async () => {},
          resolve: () => {},
          isActive: () => running,
        })
          .catch((error: unknown) => options.logger.error('passthrough batch failed', { error: String(error) }))
          .finally(() => {
            busy.delete(id);
            inHand.delete(work);
            run(id, topic, partition);
          });
        inHand.add(work);
      };
      stream.on('data', (message: Message<Buffer, Buffer, Buffer, Buffer>) => {
        const id = `${message.topic}:${message.partition}`;
        const list = buffered.get(id) ?? [];
        list.push(message);
        buffered.set(id, list);
        if (++count >= MAX_BUFFERED) stream?.pause();
        if (list.length === 1) setImmediate(() => run(id, message.topic, message.partition));
      });
      stream.on('error', (error: Error) => options.logger.error('platformatic stream error', { error: String(error) }));
    },
    async produce(messages: readonly OutboundMessage[]) {
      const sends: Promise<unknown>[] = [];
      let chunk: { topic: string; key?: string; value: string }[] = [];
      let size = 0;
      for (const m of messages) {
        const length = Buffer.byteLength(m.value) + 64;
        if (chunk.length > 0 && size + length > PRODUCE_CHUNK_BYTES) {
          sends.push(producer.send({ messages: chunk, acks: -1 }));
          chunk = [];
          size = 0;
        }
        // A follow-up of an FX step names its own topic and key (the next step's account).
        chunk.push({
          topic: m.topic ?? options.notificationTopic,
          value: m.value,
          ...(m.key === null ? {} : { key: m.key }),
        });
        size += length;
      }
      if (chunk.length > 0) sends.push(producer.send({ messages: chunk, acks: -1 }));
      await Promise.all(sends);
    },
    async commit(topic, partition, nextOffset) {
      await consumer.commit({ offsets: [{ topic, partition, offset: BigInt(nextOffset), leaderEpoch: -1 }] });
    },
    seek(topic, partition, offset) {
      // The message stream cannot be re-positioned per partition here: a chunk whose notifications failed is
      // not re-read, and the bench's exactly-once check reports it as lost. Comparison runs only.
      options.logger.error('seek not supported on the comparison bus; the chunk will be reported lost', {
        topic,
        partition,
        offset,
      });
    },
    isReady() {
      return running;
    },
    async stop() {
      running = false;
      await Promise.allSettled([...inHand]);
      await stream?.close();
      await consumer.close();
      await producer.close();
    },
  };
}
