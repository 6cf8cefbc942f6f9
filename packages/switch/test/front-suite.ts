import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Comparison, compareHandlers, type Hub, startHub } from '../src/compare-handlers.js';
import {
  type ApiMode,
  callbackDiff,
  judge,
  loadCallbackDifferences,
  loadDifferences,
  renderFrontPage,
} from '../src/differences.js';
import { type Lookups, lookUpThroughOurAls, partiesContentType } from '../src/lookups.js';
import { type Observation, scenarios } from '../src/scenarios.js';

/**
 * The whole switch as the FSPs use it, in one API mode: a payer's party lookups through our ALS (API_TYPE set to
 * the mode) on the switch's admin API; then transfers: the FSPs' requests over HTTP to ml-api-adapter (built from
 * its release source, API_TYPE set to the mode), central-ledger's prepare, fulfil, timeout and get handlers, our
 * position handler, the notifications back through ml-api-adapter's notification handler to the FSPs' callback
 * servers; then the same with central-ledger's own batch position handler in ours' place. One switch for the
 * file. The FSPs' callbacks must be equal line by line (headers, bodies byte for byte but for times, secrets and
 * generated ids) except the mode's listed callback differences; notifications, positions and states except
 * differences.json's; and docs/scenarios-<mode>.md is what this run renders.
 */
export function frontSuite(mode: ApiMode): void {
  const differences = loadDifferences();
  const listed = new Set(differences.map((d) => d.scenario));
  const callbackDifferences = loadCallbackDifferences().filter((d) => d.mode === mode);

  let hub: Hub | undefined;
  let lookups: Lookups | undefined;
  let observed: Comparison = { ours: [], original: [] };

  beforeAll(async () => {
    hub = await startHub();
    lookups = await lookUpThroughOurAls(hub, mode);
    observed = await compareHandlers(hub, { front: mode });
  }, 900_000);

  afterAll(() => hub?.sw.stop(), 120_000);

  describe(`party lookups through our ALS, ${mode} mode`, () => {
    const found = () => lookups?.found;
    it('finds the payee: the oracle names it, central-ledger gives its endpoint, its answer reaches the payer', () => {
      const callback = found();
      expect(callback).toMatchObject({ kind: 'success', method: 'PUT', path: '/parties/MSISDN/25510000001' });
      expect(callback?.headers).toMatchObject({
        'content-type': partiesContentType(mode),
        'fspiop-source': lookups?.names.payee,
        'fspiop-destination': lookups?.names.payer,
      });
      const body = JSON.parse(String(callback?.body));
      const fspId =
        mode === 'iso20022' ? body.Rpt.UpdtdPtyAndAcctId.Agt.FinInstnId.Othr.Id : body.party.partyIdInfo.fspId;
      expect(fspId).toBe(lookups?.names.payee);
    });

    it("a party the oracle does not have: 3204 to the payer, in the mode's error form", () => {
      const callback = lookups?.unknown;
      expect(callback).toMatchObject({ kind: 'error', path: '/parties/MSISDN/40410000001/error' });
      const body = JSON.parse(String(callback?.body));
      expect(mode === 'iso20022' ? body.Rpt.Rsn.Cd : body.errorInformation.errorCode).toBe('3204');
    });
  });

  describe(`FSPs over HTTP through ml-api-adapter and central-ledger, ${mode} mode`, () => {
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
        const known = callbackDifferences.find((d) => d.scenario === scenario.name);
        expect(callbackDiff(a, b)).toEqual({ ours: known?.ours ?? [], original: known?.original ?? [] });
      });
    }

    it('the same notifications, positions and states as with central-ledger own handler, except the listed differences', () => {
      const verdict = judge(observed.ours, observed.original, differences);
      expect(verdict.unexpected, JSON.stringify(verdict.unexpected, null, 2)).toEqual([]);
      expect(observed.ours.flatMap((o) => o.refused)).toEqual([]);
    });

    // ml-api-adapter forwards an FSP's request to its counterpart as the FSP wrote it (its originalRequestPayload):
    // every callback not from the Hub carries the bytes of a request an FSP sent.
    it("every callback an FSP originated is that FSP's request body, byte for byte", () => {
      const sent = new Set((observed.sent ?? []).map((r) => r.body));
      const fromFsps = (observed.received ?? []).filter((r) => r.headers['fspiop-source'] !== 'Hub');
      expect(fromFsps.length).toBeGreaterThan(scenarios.length);
      expect(fromFsps.filter((r) => !sent.has(r.body)).map((r) => `${r.method} ${r.path} ${r.body}`)).toEqual([]);
    });

    it(`docs/scenarios-${mode}.md is the table this run observed`, async () => {
      const page = renderFrontPage(mode, observed.ours, observed.original, differences, callbackDifferences);
      await expect(page).toMatchFileSnapshot(`../docs/scenarios-${mode}.md`);
    });
  });
}
