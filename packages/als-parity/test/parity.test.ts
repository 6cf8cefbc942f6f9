import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareRuns, formatDifferences } from '../src/compare.js';
import { judge, loadExceptions } from '../src/exceptions.js';
import { readFixture } from '../src/fixtures.js';
import { type RunningOurs, startOurs } from '../src/ours.js';
import { claimRedisDb, type RunRedis } from '../src/redis-db.js';
import { type RunRecord, runCorpus } from '../src/runner.js';
import { RecordingSims } from '../src/sims.js';
import { suites } from '../src/suites.js';

// Our ALS as operators run it (built dist/, drop-in: the original's config/default.json with the parity rc
// overrides) on the recording simulators, the whole corpus, compared with what account-lookup-service
// v17.16.1 answered to the same corpus (fixtures/original-17.16.1.json), and again in ISO 20022 mode
// (API_TYPE=iso20022 on both: the ISO corpus, fixtures/original-17.16.1-iso20022.json), and in ISO 20022 mode
// with the proxy cache and the timeout handler on (the inter-scheme corpus). Every difference must
// be listed in exceptions.json, and every listed one must still occur, so the list (and the
// docs/differences.md table rendered from it) is exactly what differs.
const modes = [suites.fspiop, suites.iso20022, suites['inter-scheme']].map((suite) => [suite.name, suite] as const);

describe.each(modes)('parity with account-lookup-service v17.16.1: the %s corpus', (_name, suite) => {
  let database: TestDatabase;
  let sims: RecordingSims;
  let ours: RunningOurs;
  let run: RunRecord;
  let redis: RunRedis | undefined;

  beforeAll(async () => {
    database = await createDatabase({ prefix: 'als_parity' });
    sims = await RecordingSims.start();
    suite.prepare(sims);
    if (suite.proxyCache) redis = await claimRedisDb();
    const { host, port, user, password } = database.connection;
    ours = await startOurs({
      switchEndpoint: sims.ledgerUrl,
      database: { host, port, user, password, name: database.name },
      proxyCache: redis,
      env: suite.env,
    });
    // A longer quiet window than the CLI's: CI shares two cores with other test files.
    run = await runCorpus(suite.cases, { api: ours.api, admin: ours.admin }, sims, { quietMs: 500 });
  }, 120_000);

  afterAll(async () => {
    await ours?.stop();
    await sims?.close();
    await database?.drop();
    await redis?.drop();
  });

  it('ran every case the original was recorded for, in bounded time', () => {
    const fixture = readFixture(suite.fixture);
    expect(run.cases.map((c) => c.id)).toEqual(fixture.cases.map((c) => c.id));
    expect(run.durationMs).toBeLessThan(90_000);
  });

  it('differs from the recorded original exactly where exceptions.json says', () => {
    const diffs = compareRuns(readFixture(suite.fixture).cases, run.cases);
    const verdict = judge(diffs, loadExceptions(), new Set(run.cases.map((c) => c.id)));
    // Both ways at once, so one failing run names every difference to fix or list and every stale entry.
    expect(
      {
        notListed: formatDifferences(verdict.unexpected).split('\n').filter(Boolean),
        listedButGone: verdict.unused.map((u) => `${u.caseId} ${u.field} (${u.row})`),
      },
      'fix the ALS or list a difference with its reason; remove what no longer differs (pending ones: `compare --ours --update-pending`)',
    ).toEqual({ notListed: [], listedButGone: [] });
  });
});
