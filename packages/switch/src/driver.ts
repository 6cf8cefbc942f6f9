import { type Consumer, Kafka, logLevel, type Producer } from 'kafkajs';
import { type NotificationOutcome, type NotificationValue, notificationCallbacks } from './callbacks.js';
import type { AdapterMessage } from './envelope.js';
import { generalTopic } from './envelope.js';
import { type FspRequest, sendToFront } from './http-front.js';
import { Iso20022Requests } from './iso-requests.js';

/**
 * ml-api-adapter's two sides on the switch's Kafka: it produces the FSPs' requests on the prepare, fulfil and
 * get topics (as `envelope.ts` builds them) and reads the notification topic as its notification handler
 * does (`callbacks.ts`), keeping every notification with the callbacks it would have sent.
 */
export interface Received {
  readonly partition: number;
  readonly offset: string;
  /** The broker's CreateTime of the notification (ms). */
  readonly timestamp: number;
  readonly key: string | null;
  readonly value: NotificationValue;
  /** The value as the broker holds it. */
  readonly raw: string;
  /** The transfer or fxTransfer the notification is about (uriParams.id, else the envelope's id). */
  readonly id: string;
  readonly action: string;
  readonly outcome: NotificationOutcome;
  /** When this process read it (ms). */
  readonly readAt: number;
}

export interface DriverOptions {
  readonly brokers: readonly string[];
  /** The switch's topic prefix (central-ledger's GENERAL_TOPIC_TEMPLATE with a prefix); '' for the defaults. */
  readonly prefix: string;
  readonly clientId?: string;
  /** ml-api-adapter's URL: the messages are sent as the FSPs' HTTP requests to it instead of produced. */
  readonly front?: string;
  /** The API ml-api-adapter in front speaks (its API_TYPE): the FSPs' requests go in that form. */
  readonly apiType?: 'fspiop' | 'iso20022';
}

type Waiter = { readonly match: (r: Received) => boolean; readonly resolve: (r: Received) => void };

export class SwitchDriver {
  readonly received: Received[] = [];
  /** With ml-api-adapter in front: every request the FSPs made to it, in order. */
  readonly sent: FspRequest[] = [];
  private waiters: Waiter[] = [];

  private constructor(
    readonly prefix: string,
    private readonly producer: Producer,
    private readonly consumer: Consumer,
    private readonly front: string | undefined,
    /** The FSPs' requests in ml-api-adapter's API (ISO 20022 mode), or as they are (FSPIOP). */
    private readonly convert: ((r: FspRequest) => FspRequest) | undefined,
  ) {}

  static async start(options: DriverOptions): Promise<SwitchDriver> {
    const kafka = new Kafka({
      clientId: options.clientId ?? 'mojafast-switch-driver',
      brokers: [...options.brokers],
      logLevel: logLevel.ERROR,
    });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    const groupId = `${options.prefix}mojafast-switch-notifications-${process.pid}-${Date.now()}`;
    const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 50 });
    const iso = options.apiType === 'iso20022' ? new Iso20022Requests() : undefined;
    const driver = new SwitchDriver(options.prefix, producer, consumer, options.front, iso && ((r) => iso.convert(r)));
    await producer.connect();
    await consumer.connect();
    await consumer.subscribe({ topic: generalTopic(options.prefix, 'notification', 'event'), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        const text = message.value?.toString('utf8') ?? 'null';
        const value = JSON.parse(text) as NotificationValue;
        const received: Received = {
          partition,
          offset: message.offset,
          timestamp: Number(message.timestamp),
          key: message.key?.toString('utf8') ?? null,
          value,
          raw: text,
          id: value.content?.uriParams?.id ?? value.id ?? '',
          action: value.metadata?.event?.action ?? '',
          outcome: notificationCallbacks(value),
          readAt: Date.now(),
        };
        driver.deliver(received);
      },
    });
    return driver;
  }

  private deliver(received: Received): void {
    this.received.push(received);
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.match(received)) waiter.resolve(received);
      else still.push(waiter);
    }
    this.waiters = still;
  }

  /** Produces ml-api-adapter's messages in order, acknowledged by all in-sync replicas (its producers' setting). */
  async send(...messages: AdapterMessage[]): Promise<void> {
    for (const m of messages) {
      if (this.front !== undefined) {
        this.sent.push(await sendToFront(this.front, m, this.convert));
        continue;
      }
      await this.producer.send({ topic: m.topic, acks: -1, messages: [{ key: null, value: m.value }] });
    }
  }

  /**
   * Produces many messages in one request per topic (a benchmark's burst; ml-api-adapter sends one per HTTP
   * request, which at load its producer batches the same way). Answers the time the broker acknowledged them.
   */
  async sendMany(messages: readonly AdapterMessage[]): Promise<number> {
    const byTopic = new Map<string, { key: null; value: string }[]>();
    for (const m of messages) {
      const list = byTopic.get(m.topic) ?? [];
      list.push({ key: null, value: m.value });
      byTopic.set(m.topic, list);
    }
    await this.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, msgs]) => ({ topic, messages: msgs })),
    });
    return Date.now();
  }

  /** The notifications about one transfer or fxTransfer, in the order they were read. */
  about(id: string): Received[] {
    return this.received.filter((r) => r.id === id);
  }

  /** The first notification (already read or still to come) that matches, or a timeout naming what was awaited. */
  async waitFor(what: string, match: (r: Received) => boolean, timeoutMs = 30_000): Promise<Received> {
    const found = await this.waitForOrNone(match, timeoutMs);
    if (found) return found;
    const seenIds = this.received.slice(-10).map((r) => `${r.action}:${r.id.slice(0, 8)}`);
    throw new Error(`no notification ${what} within ${timeoutMs} ms (last read: ${seenIds.join(', ')})`);
  }

  /** As waitFor, but a timeout answers undefined: what a scenario records as "no notification came". */
  waitForOrNone(match: (r: Received) => boolean, timeoutMs = 30_000): Promise<Received | undefined> {
    const seen = this.received.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(undefined);
      }, timeoutMs);
      const waiter: Waiter = {
        match,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      };
      this.waiters.push(waiter);
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
    await this.producer.disconnect();
  }
}
