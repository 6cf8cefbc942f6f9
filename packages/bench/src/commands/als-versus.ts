import { loadavg } from 'node:os';
import { describeConfig, type OriginalConfig, originalAls, originalConfigs, oursDropIn } from '../als/original.js';
import type { Scenario } from '../als/scenario.js';
import { alternate, relayFloor, runsTable, type SideRun, type SideSummary, summarise } from '../als/versus.js';
import { writeJson } from '../report/json.js';
import { markdownTable } from '../report/table.js';
import { progress } from './outcome.js';

const loadLine = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;

function summaryTable(summaries: readonly SideSummary[]): string {
  return markdownTable(
    ['side', 'lookups/s', 'p99 ms', 'ALS cores', 'ALS µs/lookup', 'ALS RSS MB (largest)', 'failed'],
    summaries.map((s) => [
      s.side,
      s.lookupsPerSecond.toFixed(0),
      s.p99Ms.toFixed(1),
      s.alsCores.toFixed(2),
      s.alsMicrosPerLookup.toFixed(0),
      s.alsRssMb.toFixed(0),
      String(s.failed),
    ]),
    { align: ['left', 'right', 'right', 'right', 'right', 'right', 'right'] },
  );
}

const bySide = (summaries: readonly SideSummary[], side: string) =>
  summaries.find((s) => s.side === side) as SideSummary;

/**
 * The relay floor's side, in --floor and in --original, where it runs beside the two ALSs: what the five
 * exchanges of a lookup cost on this HTTP stack with no logic bounds the ratio any ALS built on it can reach
 * against the original, measured on the same machine state.
 */
const relaySide = 'relay floor';

/**
 * `bench:als --original`: account-lookup-service v17.16.1 and ours (drop-in: the same configuration file and
 * variables) at each configuration, rounds alternating, with the relay floor beside them. Goal: ours at least
 * 30 times less CPU per lookup.
 */
export async function runOriginalComparison(
  base: Scenario,
  configs: readonly OriginalConfig[],
  rounds: number,
  out: string | undefined,
): Promise<void> {
  if (base.ids.kind !== 'new')
    throw new Error(
      '--original needs --ids new: the original does not carry the trace id on, callbacks are told apart by party id',
    );
  // The original starts a trace of its own on the PUT it forwards: callbacks are matched by party id.
  const scenario: Scenario = { ...base, stack: { ...base.stack, keyBy: 'party' } };
  const results = [];
  const start = loadLine();
  for (const config of configs) {
    progress(`bench:als --original, ${describeConfig(config)}`);
    const runs = await alternate(
      [
        { name: 'original 17.16.1', als: originalAls(config) },
        { name: 'ours', als: oursDropIn(config) },
        { name: relaySide, als: relayFloor },
      ],
      scenario,
      rounds,
      progress,
    );
    const summaries = summarise(runs);
    const original = bySide(summaries, 'original 17.16.1');
    const ours = bySide(summaries, 'ours');
    const relay = bySide(summaries, relaySide);
    results.push({
      config,
      description: describeConfig(config),
      runs,
      summaries,
      throughput_ratio: ours.lookupsPerSecond / original.lookupsPerSecond,
      cpu_per_lookup_ratio: original.alsMicrosPerLookup / ours.alsMicrosPerLookup,
      relay_cpu_per_lookup_ratio: original.alsMicrosPerLookup / relay.alsMicrosPerLookup,
      rss_ratio: original.alsRssMb / ours.alsRssMb,
    });
  }
  const text = [
    `bench:als --original: ${base.name}, ids ${base.ids.kind}, ${base.durationSeconds}s per run, ${rounds} rounds alternating; ${start} at the start, ${loadLine()} at the end`,
    ...results.flatMap((r) => [
      '',
      `## ${r.config}: ${r.description}`,
      '',
      runsTable(r.runs as SideRun[]),
      '',
      summaryTable(r.summaries),
      '',
      `ours / original: ${r.throughput_ratio.toFixed(1)}x the lookups/s, ${r.cpu_per_lookup_ratio.toFixed(1)}x less CPU per lookup (goal >= 30: ${r.cpu_per_lookup_ratio >= 30 ? 'met' : 'not met'}), ${r.rss_ratio.toFixed(1)}x less RSS`,
      `relay floor / original: ${r.relay_cpu_per_lookup_ratio.toFixed(1)}x less CPU per lookup (the most an ALS on this HTTP stack could reach; it reads no registry)`,
    ]),
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  if (out) {
    await writeJson(out, { comparison: 'original', scenario: base.name, ids: base.ids, rounds, results, text });
    process.stdout.write(`results written to ${out}\n`);
  }
}

/**
 * `bench:als --floor`: ours at its defaults beside a relay doing the same exchanges with no logic on the same
 * HTTP stack (relay.ts), rounds alternating. Goal: ALS CPU per lookup within 1.3 times the relay's.
 */
export async function runFloorComparison(base: Scenario, rounds: number, out: string | undefined): Promise<void> {
  const start = loadLine();
  const runs = await alternate([{ name: 'ALS' }, { name: relaySide, als: relayFloor }], base, rounds, progress);
  const summaries = summarise(runs);
  const als = bySide(summaries, 'ALS');
  const relay = bySide(summaries, relaySide);
  const ratio = als.alsMicrosPerLookup / relay.alsMicrosPerLookup;
  const text = [
    `bench:als --floor: ${base.name}, ids ${base.ids.kind}, ${base.durationSeconds}s per run, ${rounds} rounds alternating; ${start} at the start, ${loadLine()} at the end`,
    '',
    runsTable(runs),
    '',
    summaryTable(summaries),
    '',
    `ALS CPU per lookup / relay's: ${ratio.toFixed(2)} (goal <= 1.3: ${ratio <= 1.3 ? 'met' : 'not met'}); lookups/s ALS / relay ${(als.lookupsPerSecond / relay.lookupsPerSecond).toFixed(2)}`,
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  if (out) {
    await writeJson(out, {
      comparison: 'floor',
      scenario: base.name,
      ids: base.ids,
      rounds,
      runs,
      summaries,
      cpu_per_lookup_ratio: ratio,
      text,
    });
    process.stdout.write(`results written to ${out}\n`);
  }
}

export function parseOriginalConfigs(text: string): OriginalConfig[] {
  if (text === 'both') return [...originalConfigs];
  if ((originalConfigs as readonly string[]).includes(text)) return [text as OriginalConfig];
  throw new Error(`--original-config must be default, chart or both, got "${text}"`);
}
