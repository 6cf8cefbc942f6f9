import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type SwitchBenchResult, switchTables } from '../switch/tables.js';
import { markdownTable } from './table.js';

/**
 * Tables of figures, rendered from bench result files (`--out` JSON) kept in the repository, so a page shows
 * only what a program computed from a run, each row beside the commit, date, machine load and command of that
 * run. Measurements are rendered only into pages under a `measured/` folder (MEASUREMENT_KINDS; a README links
 * to them); the differences lists (`als-differences`) into the packages' docs/. A page marks a region:
 *
 *     <!-- figures:KIND path/to/result.json path/to/folder -->
 *     (rendered; never edited by hand)
 *     <!-- /figures -->
 *
 * KIND is one of `renderers` below; paths are from the repository root, a folder standing for its *.json files
 * in name order.
 */

/** `run` of a result file (report/provenance.ts); files measured before it existed carry what is known. */
interface RunProvenance {
  readonly commit?: string | null;
  /** For a file whose commit was not recorded: the commit it was committed with (it was measured before). */
  readonly measured_before?: string;
  readonly dirty?: boolean | null;
  readonly date?: string | null;
  readonly finished?: string;
  readonly load_avg_start?: readonly number[] | null;
  readonly load_avg_end?: readonly number[] | null;
  readonly cores?: number;
  readonly command?: string;
}

interface Latency {
  readonly p50?: number;
  readonly p95?: number;
  readonly p99?: number;
}

interface PositionPhase {
  readonly messages: number;
  readonly msgs_per_s: number;
  readonly latency_ms: Latency;
  readonly cpu_us_per_msg: Record<string, number>;
  readonly sql_per_msg?: number;
  readonly rss_mb?: Record<string, number>;
  readonly mysql_status_per_msg?: Record<string, number>;
  readonly lost: number;
  readonly duplicated: number;
}

type PhaseLabel = 'prepare' | 'commit' | 'mixed';
const PHASES: readonly PhaseLabel[] = ['prepare', 'commit', 'mixed'];

type Phases = Partial<Record<PhaseLabel, PositionPhase | null>>;

interface PositionVariant extends Phases {
  readonly kafka_client: string;
  readonly knob?: { readonly name: string; readonly value: string };
  readonly bench_producer?: string;
  readonly bench_reader?: string;
  readonly floor?: Phases;
}

interface ResultFile extends Phases {
  readonly run?: RunProvenance;
  /** bench:position's own record of its command (before `run` existed). */
  readonly command?: string;
  readonly rate?: number;
  readonly transfers?: number;
  readonly batch_size?: number;
  readonly partitions?: number;
  readonly kafka_client?: string;
  readonly bench_producer?: string;
  readonly bench_reader?: string;
  readonly variants?: readonly PositionVariant[];
  // bench:als
  readonly lookups_per_s?: number;
  readonly e2e_ms?: Latency;
  readonly failed?: number;
  readonly checks_rate?: number;
  readonly vus?: number;
  readonly duration_s?: number;
  readonly cpu_cores?: Record<string, number>;
  readonly scenario?: string;
  // bench:position --original (original, ours) and --baseline (baseline, current)
  readonly rounds?: readonly {
    readonly round: number;
    readonly original?: Phases;
    readonly ours?: Phases;
    readonly baseline?: Phases;
    readonly current?: Phases;
  }[];
  readonly baseline_dir?: string;
  // bench:position --switch
  readonly runs?: readonly SwitchRunResult[];
  // bench:position --floor
  readonly floor?: Phases;
  readonly db_floor?: Phases;
  readonly db_reads_floor?: Phases;
  // bench:als --original and --floor (src/commands/als-versus.ts)
  readonly comparison?: string;
  readonly results?: readonly AlsVersusConfig[];
  readonly summaries?: readonly AlsSideSummary[];
  readonly cpu_per_lookup_ratio?: number;
  readonly rss_mb?: Record<string, number>;
}

interface AlsSideSummary {
  readonly side: string;
  readonly lookupsPerSecond: number;
  readonly p99Ms: number;
  readonly alsCores: number;
  readonly alsMicrosPerLookup: number;
  readonly alsRssMb: number;
  readonly failed: number;
}

interface AlsVersusConfig {
  readonly config: string;
  readonly description: string;
  readonly summaries: readonly AlsSideSummary[];
  readonly throughput_ratio: number;
  readonly cpu_per_lookup_ratio: number;
  /** The relay floor's: absent from files written before it ran beside the two ALSs. */
  readonly relay_cpu_per_lookup_ratio?: number;
}

interface SwitchRunResult {
  readonly handler: 'original' | 'ours';
  readonly round: number;
  readonly transfers: number;
  readonly committedPerSecond: number;
  readonly prepareToNotification: { readonly med: number; readonly p99: number };
  readonly commitToNotification: { readonly med: number; readonly p99: number };
  readonly cpuMicrosPerTransfer: Record<string, number>;
  readonly failed: number;
}

export interface LoadedResult {
  /** Path from the repository root. */
  readonly path: string;
  readonly result: ResultFile;
}

/** The result files a region names: files as given, a folder as its *.json files in name order. */
export function loadResults(root: string, paths: readonly string[]): LoadedResult[] {
  return paths.flatMap((path) => {
    const full = join(root, path);
    const files = statSync(full).isDirectory()
      ? readdirSync(full)
          .filter((name) => name.endsWith('.json'))
          .sort()
          .map((name) => join(path, name))
      : [path];
    return files.map((file) => ({
      path: file,
      result: JSON.parse(readFileSync(join(root, file), 'utf8')) as ResultFile,
    }));
  });
}

const integer = (n: number | undefined) => (n === undefined ? '-' : String(Math.round(n)));
const ms = (n: number | undefined) => (n === undefined ? '-' : String(Number(n.toFixed(1))));

function commitCell(run: RunProvenance | undefined): string {
  if (run?.commit) return `${run.commit.slice(0, 7)}${run.dirty ? ' + uncommitted changes' : ''}`;
  if (run?.measured_before) return `not recorded (before ${run.measured_before})`;
  return 'not recorded';
}

function dateCell(run: RunProvenance | undefined): string {
  if (run?.date) return `${run.date.slice(0, 16).replace('T', ' ')} UTC`;
  if (run?.finished) return `${run.finished.slice(0, 16).replace('T', ' ')} UTC (its end)`;
  return 'not recorded';
}

/** The 1-minute load average at the start and the end of the run, over the cores. */
function loadCell(run: RunProvenance | undefined): string {
  const start = run?.load_avg_start?.[0];
  const end = run?.load_avg_end?.[0];
  if (start === undefined || end === undefined) return 'not recorded';
  return `${start.toFixed(2)} → ${end.toFixed(2)}${run?.cores ? ` (${run.cores} cores)` : ''}`;
}

function commandOf(file: LoadedResult): string {
  return file.result.run?.command ?? file.result.command ?? 'not recorded';
}

const provenanceHeader = ['commit', 'date', 'load 1 min', 'command'];
function provenanceCells(file: LoadedResult): string[] {
  const run = file.result.run;
  return [commitCell(run), dateCell(run), loadCell(run), `\`${commandOf(file)}\``];
}

/** A markdown table, cells escaped (report/table.ts); bench:switch prints its tables with it too. */
export const table = (header: readonly string[], rows: readonly (readonly string[])[]) => markdownTable(header, rows);

/** The phases present in any of the results, in run order. */
function phasesOf(results: readonly Phases[]): PhaseLabel[] {
  return PHASES.filter((label) => results.some((r) => r[label]));
}

/** The CPU µs per message of the processes named `prefix` (`handler`, or `handler1`, `handler2`...). */
function cpuOf(phase: PositionPhase, prefix: string): number | undefined {
  const entries = Object.entries(phase.cpu_us_per_msg).filter(([name]) => name.startsWith(prefix));
  return entries.length === 0 ? undefined : entries.reduce((sum, [, v]) => sum + v, 0);
}

function phaseCells(phase: PositionPhase | null | undefined): string[] {
  if (!phase) return ['-', '-', '-', '-'];
  return [
    integer(phase.msgs_per_s),
    ms(phase.latency_ms.p99),
    integer(cpuOf(phase, 'handler') ?? cpuOf(phase, 'passthrough')),
    integer(cpuOf(phase, 'bench')),
  ];
}

const phaseHeader = (label: string) => [
  `${label} msgs/s`,
  `${label} p99 ms`,
  `${label} handler µs/msg`,
  `${label} bench µs/msg`,
];

function shapeOf(result: ResultFile): string {
  const parts = [
    result.rate ? `${result.rate}/s offered` : 'burst',
    result.transfers !== undefined ? `${result.transfers} transfers` : '',
    result.batch_size !== undefined ? `batch ${result.batch_size}` : '',
    result.partitions !== undefined ? `${result.partitions} partitions` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

/** Resident MB per process, as `name N, …` (the processes a run measured). */
const rssCell = (rss: Record<string, number> | undefined) =>
  rss === undefined
    ? '-'
    : Object.entries(rss)
        .map(([name, mb]) => `${name} ${Math.round(mb)}`)
        .join(', ');

/** bench:position runs, one row per result file: msgs/s, p99 and CPU per message of each phase it ran. */
function renderPosition(files: readonly LoadedResult[]): string {
  const labels = phasesOf(files.map((f) => f.result));
  const withRss = files.some((f) => labels.some((l) => f.result[l]?.rss_mb));
  const header = [
    'result file',
    'run',
    'client',
    'bench producer / reader',
    ...labels.flatMap(phaseHeader),
    ...(withRss ? labels.map((l) => `${l} RSS MB at its end`) : []),
    'lost / dup',
    ...provenanceHeader,
  ];
  const rows = files.map((file) => {
    const r = file.result;
    const phases = labels.map((l) => r[l]).filter((p): p is PositionPhase => Boolean(p));
    const lost = phases.reduce((n, p) => n + p.lost, 0);
    const duplicated = phases.reduce((n, p) => n + p.duplicated, 0);
    return [
      `\`${basename(file.path)}\``,
      shapeOf(r),
      r.kafka_client ?? '-',
      r.bench_producer ? `${r.bench_producer} / ${r.bench_reader}` : 'raw / kafkajs', // the only ones before --bench-producer and --bench-reader
      ...labels.flatMap((l) => phaseCells(r[l])),
      ...(withRss ? labels.map((l) => rssCell(r[l]?.rss_mb)) : []),
      `${lost} / ${duplicated}`,
      ...provenanceCells(file),
    ];
  });
  return table(header, rows);
}

/** What a variant row varies: the knob's value, else the handler's client; the bench's clients when they vary. */
function variantLabel(v: PositionVariant, knob: boolean, benchVaries: boolean): string {
  const label = knob && v.knob ? v.knob.value : v.kafka_client;
  return `\`${label}\`${benchVaries ? `, bench producer ${v.bench_producer}, reader ${v.bench_reader}` : ''}`;
}

/**
 * bench:position `--handler-client A,B` / `--knob NAME=V1,V2` / `--bench-client` runs, one block per result
 * file: one row per variant (same messages, one invocation), with the Kafka-only floor when measured.
 */
function renderPositionVariants(files: readonly LoadedResult[]): string {
  return files
    .map((file) => {
      const r = file.result;
      const variants = r.variants ?? [];
      const knob = variants[0]?.knob?.name;
      const sameClient = variants.every((v) => v.kafka_client === variants[0]?.kafka_client);
      const benchVaries = new Set(variants.map((v) => `${v.bench_producer}/${v.bench_reader}`)).size > 1;
      const what = knob ?? (benchVaries && sameClient ? "the bench's Kafka clients" : 'KAFKA_CLIENT');
      const labels = phasesOf(variants);
      const withFloor = variants.some((v) => v.floor);
      const header = [
        'value',
        ...labels.flatMap(phaseHeader),
        ...(withFloor ? labels.flatMap((l) => [`${l} floor msgs/s`, `${l} handler/floor`]) : []),
      ];
      const rows = variants.map((v) => [
        variantLabel(v, knob !== undefined, benchVaries),
        ...labels.flatMap((l) => phaseCells(v[l])),
        ...(withFloor
          ? labels.flatMap((l) => {
              const h = v[l];
              const f = v.floor?.[l];
              return [integer(f?.msgs_per_s), h && f ? (h.msgs_per_s / f.msgs_per_s).toFixed(2) : '-'];
            })
          : []),
      ]);
      const run = r.run;
      return [
        `**${what}** (\`${basename(file.path)}\`: ${shapeOf(r)}${sameClient && knob ? `, ${variants[0]?.kafka_client}` : ''}; commit ${commitCell(run)}, date ${dateCell(run)}, load ${loadCell(run)}; \`${commandOf(file)}\`):`,
        '',
        table(header, rows),
      ].join('\n');
    })
    .join('\n\n');
}

/** bench:als runs, one row per result file: lookups/s, end-to-end latency, failures and CPU per process. */
function renderAls(files: readonly LoadedResult[]): string {
  const processes = [...new Set(files.flatMap((f) => Object.keys(f.result.cpu_cores ?? {})))].sort();
  const rssOf = [...new Set(files.flatMap((f) => Object.keys(f.result.rss_mb ?? {})))].sort();
  const header = [
    'result file',
    'scenario',
    'VUs',
    'lookups/s',
    'e2e p50 ms',
    'e2e p95 ms',
    'e2e p99 ms',
    'failed',
    ...processes.map((p) => `cpu ${p} (cores)`),
    ...rssOf.map((p) => `RSS ${p} MB`),
    ...provenanceHeader,
  ];
  const rows = files.map((file) => {
    const r = file.result;
    return [
      `\`${basename(file.path)}\``,
      r.scenario ?? '-',
      r.vus === undefined ? '-' : String(r.vus),
      integer(r.lookups_per_s),
      ms(r.e2e_ms?.p50),
      ms(r.e2e_ms?.p95),
      ms(r.e2e_ms?.p99),
      r.failed === undefined ? '-' : String(r.failed),
      ...processes.map((p) => {
        const cores = r.cpu_cores?.[p];
        return cores === undefined ? '-' : cores.toFixed(2);
      }),
      ...rssOf.map((p) => integer(r.rss_mb?.[p])),
      ...provenanceCells(file),
    ];
  });
  return table(header, rows);
}

/** A container image as `infra/images sizes` measured it (packages/deploy-check image-engine-size-cli). */
interface ImageRow {
  readonly image: string;
  readonly megabytes: number;
  readonly app_layer_megabytes: number;
  readonly over_base_megabytes: number;
  readonly build_seconds?: {
    readonly cold: number | null;
    readonly warm: number | null;
    readonly unchanged?: number | null;
  };
}

/** infra/images sizes: one row per image, its total, application layer, what it adds to the base, build times. */
function renderImages(files: readonly LoadedResult[]): string {
  const header = [
    'image',
    'engine',
    'base',
    'total MB',
    'application layer MB',
    'over base MB',
    'cold build s',
    'warm build s (sources changed)',
    'unchanged build s',
    ...provenanceHeader,
  ];
  const rows = files.flatMap((file) => {
    const r = file.result as ResultFile & {
      engine?: string;
      base?: { image: string; megabytes: number };
      images?: readonly ImageRow[];
    };
    const seconds = (n: number | null | undefined) => (n === null || n === undefined ? '-' : String(n));
    return (r.images ?? []).map((image) => [
      `\`${image.image}\``,
      r.engine ?? '-',
      r.base ? `\`${r.base.image}\` (${r.base.megabytes} MB)` : '-',
      String(image.megabytes),
      String(image.app_layer_megabytes),
      String(image.over_base_megabytes),
      seconds(image.build_seconds?.cold),
      seconds(image.build_seconds?.warm),
      seconds(image.build_seconds?.unchanged),
      ...provenanceCells(file),
    ]);
  });
  return table(header, rows);
}

const caption = (file: LoadedResult, what: string) => {
  const run = file.result.run;
  return `**${what}** (\`${basename(file.path)}\`; commit ${commitCell(run)}, date ${dateCell(run)}, load ${loadCell(run)}; \`${commandOf(file)}\`):`;
};
const times = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? '-' : `${(a / b).toFixed(1)}×`;

/**
 * bench:position --original: per round each handler's prepares/s, commits/s, p99 and the position process's CPU
 * per message, then ours/original (for p99 and CPU: original/ours, so above 1 is ours better everywhere).
 */
function renderPositionOriginal(files: readonly LoadedResult[]): string {
  const header = ['round', 'position handler'];
  for (const l of ['prepare', 'commit'] as const) header.push(`${l}s/s`, `${l} p99 ms`, `${l} CPU µs/msg`);
  return files
    .map((file) => {
      const rows: string[][] = [];
      for (const round of file.result.rounds ?? []) {
        const r = { round: round.round, original: round.original ?? {}, ours: round.ours ?? {} };
        for (const [label, phases, proc] of [
          ["central-ledger's", r.original, 'original'],
          ['ours', r.ours, 'handler'],
        ] as const) {
          rows.push([
            String(r.round),
            label,
            ...(['prepare', 'commit'] as const).flatMap((l) => [
              integer(phases[l]?.msgs_per_s),
              ms(phases[l]?.latency_ms.p99),
              integer(phases[l]?.cpu_us_per_msg[proc]),
            ]),
          ]);
        }
        rows.push([
          String(r.round),
          'how many times better ours is (msgs/s ours / original; p99 and CPU original / ours)',
          ...(['prepare', 'commit'] as const).flatMap((l) => [
            times(r.ours[l]?.msgs_per_s, r.original[l]?.msgs_per_s),
            times(r.original[l]?.latency_ms.p99, r.ours[l]?.latency_ms.p99),
            times(r.original[l]?.cpu_us_per_msg.original, r.ours[l]?.cpu_us_per_msg.handler),
          ]),
        ]);
      }
      return [
        caption(file, "central-ledger's batch position handler and ours on the same dump"),
        '',
        table(header, rows),
      ].join('\n');
    })
    .join('\n\n');
}

/**
 * bench:position --baseline: per round the baseline build's handler and this build's, msgs/s, p99, the handler's
 * and MariaDB's CPU per message of each phase, and this build over the baseline.
 */
function renderPositionBaseline(files: readonly LoadedResult[]): string {
  const header = ['round', 'handler'];
  for (const l of ['prepare', 'commit'] as const)
    header.push(`${l} msgs/s`, `${l} p99 ms`, `${l} handler µs/msg`, `${l} MariaDB µs/msg`);
  const cells = (p: PositionPhase | null | undefined) => [
    integer(p?.msgs_per_s),
    ms(p?.latency_ms.p99),
    integer(p?.cpu_us_per_msg.handler),
    integer(p?.cpu_us_per_msg.mariadb),
  ];
  const ratio = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined || b === 0 ? '-' : (a / b).toFixed(2);
  return files
    .map((file) => {
      const rows: string[][] = [];
      for (const r of file.result.rounds ?? []) {
        const [baseline, current] = [r.baseline ?? {}, r.current ?? {}];
        rows.push([
          String(r.round),
          'baseline',
          ...(['prepare', 'commit'] as const).flatMap((l) => cells(baseline[l])),
        ]);
        rows.push([
          String(r.round),
          'this build',
          ...(['prepare', 'commit'] as const).flatMap((l) => cells(current[l])),
        ]);
        rows.push([
          String(r.round),
          'this build / baseline',
          ...(['prepare', 'commit'] as const).flatMap((l) => {
            const [b, c] = [baseline[l], current[l]];
            return [
              ratio(c?.msgs_per_s, b?.msgs_per_s),
              ratio(c?.latency_ms.p99, b?.latency_ms.p99),
              ratio(c?.cpu_us_per_msg.handler, b?.cpu_us_per_msg.handler),
              ratio(c?.cpu_us_per_msg.mariadb, b?.cpu_us_per_msg.mariadb),
            ];
          }),
        ]);
      }
      return [
        caption(
          file,
          `this build's position handler and a baseline build's (${file.result.baseline_dir ?? '?'}) on the same dump`,
        ),
        '',
        table(header, rows),
      ].join('\n');
    })
    .join('\n\n');
}

/** bench:position --switch: per run transfers/s committed, prepare and commit → notification, CPU per transfer. */
function renderPositionSwitch(files: readonly LoadedResult[]): string {
  const header = [
    'round',
    'position handler',
    'transfers',
    'transfers/s committed',
    'prepare → notification p50 / p99 ms',
    'commit → notification p50 / p99 ms',
    'position CPU µs/transfer',
    "central-ledger's handlers CPU µs/transfer",
  ];
  return files
    .map((file) => {
      const rows = (file.result.runs ?? []).map((r) => [
        String(r.round),
        r.handler === 'ours' ? 'ours' : "central-ledger's",
        String(r.transfers),
        integer(r.committedPerSecond),
        `${integer(r.prepareToNotification.med)} / ${integer(r.prepareToNotification.p99)}`,
        `${integer(r.commitToNotification.med)} / ${integer(r.commitToNotification.p99)}`,
        integer(r.cpuMicrosPerTransfer.position),
        integer(r.cpuMicrosPerTransfer['central-ledger-handlers']),
      ]);
      return [
        caption(file, "end to end through central-ledger's prepare and fulfil handlers"),
        '',
        table(header, rows),
      ].join('\n');
    })
    .join('\n\n');
}

/** packages/als-parity/exceptions.json: the ALS's differences from the original and the parity cases showing each. */
interface DifferencesFile {
  readonly rows: readonly {
    readonly id: string;
    readonly case: string;
    readonly original: string;
    readonly ours: string;
    readonly why: string;
    readonly pending?: boolean;
  }[];
  readonly exceptions: readonly { readonly cases: readonly string[]; readonly row: string }[];
}

/**
 * The ALS's "Differences from the original" (packages/als/docs/differences.md): the kept rows (each with the parity cases that show it, or
 * none where the corpus cannot), then the rows still pending, only while a case still shows them.
 */
function renderAlsDifferences(files: readonly LoadedResult[]): string {
  const list = (files[0]?.result ?? { rows: [], exceptions: [] }) as unknown as DifferencesFile;
  const casesOf = (row: string) =>
    [...new Set(list.exceptions.filter((e) => e.row === row).flatMap((e) => e.cases))].sort();
  const casesCell = (ids: readonly string[]) => {
    if (ids.length === 0) return 'not in the corpus';
    const shown = ids.slice(0, 3).map((id) => `\`${id}\``);
    return ids.length > 3 ? `${shown.join(', ')} and ${ids.length - 3} more` : shown.join(', ');
  };
  const kept = list.rows.filter((r) => !r.pending);
  const pending = list.rows.filter((r) => r.pending && casesOf(r.id).length > 0);
  let out = table(
    ['case', 'original (v17.16.1)', 'ours', 'why', 'parity cases'],
    kept.map((r) => [r.case, r.original, r.ours, r.why, casesCell(casesOf(r.id))]),
  );
  if (pending.length > 0) {
    out += `\n\nNot yet closed: still different from the original and to be made equal (the parity test lists them as pending):\n\n${table(
      ['case', 'original (v17.16.1)', 'ours', 'parity cases'],
      pending.map((r) => [r.case, r.original, r.ours, casesCell(casesOf(r.id))]),
    )}`;
  }
  return out;
}

function alsSidesTable(summaries: readonly AlsSideSummary[]): string {
  return table(
    ['side', 'lookups/s', 'p99 ms', 'ALS cores', 'ALS CPU µs/lookup', 'ALS RSS MB (largest)', 'failed'],
    summaries.map((s) => [
      s.side,
      integer(s.lookupsPerSecond),
      ms(s.p99Ms),
      s.alsCores.toFixed(2),
      integer(s.alsMicrosPerLookup),
      integer(s.alsRssMb),
      String(s.failed),
    ]),
  );
}

/**
 * bench:als --original (per configuration: each side's mean over its rounds and ours/original) and --floor (the
 * ALS and the relay, and the CPU ratio): the rounds themselves are in the result file.
 */
function renderAlsVersus(files: readonly LoadedResult[]): string {
  return files
    .map((file) => {
      const r = file.result;
      if (r.comparison === 'floor') {
        return [
          caption(file, 'the ALS beside a relay with no logic doing the same exchanges'),
          '',
          alsSidesTable(r.summaries ?? []),
          '',
          `ALS CPU per lookup / relay's: ${r.cpu_per_lookup_ratio?.toFixed(2) ?? '-'} (goal ≤ 1.3)`,
        ].join('\n');
      }
      return [
        caption(file, 'account-lookup-service v17.16.1 and ours, the same configuration file'),
        ...(r.results ?? []).flatMap((c) => [
          '',
          `${c.config}: ${c.description}`,
          '',
          alsSidesTable(c.summaries),
          '',
          `ours: ${c.throughput_ratio.toFixed(1)}× the lookups/s, ${c.cpu_per_lookup_ratio.toFixed(1)}× less CPU per lookup (goal ≥ 30×)`,
          ...(c.relay_cpu_per_lookup_ratio === undefined
            ? []
            : [
                '',
                `relay floor: ${c.relay_cpu_per_lookup_ratio.toFixed(1)}× less CPU per lookup than the original (the most an ALS on this HTTP stack could reach; it reads no registry)`,
              ]),
        ]),
      ].join('\n');
    })
    .join('\n\n');
}

/**
 * bench:position --floor: per phase the Kafka-only passthrough, the database floors (no reads; the fewest reads
 * the schema forces) and the handler: msgs/s, the
 * consuming process's and MariaDB's CPU per message, statements and rows read per message, RSS at the phase's end,
 * and the handler against each floor.
 */
function renderPositionFloors(files: readonly LoadedResult[]): string {
  const header = [
    'phase',
    'run',
    'msgs/s',
    'p99 ms',
    'process µs/msg',
    'MariaDB µs/msg',
    'SQL/msg',
    'rows read/msg',
    'RSS MB at its end',
    'handler / this (msgs/s)',
    'handler / this (MariaDB µs/msg)',
  ];
  return files
    .map((file) => {
      const r = file.result;
      const rows: string[][] = [];
      for (const label of phasesOf([r])) {
        const handler = r[label];
        if (!handler) continue;
        for (const [name, phases, proc] of [
          ['Kafka floor (passthrough)', r.floor, 'passthrough'],
          ['database floor, no reads', r.db_floor, 'db-floor'],
          ['database floor, fewest reads', r.db_reads_floor, 'db-reads-floor'],
          ['handler', r, 'handler'],
        ] as const) {
          const phase = phases?.[label];
          if (!phase) continue;
          const status = phase.mysql_status_per_msg;
          rows.push([
            label,
            name,
            integer(phase.msgs_per_s),
            ms(phase.latency_ms.p99),
            integer(cpuOf(phase, proc)),
            integer(phase.cpu_us_per_msg.mariadb),
            phase.sql_per_msg === undefined ? '-' : phase.sql_per_msg.toFixed(3),
            status ? ((status.Handler_read_key ?? 0) + (status.Handler_read_next ?? 0)).toFixed(2) : '-',
            rssCell(phase.rss_mb),
            name === 'handler' ? '' : `${(handler.msgs_per_s / phase.msgs_per_s).toFixed(2)}`,
            name === 'handler' ? '' : times(handler.cpu_us_per_msg.mariadb, phase.cpu_us_per_msg.mariadb),
          ]);
        }
      }
      return [
        caption(file, 'the handler against its floors (goals: ≥ 0.85 of the database floor, MariaDB ≤ 1.2×)'),
        '',
        table(header, rows),
      ].join('\n');
    })
    .join('\n\n');
}

/** bench:micro: a case's sides as its result file gives them (src/micro/harness.ts CaseResult). */
interface MicroCaseResult {
  readonly name: string;
  readonly operation: string;
  readonly load: string;
  readonly unit: string;
  readonly operations_per_sample: number;
  readonly sides: readonly {
    readonly label: string;
    readonly role: string;
    readonly median: number;
    readonly min: number;
    readonly max: number;
    readonly vs_ours: number;
  }[];
}

/**
 * bench:micro: one row per side of each case, ours first: the median cost per operation with the spread of the
 * samples, and the side against ours (above 1: ours is cheaper). A library within 10 % of ours replaces it.
 */
function renderMicro(files: readonly LoadedResult[]): string {
  return files
    .map((file) => {
      const r = file.result as ResultFile & { cases?: readonly MicroCaseResult[]; samples?: number; seed?: number };
      const rows = (r.cases ?? []).flatMap((c) =>
        c.sides.map((side, i) => [
          i === 0 ? `**${c.name}**: ${c.operation}; ${c.load}; ${c.operations_per_sample} operations a sample` : '',
          side.label,
          side.role,
          `${side.median} ${c.unit}`,
          `${side.min} … ${side.max}`,
          side.role === 'ours' ? '1' : `${side.vs_ours.toFixed(2)}×`,
        ]),
      );
      return [
        caption(file, `each hand-written piece beside its alternatives, ${r.samples} samples a side, seed ${r.seed}`),
        '',
        table(['case', 'side', 'role', 'median', 'samples min … max', 'against ours'], rows),
      ].join('\n');
    })
    .join('\n\n');
}

/** bench:switch: its three tables (switch/tables.ts) under each result file's caption. */
function renderSwitch(files: readonly LoadedResult[]): string {
  return files
    .map((file) => {
      const result = file.result as unknown as SwitchBenchResult;
      const stacks = result.summary.stacks.map((s) => s.stack);
      const which = stacks.length === 1 ? `${stacks[0]} alone` : 'the originals and ours';
      return [
        caption(file, `bench:switch: lookup then transfer through the whole switch, ${which}`),
        '',
        switchTables(result, table),
      ].join('\n');
    })
    .join('\n\n');
}

/** The kinds that render measurements: only pages under a `measured/` folder hold them. */
export const MEASUREMENT_KINDS: ReadonlySet<string> = new Set([
  'images',
  'als',
  'position',
  'position-variants',
  'position-original',
  'position-baseline',
  'position-switch',
  'als-versus',
  'position-floors',
  'micro',
  'switch',
]);

export const renderers: Record<string, (files: readonly LoadedResult[]) => string> = {
  images: renderImages,
  als: renderAls,
  'position-original': renderPositionOriginal,
  'position-baseline': renderPositionBaseline,
  'position-switch': renderPositionSwitch,
  'als-differences': renderAlsDifferences,
  'als-versus': renderAlsVersus,
  'position-floors': renderPositionFloors,
  position: renderPosition,
  'position-variants': renderPositionVariants,
  micro: renderMicro,
  switch: renderSwitch,
};

const REGION = /<!-- figures:([a-z-]+)((?:[ \t]+[^\s]+?)*)[ \t]*-->\n([\s\S]*?)<!-- \/figures -->/g;

export interface Region {
  readonly kind: string;
  readonly paths: readonly string[];
  readonly current: string;
  readonly rendered: string;
}

/** Every marked region of `text`, with what it holds and what the program renders for it. */
export function regionsOf(text: string, root: string): Region[] {
  return [...text.matchAll(REGION)].map((match) => {
    const [, kind = '', list = '', current = ''] = match;
    const render = renderers[kind];
    if (!render) throw new Error(`figures:${kind} is no kind of figures (one of ${Object.keys(renderers).join(', ')})`);
    const paths = list.trim().split(/\s+/).filter(Boolean);
    if (paths.length === 0) throw new Error(`figures:${kind} names no result file`);
    return { kind, paths, current, rendered: `${render(loadResults(root, paths))}\n` };
  });
}

/** `text` with every marked region replaced by what the program renders for it. */
export function renderRegions(text: string, root: string): string {
  const regions = regionsOf(text, root);
  let i = 0;
  return text.replace(REGION, (whole: string) => {
    const region = regions[i++] as Region;
    const opening = whole.slice(0, whole.indexOf('-->\n') + 4);
    return `${opening}${region.rendered}<!-- /figures -->`;
  });
}
