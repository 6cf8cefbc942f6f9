import { type FetcherIo, PartitionFetcher } from '../bus/partition-fetcher.js';
import type { InboundMessage, OutboundMessage, PositionBus } from '../bus/types.js';
import type { Logger } from '../observe/logger.js';
import type { PositionMetrics } from '../observe/metrics.js';
import { PartitionProgress } from '../observe/progress.js';
import { PositionRunner } from '../runner/runner.js';
import { Prng } from './prng.js';
import { checkAgainstReplay } from './replay-check.js';
import { Scheduler } from './scheduler.js';
import { SimStore, type StoreFaults } from './sim-store.js';
import { type SimKind, type SimMessage, type SimStep, type SimTransfer, Workload } from './workload.js';

const TOPIC = 'sim-positions';
/** The simulated clock's origin (the dates in notifications). */
const EPOCH = Date.UTC(2026, 0, 1);
/** A fetch with nothing to read waits this long on the broker (fetch max wait). */
const LONG_POLL_MS = 100;
/** A seed that has not settled after this many events has lost liveness. */
const MAX_STEPS = 40_000;
/** The kinds of transfers a seed draws from: each seed leaves some out (swarm testing). */
const KIND_SETS: readonly (readonly SimKind[])[] = [
  ['plain'],
  ['plain', 'bulk'],
  ['plain', 'fx'],
  ['bulk', 'fx'],
  ['plain', 'bulk', 'fx'],
];

/** How often each fault happens in one seed (swarm testing: each seed leaves some faults out entirely). */
export interface Faults extends StoreFaults {
  readonly fetchFails: number;
  readonly produceFails: number;
  /** The notifications were appended but the acknowledgement is lost. */
  readonly produceAckLost: number;
  readonly commitFails: number;
  /** The offset was committed but the reply is lost. */
  readonly commitAckLost: number;
  readonly offsetsReadFails: number;
  /** Per step: a member crashes (SIGKILL: its calls are never answered, its transactions roll back). */
  readonly crash: number;
  /** Per step: a member joins the group (a rebalance). */
  readonly join: number;
  /**
   * Per step: a member is stopped gracefully (SIGTERM: the runner's stop finishes the batch in hand, commits what
   * was acknowledged, leaves the group; a rebalance gives its partitions to the others).
   */
  readonly stop: number;
}

const NO_FAULTS: Faults = {
  callFails: 0,
  commitReplyLost: 0,
  fetchFails: 0,
  produceFails: 0,
  produceAckLost: 0,
  commitFails: 0,
  commitAckLost: 0,
  offsetsReadFails: 0,
  crash: 0,
  join: 0,
  stop: 0,
};

export interface SimResult {
  readonly seed: number;
  /** The first invariant broken, undefined when the seed passed. */
  readonly violation: string | undefined;
  readonly steps: number;
  readonly messages: number;
  /** Follow-ups of two-step cyrilResults the members put on the log (more than one per message when produced again). */
  readonly followUps: number;
  readonly members: number;
  readonly crashes: number;
  /** Graceful stops that returned. */
  readonly stops: number;
  readonly simulatedMs: number;
  /** The last events (with `trace`), to read a failure. */
  readonly trace: readonly string[];
}

/** A member's state as the simulated log and store see it. */
interface MemberState {
  readonly id: number;
  /** In the group: running, or stopping (a graceful stop still finishing its work). */
  alive: boolean;
  /** Its graceful stop was asked for. */
  stopping: boolean;
  /** Its graceful stop returned: it must not call the log or the store again. */
  stopped: boolean;
  /** Its produces and offset commits not answered yet: a stop returns only once there are none. */
  pending: number;
}

interface Member extends MemberState {
  readonly fetcher: PartitionFetcher<number>;
  readonly runner: PositionRunner;
}

class SimulatedFailure extends Error {
  constructor(what: string) {
    super(`simulated failure: ${what}`);
    this.name = 'SimulatedFailure';
  }
}

const noMetrics: PositionMetrics = {
  chunkDecoded() {},
  transactionCommitted() {},
  resultsBuilt() {},
  notificationsAcknowledged() {},
  offsetCommitted() {},
  consumerLag() {},
  transactionRetried() {},
  notifyRetried() {},
};

const nullLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/** A message's identity in the checks: its transfer (a conversion's for all its messages), action, and whether it is the follow-up. */
const keyOf = (transferId: string, action: string, followUp = false) =>
  `${transferId} ${action}${followUp ? ' +' : ''}`;

interface Envelope {
  readonly id: string;
  readonly content: {
    readonly payload?: { readonly errorInformation?: { readonly errorCode?: string } };
    readonly context?: { readonly cyrilResult?: { readonly positionChanges?: readonly { isDone?: boolean }[] } };
  };
  readonly metadata: { readonly event: { readonly action: string; readonly state: { readonly status: string } } };
}

/** How many of a message's cyrilResult steps are marked done, of how many. */
function stepsDone(value: Envelope): { done: number; total: number } {
  const changes = value.content.context?.cyrilResult?.positionChanges;
  const list = Array.isArray(changes) ? changes : [];
  return { done: list.filter((c) => c.isDone === true).length, total: list.length };
}

/**
 * A notification's message and its result, as the checks compare them. Which message of a two-step cyrilResult it
 * is of, from the steps its context marks done: an fx-notify goes out when step 1 is done (the commit's first
 * message); the notifications of the last step, all done; a failed message's error notification carries its own
 * context (the follow-up's has step 1 done). A dependent transfer's notifications belong to its conversion.
 */
function readNotification(message: OutboundMessage, workload: Workload): { key: string; result: string } {
  const value = JSON.parse(message.value) as Envelope;
  const { action, state } = value.metadata.event;
  const code = value.content.payload?.errorInformation?.errorCode;
  const { done, total } = stepsDone(value);
  const index = action === 'fx-notify' ? done - 1 : total > 0 && done === total ? total - 1 : done;
  return {
    key: keyOf(workload.ownerOf(value.id), workload.answeredAction(value.id, action), index > 0),
    result: state.status === 'success' ? 'success' : `error ${code}`,
  };
}

/** A follow-up the handler put on the log: the message it continues (step 1 marked done in its context). */
function readFollowUp(
  message: OutboundMessage,
  ownerOf: (id: string) => string,
): { parent: string; id: string; action: string } {
  const value = JSON.parse(message.value) as Envelope;
  const { action } = value.metadata.event;
  const id = ownerOf(value.id);
  return { parent: keyOf(id, action), id, action };
}

/**
 * One seed: a partitioned log, a group of handler members (the real PartitionFetcher and PositionRunner, each on
 * the simulated log and store), upstream sending each transfer's messages one after the other (plain, bulk and FX
 * ones; the members' follow-ups of two-step cyrilResults appended to the log as POSITION.COMMIT gets them), and faults (crashes, graceful stops, rebalances, failed calls), all ordered by one PRNG. Checked while it
 * runs (no offset committed past a notification not acknowledged, never moved back; nothing notified again once
 * its offset is committed; a message's results agree; a stopped member calls nothing again, and its stop returned
 * only after its produces and commits were answered and what it had acknowledged was committed) and at the end
 * against the pure replay (one result per transfer, the replay's; positions = initial + Σ changes = the replay's;
 * each transfer's reservation made once and released or committed once, on the replay's accounts; every message
 * notified, every offset committed).
 */
export async function simulate(
  seed: number,
  options: { readonly trace?: boolean; readonly traceLines?: number } = {},
): Promise<SimResult> {
  const prng = new Prng(seed);
  const scheduler = new Scheduler(prng);
  const workload = new Workload(prng, {
    dfsps: prng.int(2, 4),
    transfers: prng.int(3, 14),
    kinds: prng.pick(KIND_SETS),
  });
  const replay = workload.replay();
  const partitions = prng.int(1, 3);
  const faultSteps = prng.int(0, 800);
  const rate = (max: number) => (prng.chance(0.5) ? prng.next() * max : 0);
  const seedFaults: Faults = {
    callFails: rate(0.15),
    commitReplyLost: rate(0.15),
    fetchFails: rate(0.15),
    produceFails: rate(0.2),
    produceAckLost: rate(0.2),
    commitFails: rate(0.2),
    commitAckLost: rate(0.2),
    offsetsReadFails: rate(0.3),
    crash: rate(0.01),
    join: rate(0.01),
    stop: rate(0.01),
  };
  /** Graceful stops after the faults are over (when every acknowledged message of the stop must be committed). */
  let lateStops = prng.int(0, 1);
  let steps = 0;
  const faults = () => (steps < faultSteps ? seedFaults : NO_FAULTS);
  const store = new SimStore(scheduler, prng, workload, faults);

  const log: InboundMessage[][] = Array.from({ length: partitions }, () => []);
  const committed: bigint[] = Array.from({ length: partitions }, () => 0n);
  /** Each message at its offsets (a follow-up produced again has more than one copy on the log). */
  const source = new Map<
    string,
    { readonly partition: number; readonly offsets: number[]; readonly message: SimMessage }
  >();
  const atOffset = new Map<string, string>();
  const acknowledged = new Set<string>();
  const results = new Map<string, string>();
  /** The last step of each transfer upstream has sent. */
  const sentStep = new Map<string, number>();
  const members: Member[] = [];
  const trace: string[] = [];
  let violation: string | undefined;
  let crashes = 0;
  let stops = 0;
  let appended = 0;
  let followUps = 0;

  const note = (line: string) => {
    if (options.trace) trace.push(`${String(scheduler.now).padStart(6)}ms #${steps} ${line}`);
  };
  const broken = (what: string) => {
    violation ??= what;
    note(`VIOLATION ${what}`);
  };
  const now = () => new Date(EPOCH + scheduler.now);
  const transferOf = (id: string) => workload.transfers.find((t) => t.id === id) as SimTransfer;

  const append = (message: SimMessage) => {
    const partition = (Number(message.key) >> 1) % partitions;
    const messages = log[partition] as InboundMessage[];
    const offset = messages.length;
    messages.push({ key: Buffer.from(message.key), value: Buffer.from(message.value), offset: String(offset) });
    const key = keyOf(message.transferId, message.action, message.followUp);
    const entry = source.get(key);
    if (entry) {
      if (entry.partition !== partition) broken(`${key} appended on partitions ${entry.partition} and ${partition}`);
      entry.offsets.push(offset);
    } else source.set(key, { partition, offsets: [offset], message });
    atOffset.set(`${partition}@${offset}`, key);
    if (message.followUp) followUps += 1;
    else {
      sentStep.set(message.transferId, message.step);
      appended += 1;
    }
    note(`append ${key.slice(-24)} at ${partition}@${offset}`);
  };

  /** Upstream sends a transfer's step: records the state it writes first (fulfil, timeout handler), then the message. */
  const send = (transfer: SimTransfer, step: number) => {
    const { upstreamState, onDependent } = workload.steps(transfer)[step] as SimStep;
    const on = onDependent ? transfer.dependent?.id : transfer.id;
    if (upstreamState !== undefined && on !== undefined) store.record(on, upstreamState);
    append(workload.message(transfer, step, now()));
  };

  // Upstream: the prepares, one at a time at steps the scheduler picks.
  let nextPrepare = 0;
  const sendPrepare = () => {
    send(workload.transfers[nextPrepare++] as SimTransfer, 0);
    if (nextPrepare < workload.transfers.length) scheduler.post(0, sendPrepare);
  };
  scheduler.post(0, sendPrepare);

  /** The first acknowledged result of a message: checked against the replay; upstream then sends the next step. */
  const firstResult = (key: string, result: string) => {
    const entry = source.get(key);
    if (!entry) return;
    const { message } = entry;
    const transfer = transferOf(message.transferId);
    const lifeSteps = workload.steps(transfer);
    const step = lifeSteps[message.step] as SimStep;
    const expected = message.followUp ? step.followUpExpected : step.expected;
    if (result !== expected) broken(`${key}: notified ${result}, the replay says ${expected ?? 'nothing'}`);
    const next = message.step + 1;
    if (
      !message.followUp &&
      result === expected &&
      next < lifeSteps.length &&
      (sentStep.get(transfer.id) ?? 0) < next
    ) {
      sentStep.set(transfer.id, next);
      scheduler.post(0, () => send(transfer, next));
    }
  };

  /** Messages whose notifications a member got acknowledged while it was stopping (member id and key). */
  const acknowledgedInStop = new Set<string>();

  const produce = (member: MemberState, messages: readonly OutboundMessage[]): Promise<void> => {
    const owner = member.id;
    if (member.stopped) broken(`member ${owner} produced after its graceful stop returned`);
    const ownerOf = (id: string) => workload.ownerOf(id);
    // A follow-up goes to the log the runner reads (its followUpTopic is the simulated topic), keyed by the next
    // step's account; the rest are notifications.
    const isFollowUp = (m: OutboundMessage) => m.topic === TOPIC && m.key !== null;
    const notes = messages.filter((m) => !isFollowUp(m)).map((m) => readNotification(m, workload));
    const continued = messages.filter(isFollowUp).map((m) => ({ ...readFollowUp(m, ownerOf), message: m }));
    for (const { key } of [...notes, ...continued.map((c) => ({ key: c.parent }))]) {
      const entry = source.get(key);
      const last = entry?.offsets.at(-1);
      if (!entry || last === undefined) broken(`notification of a message never sent: ${key}`);
      else if (BigInt(last) < (committed[entry.partition] as bigint)) {
        broken(
          `${key} (${entry.partition}@${entry.offsets.join(',')}) notified again after its offset was committed (${committed[entry.partition]})`,
        );
      }
    }
    /** The follow-ups go on the log once the broker took them (also when its acknowledgement is then lost). */
    const appendFollowUps = () => {
      for (const { parent, id, action, message } of continued) {
        const entry = source.get(parent);
        if (!entry) continue;
        append({
          key: message.key as string,
          value: message.value,
          transferId: id,
          action: action as SimMessage['action'],
          step: entry.message.step,
          followUp: true,
        });
      }
    };
    note(
      `member ${owner} produces ${[...notes.map((n) => n.key.slice(-16)), ...continued.map((c) => `follow-up of ${c.parent.slice(-16)}`)].join(', ')}`,
    );
    const answered = new Promise<void>((resolve, reject) =>
      scheduler.post(owner, () => {
        const f = faults();
        if (prng.chance(f.produceFails)) {
          note(`member ${owner} produce refused`);
          reject(new SimulatedFailure('produce refused'));
          return;
        }
        const lost = prng.chance(f.produceAckLost);
        appendFollowUps();
        scheduler.post(owner, () => {
          if (lost) {
            note(`member ${owner} produce acknowledgement lost`);
            reject(new SimulatedFailure('produce acknowledgement lost'));
            return;
          }
          for (const { parent } of continued) {
            acknowledged.add(parent);
            if (member.stopping) acknowledgedInStop.add(`${owner} ${parent}`);
          }
          for (const { key, result } of notes) {
            acknowledged.add(key);
            if (member.stopping) acknowledgedInStop.add(`${owner} ${key}`);
            const first = results.get(key);
            if (first === undefined) {
              results.set(key, result);
              firstResult(key, result);
            } else if (first !== result) {
              // A redelivered message of a transfer that moved on since gets 2001 (docs/design.md, idempotency).
              const entry = source.get(key);
              const movedOn =
                result === 'error 2001' &&
                entry !== undefined &&
                (sentStep.get(entry.message.transferId) ?? 0) > entry.message.step;
              if (!movedOn) broken(`${key} notified ${first}, then ${result}`);
            }
          }
          resolve();
        });
      }),
    );
    return untilAnswered(member, answered);
  };

  const applyCommit = (owner: number, partition: number, next: bigint) => {
    const before = committed[partition] as bigint;
    if (next < before)
      broken(`member ${owner} moved partition ${partition}'s committed offset back from ${before} to ${next}`);
    const messages = log[partition] as InboundMessage[];
    if (next > BigInt(messages.length)) broken(`offset ${next} committed past the log end ${messages.length}`);
    for (let offset = Number(before); offset < Number(next) && offset < messages.length; offset++) {
      const key = atOffset.get(`${partition}@${offset}`) ?? `${partition}@${offset}`;
      if (!acknowledged.has(key))
        broken(
          `member ${owner} committed ${partition}@${next} past ${key} (offset ${offset}), whose notification was not acknowledged`,
        );
    }
    committed[partition] = next;
    note(`member ${owner} commits ${partition}@${next}`);
  };

  const ioOf = (member: MemberState): FetcherIo<number> => {
    const owner = member.id;
    const check = (call: string) => {
      if (member.stopped) broken(`member ${owner} called ${call} after its graceful stop returned`);
    };
    return {
      route: async () => 0,
      leaderOf: () => 0,
      fetch: (_route, _node, positions) => {
        check('fetch');
        const answer = () => {
          if (prng.chance(faults().fetchFails)) throw new SimulatedFailure('fetch failed');
          return positions.map(({ topic, partition, offset }) => {
            const messages = log[partition] as InboundMessage[];
            if (offset > BigInt(messages.length))
              broken(`member ${owner} fetched ${partition}@${offset}, past the log end`);
            const taken = messages.slice(Number(offset), Number(offset) + prng.int(1, 6));
            note(`member ${owner} fetched ${partition}@${offset}: ${taken.length} messages`);
            return {
              topic,
              partition,
              messages: taken,
              nextOffset: offset + BigInt(taken.length),
              highWatermark: String(messages.length),
            };
          });
        };
        const readable = positions.some((p) => p.offset < BigInt((log[p.partition] as InboundMessage[]).length));
        if (readable) return scheduler.reply(owner, answer);
        return new Promise((resolve, reject) =>
          scheduler.at(owner, LONG_POLL_MS, () => {
            try {
              resolve(answer());
            } catch (error) {
              reject(error);
            }
          }),
        );
      },
      committedOffsets: () => {
        check('committedOffsets');
        return scheduler.reply(owner, () => {
          if (prng.chance(faults().offsetsReadFails)) throw new SimulatedFailure('committed offsets not available');
          const snapshot = [...committed];
          return (_topic, partition) => snapshot[partition];
        });
      },
      listOffsets: () => scheduler.reply(owner, () => () => 0n),
      commit: (_topic, partition, next) => {
        check(`commit ${partition}@${next}`);
        // The group's generation goes with the request: one sent before a rebalance is refused after it, as
        // Kafka's coordinator refuses a stale generation.
        const sentIn = generation;
        const answered = new Promise<void>((resolve, reject) =>
          scheduler.post(owner, () => {
            const f = faults();
            if (sentIn !== generation) {
              note(`member ${owner} commit ${partition}@${next} refused: generation ${sentIn} is over`);
              reject(new SimulatedFailure('offset commit of an older generation'));
              return;
            }
            if (prng.chance(f.commitFails)) {
              note(`member ${owner} commit ${partition}@${next} refused`);
              reject(new SimulatedFailure('offset commit refused'));
              return;
            }
            applyCommit(owner, partition, next);
            const lost = prng.chance(f.commitAckLost);
            scheduler.post(owner, () => (lost ? reject(new SimulatedFailure('offset commit reply lost')) : resolve()));
          }),
        );
        return untilAnswered(member, answered);
      },
    };
  };

  const live = () => members.filter((m) => m.alive);
  /** The group's generation: one more at each rebalance. */
  let generation = 0;
  const rebalance = () => {
    generation += 1;
    const alive = live();
    note(`rebalance: members ${alive.map((m) => m.id).join(', ') || 'none'}`);
    alive.forEach((member, i) => {
      const mine = Array.from({ length: partitions }, (_, p) => p).filter((p) => p % alive.length === i);
      member.fetcher.assign([{ topic: TOPIC, partitions: mine }]);
    });
  };
  const start = async () => {
    const id = members.length + 1;
    const state: MemberState = { id, alive: true, stopping: false, stopped: false, pending: 0 };
    const fetcher = new PartitionFetcher<number>({
      io: ioOf(state),
      topics: [TOPIC],
      concurrency: prng.int(1, 3),
      fromBeginning: true,
      retryMs: 50,
      logger: nullLogger,
      sleep: (ms) => scheduler.sleep(id, ms),
    });
    const bus: PositionBus = {
      start: async (handle) => fetcher.start(handle),
      produce: (messages) => produce(state, messages),
      commit: (topic, partition, next) => fetcher.commit(topic, partition, BigInt(next)),
      seek: (topic, partition, offset) => fetcher.seek(topic, partition, BigInt(offset)),
      isReady: () => true,
      stop: () => fetcher.stop(),
    };
    const memberStore = store.forMember(id);
    const runner = new PositionRunner(
      bus,
      {
        transaction: (work) => {
          if (state.stopped) broken(`member ${id} opened a transaction after its graceful stop returned`);
          return memberStore.transaction(work);
        },
      },
      noMetrics,
      nullLogger,
      {
        batchSize: prng.int(1, 4),
        hubName: 'Hub',
        retryInitialMs: 20,
        retryMaxMs: 200,
        progress: new PartitionProgress(60_000, () => scheduler.now),
        // cyrilResult follow-ups go back on the log the members read, as POSITION.COMMIT does.
        followUpTopic: TOPIC,
        sleep: (ms) => scheduler.sleep(id, ms),
      },
      now,
    );
    members.push(Object.assign(state, { fetcher, runner }));
    await runner.start();
    note(`member ${id} starts`);
    rebalance();
  };
  const crash = (member: Member) => {
    member.alive = false;
    crashes += 1;
    scheduler.forget(member.id);
    store.crash(member.id);
    note(`member ${member.id} crashes`);
    rebalance();
  };
  /**
   * SIGTERM: the runner's stop, with the member still in the group while it finishes (a crash may still cut it
   * short). Once it returns, the member leaves the group. When nothing failed and nobody joined or left while it
   * stopped, each message it got acknowledged meanwhile is committed.
   */
  const stop = (member: Member) => {
    member.stopping = true;
    const startedIn = generation;
    const faultless = faults() === NO_FAULTS;
    note(`member ${member.id} stops`);
    void member.runner.stop().then(
      () => {
        if (!member.alive) return;
        member.stopped = true;
        member.alive = false;
        stops += 1;
        note(`member ${member.id} stopped`);
        if (member.pending > 0)
          broken(`member ${member.id}'s stop returned with ${member.pending} produces or commits unanswered`);
        if (faultless && faults() === NO_FAULTS && generation === startedIn) {
          for (const [key, entry] of source) {
            if (!acknowledgedInStop.has(`${member.id} ${key}`)) continue;
            const first = entry.offsets[0] as number;
            if (BigInt(first) >= (committed[entry.partition] as bigint)) {
              broken(
                `member ${member.id}'s stop returned with ${key} (${entry.partition}@${first}) acknowledged but not committed (${committed[entry.partition]})`,
              );
            }
          }
        }
        rebalance();
      },
      (error: unknown) => broken(`member ${member.id}'s stop failed: ${String(error)}`),
    );
  };

  const totalMessages = workload.transfers.reduce((n, t) => n + workload.steps(t).length, 0);
  const finished = () =>
    appended === totalMessages &&
    log.every((messages, p) => committed[p] === BigInt(messages.length)) &&
    [...source.keys()].every((key) => acknowledged.has(key));

  for (let i = prng.int(1, 2); i > 0; i--) await start();
  for (;;) {
    await scheduler.settle();
    if (violation !== undefined || finished()) break;
    steps += 1;
    if (steps > MAX_STEPS) {
      for (const m of live()) {
        note(
          `member ${m.id}: ${m.fetcher
            .snapshot()
            .map((p) => `${p.partition} ${p.phase} @${p.offset}`)
            .join('; ')}`,
        );
      }
      note(`store: ${store.describe()}`);
      broken(
        `no progress: ${appended}/${totalMessages} messages sent (and ${followUps} follow-ups), committed ${committed.join(',')} of ${log.map((m) => m.length).join(',')}`,
      );
      break;
    }
    const f = faults();
    const alive = live();
    const running = alive.filter((m) => !m.stopping);
    if (alive.length > 0 && prng.chance(f.crash)) crash(prng.pick(alive));
    else if (running.length > 0 && prng.chance(f === NO_FAULTS && lateStops > 0 ? seedFaults.stop : f.stop)) {
      if (f === NO_FAULTS) lateStops -= 1;
      stop(prng.pick(running));
    } else if (alive.length < 3 && prng.chance(f.join)) await start();
    else if (running.length === 0 && f === NO_FAULTS) await start();
    if (!scheduler.step() && live().length > 0) {
      broken('stuck: no event left, and the work is not done');
      break;
    }
  }

  if (violation === undefined) checkAgainstReplay(workload, replay, store, broken);
  return {
    seed,
    violation,
    steps,
    messages: appended,
    followUps,
    members: members.length,
    crashes,
    stops,
    simulatedMs: scheduler.now,
    trace: trace.slice(-(options.traceLines ?? 60)),
  };
}

/** Counts a produce or commit as unanswered until its answer comes, whichever it is (a stop must wait for them). */
function untilAnswered(member: { pending: number }, answered: Promise<void>): Promise<void> {
  member.pending += 1;
  const answer = () => {
    member.pending -= 1;
  };
  answered.then(answer, answer);
  return answered;
}
