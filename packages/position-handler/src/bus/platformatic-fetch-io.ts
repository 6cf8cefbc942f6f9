import {
  type ClusterMetadata,
  ConnectionPool,
  type Consumer,
  IS_CONTROL,
  ListOffsetTimestamps,
} from '@platformatic/kafka';
import {
  type FetchedPartition,
  type FetcherIo,
  type FetchPosition,
  OffsetOutOfRangeError,
  type TopicPartition,
} from './partition-fetcher.js';
import { platformaticConnection } from './platformatic-connection.js';
import type { BusOptions, InboundMessage } from './types.js';

export type FetchResponse = Awaited<ReturnType<Consumer['fetch']>>;

/** Kafka's OFFSET_OUT_OF_RANGE: the fetch position is before the log start (retention) or after its end. */
const OFFSET_OUT_OF_RANGE = 1;

/** The topic names of a fetch response's topic ids (fetch v13+ names topics by id). */
export function topicNames(metadata: ClusterMetadata, topics: Iterable<string>): Map<string, string> {
  const names = new Map<string, string>();
  for (const topic of topics) names.set(metadata.topics.get(topic)?.id ?? topic, topic);
  return names;
}

/** A fetch response's partitions as the fetcher takes them: the records from each requested offset on. */
export function fetchedPartitions(
  response: FetchResponse,
  names: Map<string, string>,
  positions: readonly FetchPosition[],
): FetchedPartition[] {
  const from = new Map(positions.map((p) => [`${p.topic}:${p.partition}`, p.offset]));
  const fetched: FetchedPartition[] = [];
  for (const topicResponse of response.responses) {
    const topic = names.get(topicResponse.topicId) ?? topicResponse.topicId;
    for (const part of topicResponse.partitions) {
      const start = from.get(`${topic}:${part.partitionIndex}`);
      if (start === undefined) continue;
      const messages: InboundMessage[] = [];
      let nextOffset = start;
      for (const batch of part.records ?? []) {
        nextOffset = batch.firstOffset + BigInt(batch.lastOffsetDelta) + 1n;
        if (batch.attributes & IS_CONTROL) continue;
        for (const record of batch.records) {
          const offset = batch.firstOffset + BigInt(record.offsetDelta);
          // A compressed batch is returned whole, including the records before the requested offset.
          if (offset < start) continue;
          messages.push({ key: record.key, value: record.value, offset: offset.toString() });
        }
      }
      fetched.push({
        topic,
        partition: part.partitionIndex,
        messages,
        nextOffset,
        highWatermark: part.highWatermark.toString(),
      });
    }
  }
  return fetched;
}

/** The partitions a failed fetch names as out of range, if its error carries the response. */
export function outOfRange(error: unknown, names: Map<string, string>): TopicPartition[] {
  const response = (error as { response?: FetchResponse }).response;
  const partitions: TopicPartition[] = [];
  for (const topicResponse of response?.responses ?? []) {
    const topic = names.get(topicResponse.topicId) ?? topicResponse.topicId;
    for (const part of topicResponse.partitions) {
      if (part.errorCode === OFFSET_OUT_OF_RANGE) partitions.push({ topic, partition: part.partitionIndex });
    }
  }
  return partitions;
}

/**
 * The fetch loop's client calls on a @platformatic/kafka consumer: metadata for leaders and topic ids, `fetch`
 * to one leader, `listCommittedOffsets`, `listOffsets`, `commit`. `close` ends the fetch connections.
 */
export function platformaticFetcherIo(
  consumer: Consumer,
  options: Pick<BusOptions, 'clientId' | 'fetchMinBytes' | 'fetchMaxWaitMs' | 'maxBytesPerPartition' | 'security'>,
): FetcherIo<ClusterMetadata> & { close(): Promise<void> } {
  /**
   * Fetches run on connections of their own, one pool per fetch in flight: the broker answers a connection's
   * requests in order, so a fetch waiting (up to fetchMaxWaitMs) for one partition's data would otherwise hold
   * up the fetch of a partition whose batch just finished.
   */
  const pools: ConnectionPool[] = [];
  const freePools: ConnectionPool[] = [];
  return {
    route: (names) => consumer.metadata({ topics: [...names] }),
    leaderOf: (metadata, topic, partition) => metadata.topics.get(topic)?.partitions[partition]?.leader,
    async fetch(metadata, node, positions) {
      const names = topicNames(metadata, new Set(positions.map((p) => p.topic)));
      const byTopic = new Map<string, FetchPosition[]>();
      for (const p of positions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p]);
      let pool = freePools.pop();
      if (!pool) {
        pool = new ConnectionPool(
          `${options.clientId}-fetch-${pools.length}`,
          platformaticConnection(options.security),
        );
        pools.push(pool);
      }
      try {
        const response = await consumer.fetch({
          node,
          connectionPool: pool,
          minBytes: options.fetchMinBytes,
          maxWaitTime: options.fetchMaxWaitMs,
          maxBytes: options.maxBytesPerPartition * Math.max(1, positions.length),
          topics: [...byTopic].map(([topic, parts]) => ({
            topicId: metadata.topics.get(topic)?.id ?? topic,
            partitions: parts.map((p) => ({
              partition: p.partition,
              fetchOffset: p.offset,
              partitionMaxBytes: options.maxBytesPerPartition,
              currentLeaderEpoch: -1,
              lastFetchedEpoch: -1,
            })),
          })),
        });
        return fetchedPartitions(response, names, positions);
      } catch (error) {
        const refused = outOfRange(error, names);
        throw refused.length > 0 ? new OffsetOutOfRangeError(refused, { cause: error }) : error;
      } finally {
        freePools.push(pool);
      }
    },
    async committedOffsets(partitions) {
      const byTopic = new Map<string, number[]>();
      for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
      const committed = await consumer.listCommittedOffsets({
        topics: [...byTopic].map(([topic, list]) => ({ topic, partitions: list })),
      });
      return (topic, partition) => {
        const offset = committed.get(topic)?.[partition] ?? -1n;
        return offset >= 0n ? offset : undefined;
      };
    },
    async listOffsets(names, from) {
      const offsets = await consumer.listOffsets({
        topics: [...names],
        timestamp: from === 'earliest' ? ListOffsetTimestamps.EARLIEST : ListOffsetTimestamps.LATEST,
      });
      return (topic, partition) => offsets.get(topic)?.[partition];
    },
    commit: (topic, partition, offset) => consumer.commit({ offsets: [{ topic, partition, offset, leaderEpoch: -1 }] }),
    async close() {
      for (const pool of pools) await pool.close();
    },
  };
}
