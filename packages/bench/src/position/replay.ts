import { setTimeout as sleep } from 'node:timers/promises';
import type { DumpedMessage } from './dump.js';

/** A dumped message with its transfer id read once, before anything is timed. */
export interface ReplayMessage extends DumpedMessage {
  readonly transferId: string;
}

export interface ReplayOptions {
  /** Messages per second; 0 = a burst, as fast as the producer goes. */
  readonly rate: number;
  /** Messages per produce request in a burst. */
  readonly chunk: number;
  /** Produce requests in flight at once in a burst. */
  readonly inFlight: number;
  /** Milliseconds between two sends of a paced replay. */
  readonly tickMs?: number;
}

/** Produces each send of a replay, from messages encoded before the measured window. */
export interface PreparedSends {
  /** Bytes message `i` takes in a request, for cutting the sends under SEND_BYTES. */
  sizeOf(i: number): number;
  /** Produces messages [from, to) with CreateTime `timestamp`; resolves when acknowledged (acks=all). */
  send(from: number, to: number, timestamp: number): Promise<unknown>;
}

/**
 * The replay's producer (the raw one of raw-producer.ts, or @platformatic/kafka's in platformatic-replay.ts):
 * it encodes and partitions (kafkajs' default murmur2, so every producer puts a key on the same partition)
 * before the measured window, so the UTF-8 encoding of every value is not paid for while the bench shares the
 * cores with what it measures.
 */
export interface ReplayProducer {
  prepare(messages: readonly ReplayMessage[]): PreparedSends;
  disconnect(): Promise<void>;
}

export interface PreparedReplay {
  readonly sends: PreparedSends;
  readonly transferIds: readonly string[];
}

export function prepareReplay(messages: readonly ReplayMessage[], producer: ReplayProducer): PreparedReplay {
  return { sends: producer.prepare(messages), transferIds: messages.map((m) => m.transferId) };
}

/**
 * A send puts one record batch per partition in a produce request, and the broker refuses a batch over
 * message.max.bytes (1 MiB by default; MESSAGE_TOO_LARGE, not retriable): a send holds at most this many
 * bytes of records, whatever the partitioning.
 */
const SEND_BYTES = 800_000;

/** Ends of the sends that cover [from, to): each under SEND_BYTES (a single larger message goes alone). */
function sendEnds(sends: PreparedSends, from: number, to: number): number[] {
  const ends: number[] = [];
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const size = sends.sizeOf(i);
    if (i > from && bytes + size > SEND_BYTES) {
      ends.push(i);
      bytes = 0;
    }
    bytes += size;
  }
  ends.push(to);
  return ends;
}

/**
 * Produces the dump to the broker, keyed as in the dump (the position account), and records each
 * transfer's input time in `inputTimes`: the CreateTime stamped on its record. A burst overlaps several
 * produce requests; a paced replay sends, every `tickMs`,
 * what the rate has made due as one produce request, so the offered load is even and costs one request
 * per tick rather than one per message.
 */
export async function replay(
  prepared: PreparedReplay,
  options: ReplayOptions,
  inputTimes: Map<string, number>,
): Promise<void> {
  const { sends: producer, transferIds } = prepared;
  const count = transferIds.length;
  const send = (from: number, to: number): Promise<unknown>[] => {
    const now = Date.now();
    for (let i = from; i < to; i++) inputTimes.set(transferIds[i] as string, now);
    const sends: Promise<unknown>[] = [];
    let start = from;
    for (const end of sendEnds(producer, from, to)) {
      sends.push(producer.send(start, end, now));
      start = end;
    }
    return sends;
  };
  if (options.rate === 0) {
    let next = 0;
    const lane = async () => {
      while (next < count) {
        const start = next;
        next = Math.min(count, next + options.chunk);
        await Promise.all(send(start, next));
      }
    };
    await Promise.all(Array.from({ length: options.inFlight }, lane));
    return;
  }
  const tickMs = options.tickMs ?? 5;
  const begin = performance.now();
  let sent = 0;
  const pending: Promise<unknown>[] = [];
  let failure: unknown;
  while (sent < count && failure === undefined) {
    const due = Math.min(count, Math.floor(((performance.now() - begin) / 1000) * options.rate));
    if (due > sent) {
      for (const p of send(sent, due)) {
        // A failed send ends the replay at the next tick instead of crashing the process unobserved.
        p.catch((error: unknown) => {
          failure ??= error;
        });
        pending.push(p);
      }
      sent = due;
    }
    await sleep(tickMs);
  }
  await Promise.all(pending);
}
