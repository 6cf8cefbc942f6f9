import { join } from 'node:path';
import { loadInfraSettings, type PrivateCentralLedger, startCentralLedger } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CentralLedgerAdmin } from '../src/admin.js';
import { judge, loadDifferences } from '../src/differences.js';
import { SwitchDriver } from '../src/driver.js';
import { CallbackRecorder } from '../src/http-front.js';
import { type RunningMlApiAdapter, startMlApiAdapter } from '../src/ml-api-adapter.js';
import { type RunningProcess, startOurPositionHandler, writeSwitchConfig } from '../src/processes.js';
import { type Observation, runScenarios, type ScenarioRun, scenarios } from '../src/scenarios.js';

// The whole switch as the FSPs use it: their requests over HTTP to ml-api-adapter (built from its release
// source), central-ledger's prepare, fulfil, timeout and get handlers, our position handler, the notifications
// back through ml-api-adapter's notification handler to the FSPs' callback servers. Then the same with
// central-ledger's own batch position handler in ours' place. One switch for the file, the scenarios within it.
const differences = loadDifferences();
// Where the FSPs' callbacks differ with the same notifications, positions and states: each line as the
// callback's FSP received it (`describeCallback`), exactly, so any other difference fails.
const callbackDifferences: { scenario: string; ours: string[]; original: string[]; reason: string }[] = [
  {
    scenario: 'reserve',
    ours: [
      'T1 payer PUT /transfers/T1 from Hub to payer application/vnd.interoperability.transfers+json;version=2.0 {"fulfilment":"<fulfilment>","completedTimestamp":"<time>","transferState":"COMMITTED"}',
    ],
    original: [
      'T1 payer PUT /transfers/T1 from Hub to payer application/vnd.interoperability.transfers+json;version=2.0 {"completedTimestamp":"<time>","fulfilment":"<fulfilment>","transferState":"COMMITTED"}',
    ],
    reason:
      "A reserve's notification to the payer: central-ledger 19.14.0 writes the body from the transfer as stored (its fulfilment, the time the state change was recorded, transferState COMMITTED, in that order); ours passes on the payee's body with transferState COMMITTED, so the keys come in the payee's order and completedTimestamp is the payee's. Reading the stored row is the fetcher's part, under way elsewhere.",
  },
];
const listed = new Set(differences.map((d) => d.scenario));
const brokers = loadInfraSettings().kafka.brokers;

let sw: PrivateCentralLedger | undefined;
let front: RunningMlApiAdapter | undefined;
let recorder: CallbackRecorder | undefined;
let driver: SwitchDriver | undefined;
let ours: RunningProcess | undefined;
const observed: { ours: Observation[]; original: Observation[] } = { ours: [], original: [] };

beforeAll(async () => {
  sw = await startCentralLedger({ timeoutCron: '*/2 * * * * *' });
  const admin = new CentralLedgerAdmin(sw.adminUrl);
  await admin.setUpHub(['USD', 'EUR']);
  recorder = await CallbackRecorder.start();
  front = await startMlApiAdapter(sw, { brokers, apiType: 'fspiop' });
  driver = await SwitchDriver.start({ brokers, prefix: sw.prefix, front: front.url });
  const run = (tag: string): ScenarioRun => ({
    driver: driver as SwitchDriver,
    admin,
    tag,
    callbackBase: `${recorder?.url}`,
    recorder,
    stepTimeoutMs: 20_000,
    expiryTimeoutMs: 20_000,
  });
  const config = join(sw.env.CENTRAL_LEDGER_RUN_DIR as string, 'central-ledger.json');
  writeSwitchConfig(sw, config);
  ours = await startOurPositionHandler(config);
  observed.ours = await runScenarios(run('o'));
  await ours.stop();
  await sw.startOriginalPosition();
  observed.original = await runScenarios(run('c'));
  await sw.stopOriginalPosition();
}, 900_000);

afterAll(async () => {
  await ours?.stop();
  await driver?.stop();
  await front?.stop();
  await recorder?.close();
  await sw?.stop();
}, 120_000);

describe('FSPs over HTTP through ml-api-adapter and central-ledger, FSPIOP mode', () => {
  const of = (list: Observation[], name: string) => {
    const o = list.find((x) => x.scenario === name);
    if (!o) throw new Error(`no observation of ${name}`);
    return o;
  };

  for (const scenario of scenarios) {
    it(`${scenario.name}: the FSPs received the same callbacks with either position handler`, () => {
      const a = of(observed.ours, scenario.name);
      const b = of(observed.original, scenario.name);
      expect(a.callbacks.length).toBeGreaterThan(0);
      console.info(
        `${scenario.name}\n  ours:     ${a.callbacks.join('\n            ')}\n  original: ${b.callbacks.join('\n            ')}`,
      );
      // A listed difference shows in the callbacks too; the notifications' judge below accounts for it.
      if (listed.has(scenario.name)) return;
      // Each line of y takes away one equal line of x (a callback can come twice, e.g. an answer and a GET's).
      const minus = (x: readonly string[], y: readonly string[]) => {
        const rest = [...y];
        return x.filter((line) => {
          const i = rest.indexOf(line);
          if (i >= 0) rest.splice(i, 1);
          return i < 0;
        });
      };
      const known = callbackDifferences.find((d) => d.scenario === scenario.name);
      expect({ ours: minus(a.callbacks, b.callbacks), original: minus(b.callbacks, a.callbacks) }).toEqual({
        ours: known?.ours ?? [],
        original: known?.original ?? [],
      });
    });
  }

  it('the same notifications, positions and states as with central-ledger own handler, except the listed differences', () => {
    const verdict = judge(observed.ours, observed.original, differences);
    expect(verdict.unexpected, JSON.stringify(verdict.unexpected, null, 2)).toEqual([]);
    expect(observed.ours.flatMap((o) => o.refused)).toEqual([]);
  });
});
