import { type SimSet, startSimSet } from '@mojafast/sim';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRelay } from '../src/als/relay.js';
import { lookupRequest } from '../src/als/request.js';

// The floor of `bench:als --floor` in this process: it must do a lookup's exchanges, or the ALS would be
// compared with a relay that skips some of them (the oracle's GET, the payee's, the callback forwarded).
let sims: SimSet;
let relay: FastifyInstance;

beforeAll(async () => {
  sims = await startSimSet({ fsps: 3, recordHistory: true });
  relay = await startRelay({ port: 0, switchEndpoint: sims.admin.url, oracleUrl: sims.oracle.url });
  const address = relay.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the relay listens on no port');
  sims.payee.setAlsUrl(`http://127.0.0.1:${address.port}`);
});
afterAll(async () => {
  await relay?.close();
  await sims?.close();
});

describe('the relay floor', () => {
  it('relays a lookup: accepted, the oracle and the payee asked, the payee callback forwarded to the payer', async () => {
    const address = relay.server.address() as { port: number };
    const request = lookupRequest('46740000001', { version: '1.1', source: 'payerfsp', now: Date.now() });
    const answer = await fetch(`http://127.0.0.1:${address.port}${request.path}`, { headers: request.headers });
    expect(answer.status).toBe(202);
    const callback = await sims.payer?.waitForCallback(request.traceId, 5_000);
    expect(callback?.kind).toBe('success');
    expect(callback?.path).toBe('/parties/MSISDN/46740000001');
  });
});
