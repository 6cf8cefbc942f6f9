import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { type ConnectionOptions, connect as connectTls } from 'node:tls';
import { type Kafka, Partitioners } from 'kafkajs';
import { crc32c } from './crc32c.js';
import type { PreparedSends, ReplayMessage, ReplayProducer } from './replay.js';

/**
 * The replay's producer: Produce requests (API key 0, version 3, the record batch format of KIP-98) written
 * straight onto one socket per partition leader, from records encoded before the measured window. kafkajs
 * spent ~100 µs of the bench's CPU per 2 KB message in small paced sends (Encoder buffer growth with
 * zero-filled allocations, a byte-wise CRC-32C, a murmur2 partitioner on 64-bit emulated integers), on the
 * cores the handler it measures runs on. Here a send copies the pre-encoded records into one buffer, writes
 * the batch header and checksums it. Only what the replay needs: no compression, no idempotence, no retries
 * (a failed send fails the run), acks=all.
 */

const PRODUCE_API_KEY = 0;
const PRODUCE_VERSION = 3;
const ACKS_ALL = -1;
const PRODUCE_TIMEOUT_MS = 30_000;
/** baseOffset int64, batchLength int32, partitionLeaderEpoch int32, magic int8, crc int32. */
const BATCH_PREFIX_BYTES = 8 + 4 + 4 + 1 + 4;
/** attributes int16, lastOffsetDelta int32, first/maxTimestamp int64, producerId int64, epoch int16, sequence int32, count int32. */
const BATCH_HEADER_BYTES = 2 + 4 + 8 + 8 + 8 + 2 + 4 + 4;

function zigzagVarintSize(value: number): number {
  let v = (value << 1) ^ (value >> 31);
  let size = 1;
  while ((v & ~0x7f) !== 0) {
    v >>>= 7;
    size++;
  }
  return size;
}

function writeZigzagVarint(buffer: Buffer, at: number, value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  let i = at;
  while (v > 0x7f) {
    buffer[i++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buffer[i++] = v;
  return i;
}

/**
 * A record's bytes after its offsetDelta: key length, key, value length, value, no headers. The length,
 * attributes, timestampDelta (0: every record of a send carries the batch's timestamp) and offsetDelta
 * depend on the send and are written then.
 */
export function encodeRecordTail(key: Buffer | null, value: Buffer): Buffer {
  const keyLength = key === null ? -1 : key.length;
  const tail = Buffer.allocUnsafe(
    zigzagVarintSize(keyLength) + (key?.length ?? 0) + zigzagVarintSize(value.length) + value.length + 1,
  );
  let at = writeZigzagVarint(tail, 0, keyLength);
  if (key) at += key.copy(tail, at);
  at = writeZigzagVarint(tail, at, value.length);
  at += value.copy(tail, at);
  tail[at] = 0;
  return tail;
}

interface Leader {
  readonly socket: Socket;
  readonly waiting: { resolve: () => void; reject: (error: Error) => void }[];
  received: Buffer;
}

export interface RawRecord {
  readonly partition: number;
  readonly tail: Buffer;
}

/** The partition of each key, as kafkajs' default (Java-compatible murmur2) partitioner picks it. */
export function keyPartitions(
  topic: string,
  partitionIds: readonly number[],
  keys: readonly (Buffer | null)[],
): Int32Array {
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata = partitionIds.map((partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [],
    isr: [],
  }));
  const out = new Int32Array(keys.length);
  for (const [i, key] of keys.entries()) {
    out[i] = partitioner({ topic, partitionMetadata, message: { key, value: null } });
  }
  return out;
}

export class RawProducer implements ReplayProducer {
  #correlationId = 0;
  readonly #clientId = Buffer.from('mojafast-bench-replay');

  private constructor(
    readonly topic: string,
    private readonly partitions: readonly number[],
    private readonly leaders: ReadonlyMap<number, Leader>,
    private readonly partitionCount: number,
  ) {}

  /**
   * Connects to the leaders of the topic's partitions, found with kafkajs' admin client; with `tls`, over TLS
   * (a broker's SSL listener).
   */
  static async connect(kafka: Kafka, topic: string, tls?: ConnectionOptions): Promise<RawProducer> {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const [{ brokers }, metadata] = await Promise.all([
        admin.describeCluster(),
        admin.fetchTopicMetadata({ topics: [topic] }),
      ]);
      const partitions = (metadata.topics[0]?.partitions ?? []).map((p) => ({ id: p.partitionId, leader: p.leader }));
      const byNode = new Map<number, Leader>();
      const leaderOf = new Map<number, Leader>();
      for (const p of partitions) {
        let leader = byNode.get(p.leader);
        if (!leader) {
          const broker = brokers.find((b) => b.nodeId === p.leader);
          if (!broker) throw new Error(`no broker ${p.leader} for ${topic} partition ${p.id}`);
          const socket = tls
            ? connectTls({ ...tls, host: broker.host, port: broker.port }).setNoDelay(true)
            : connect({ host: broker.host, port: broker.port, noDelay: true });
          await once(socket, tls ? 'secureConnect' : 'connect');
          const created: Leader = { socket, waiting: [], received: Buffer.alloc(0) };
          socket.on('data', (chunk: Buffer) => RawProducer.#read(created, chunk));
          socket.on('error', (error) => {
            for (const w of created.waiting.splice(0)) w.reject(error);
          });
          byNode.set(p.leader, created);
          leader = created;
        }
        leaderOf.set(p.id, leader);
      }
      return new RawProducer(
        topic,
        partitions.map((p) => p.id),
        leaderOf,
        partitions.length,
      );
    } finally {
      await admin.disconnect();
    }
  }

  /** Encodes and partitions the messages before the measured window (replay.ts). */
  prepare(messages: readonly ReplayMessage[]): PreparedSends {
    const keys = messages.map((m) => (m.key === null ? null : Buffer.from(m.key)));
    const partitions = keyPartitions(this.topic, this.partitions, keys);
    const records = messages.map((m, i) => ({
      partition: partitions[i] as number,
      tail: encodeRecordTail(keys[i] as Buffer | null, Buffer.from(m.value)),
    }));
    return {
      sizeOf: (i) => (records[i] as RawRecord).tail.length + 8,
      send: (from, to, timestamp) => this.send(records, from, to, timestamp),
    };
  }

  /**
   * Produces records [from, to) with CreateTime `timestamp`, one batch per partition, one request per leader;
   * resolves when every leader acknowledged (acks=all) and rejects on any error code.
   */
  send(records: readonly RawRecord[], from: number, to: number, timestamp: number): Promise<void> {
    // Kafka numbers a topic's partitions 0..n-1.
    const byPartition: number[][] = Array.from({ length: this.partitionCount }, () => []);
    for (let i = from; i < to; i++) (byPartition[(records[i] as RawRecord).partition] as number[]).push(i);
    const perLeader = new Map<Leader, { partition: number; indexes: number[] }[]>();
    for (const [partition, indexes] of byPartition.entries()) {
      if (indexes.length === 0) continue;
      const leader = this.leaders.get(partition) as Leader;
      const list = perLeader.get(leader) ?? [];
      list.push({ partition, indexes });
      perLeader.set(leader, list);
    }
    return Promise.all(
      [...perLeader].map(([leader, batches]) => this.#request(leader, records, batches, timestamp)),
    ).then(() => {});
  }

  #request(
    leader: Leader,
    records: readonly RawRecord[],
    batches: { partition: number; indexes: number[] }[],
    timestamp: number,
  ): Promise<void> {
    const topic = Buffer.from(this.topic);
    let size = 4 + 2 + 2 + 4 + 2 + this.#clientId.length + 2 + 2 + 4 + 4 + 2 + topic.length + 4;
    for (const { indexes } of batches) {
      size += 4 + 4 + BATCH_PREFIX_BYTES + BATCH_HEADER_BYTES;
      for (const [delta, i] of indexes.entries()) {
        const tail = (records[i] as RawRecord).tail;
        const body = 2 + zigzagVarintSize(delta) + tail.length;
        size += zigzagVarintSize(body) + body;
      }
    }
    const out = Buffer.allocUnsafe(size);
    const correlationId = ++this.#correlationId;
    let at = out.writeInt32BE(size - 4, 0);
    at = out.writeInt16BE(PRODUCE_API_KEY, at);
    at = out.writeInt16BE(PRODUCE_VERSION, at);
    at = out.writeInt32BE(correlationId, at);
    at = out.writeInt16BE(this.#clientId.length, at);
    at += this.#clientId.copy(out, at);
    at = out.writeInt16BE(-1, at); // transactional_id: null
    at = out.writeInt16BE(ACKS_ALL, at);
    at = out.writeInt32BE(PRODUCE_TIMEOUT_MS, at);
    at = out.writeInt32BE(1, at); // one topic
    at = out.writeInt16BE(topic.length, at);
    at += topic.copy(out, at);
    at = out.writeInt32BE(batches.length, at);
    for (const { partition, indexes } of batches) {
      at = out.writeInt32BE(partition, at);
      const recordSetSizeAt = at;
      at += 4;
      const batchStart = at;
      at = out.writeBigInt64BE(0n, at); // baseOffset: the broker assigns offsets
      const lengthAt = at;
      at += 4;
      at = out.writeInt32BE(-1, at); // partitionLeaderEpoch: unknown to a producer
      at = out.writeInt8(2, at); // magic v2
      const crcAt = at;
      at += 4;
      const crcFrom = at;
      at = out.writeInt16BE(0, at); // attributes: no compression, CreateTime, not transactional
      at = out.writeInt32BE(indexes.length - 1, at);
      at = out.writeBigInt64BE(BigInt(timestamp), at);
      at = out.writeBigInt64BE(BigInt(timestamp), at);
      at = out.writeBigInt64BE(-1n, at); // producerId: not idempotent
      at = out.writeInt16BE(-1, at);
      at = out.writeInt32BE(-1, at);
      at = out.writeInt32BE(indexes.length, at);
      for (const [delta, i] of indexes.entries()) {
        const tail = (records[i] as RawRecord).tail;
        at = writeZigzagVarint(out, at, 2 + zigzagVarintSize(delta) + tail.length);
        out[at++] = 0; // record attributes
        out[at++] = 0; // timestampDelta 0
        at = writeZigzagVarint(out, at, delta);
        at += tail.copy(out, at);
      }
      out.writeInt32BE(at - batchStart, recordSetSizeAt);
      out.writeInt32BE(at - lengthAt - 4, lengthAt);
      out.writeUInt32BE(crc32c(out, crcFrom, at), crcAt);
    }
    return new Promise<void>((resolve, reject) => {
      leader.waiting.push({ resolve, reject });
      leader.socket.write(out);
    });
  }

  /** Responses on one connection come back in request order (Kafka protocol guarantee). */
  static #read(leader: Leader, chunk: Buffer): void {
    leader.received = leader.received.length === 0 ? chunk : Buffer.concat([leader.received, chunk]);
    while (leader.received.length >= 4) {
      const length = leader.received.readInt32BE(0);
      if (leader.received.length < 4 + length) return;
      const response = leader.received.subarray(4, 4 + length);
      leader.received = leader.received.subarray(4 + length);
      const waiter = leader.waiting.shift();
      const error = RawProducer.#errorOf(response);
      if (error) waiter?.reject(error);
      else waiter?.resolve();
    }
  }

  /** Produce response v3: correlation id, [topic, [partition, error_code, base_offset, log_append_time]], throttle. */
  static #errorOf(response: Buffer): Error | undefined {
    let at = 4;
    const topics = response.readInt32BE(at);
    at += 4;
    for (let t = 0; t < topics; t++) {
      const nameLength = response.readInt16BE(at);
      at += 2 + nameLength;
      const partitions = response.readInt32BE(at);
      at += 4;
      for (let p = 0; p < partitions; p++) {
        const partition = response.readInt32BE(at);
        const code = response.readInt16BE(at + 4);
        at += 4 + 2 + 8 + 8;
        if (code !== 0) return new Error(`produce to partition ${partition} failed: Kafka error code ${code}`);
      }
    }
    return undefined;
  }

  async disconnect(): Promise<void> {
    for (const leader of new Set(this.leaders.values())) {
      for (const w of leader.waiting.splice(0)) w.reject(new Error('producer disconnected'));
      leader.socket.end();
    }
  }
}
