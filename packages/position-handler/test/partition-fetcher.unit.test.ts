import { describe, expect, it, vi } from 'vitest';
import {
  type FetchedPartition,
  type FetcherIo,
  type FetchPosition,
  type OffsetLookup,
  OffsetOutOfRangeError,
  PartitionFetcher,
  type TopicPartition,
} from '../src/bus/partition-fetcher.js';
import type { PartitionBatch } from '../src/bus/types.js';
import type { Logger } from '../src/observe/logger.js';

/**
 * The fetch loop without a broker: a scripted client whose fetches stay in flight until the test answers them,
 * so each case can change the assignment, seek, move a leader or stop at the exact moment it is about.
 */
const TOPIC = 'positions';
const key = (partition: number) => `${TOPIC}:${partition}`;

interface FetchCall {
  readonly node: number;
  readonly positions: readonly FetchPosition[];
  answer(parts: readonly FetchedPartition[]): void;
  fail(error: unknown): void;
}

class ScriptedIo implements FetcherIo<ReadonlyMap<string, number>> {
  /** The leader node of each partition (a copy is the route of one scheduling pass). */
  readonly leaders = new Map<string, number>();
  readonly committed = new Map<string, bigint>();
  readonly logStart = new Map<string, bigint>();
  readonly logEnd = new Map<string, bigint>();
  /** Fetch requests not yet taken by nextCall(). */
  readonly calls: FetchCall[] = [];
  /** Fetch requests not yet answered, taken or not. */
  readonly unanswered = new Set<FetchCall>();
  readonly listed: ('earliest' | 'latest')[] = [];
  /** Committed-offset reads that fail before one answers. */
  committedFailures = 0;

  async route(): Promise<ReadonlyMap<string, number>> {
    return new Map(this.leaders);
  }

  leaderOf(route: ReadonlyMap<string, number>, topic: string, partition: number): number | undefined {
    return route.get(`${topic}:${partition}`);
  }

  fetch(_route: unknown, node: number, positions: readonly FetchPosition[]): Promise<readonly FetchedPartition[]> {
    return new Promise((resolve, reject) => {
      const call: FetchCall = {
        node,
        positions,
        answer: (parts) => {
          this.unanswered.delete(call);
          resolve(parts);
        },
        fail: (error) => {
          this.unanswered.delete(call);
          reject(error);
        },
      };
      this.calls.push(call);
      this.unanswered.add(call);
    });
  }

  async committedOffsets(partitions: readonly TopicPartition[]): Promise<OffsetLookup> {
    if (this.committedFailures > 0) {
      this.committedFailures -= 1;
      throw new Error('coordinator not available');
    }
    expect(partitions.length).toBeGreaterThan(0);
    const snapshot = new Map(this.committed);
    return (topic, partition) => snapshot.get(`${topic}:${partition}`);
  }

  async listOffsets(_topics: readonly string[], from: 'earliest' | 'latest'): Promise<OffsetLookup> {
    this.listed.push(from);
    const offsets = new Map(from === 'earliest' ? this.logStart : this.logEnd);
    return (topic, partition) => offsets.get(`${topic}:${partition}`);
  }

  async commit(topic: string, partition: number, nextOffset: bigint): Promise<void> {
    this.committed.set(`${topic}:${partition}`, nextOffset);
  }

  /** The next fetch request, once the fetcher made it. */
  async nextCall(): Promise<FetchCall> {
    return vi.waitFor(
      () => {
        const call = this.calls.shift();
        if (!call) throw new Error('no fetch request yet');
        return call;
      },
      { timeout: 2_000, interval: 1 },
    );
  }
}

/** A fetched partition holding the messages at `offsets` (and a high watermark after the last). */
function records(partition: number, offsets: readonly number[], nextOffset?: number): FetchedPartition {
  const last = offsets.at(-1) ?? -1;
  return {
    topic: TOPIC,
    partition,
    messages: offsets.map((offset) => ({ key: null, value: Buffer.from(`m${offset}`), offset: String(offset) })),
    nextOffset: BigInt(nextOffset ?? last + 1),
    highWatermark: String(Math.max(last + 1, nextOffset ?? 0)),
  };
}

const offsetsOf = (call: FetchCall) => Object.fromEntries(call.positions.map((p) => [p.partition, p.offset]));

function capturingLogger(): Logger & { readonly errors: string[] } {
  const errors: string[] = [];
  return {
    errors,
    error: (first: string | Record<string, unknown>, message?: string) => {
      errors.push(typeof first === 'string' ? first : (message ?? ''));
    },
    warn: () => {},
    info: () => {},
    debug: () => {},
  };
}

function setUp(over: { concurrency?: number; fromBeginning?: boolean } = {}) {
  const io = new ScriptedIo();
  const logger = capturingLogger();
  const fetcher = new PartitionFetcher({
    io,
    topics: [TOPIC],
    concurrency: over.concurrency ?? 4,
    fromBeginning: over.fromBeginning ?? true,
    retryMs: 5,
    logger,
  });
  const batches: PartitionBatch[] = [];
  let onBatch: (batch: PartitionBatch) => Promise<void> = async (batch) => {
    for (const m of batch.messages) batch.resolve(m.offset);
  };
  fetcher.start(async (batch) => {
    batches.push(batch);
    await onBatch(batch);
  });
  return {
    io,
    logger,
    fetcher,
    batches,
    /** Stops, answering the fetches still in flight empty, as a broker does when fetchMaxWaitMs passes. */
    async stop() {
      const stopping = fetcher.stop();
      for (const call of [...io.unanswered]) call.answer([]);
      await stopping;
      expect(fetcher.state).toBe('stopped');
    },
    handle(fn: (batch: PartitionBatch) => Promise<void>) {
      onBatch = fn;
    },
  };
}

/** A promise the test settles by hand (a handler that is still working). */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('PartitionFetcher', () => {
  it('assignment: starts each partition at its committed offset, else at the log start (fromBeginning), and fetches them together from their leader', async () => {
    const { io, fetcher, stop } = setUp();
    io.leaders.set(key(0), 1).set(key(1), 1);
    io.committed.set(key(0), 5n);
    io.logStart.set(key(1), 2n);
    fetcher.assign([{ topic: TOPIC, partitions: [0, 1] }]);
    const call = await io.nextCall();
    expect(call.node).toBe(1);
    expect(offsetsOf(call)).toEqual({ 0: 5n, 1: 2n });
    expect(io.listed).toEqual(['earliest']);
    await stop();
  });

  it('assignment without fromBeginning starts a partition with no committed offset at the log end', async () => {
    const { io, fetcher, stop } = setUp({ fromBeginning: false });
    io.leaders.set(key(0), 1);
    io.logEnd.set(key(0), 40n);
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    expect(offsetsOf(await io.nextCall())).toEqual({ 0: 40n });
    expect(io.listed).toEqual(['latest']);
    await stop();
  });

  it('a partition is fetched again only once its batch is out of the handler, from after the last resolved offset (a failed batch keeps the rest)', async () => {
    const { io, fetcher, stop, batches, handle, logger } = setUp();
    io.leaders.set(key(0), 1);
    io.committed.set(key(0), 5n);
    const working = gate();
    handle(async (batch) => {
      batch.resolve('5');
      batch.resolve('6');
      await working.opened;
      throw new Error('database gone');
    });
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    (await io.nextCall()).answer([records(0, [5, 6, 7, 8])]);
    await vi.waitFor(() => expect(batches).toHaveLength(1));
    expect(fetcher.snapshot()[0]?.phase).toBe('handling');
    // While the batch is in the handler, nothing more is asked of the broker for its partition.
    await new Promise((resolve) => setImmediate(resolve));
    expect(io.calls).toHaveLength(0);
    working.open();
    expect(offsetsOf(await io.nextCall())).toEqual({ 0: 7n });
    expect(logger.errors).toContain('batch failed; its unresolved messages are fetched again');
    await stop();
  });

  it('seek after an error: the batch in hand goes inactive, its later resolves move nothing, and the next fetch starts at the seek offset', async () => {
    const { io, fetcher, stop, batches, handle } = setUp();
    io.leaders.set(key(0), 1);
    io.committed.set(key(0), 10n);
    const activity: boolean[] = [];
    handle(async (batch) => {
      batch.resolve('10');
      activity.push(batch.isActive());
      // The runner's answer to a failed chunk: back to its first offset, to be fetched and handled again.
      fetcher.seek(TOPIC, 0, 10n);
      activity.push(batch.isActive());
      batch.resolve('12');
    });
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    (await io.nextCall()).answer([records(0, [10, 11, 12])]);
    expect(offsetsOf(await io.nextCall())).toEqual({ 0: 10n });
    expect(batches).toHaveLength(1);
    expect(activity).toEqual([true, false]);
    await stop();
  });

  it('seek while a fetch is in flight drops its response: the partition is fetched again from the seek offset', async () => {
    const { io, fetcher, stop, batches } = setUp();
    io.leaders.set(key(0), 1);
    io.committed.set(key(0), 3n);
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    const inFlight = await io.nextCall();
    fetcher.seek(TOPIC, 0, 1n);
    inFlight.answer([records(0, [3, 4])]);
    expect(offsetsOf(await io.nextCall())).toEqual({ 0: 1n });
    expect(batches).toHaveLength(0);
    await stop();
  });

  it('revocation mid-fetch: the revoked partition’s records are dropped, its offsets refused, the kept one is handled', async () => {
    const { io, fetcher, stop, batches } = setUp();
    io.leaders.set(key(0), 1).set(key(1), 1);
    io.committed.set(key(0), 0n).set(key(1), 0n);
    fetcher.assign([{ topic: TOPIC, partitions: [0, 1] }]);
    const inFlight = await io.nextCall();
    expect(offsetsOf(inFlight)).toEqual({ 0: 0n, 1: 0n });
    fetcher.assign([{ topic: TOPIC, partitions: [1] }]);
    inFlight.answer([records(0, [0, 1]), records(1, [0, 1])]);
    await vi.waitFor(() => expect(batches.map((b) => b.partition)).toEqual([1]));
    expect(fetcher.snapshot().map((s) => s.partition)).toEqual([1]);
    await expect(fetcher.commit(TOPIC, 0, 2n)).rejects.toThrow(/no longer assigned to this member/);
    expect(io.committed.get(key(0))).toBe(0n);
    await fetcher.commit(TOPIC, 1, 2n);
    expect(io.committed.get(key(1))).toBe(2n);
    await stop();
  });

  it('revocation while a batch is in the handler: the batch reports isActive() false and is not fetched again', async () => {
    const { io, fetcher, stop, batches, handle } = setUp();
    io.leaders.set(key(0), 1);
    io.committed.set(key(0), 0n);
    const working = gate();
    handle(() => working.opened);
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    (await io.nextCall()).answer([records(0, [0, 1])]);
    await vi.waitFor(() => expect(batches).toHaveLength(1));
    const [batch] = batches;
    expect(batch?.isActive()).toBe(true);
    fetcher.assign([]);
    expect(batch?.isActive()).toBe(false);
    working.open();
    await stop();
    expect(io.calls).toHaveLength(0);
  });

  it('leader change: the next fetch goes to the new leader; with no leader known it waits and asks again', async () => {
    const { io, fetcher, stop } = setUp();
    io.leaders.set(key(0), 1);
    io.committed.set(key(0), 7n);
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    const first = await io.nextCall();
    expect(first.node).toBe(1);
    // An election: the old leader refuses (NOT_LEADER_OR_FOLLOWER), none is known for a while, then broker 2 leads.
    io.leaders.delete(key(0));
    first.fail(new Error('This server is not the leader for that topic-partition'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(io.calls).toHaveLength(0);
    io.leaders.set(key(0), 2);
    const second = await io.nextCall();
    expect(second.node).toBe(2);
    expect(offsetsOf(second)).toEqual({ 0: 7n });
    await stop();
  });

  it('partitions with different leaders go in one request per leader', async () => {
    const { io, fetcher, stop } = setUp();
    io.leaders.set(key(0), 1).set(key(1), 2);
    io.committed.set(key(0), 0n).set(key(1), 0n);
    fetcher.assign([{ topic: TOPIC, partitions: [0, 1] }]);
    const calls = [await io.nextCall(), await io.nextCall()];
    expect(calls.map((c) => [c.node, c.positions.map((p) => p.partition)]).sort()).toEqual([
      [1, [0]],
      [2, [1]],
    ]);
    await stop();
  });

  it('an offset out of range moves the partition to the log start (fromBeginning) and fetches from there', async () => {
    const { io, fetcher, stop, logger } = setUp();
    io.leaders.set(key(0), 1);
    io.committed.set(key(0), 3n);
    io.logStart.set(key(0), 50n);
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    (await io.nextCall()).fail(new OffsetOutOfRangeError([{ topic: TOPIC, partition: 0 }]));
    expect(offsetsOf(await io.nextCall())).toEqual({ 0: 50n });
    expect(io.listed).toEqual(['earliest']);
    expect(logger.errors).toContain('fetch position out of range; moved to the earliest/latest offset');
    await stop();
  });

  it('a batch of transaction markers only is stepped over without calling the handler', async () => {
    const { io, fetcher, stop, batches } = setUp();
    io.leaders.set(key(0), 1);
    io.committed.set(key(0), 4n);
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    (await io.nextCall()).answer([records(0, [], 6)]);
    expect(offsetsOf(await io.nextCall())).toEqual({ 0: 6n });
    expect(batches).toHaveLength(0);
    await stop();
  });

  it('at most `concurrency` partitions are fetched or in the handler at once', async () => {
    const { io, fetcher, stop, batches, handle } = setUp({ concurrency: 2 });
    for (const p of [0, 1, 2]) {
      io.leaders.set(key(p), p + 1);
      io.committed.set(key(p), 0n);
    }
    const working = gate();
    handle(() => working.opened);
    fetcher.assign([{ topic: TOPIC, partitions: [0, 1, 2] }]);
    const calls = [await io.nextCall(), await io.nextCall()];
    for (const call of calls) call.answer([records(call.positions[0]?.partition ?? -1, [0])]);
    await vi.waitFor(() => expect(batches).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(io.calls).toHaveLength(0);
    working.open();
    // Two slots free again: the partition that waited is among the next two fetches.
    const next = [await io.nextCall(), await io.nextCall()].flatMap((c) => c.positions.map((p) => p.partition));
    const waited = [0, 1, 2].find((p) => !batches.some((b) => b.partition === p));
    expect(next).toContain(waited);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(io.calls).toHaveLength(0);
    await stop();
  });

  it('stop while a fetch is in flight: waits for it, hands nothing of it to the handler, and fetches no more', async () => {
    const { io, fetcher, batches } = setUp();
    io.leaders.set(key(0), 1);
    io.committed.set(key(0), 0n);
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    const inFlight = await io.nextCall();
    let stopped = false;
    const stopping = fetcher.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    expect(fetcher.state).toBe('stopping');
    inFlight.answer([records(0, [0, 1])]);
    await stopping;
    expect(fetcher.state).toBe('stopped');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(batches).toHaveLength(0);
    expect(io.calls).toHaveLength(0);
  });

  it('stop waits for the batch in the handler, which sees isActive() false from then on', async () => {
    const { io, fetcher, batches, handle } = setUp();
    io.leaders.set(key(0), 1);
    io.committed.set(key(0), 0n);
    const working = gate();
    handle(() => working.opened);
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    (await io.nextCall()).answer([records(0, [0])]);
    await vi.waitFor(() => expect(batches).toHaveLength(1));
    const stopping = fetcher.stop();
    expect(batches[0]?.isActive()).toBe(false);
    expect(fetcher.state).toBe('stopping');
    working.open();
    await stopping;
    expect(fetcher.state).toBe('stopped');
  });

  it('offsets recovered after a rejoin: a partition given back reads the group’s committed offset again, retrying while the coordinator fails', async () => {
    const { io, fetcher, stop, batches } = setUp();
    io.leaders.set(key(0), 1);
    io.committed.set(key(0), 5n);
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    (await io.nextCall()).answer([records(0, [5, 6])]);
    await vi.waitFor(() => expect(batches).toHaveLength(1));
    await fetcher.commit(TOPIC, 0, 7n);
    await io.nextCall(); // the next fetch, from 7, stays in flight across the rebalance
    // Out of the group (a rebalance), then the partition comes back after another member handled up to 20.
    fetcher.assign([]);
    io.committed.set(key(0), 20n);
    io.committedFailures = 2;
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    expect(fetcher.snapshot()[0]?.phase).toBe('recovering');
    expect(offsetsOf(await io.nextCall())).toEqual({ 0: 20n });
    expect(io.committedFailures).toBe(0);
    await stop();
  });

  it('a partition kept through a rejoin keeps its own position (ahead of the committed offset) and fetch in flight', async () => {
    const { io, fetcher, stop, batches } = setUp();
    io.leaders.set(key(0), 1).set(key(1), 1);
    io.committed.set(key(0), 0n).set(key(1), 0n);
    fetcher.assign([{ topic: TOPIC, partitions: [0] }]);
    (await io.nextCall()).answer([records(0, [0, 1, 2])]);
    const inFlight = await io.nextCall();
    expect(offsetsOf(inFlight)).toEqual({ 0: 3n });
    fetcher.assign([{ topic: TOPIC, partitions: [0, 1] }]);
    inFlight.answer([records(0, [3])]);
    await vi.waitFor(() => expect(batches.map((b) => b.messages[0]?.offset)).toEqual(['0', '3']));
    expect(fetcher.snapshot().map((s) => [s.partition, s.offset])).toContainEqual([0, 4n]);
    await stop();
  });

  it('fewer slots than partitions: the partition sent longest ago goes first, so one cannot starve behind others whose fetches come back empty (found by the simulator)', async () => {
    const { io, fetcher, stop } = setUp({ concurrency: 2 });
    for (const p of [0, 1, 2]) io.leaders.set(key(p), p + 1);
    fetcher.assign([{ topic: TOPIC, partitions: [0, 1, 2] }]);
    const sent: number[] = [];
    for (let i = 0; i < 8; i++) {
      const call = await io.nextCall();
      const partition = call.positions[0]?.partition as number;
      sent.push(partition);
      // Nothing to read (the broker answers empty after its max wait): the partition is idle again at once.
      call.answer([records(partition, [])]);
    }
    for (const p of [0, 1, 2])
      expect(sent.filter((q) => q === p).length, `fetches of ${p}: ${sent}`).toBeGreaterThan(1);
    await stop();
  });

  it('starts once', () => {
    const { fetcher } = setUp();
    expect(() => fetcher.start(async () => {})).toThrow(/cannot start: it is running/);
  });
});
