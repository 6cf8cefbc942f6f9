import {
  decodeMessage,
  MalformedMessageError,
  notificationFor,
  type OutboundMessage,
  type PartitionBatch,
  type PositionBus,
} from '@mojafast/position-handler';

export interface PassthroughOptions {
  /** Messages per produced chunk: the handler's POSITION_BATCH_SIZE, so sends are the same size. */
  readonly batchSize: number;
  readonly hubName: string;
}

export interface PassthroughCounts {
  passed: number;
  skipped: number;
}

/**
 * The handler with the database taken out, to measure what its Kafka layer alone allows (issue #6: "if the
 * Kafka client is the limit, show it with a measurement"): the handler's own bus (kafkajs), decode and
 * notification encoding, every message answered as applied. Same order and pipelining as PositionRunner:
 * per chunk of `batchSize`, decode → encode → produce (acks=all) → commit the offset after the ack, with
 * chunk N's produce overlapping chunk N+1's decode.
 */
export class Passthrough {
  readonly counts: PassthroughCounts = { passed: 0, skipped: 0 };
  readonly #inFlight = new Set<Promise<void>>();

  constructor(
    private readonly bus: PositionBus,
    private readonly options: PassthroughOptions,
  ) {}

  async start(): Promise<void> {
    await this.bus.start((batch) => {
      const work = this.handle(batch);
      this.#inFlight.add(work);
      return work.finally(() => this.#inFlight.delete(work));
    });
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
    await this.bus.stop();
  }

  async handle(batch: PartitionBatch): Promise<void> {
    let pending: { produced: Promise<void>; lastOffset: string } | undefined;
    const settle = async () => {
      if (!pending) return;
      const { produced, lastOffset } = pending;
      pending = undefined;
      await produced;
      await this.bus.commit(batch.topic, batch.partition, (BigInt(lastOffset) + 1n).toString());
      batch.resolve(lastOffset);
    };
    try {
      const { messages } = batch;
      for (let start = 0; start < messages.length && batch.isActive(); start += this.options.batchSize) {
        const chunk = messages.slice(start, start + this.options.batchSize);
        const notifications = this.encode(chunk);
        await settle();
        const last = chunk[chunk.length - 1];
        if (!last) break;
        const produced = notifications.length > 0 ? this.bus.produce(notifications) : Promise.resolve();
        // Awaited by the next settle(); an unobserved rejection meanwhile would crash the process.
        produced.catch(() => {});
        pending = { produced, lastOffset: last.offset };
      }
    } finally {
      await settle();
    }
  }

  private encode(chunk: PartitionBatch['messages']): OutboundMessage[] {
    const ctx = { hubName: this.options.hubName, now: new Date() };
    const out: OutboundMessage[] = [];
    for (const [seq, message] of chunk.entries()) {
      try {
        const decoded = decodeMessage(message.key, message.value);
        out.push({ key: null, value: notificationFor(decoded, { seq, result: 'applied' }, ctx) });
        this.counts.passed++;
      } catch (error) {
        if (!(error instanceof MalformedMessageError)) throw error;
        this.counts.skipped++;
      }
    }
    return out;
  }
}
