/** Chunks of one partition whose notifications may be awaiting their acknowledgement at once. */
export const MAX_UNSETTLED_CHUNKS = 4;

/** What became of one chunk's settle. */
export type Settled =
  /** Its notifications were acknowledged and the offset after it committed, in `seconds`. */
  | { readonly kind: 'committed'; readonly seconds: number }
  /** Acknowledged; a later chunk of the partition was already queued and its commit covers this one. */
  | { readonly kind: 'covered' }
  /** An earlier chunk's settle failed: the partition was moved back before this one, nothing committed. */
  | { readonly kind: 'abandoned' }
  /**
   * The produce failed (or the offset commit, once the partition is no longer this member's); the fetch position
   * went back to the chunk's first offset when the batch was still active (`active`).
   */
  | { readonly kind: 'failed'; readonly error: unknown; readonly active: boolean };

/** What a partition's settle chain needs from the partition's owner (the fetch loop or the client's adapter). */
export interface SettlePort {
  /** Moves this member's fetch position back to `offset` (nothing committed); starts a new chain. */
  seek(offset: bigint): void;
  /** The wait before an offset commit is tried again. */
  pause(): Promise<void>;
}

/** One chunk handed to the chain once its notifications were sent. */
export interface ChunkToSettle {
  /** The chunk's notifications' acknowledgement. */
  readonly produced: Promise<void>;
  readonly firstOffset: string;
  readonly lastOffset: string;
  /** Whether the batch the chunk came from is still current (not revoked, not moved back, not stopping). */
  readonly isActive: () => boolean;
  /** Commits `nextOffset` for the group (the runner's PositionBus.commit). */
  readonly commit: (nextOffset: string) => Promise<void>;
  /** An offset commit failed (for the metrics and the log); answers whether to try it again. */
  readonly commitFailed: ((error: unknown) => boolean) | undefined;
}

/**
 * The committed-offset half of one partition's state: the chunks whose notifications were sent, in order,
 * each waiting for its acknowledgement and then for the settle before it, and then committing the offset after
 * its last message. Offsets are therefore committed in order, each only after its own chunk's acknowledgement
 * and every earlier chunk's; a chunk with a later one already queued leaves the commit to it (one broker
 * request saved: if that one fails, it moves the partition back to its own first offset, and this acknowledged
 * chunk would only be replayed after a crash). A failed produce or commit moves the fetch position back to the
 * chunk's first offset (seek): the chunk and those after it are fetched again, found already applied and
 * re-notified; the settles queued behind it commit nothing. A failed offset commit is not a reason to handle
 * the chunk again (its notifications were acknowledged: doing so would notify them twice): it is tried again
 * after a pause while the partition is this member's, unless a later chunk is queued, whose commit covers it.
 * The owner starts a new chain at each seek.
 */
export class SettleChain {
  /** The last queued chunk's settle: true once its offset is committed (or covered). */
  #last: Promise<boolean> = Promise.resolve(true);
  #open = 0;

  constructor(
    private readonly port: SettlePort,
    private readonly maxOpen = MAX_UNSETTLED_CHUNKS,
  ) {}

  /** Chunks queued and not yet settled. */
  get open(): number {
    return this.#open;
  }

  /**
   * Queues the chunk's settle behind the previous one, after waiting while `maxOpen` are open (back-pressure
   * when the broker is slow to acknowledge). Resolves once queued, with the settle's outcome to observe; the
   * outcome never rejects.
   */
  async settle(chunk: ChunkToSettle): Promise<{ readonly outcome: Promise<Settled> }> {
    while (this.#open >= this.maxOpen) await this.#last;
    const previous = this.#last;
    this.#open += 1;
    let committed!: Promise<boolean>;
    const outcome = this.#run(chunk, previous, () => this.#last === committed);
    committed = outcome.then((o) => o.kind === 'committed' || o.kind === 'covered');
    this.#last = committed;
    return { outcome };
  }

  async #run(chunk: ChunkToSettle, previous: Promise<boolean>, isLast: () => boolean): Promise<Settled> {
    try {
      if (!(await previous)) {
        // Fetched before the partition moved back: handled again from there, so its own failure means nothing.
        await chunk.produced.catch(() => {});
        return { kind: 'abandoned' };
      }
      try {
        await chunk.produced;
      } catch (error) {
        return this.#moveBack(chunk, error);
      }
      for (;;) {
        if (!isLast()) return { kind: 'covered' };
        // A partition revoked meanwhile (and perhaps given back: a new state, a new chain) is not this chain's
        // to commit: its offset could move back past what the new owner committed, and its messages handled again
        // would be notified after their commit.
        if (!chunk.isActive())
          return { kind: 'failed', error: new Error('partition moved before its offset commit'), active: false };
        const started = performance.now();
        try {
          await chunk.commit((BigInt(chunk.lastOffset) + 1n).toString());
          return { kind: 'committed', seconds: (performance.now() - started) / 1000 };
        } catch (error) {
          // Revoked, or stopping: the offset stays uncommitted, and whoever fetches the partition next replays it.
          if (!chunk.isActive() || chunk.commitFailed?.(error) === false)
            return { kind: 'failed', error, active: false };
          await this.port.pause();
        }
      }
    } finally {
      this.#open -= 1;
    }
  }

  /** The chunk's notifications were not acknowledged: it is fetched and handled again from its first offset. */
  #moveBack(chunk: ChunkToSettle, error: unknown): Settled {
    // The partition may have been revoked meanwhile; its new owner starts from the committed offset.
    const active = chunk.isActive();
    if (active) {
      try {
        this.port.seek(BigInt(chunk.firstOffset));
      } catch {
        // A client that cannot seek now (rejoining) starts from the committed offset, before this chunk.
      }
    }
    return { kind: 'failed', error, active };
  }
}
