import {
  type BatchStore,
  type BatchTransaction,
  createMetrics,
  type Logger,
  type PlanInput,
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

/** The database taken out: nothing read or written. */
class EmptyStore implements BatchStore {
  readonly #tx: BatchTransaction = {
    referenceData: async () => ({ accounts: [], settlementModels: [] }),
    lockAndRead: async () => ({
      positions: new Map(),
      histories: new Map(),
      payeeAmounts: new Map(),
      fxHistories: new Map(),
      fxReservedChanges: new Map(),
    }),
    write: async () => {},
  };

  transaction<T>(work: (tx: BatchTransaction) => Promise<T>): Promise<T> {
    return work(this.#tx);
  }
}

/** The ledger taken out: every command answered as applied, nothing to write. */
class AppliedPlanner {
  applied = 0;

  readonly plan = (input: PlanInput): PlanResult => {
    this.applied += input.commands.length;
    return {
      stateChanges: [],
      positionChanges: [],
      positionUpdates: [],
      outcomes: input.commands.map((c) => ({ seq: c.seq, result: 'applied' as const })),
    };
  };
}

/**
 * The handler with the database taken out, to measure what its Kafka layer alone allows (when
 * the Kafka client is the limit, this measurement shows it): the handler's own PositionRunner on the given bus,
 * so decode, notification encoding, chunking, pipelining and the acknowledged offset commits are the
 * handler's, over a store that reads and writes nothing and a planner that applies every command.
 */
export class Passthrough {
  readonly #planner = new AppliedPlanner();
  readonly #runner: PositionRunner;

  constructor(bus: PositionBus, options: PassthroughOptions) {
    this.#runner = new PositionRunner(bus, new EmptyStore(), createMetrics(new Registry()), options.logger, {
      batchSize: options.batchSize,
      hubName: options.hubName,
      retryInitialMs: 100,
      retryMaxMs: 5_000,
      plan: this.#planner.plan,
    });
  }

  get counts(): { applied: number } {
    return { applied: this.#planner.applied };
  }

  start(): Promise<void> {
    return this.#runner.start();
  }

  stop(): Promise<void> {
    return this.#runner.stop();
  }
}
