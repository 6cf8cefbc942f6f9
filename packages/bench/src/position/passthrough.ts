import {
  type BatchStore,
  createMetrics,
  type LedgerCommand,
  type Logger,
  type PlanResult,
  type PositionBus,
  PositionRunner,
} from '@mojafast/position-handler';
import { Registry } from 'prom-client';

export interface PassthroughOptions {
  /** Messages per chunk: the handler's POSITION_BATCH_SIZE, so sends are the same size. */
  readonly batchSize: number;
  readonly hubName: string;
  readonly logger: Logger;
}

/** The database taken out: nothing read or written, every command answered as applied. */
class AppliedStore implements BatchStore {
  applied = 0;

  async applyBatch(commands: readonly LedgerCommand[]): Promise<PlanResult> {
    this.applied += commands.length;
    return {
      stateChanges: [],
      positionChanges: [],
      positionUpdates: [],
      outcomes: commands.map((c) => ({ seq: c.seq, result: 'applied' as const })),
    };
  }
}

/**
 * The handler with the database taken out, to measure what its Kafka layer alone allows (issue #6: "if the
 * Kafka client is the limit, show it with a measurement"): the handler's own PositionRunner on the given bus,
 * so decode, notification encoding, chunking, pipelining and the acknowledged offset commits are the
 * handler's, over a store that writes nothing.
 */
export class Passthrough {
  readonly #store = new AppliedStore();
  readonly #runner: PositionRunner;

  constructor(bus: PositionBus, options: PassthroughOptions) {
    this.#runner = new PositionRunner(bus, this.#store, createMetrics(new Registry()), options.logger, {
      batchSize: options.batchSize,
      hubName: options.hubName,
      retryInitialMs: 100,
      retryMaxMs: 5_000,
    });
  }

  get counts(): { applied: number } {
    return { applied: this.#store.applied };
  }

  start(): Promise<void> {
    return this.#runner.start();
  }

  stop(): Promise<void> {
    return this.#runner.stop();
  }
}
