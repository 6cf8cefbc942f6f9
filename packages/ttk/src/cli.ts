#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startJudge } from './judge.js';
import { describeFailures, readCollections, readIsoCollections } from './report.js';

const usage = `mojafast-ttk [--als URL --admin URL] [--sims-port-base N] [--only FILE]...
  Installs Mojaloop's Testing Toolkit (once), starts the simulators, the toolkit and, without --als, our ALS
  (an empty in-memory oracle registry), runs this package's collections in order and prints every failed
  assertion. Exit code 1 when one failed.
  --als URL, --admin URL   judge an ALS started elsewhere, e.g. account-lookup-service itself: start it with
                           ALS_SWITCH_ENDPOINT=http://127.0.0.1:<N> and a fresh database, give --sims-port-base N
  --sims-port-base N       simulator ports: central-ledger N, oracle N+1, payee N+2, payer N+3 (free ones: 0)
  --only FILE              run only this collection (repeatable)
  --api-type iso20022      our ALS in ISO 20022 mode and the ISO collections (collections/iso20022, through
                           the toolkit's fspiopToISO20022 transformer) after the oracle-admin one`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      als: { type: 'string' },
      admin: { type: 'string' },
      'sims-port-base': { type: 'string', default: '0' },
      only: { type: 'string', multiple: true },
      'api-type': { type: 'string', default: 'fspiop' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || Boolean(values.als) !== Boolean(values.admin)) {
    process.stdout.write(`${usage}\n`);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const iso = values['api-type'] === 'iso20022';
  const collections = (iso ? readIsoCollections() : readCollections()).filter(
    (c) => !values.only || values.only.includes(c.file),
  );
  const judge = await startJudge({
    simsPortBase: Number(values['sims-port-base']),
    ...(iso ? { config: { apiType: 'iso20022' as const, hubFspiopVersion: '2.0' as const } } : {}),
    ...(values.als && values.admin ? { als: { url: values.als, adminUrl: values.admin } } : {}),
  });
  let passed = 0;
  let failed = 0;
  try {
    process.stdout.write(`ALS ${judge.als.url} (admin ${judge.als.adminUrl}), toolkit ${judge.toolkit.apiUrl}\n`);
    for (const collection of collections) {
      const report = await judge.run(collection);
      passed += report.passed;
      failed += report.failures.length;
      process.stdout.write(`${collection.file}: ${report.assertions} assertions, ${report.passed} passed\n`);
      if (report.failures.length > 0) process.stdout.write(`${describeFailures(report)}\n`);
    }
  } finally {
    await judge.close();
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  if (failed > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
