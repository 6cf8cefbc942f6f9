import { randomBytes } from 'node:crypto';
import {
  type OracleSim,
  type PayeeSim,
  type PayerSim,
  startOracleSim,
  startPayeeSim,
  startPayerSim,
} from '@mojafast/sim';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CentralLedgerAdmin, onboardDfsp } from '../src/admin.js';
import { type Comparison, compareHandlers, type Hub, startHub } from '../src/compare-handlers.js';
import { judge, lines, loadDifferences, scenarioTable } from '../src/differences.js';
import { startOurAls } from '../src/processes.js';
import { type Observation, scenarios } from '../src/scenarios.js';

// Transfers through central-ledger 19.14.0's own prepare, fulfil, timeout and get handlers, sent as
// ml-api-adapter sends them (compare-handlers.ts: ours, then central-ledger's batch position handler).
const differences = loadDifferences();
const pending = new Set(differences.filter((d) => d.pending).map((d) => d.scenario));

let hub: Hub | undefined;
let admin: CentralLedgerAdmin;
const theSwitch = () => {
  if (!hub) throw new Error('the switch did not start');
  return hub.sw;
};

beforeAll(async () => {
  hub = await startHub();
  admin = hub.admin;
}, 400_000);

afterAll(() => hub?.sw.stop(), 120_000);

describe('central-ledger 19.14.0 with our position handler, then with its own', () => {
  let observed: Comparison = { ours: [], original: [] };

  beforeAll(async () => {
    if (!hub) throw new Error('the switch did not start');
    observed = await compareHandlers(hub);
  }, 600_000);

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

  // central-ledger's two-step fx-abort throws at its follow-up and tells no one, so what its last step would send
  // is judged where it does finish an fx-abort: the FXP's error before the dependent transfer. The fxTransfer's
  // callbacks (to the FXP from the Hub, to the payer from the FXP) must be the same.
  it("the two-step fx-abort tells the FXP and the payer of the fxTransfer as central-ledger's finished fx-abort does", () => {
    const fxLines = (o: Observation | undefined) =>
      (o?.notifications ?? []).filter((n) => n.startsWith('F1 fx-abort '));
    const theirs = fxLines(observed.original.find((o) => o.scenario === 'fx-abort-fxp-first'));
    expect(theirs).toHaveLength(2);
    expect([...fxLines(oursOf('fx-abort-two-step'))].sort()).toEqual([...theirs].sort());
  });

  it('ml-api-adapter refuses none of the notifications of either handler', () => {
    expect(observed.ours.flatMap((o) => o.refused)).toEqual([]);
    expect(observed.original.flatMap((o) => o.refused)).toEqual([]);
  });

  it("central-ledger's own position handler gives the same notifications, positions and states, except the listed differences", () => {
    console.info(scenarioTable(observed.ours, observed.original, differences));
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

// Our ALS (built, `node dist/als`) on the real central-ledger admin API: participants, their endpoints and an
// inactive participant as a hub operator left them, with our oracle, payee and payer simulators.
describe("our ALS against central-ledger 19.14.0's admin API", () => {
  let als: Awaited<ReturnType<typeof startOurAls>> | undefined;
  let payer: PayerSim | undefined;
  let payee: PayeeSim | undefined;
  let oracle: OracleSim | undefined;
  const names = { payer: 'alspayer', payee: 'alspayee', ghost: 'alsghost' };
  const usd = { USD: { netDebitCap: '1000', fundsIn: '1000' } };

  beforeAll(async () => {
    payer = await startPayerSim({ recordHistory: true });
    payee = await startPayeeSim({});
    oracle = await startOracleSim({ parties: { 'MSISDN/25510000001': [{ fspId: names.payee, currency: 'USD' }] } });
    await onboardDfsp(admin, { name: names.payer, currencies: usd, callbackBase: payer.url });
    await onboardDfsp(admin, { name: names.payee, currencies: usd, callbackBase: payee.url });
    await onboardDfsp(admin, { name: names.ghost, currencies: usd, callbackBase: payer.url });
    await admin.setActive(names.ghost, false);
    als = await startOurAls({
      ALS_SWITCH_ENDPOINT: theSwitch().adminUrl,
      ALS_ORACLE_URL: oracle.url,
      ALS_LOG_LEVEL: 'warn',
    });
    payee.setAlsUrl(als.url);
  }, 120_000);

  afterAll(async () => {
    await als?.stop();
    await payer?.close();
    await payee?.close();
    await oracle?.close();
  });

  const send = async (path: string, source: string, resource: 'parties' | 'participants' = 'parties') => {
    const traceId = randomBytes(16).toString('hex');
    const type = `application/vnd.interoperability.${resource}+json;version=1.1`;
    const res = await request(`${als?.url}${path}`, {
      headers: {
        accept: type,
        'content-type': type,
        date: new Date().toUTCString(),
        'fspiop-source': source,
        traceparent: `00-${traceId}-0123456789abcdef-01`,
      },
    });
    return { traceId, status: res.statusCode, body: await res.body.text() };
  };

  const lookup = async (path: string, source: string, resource: 'parties' | 'participants' = 'parties') => {
    const sent = await send(path, source, resource);
    expect(sent.status, sent.body).toBe(202);
    const callback = await payer?.waitForCallback(sent.traceId, 10_000);
    if (!callback) throw new Error('no payer simulator');
    return callback;
  };

  it('finds the payee: the oracle names it, central-ledger gives its endpoint, the party comes back to the payer', async () => {
    const callback = await lookup('/parties/MSISDN/25510000001', names.payer);
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe('/parties/MSISDN/25510000001');
    expect(callback.headers['fspiop-source']).toBe(names.payee);
    expect(callback.headers['fspiop-destination']).toBe(names.payer);
    expect(JSON.parse(callback.body.toString()).party.partyIdInfo).toMatchObject({
      partyIdentifier: '25510000001',
      fspId: names.payee,
    });
  });

  // account-lookup-service v17.16.1 only asks central-ledger whether an FSP exists, not whether it is active, so a
  // deactivated FSP is still served; ours answers the same (the ALS's parity corpus holds the same cases).
  it('an FSP central-ledger has deactivated: its party lookup is served as the original serves it', async () => {
    const callback = await lookup('/parties/MSISDN/25510000001', names.ghost);
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe('/parties/MSISDN/25510000001');
    expect(callback.headers['fspiop-source']).toBe(names.payee);
    expect(callback.headers['fspiop-destination']).toBe(names.ghost);
  });

  it('an FSP central-ledger has deactivated: its participant lookup called back on its registered endpoint', async () => {
    const callback = await lookup('/participants/MSISDN/25510000001', names.ghost, 'participants');
    expect(callback.kind).toBe('success');
    expect(callback.path).toBe('/participants/MSISDN/25510000001');
    expect(JSON.parse(callback.body.toString())).toMatchObject({ fspId: names.payee });
    expect(callback.headers['fspiop-destination']).toBe(names.ghost);
  });

  it('a party the oracle does not have: 3204 to the payer', async () => {
    const unknown = await lookup('/parties/MSISDN/40410000001', names.payer);
    expect(unknown.kind).toBe('error');
    expect(JSON.parse(unknown.body.toString()).errorInformation.errorCode).toBe('3204');
  });
});
