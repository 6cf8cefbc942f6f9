import type { ConnectionOptions } from 'node:tls';
import type { Logger } from '../observe/logger.js';
import type { Settled } from './settle-chain.js';

/**
 * The narrow Kafka interface the runner needs. Two clients implement it: @platformatic/kafka
 * (platformatic-bus.ts, the default: maintained, and about twice kafkajs's rate in bench:position) and kafkajs
 * (kafkajs-bus.ts, KAFKA_CLIENT=kafkajs: the client the product's design names; no release since 2023).
 */
export interface InboundMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly offset: string;
}

export interface PartitionBatch {
  readonly topic: string;
  readonly partition: number;
  readonly messages: readonly InboundMessage[];
  readonly highWatermark: string;
  /** Keeps the group membership alive during long work (a DB retry). */
  heartbeat(): Promise<void>;
  /** Tells the client the messages up to `offset` are done, so its next fetch starts after them. */
  resolve(offset: string): void;
  /** false once the consumer is stopping or the partition was revoked: stop taking new work from this batch. */
  isActive(): boolean;
  /**
   * After the chunk [firstOffset..lastOffset]'s notifications were sent: the partition's settle chain
   * (settle-chain.ts) waits for their acknowledgement and commits the offset after lastOffset with `commit`, in
   * chunk order; a failed produce moves the fetch position back to firstOffset, a failed commit is tried again
   * while `commitFailed`, told of each failure, answers true. Resolves once queued (after waiting while too
   * many chunks of the partition are unacknowledged), with the outcome to observe.
   */
  settle(
    produced: Promise<void>,
    firstOffset: string,
    lastOffset: string,
    commit: (nextOffset: string) => Promise<void>,
    commitFailed: (error: unknown) => boolean,
  ): Promise<{ outcome: Promise<Settled> }>;
}

export interface OutboundMessage {
  readonly key: string | null;
  readonly value: string;
  /** Another topic than the notification topic (a cyrilResult follow-up to the POSITION.COMMIT topic). */
  readonly topic?: string;
}

export interface PositionBus {
  /** Joins the group and hands every fetched batch of one partition to `handle`; partitions run in parallel. */
  start(handle: (batch: PartitionBatch) => Promise<void>): Promise<void>;
  /** Produces (to the notification topic unless a message names its own) and resolves once the broker acknowledged all of them (acks=all). */
  produce(messages: readonly OutboundMessage[]): Promise<void>;
  /** Commits `nextOffset` (the offset of the next message to read) for the group. */
  commit(topic: string, partition: number, nextOffset: string): Promise<void>;
  /**
   * Moves this process's fetch position of a partition back to `offset` (nothing is committed): the messages
   * from there are fetched and handled again, and batches fetched before it report `isActive()` false.
   */
  seek(topic: string, partition: number, offset: string): void;
  /** Broker readiness: the consumer is in its group and the producer is connected. */
  isReady(): boolean;
  /** Leaves the group after the batch in hand is finished, then disconnects. */
  stop(): Promise<void>;
}

/**
 * How the brokers are spoken to, whichever client (and the topic check): Node's TLS options (undefined:
 * plaintext) and the SASL login (undefined: none). Built from the settings in security.ts.
 */
export interface KafkaSecurity {
  readonly tls: ConnectionOptions | undefined;
  readonly sasl:
    | {
        readonly mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
        readonly username: string;
        readonly password: string;
      }
    | undefined;
  /** Send the broker's host name (SNI); false when every bootstrap broker is an address. */
  readonly serverName: boolean;
}

/** No TLS, no SASL. */
export const PLAINTEXT: KafkaSecurity = Object.freeze({ tls: undefined, sasl: undefined, serverName: false });

/** What a bus needs to know, whichever client carries it (main.ts maps the configuration to it). */
export interface BusOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly notificationTopic: string;
  readonly fromBeginning: boolean;
  readonly partitionsConsumedConcurrently: number;
  readonly sessionTimeoutMs: number;
  /** A fetch waits on the broker until this many bytes are there, or fetchMaxWaitMs passed. */
  readonly fetchMinBytes: number;
  readonly fetchMaxWaitMs: number;
  readonly maxBytesPerPartition: number;
  /** Values per produce request (below the broker's message.max.bytes). */
  readonly produceBatchBytes: number;
  /** Produce calls within this time share one send (0 = each goes at once). */
  readonly produceLingerMs: number;
  /** -1: every in-sync replica has the notifications; 1: the leader has them. */
  readonly acks: -1 | 1;
  readonly compression: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
  readonly security: KafkaSecurity;
  readonly logger: Logger;
}
