import type { Logger } from '../observe/logger.js';
import { SettleChain } from './settle-chain.js';
import type { InboundMessage, PartitionBatch } from './types.js';

/**
 * Where a partition stands in this member's fetch loop:
 *
 *   recovering --offsets known--> idle --slot free--> fetching --messages--> handling --handler settled--> idle
 *                                                      fetching --empty, error, moved meanwhile--> idle
 *                                                      fetching --offset out of range--> recovering
 *
 * A seek (any phase) sets the offset, bumps the epoch and starts a new settle chain; a revocation removes the
 * partition and bumps its epoch; stop bumps every epoch. Beside the fetch position, each partition's state holds
 * its settle chain (settle-chain.ts): the chunks handed on whose acknowledgement and offset commit are pending,
 * so one object owns where the partition is fetched from, handled to and committed to. A fetch response or a batch of an older epoch is no longer current: the
 * response is dropped, the batch reports isActive() false and its resolve() moves nothing.
 */
export type PartitionPhase = 'recovering' | 'idle' | 'fetching' | 'handling';

/** The fetcher's own lifecycle: start once, stop once (stop waits for the fetches and batches in hand). */
export type FetcherState = 'created' | 'running' | 'stopping' | 'stopped';

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export interface FetchPosition extends TopicPartition {
  readonly offset: bigint;
}

/** One partition of a fetch response, as the fetcher needs it. */
export interface FetchedPartition extends TopicPartition {
  /** The records from the requested offset on, transaction markers left out. */
  readonly messages: readonly InboundMessage[];
  /** The offset after the last record batch of the response (markers included); the requested offset if none. */
  readonly nextOffset: bigint;
  readonly highWatermark: string;
}

/** A fetch refused because these partitions' positions are before the log start (retention) or past its end. */
export class OffsetOutOfRangeError extends Error {
  constructor(
    readonly partitions: readonly TopicPartition[],
    options?: ErrorOptions,
  ) {
    super(`fetch position out of range: ${partitions.map((p) => keyOf(p.topic, p.partition)).join(', ')}`, options);
    this.name = 'OffsetOutOfRangeError';
  }
}

export type OffsetLookup = (topic: string, partition: number) => bigint | undefined;

/**
 * The client calls the fetch loop makes. `Route` is what one metadata request says (leaders, topic ids): the
 * fetcher asks for it once per scheduling pass and hands it back to `leaderOf` and `fetch`, so a leader change
 * is followed on the next pass.
 */
export interface FetcherIo<Route> {
  route(topics: readonly string[]): Promise<Route>;
  /** The partition's leader node, undefined when none is known (an election in progress). */
  leaderOf(route: Route, topic: string, partition: number): number | undefined;
  /** One fetch request to one leader; may answer partitions not asked for (a fetch session), which are dropped. */
  fetch(route: Route, node: number, positions: readonly FetchPosition[]): Promise<readonly FetchedPartition[]>;
  /** The group's committed offsets; undefined for a partition with none. */
  committedOffsets(partitions: readonly TopicPartition[]): Promise<OffsetLookup>;
  /** The log start (earliest) or end (latest) of each partition of the topics. */
  listOffsets(topics: readonly string[], from: 'earliest' | 'latest'): Promise<OffsetLookup>;
  commit(topic: string, partition: number, nextOffset: bigint): Promise<void>;
}

export interface PartitionFetcherOptions<Route> {
  readonly io: FetcherIo<Route>;
  readonly topics: readonly string[];
  /** Partitions fetched or in the handler at once. */
  readonly concurrency: number;
  /** Where a partition without a committed offset starts (POSITION_FROM_BEGINNING). */
  readonly fromBeginning: boolean;
  /** Back-off after a failed metadata, fetch or offset lookup. */
  readonly retryMs: number;
  readonly logger: Logger;
  /** Waits `ms` (the pauses after failures); a simulation's clock instead of the timers when given. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface PartitionSnapshot extends TopicPartition {
  readonly phase: PartitionPhase;
  /** The next fetch's offset; -1 while recovering. */
  readonly offset: bigint;
  readonly epoch: number;
}

interface Partition {
  readonly topic: string;
  readonly partition: number;
  phase: PartitionPhase;
  offset: bigint;
  epoch: number;
  /** The chunks of this epoch whose acknowledgement and offset commit are pending. */
  chain: SettleChain;
  /** When it was last put in a fetch (the fetcher's count of fetches started); 0: never. */
  sentAt: number;
}

const keyOf = (topic: string, partition: number) => `${topic}:${partition}`;

/**
 * The fetch loop of one group member, with no client in it: each assigned partition's fetch position is this
 * object's, so a batch is the messages of one partition in one fetch response, and a partition is fetched
 * again only once its batch is out of the handler, from the offset after the last one the handler resolved.
 * Membership (join, heartbeats, rejoin) stays with the client; the client's adapter tells `assign` each
 * assignment.
 */
export class PartitionFetcher<Route> {
  readonly #options: PartitionFetcherOptions<Route>;
  readonly #partitions = new Map<string, Partition>();
  /** Scheduling passes and fetches in flight, and batches in the handler: what stop waits for. */
  readonly #inFlight = new Set<Promise<void>>();
  readonly #inHand = new Set<Promise<void>>();
  #state: FetcherState = 'created';
  #handle: (batch: PartitionBatch) => Promise<void> = async () => {};
  #scheduled = false;
  /** Fetches started so far: each partition remembers when it was last sent, so the longest waiting goes first. */
  #sent = 0;

  constructor(options: PartitionFetcherOptions<Route>) {
    this.#options = options;
  }

  get state(): FetcherState {
    return this.#state;
  }

  /** The assigned partitions, in assignment order. */
  snapshot(): PartitionSnapshot[] {
    return [...this.#partitions.values()].map(({ topic, partition, phase, offset, epoch }) => ({
      topic,
      partition,
      phase,
      offset,
      epoch,
    }));
  }

  isAssigned(topic: string, partition: number): boolean {
    return this.#partitions.has(keyOf(topic, partition));
  }

  start(handle: (batch: PartitionBatch) => Promise<void>): void {
    if (this.#state !== 'created') throw new Error(`partition fetcher cannot start: it is ${this.#state}`);
    this.#handle = handle;
    this.#state = 'running';
    this.#poke();
  }

  /** A group join's assignment: keeps the partitions still assigned, drops the revoked ones, recovers the new ones. */
  assign(assignment: readonly { readonly topic: string; readonly partitions: readonly number[] }[]): void {
    const wanted = new Set(assignment.flatMap(({ topic, partitions }) => partitions.map((p) => keyOf(topic, p))));
    for (const [key, state] of this.#partitions) {
      if (wanted.has(key)) continue;
      state.epoch += 1;
      this.#partitions.delete(key);
    }
    const added: Partition[] = [];
    for (const { topic, partitions } of assignment) {
      for (const partition of partitions) {
        const key = keyOf(topic, partition);
        if (this.#partitions.has(key)) continue;
        const chain = this.#chainOf(topic, partition);
        const state: Partition = { topic, partition, phase: 'recovering', offset: -1n, epoch: 0, chain, sentAt: 0 };
        this.#partitions.set(key, state);
        added.push(state);
      }
    }
    if (added.length > 0) void this.#recover(added, 'committed');
    this.#poke();
  }

  /** Moves the fetch position (nothing is committed); batches fetched before report isActive() false. */
  seek(topic: string, partition: number, offset: bigint): void {
    const state = this.#partitions.get(keyOf(topic, partition));
    if (!state) return;
    state.epoch += 1;
    state.offset = offset;
    state.chain = this.#chainOf(topic, partition);
    if (state.phase === 'recovering') state.phase = 'idle';
    this.#poke();
  }

  #chainOf(topic: string, partition: number): SettleChain {
    return new SettleChain({
      seek: (offset) => this.seek(topic, partition, offset),
      pause: () => this.#pause(),
    });
  }

  async commit(topic: string, partition: number, nextOffset: bigint): Promise<void> {
    // A revoked partition belongs to another member now; its offsets are that member's to commit.
    if (!this.isAssigned(topic, partition)) {
      throw new Error(`partition ${topic}:${partition} is no longer assigned to this member; offset not committed`);
    }
    await this.#options.io.commit(topic, partition, nextOffset);
  }

  /** Drops what is fetched from now on, waits for the fetches in flight and the batches in the handler. */
  async stop(): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'stopping') return;
    this.#state = 'stopping';
    for (const state of this.#partitions.values()) state.epoch += 1;
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    while (this.#inHand.size > 0) await Promise.allSettled([...this.#inHand]);
    this.#state = 'stopped';
  }

  get #running(): boolean {
    return this.#state === 'running';
  }

  #current(state: Partition, epoch: number): boolean {
    return (
      this.#running && state.epoch === epoch && this.#partitions.get(keyOf(state.topic, state.partition)) === state
    );
  }

  #track(work: Promise<void>): void {
    const tracked = work.finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  #pause(): Promise<void> {
    const { sleep, retryMs } = this.#options;
    return sleep ? sleep(retryMs) : new Promise((resolve) => setTimeout(resolve, retryMs));
  }

  /** Starts the fetches there is room for, on the next turn (several changes in one turn make one pass). */
  #poke(): void {
    if (this.#scheduled || !this.#running) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      if (this.#running) this.#track(this.#schedule());
    });
  }

  /**
   * The offsets of partitions whose position is unknown: the group's committed offset ('committed', after an
   * assignment), else, or directly ('reset', after an out-of-range fetch), the log start or end. Retried until
   * it answers, as long as one of them is still assigned and recovering in the epoch it was asked for.
   */
  async #recover(partitions: readonly Partition[], mode: 'committed' | 'reset'): Promise<void> {
    const asked = partitions.map((state) => ({ state, epoch: state.epoch }));
    const pending = () =>
      asked.filter(({ state, epoch }) => this.#current(state, epoch) && state.phase === 'recovering');
    const { io, fromBeginning, logger } = this.#options;
    for (;;) {
      const todo = pending();
      if (todo.length === 0) return;
      try {
        const committed =
          mode === 'committed' ? await io.committedOffsets(todo.map(({ state }) => state)) : () => undefined;
        const missing = todo.filter(({ state }) => committed(state.topic, state.partition) === undefined);
        const fallback: OffsetLookup = missing.length
          ? await io.listOffsets(
              [...new Set(missing.map(({ state }) => state.topic))],
              fromBeginning ? 'earliest' : 'latest',
            )
          : () => undefined;
        for (const { state, epoch } of todo) {
          if (!this.#current(state, epoch) || state.phase !== 'recovering') continue;
          state.offset = committed(state.topic, state.partition) ?? fallback(state.topic, state.partition) ?? 0n;
          state.phase = 'idle';
        }
        this.#poke();
        return;
      } catch (error) {
        if (pending().length === 0) return;
        const what = mode === 'committed' ? 'committed offsets' : 'earliest/latest offsets';
        logger.error({ err: error }, `reading ${what} failed; retrying`);
        await this.#pause();
      }
    }
  }

  /** Fetches the idle partitions, at most `concurrency` fetched or in the handler at once, grouped by leader. */
  async #schedule(): Promise<void> {
    const { io, topics, concurrency, logger } = this.#options;
    const all = [...this.#partitions.values()];
    const taken = all.filter((s) => s.phase === 'fetching' || s.phase === 'handling').length;
    const idle = all.filter((s) => s.phase === 'idle');
    const free = concurrency - taken;
    if (idle.length === 0 || free <= 0) return;
    // Fewer slots than idle partitions: the ones sent longest ago go first, so a partition cannot starve behind
    // others whose fetches come back empty and are sent again at once.
    const ready = idle.sort((a, b) => a.sentAt - b.sentAt).slice(0, free);
    for (const state of ready) {
      state.phase = 'fetching';
      state.sentAt = ++this.#sent;
    }
    let route: Route;
    try {
      route = await io.route(topics);
    } catch (error) {
      if (this.#running) {
        logger.error({ err: error }, 'metadata failed; retrying');
        await this.#pause();
      }
      this.#settle(ready);
      return;
    }
    if (!this.#running) {
      this.#settle(ready);
      return;
    }
    const byNode = new Map<number, Partition[]>();
    for (const state of ready) {
      const leader = io.leaderOf(route, state.topic, state.partition);
      if (leader === undefined) {
        // No leader known (an election in progress): asked again after a pause, with fresh metadata then.
        state.phase = 'idle';
        void this.#pause().then(() => this.#poke());
        continue;
      }
      byNode.set(leader, [...(byNode.get(leader) ?? []), state]);
    }
    for (const [node, group] of byNode) this.#track(this.#fetchFrom(route, node, group));
  }

  /** Back to idle after a fetch that handed nothing to the handler (unless revoked, stopped or recovering). */
  #settle(states: Iterable<Partition>): void {
    for (const state of states) if (state.phase === 'fetching') state.phase = 'idle';
    this.#poke();
  }

  async #fetchFrom(route: Route, node: number, group: readonly Partition[]): Promise<void> {
    const requested = new Map<Partition, number>(group.map((state) => [state, state.epoch]));
    const positions = group.map(({ topic, partition, offset }) => ({ topic, partition, offset }));
    try {
      const response = await this.#options.io.fetch(route, node, positions);
      if (this.#running) this.#dispatch(response, requested);
    } catch (error) {
      if (!this.#running) return;
      if (error instanceof OffsetOutOfRangeError) {
        const outOfRange = error.partitions
          .map(({ topic, partition }) => this.#partitions.get(keyOf(topic, partition)))
          .filter((s): s is Partition => s !== undefined && requested.get(s) === s.epoch);
        if (outOfRange.length > 0) {
          // Retention removed the messages at the fetch position: start again where POSITION_FROM_BEGINNING says.
          this.#options.logger.error(
            {
              partitions: outOfRange.map((s) => keyOf(s.topic, s.partition)),
            },
            'fetch position out of range; moved to the earliest/latest offset',
          );
          for (const state of outOfRange) {
            state.epoch += 1;
            state.offset = -1n;
            state.phase = 'recovering';
          }
          void this.#recover(outOfRange, 'reset');
          return;
        }
      }
      this.#options.logger.error({ err: error }, 'fetch failed; retrying');
      await this.#pause();
    } finally {
      this.#settle(requested.keys());
    }
  }

  /** Hands each partition's messages of one fetch response to the handler, unless it moved meanwhile. */
  #dispatch(response: readonly FetchedPartition[], requested: Map<Partition, number>): void {
    for (const part of response) {
      const state = this.#partitions.get(keyOf(part.topic, part.partition));
      // Not asked for in this request (a fetch session can return others), revoked, or seeked meanwhile.
      if (!state || requested.get(state) !== state.epoch) continue;
      requested.delete(state);
      if (part.messages.length === 0) {
        // Only transaction markers: step over them, there is nothing to handle.
        if (part.nextOffset > state.offset) state.offset = part.nextOffset;
        state.phase = 'idle';
        continue;
      }
      this.#startBatch(state, part);
    }
  }

  #startBatch(state: Partition, part: FetchedPartition): void {
    state.phase = 'handling';
    const epoch = state.epoch;
    const chain = state.chain;
    const current = () => this.#current(state, epoch);
    const batch: PartitionBatch = {
      topic: state.topic,
      partition: state.partition,
      messages: part.messages,
      highWatermark: part.highWatermark,
      // The client heartbeats on its own timer, independent of the handler's work.
      heartbeat: async () => {},
      resolve(offset) {
        if (current()) state.offset = BigInt(offset) + 1n;
      },
      isActive: current,
      settle: (produced, firstOffset, lastOffset, commit, commitFailed) =>
        chain.settle({ produced, firstOffset, lastOffset, isActive: current, commit, commitFailed }),
    };
    const work = this.#handle(batch)
      .catch((error: unknown) => {
        // What was not resolved is fetched again (the fetch position stays after the last resolved message).
        this.#options.logger.error(
          {
            topic: state.topic,
            partition: state.partition,
            err: error,
          },
          'batch failed; its unresolved messages are fetched again',
        );
      })
      .finally(() => {
        if (state.phase === 'handling') state.phase = 'idle';
        this.#inHand.delete(work);
        this.#poke();
      });
    this.#inHand.add(work);
  }
}
