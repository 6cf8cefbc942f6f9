import { setTimeout as sleep } from 'node:timers/promises';
import type { Producer } from 'kafkajs';
import type { DumpedMessage } from './dump.js';

/** A dumped message with its transfer id read once, before anything is timed. */
export interface ReplayMessage extends DumpedMessage {
  readonly transferId: string;
}

export interface ReplayOptions {
  readonly topic: string;
  /** Messages per second; 0 = a burst, as fast as the producer goes. */
  readonly rate: number;
  /** Messages per produce request in a burst. */
  readonly chunk: number;
  /** Produce requests in flight at once in a burst. */
  readonly inFlight: number;
  /** Milliseconds between two sends of a paced replay. */
  readonly tickMs?: number;
}

/** A message as kafkajs takes it, built once; `timestamp` is overwritten in place by each send. */
interface ReplayRecord {
  readonly key: Buffer | null;
  readonly value: Buffer;
  timestamp: string;
}

/**
 * The dump as kafkajs records, encoded before the measured window: the UTF-8 encoding of every value and
 * the record objects are not paid for while the bench shares the cores with what it measures.
 */
export interface PreparedReplay {
  readonly records: readonly ReplayRecord[];
  readonly transferIds: readonly string[];
  /** Byte size of each record's key and value, to keep every send under the broker's limit. */
  readonly sizes: Uint32Array;
}

export function prepareReplay(messages: readonly ReplayMessage[]): PreparedReplay {
  const records: ReplayRecord[] = [];
  const sizes = new Uint32Array(messages.length);
  for (const [i, m] of messages.entries()) {
    const key = m.key === null ? null : Buffer.from(m.key);
    const value = Buffer.from(m.value);
    records.push({ key, value, timestamp: '0' });
    sizes[i] = value.length + (key?.length ?? 0);
  }
  return { records, transferIds: messages.map((m) => m.transferId), sizes };
}

/**
 * kafkajs puts one record batch per partition in a produce request, and the broker refuses a batch over
 * message.max.bytes (1 MiB by default; MESSAGE_TOO_LARGE, not retriable): a send holds at most this many
 * bytes of keys and values, whatever the partitioning.
 */
const SEND_BYTES = 800_000;

/** Ends of the sends that cover [from, to): each under SEND_BYTES (a single larger message goes alone). */
function sendEnds(sizes: Uint32Array, from: number, to: number): number[] {
  const ends: number[] = [];
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const size = (sizes[i] as number) + 64;
    if (i > from && bytes + size > SEND_BYTES && ends.at(-1) !== i) {
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
 * produce requests (kafkajs sends are otherwise one round trip each); a paced replay sends, every `tickMs`,
 * what the rate has made due as one produce request, so the offered load is even and costs one request
 * per tick rather than one per message.
 */
export async function replay(
  producer: Producer,
  prepared: PreparedReplay,
  options: ReplayOptions,
  inputTimes: Map<string, number>,
): Promise<void> {
  const { records, transferIds, sizes } = prepared;
  const send = (from: number, to: number): Promise<unknown>[] => {
    const now = Date.now();
    const stamp = String(now);
    for (let i = from; i < to; i++) {
      (records[i] as ReplayRecord).timestamp = stamp;
      inputTimes.set(transferIds[i] as string, now);
    }
    const sends: Promise<unknown>[] = [];
    let start = from;
    for (const end of sendEnds(sizes, from, to)) {
      sends.push(producer.send({ topic: options.topic, acks: -1, messages: records.slice(start, end) }));
      start = end;
    }
    return sends;
  };
  if (options.rate === 0) {
    let next = 0;
    const lane = async () => {
      while (next < records.length) {
        const start = next;
        next = Math.min(records.length, next + options.chunk);
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
  while (sent < records.length && failure === undefined) {
    const due = Math.min(records.length, Math.floor(((performance.now() - begin) / 1000) * options.rate));
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
