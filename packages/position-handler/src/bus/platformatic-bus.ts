import { Consumer, Producer } from '@platformatic/kafka';
import { chunkBySize } from './chunk.js';
import { withLinger } from './linger.js';
import { PartitionFetcher } from './partition-fetcher.js';
import { platformaticConnection } from './platformatic-connection.js';
import { platformaticFetcherIo } from './platformatic-fetch-io.js';
import type { BusOptions, OutboundMessage, PositionBus } from './types.js';

/** Back-off after a failed metadata, fetch or offset lookup before the fetch loop tries again. */
const RETRY_MS = 200;

/**
 * The PositionBus on @platformatic/kafka. Its message stream (`consumer.consume`) cannot move one partition
 * back, so the fetch loop is this project's own (PartitionFetcher, partition-fetcher.ts: positions, epochs,
 * seek, revocation, offset recovery) and this adapter gives it the client's lower-level calls: `joinGroup`
 * (membership, assignment and the heartbeat timer), `fetch` per leader (on a connection pool of its own, so a
 * fetch waiting on the broker never holds up a heartbeat or an offset commit queued behind it on the
 * coordinator connection), `commit`, `listCommittedOffsets`, `listOffsets`. Heartbeats run on the client's
 * timer (heartbeatInterval), whatever the handler is doing, so a long DB retry keeps the partitions without
 * help; the high watermark is the one of the fetch response.
 */
export function createPlatformaticBus(options: BusOptions): PositionBus {
  const base = {
    clientId: options.clientId,
    bootstrapBrokers: [...options.brokers],
    retries: 10,
    retryDelay: 100,
    ...platformaticConnection(options.security),
  };
  const consumer = new Consumer({
    ...base,
    groupId: options.groupId,
    autocommit: false,
    sessionTimeout: options.sessionTimeoutMs,
    heartbeatInterval: Math.max(500, Math.floor(options.sessionTimeoutMs / 10)),
    rebalanceTimeout: options.sessionTimeoutMs,
  });
  const producer = new Producer({
    ...base,
    acks: options.acks,
    compression: options.compression,
    autocreateTopics: true,
  });
  const topics = [...options.topics];

  const io = platformaticFetcherIo(consumer, options);
  const fetcher = new PartitionFetcher({
    io,
    topics,
    concurrency: options.partitionsConsumedConcurrently,
    fromBeginning: options.fromBeginning,
    retryMs: RETRY_MS,
    logger: options.logger,
  });
  let running = false;

  const send = async (messages: readonly OutboundMessage[]) => {
    // Encoded once: the size cut and the record batch use the same bytes. The sends go out together and are
    // awaited as one.
    // A message names its own topic when it is not a notification (an FX cyrilResult follow-up).
    const encoded = messages.map((m) => {
      const topic = m.topic ?? options.notificationTopic;
      return m.key === null
        ? { topic, value: Buffer.from(m.value) }
        : { topic, key: Buffer.from(m.key), value: Buffer.from(m.value) };
    });
    await Promise.all(
      chunkBySize(encoded, options.produceBatchBytes).map((chunk) => producer.send({ messages: chunk })),
    );
  };

  return {
    async start(handle) {
      // Connects the producer now: a broker that is down fails the start, not the first notification.
      await producer.metadata({ topics: [options.notificationTopic], autocreateTopics: true });
      // A position topic that does not exist fails the start (the process exits and is restarted) instead of
      // leaving a member with nothing to fetch; kafkajs' subscribe refuses it the same way.
      await consumer.metadata({ topics, autocreateTopics: false });
      consumer.on('consumer:group:join', (payload) => fetcher.assign(payload.assignments ?? []));
      // The client reports a rejoin that failed after its retries as an 'error' event (unheard, it would throw
      // and end the process). The member is out of the group then (/health says so) and joins again.
      let rejoining = false;
      const rejoin = async () => {
        rejoining = true;
        while (running && !consumer.isActive()) {
          await new Promise((resolve) => setTimeout(resolve, 5 * RETRY_MS));
          if (!running || consumer.isActive()) break;
          await consumer
            .joinGroup({})
            .catch((error: unknown) => options.logger.error({ err: error }, 'rejoin failed; retrying'));
        }
        rejoining = false;
      };
      consumer.on('error', (error: Error) => {
        options.logger.error({ err: error }, 'kafka consumer error');
        if (!rejoining && running && !consumer.isActive()) void rejoin();
      });
      producer.on('error', (error: Error) => options.logger.error({ err: error }, 'kafka producer error'));
      consumer.topics.trackAll(...topics);
      running = true;
      fetcher.start(handle);
      await consumer.joinGroup({});
    },
    produce: withLinger(send, options.produceLingerMs),
    commit: (topic, partition, nextOffset) => fetcher.commit(topic, partition, BigInt(nextOffset)),
    seek: (topic, partition, offset) => fetcher.seek(topic, partition, BigInt(offset)),
    isReady() {
      // The producer re-opens a connection the broker closed while idle on its next send: being open is enough.
      return running && consumer.isActive() && producer.isActive();
    },
    async stop() {
      running = false;
      await fetcher.stop();
      try {
        await consumer.leaveGroup();
      } catch {
        // The group forgets a member that left without a word after the session timeout.
      }
      await consumer.close();
      await io.close();
      await producer.close();
    },
  };
}
