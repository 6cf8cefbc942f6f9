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
}

/**
 * Produces a dump to the broker, keyed as in the dump (the position account), and records each
 * transfer's input timestamp in `inputTimes` before its message is sent: the CreateTime we stamp on it. A burst overlaps several produce
 * requests (kafkajs sends are otherwise one round trip each); a paced replay sends every 5 ms what the
 * rate has made due, so the offered load is even.
 */
export async function replay(
  producer: Producer,
  messages: readonly ReplayMessage[],
  options: ReplayOptions,
  inputTimes: Map<string, number>,
): Promise<void> {
  const send = (slice: readonly ReplayMessage[]) => {
    const now = Date.now();
    for (const m of slice) inputTimes.set(m.transferId, now);
    return producer.send({
      topic: options.topic,
      acks: -1,
      messages: slice.map((m) => ({ key: m.key, value: m.value, timestamp: String(now) })),
    });
  };
  if (options.rate === 0) {
    let next = 0;
    const lane = async () => {
      while (next < messages.length) {
        const start = next;
        next += options.chunk;
        await send(messages.slice(start, start + options.chunk));
      }
    };
    await Promise.all(Array.from({ length: options.inFlight }, lane));
    return;
  }
  const begin = performance.now();
  let sent = 0;
  const pending: Promise<unknown>[] = [];
  while (sent < messages.length) {
    const due = Math.min(messages.length, Math.floor(((performance.now() - begin) / 1000) * options.rate));
    if (due > sent) {
      pending.push(send(messages.slice(sent, due)));
      sent = due;
    }
    await sleep(5);
  }
  await Promise.all(pending);
}
