import type { Connection } from 'mysql2/promise';
import type { LatencySummary } from '../report/latency.js';
import { CpuMeter } from '../system/cpu.js';
import { residentMegabytes } from '../system/memory.js';
import { type StatementCounts, StatementMeter } from '../system/mysql-status.js';
import type { PositionTarget } from './fleet.js';
import { readStageSeconds, stageDelta } from './handler-stages.js';
import type { NotificationCollector } from './notifications.js';
import { prepareReplay, type ReplayMessage, type ReplayProducer, replay } from './replay.js';
import { countDeliveries } from './verify.js';

/** The phase's name: the actions it replays (`mixed`: prepares and fulfil outcomes interleaved). */
export type PhaseLabel = 'prepare' | 'commit' | 'mixed';

export interface PhaseResult {
  readonly action: PhaseLabel;
  readonly messages: number;
  readonly durationSeconds: number;
  readonly msgsPerSecond: number;
  readonly latency: LatencySummary;
  readonly sqlStatements: number;
  readonly sqlPerMessage: number;
  readonly commitsPerSecond: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly errorNotifications: number;
  /** What the workload must produce: the refused prepares and the aborts. */
  readonly expectedErrorNotifications: number;
  readonly cpu: Record<string, number>;
  /** Handler seconds per stage (decode, lock, plan, write, build, produce, commit), summed over the handlers. */
  readonly handlerStages: Record<string, number>;
  /** SHOW GLOBAL STATUS deltas over the phase: statements, rows read and written, row lock waits. */
  readonly mysqlStatus: StatementCounts;
  /** Resident memory per process (MB, with its children) at the end of the phase. */
  readonly rssMb: Record<string, number>;
}

/** What one phase replays and must produce. */
export interface PhaseInput {
  readonly label: PhaseLabel;
  readonly messages: readonly ReplayMessage[];
  /** The actions of its messages: the notifications that answer them carry the same. */
  readonly actions: ReadonlySet<string>;
  readonly expectedErrors: number;
}

/** The running parts a phase is measured with. */
export interface PhaseRig {
  readonly producer: ReplayProducer;
  readonly collector: NotificationCollector;
  /** A connection of its own for SHOW GLOBAL STATUS. */
  readonly statusConnection: Connection;
  readonly pids: ReadonlyMap<string, number>;
  readonly metricsUrls: readonly string[];
  readonly target: PositionTarget;
  /** Messages per second offered; 0 = burst. */
  readonly rate: number;
  readonly stallMs: number;
  readonly say: (line: string) => void;
}

/**
 * Replays one phase and measures it from the first input to the last notification: msgs/s, latency (input
 * CreateTime to notification CreateTime), SQL statements and commits, CPU per process, the handlers' seconds
 * per stage, and how many transfers were notified not once.
 */
export async function measurePhase(rig: PhaseRig, input: PhaseInput): Promise<PhaseResult> {
  const { label: action, messages, actions, expectedErrors } = input;
  const encoded = prepareReplay(messages, rig.producer);
  const statements = new StatementMeter(rig.statusConnection);
  const cpu = new CpuMeter(rig.pids);
  await Promise.all([statements.start(), cpu.start()]);
  const stagesBefore = await readStageSeconds(rig.metricsUrls);
  const inputTimes = new Map<string, number>();
  const phase = rig.collector.beginPhase(actions, inputTimes);
  rig.say(`${action}: replaying ${messages.length} messages ${rig.rate === 0 ? 'as a burst' : `at ${rig.rate}/s`}`);
  const firstInput = Date.now();
  // Progress runs while the replay does (a paced replay of 100,000 messages takes its time): sent,
  // notified, the notification rate, and the lag between the two.
  const replaying = replay(encoded, { rate: rig.rate, chunk: 1000, inFlight: 4 }, inputTimes);
  let lastPrint = 0;
  const draining = rig.collector.waitFor(messages.length, rig.stallMs, (seen) => {
    if (Date.now() - lastPrint < 2000) return;
    lastPrint = Date.now();
    const sent = inputTimes.size;
    rig.say(
      `  ${action}: ${sent}/${messages.length} sent, ${seen} notified, ${(seen / (Math.max(1, Date.now() - firstInput) / 1000)).toFixed(0)}/s, lag ${sent - seen}`,
    );
  });
  await Promise.all([replaying, draining]);
  const [sql, used, stagesAfter, rssMb] = await Promise.all([
    statements.stop(),
    cpu.stop(),
    readStageSeconds(rig.metricsUrls),
    residentMegabytes(rig.pids),
  ]);
  const durationSeconds = Math.max(0.001, (phase.lastAt - firstInput) / 1000);
  const { lost, duplicated } = countDeliveries(
    messages.map((m) => m.transferId),
    phase.seen,
  );
  return {
    action,
    messages: messages.length,
    durationSeconds,
    msgsPerSecond: (messages.length - lost) / durationSeconds,
    latency: phase.latency.summary(),
    sqlStatements: sql.Questions,
    sqlPerMessage: sql.Questions / messages.length,
    commitsPerSecond: sql.Com_commit / durationSeconds,
    lost,
    duplicated,
    errorNotifications: phase.errors,
    // The passthrough answers every message as applied.
    expectedErrorNotifications: rig.target === 'passthrough' ? 0 : expectedErrors,
    cpu: used,
    handlerStages: stageDelta(stagesBefore, stagesAfter),
    mysqlStatus: sql,
    rssMb,
  };
}
