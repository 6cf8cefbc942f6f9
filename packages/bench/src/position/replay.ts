import { setTimeout as sleep } from 'node:timers/promises';
import type { DumpedMessage } from './dump.js';
import { encodeRecordTail, type RawProducer, type RawRecord } from './raw-producer.js';

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

/**
 * The dump as records, encoded and partitioned before the measured window: the UTF-8 encoding of every
 * value and the record bytes are not paid for while the bench shares the cores with what it measures.
 */
export interface PreparedReplay {
  readonly records: readonly RawRecord[];
  readonly transferIds: readonly string[];
}

export function prepareReplay(messages: readonly ReplayMessage[], producer: RawProducer): PreparedReplay {
  const keys = messages.map((m) => (m.key === null ? null : Buffer.from(m.key)));
  const partitions = producer.partitionsOf(keys);
  const records = messages.map((m, i) => ({
    partition: partitions[i] as number,
    tail: encodeRecordTail(keys[i] as Buffer | null, Buffer.from(m.value)),
  }));
  return { records, transferIds: messages.map((m) => m.transferId) };
}

/**
 * A send puts one record batch per partition in a produce request, and the broker refuses a batch over
 * message.max.bytes (1 MiB by default; MESSAGE_TOO_LARGE, not retriable): a send holds at most this many
 * bytes of records, whatever the partitioning.
 */
const SEND_BYTES = 800_000;

/** Ends of the sends that cover [from, to): each under SEND_BYTES (a single larger message goes alone). */
function sendEnds(records: readonly RawRecord[], from: number, to: number): number[] {
  const ends: number[] = [];
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const size = (records[i] as RawRecord).tail.length + 8;
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
  producer: RawProducer,
  prepared: PreparedReplay,
  options: ReplayOptions,
  inputTimes: Map<string, number>,
): Promise<void> {
  const { records, transferIds } = prepared;
  const send = (from: number, to: number): Promise<unknown>[] => {
    const now = Date.now();
    for (let i = from; i < to; i++) inputTimes.set(transferIds[i] as string, now);
    const sends: Promise<unknown>[] = [];
    let start = from;
    for (const end of sendEnds(records, from, to)) {
      sends.push(producer.send(records, start, end, now));
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
