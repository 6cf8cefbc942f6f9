import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Judge, startJudge } from '../src/judge.js';
import { judgeReport, readKnownDifferences } from '../src/known.js';
import { type Collection, describeFailures, readCollections, readIsoCollections } from '../src/report.js';

// Mojaloop's Testing Toolkit as a second judge: our collections (collections/*.json), which pass on
// account-lookup-service v17.16.1 itself, run by the toolkit against our ALS (its oracle registry in MySQL,
// as in a Mojaloop deployment) on the simulators. A failed assertion fails the test unless
// known-differences.json lists it; a listed one that passes fails it too (the list is stale).

const known = readKnownDifferences();

// In ISO 20022 mode (ALS_API_TYPE=iso20022) the lookups run through the toolkit's fspiopToISO20022 transformer,
// as Mojaloop's ISO golden path does (collections/iso20022).
describe.each([
  ['fspiop', readCollections()],
  ['iso20022', readIsoCollections()],
] as const)('the Testing Toolkit runs our collections against our ALS, API_TYPE=%s', (apiType, collections) => {
  let database: TestDatabase;
  let judge: Judge;
  beforeAll(async () => {
    database = await createDatabase({ prefix: 'als_ttk' });
    const { host, port, user, password } = database.connection;
    judge = await startJudge({
      config: {
        dbHost: host,
        dbPort: port,
        dbUser: user,
        dbPassword: password,
        dbName: database.name,
        // The Hub's own messages at 2.0, as an ISO scheme configures it (the charts' and the original's
        // default.json): the ISO media types are defined from API 2.0 on, and the Hub's error callbacks carry it.
        ...(apiType === 'iso20022' ? { apiType, hubFspiopVersion: '2.0' as const } : {}),
      },
    });
    // The first run on a machine installs the toolkit (npm ci, a minute or more).
  }, 15 * 60_000);
  afterAll(async () => {
    await judge?.close();
    await database?.drop();
  });

  // In file order: the oracle-admin collection registers the oracles the lookups use.
  it.each(collections.map((c: Collection) => [c.file, c] as const))(
    '%s',
    async (_file, collection) => {
      const report = await judge.run(collection);
      expect(report.assertions).toBeGreaterThan(0);
      const { unexpected, stale } = judgeReport(report, known);
      expect(describeFailures({ ...report, failures: unexpected }), `toolkit log: ${judge.toolkit.logFile}`).toBe('');
      expect(stale.map((k) => `${k.request} › ${k.assertion}`)).toEqual([]);
    },
    120_000,
  );
});
