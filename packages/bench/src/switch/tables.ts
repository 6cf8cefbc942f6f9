import type { StackSummary, SwitchBenchRun, SwitchBenchSummary } from './results.js';

/**
 * bench:switch's tables, from a result file's runs and summary: latencies and the validity gate per run, CPU
 * per transfer by process, and cores per 1,000 transfers/s of ALS and position handler, originals against
 * ours. The markdown table writer is the caller's (the figures report's), so the command and the measured/
 * page print the same table.
 */
export type TableWriter = (header: readonly string[], rows: readonly (readonly string[])[]) => string;

export interface SwitchBenchResult {
  readonly runs: readonly SwitchBenchRun[];
  readonly summary: SwitchBenchSummary;
}

const stackLabel: Record<SwitchBenchRun['stack'], string> = {
  originals: 'originals (ALS v17.16.1, central-ledger 19.14.0 position)',
  ours: 'ours (mojafast ALS and position handler)',
};

const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const percentiles = (l: SwitchBenchRun['e2e']) => `${ms(l.med)} / ${ms(l.p90)} / ${ms(l.p95)} / ${ms(l.p99)}`;

/** Processes in the order the CPU table shows them, with their column names. */
const processes: readonly (readonly [string, string])[] = [
  ['als', 'ALS'],
  ['als_admin', 'ALS admin'],
  ['position', 'position handler'],
  ['central-ledger-handlers', 'central-ledger handlers'],
  ['central-ledger-api', 'central-ledger API'],
  ['ml-api-adapter', 'ml-api-adapter'],
  ['fsps', 'payee FSP + oracle'],
  ['bench', 'generator + payer FSP'],
  ['kafka', 'Kafka'],
  ['mariadb', 'MariaDB'],
];

export function latencyTable(runs: readonly SwitchBenchRun[], table: TableWriter): string {
  const header = [
    'round',
    'stack',
    'offered/s',
    'completed/s',
    'completed (failed, dropped)',
    'discovery p50 / p90 / p95 / p99 ms',
    'transfer p50 / p90 / p95 / p99 ms',
    'end to end p50 / p90 / p95 / p99 ms',
    'fulfil / prepare',
    'notification / prepare',
    'valid (gate held, none failed or dropped)',
  ];
  const rows = runs.map((r) => [
    String(r.round),
    r.stack,
    String(r.offeredPerSecond),
    r.completedPerSecond.toFixed(1),
    `${r.completed} (${r.failed}, ${r.dropped})`,
    percentiles(r.discovery),
    percentiles(r.transfer),
    percentiles(r.e2e),
    r.gate.fulfilPerPrepare.toFixed(2),
    r.gate.notificationPerPrepare.toFixed(2),
    r.gate.valid && r.failed === 0 && r.dropped === 0 ? 'yes' : 'NO',
  ]);
  return table(header, rows);
}

const sum = (xs: Record<string, number>) => Object.values(xs).reduce((a, b) => a + b, 0);
const cpuCell = (total: number | undefined, marginal: number | undefined) =>
  total === undefined ? '-' : marginal === undefined ? String(total) : `${total} (${marginal})`;

export function cpuTable(runs: readonly SwitchBenchRun[], table: TableWriter): string {
  const shown = processes.filter(([name]) => runs.some((r) => r.cpuMicrosPerTransfer[name] !== undefined));
  const header = ['round', 'stack', ...shown.map(([, label]) => label), 'all'];
  const rows = runs.map((r) => [
    String(r.round),
    r.stack,
    ...shown.map(([name]) => cpuCell(r.cpuMicrosPerTransfer[name], r.marginalMicrosPerTransfer[name])),
    cpuCell(sum(r.cpuMicrosPerTransfer), sum(r.marginalMicrosPerTransfer)),
  ]);
  return table(header, rows);
}

export function coresTable(summary: SwitchBenchSummary, table: TableWriter): string {
  const header = [
    'stack',
    'runs',
    'completed/s',
    'end to end p95 ms',
    'ALS cores per 1,000 transfers/s',
    'ALS, above idle',
    'position handler cores per 1,000 transfers/s',
    'position handler, above idle',
  ];
  const row = (s: StackSummary) => [
    stackLabel[s.stack],
    String(s.runs),
    s.completedPerSecond.toFixed(1),
    ms(s.e2eP95),
    s.coresPer1000.als.toFixed(3),
    s.marginalCoresPer1000.als.toFixed(3),
    s.coresPer1000.position.toFixed(3),
    s.marginalCoresPer1000.position.toFixed(3),
  ];
  const times = (x: number | undefined) => (x === undefined ? '' : `${x.toFixed(1)}×`);
  const ratios =
    summary.alsCoresRatio === undefined
      ? []
      : [
          [
            'originals / ours (how many times fewer cores ours needs)',
            '',
            '',
            '',
            times(summary.alsCoresRatio),
            times(summary.alsMarginalCoresRatio),
            times(summary.positionCoresRatio),
            times(summary.positionMarginalCoresRatio),
          ],
        ];
  return table(header, [...summary.stacks.map(row), ...ratios]);
}

export function switchTables(result: SwitchBenchResult, table: TableWriter): string {
  return [
    'Latency (k6 percentiles) and the validity gate, per run:',
    '',
    latencyTable(result.runs, table),
    '',
    'CPU µs per completed transfer, by process (in brackets: above its idle use, measured with no load before the run):',
    '',
    cpuTable(result.runs, table),
    '',
    'Cores per 1,000 transfers/s (CPU µs per transfer / 1,000), mean of the runs; "above idle" leaves out what the process uses with no load, which a high rate spreads thin:',
    '',
    coresTable(result.summary, table),
  ].join('\n');
}
