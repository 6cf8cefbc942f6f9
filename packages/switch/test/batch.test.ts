import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadInfraSettings, type PrivateCentralLedger, startCentralLedger } from '@mojafast/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CentralLedgerAdmin } from '../src/admin.js';
import { batchCases, runBatchCases } from '../src/batch-cases.js';
import { judge, lines, loadDifferences, scenarioTable } from '../src/differences.js';
import { SwitchDriver } from '../src/driver.js';
import { type RunningProcess, startOurPositionHandler, writeSwitchConfig } from '../src/processes.js';
import type { Observation } from '../src/scenarios.js';

// One position batch with each handler on central-ledger 19.14.0's batch topic (batch size 100, as the
// differential runs used): the order of a payer's fx-prepare and prepare under a tight cap, and a bulk-prepare and
// a reject on that topic. Judged against the same exception list as the scenarios.
let sw: PrivateCentralLedger | undefined;
let driver: SwitchDriver | undefined;
let ours: RunningProcess | undefined;
const observed: { ours: Observation[]; original: Observation[] } = { ours: [], original: [] };
let originalLog = '';

beforeAll(async () => {
  sw = await startCentralLedger({ positionBatchSize: 100 });
  const theSwitch = sw;
  const admin = new CentralLedgerAdmin(sw.adminUrl);
  await admin.setUpHub(['USD', 'EUR']);
  const brokers = loadInfraSettings().kafka.brokers;
  driver = await SwitchDriver.start({ brokers, prefix: sw.prefix });
  const config = join(sw.env.CENTRAL_LEDGER_RUN_DIR as string, 'central-ledger.json');
  writeSwitchConfig(sw, config);
  const base = {
    driver,
    admin,
    brokers,
    callbackBase: 'http://127.0.0.1:9/fsp',
    stepTimeoutMs: 30_000,
  };
  observed.ours = await runBatchCases({
    ...base,
    tag: 'bo',
    startHandler: async () => {
      ours = await startOurPositionHandler(config);
    },
    stopHandler: async () => {
      await ours?.stop();
    },
  });
  await ours?.stop();
  observed.original = await runBatchCases({
    ...base,
    tag: 'bc',
    startHandler: () => theSwitch.startOriginalPosition(),
    stopHandler: () => theSwitch.stopOriginalPosition(),
  });
  await theSwitch.stopOriginalPosition();
  const log = join(sw.env.CENTRAL_LEDGER_RUN_DIR as string, 'logs', 'position.log');
  originalLog = existsSync(log) ? readFileSync(log, 'utf8') : '';
}, 900_000);

afterAll(async () => {
  await ours?.stop();
  await driver?.stop();
  await sw?.stop();
}, 120_000);

it('each case gives the same notifications, positions, states and offsets with both handlers, except the listed differences', () => {
  console.info(scenarioTable(observed.ours, observed.original, loadDifferences()));
  for (const o of [...observed.ours, ...observed.original]) console.info(`${o.scenario}:\n  ${lines(o).join('\n  ')}`);
  const verdict = judge(observed.ours, observed.original, loadDifferences());
  expect(verdict.unexpected, JSON.stringify(verdict.unexpected, null, 2)).toEqual([]);
  expect(verdict.stale.map((d) => d.scenario)).toEqual([]);
  expect(observed.original.map((o) => o.scenario)).toEqual(batchCases.map((s) => s.name));
});

it("central-ledger's batch handler names the actions it leaves alone in its log", () => {
  expect(originalLog).toMatch(/Only prepare,fx-prepare,commit,reserve,.* are allowed in a batch/);
});
