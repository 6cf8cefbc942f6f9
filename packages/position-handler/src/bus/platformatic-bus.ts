import {
  type ClusterMetadata,
  ConnectionPool,
  Consumer,
  type GroupAssignment,
  IS_CONTROL,
  ListOffsetTimestamps,
  Producer,
} from '@platformatic/kafka';
import { chunkBySize } from './chunk.js';
import { withLinger } from './linger.js';
import type { BusOptions, InboundMessage, OutboundMessage, PartitionBatch, PositionBus } from './types.js';

type FetchResponse = Awaited<ReturnType<Consumer['fetch']>>;

/** Back-off after a failed metadata, fetch or offset lookup before the fetch loop tries again. */
const RETRY_MS = 200;

/** Kafka's OFFSET_OUT_OF_RANGE: the fetch position is before the log start (retention) or after its end. */
const OFFSET_OUT_OF_RANGE = 1;

/** One assigned partition: where its next fetch starts and which batches of it are still current. */
interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** -1 until the committed offset (or the fallback) is known. */
  fetchOffset: bigint;
  /** Bumped by a seek, a revocation and stop: a batch of an older epoch reports isActive() false. */
  epoch: number;
  /** Waiting for a fetch, in a fetch in flight, or its batch in the handler. */
  phase: 'idle' | 'fetching' | 'handling';
}

const keyOf = (topic: string, partition: number) => `${topic}:${partition}`;

/**
 * The PositionBus on @platformatic/kafka. Its message stream (`consumer.consume`) cannot move one partition
 * back, so this bus runs its own fetch loop on the client's lower-level calls: `joinGroup` (membership,
 * assignment and the heartbeat timer), `fetch` per leader (on a connection pool of its own, so a fetch waiting
 * on the broker never holds up a heartbeat or an offset commit queued behind it on the coordinator
 * connection), `commit`, `listCommittedOffsets`. Each partition's fetch position is this bus's own, which gives
 * the contract directly:
 *
 * - a batch is the messages of one partition in one fetch response; a partition is fetched again only once
 *   its batch is out of the handler, from the offset after the last one the handler resolved;
 * - seek sets the fetch position and bumps the partition's epoch (batches fetched before report isActive()
 *   false; a fetch in flight for it is dropped);
 * - a revoked partition (a group join whose assignment lacks it) is dropped the same way, and its offsets are
 *   no longer committed by this member;
 * - heartbeats run on the client's timer (heartbeatInterval), whatever the handler is doing, so a long DB
 *   retry keeps the partitions without help;
 * - the high watermark is the one of the fetch response.
 */
export function createPlatformaticBus(options: BusOptions): PositionBus {
  const base = { clientId: options.clientId, bootstrapBrokers: [...options.brokers], retries: 10, retryDelay: 100 };
  const consumer = new Consumer({
    ...base,
    groupId: options.groupId,
    autocommit: false,
    sessionTimeout: options.sessionTimeoutMs,
    heartbeatInterval: Math.max(500, Math.floor(options.sessionTimeoutMs / 10)),
    rebalanceTimeout: options.sessionTimeoutMs,
  });
  /**
   * Fetches run on connections of their own, one pool per fetch in flight: the broker answers a connection's
   * requests in order, so a fetch waiting (up to fetchMaxWaitMs) for one partition's data would otherwise hold
   * up the fetch of a partition whose batch just finished.
   */
  const pools: ConnectionPool[] = [];
  const freePools: ConnectionPool[] = [];
  const fetches = new Set<Promise<void>>();
  const producer = new Producer({
    ...base,
    acks: options.acks,
    compression: options.compression,
    autocreateTopics: true,
  });
  const topics = [...options.topics];
  const states = new Map<string, PartitionState>();
  const inHand = new Set<Promise<void>>();
  let running = false;
  let handleBatch: (batch: PartitionBatch) => Promise<void> = async () => {};
  /** Rotates which partitions go first when fewer slots than ready partitions are free. */
  let turn = 0;
  let scheduled = false;

  /** Starts the fetches there is room for, on the next turn (several changes in one turn make one pass). */
  const poke = () => {
    if (scheduled || !running) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      void schedule();
    });
  };

  /** The committed offsets of newly assigned partitions, else the earliest or latest (POSITION_FROM_BEGINNING). */
  async function initOffsets(added: PartitionState[]): Promise<void> {
    const byTopic = new Map<string, number[]>();
    for (const state of added) byTopic.set(state.topic, [...(byTopic.get(state.topic) ?? []), state.partition]);
    for (;;) {
      try {
        const committed = await consumer.listCommittedOffsets({
          topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
        });
        const missing = added.filter((s) => (committed.get(s.topic)?.[s.partition] ?? -1n) < 0n);
        const fallback = missing.length
          ? await consumer.listOffsets({
              topics: [...new Set(missing.map((s) => s.topic))],
              timestamp: options.fromBeginning ? ListOffsetTimestamps.EARLIEST : ListOffsetTimestamps.LATEST,
            })
          : new Map<string, bigint[]>();
        for (const state of added) {
          const offset = committed.get(state.topic)?.[state.partition] ?? -1n;
          state.fetchOffset = offset >= 0n ? offset : (fallback.get(state.topic)?.[state.partition] ?? 0n);
        }
        poke();
        return;
      } catch (error) {
        if (!running || added.every((s) => states.get(keyOf(s.topic, s.partition)) !== s)) return;
        options.logger.error('reading committed offsets failed; retrying', { err: error });
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  /** A group join: keeps the partitions still assigned, drops the revoked ones, starts the new ones. */
  function assign(assignments: readonly GroupAssignment[] | undefined): void {
    const wanted = new Set<string>();
    for (const { topic, partitions } of assignments ?? []) {
      for (const partition of partitions) wanted.add(keyOf(topic, partition));
    }
    for (const [key, state] of states) {
      if (wanted.has(key)) continue;
      state.epoch += 1;
      states.delete(key);
    }
    const added: PartitionState[] = [];
    for (const { topic, partitions } of assignments ?? []) {
      for (const partition of partitions) {
        const key = keyOf(topic, partition);
        if (states.has(key)) continue;
        const state: PartitionState = { topic, partition, fetchOffset: -1n, epoch: 0, phase: 'idle' };
        states.set(key, state);
        added.push(state);
      }
    }
    if (added.length > 0) void initOffsets(added);
    poke();
  }

  /** Hands the partition's messages of one fetch response to the handler, unless it moved meanwhile. */
  function dispatch(response: FetchResponse, names: Map<string, string>, requested: Map<PartitionState, number>) {
    for (const topicResponse of response.responses) {
      const topic = names.get(topicResponse.topicId) ?? topicResponse.topicId;
      for (const part of topicResponse.partitions) {
        const state = states.get(keyOf(topic, part.partitionIndex));
        // Not asked for in this request (a fetch session can return others), revoked, or seeked meanwhile.
        if (!state || requested.get(state) !== state.epoch) continue;
        requested.delete(state);
        const from = state.fetchOffset;
        const messages: InboundMessage[] = [];
        let end = from;
        for (const batch of part.records ?? []) {
          end = batch.firstOffset + BigInt(batch.lastOffsetDelta) + 1n;
          if (batch.attributes & IS_CONTROL) continue;
          for (const record of batch.records) {
            const offset = batch.firstOffset + BigInt(record.offsetDelta);
            // A compressed batch is returned whole, including the records before the requested offset.
            if (offset < from) continue;
            messages.push({ key: record.key, value: record.value, offset: offset.toString() });
          }
        }
        if (messages.length === 0) {
          // Only transaction markers: step over them, there is nothing to handle.
          if (end > from) state.fetchOffset = end;
          state.phase = 'idle';
          continue;
        }
        start(state, messages, part.highWatermark.toString());
      }
    }
    for (const state of requested.keys()) state.phase = 'idle';
  }

  function start(state: PartitionState, messages: InboundMessage[], highWatermark: string): void {
    state.phase = 'handling';
    const epoch = state.epoch;
    const current = () => running && state.epoch === epoch && states.get(keyOf(state.topic, state.partition)) === state;
    const batch: PartitionBatch = {
      topic: state.topic,
      partition: state.partition,
      messages,
      highWatermark,
      // The client heartbeats on its own timer, independent of the handler's work.
      heartbeat: async () => {},
      resolve(offset) {
        if (current()) state.fetchOffset = BigInt(offset) + 1n;
      },
      isActive: current,
    };
    const work = handleBatch(batch)
      .catch((error: unknown) => {
        // What was not resolved is fetched again (the fetch position stays after the last resolved message).
        options.logger.error('batch failed; its unresolved messages are fetched again', {
          topic: state.topic,
          partition: state.partition,
          err: error,
        });
      })
      .finally(() => {
        state.phase = 'idle';
        inHand.delete(work);
        poke();
      });
    inHand.add(work);
  }

  /** Fetches the idle partitions, at most partitionsConsumedConcurrently fetched or in the handler at once. */
  async function schedule(): Promise<void> {
    const all = [...states.values()];
    const taken = all.filter((s) => s.phase !== 'idle').length;
    const idle = all.filter((s) => s.phase === 'idle' && s.fetchOffset >= 0n);
    const free = options.partitionsConsumedConcurrently - taken;
    if (idle.length === 0 || free <= 0) return;
    turn = (turn + 1) % idle.length;
    const ready = [...idle.slice(turn), ...idle.slice(0, turn)].slice(0, free);
    for (const state of ready) state.phase = 'fetching';
    let metadata: ClusterMetadata;
    try {
      metadata = await consumer.metadata({ topics });
    } catch (error) {
      options.logger.error('metadata failed; retrying', { err: error });
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      for (const state of ready) state.phase = 'idle';
      poke();
      return;
    }
    if (!running) {
      for (const state of ready) state.phase = 'idle';
      return;
    }
    const names = new Map<string, string>();
    const byNode = new Map<number, PartitionState[]>();
    for (const state of ready) {
      const topic = metadata.topics.get(state.topic);
      const leader = topic?.partitions[state.partition]?.leader;
      if (!topic || leader === undefined) {
        // No leader known (an election in progress): asked again after a pause, with fresh metadata then.
        state.phase = 'idle';
        setTimeout(poke, RETRY_MS);
        continue;
      }
      names.set(topic.id, state.topic);
      byNode.set(leader, [...(byNode.get(leader) ?? []), state]);
    }
    for (const [node, group] of byNode) {
      const pool = freePools.pop() ?? new ConnectionPool(`${options.clientId}-fetch-${pools.length}`);
      if (!pools.includes(pool)) pools.push(pool);
      const fetch = fetchFrom(pool, node, group, metadata, names).finally(() => {
        freePools.push(pool);
        fetches.delete(fetch);
        poke();
      });
      fetches.add(fetch);
    }
  }

  async function fetchFrom(
    pool: ConnectionPool,
    node: number,
    group: PartitionState[],
    metadata: ClusterMetadata,
    names: Map<string, string>,
  ) {
    const requested = new Map<PartitionState, number>();
    const byTopic = new Map<string, PartitionState[]>();
    for (const state of group) {
      requested.set(state, state.epoch);
      byTopic.set(state.topic, [...(byTopic.get(state.topic) ?? []), state]);
    }
    try {
      const response = await consumer.fetch({
        node,
        connectionPool: pool,
        minBytes: options.fetchMinBytes,
        maxWaitTime: options.fetchMaxWaitMs,
        maxBytes: options.maxBytesPerPartition * Math.max(1, group.length),
        topics: [...byTopic].map(([topic, states]) => ({
          topicId: metadata.topics.get(topic)?.id ?? topic,
          partitions: states.map((s) => ({
            partition: s.partition,
            fetchOffset: s.fetchOffset,
            partitionMaxBytes: options.maxBytesPerPartition,
            currentLeaderEpoch: -1,
            lastFetchedEpoch: -1,
          })),
        })),
      });
      if (running) dispatch(response, names, requested);
      else for (const state of requested.keys()) state.phase = 'idle';
    } catch (error) {
      if (!running) {
        for (const state of requested.keys()) state.phase = 'idle';
        return;
      }
      const response = (error as { response?: FetchResponse }).response;
      const outOfRange: PartitionState[] = [];
      for (const topicResponse of response?.responses ?? []) {
        const topic = names.get(topicResponse.topicId) ?? topicResponse.topicId;
        for (const part of topicResponse.partitions) {
          const state = states.get(keyOf(topic, part.partitionIndex));
          if (state && part.errorCode === OFFSET_OUT_OF_RANGE && requested.get(state) === state.epoch) {
            outOfRange.push(state);
          }
        }
      }
      if (outOfRange.length > 0) {
        // Retention removed the messages at the fetch position: start again where POSITION_FROM_BEGINNING says.
        options.logger.error('fetch position out of range; moved to the earliest/latest offset', {
          partitions: outOfRange.map((s) => keyOf(s.topic, s.partition)),
        });
        for (const state of outOfRange) {
          state.epoch += 1;
          state.fetchOffset = -1n;
        }
        void initOffsetsFallback(outOfRange);
      } else {
        options.logger.error('fetch failed; retrying', { err: error });
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
      for (const state of requested.keys()) state.phase = 'idle';
    }
  }

  async function initOffsetsFallback(partitions: PartitionState[]): Promise<void> {
    try {
      const offsets = await consumer.listOffsets({
        topics: [...new Set(partitions.map((s) => s.topic))],
        timestamp: options.fromBeginning ? ListOffsetTimestamps.EARLIEST : ListOffsetTimestamps.LATEST,
      });
      for (const state of partitions) state.fetchOffset = offsets.get(state.topic)?.[state.partition] ?? 0n;
      poke();
    } catch {
      await initOffsets(partitions);
    }
  }

  const send = async (messages: readonly OutboundMessage[]) => {
    // Encoded once: the size cut and the record batch use the same bytes. The sends go out together and are
    // awaited as one.
    // A message names its own topic when it is not a notification (a cyrilResult follow-up, issue #12).
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
      handleBatch = handle;
      // Connects the producer now: a broker that is down fails the start, not the first notification.
      await producer.metadata({ topics: [options.notificationTopic], autocreateTopics: true });
      // A position topic that does not exist fails the start (the process exits and is restarted) instead of
      // leaving a member with nothing to fetch; kafkajs' subscribe refuses it the same way.
      await consumer.metadata({ topics, autocreateTopics: false });
      consumer.on('consumer:group:join', (payload) => assign(payload.assignments));
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
            .catch((error: unknown) => options.logger.error('rejoin failed; retrying', { err: error }));
        }
        rejoining = false;
      };
      consumer.on('error', (error: Error) => {
        options.logger.error('kafka consumer error', { err: error });
        if (!rejoining && running && !consumer.isActive()) void rejoin();
      });
      producer.on('error', (error: Error) => options.logger.error('kafka producer error', { err: error }));
      consumer.topics.trackAll(...topics);
      running = true;
      await consumer.joinGroup({});
      poke();
    },
    produce: withLinger(send, options.produceLingerMs),
    async commit(topic, partition, nextOffset) {
      // A revoked partition belongs to another member now; its offsets are that member's to commit.
      if (!states.has(keyOf(topic, partition))) {
        throw new Error(`partition ${topic}:${partition} is no longer assigned to this member; offset not committed`);
      }
      await consumer.commit({ offsets: [{ topic, partition, offset: BigInt(nextOffset), leaderEpoch: -1 }] });
    },
    seek(topic, partition, offset) {
      const state = states.get(keyOf(topic, partition));
      if (!state) return;
      state.epoch += 1;
      state.fetchOffset = BigInt(offset);
      poke();
    },
    isReady() {
      // The producer re-opens a connection the broker closed while idle on its next send: being open is enough.
      return running && consumer.isActive() && producer.isActive();
    },
    async stop() {
      running = false;
      for (const state of states.values()) state.epoch += 1;
      while (fetches.size > 0) await Promise.allSettled([...fetches]);
      await Promise.allSettled([...inHand]);
      try {
        await consumer.leaveGroup();
      } catch {
        // The group forgets a member that left without a word after the session timeout.
      }
      await consumer.close();
      for (const pool of pools) await pool.close();
      await producer.close();
    },
  };
}
