#!/usr/bin/env node
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDatabase } from '@mojafast/testkit';
import { withPending } from './classify.js';
import { compareRuns, formatDifferences } from './compare.js';
import { exceptionsFile, judge, loadExceptions } from './exceptions.js';
import { ORIGINAL, readFixture, writeFixture } from './fixtures.js';
import { startOurs } from './ours.js';
import { claimRedisDb } from './redis-db.js';
import { differencesReport } from './report.js';
import { runCorpus } from './runner.js';
import { RecordingSims } from './sims.js';
import { type SuiteName, suites } from './suites.js';

const usage = `mojafast-als-parity run|record|compare (--api URL --admin URL | --ours) [options]
  Starts the recording simulators (central-ledger admin API on --sims-port, the oracle on +1, the FSPs on +2;
  the ALS under test must already run with ALS_SWITCH_ENDPOINT=http://127.0.0.1:<sims-port> and a fresh
  oracle registry), runs the corpus against the ALS and:
    run       writes the normalised record to --out (default parity-run.json)
    record    writes it as the original's fixture (fixtures/original-17.16.1[-iso20022].json) with its provenance
    compare   compares it with the fixture and prints each difference; exit 1 on one the exception list
              (exceptions.json) does not name, or on a listed one that no longer occurs
  --ours            start our ALS itself (packages/als/dist, drop-in: the original's config file and the
                    variables of src/env.ts) on free ports and a fresh database (the project's MariaDB,
                    infra/services.env), and stop it after
  --api-type T      fspiop (the FSPIOP corpus) or iso20022 (the ISO 20022 corpus; the ALS under test must
                    run with ALS_API_TYPE=iso20022; --ours starts it so)
  --inter-scheme    the inter-scheme corpus (ISO 20022 mode, the proxy cache on, the timeout handler,
                    fixtures/original-17.16.1-iso20022-inter-scheme.json; the ALS under test must run with
                    src/corpus-inter-scheme.ts's settings and a proxy cache of its own; --ours gives it one)
  --sims-port P     (41100; with --ours 0 = free ports)
  --filter RE       only the cases whose id matches (setup cases always run)
  --concurrency N   api cases in flight at once (8)
  --quiet-ms MS     a case is over when nothing arrived for it for this long after its answer (300)
  --out FILE
  --report FILE     (compare) also write the differences as Markdown, grouped by likely owner
  --update-pending  (compare) rewrite exceptions.json's pending exceptions to exactly today's differences
                    beyond the kept ones, each under the row src/classify.ts gives it
  --adopt-kept      (with --update-pending) also list differences that fall under kept rows (review them!)`;

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      api: { type: 'string' },
      admin: { type: 'string' },
      'sims-port': { type: 'string', default: '41100' },
      'api-type': { type: 'string', default: 'fspiop' },
      filter: { type: 'string' },
      concurrency: { type: 'string', default: '8' },
      'quiet-ms': { type: 'string', default: '300' },
      out: { type: 'string' },
      ours: { type: 'boolean', default: false },
      'inter-scheme': { type: 'boolean', default: false },
      report: { type: 'string' },
      'update-pending': { type: 'boolean', default: false },
      'adopt-kept': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const mode = positionals[0];
  const targetGiven = values.ours || (values.api && values.admin);
  if (values.help || !mode || !['run', 'record', 'compare'].includes(mode) || !targetGiven) {
    process.stdout.write(`${usage}\n`);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const apiType = values['api-type'];
  if (apiType !== 'fspiop' && apiType !== 'iso20022') {
    process.stdout.write(`${usage}\n`);
    process.exitCode = 2;
    return;
  }
  const suiteName: SuiteName = values['inter-scheme'] ? 'inter-scheme' : apiType;
  const suite = suites[suiteName];
  const cases = suite.cases;
  const sims = await RecordingSims.start({ base: values.ours ? 0 : Number(values['sims-port']) });
  suite.prepare(sims);
  const filter = values.filter ? new RegExp(values.filter) : undefined;
  const cleanup: (() => Promise<void>)[] = [() => sims.close()];
  try {
    let target = { api: values.api ?? '', admin: values.admin ?? '' };
    if (values.ours) {
      const db = await createDatabase({ prefix: 'als_parity' });
      cleanup.unshift(() => db.drop());
      const { host, port, user, password } = db.connection;
      const redis = suite.proxyCache ? await claimRedisDb() : undefined;
      if (redis) cleanup.unshift(() => redis.drop());
      const ours = await startOurs({
        switchEndpoint: sims.ledgerUrl,
        database: { host, port, user, password, name: db.name },
        proxyCache: redis,
        env: suite.env,
      });
      cleanup.unshift(() => ours.stop());
      target = { api: ours.api, admin: ours.admin };
    }
    const run = await runCorpus(cases, target, sims, {
      concurrency: Number(values.concurrency),
      quietMs: Number(values['quiet-ms']),
      ...(filter ? { filter } : {}),
    });
    process.stderr.write(`${run.cases.length} cases in ${run.durationMs} ms\n`);
    if (mode === 'run') {
      writeFileSync(values.out ?? 'parity-run.json', `${JSON.stringify(run, null, 2)}\n`);
      return;
    }
    if (mode === 'record') {
      writeFixture(values.out ?? suite.fixture, {
        provenance: {
          ...ORIGINAL,
          date: new Date().toISOString(),
          command: `mojafast-als-parity ${process.argv.slice(2).join(' ')}`,
          node: process.version,
          durationMs: run.durationMs,
          ...(suite.env.ALS_API_TYPE === 'iso20022' ? { apiType: 'iso20022' as const } : {}),
          ...(suite.proxyCache ? { proxyCache: true, settings: suite.env } : {}),
        },
        unattributed: run.unattributed,
        cases: run.cases,
      });
      return;
    }
    const fixture = readFixture(suite.fixture);
    const recorded = filter ? fixture.cases.filter((c) => run.cases.some((r) => r.id === c.id)) : fixture.cases;
    const diffs = compareRuns(recorded, run.cases);
    if (values['update-pending']) {
      const updated = withPending(loadExceptions(), diffs, new Map(recorded.map((c) => [c.id, c])), {
        adoptKept: values['adopt-kept'],
      });
      writeFileSync(exceptionsFile, `${JSON.stringify(updated, null, 2)}\n`);
      // In the repository's JSON style, so `pnpm run lint` stays green after a rewrite.
      const biome = fileURLToPath(new URL('../../../node_modules/.bin/biome', import.meta.url));
      const formatted = spawnSync(biome, ['format', '--write', fileURLToPath(exceptionsFile)], { encoding: 'utf8' });
      if (formatted.status !== 0) process.stderr.write(`biome format of exceptions.json failed: ${formatted.stderr}\n`);
    }
    const verdict = judge(diffs, loadExceptions(), new Set(run.cases.map((c) => c.id)));
    const differing = new Set(diffs.map((d) => d.caseId));
    process.stdout.write(`${formatDifferences(diffs)}\n`);
    process.stdout.write(
      `${run.cases.length} cases: ${run.cases.length - differing.size} identical, ${differing.size} differ; ` +
        `${verdict.unexpected.length} differences not listed, ${verdict.unused.length} listed exceptions not seen\n`,
    );
    for (const u of verdict.unused) process.stdout.write(`listed but not seen: ${u.caseId} ${u.field} (${u.row})\n`);
    if (values.out) writeFileSync(values.out, `${JSON.stringify({ run, diffs }, null, 2)}\n`);
    if (values.report) {
      const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
      writeFileSync(
        values.report,
        differencesReport(
          diffs,
          verdict,
          { cases: run.cases.length, when: new Date().toISOString(), commit },
          loadExceptions(),
        ),
      );
    }
    if (verdict.unexpected.length > 0 || verdict.unused.length > 0) process.exitCode = 1;
  } finally {
    for (const step of cleanup) await step();
  }
}

await main();
