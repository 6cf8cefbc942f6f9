import type { OutboundMessage, PartitionBatch, PositionBus } from '../bus/types.js';
import {
  isOneAtATimeAction,
  isPositionAction,
  type LedgerCommand,
  type Outcome,
  type PlanResult,
} from '../ledger/types.js';
import { decodeMessage, MalformedMessageError, type PositionMessage } from '../messages/decode.js';
import { type ErrorHandling, hubErrorNotification, type NotifyContext, notificationsFor } from '../messages/notify.js';
import { oneAtATimeResult } from '../messages/one-at-a-time.js';
import type { Logger } from '../observe/logger.js';
import { type PositionMetrics, ResultTally } from '../observe/metrics.js';
import { PartitionProgress } from '../observe/progress.js';
import { InvariantViolation } from './plan-invariants.js';
import { type BatchStore, type Planner, planAndWriteBatch, type StageTimings } from './unit-of-work.js';

export type { BatchStore } from './unit-of-work.js';

export interface RunnerOptions {
  readonly batchSize: number;
  readonly hubName: string;
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  /** The planner; planBatch unless a bench replaces the ledger (passthrough). */
  readonly plan?: Planner;
  /**
   * Where a commit or abort whose cyrilResult has a step left goes on (central-ledger's
   * KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.COMMIT); topic-transfer-position when not given.
   */
  readonly followUpTopic?: string;
  /**
   * Where the results of bulk-prepare, bulk-commit, bulk-timeout-reserved and bulk-abort go (central-ledger's
   * KAFKA.TOPIC_TEMPLATES.GENERAL_TOPIC_TEMPLATE for bulk/processing); topic-bulk-processing when not given.
   */
  readonly bulkProcessingTopic?: string;
  /**
   * Where failures and progress per partition are reported (/health and /metrics read it); one of its own,
   * seen by nobody, when not given.
   */
  readonly progress?: PartitionProgress;
  /** central-ledger's ERROR_HANDLING for the errorInformation of error notifications; its repository file's when not given. */
  readonly errorHandling?: ErrorHandling;
  /** Waits `ms` (the back-off after a failure); a simulation's clock instead of the timers when given. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export class StoppedError extends Error {
  constructor() {
    super('stopping: batch abandoned before its DB commit; its offsets stay uncommitted');
    this.name = 'StoppedError';
  }
}

interface DecodedChunk {
  readonly decoded: PositionMessage[];
  readonly commands: LedgerCommand[];
  /** Error notifications of messages that could not be decoded (sent ahead of the chunk's other notifications). */
  readonly errorNotifications: OutboundMessage[];
}

/** A chunk's committed transaction: its plan, and its time for the metrics of the messages it planned. */
interface WrittenChunk {
  readonly plan: PlanResult;
  /** Its lock, plan and write stages together, in seconds. */
  readonly transactionSeconds: number;
}

/** central-ledger's POSITION.COMMIT topic when its config leaves it unset (configDefaults.positionCommitTopic). */
const DEFAULT_FOLLOW_UP_TOPIC = 'topic-transfer-position';

/** topic-{{functionality}}-{{action}} for bulk / processing (central-services-shared Enum.Kafka.TopicMap). */
const DEFAULT_BULK_PROCESSING_TOPIC = 'topic-bulk-processing';

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The loop for one partition batch: decode → plan and write (one DB transaction per chunk of `batchSize`) →
 * produce the notifications → once they are acknowledged, commit the offsets. Never in another order: a crash
 * anywhere leaves the committed offset at or before the first message whose notification is not
 * acknowledged, and the redelivery is recognised by the ledger (planBatch) and only re-notified.
 *
 * The produce of chunk N overlaps the DB work of chunk N+1. The wait for the acknowledgement and the offset
 * commit happen off the fetch loop, on the partition's settle chain (the bus's: settle-chain.ts), so the next fetch does not wait for
 * two more broker round trips: the DB transaction is the only wait between fetches.
 */
export class PositionRunner {
  private stopping = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly progress: PartitionProgress;

  constructor(
    private readonly bus: PositionBus,
    private readonly store: BatchStore,
    private readonly metrics: PositionMetrics,
    private readonly logger: Logger,
    private readonly options: RunnerOptions,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.progress = options.progress ?? new PartitionProgress(60_000);
  }

  async start(): Promise<void> {
    await this.bus.start((batch) => this.track(this.handle(batch)));
  }

  /** Finishes the chunk in hand (its DB transaction, notifications and offset commit), then leaves the group. */
  async stop(): Promise<void> {
    this.stopping = true;
    // First the chunk in hand and the settles behind it (a handle that ends adds its last settle), while the
    // producer and the group are still there to notify and commit; then leave the group (kafkajs waits for an
    // eachBatch that started meanwhile; it stops at once).
    await this.drain();
    await this.bus.stop();
    await this.drain();
  }

  private async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    return work.finally(() => this.inFlight.delete(work));
  }

  /**
   * After a chunk's notifications were sent: queues it on its partition's settle chain (the bus's, beside the
   * partition's fetch position: settle-chain.ts), which waits for the acknowledgement, commits the offset in
   * chunk order (trying a failed commit again), or when the produce failed moves the partition back to the
   * chunk's first offset; reports the outcome here
   * (metrics, progress, the log). Resolves once queued (back-pressure when the broker is slow to acknowledge).
   */
  private async settle(batch: PartitionBatch, produced: Promise<void>, firstOffset: string, lastOffset: string) {
    this.progress.handles(batch.topic, batch.partition);
    const { topic, partition } = batch;
    const { outcome } = await batch.settle(
      produced,
      firstOffset,
      lastOffset,
      (nextOffset) => this.bus.commit(topic, partition, nextOffset),
      (error) => {
        // A stop does not wait for a broker that keeps refusing: the next owner replays the chunk.
        if (this.stopping) return false;
        this.failed(batch, 'notify', error, firstOffset, 'offset commit failed; tried again');
        return true;
      },
    );
    void this.track(outcome).then((settled) => {
      if (settled.kind === 'committed') {
        this.metrics.offsetCommitted(settled.seconds);
        this.progressed(batch, true);
      } else if (settled.kind === 'failed') {
        if (!settled.active) this.progress.forget(batch.topic, batch.partition);
        else
          this.failed(batch, 'notify', settled.error, firstOffset, 'notifications failed; the chunk is fetched again');
      }
    });
  }

  async handle(batch: PartitionBatch): Promise<void> {
    const { messages } = batch;
    const size = this.options.batchSize;
    const chunkAt = (start: number) => messages.slice(start, start + size);
    let nextWrite: Promise<WrittenChunk | undefined> | undefined;
    try {
      if (messages.length === 0 || this.stopping || !batch.isActive()) return;
      // Pipelined per partition: while chunk N's transaction runs, chunk N+1 is decoded; while chunk N+1's
      // transaction runs, chunk N's notifications are built and produced. Transactions of one partition never
      // overlap (N+1 starts after N committed, so it reads N's effects), and offsets are committed in order,
      // each after its chunk's notifications were acknowledged (settle).
      let chunk = chunkAt(0);
      let decoded = this.decodeChunk(batch, chunk);
      let write = this.writeChunk(batch, decoded, chunk[0]?.offset);
      for (let start = 0; start < messages.length; start += size) {
        const nextChunk = start + size < messages.length ? chunkAt(start + size) : undefined;
        const nextDecoded = nextChunk ? this.decodeChunk(batch, nextChunk) : undefined;
        const written = await write;
        nextWrite = undefined;
        if (nextChunk && nextDecoded && !this.stopping && batch.isActive()) {
          nextWrite = this.writeChunk(batch, nextDecoded, nextChunk[0]?.offset);
          // Awaited on the next turn; an unobserved rejection before then would crash the process.
          nextWrite.catch(() => {});
        }
        const notifications = this.buildNotifications(decoded, written);
        const first = chunk[0];
        const last = chunk[chunk.length - 1];
        if (first && last && batch.isActive()) {
          const produced = notifications.length > 0 ? this.produce(notifications) : Promise.resolve();
          // Observed in settle, possibly a turn later; an unobserved rejection meanwhile would crash the process.
          produced.catch(() => {});
          // The fetch position moves on now; the committed offset only after the acknowledgement (settle).
          batch.resolve(last.offset);
          await this.settle(batch, produced, first.offset, last.offset);
          this.metrics.consumerLag(
            batch.topic,
            batch.partition,
            Number(BigInt(batch.highWatermark) - BigInt(last.offset) - 1n),
          );
        }
        if (!nextWrite || !nextChunk || !nextDecoded) break;
        write = nextWrite;
        chunk = nextChunk;
        decoded = nextDecoded;
      }
    } catch (error) {
      // Not a transaction (those are retried in place): a message our decoding could not handle (a bug). The
      // partition backs off like a failed transaction, then the bus fetches its unresolved messages again.
      if (error instanceof StoppedError || this.stopping || !batch.isActive()) throw error;
      const { failures } = this.failed(batch, 'transaction', error, messages[0]?.offset, 'batch failed; fetched again');
      await (this.options.sleep ?? timerSleep)(this.backOff(failures));
      throw error;
    } finally {
      // On an error path the next chunk's transaction may still be running: let it end (its messages are
      // not committed, so they come back as replays) before the handler reports this batch done.
      if (nextWrite) await Promise.allSettled([nextWrite]);
    }
  }

  /** The back-off after the `failures`-th failure in a row: doubling from retryInitialMs up to retryMaxMs. */
  private backOff(failures: number): number {
    const { retryInitialMs, retryMaxMs } = this.options;
    return Math.min(retryInitialMs * 2 ** Math.min(failures - 1, 30), retryMaxMs);
  }

  /**
   * One failure of a partition's work: counted by class, one warn line for this back-off step (the error
   * through pino's serializer: stack, errno/code, cause), and one error line when the partition has made no
   * progress for stalledAfterMs (then /health is DOWN naming it).
   */
  private failed(
    batch: PartitionBatch,
    stage: 'transaction' | 'notify',
    error: unknown,
    fromOffset: string | undefined,
    message: string,
  ): { readonly failures: number } {
    const { topic, partition } = batch;
    // Money that does not add up stops the partition at once: its batch is never committed while it lasts.
    const failure = this.progress.failed(topic, partition, stage, error, error instanceof InvariantViolation);
    if (stage === 'transaction') this.metrics.transactionRetried(failure.errorClass);
    else this.metrics.notifyRetried(failure.errorClass);
    const retryInMs = stage === 'transaction' ? this.backOff(failure.failures) : undefined;
    this.logger.warn(
      {
        topic,
        partition,
        fromOffset,
        errorClass: failure.errorClass,
        failures: failure.failures,
        stalledForMs: failure.stalledForMs,
        ...(retryInMs === undefined ? {} : { retryInMs }),
        err: error,
      },
      message,
    );
    const stalled = this.progress.crossedBound(topic, partition);
    if (stalled) {
      const violated = error instanceof InvariantViolation;
      this.logger.error(
        {
          topic,
          partition,
          stalledForSeconds: stalled.stalledForSeconds,
          failures: stalled.failures,
          lastError: stalled.lastError,
        },
        violated
          ? 'partition stopped: invariant violated, its batch is not committed; /health is DOWN until it progresses'
          : 'partition stalled: no progress; /health is DOWN until it progresses',
      );
    }
    return failure;
  }

  /** The partition's work went through (a transaction, or with `offset` an offset commit). */
  private progressed(batch: PartitionBatch, offset: boolean): void {
    const ended = this.progress.progressed(batch.topic, batch.partition, offset);
    if (ended?.reported) {
      this.logger.info(
        {
          topic: batch.topic,
          partition: batch.partition,
          stalledForSeconds: ended.stalledForSeconds,
          failures: ended.failures,
        },
        'partition progresses again',
      );
    }
  }

  /** Sends a chunk's notifications; the `produce` stage is the time from the send to the acknowledgement. */
  private produce(notifications: readonly OutboundMessage[]): Promise<void> {
    const started = performance.now();
    const produced = this.bus.produce(notifications);
    produced.then(
      () => this.metrics.notificationsAcknowledged((performance.now() - started) / 1000),
      () => {},
    );
    return produced;
  }

  private decodeChunk(batch: PartitionBatch, chunk: PartitionBatch['messages']): DecodedChunk {
    const started = performance.now();
    const decoded: PositionMessage[] = [];
    const commands: LedgerCommand[] = [];
    const errorNotifications: OutboundMessage[] = [];
    // Made only when a message cannot be read (rare).
    let unread: ResultTally | undefined;
    for (const message of chunk) {
      try {
        const position = decodeMessage(message.key, message.value);
        const command: { -readonly [K in keyof LedgerCommand]: LedgerCommand[K] } = {
          seq: decoded.length,
          action: position.action,
          transferId: position.transferId,
          accountId: position.key,
        };
        if (position.amount !== undefined) command.amount = position.amount;
        if (position.cyril !== undefined) command.cyril = position.cyril;
        commands.push(command);
        decoded.push(position);
      } catch (error) {
        const ctx = this.notifyContext();
        unread ??= new ResultTally();
        errorNotifications.push(...this.malformed(batch, message.offset, error, ctx, unread));
      }
    }
    this.metrics.chunkDecoded((performance.now() - started) / 1000, unread);
    return { decoded, commands, errorNotifications };
  }

  /** One DB transaction for the chunk's commands (retried until it commits); undefined when it has none. */
  private async writeChunk(
    batch: PartitionBatch,
    chunk: DecodedChunk,
    fromOffset: string | undefined,
  ): Promise<WrittenChunk | undefined> {
    if (chunk.commands.length === 0) return undefined;
    const timings: StageTimings = { lock: 0, plan: 0, write: 0 };
    const plan = await this.withRetry(batch, fromOffset, () =>
      planAndWriteBatch(this.store, chunk.commands, timings, this.options.plan),
    );
    this.progressed(batch, false);
    const seconds = { lock: timings.lock / 1000, plan: timings.plan / 1000, write: timings.write / 1000 };
    this.metrics.transactionCommitted(seconds, chunk.commands.length);
    return { plan, transactionSeconds: seconds.lock + seconds.plan + seconds.write };
  }

  /** The chunk's messages to produce (sends nothing): its error notifications, then one or more per outcome. */
  private buildNotifications(chunk: DecodedChunk, written: WrittenChunk | undefined): OutboundMessage[] {
    const out = chunk.errorNotifications;
    if (!written) return out;
    const started = performance.now();
    const ctx = this.notifyContext();
    const counts = new ResultTally();
    for (const outcome of written.plan.outcomes) {
      const message = chunk.decoded[outcome.seq] as PositionMessage;
      this.count(message, outcome, counts);
      if (isOneAtATimeAction(message.action)) {
        const result = oneAtATimeResult(message, outcome, ctx);
        out.push(
          result.destination === 'bulk-processing'
            ? {
                key: null,
                value: result.value,
                topic: this.options.bulkProcessingTopic ?? DEFAULT_BULK_PROCESSING_TOPIC,
              }
            : { key: null, value: result.value },
        );
        continue;
      }
      for (const note of notificationsFor(message, outcome, ctx)) {
        out.push(
          note.followUp
            ? { key: note.key, value: note.value, topic: this.options.followUpTopic ?? DEFAULT_FOLLOW_UP_TOPIC }
            : { key: null, value: note.value },
        );
      }
    }
    this.metrics.resultsBuilt(counts, written.transactionSeconds, (performance.now() - started) / 1000);
    return out;
  }

  private notifyContext(): NotifyContext {
    const { hubName, errorHandling } = this.options;
    return errorHandling === undefined ? { hubName, now: this.now() } : { hubName, now: this.now(), errorHandling };
  }

  private count(message: PositionMessage, outcome: Outcome, counts: ResultTally): void {
    counts.add(message.action, outcome.result);
    if (outcome.result === 'failed') {
      this.logger.warn(
        {
          action: message.action,
          transferId: message.transferId,
          error: outcome.error?.name,
          detail: outcome.error?.detail,
        },
        'message not applied',
      );
    }
  }

  /**
   * A message that cannot be applied: an error notification when it names a transfer and a sender,
   * otherwise a logged skip. Either way the batch goes on; `unread` counts it.
   */
  private malformed(
    batch: PartitionBatch,
    offset: string,
    error: unknown,
    ctx: NotifyContext,
    unread: ResultTally,
  ): OutboundMessage[] {
    if (!(error instanceof MalformedMessageError)) throw error;
    const where = { topic: batch.topic, partition: batch.partition, offset, kind: error.kind, detail: error.message };
    const action = String(error.envelope?.metadata.event.action ?? 'unknown');
    // The label takes only known values: an action string from the wire must not grow the label set.
    const label = isPositionAction(action) ? action : 'unknown';
    if (error.envelope === undefined || error.transferId === undefined) {
      unread.add(label, 'skipped');
      this.logger.error(where, 'malformed message skipped');
      return [];
    }
    unread.add(label, 'failed');
    this.logger.warn(where, 'malformed message answered with an error notification');
    const name = error.kind === 'UNSUPPORTED_ACTION' || error.kind === 'BAD_CYRIL_RESULT' ? error.kind : 'MALFORMED';
    const detail = name === 'MALFORMED' ? undefined : error.message;
    return [
      {
        key: null,
        value: hubErrorNotification(error.envelope, error.transferId, error.envelope.from, action, name, detail, ctx),
      },
    ];
  }

  /**
   * Retries a failed transaction (rolled back) with exponential back-off, for as long as it takes: offsets are
   * not committed meanwhile, so nothing is lost, and the heartbeat keeps the partition. Every error is retried,
   * transient or permanent: a database that is down, deadlocked or timing out a lock wait heals by itself, a
   * dropped column or a bug once someone fixes it, and giving up would mean skipping money. What a permanent one
   * gets instead is visibility: /health DOWN once the partition has made no progress for stalledAfterMs.
   */
  private async withRetry<T>(
    batch: PartitionBatch,
    fromOffset: string | undefined,
    work: () => Promise<T>,
  ): Promise<T> {
    for (;;) {
      try {
        return await work();
      } catch (error) {
        if (this.stopping || !batch.isActive()) {
          this.progress.forget(batch.topic, batch.partition);
          throw new StoppedError();
        }
        const { failures } = this.failed(batch, 'transaction', error, fromOffset, 'transaction rolled back; retrying');
        await (this.options.sleep ?? timerSleep)(this.backOff(failures));
        await batch.heartbeat().catch(() => {});
      }
    }
  }
}
