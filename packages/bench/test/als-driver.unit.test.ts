import { type PayeeSim, type PayerSim, startPayeeSim, startPayerSim } from '@mojafast/sim';
import { afterEach, describe, expect, it } from 'vitest';
import { runLookups } from '../src/als/driver.js';
import { partyIdSource } from '../src/als/party-ids.js';

// The driver against real simulators on loopback: the payee calls the payer back directly (the
// sims-only path), so what is counted is what the payer really received.

let payer: PayerSim | undefined;
let payee: PayeeSim | undefined;

afterEach(async () => {
  await payee?.close();
  await payer?.close();
  payee = payer = undefined;
});

async function sims(payeeOptions: Parameters<typeof startPayeeSim>[0] = {}) {
  payer = await startPayerSim({ port: 0 });
  payee = await startPayeeSim({ port: 0, alsUrl: payer.url, ...payeeOptions });
  return { payer, payee };
}

const common = {
  warmupSeconds: 0,
  durationSeconds: 30,
  timeoutMs: 1000,
  version: '1.1' as const,
  payerFsp: 'payerfsp',
  destination: 'payeefsp1',
};

describe('ALS driver', () => {
  it('counts a lookup done only when its callback reached the payer, and stops at --iterations', async () => {
    const { payer, payee } = await sims();
    const result = await runLookups({
      ...common,
      alsUrl: payee.url,
      payer,
      model: { kind: 'closed', vus: 4, thinkMs: 0 },
      iterations: 200,
      nextPartyId: partyIdSource({ kind: 'new' }),
    });
    expect(result.passes).toBeGreaterThanOrEqual(200);
    expect(result.fails).toBe(0);
    // Lookups started before the measured window opened (one per VU at most) are sent but not counted.
    expect(payee.stats.lookups).toBeGreaterThanOrEqual(result.passes);
    expect(payee.stats.lookups).toBeLessThanOrEqual(result.passes + 4);
    expect(payer.stats.callbacks).toBe(payee.stats.lookups);
    expect(result.e2e.count).toBe(result.passes);
    expect(result.metrics.get('checks')).toMatchObject({ passes: result.passes, fails: 0 });
  });

  it('counts a dropped callback as a failed check after the per-lookup timeout (fault: payee never calls back)', async () => {
    const { payer, payee } = await sims({ dropRate: 1 });
    const result = await runLookups({
      ...common,
      timeoutMs: 200,
      alsUrl: payee.url,
      payer,
      model: { kind: 'closed', vus: 2, thinkMs: 0 },
      iterations: 6,
      nextPartyId: partyIdSource({ kind: 'new' }),
    });
    expect(result.passes).toBe(0);
    expect(result.timeouts).toBe(result.fails);
    expect(result.fails).toBeGreaterThanOrEqual(6);
  });

  it('counts error callbacks as failed checks (fault: payee answers PUT .../error)', async () => {
    const { payer, payee } = await sims({ errorPrefix: '' });
    const result = await runLookups({
      ...common,
      alsUrl: payee.url,
      payer,
      model: { kind: 'closed', vus: 2, thinkMs: 0 },
      iterations: 10,
      nextPartyId: partyIdSource({ kind: 'new' }),
    });
    expect(result.passes).toBe(0);
    expect(result.metrics.get('error_callbacks')).toMatchObject({ count: result.fails });
  });

  it('open model: starts lookups at the arrival rate and counts iterations dropped when max VUs are busy', async () => {
    const { payer, payee } = await sims({ callbackDelayMs: 300 });
    const result = await runLookups({
      ...common,
      durationSeconds: 1,
      alsUrl: payee.url,
      payer,
      model: { kind: 'open', rate: 100, maxVus: 5 },
      nextPartyId: partyIdSource({ kind: 'hot', size: 10 }),
    });
    // 5 in flight, each held ~300 ms: about 17 lookups/s complete, the rest of the 100/s are dropped.
    expect(result.dropped).toBeGreaterThan(50);
    expect(result.passes).toBeGreaterThan(5);
    expect(result.passes).toBeLessThan(40);
  });
});
