import type { Consumer, Kafka } from 'kafkajs';
import { LatencyRecorder } from '../report/latency.js';

interface Metadata {
  correlationId?: string;
  event?: { action?: string; state?: { status?: string } };
}

const METADATA_MEMBER = '"metadata":';
const METADATA_BYTES = Buffer.from(METADATA_MEMBER);
const CLOSING_BRACE = 0x7d;

/**
 * `metadata` of a notification, parsed alone: it is the envelope's last member in central-ledger's
 * notifications and ours (reference position-examples/notif-*.json), a few hundred bytes against the
 * kilobytes of the payload before it; at 20,000 notifications/s the reader shares the cores with the
 * handler it measures. A Buffer is searched as bytes and only the tail is decoded from UTF-8. Falls back to
 * parsing the whole message when the tail is not that shape.
 */
export function metadataOf(value: Buffer | string): Metadata | undefined {
  if (typeof value === 'string') {
    const at = value.lastIndexOf(METADATA_MEMBER);
    if (at >= 0 && value.endsWith('}')) {
      try {
        return JSON.parse(value.slice(at + METADATA_MEMBER.length, -1)) as Metadata;
      } catch {
        // Not the last member after all.
      }
    }
    return (JSON.parse(value) as { metadata?: Metadata }).metadata;
  }
  const at = value.lastIndexOf(METADATA_BYTES);
  if (at >= 0 && value[value.length - 1] === CLOSING_BRACE) {
    try {
      return JSON.parse(value.toString('utf8', at + METADATA_BYTES.length, value.length - 1)) as Metadata;
    } catch {
      // Not the last member after all.
    }
  }
  return (JSON.parse(value.toString()) as { metadata?: Metadata }).metadata;
}

export interface PhaseTally {
  /** The actions replayed in the phase (prepare; commit and abort; or all of them in a mixed phase). */
  readonly actions: ReadonlySet<string>;
  /** Transfer id → how many notifications of the phase's actions arrived for it. */
  readonly seen: Map<string, number>;
  readonly latency: LatencyRecorder;
  errors: number;
  firstAt: number;
  lastAt: number;
}

/** A notification as read: its CreateTime and bytes. */
export interface ReadNotification {
  readonly timestamp: number;
  readonly value: Buffer | null;
}

/** A reader of the notification topic from its start (kafkajs here; @platformatic/kafka in platformatic-replay.ts). */
export interface NotificationSource {
  start(onMessages: (messages: readonly ReadNotification[]) => void): Promise<void>;
  stop(): Promise<void>;
}

/** The notification reader on kafkajs. */
export class KafkajsNotificationSource implements NotificationSource {
  readonly #consumer: Consumer;

  constructor(
    kafka: Kafka,
    readonly topic: string,
  ) {
    // Latency is read off the notifications' CreateTime, not off when this reader sees them, so it can fetch
    // lazily: a fetch waits for 1 MiB or 200 ms (Fetch minBytes / maxWaitTime), a few hundred notifications
    // per round trip instead of a few at 5,000/s, which is cheaper for the cores the handler also runs on.
    this.#consumer = kafka.consumer({
      groupId: `${topic}-bench-reader`,
      maxBytesPerPartition: 8 * 1024 * 1024,
      minBytes: 1024 * 1024,
      maxWaitTimeInMs: 200,
    });
  }

  async start(onMessages: (messages: readonly ReadNotification[]) => void): Promise<void> {
    await this.#consumer.connect();
    await this.#consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await this.#consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        onMessages(batch.messages.map((m) => ({ timestamp: Number(m.timestamp), value: m.value })));
      },
    });
  }

  async stop(): Promise<void> {
    await this.#consumer.disconnect();
  }
}

/**
 * Reads the notification topic from its start and matches each notification to the input message of its
 * transfer: latency is the notification's Kafka timestamp (the handler's produce time) minus the input's
 * (ours), both CreateTime stamped on this machine's clock.
 */
export class NotificationCollector {
  #phase: PhaseTally | undefined;
  #inputTimes = new Map<string, number>();
  #waiters: (() => void)[] = [];

  constructor(readonly source: NotificationSource) {}

  async start(): Promise<void> {
    await this.source.start((messages) => {
      for (const message of messages) this.#take(message.timestamp, message.value);
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  beginPhase(actions: ReadonlySet<string>, inputTimes: Map<string, number>): PhaseTally {
    this.#inputTimes = inputTimes;
    this.#phase = { actions, seen: new Map(), latency: new LatencyRecorder(), errors: 0, firstAt: 0, lastAt: 0 };
    return this.#phase;
  }

  #take(timestamp: number, value: Buffer | null): void {
    const phase = this.#phase;
    if (!phase || !value) return;
    const metadata = metadataOf(value);
    const event = metadata?.event;
    if (event?.action === undefined || !phase.actions.has(event.action)) return;
    const id = metadata?.correlationId;
    if (!id) return;
    const count = (phase.seen.get(id) ?? 0) + 1;
    phase.seen.set(id, count);
    if (event.state?.status !== 'success') phase.errors++;
    const input = this.#inputTimes.get(id);
    if (count === 1 && input !== undefined) phase.latency.record(Math.max(0, timestamp - input));
    if (phase.firstAt === 0) phase.firstAt = timestamp;
    phase.lastAt = Math.max(phase.lastAt, timestamp);
  }

  /** Resolves when `expected` distinct transfers were notified, or when nothing new came for `stallMs`. */
  async waitFor(expected: number, stallMs: number, onProgress?: (seen: number) => void): Promise<void> {
    let lastSeen = -1;
    let lastChange = Date.now();
    for (;;) {
      const seen = this.#phase?.seen.size ?? 0;
      if (seen >= expected) return;
      if (seen !== lastSeen) {
        lastSeen = seen;
        lastChange = Date.now();
        onProgress?.(seen);
      } else if (Date.now() - lastChange > stallMs) return;
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 1000).unref();
      });
    }
  }

  async stop(): Promise<void> {
    await this.source.stop();
  }
}
