import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ParseArgsOptionDescriptor, parseArgs } from 'node:util';
import { apiTypeTable, compareApiTypes } from '../als/api-types.js';
import { baselineTable, compareWithBaseline, parseBaselineEnv, scenarioArgs } from '../als/baseline.js';
import type { LoadModel } from '../als/driver.js';
import { faultNames, faultTable, runFaultBench } from '../als/faults.js';
import { matrixMarkdown, matrixRow, matrixSvg } from '../als/matrix.js';
import { oursDropIn } from '../als/original.js';
import { parsePartyIdMode } from '../als/party-ids.js';
import { alsResultJson, generatorWarning } from '../als/results.js';
import { runScenario, type Scenario } from '../als/scenario.js';
import { alsCacheSettings } from '../als/stack.js';
import { compareTls, tlsTable } from '../als/tls.js';
import { assertLoopback } from '../load/loopback.js';
import { writeJson } from '../report/json.js';
import { parseOriginalConfigs, runFloorComparison, runOriginalComparison } from './als-versus.js';
import { positiveInteger } from './http.js';
import { finish, progress } from './outcome.js';

export const alsUsage = `mojafast-bench als [options]
  End to end: GET /parties to ALS, done when the PUT /parties callback reaches the payer simulator.
  Starts the simulators and the ALS as processes of their own; the payer FSP lives in the generator.
  --vus N              closed model: virtual users (default 16)
  --think MS           closed model: pause after each lookup (default 0)
  --rate R             open model: lookups started per second (k6 constant-arrival-rate)
  --max-vus N          open model: lookups in flight at most; beyond, iterations are dropped (default 200)
  --duration S         measured seconds (default 30)      --iterations N  stop after N measured lookups
  --warmup S           seconds before measuring (default 5)
  --timeout MS         per lookup, GET to callback (default 5000)
  --ids MODE           new (every lookup misses the oracle cache), hot (default), mix:F (share F hot)
  --hot-set N          ids in the hot set (default 1000)
  --fsps N             payee FSPs (default 10)
  --fspiop 1.1|2.0     API version of the requests (default 1.1)
  --api-type T         fspiop (default), iso20022 (the ALS with ALS_API_TYPE=iso20022, ISO 20022 media types and
                       bodies from the generator and the payee simulator), or both: the scenario in each mode,
                       --rounds times alternating, with lookups/s, ALS CPU per lookup and the ISO/FSPIOP ratio
  --processes N        ALS processes (default 1)
  --no-cache           ALS caches off               --no-keep-alive   ALS upstream keep-alive off
  --sims-only          no ALS: the generator talks to the payee simulator (this machine's ceiling)
  --target URL         an ALS already running (configure it with the simulator URLs printed)
  --sim-port-base P    fixed simulator ports: admin P, oracle P+1, payee P+2
  --sim-arg ARG        passed to the simulators (repeatable), e.g. --sim-arg=--payee-latency=20
  --scenario overload  one ALS: a no-fault phase, then the faults' overload phase --rounds times on the same ALS
                       (--overload-vus, --phase-duration each), with its RSS largest and at each round's end
  --scenario faults    one ALS, --healthy-vus healthy VUs and, phase by phase, --fault-rate lookups/s into
                       one fault (payee silent, payee on a closed port, payee 500, oracle down, central-ledger
                       down with cold caches), each between two no-fault phases (the same rate into a healthy
                       payee) that are its baseline,
                       then --overload-vus VUs honouring Retry-After; counts every lookup's callbacks by trace
                       id (lost = 0 and duplicated = 0 are thresholds: exit 99)
  --healthy-vus N      faults: healthy virtual users (default 16)    --fault-rate R  (default 50)
  --phase-duration S   faults: seconds per phase (default 10)        --overload-vus N  (default 2000)
  --matrix             the Mojaloop scenario table: sims only; ALS at 1, 2, 4 processes x VUs 1/4/16/64
                       x cache on/off x keep-alive on/off; markdown + SVG in --report-dir
  --matrix-duration S  measured seconds per matrix scenario (default 8)
  --report-dir DIR     where --matrix writes (default bench-results)
  --threshold EXPR     k6 syntax, repeatable: 'e2e:p(95)<25', 'checks:rate>0.99', 'lookups:rate>3000'
  --baseline DIR       run the scenario alternately by another build of this repository (DIR: a checkout of
                       another commit, built) and by this one, each with its own bench and ALS defaults,
                       --rounds times (default 2, the order swapped each round); prints each side's lookups/s,
                       ALS CPU per lookup and the ratio
  --tls                what TLS to the database costs: the oracle registry in MariaDB (read per lookup, the
                       ALS's default) on the plain server and on the secure stack's (infra/svc start --tls),
                       --rounds times alternating; prints lookups/s, p99, ALS and MariaDB CPU per lookup
  --baseline-env K=V   set for the baseline's runs only (repeatable), e.g. a cache setting for a like-for-like pair
  --original           account-lookup-service v17.16.1 (built by als-parity/scripts/als-original.sh) and ours in
                       drop-in mode, the same configuration file and variables, --rounds times alternating, at
                       --original-config default (its repository default.json), chart (the chart's rendered
                       default.json, caches on) or both (default), with the relay of --floor beside them (the most
                       an ALS on this HTTP stack could reach); prints lookups/s, p99, ALS CPU per lookup, RSS
  --drop-in CONFIG     ours alone in drop-in mode at --original's configuration CONFIG (default or chart), on a
                       database of its own, as --original runs it (needs --ids new); with --baseline, this bench
                       drives both sides and the baseline's ALS is started from DIR
  --floor              ours and a relay with no logic on the same HTTP stack doing the same exchanges per lookup,
                       --rounds times alternating; prints ALS CPU per lookup / relay CPU per lookup (goal <= 1.3)
  --out FILE           JSON results
  --allow-remote       allow a --target that is not loopback`;

const options = {
  vus: { type: 'string', default: '16' },
  think: { type: 'string', default: '0' },
  rate: { type: 'string' },
  'max-vus': { type: 'string', default: '200' },
  duration: { type: 'string', default: '30' },
  iterations: { type: 'string' },
  warmup: { type: 'string', default: '5' },
  timeout: { type: 'string', default: '5000' },
  ids: { type: 'string', default: 'hot' },
  'hot-set': { type: 'string', default: '1000' },
  fsps: { type: 'string', default: '10' },
  fspiop: { type: 'string', default: '1.1' },
  'api-type': { type: 'string', default: 'fspiop' },
  processes: { type: 'string', default: '1' },
  'no-cache': { type: 'boolean', default: false },
  'no-keep-alive': { type: 'boolean', default: false },
  'sims-only': { type: 'boolean', default: false },
  target: { type: 'string' },
  'sim-port-base': { type: 'string' },
  'sim-arg': { type: 'string', multiple: true, default: [] },
  matrix: { type: 'boolean', default: false },
  scenario: { type: 'string' },
  'healthy-vus': { type: 'string', default: '16' },
  'fault-rate': { type: 'string', default: '50' },
  'phase-duration': { type: 'string', default: '10' },
  'overload-vus': { type: 'string', default: '2000' },
  'matrix-duration': { type: 'string', default: '8' },
  'report-dir': { type: 'string', default: 'bench-results' },
  threshold: { type: 'string', multiple: true, default: [] },
  baseline: { type: 'string' },
  rounds: { type: 'string', default: '2' },
  original: { type: 'boolean', default: false },
  'original-config': { type: 'string', default: 'both' },
  floor: { type: 'boolean', default: false },
  'drop-in': { type: 'string' },
  'baseline-env': { type: 'string', multiple: true, default: [] },
  tls: { type: 'boolean', default: false },
  out: { type: 'string' },
  'allow-remote': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies Record<string, ParseArgsOptionDescriptor>;

type Values = ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];

function nonNegative(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${flag} must be a number >= 0, got "${text}"`);
  return value;
}

function baseScenario(values: Values): Scenario {
  const version = values.fspiop;
  if (version !== '1.1' && version !== '2.0') throw new Error(`--fspiop must be 1.1 or 2.0, got "${version}"`);
  const model: LoadModel =
    values.rate === undefined
      ? { kind: 'closed', vus: positiveInteger('--vus', values.vus), thinkMs: nonNegative('--think', values.think) }
      : {
          kind: 'open',
          rate: positiveInteger('--rate', values.rate),
          maxVus: positiveInteger('--max-vus', values['max-vus']),
        };
  if (values.target) assertLoopback(values.target, values['allow-remote']);
  const stack = {
    fsps: positiveInteger('--fsps', values.fsps),
    processes: positiveInteger('--processes', values.processes),
    cache: !values['no-cache'],
    keepAlive: !values['no-keep-alive'],
    target: values.target,
    simsOnly: values['sims-only'],
    simPortBase:
      values['sim-port-base'] === undefined ? undefined : positiveInteger('--sim-port-base', values['sim-port-base']),
    simArgs: values['sim-arg'],
  };
  const apiType = values['api-type'];
  if (apiType !== 'fspiop' && apiType !== 'iso20022' && apiType !== 'both')
    throw new Error(`--api-type must be fspiop, iso20022 or both, got "${apiType}"`);
  return {
    name: scenarioName(stack, model),
    stack,
    model,
    ids: parsePartyIdMode(values.ids, positiveInteger('--hot-set', values['hot-set'])),
    version,
    ...(apiType === 'iso20022' ? { apiType } : {}),
    warmupSeconds: nonNegative('--warmup', values.warmup),
    durationSeconds: positiveInteger('--duration', values.duration),
    iterations: values.iterations === undefined ? undefined : positiveInteger('--iterations', values.iterations),
    timeoutMs: positiveInteger('--timeout', values.timeout),
  };
}

/** `--drop-in CONFIG`: ours as `--original` runs it at that configuration, callbacks told apart by party. */
function dropInScenario(base: Scenario, config: string | undefined): Scenario {
  if (config === undefined) return base;
  const [only, ...more] = parseOriginalConfigs(config);
  if (!only || more.length > 0) throw new Error(`--drop-in must be default or chart, got "${config}"`);
  if (base.ids.kind !== 'new') throw new Error('--drop-in needs --ids new, as --original');
  if (base.stack.simsOnly || base.stack.target || base.stack.processes !== 1)
    throw new Error('--drop-in runs one ALS process: not with --sims-only, --target, --processes');
  return {
    ...base,
    name: `${base.name}, drop-in ${only}`,
    stack: { ...base.stack, als: oursDropIn(only), keyBy: 'party' },
  };
}

function scenarioName(stack: Scenario['stack'], model: LoadModel): string {
  const load = model.kind === 'closed' ? `${model.vus} VUs` : `${model.rate}/s open`;
  if (stack.simsOnly) return `sims only, ${load}`;
  const where = stack.target ? `target ${stack.target}` : `ALS x${stack.processes}`;
  return `${where}, ${load}, cache ${stack.cache ? 'on' : 'off'}, keep-alive ${stack.keepAlive ? 'on' : 'off'}`;
}

export async function alsCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options });
  if (values.help) {
    process.stdout.write(`${alsUsage}\n`);
    return;
  }
  if (values.scenario !== undefined) {
    if (values.scenario !== 'faults' && values.scenario !== 'overload')
      throw new Error(`--scenario must be faults or overload, got "${values.scenario}"`);
    await runFaults(values);
    return;
  }
  const base = dropInScenario(baseScenario(values), values['drop-in']);
  if (values.baseline !== undefined) {
    await runBaselineComparison(values, base, argv);
    return;
  }
  if (values.original || values.floor) {
    if (values.matrix || base.stack.simsOnly || base.stack.target || base.stack.processes !== 1)
      throw new Error(
        '--original and --floor compare one ALS process: not with --matrix, --sims-only, --target, --processes',
      );
    const rounds = positiveInteger('--rounds', values.rounds);
    if (values.original)
      await runOriginalComparison(base, parseOriginalConfigs(values['original-config']), rounds, values.out);
    else await runFloorComparison(base, rounds, values.out);
    return;
  }
  if (values.tls) {
    await runTlsComparison(values, base);
    return;
  }
  if (values['api-type'] === 'both') {
    await runApiTypeComparison(values, base);
    return;
  }
  if (values.matrix) {
    await runMatrix(base, positiveInteger('--matrix-duration', values['matrix-duration']), values['report-dir']);
    return;
  }
  progress(
    `bench:als ${base.name}, ids ${values.ids}, ${base.apiType === 'iso20022' ? 'ISO 20022' : 'FSPIOP'} ${base.version}: warm-up ${base.warmupSeconds}s, then ${base.iterations === undefined ? `${base.durationSeconds}s` : `${base.iterations} lookups`}`,
  );
  if (!base.stack.simsOnly && !base.stack.target && !base.stack.als) {
    const settings = Object.entries(alsCacheSettings(base.stack.cache)).map(([k, v]) => `${k}=${v}`);
    progress(`ALS cache settings: ${settings.join(' ')}`);
  }
  const result = await runScenario(base, progress);
  const warning = generatorWarning(result);
  const metrics = new Map(result.driver.metrics);
  for (const [name, cores] of Object.entries(result.cpu)) metrics.set(`cpu_${name}`, { type: 'gauge', value: cores });
  for (const [name, mb] of Object.entries(result.rssMb)) metrics.set(`rss_mb_${name}`, { type: 'gauge', value: mb });
  await finish({
    title: `bench:als — ${base.name}, ids ${values.ids}`,
    metrics,
    thresholds: values.threshold,
    defaultMetric: 'e2e',
    out: values.out,
    json: alsResultJson(result),
  });
  if (warning) process.stdout.write(`${warning}\n`);
}

async function runBaselineComparison(values: Values, base: Scenario, argv: string[]): Promise<void> {
  const dir = values.baseline as string;
  if (values.matrix || base.stack.simsOnly || base.stack.target)
    throw new Error('--baseline compares two builds of the ALS: not with --matrix, --sims-only or --target');
  if (values.threshold.length > 0) throw new Error('--threshold applies to one run: not with --baseline');
  const comparison = await compareWithBaseline({
    dir,
    ownCli: fileURLToPath(new URL('../cli.js', import.meta.url)),
    args: scenarioArgs(argv),
    rounds: positiveInteger('--rounds', values.rounds),
    baselineEnv: parseBaselineEnv(values['baseline-env']),
    progress,
  });
  process.stdout.write(`\nbench:als --baseline, ${base.name}\n\n${baselineTable(comparison)}\n`);
  if (values.out) {
    await writeJson(values.out, { comparison: 'baseline', ...comparison });
    process.stdout.write(`results written to ${values.out}\n`);
  }
}

async function runApiTypeComparison(values: Values, base: Scenario): Promise<void> {
  if (values.matrix || base.stack.simsOnly || base.stack.target)
    throw new Error('--api-type both runs the ALS in each mode: not with --matrix, --sims-only or --target');
  if (values.threshold.length > 0) throw new Error('--threshold applies to one run: not with --api-type both');
  const comparison = await compareApiTypes(base, positiveInteger('--rounds', values.rounds), progress);
  process.stdout.write(`\nbench:als --api-type both, ${base.name}\n\n${apiTypeTable(comparison)}\n`);
  if (values.out) {
    await writeJson(values.out, { comparison: 'api-type', ...comparison });
    process.stdout.write(`results written to ${values.out}\n`);
  }
}

async function runTlsComparison(values: Values, base: Scenario): Promise<void> {
  if (values.matrix || base.stack.simsOnly || base.stack.target)
    throw new Error('--tls runs the ALS on each stack: not with --matrix, --sims-only or --target');
  if (values.threshold.length > 0) throw new Error('--threshold applies to one run: not with --tls');
  const comparison = await compareTls(base, positiveInteger('--rounds', values.rounds), progress);
  process.stdout.write(`\nbench:als --tls, ${base.name}\n\n${tlsTable(comparison)}\n`);
  if (values.out) {
    await writeJson(values.out, { comparison: 'tls', ...comparison });
    process.stdout.write(`results written to ${values.out}\n`);
  }
}

async function runFaults(values: Values): Promise<void> {
  const overloadOnly = values.scenario === 'overload';
  const results = await runFaultBench({
    healthyVus: positiveInteger('--healthy-vus', values['healthy-vus']),
    faultRate: positiveInteger('--fault-rate', values['fault-rate']),
    phaseSeconds: positiveInteger('--phase-duration', values['phase-duration']),
    overloadVus: positiveInteger('--overload-vus', values['overload-vus']),
    overloadRounds: overloadOnly ? positiveInteger('--rounds', values.rounds) : 1,
    faultPhases: !overloadOnly,
    timeoutMs: positiveInteger('--timeout', values.timeout),
    fsps: positiveInteger('--fsps', values.fsps),
    progress,
  });
  process.stdout.write(`\nbench:als --scenario ${values.scenario}\n\n${faultTable(results)}\n\n`);
  if (overloadOnly) {
    const ends = results.filter((r) => r.phase.startsWith('overload')).map((r) => r.alsRssEndMb);
    process.stdout.write(
      `ALS RSS at the end of each overload round: ${ends.map((mb) => mb.toFixed(0)).join(', ')} MB (last - first: ${((ends.at(-1) ?? 0) - (ends[0] ?? 0)).toFixed(0)} MB)\n`,
    );
  }
  const lost = results.reduce((sum, r) => sum + r.lost, 0);
  const duplicated = results.reduce((sum, r) => sum + r.duplicated, 0);
  const ratios = results
    .filter((r) => (faultNames as readonly string[]).includes(r.phase) && r.phase !== 'none')
    .map((r) => r.ratio);
  process.stdout.write(
    `thresholds: lost = 0 ${lost === 0 ? 'ok' : `FAILED (${lost})`}, duplicated = 0 ${duplicated === 0 ? 'ok' : `FAILED (${duplicated})`}` +
      (overloadOnly
        ? '\n'
        : `; goal healthy ratio >= 0.9 beside each fault: ${ratios.every((r) => r >= 0.9) ? 'met' : 'not met'} (lowest ${Math.min(...ratios).toFixed(2)})\n`),
  );
  if (values.out) {
    await writeJson(values.out, { scenario: values.scenario, results });
    process.stdout.write(`results written to ${values.out}\n`);
  }
  if (lost > 0 || duplicated > 0) process.exitCode = 99;
}

async function runMatrix(base: Scenario, durationSeconds: number, reportDir: string): Promise<void> {
  const scenarios: Scenario[] = [];
  const withStack = (stack: Partial<Scenario['stack']>, vus: number): Scenario => {
    const s = { ...base.stack, ...stack };
    const model: LoadModel = { kind: 'closed', vus, thinkMs: 0 };
    return {
      ...base,
      stack: s,
      model,
      name: scenarioName(s, model),
      durationSeconds,
      warmupSeconds: Math.min(base.warmupSeconds, 2),
      iterations: undefined,
    };
  };
  for (const vus of [1, 4, 16, 64]) scenarios.push(withStack({ simsOnly: true }, vus));
  for (const processes of [1, 2, 4])
    for (const vus of [1, 4, 16, 64])
      for (const cache of [true, false])
        for (const keepAlive of [true, false])
          scenarios.push(withStack({ simsOnly: false, processes, cache, keepAlive }, vus));
  progress(`bench:als --matrix: ${scenarios.length} scenarios of ${durationSeconds}s each`);
  const results = [];
  for (const [i, scenario] of scenarios.entries()) {
    progress(`[${i + 1}/${scenarios.length}] ${scenario.name}`);
    const result = await runScenario(scenario);
    progress(`  ${result.driver.lookupsPerSecond.toFixed(0)} lookups/s, p99 ${result.driver.e2e.p99.toFixed(2)} ms`);
    results.push(result);
  }
  const rows = results.map(matrixRow);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  await mkdir(reportDir, { recursive: true });
  const header = `# bench:als --matrix (${stamp})\n\nids ${base.ids.kind}, FSPIOP ${base.version}, ${durationSeconds}s per scenario; ratio against the sims-only row at the same VUs is the share of this machine's ceiling the ALS keeps. Cache on: ${Object.entries(
    alsCacheSettings(true),
  )
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}.`;
  const baselineByVus = (vus: number) => `sims only, ${vus} VUs`;
  const markdown = [1, 4, 16, 64]
    .map((vus) =>
      matrixMarkdown(
        rows.filter((r) => r.name.includes(`, ${vus} VUs`)),
        baselineByVus(vus),
        `## ${vus} VUs`,
      ),
    )
    .join('\n');
  const files = {
    md: join(reportDir, `als-matrix-${stamp}.md`),
    svg: join(reportDir, `als-matrix-${stamp}.svg`),
    json: join(reportDir, `als-matrix-${stamp}.json`),
  };
  await writeFile(files.md, `${header}\n\n${markdown}`);
  await writeFile(files.svg, matrixSvg(rows, `bench:als --matrix ${stamp}`));
  await writeJson(files.json, results.map(alsResultJson));
  process.stdout.write(`${header}\n\n${markdown}\nreport: ${files.md}\nplot: ${files.svg}\njson: ${files.json}\n`);
}
