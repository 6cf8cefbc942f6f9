/// <reference lib="esnext.disposable" />
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ParseArgsOptionDescriptor, parseArgs } from 'node:util';
import { configSchema, loadConfig } from '@mojafast/position-handler';
import { createResources } from '@mojafast/service-kit';
import { type ActionMix, MIX_PHASES, type MixPhases } from '../position/action-mix.js';
import { cpuMicrosPerMessage, phasesJson, toDbFloor } from '../position/result-json.js';
import {
  type BenchProducer,
  type BenchReader,
  type PhaseResult,
  type PositionBenchResult,
  type PositionTarget,
  runPositionBench,
} from '../position/run.js';
import type { BenchStack } from '../position/stack.js';
import type { Metric } from '../report/metrics.js';
import { markdownTable } from '../report/table.js';
import { positiveInteger } from './http.js';
import { finish, progress } from './outcome.js';
import { baselineFailures, baselineTable, compareWithBaseline, writeBaselineJson } from './position-baseline.js';
import { compareWithOriginal, originalFailures, originalTable, writeOriginalJson } from './position-original.js';
import { switchCommand } from './position-switch.js';

export const positionUsage = `mojafast-bench position [options]
  Replays position messages through our handler on the real broker and database and measures each
  phase of --actions (prepare, commit or mixed) from the first input to the last notification. Verifies the outcome:
  every transfer notified exactly once, final positions equal to the expected totals.
  --transfers N        transfers to generate (default 100000), replayed as --actions says
  --dfsps P            DFSPs (default 8)          --currencies C   currencies (default 1)
  --partitions K       partitions of the position topic (default 4)
  --instances H        handler processes in one consumer group (default 1)
  --batch-size B       POSITION_BATCH_SIZE of the handler (default 1000)
  --rate R             offered messages/s; 0 = burst (default 0)
  --actions A          what a generated run replays: prepare,commit (default: the prepares, then their
                       commits), prepare (prepares only), commit (only the commits, of transfers provisioned
                       as already reserved), mixed (one phase: prepares of new transfers interleaved with the
                       commits of reserved ones)
  --aborts F           share of the commits replaced by aborts (the transfer in RECEIVED_ERROR; default 0)
  --breaches F         share of the prepares over the payer's net debit cap, refused with 4200 (default 0);
                       error notifications are counted and must match what the mix makes
  --fx F               share of the transfers done as FX (with --actions prepare,commit; default 0): a
                       payer-side conversion at the FXP perffxp, its fx-prepare and the dependent prepare,
                       then the dependent transfer's commit, whose two cyrilResult steps (the conversion on
                       the FXP, fx-notify; the transfer on the payee, after a follow-up) must both apply
  --fx-baseline        with --fx: first the same run without FX (the plain mix), then the FX mix, in one
                       invocation; prints msgs/s, handler CPU µs and SQL per message of both
  --dump FILE          replay a kcat dump (key<delimiter>value per line) instead of generating
  --write-dump FILE    write the generated messages as a kcat dump (prepares, then commits)
  --key-delimiter D    kcat -K delimiter (default |)
  --compare            run the same workload at batch size 1 and at --batch-size, print the ratio
  --floor              first replay the same messages through the passthrough (the handler's Kafka layer,
                       decode and notification encoding, no database) in its own process, then through
                       the handler; print both msgs/s, CPU µs per message and the ratio: what the Kafka
                       client alone allows on this machine; with the plain prepare,commit mix, also through the
                       two database floors (the same runner writing central-ledger's rows with the fewest
                       statements and no rules: with no reads, and after the fewest reads the schema forces:
                       positions locked, a commit's payee amount and latest state, a prepare's state):
                       handler/floor msgs/s and MariaDB CPU per message against each
  --floor-only         only the passthrough
  --handler-client C   KAFKA_CLIENT of the handler: platformatic (default) or kafkajs, or both
                       (platformatic,kafkajs): one workload per client, side by side in one table
  --floor-client C     the passthrough's Kafka client (default: the handler's, so --floor compares the
                       handler with the Kafka-only path on the same client)
  --bench-producer P   the bench's replay producer: raw (default; its own Produce requests) or platformatic
                       (@platformatic/kafka's Producer), or both (raw,platformatic): one workload each
  --bench-reader R     the bench's notification reader: platformatic (default) or kafkajs, or both
  --tls                the same workload on the plain stack, then on the secure one (infra/svc start --tls:
                       the broker's SSL listener, MariaDB with require_secure_transport; certificates
                       verified against its CA), the bench's clients too; prints both and TLS/plain
  --knob NAME=V1,V2    one workload per value of a handler setting (its env variable, e.g.
                       KAFKA_FETCH_MAX_WAIT_MS=10,100,500), validated as the handler validates it; prints
                       msgs/s, p99 and handler CPU µs per message per value
  --original           central-ledger 19.5.5's own batch position handler and ours on the same messages, one
                       after the other for --rounds rounds (alternating who goes first), each on a fresh
                       database migrated with central-ledger's own migrations; prints prepares/s, commits/s,
                       p99 and the position process's CPU µs per message of each, and ours/original
  --baseline DIR       the handler of another build of this repository (DIR: a checkout built with pnpm -r
                       build, e.g. main's worktree) and this build's on the same messages, one after the
                       other for --rounds rounds (alternating who goes first); prints msgs/s, p99, the
                       handler's and MariaDB's CPU µs per message of each phase, and this build / baseline
  --rounds N           with --original or --baseline: rounds (default 2)
  --switch             end to end through central-ledger's prepare and fulfil handlers (a private switch,
                       infra/svc start central-ledger), once with each position handler: transfers/s
                       committed and p99 from prepare to its notification (packages/switch)
  --stall S            give up when no notification came for S seconds (default 30)
  --keep               keep the database and topics afterwards
  --threshold EXPR     k6 syntax, repeatable: 'rate>20000' (lower of the two phases' msgs/s),
                       'p99<50' (latency over both phases), 'prepare_latency:p(99)<50', 'lost:count==0'
  --out FILE           JSON results (default bench-results/position-<UTC time>.json: a run always leaves them)`;

const options = {
  transfers: { type: 'string', default: '100000' },
  dfsps: { type: 'string', default: '8' },
  currencies: { type: 'string', default: '1' },
  partitions: { type: 'string', default: '4' },
  instances: { type: 'string', default: '1' },
  'batch-size': { type: 'string', default: '1000' },
  rate: { type: 'string', default: '0' },
  dump: { type: 'string' },
  'write-dump': { type: 'string' },
  'key-delimiter': { type: 'string', default: '|' },
  compare: { type: 'boolean', default: false },
  floor: { type: 'boolean', default: false },
  'floor-only': { type: 'boolean', default: false },
  'floor-client': { type: 'string' },
  'handler-client': { type: 'string', default: 'platformatic' },
  knob: { type: 'string' },
  'bench-producer': { type: 'string', default: 'raw' },
  'bench-reader': { type: 'string', default: 'platformatic' },
  tls: { type: 'boolean', default: false },
  stall: { type: 'string', default: '30' },
  keep: { type: 'boolean', default: false },
  threshold: { type: 'string', multiple: true, default: [] },
  out: { type: 'string' },
  actions: { type: 'string', default: 'prepare,commit' },
  aborts: { type: 'string', default: '0' },
  breaches: { type: 'string', default: '0' },
  fx: { type: 'string', default: '0' },
  'fx-baseline': { type: 'boolean', default: false },
  original: { type: 'boolean', default: false },
  baseline: { type: 'string' },
  rounds: { type: 'string', default: '2' },
  switch: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies Record<string, ParseArgsOptionDescriptor>;

/** --actions, --aborts, --breaches, --fx: validated, naming the bad flag. */
function actionMix(actions: string, aborts: string, breaches: string, fx = '0'): ActionMix {
  if (!(MIX_PHASES as readonly string[]).includes(actions)) {
    throw new Error(`--actions must be one of ${MIX_PHASES.join(' | ')}, got "${actions}"`);
  }
  const share = (flag: string, text: string) => {
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0 || value > 1)
      throw new Error(`${flag} must be a share from 0 to 1, got "${text}"`);
    return value;
  };
  const fxShare = share('--fx', fx);
  if (fxShare > 0 && actions !== 'prepare,commit') throw new Error('--fx needs --actions prepare,commit');
  return {
    phases: actions as MixPhases,
    aborts: share('--aborts', aborts),
    breaches: share('--breaches', breaches),
    ...(fxShare > 0 ? { fx: fxShare } : {}),
  };
}

/** Rows the server read through indexes over a phase (Handler_read_key + Handler_read_next). */
const rowsRead = (phase: PhaseResult | undefined) =>
  phase ? phase.mysqlStatus.Handler_read_key + phase.mysqlStatus.Handler_read_next : 0;

/** The CPU of all processes named `prefix` (`handler`, or `handler1`, `handler2`... with --instances). */
function summed(perProcess: Record<string, number>, prefix: string): number {
  return Object.entries(perProcess).reduce((sum, [name, value]) => (name.startsWith(prefix) ? sum + value : sum), 0);
}

function metricsOf(result: PositionBenchResult): Map<string, Metric> {
  const metrics = new Map<string, Metric>();
  for (const p of result.phases) {
    metrics.set(`${p.action}_msgs`, { type: 'counter', count: p.messages - p.lost, perSecond: p.msgsPerSecond });
    metrics.set(`${p.action}_latency`, { type: 'trend', values: p.latency });
    metrics.set(`${p.action}_sql_per_msg`, { type: 'gauge', value: Number(p.sqlPerMessage.toFixed(4)) });
    metrics.set(`${p.action}_db_commits_per_s`, { type: 'gauge', value: Number(p.commitsPerSecond.toFixed(1)) });
    for (const [name, cores] of Object.entries(p.cpu))
      metrics.set(`${p.action}_cpu_${name}`, { type: 'gauge', value: Number(cores.toFixed(2)) });
    for (const [name, mb] of Object.entries(p.rssMb))
      metrics.set(`${p.action}_rss_mb_${name}`, { type: 'gauge', value: mb });
    for (const key of ['Handler_read_key', 'Handler_read_next', 'Handler_write', 'Innodb_row_lock_waits'] as const)
      metrics.set(`${p.action}_${key.toLowerCase()}_per_msg`, {
        type: 'gauge',
        value: Number((p.mysqlStatus[key] / p.messages).toFixed(3)),
      });
    for (const [stage, seconds] of Object.entries(p.handlerStages))
      metrics.set(`${p.action}_stage_s_${stage}`, { type: 'gauge', value: Number(seconds.toFixed(2)) });
  }
  const slowest = result.phases.reduce((a, b) => (b.msgsPerSecond < a.msgsPerSecond ? b : a));
  const worst = result.phases.reduce((a, b) => (b.latency.p99 > a.latency.p99 ? b : a));
  metrics.set('msgs', { type: 'counter', count: slowest.messages - slowest.lost, perSecond: slowest.msgsPerSecond });
  metrics.set('latency', { type: 'trend', values: worst.latency });
  const lost = result.phases.reduce((n, p) => n + p.lost, 0);
  const duplicated = result.phases.reduce((n, p) => n + p.duplicated, 0);
  metrics.set('lost', { type: 'counter', count: lost, perSecond: 0 });
  metrics.set('duplicated', { type: 'counter', count: duplicated, perSecond: 0 });
  metrics.set('position_mismatches', { type: 'counter', count: result.positionMismatches.length, perSecond: 0 });
  return metrics;
}

/** Thresholds without a metric name: rates mean `msgs`, everything else `latency`. */
function qualify(threshold: string): string {
  if (threshold.includes(':')) return threshold;
  return /^\s*rate\b/.test(threshold) ? `msgs:${threshold}` : `latency:${threshold}`;
}

type KafkaClient = 'kafkajs' | 'platformatic';

function kafkaClient(flag: string, value: string): KafkaClient {
  if (value !== 'kafkajs' && value !== 'platformatic') {
    throw new Error(`${flag} must be kafkajs or platformatic, got "${value}"`);
  }
  return value;
}

/** --knob NAME=V1,V2,...: a handler env variable and its values, each checked by the handler's own loadConfig. */
function knobOf(text: string | undefined): { name: string; values: string[] } | undefined {
  if (text === undefined) return undefined;
  const at = text.indexOf('=');
  const name = text.slice(0, at);
  const values = text
    .slice(at + 1)
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const known = Object.values(configSchema).flatMap((f) => [f.env, ...(f.aliases ?? [])]);
  if (at <= 0 || values.length === 0) throw new Error(`--knob must be NAME=V1,V2,..., got "${text}"`);
  if (!known.includes(name)) throw new Error(`--knob ${name} is no handler setting (one of ${known.join(', ')})`);
  for (const value of values) loadConfig({ [name]: value });
  return { name, values };
}

/** One of a comma list of choices, each checked (`flag` names the bad one). */
function choices<T extends string>(flag: string, text: string, allowed: readonly T[]): T[] {
  const picked = [...new Set(text.split(',').map((c) => c.trim()))];
  for (const c of picked) {
    if (!(allowed as readonly string[]).includes(c))
      throw new Error(`${flag} must be ${allowed.join(' or ')}, got "${c}"`);
  }
  return picked as T[];
}

/** One row of the side-by-side table: a client and knob value, its handler phases and its floor. */
interface Variant {
  readonly stack: BenchStack;
  readonly client: KafkaClient;
  readonly benchProducer: BenchProducer;
  readonly benchReader: BenchReader;
  readonly knob?: { name: string; value: string };
  readonly handler?: PositionBenchResult;
  readonly floor?: PositionBenchResult;
}

function variantLabel(v: Variant): string {
  return [
    v.client,
    v.stack === 'tls' ? 'over TLS' : '',
    v.knob ? `${v.knob.name}=${v.knob.value}` : '',
    v.benchProducer !== 'raw' || v.benchReader !== 'platformatic' ? `bench ${v.benchProducer}/${v.benchReader}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** The table --handler-client with two clients or --knob prints: msgs/s, p99 and handler CPU per message. */
function variantTable(variants: readonly Variant[]): string {
  const actions = [...new Set(variants.flatMap((v) => (v.handler ?? v.floor)?.phases.map((p) => p.action) ?? []))];
  const header = [
    'variant',
    ...actions.flatMap((a) => [`${a} msgs/s`, `${a} p99 ms`, `${a} handler µs/msg`, `${a} bench µs/msg`]),
  ];
  if (variants.some((v) => v.floor && v.handler)) header.push(...actions.map((a) => `${a} handler/floor`));
  const rows = variants.map((v) => {
    const result = v.handler ?? v.floor;
    const cells = [variantLabel(v)];
    for (const action of actions) {
      const phase = result?.phases.find((p) => p.action === action);
      if (!phase) {
        cells.push('-', '-', '-', '-');
        continue;
      }
      const cpu = cpuMicrosPerMessage(phase);
      cells.push(
        phase.msgsPerSecond.toFixed(0),
        String(phase.latency.p99),
        String(summed(cpu, v.handler ? 'handler' : 'passthrough')),
        String(cpu.bench ?? '-'),
      );
    }
    if (v.floor && v.handler) {
      for (const action of actions) {
        const h = v.handler.phases.find((p) => p.action === action);
        const f = v.floor.phases.find((p) => p.action === action);
        cells.push(h && f ? (h.msgsPerSecond / Math.max(f.msgsPerSecond, 1e-9)).toFixed(2) : '-');
      }
    }
    return cells;
  });
  return markdownTable(header, rows, { pad: true });
}

/**
 * Each TLS variant against the plain one of the same client, knob and bench clients, per phase: msgs/s and the
 * handler's CPU per message (passthrough's for a floor-only run), TLS over plain.
 */
function tlsPairs(variants: readonly Variant[]): { tls: Variant; plain: Variant }[] {
  const same = (a: Variant, b: Variant) =>
    a.client === b.client &&
    a.benchProducer === b.benchProducer &&
    a.benchReader === b.benchReader &&
    a.knob?.value === b.knob?.value;
  return variants
    .filter((v) => v.stack === 'tls')
    .flatMap((tls) => {
      const plain = variants.find((v) => v.stack === 'plain' && same(v, tls));
      return plain ? [{ tls, plain }] : [];
    });
}

function tlsToPlain(variants: readonly Variant[]): Record<string, unknown>[] {
  return tlsPairs(variants).map(({ tls, plain }) => ({
    variant: variantLabel(plain),
    phases: Object.fromEntries(
      phasePairs(tls, plain).map(({ action, t, p, process }) => [
        action,
        {
          msgs_per_s: Number((t.msgsPerSecond / Math.max(p.msgsPerSecond, 1e-9)).toFixed(3)),
          [`${process}_cpu_us_per_msg`]: Number(
            (summed(cpuMicrosPerMessage(t), process) / Math.max(summed(cpuMicrosPerMessage(p), process), 1e-9)).toFixed(
              3,
            ),
          ),
        },
      ]),
    ),
  }));
}

function phasePairs(tls: Variant, plain: Variant) {
  const process = tls.handler ? 'handler' : 'passthrough';
  const t = tls.handler ?? tls.floor;
  const p = plain.handler ?? plain.floor;
  return (t?.phases ?? []).flatMap((tp) => {
    const pp = p?.phases.find((q) => q.action === tp.action);
    return pp ? [{ action: tp.action, t: tp, p: pp, process }] : [];
  });
}

function tlsLines(variants: readonly Variant[]): string[] {
  return tlsPairs(variants).flatMap(({ tls, plain }) =>
    phasePairs(tls, plain).map(({ action, t, p, process }) => {
      const tc = cpuMicrosPerMessage(t);
      const pc = cpuMicrosPerMessage(p);
      return (
        `${variantLabel(plain)} ${action}: plain ${p.msgsPerSecond.toFixed(0)} msgs/s, TLS ${t.msgsPerSecond.toFixed(0)} msgs/s (${(t.msgsPerSecond / Math.max(p.msgsPerSecond, 1e-9)).toFixed(2)}); ` +
        `CPU µs/msg plain ${process} ${summed(pc, process)} mariadb ${pc.mariadb} kafka ${pc.kafka} bench ${pc.bench}, ` +
        `TLS ${process} ${summed(tc, process)} mariadb ${tc.mariadb} kafka ${tc.kafka} bench ${tc.bench}`
      );
    }),
  );
}

type Values = ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];

/** What every mode shares: the workload, the topic's shape and the handler's batch size, from the flags. */
function benchBase(values: Values) {
  const base = {
    transfers: positiveInteger('--transfers', values.transfers),
    dfsps: positiveInteger('--dfsps', values.dfsps),
    currencies: positiveInteger('--currencies', values.currencies),
    partitions: positiveInteger('--partitions', values.partitions),
    instances: positiveInteger('--instances', values.instances),
    batchSize: positiveInteger('--batch-size', values['batch-size']),
    rate: values.rate === '0' ? 0 : positiveInteger('--rate', values.rate),
    dump: values.dump,
    writeDump: values['write-dump'],
    delimiter: values['key-delimiter'],
    stallMs: positiveInteger('--stall', values.stall) * 1000,
    keep: values.keep,
    onProgress: progress,
    mix: actionMix(values.actions, values.aborts, values.breaches, values.fx),
  };
  if (base.dfsps < 2) throw new Error('--dfsps must be at least 2');
  return base;
}

type BenchBase = ReturnType<typeof benchBase>;

/** The command line as a result file records it. */
const commandOf = (argv: readonly string[]) => ['node packages/bench/dist/cli.js position', ...argv].join(' ');

/** A result file's default name under bench-results/, stamped with the time. */
const resultFile = (kind: string) =>
  join('bench-results', `${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);

/** One replay of one variant: the plan step it ran and what it measured. */
interface Run {
  readonly batchSize: number;
  readonly target: PositionTarget;
  readonly mix?: ActionMix;
  readonly variant: number;
  readonly result: PositionBenchResult;
}

type PlanStep = { batchSize: number; target: PositionTarget; mix?: ActionMix };

export async function positionCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options });
  if (values.help) {
    process.stdout.write(`${positionUsage}\n`);
    return;
  }
  const base = benchBase(values);
  if (values.switch) {
    await switchCommand({
      transfers: base.transfers,
      rate: base.rate,
      rounds: positiveInteger('--rounds', values.rounds),
      out: values.out,
      argv,
    });
    return;
  }
  if (values.tls && values.original)
    throw new Error(
      "--tls runs our handler on both stacks: not with --original or --switch (central-ledger's handlers run in plaintext here)",
    );
  if (values.baseline !== undefined) return baselineMode(values, base, argv);
  if (values.original) return originalMode(values, base, argv);
  return replayMode(values, base, argv);
}

/** --baseline DIR: another build's handler and this one's on the same messages, rounds alternating. */
async function baselineMode(values: Values, base: BenchBase, argv: readonly string[]): Promise<void> {
  if (values.original || values.floor || values['floor-only'] || values.compare || values.tls)
    throw new Error(
      '--baseline compares two builds of our handler alone: not with --original, --floor, --compare or --tls',
    );
  const comparison = await compareWithBaseline(
    base,
    positiveInteger('--rounds', values.rounds),
    values.baseline as string,
    runPositionBench,
  );
  process.stdout.write(`\n${baselineTable(comparison)}\n`);
  const out = values.out ?? resultFile('position-baseline');
  await writeBaselineJson(out, comparison, commandOf(argv));
  process.stdout.write(`results written to ${out}\n`);
  reportFailures(baselineFailures(comparison));
}

/** --original: central-ledger's batch position handler and ours on the same dump, rounds alternating. */
async function originalMode(values: Values, base: BenchBase, argv: readonly string[]): Promise<void> {
  const comparison = await compareWithOriginal(base, positiveInteger('--rounds', values.rounds));
  process.stdout.write(`\n${originalTable(comparison)}\n`);
  const out = values.out ?? resultFile('position-original');
  await writeOriginalJson(out, comparison, commandOf(argv));
  process.stdout.write(`results written to ${out}\n`);
  reportFailures(originalFailures(comparison));
}

/** The replay modes: each variant through the plan's steps (floors, batch sizes, the FX baseline), then the reports. */
async function replayMode(values: Values, base: BenchBase, argv: readonly string[]): Promise<void> {
  if (values.compare && (values.floor || values['floor-only'])) throw new Error('--compare and --floor are exclusive');
  const knob = knobOf(values.knob);
  const variants = variantsOf(values, knob);
  const plan = planOf(values, base, variants.length);
  const floorClient =
    values['floor-client'] === undefined ? undefined : kafkaClient('--floor-client', values['floor-client']);
  const runs = await replayAll(base, variants, plan, floorClient, values['fx-baseline']);
  const measured: Variant[] = variants.map((variant, v) => {
    const floor = runs.find((r) => r.variant === v && r.target === 'passthrough')?.result;
    const handler = runs.filter((r) => r.variant === v && r.target === 'handler').at(-1)?.result;
    return { ...variant, ...(floor ? { floor } : {}), ...(handler ? { handler } : {}) };
  });
  const last = runs.at(-1) as Run;
  const json: Record<string, unknown> = {
    ...phasesJson(last.result),
    actions: base.mix,
    target: last.target,
    batch_size: last.batchSize,
    partitions: base.partitions,
    instances: base.instances,
    rate: base.rate,
    transfers: base.transfers,
    position_mismatches: last.result.positionMismatches,
  };
  if (values.floor) Object.assign(json, floorReport(measured, runs));
  else if (values['fx-baseline']) Object.assign(json, fxBaselineReport(runs, base));
  else if (values.compare) Object.assign(json, compareReport(runs));
  json.kafka_client = (measured.at(-1) as Variant).client;
  json.command = commandOf(argv);
  json.bench_producer = (measured.at(-1) as Variant).benchProducer;
  json.bench_reader = (measured.at(-1) as Variant).benchReader;
  if (values.tls) {
    json.tls_to_plain = tlsToPlain(measured);
    process.stdout.write(`${tlsLines(measured).join('\n')}\n`);
  }
  if (measured.length > 1 || knob) {
    json.variants = measured.map((v) => ({
      stack: v.stack,
      kafka_client: v.client,
      bench_producer: v.benchProducer,
      bench_reader: v.benchReader,
      ...(v.knob ? { knob: v.knob } : {}),
      ...(v.handler ? phasesJson(v.handler) : { prepare: null, commit: null, mixed: null }),
      ...(v.floor ? { floor: phasesJson(v.floor) } : {}),
    }));
    process.stdout.write(`${variantTable(measured)}\n`);
  }
  await finish({
    title: `bench:position — ${last.target}, batch ${last.batchSize}, ${base.partitions} partitions, ${base.instances} handler(s), ${base.rate === 0 ? 'burst' : `${base.rate}/s offered`}`,
    metrics: metricsOf(last.result),
    thresholds: values.threshold.map(qualify),
    defaultMetric: 'msgs',
    // The command with no arguments writes its JSON too: every run leaves a result file.
    out: values.out ?? resultFile('position'),
    json,
  });
  reportFailures(outcomeFailures(runs));
}

/** Every combination of stack, handler client, knob value and bench clients the flags ask for. */
function variantsOf(values: Values, knob: ReturnType<typeof knobOf>): Variant[] {
  const clients = [
    ...new Set(values['handler-client'].split(',').map((c) => kafkaClient('--handler-client', c.trim()))),
  ];
  const benchProducers = choices<BenchProducer>('--bench-producer', values['bench-producer'], ['raw', 'platformatic']);
  const benchReaders = choices<BenchReader>('--bench-reader', values['bench-reader'], ['kafkajs', 'platformatic']);
  const stacks: BenchStack[] = values.tls ? ['plain', 'tls'] : ['plain'];
  const variants: Variant[] = stacks.flatMap((stack) =>
    clients.flatMap((client) =>
      (knob?.values ?? [undefined]).flatMap((value) =>
        benchProducers.flatMap((benchProducer) =>
          benchReaders.map((benchReader) => ({
            stack,
            client,
            benchProducer,
            benchReader,
            ...(value === undefined ? {} : { knob: { name: knob?.name as string, value } }),
          })),
        ),
      ),
    ),
  );
  if (values.compare && variants.length > 1) {
    throw new Error('--compare runs one client, one bench producer and reader, and no --knob');
  }
  return variants;
}

/** The replays each variant runs: the handler alone, after its floors, at batch size 1 first, or without FX first. */
function planOf(values: Values, base: BenchBase, variantCount: number): PlanStep[] {
  const fxBaseline = values['fx-baseline'];
  if (fxBaseline && !base.mix.fx) throw new Error('--fx-baseline needs --fx');
  if (fxBaseline && (values.compare || values.floor || values['floor-only'] || variantCount > 1))
    throw new Error(
      '--fx-baseline runs one client, one bench producer and reader, no --knob, and excludes --compare and --floor',
    );
  const dbFloorFits =
    base.mix.phases === 'prepare,commit' && base.mix.aborts === 0 && base.mix.breaches === 0 && !base.mix.fx;
  if (values.floor && !dbFloorFits)
    progress(
      '--floor: no database floor for this mix (it replays prepares then their commits, no aborts, breaches or FX)',
    );
  const handler: PlanStep = { batchSize: base.batchSize, target: 'handler' };
  if (fxBaseline) return [{ ...handler, mix: { ...base.mix, fx: 0 } }, handler];
  if (values.compare) return [{ batchSize: 1, target: 'handler' }, handler];
  if (values['floor-only']) return [{ batchSize: base.batchSize, target: 'passthrough' }];
  if (values.floor)
    return [
      { batchSize: base.batchSize, target: 'passthrough' },
      // The database floors apply prepares and commits alone, with no rules: the plain prepare,commit mix.
      ...(dbFloorFits
        ? [
            { batchSize: base.batchSize, target: 'db-floor' as const },
            { batchSize: base.batchSize, target: 'db-reads-floor' as const },
          ]
        : []),
      handler,
    ];
  return [handler];
}

/**
 * Runs every step of the plan for every variant. Every run replays the same messages: a generated workload is
 * written to a dump by the first run and replayed from it by the others (the floor, the other client, the other
 * knob values); --fx-baseline's two runs are two workloads (plain, then FX), so each generates its own.
 */
async function replayAll(
  base: BenchBase,
  variants: readonly Variant[],
  plan: readonly PlanStep[],
  floorClient: KafkaClient | undefined,
  fxBaseline: boolean,
): Promise<Run[]> {
  await using resources = createResources();
  const shared = variants.length * plan.length > 1 && !fxBaseline && !base.dump;
  const scratch = shared
    ? resources.own('dump folder', await mkdtemp(join(tmpdir(), 'bench-position-floor-')), (dir) =>
        rm(dir, { recursive: true, force: true }),
      )
    : undefined;
  const runs: Run[] = [];
  for (const [v, variant] of variants.entries()) {
    for (const step of plan) {
      const client = step.target === 'passthrough' ? (floorClient ?? variant.client) : variant.client;
      progress(
        `bench:position ${step.target} on ${client}${variant.stack === 'tls' ? ' over TLS' : ''}${variant.knob ? `, ${variant.knob.name}=${variant.knob.value}` : ''}, bench producer ${variant.benchProducer}, reader ${variant.benchReader}, batch size ${step.batchSize}, ${base.partitions} partitions, ${base.instances} process(es), ${base.rate === 0 ? 'burst' : `${base.rate}/s`}`,
      );
      const dumpFiles = scratch
        ? runs.length === 0
          ? { writeDump: join(scratch, 'dump.txt') }
          : { dump: join(scratch, 'dump.txt') }
        : {};
      const handlerEnv = variant.knob ? { [variant.knob.name]: variant.knob.value } : {};
      const result = await runPositionBench({
        ...base,
        ...dumpFiles,
        ...step,
        handlerClient: client,
        handlerEnv,
        benchProducer: variant.benchProducer,
        benchReader: variant.benchReader,
        stack: variant.stack,
      });
      runs.push({ ...step, variant: v, result });
    }
  }
  return runs;
}

/** --floor: the handler against the Kafka-only passthrough and the two database floors, printed and for the JSON. */
function floorReport(measured: readonly Variant[], runs: readonly Run[]): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  const [first] = measured as [Variant];
  const floor = first.floor as PositionBenchResult;
  const handler = first.handler as PositionBenchResult;
  json.floor = phasesJson(floor);
  json.handler_to_floor = Object.fromEntries(
    handler.phases.map((p) => {
      const f = floor.phases.find((q) => q.action === p.action);
      return [p.action, Number((p.msgsPerSecond / Math.max(f?.msgsPerSecond ?? 0, 1e-9)).toFixed(3))];
    }),
  );
  const rows: string[][] = [];
  for (const [target, key] of [
    ['db-floor', 'db_floor'],
    ['db-reads-floor', 'db_reads_floor'],
  ] as const) {
    const dbFloor = runs.find((r) => r.target === target)?.result;
    if (!dbFloor) continue;
    json[key] = phasesJson(dbFloor);
    json[`handler_to_${key}`] = Object.fromEntries(
      handler.phases.map((p) => {
        const f = dbFloor.phases.find((q) => q.action === p.action);
        const ratio = toDbFloor(p, f);
        rows.push([p.action, target, ...dbFloorCells(f, target), ...dbFloorCells(p, 'handler'), ...ratioCells(ratio)]);
        return [p.action, ratio];
      }),
    );
  }
  const phaseOrder = handler.phases.map((p) => p.action as string);
  rows.sort((a, b) => phaseOrder.indexOf(a[0] as string) - phaseOrder.indexOf(b[0] as string));
  if (rows.length > 0)
    process.stdout.write(
      `${markdownTable(
        [
          'phase',
          'floor',
          'floor msgs/s',
          'floor CPU µs/msg',
          'floor MariaDB µs/msg',
          'floor SQL/msg',
          'floor rows read/msg',
          'handler msgs/s',
          'handler CPU µs/msg',
          'handler MariaDB µs/msg',
          'handler SQL/msg',
          'handler rows read/msg',
          'handler/floor msgs/s (goal ≥ 0.85)',
          'MariaDB handler/floor (goal ≤ 1.2)',
        ],
        rows,
        { pad: true },
      )}\n`,
    );
  for (const variant of measured) {
    if (!variant.floor || !variant.handler) continue;
    for (const p of variant.handler.phases) {
      const f = variant.floor.phases.find((q) => q.action === p.action);
      if (!f) continue;
      const fc = cpuMicrosPerMessage(f);
      const hc = cpuMicrosPerMessage(p);
      process.stdout.write(
        `${variantLabel(variant)} ${p.action}: Kafka floor (passthrough) ${f.msgsPerSecond.toFixed(0)} msgs/s, CPU µs/msg passthrough ${summed(fc, 'passthrough')} kafka ${fc.kafka} bench ${fc.bench}; ` +
          `handler ${p.msgsPerSecond.toFixed(0)} msgs/s, CPU µs/msg handler ${summed(hc, 'handler')} mariadb ${hc.mariadb} kafka ${hc.kafka} bench ${hc.bench}; ` +
          `handler/floor ${(p.msgsPerSecond / Math.max(f.msgsPerSecond, 1e-9)).toFixed(2)}\n`,
      );
    }
  }
  return json;
}

/** msgs/s, the process's and MariaDB's CPU µs, SQL statements and rows read, per message, of one phase. */
function dbFloorCells(phase: PhaseResult | undefined, name: string): string[] {
  if (!phase) return ['', '', '', '', ''];
  const cpu = cpuMicrosPerMessage(phase);
  return [
    phase.msgsPerSecond.toFixed(0),
    String(summed(cpu, name)),
    String(cpu.mariadb ?? ''),
    phase.sqlPerMessage.toFixed(3),
    (rowsRead(phase) / phase.messages).toFixed(2),
  ];
}

function ratioCells(ratio: ReturnType<typeof toDbFloor>): string[] {
  return [ratio.msgs_per_s.toFixed(2), ratio.mariadb_cpu_per_msg.toFixed(2)];
}

/** --fx-baseline: the plain workload beside the same one with FX transfers mixed in. */
function fxBaselineReport(runs: readonly Run[], base: BenchBase): Record<string, unknown> {
  const [plain, fx] = runs as [Run, Run];
  for (const p of fx.result.phases) {
    const b = plain.result.phases.find((q) => q.action === p.action);
    if (!b) continue;
    const line = (label: string, q: PhaseResult) =>
      `${label} ${q.messages} msgs ${q.msgsPerSecond.toFixed(0)} msgs/s, handler CPU ${summed(cpuMicrosPerMessage(q), 'handler')} µs/msg, SQL ${q.sqlPerMessage.toFixed(3)}/msg, lost ${q.lost}, duplicated ${q.duplicated}`;
    process.stdout.write(`${p.action}: ${line('plain', b)}; ${line(`fx ${base.mix.fx}`, p)}\n`);
  }
  return { plain_baseline: phasesJson(plain.result) };
}

/** --compare: batch size 1 against the chosen batch size. */
function compareReport(runs: readonly Run[]): Record<string, unknown> {
  const [one, chosen] = runs as [Run, Run];
  const ratios = chosen.result.phases.map((p) => {
    const baseline = one.result.phases.find((q) => q.action === p.action);
    return { action: p.action, baseline: baseline?.msgsPerSecond ?? 0, chosen: p.msgsPerSecond };
  });
  for (const r of ratios) {
    process.stdout.write(
      `${r.action}: batch 1 ${r.baseline.toFixed(0)} msgs/s, batch ${chosen.batchSize} ${r.chosen.toFixed(0)} msgs/s, ratio ${(r.chosen / Math.max(r.baseline, 1e-9)).toFixed(1)}×\n`,
    );
  }
  return { compare: { batch_size_1: phasesJson(one.result), ratios } };
}

/** What a replay got wrong: transfers lost or notified twice, error notifications the mix does not make, positions. */
function outcomeFailures(runs: readonly Run[]): string[] {
  return runs.flatMap(({ batchSize, target, result }) => [
    ...result.phases
      .filter((p) => p.lost > 0 || p.duplicated > 0)
      .map((p) => `${target} batch ${batchSize} ${p.action}: ${p.lost} lost, ${p.duplicated} duplicated`),
    ...result.phases
      .filter((p) => p.errorNotifications !== p.expectedErrorNotifications)
      .map(
        (p) =>
          `${target} batch ${batchSize} ${p.action}: ${p.errorNotifications} error notifications, the mix makes ${p.expectedErrorNotifications}`,
      ),
    ...result.positionMismatches.map((m) => `batch ${batchSize}: ${m}`),
  ]);
}

/** Prints the failures of an outcome check and sets the exit code; nothing when there are none. */
function reportFailures(failures: readonly string[]): void {
  if (failures.length === 0) return;
  process.stderr.write(`OUTCOME CHECK FAILED:\n  ${failures.slice(0, 20).join('\n  ')}\n`);
  process.exitCode = 1;
}
