import { join } from 'node:path';
import { loadInfraSettings } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CentralLedgerAdmin } from '../src/admin.js';
import { type PrivateSwitch, startPrivateSwitch } from '../src/central-ledger.js';
import { judge, lines, loadDifferences } from '../src/differences.js';
import { SwitchDriver } from '../src/driver.js';
import { type RunningProcess, startOurPositionHandler, writeMergedConfig } from '../src/processes.js';
import { type Observation, runScenarios, type ScenarioRun, scenarios } from '../src/scenarios.js';

// Transfers through central-ledger 19.5.5's own prepare, fulfil, timeout and get handlers, sent as
// ml-api-adapter sends them: first with our built position handler on the switch's position topic (reading
// central-ledger's own configuration), then, on the same switch and consumer group, with central-ledger's
// batch position handler in its place, as an operator swaps one for the other. Each run's DFSPs are its own.
const differences = loadDifferences();
const pending = new Set(differences.filter((d) => d.pending).map((d) => d.scenario));

describe('central-ledger 19.5.5 with our position handler, then with its own', () => {
  let sw: PrivateSwitch | undefined;
  let driver: SwitchDriver | undefined;
  let ours: RunningProcess | undefined;
  const observed: { ours: Observation[]; original: Observation[] } = { ours: [], original: [] };

  beforeAll(async () => {
    sw = await startPrivateSwitch('switch');
    const admin = new CentralLedgerAdmin(sw.apiUrl);
    await admin.setUpHub(['USD', 'EUR']);
    driver = await SwitchDriver.start({ brokers: loadInfraSettings().kafka.brokers, prefix: sw.prefix });
    const run = (tag: string): ScenarioRun => ({
      driver: driver as SwitchDriver,
      admin,
      tag,
      // Nothing listens there: the FSPs' callbacks are read off the notification topic instead.
      callbackBase: 'http://127.0.0.1:9/fsp',
      stepTimeoutMs: 20_000,
      expiryTimeoutMs: 45_000,
    });
    const config = join(sw.runDir, 'central-ledger.json');
    writeMergedConfig(sw.packageDir, sw.overrideFile, config);
    ours = await startOurPositionHandler(config);
    observed.ours = await runScenarios(run('o'));
    await ours.stop();
    await sw.startOriginalPosition();
    observed.original = await runScenarios(run('c'));
    await sw.stopOriginalPosition();
  }, 600_000);

  afterAll(async () => {
    await ours?.stop();
    await driver?.stop();
    await sw?.destroy();
  }, 120_000);

  const oursOf = (name: string) => {
    const o = observed.ours.find((x) => x.scenario === name);
    if (!o) throw new Error(`no observation of ${name}`);
    return o;
  };

  for (const scenario of scenarios) {
    // A pending scenario fails its expectation until the fix it waits for lands; then it.fails turns red and
    // the entry's pending mark goes.
    const test = pending.has(scenario.name) ? it.fails : it;
    test(`ours: ${scenario.name}: ${scenario.title}`, () => {
      const o = oursOf(scenario.name);
      expect(o.positions).toEqual(scenario.expected.positions);
      expect(o.states).toEqual(scenario.expected.states);
      if (scenario.expected.notifications) expect([...o.notifications].sort()).toEqual(scenario.expected.notifications);
    });
  }

  it('ml-api-adapter refuses none of the notifications of either handler', () => {
    expect(observed.ours.flatMap((o) => o.refused)).toEqual([]);
    expect(observed.original.flatMap((o) => o.refused)).toEqual([]);
  });

  it("central-ledger's own position handler gives the same notifications, positions and states, except the listed differences", () => {
    const verdict = judge(observed.ours, observed.original, differences);
    for (const { entry, diff } of verdict.pending) {
      console.info(
        `pending difference in ${entry.scenario}:\n  ours: ${diff.ours.join('\n        ')}\n  central-ledger: ${diff.original.join('\n        ')}`,
      );
    }
    expect(verdict.unexpected, JSON.stringify(verdict.unexpected, null, 2)).toEqual([]);
    expect(verdict.stale.map((d) => d.scenario)).toEqual([]);
    // Both runs saw every scenario, and the comparison had lines to compare.
    expect(observed.original.map((o) => o.scenario)).toEqual(scenarios.map((s) => s.name));
    expect(observed.original.every((o) => lines(o).length > 0)).toBe(true);
  });
});
