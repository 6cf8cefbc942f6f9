import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createKnex,
  formatAmount,
  type GeneratedFxTransfer,
  type GeneratedTransfer,
  generateFxPositionMessages,
  insertFxTransfers,
  insertTransfers,
  migrateLatest,
  type ProvisionedLedger,
  parseAmount,
  provisionLedger,
} from '@mojafast/position-handler';
import { createDatabase, createTopic, loadInfraSettings, testKafka } from '@mojafast/testkit';
import type { Knex } from 'knex';
import mysql from 'mysql2/promise';
import { entryPoints, stateDir } from '../load/paths.js';
import { freePort } from '../load/ports.js';
import { type Service, spawnUntilHealthy, spawnUntilReadyLine } from '../load/processes.js';
import type { LatencySummary } from '../report/latency.js';
import { CpuMeter } from '../system/cpu.js';
import { StatementMeter } from '../system/mysql-status.js';
import {
  type ActionMix,
  defaultMix,
  expectedPositionsOf,
  isDefaultMix,
  notifiedAction,
  planMix,
  stepId,
} from './action-mix.js';
import { readDump, writeDump } from './dump.js';
import { workloadFromDump } from './dump-workload.js';
import { readStageSeconds, stageDelta } from './handler-stages.js';
import { NotificationCollector } from './notifications.js';
import { RawProducer } from './raw-producer.js';
import { prepareReplay, type ReplayMessage, replay } from './replay.js';
import { currencyCodes, dfspNames, generateWorkload, positionMessages } from './workload.js';

/**
 * What consumes the position topic: the handler, or the passthrough (passthrough.ts: the handler's Kafka layer,
 * decode and notification encoding without the database), whose msgs/s is the floor the Kafka client sets.
 */
export type PositionTarget = 'handler' | 'passthrough';

export interface PositionBenchOptions {
  readonly target?: PositionTarget;
  /** KAFKA_CLIENT of the handler (and of the passthrough: the floor is measured on the same client). */
  readonly handlerClient?: 'kafkajs' | 'platformatic';
  readonly transfers: number;
  readonly dfsps: number;
  readonly currencies: number;
  readonly partitions: number;
  readonly instances: number;
  readonly batchSize: number;
  /** Messages per second offered; 0 = burst. */
  readonly rate: number;
  readonly dump?: string | undefined;
  readonly writeDump?: string | undefined;
  readonly delimiter: string;
  /** Give up waiting when no notification arrived for this long. */
  readonly stallMs: number;
  readonly keep: boolean;
  readonly handlerEnv?: Record<string, string>;
  readonly onProgress?: (line: string) => void;
  /** Which actions a generated run replays; a dump is replayed as it is (prepares, then commits). */
  readonly mix?: ActionMix;
}

export interface PhaseResult {
  readonly action: 'prepare' | 'commit' | 'mixed';
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
  /** Handler seconds per stage (decode, lock, compute, write, produce, commit), summed over the handlers. */
  readonly handlerStages: Record<string, number>;
}

export interface PositionBenchResult {
  readonly phases: PhaseResult[];
  readonly positionMismatches: string[];
  readonly database: string;
}

const bigLimit = '100000000000';
/** The FXP of an FX mix and the currencies it converts into (USD → EUR, any other → USD). */
const FXP = 'perffxp';
const FX_TARGET_CURRENCY = 'EUR';
const FX_OTHER_TARGET = 'USD';

/** A transfer done as FX: a payer-side conversion at 1:1 into the target currency, the dependent transfer paying it. */
function fxOf(t: GeneratedTransfer): GeneratedFxTransfer {
  return {
    commitRequestId: randomUUID(),
    transferId: t.transferId,
    payer: t.payer,
    payee: t.payee,
    fxp: FXP,
    sourceCurrency: t.currency,
    sourceAmount: t.amount,
    targetCurrency: t.currency === FX_TARGET_CURRENCY ? FX_OTHER_TARGET : FX_TARGET_CURRENCY,
    targetAmount: t.amount,
  };
}
/** Liquidity above the cap, so a prepare over the cap fails the limit check (4200), not the liquidity one. */
const bigLiquidity = '1000000000000';
/** Over every payer's cap: a limit breach. */
const breachAmount = '200000000000';

async function pidFrom(file: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function markState(knex: Knex, transferIds: readonly string[], transferStateId: string): Promise<void> {
  for (let i = 0; i < transferIds.length; i += 5000) {
    await knex('transferStateChange').insert(
      transferIds.slice(i, i + 5000).map((transferId) => ({ transferId, transferStateId })),
    );
  }
}

/**
 * What central-ledger's fulfil handler leaves before it hands an outcome to the position handler:
 * RECEIVED_FULFIL before a commit, RECEIVED_ERROR before an abort.
 */
async function markOutcomes(
  knex: Knex,
  steps: readonly { transferId: string; action: string; commitRequestId?: string }[],
): Promise<void> {
  await markState(
    knex,
    steps.filter((s) => s.action === 'commit' || s.action === 'fx-commit').map((s) => s.transferId),
    'RECEIVED_FULFIL',
  );
  // The FX fulfil handler leaves the conversion in RECEIVED_FULFIL_DEPENDENT once the FXP has answered.
  const conversions = steps.flatMap((s) => (s.commitRequestId ? [s.commitRequestId] : []));
  for (let i = 0; i < conversions.length; i += 5000) {
    await knex('fxTransferStateChange').insert(
      conversions
        .slice(i, i + 5000)
        .map((commitRequestId) => ({ commitRequestId, transferStateId: 'RECEIVED_FULFIL_DEPENDENT' })),
    );
  }
  await markState(
    knex,
    steps.filter((s) => s.action === 'abort').map((s) => s.transferId),
    'RECEIVED_ERROR',
  );
}

/** Transfers a position handler already reserved: RESERVED, and the payers' positions holding the amounts. */
async function markReserved(knex: Knex, transfers: readonly GeneratedTransfer[], ledger: ProvisionedLedger) {
  await markState(
    knex,
    transfers.map((t) => t.transferId),
    'RESERVED',
  );
  const totals = new Map<number, bigint>();
  for (const t of transfers) {
    const id = ledger.accounts.get(`${t.payer}:${t.currency}`)?.position as number;
    totals.set(id, (totals.get(id) ?? 0n) + parseAmount(t.amount));
  }
  for (const [id, total] of totals) {
    await knex('participantPosition')
      .where({ participantCurrencyId: id })
      .update({ value: formatAmount(total) });
  }
}

interface WorkloadPhase {
  readonly label: 'prepare' | 'commit' | 'mixed';
  readonly messages: ReplayMessage[];
  /** The actions of its messages: the notifications that answer them carry the same. */
  readonly actions: ReadonlySet<string>;
  /** Fulfil outcomes whose state (RECEIVED_FULFIL / RECEIVED_ERROR) is written before the phase. */
  readonly outcomes: { transferId: string; action: string; commitRequestId?: string }[];
  readonly expectedErrors: number;
}

interface Workload {
  readonly ledger: ProvisionedLedger;
  readonly phases: WorkloadPhase[];
  /** Final position per `dfsp:currency` when every message had its expected outcome. */
  readonly expected: Map<string, bigint>;
  readonly transfers: number;
}

async function workload(options: PositionBenchOptions, knex: Knex): Promise<Workload> {
  const mix = options.mix ?? defaultMix;
  let fromDump: ReturnType<typeof workloadFromDump> | undefined;
  if (options.dump) {
    if (!isDefaultMix(mix)) throw new Error('--actions, --aborts and --breaches shape generated runs, not a --dump');
    const dumped = [];
    for await (const message of readDump(options.dump, options.delimiter)) dumped.push(message);
    fromDump = workloadFromDump(dumped);
  }
  if (options.writeDump && !isDefaultMix(mix)) {
    throw new Error('--write-dump writes the default mix (prepares, then their commits)');
  }
  // A dump is its prepares, then commits of them when it has any.
  const dumpMix: ActionMix = { ...defaultMix, phases: fromDump?.commits.length ? 'prepare,commit' : 'prepare' };
  const plan = planMix(
    fromDump?.transfers ?? generateWorkload({ ...options, amount: '10' }),
    fromDump ? dumpMix : mix,
    breachAmount,
    fxOf,
  );
  const transfers = plan.transfers;
  const fxByTransfer = new Map(plan.fx.map((fx) => [fx.transferId, fx]));
  const dfsps = fromDump ? [...new Set(transfers.flatMap((t) => [t.payer, t.payee]))] : dfspNames(options.dfsps);
  const currencies = fromDump ? [...new Set(transfers.map((t) => t.currency))] : currencyCodes(options.currencies);
  const ledger = await provisionLedger(knex, {
    currencies: plan.fx.length > 0 ? [...new Set([...currencies, FX_TARGET_CURRENCY, FX_OTHER_TARGET])] : currencies,
    dfsps: [...dfsps, ...(plan.fx.length > 0 ? [FXP] : [])].map((name) => ({
      name,
      netDebitCap: bigLimit,
      liquidity: bigLiquidity,
    })),
  });
  // An FX transfer's dependent transfer is in the target currency; its conversion waits in RECEIVED_PREPARE.
  await insertTransfers(
    knex,
    transfers.map((t) => {
      const fx = fxByTransfer.get(t.transferId);
      return {
        ...t,
        ...(fx ? { currency: fx.targetCurrency, amount: fx.targetAmount } : {}),
        state: 'RECEIVED_PREPARE' as const,
      };
    }),
    ledger.accounts,
  );
  if (plan.fx.length > 0) {
    await insertFxTransfers(
      knex,
      plan.fx.map((fx) => ({
        ...fx,
        determiningTransferId: fx.transferId,
        initiator: fx.payer,
        state: 'RECEIVED_PREPARE' as const,
      })),
      ledger.accounts,
    );
  }
  if (plan.reserved.length > 0) await markReserved(knex, plan.reserved, ledger);
  const expected = expectedPositionsOf(plan);
  if (fromDump) {
    const byId = new Map(transfers.map((t) => [t.transferId, t]));
    const accountKey = (dfsp: string, currency: string) => String(ledger.accounts.get(`${dfsp}:${currency}`)?.position);
    const rekey = (messages: { transferId: string; value: string }[], side: 'payer' | 'payee') =>
      messages.map((m) => {
        const t = byId.get(m.transferId) as GeneratedTransfer;
        return { key: accountKey(t[side], t.currency), value: m.value, transferId: m.transferId };
      });
    const commits = rekey(fromDump.commits, 'payee');
    return {
      ledger,
      expected,
      transfers: transfers.length,
      phases: [
        {
          label: 'prepare',
          messages: rekey(fromDump.prepares, 'payer'),
          actions: new Set(['prepare']),
          outcomes: [],
          expectedErrors: 0,
        },
        ...(commits.length > 0
          ? [
              {
                label: 'commit' as const,
                messages: commits,
                actions: new Set(['commit']),
                outcomes: commits.map((m) => ({ transferId: m.transferId, action: 'commit' })),
                expectedErrors: 0,
              },
            ]
          : []),
      ],
    };
  }
  const accountOf = (dfsp: string, currency: string) => {
    const account = ledger.accounts.get(`${dfsp}:${currency}`);
    if (!account) throw new Error(`no account for ${dfsp} in ${currency}`);
    return account.position;
  };
  const phases = plan.phases.map((phase): WorkloadPhase => {
    // Messages generated per action, then put back in the phase's order.
    const byAction = new Map<string, Map<string, ReplayMessage>>();
    for (const action of ['prepare', 'commit', 'abort'] as const) {
      const group = phase.steps.filter((s) => s.action === action).map((s) => s.transfer);
      const messages = positionMessages(group, action, ledger);
      byAction.set(
        action,
        new Map(group.map((t, i) => [t.transferId, { ...(messages[i] as ReplayMessage), transferId: t.transferId }])),
      );
    }
    const fxActions = { 'fx-prepare': 'fx-prepare', 'fx-dependent-prepare': 'prepare', 'fx-commit': 'commit' } as const;
    for (const [step, action] of Object.entries(fxActions)) {
      const group = phase.steps.filter((s) => s.action === step && s.fx);
      const messages = generateFxPositionMessages({
        transfers: group.map((s) => s.fx as GeneratedFxTransfer),
        action,
        accountOf,
      });
      byAction.set(
        step,
        new Map(group.map((s, i) => [stepId(s), { ...(messages[i] as ReplayMessage), transferId: stepId(s) }])),
      );
    }
    return {
      label: phase.label,
      messages: phase.steps.map((s) => byAction.get(s.action)?.get(stepId(s)) as ReplayMessage),
      actions: new Set(phase.steps.map((s) => notifiedAction(s.action))),
      outcomes: phase.steps
        .filter((s) => s.action !== 'prepare' && s.action !== 'fx-prepare' && s.action !== 'fx-dependent-prepare')
        .map((s) => ({
          transferId: s.transfer.transferId,
          action: s.action,
          ...(s.fx && s.action === 'fx-commit' ? { commitRequestId: s.fx.commitRequestId } : {}),
        })),
      expectedErrors: phase.expectedErrors,
    };
  });
  if (options.writeDump)
    await writeDump(
      options.writeDump,
      phases.flatMap((p) => p.messages),
      options.delimiter,
    );
  return { ledger, expected, transfers: transfers.length, phases };
}

/**
 * One replay: a fresh database provisioned as central-ledger's prepare handler would leave it, fresh
 * topics, our handler started as separate processes, then the prepares and (after the fulfil handler's
 * state is written) the commits, each measured from the first input to the last notification, and
 * checked: every transfer notified exactly once, final positions equal to the expected totals.
 */
export async function runPositionBench(options: PositionBenchOptions): Promise<PositionBenchResult> {
  const say = options.onProgress ?? (() => {});
  const settings = loadInfraSettings();
  const db = await createDatabase({ prefix: 'bench_position' });
  const knex = createKnex({ ...db.connection, poolMax: 2 });
  const inputTopic = await createTopic({ prefix: 'bench-position', partitions: options.partitions });
  const notificationTopic = await createTopic({ prefix: 'bench-notification', partitions: options.partitions });
  const kafka = testKafka(settings, 'mojafast-bench-position');
  let producer: RawProducer | undefined;
  const collector = new NotificationCollector(kafka, notificationTopic.name);
  const handlers: Service[] = [];
  const metricsUrls: string[] = [];
  const statusConnection = await mysql.createConnection(db.connection);
  try {
    await migrateLatest(knex);
    say(`provisioning ${db.name}`);
    const work = await workload(options, knex);
    say(
      `${work.transfers} transfers, ${work.phases.map((p) => `${p.label} ${p.messages.length} messages`).join(', ')}, ${work.ledger.accounts.size} accounts`,
    );
    const [raw] = await Promise.all([RawProducer.connect(kafka, inputTopic.name), collector.start()]);
    producer = raw;
    const target = options.target ?? 'handler';
    for (let i = 0; i < options.instances; i++) {
      const port = await freePort();
      const env = {
        KAFKA_BROKERS: settings.kafka.brokers.join(','),
        POSITION_TOPICS: inputTopic.name,
        NOTIFICATION_TOPIC: notificationTopic.name,
        POSITION_CONSUMER_GROUP: `${inputTopic.name}-handlers`,
        POSITION_BATCH_SIZE: String(options.batchSize),
        // The follow-ups of FX commits come back to the topic the handlers consume (a batching deployment's
        // KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.COMMIT).
        POSITION_COMMIT_TOPIC: inputTopic.name,
        DB_HOST: db.connection.host,
        DB_PORT: String(db.connection.port),
        DB_USER: db.connection.user,
        DB_PASSWORD: db.connection.password,
        DB_NAME: db.name,
        POSITION_HTTP_PORT: String(port),
        LOG_LEVEL: 'warn',
        ...(options.handlerClient ? { KAFKA_CLIENT: options.handlerClient } : {}),
        ...options.handlerEnv,
      };
      if (target === 'passthrough') {
        handlers.push(
          await spawnUntilReadyLine(
            { name: `passthrough-${i + 1}`, command: process.execPath, args: [entryPoints.positionPassthrough], env },
            60_000,
          ),
        );
        continue;
      }
      handlers.push(
        await spawnUntilHealthy(
          {
            name: `position-handler-${i + 1}`,
            command: process.execPath,
            args: [entryPoints.position],
            env,
          },
          `http://127.0.0.1:${port}/health`,
          60_000,
        ),
      );
      metricsUrls.push(`http://127.0.0.1:${port}/metrics`);
    }
    const pids = new Map<string, number>();
    for (const [i, h] of handlers.entries())
      pids.set(options.instances === 1 ? target : `${target}${i + 1}`, h.child.pid ?? 0);
    const brokerPid = await pidFrom(join(stateDir, 'kafka', 'kafka.pid'));
    const dbPid = await pidFrom(join(stateDir, 'mariadb', 'mysqld.pid'));
    if (brokerPid) pids.set('kafka', brokerPid);
    if (dbPid) pids.set('mariadb', dbPid);
    pids.set('bench', process.pid);

    const phases: PhaseResult[] = [];
    const runPhase = async ({ label: action, messages, actions, expectedErrors }: WorkloadPhase) => {
      const encoded = prepareReplay(messages, raw);
      const statements = new StatementMeter(statusConnection);
      const cpu = new CpuMeter(pids);
      await Promise.all([statements.start(), cpu.start()]);
      const stagesBefore = await readStageSeconds(metricsUrls);
      const inputTimes = new Map<string, number>();
      const phase = collector.beginPhase(actions, inputTimes);
      say(
        `${action}: replaying ${messages.length} messages ${options.rate === 0 ? 'as a burst' : `at ${options.rate}/s`}`,
      );
      const firstInput = Date.now();
      // Progress runs while the replay does (a paced replay of 100,000 messages takes its time): sent,
      // notified, the notification rate, and the lag between the two.
      const replaying = replay(raw, encoded, { rate: options.rate, chunk: 1000, inFlight: 4 }, inputTimes);
      let lastPrint = 0;
      const draining = collector.waitFor(messages.length, options.stallMs, (seen) => {
        if (Date.now() - lastPrint < 2000) return;
        lastPrint = Date.now();
        const sent = inputTimes.size;
        say(
          `  ${action}: ${sent}/${messages.length} sent, ${seen} notified, ${(seen / (Math.max(1, Date.now() - firstInput) / 1000)).toFixed(0)}/s, lag ${sent - seen}`,
        );
      });
      await Promise.all([replaying, draining]);
      const [sql, used, stagesAfter] = await Promise.all([
        statements.stop(),
        cpu.stop(),
        readStageSeconds(metricsUrls),
      ]);
      const durationSeconds = Math.max(0.001, (phase.lastAt - firstInput) / 1000);
      const ids = new Set(messages.map((m) => m.transferId));
      let lost = 0;
      let duplicated = 0;
      for (const id of ids) {
        const count = phase.seen.get(id) ?? 0;
        if (count === 0) lost++;
        else duplicated += count - 1;
      }
      phases.push({
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
        expectedErrorNotifications: target === 'passthrough' ? 0 : expectedErrors,
        cpu: used,
        handlerStages: stageDelta(stagesBefore, stagesAfter),
      });
      return phase;
    };

    for (const phase of work.phases) {
      if (target === 'handler') await markOutcomes(knex, phase.outcomes);
      await runPhase(phase);
    }
    // The passthrough writes nothing: exactly-once notification is its only outcome to check.
    if (target === 'passthrough') return { phases, positionMismatches: [], database: db.name };
    const accountOf = (key: string) => work.ledger.accounts.get(key)?.position as number;
    const rows = await knex('participantPosition')
      .select('participantCurrencyId', 'value')
      .whereIn('participantCurrencyId', [...work.expected.keys()].map(accountOf));
    const actual = new Map(
      rows.map((r: { participantCurrencyId: string | number; value: string }) => [
        Number(r.participantCurrencyId),
        parseAmount(String(r.value)),
      ]),
    );
    const positionMismatches = [...work.expected]
      .filter(([key, value]) => actual.get(accountOf(key)) !== value)
      .map(
        ([key, value]) =>
          `account ${accountOf(key)} (${key}): expected ${value}, found ${actual.get(accountOf(key))} (ten-thousandths)`,
      );
    return { phases, positionMismatches, database: db.name };
  } finally {
    for (const h of handlers) await h.stop();
    await collector.stop().catch(() => {});
    await producer?.disconnect().catch(() => {});
    await statusConnection.end().catch(() => {});
    await knex.destroy();
    if (!options.keep) {
      await Promise.all([inputTopic.drop(), notificationTopic.drop(), db.drop()]).catch(() => {});
    }
  }
}
