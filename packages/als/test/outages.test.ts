import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  call,
  callbackHeaders,
  errorCodeOf,
  getParties,
  lookupHeaders,
  newTraceId,
  type Stack,
  settled,
  startStack,
} from './helpers.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** Fault switch for a simulator: `resetRate: 0.5` with this `random` resets every request while `down`. */
function outage() {
  const state = { down: false };
  return { state, faults: { resetRate: 0.5, random: () => (state.down ? 0 : 1) } };
}

describe('no silent loss while central-ledger is down', () => {
  it("answers 500 2001 synchronously when the source's callback endpoints are not known: no 202, no callback", async () => {
    const ledger = outage();
    ledger.state.down = true;
    stack = await startStack({ sims: { adminFaults: ledger.faults } });
    const traceId = newTraceId();
    const res = await getParties(stack.als.url, 'MSISDN/46700000001', traceId);
    expect(res.status).toBe(500);
    expect(errorCodeOf(res.body)).toBe('2001');
    expect(JSON.parse(res.body).errorInformation.errorDescription).toContain('payerfsp');
    await settled(stack.als);
    expect(stack.sims.payer?.callbacksFor(traceId)).toHaveLength(0);
  });

  it('accepts (202) and sends exactly one error callback 2001 when the endpoints are cached', async () => {
    const ledger = outage();
    // Participants are asked every time (no participant cache); endpoints stay cached.
    stack = await startStack({ sims: { adminFaults: ledger.faults }, config: { participantCacheTtlMs: 0 } });
    const warm = newTraceId();
    expect((await getParties(stack.als.url, 'MSISDN/46700000002', warm)).status).toBe(202);
    expect((await stack.sims.payer?.waitForCallback(warm, 5_000))?.kind).toBe('success');

    ledger.state.down = true;
    const traceId = newTraceId();
    const res = await getParties(stack.als.url, 'MSISDN/46700000003', traceId);
    expect(res.status).toBe(202);
    const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.kind).toBe('error');
    expect(errorCodeOf(callback?.body ?? '')).toBe('2001');
    await settled(stack.als);
    expect(stack.sims.payer?.callbacksFor(traceId)).toHaveLength(1);
  });
  it("tells the lookup's requester too when central-ledger is down as the payee's PUT callback arrives (the original answers only the payee)", async () => {
    const ledger = outage();
    stack = await startStack({ sims: { adminFaults: ledger.faults }, config: { participantCacheTtlMs: 0 } });
    // A lookup while central-ledger is up caches the payer's and the payee's callback endpoints.
    const warm = newTraceId();
    expect((await getParties(stack.als.url, 'MSISDN/46700000004', warm)).status).toBe(202);
    expect((await stack.sims.payer?.waitForCallback(warm, 5_000))?.kind).toBe('success');

    ledger.state.down = true;
    // The payee's answer to a lookup, sent as the payee would, while central-ledger cannot validate the FSPs.
    const traceId = newTraceId();
    const body = JSON.stringify({
      party: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '46700000005', fspId: 'payeefsp1' } },
    });
    const res = await call(`${stack.als.url}/parties/MSISDN/46700000005`, 'PUT', callbackHeaders(traceId), body);
    expect(res.status).toBe(200);
    const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.kind).toBe('error');
    expect(errorCodeOf(callback?.body ?? '')).toBe('2001');
    await settled(stack.als);
    expect(stack.sims.payer?.callbacksFor(traceId)).toHaveLength(1);
  });
});

describe('admission control', () => {
  it('answers 503 2003 with Retry-After past the bound without asking any upstream, and admits again after', async () => {
    stack = await startStack({
      sims: { oracleFaults: { latencyMs: 600 } },
      config: { maxLookupsInFlight: 4 },
    });
    const { sims, als } = stack;
    const traces = [1, 2, 3, 4].map(() => newTraceId());
    const accepted = await Promise.all(
      traces.map((trace, n) => getParties(als.url, `MSISDN/4670000010${n + 1}`, trace)),
    );
    expect(accepted.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    const refusedTrace = newTraceId();
    const refused = await getParties(als.url, 'MSISDN/46700000105', refusedTrace);
    expect(refused.status).toBe(503);
    expect(errorCodeOf(refused.body)).toBe('2003');
    const raw = await fetch(`${als.url}/participants/MSISDN/46700000106`, {
      headers: lookupHeaders(newTraceId(), {}, 'participants'),
    });
    expect(raw.status).toBe(503);
    expect(raw.headers.get('retry-after')).toBe('1');
    const metrics = await (await fetch(`${als.adminUrl}/metrics`)).text();
    expect(metrics).toContain('als_lookups_in_flight{state="in_flight"} 4');
    expect(metrics).toContain('als_lookups_in_flight{state="limit"} 4');
    // Once the four admitted lookups have called back and nothing accepted is left, the oracle (which counts a GET
    // after its 600 ms latency) has seen exactly their four GETs, and the refused lookup has no callback: refused
    // means no work at all.
    for (const trace of traces) expect((await sims.payer?.waitForCallback(trace, 5_000))?.kind).toBe('success');
    await settled(als);
    expect(sims.oracle.stats.get).toBe(4);
    expect(sims.payer?.callbacksFor(refusedTrace)).toHaveLength(0);

    // The bound counts lookups in flight, not requests ever made: once those finish, lookups are admitted.
    await expect
      .poll(async () => (await getParties(als.url, 'MSISDN/46700000107', newTraceId())).status, {
        timeout: 5_000,
        interval: 200,
      })
      .toBe(202);
  });

  it("keeps a forwarded lookup's slot until the payee calls back, or until the callback wait has passed", async () => {
    stack = await startStack({ config: { maxLookupsInFlight: 1, lookupCallbackWaitMs: 800 } });
    const { sims, als } = stack;
    // A payee that calls back frees the slot at once: lookups one after the other are all admitted.
    for (const n of [1, 2, 3]) {
      const traceId = newTraceId();
      expect((await getParties(als.url, `MSISDN/4670000020${n}`, traceId)).status).toBe(202);
      expect((await sims.payer?.waitForCallback(traceId, 5_000))?.kind).toBe('success');
    }
    // 40499... is not found at the oracle: the ALS's own error callback ends the lookup and frees the slot.
    const notFound = newTraceId();
    expect((await getParties(als.url, 'MSISDN/40499000001', notFound)).status).toBe(202);
    expect((await sims.payer?.waitForCallback(notFound, 5_000))?.kind).toBe('error');
    await expect
      .poll(async () => (await getParties(als.url, 'MSISDN/46700000204', newTraceId())).status, {
        timeout: 500,
        interval: 20,
      })
      .toBe(202);
  });

  it('frees the slot of a lookup whose payee never calls back after the callback wait', async () => {
    stack = await startStack({ sims: { dropRate: 1 }, config: { maxLookupsInFlight: 1, lookupCallbackWaitMs: 800 } });
    const { als } = stack;
    const started = performance.now();
    expect((await getParties(als.url, 'MSISDN/46700000301', newTraceId())).status).toBe(202);
    // The forward is done (the payee took the GET and will never call back): the slot is still held.
    await vi.waitFor(() => expect(stack?.sims.payee.stats.dropped).toBe(1));
    const refused = await getParties(als.url, 'MSISDN/46700000302', newTraceId());
    expect(refused.status).toBe(503);
    await expect
      .poll(async () => (await getParties(als.url, 'MSISDN/46700000303', newTraceId())).status, {
        timeout: 3_000,
        interval: 50,
      })
      .toBe(202);
    expect(performance.now() - started).toBeGreaterThan(700);
  });
});
