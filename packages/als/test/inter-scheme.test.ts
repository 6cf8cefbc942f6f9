import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config/index.js';
import { type RunningAls, startAls } from '../src/main.js';
import { call, errorCodeOf, lookupHeaders, newTraceId, type Stack, settled, startStack } from './helpers.js';
import { type ProxySim, startProxySim } from './proxy-sim.js';
import { createTestRedis, type TestRedis } from './redis.js';

// Inter-scheme discovery end to end: a real Redis (its own database), the simulators, and two proxies of
// other schemes on loopback ports. IDs starting 404 are unknown to the oracle simulator.
let redis: TestRedis;
let proxyA: ProxySim;
let proxyB: ProxySim;
let recorder: ProxySim;
let stack: Stack;
let second: RunningAls | undefined;

const proxyConfig = () => ({
  proxyCache: true,
  proxyCacheNodes: `${redis.options.nodes[0]?.host}:${redis.options.nodes[0]?.port}`,
  proxyCacheDb: redis.options.db ?? 0,
  proxyCacheExpiresInSec: 1,
  timeoutSchedule: '* * * * * *',
  participantCacheTtlMs: 0,
});

beforeAll(async () => {
  redis = await createTestRedis();
  proxyA = await startProxySim('proxyA', 'remotefsp', 'answers');
  proxyB = await startProxySim('proxyB', 'farfsp', 'fails');
  // An FSP of this scheme whose callbacks are recorded whatever their trace (the timeout's 3300 has none).
  recorder = await startProxySim('recorder', '', 'silent');
  stack = await startStack({
    sims: {
      fsps: 5,
      participants: {
        proxyA: { endpointBase: proxyA.url, isProxy: true },
        proxyB: { endpointBase: proxyB.url, isProxy: true },
        timeoutfsp: { endpointBase: recorder.url },
      },
    },
    config: proxyConfig(),
  });
  for (const p of [proxyA, proxyB, recorder]) p.setAlsUrl(stack.als.url);
});
afterAll(async () => {
  await second?.close();
  await stack?.close();
  await Promise.all([proxyA, proxyB, recorder].map((p) => p?.close()));
  await redis?.drop();
});

const gets = (p: ProxySim, id: string) => p.received.filter((r) => r.method === 'GET' && r.path.includes(id));

describe('inter-scheme discovery through the proxies', () => {
  it('a party known only behind a proxy: both proxies asked, the one that answers wins, the failing one is dropped', async () => {
    const traceId = newTraceId();
    const id = '4041000001';
    const res = await call(`${stack.als.url}/parties/MSISDN/${id}`, 'GET', lookupHeaders(traceId));
    expect(res.status).toBe(202);
    const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.kind).toBe('success');
    expect(callback?.headers['fspiop-source']).toBe('remotefsp');
    expect(callback?.headers['fspiop-destination']).toBe('payerfsp');
    expect(callback?.headers['fspiop-proxy']).toBe('proxyA');
    // The fan-out carries no FSPIOP-Destination (GetPartiesService.triggerInterSchemeDiscoveryFlow).
    expect(gets(proxyA, id)).toHaveLength(1);
    expect(gets(proxyB, id)).toHaveLength(1);
    expect(gets(proxyA, id)[0]?.headers['fspiop-destination']).toBeUndefined();
    // Remembered: the remote FSP sits behind proxyA, and the oracle now places the party there.
    expect(await redis.client.get('dfsp:remotefsp')).toBe('proxyA');
    await vi.waitFor(() => expect(stack.sims.oracle.lookup('MSISDN', id)).toEqual([{ fspId: 'remotefsp' }]));
    expect(await redis.client.keys('als:*')).toEqual([]);
    await settled(stack.als);
    expect(stack.sims.payer?.callbacksFor(traceId)).toHaveLength(1);
  });

  it('the second lookup of that party goes straight to the remembered proxy', async () => {
    const traceId = newTraceId();
    const id = '4041000001';
    const res = await call(`${stack.als.url}/parties/MSISDN/${id}`, 'GET', lookupHeaders(traceId));
    expect(res.status).toBe(202);
    const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.headers['fspiop-source']).toBe('remotefsp');
    expect(gets(proxyA, id)).toHaveLength(2);
    expect(gets(proxyA, id)[1]?.headers['fspiop-destination']).toBe('remotefsp');
    expect(gets(proxyB, id)).toHaveLength(1);
  });

  it('one proxy finds the party, the other answers an error: the error is dropped, the payer hears the party once', async () => {
    proxyB.behaviour = 'errors';
    try {
      const traceId = newTraceId();
      const id = '4041000004';
      const res = await call(`${stack.als.url}/parties/MSISDN/${id}`, 'GET', lookupHeaders(traceId));
      expect(res.status).toBe(202);
      const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
      expect(callback?.kind).toBe('success');
      // Both proxies have answered the ALS (proxyB's PUT …/error is a request to the ALS, seen in its metrics).
      await vi.waitFor(async () => {
        const metrics = await (await fetch(`${stack.als.adminUrl}/metrics`)).text();
        expect(metrics).toMatch(/als_events_total\{event="proxy_error_dropped"\} [1-9]/);
      });
      await settled(stack.als);
      expect(stack.sims.payer?.callbacksFor(traceId)).toHaveLength(1);
      expect(await redis.client.keys('als:*')).toEqual([]);
    } finally {
      proxyB.behaviour = 'fails';
    }
  });

  it('every proxy failing: one error callback, 3200 in the original words', async () => {
    proxyA.behaviour = 'fails';
    try {
      const traceId = newTraceId();
      const res = await call(`${stack.als.url}/parties/MSISDN/4041000002`, 'GET', lookupHeaders(traceId));
      expect(res.status).toBe(202);
      const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
      expect(callback?.kind).toBe('error');
      expect(JSON.parse(String(callback?.body)).errorInformation).toEqual({
        errorCode: '3200',
        errorDescription: 'Generic ID not found - Proxy connection error - no successful requests sent to proxies',
      });
      await settled(stack.als);
      expect(stack.sims.payer?.callbacksFor(traceId)).toHaveLength(1);
    } finally {
      proxyA.behaviour = 'answers';
    }
  });

  it('a request from another scheme, through its proxy, reaches a local FSP and its answer goes back through the proxy', async () => {
    const traceId = newTraceId();
    const id = '46700000077';
    const res = await call(
      `${stack.als.url}/parties/MSISDN/${id}`,
      'GET',
      lookupHeaders(traceId, { 'fspiop-source': 'otherfsp', 'fspiop-proxy': 'proxyB' }),
    );
    expect(res.status).toBe(202);
    expect(await redis.client.get('dfsp:otherfsp')).toBe('proxyB');
    // The payee's PUT names otherfsp, which is no participant here: the ALS sends it to proxyB.
    await vi.waitFor(() =>
      expect(proxyB.received.filter((r) => r.method === 'PUT' && r.path === `/parties/MSISDN/${id}`)).toHaveLength(1),
    );
    const put = proxyB.received.find((r) => r.method === 'PUT' && r.path === `/parties/MSISDN/${id}`);
    expect(put?.headers['fspiop-destination']).toBe('otherfsp');
  });

  it('bad input: an unknown proxy name and a malformed FSPIOP-Proxy get the original 400 3101', async () => {
    for (const proxy of ['nosuchproxy', 'x'.repeat(40), '']) {
      const res = await call(
        `${stack.als.url}/parties/MSISDN/46700000078`,
        'GET',
        lookupHeaders(newTraceId(), { 'fspiop-source': 'otherfsp2', 'fspiop-proxy': proxy }),
      );
      expect(res.status, proxy).toBe(400);
      expect(JSON.parse(res.body).errorInformation).toEqual({
        errorCode: '3101',
        errorDescription: 'Malformed syntax - invalid fspiop-source header',
      });
    }
    expect(await redis.client.get('dfsp:otherfsp2')).toBeNull();
  });

  it('a lookup no proxy answers expires: exactly one 3300 though two ALS processes run the timeout handler', async () => {
    second = await startAls(
      loadConfig(
        {},
        {
          host: '127.0.0.1',
          port: 0,
          adminPort: 0,
          logLevel: 'silent',
          switchEndpoint: stack.sims.admin.url,
          oracleUrl: stack.sims.oracle.url,
          ...proxyConfig(),
        },
      ),
    );
    proxyA.behaviour = 'silent';
    proxyB.behaviour = 'silent';
    try {
      /** A lookup from timeoutfsp that no proxy answers; answers a reader of its error callbacks, once one came. */
      const expiringLookup = async (id: string) => {
        const res = await call(
          `${stack.als.url}/parties/MSISDN/${id}`,
          'GET',
          lookupHeaders(newTraceId(), { 'fspiop-source': 'timeoutfsp' }),
        );
        expect(res.status).toBe(202);
        const errors = () => recorder.received.filter((r) => r.path === `/parties/MSISDN/${id}/error`);
        await vi.waitFor(() => expect(errors()).toHaveLength(1), { timeout: 5_000, interval: 100 });
        return errors;
      };
      const errors = await expiringLookup('4041000003');
      const [answer] = errors();
      expect(answer?.headers['fspiop-source']).toBe('Hub');
      expect(answer?.headers['fspiop-destination']).toBe('timeoutfsp');
      expect(JSON.parse(String(answer?.body))).toEqual({
        errorInformation: { errorCode: '3300', errorDescription: 'Generic expired error' },
      });
      // A later lookup that expires the same way is the marker: its 3300 comes from a tick of the handlers at least
      // a second after the first answer, and by then the first lookup must still have had exactly one.
      await expiringLookup('4041000006');
      expect(errors()).toHaveLength(1);
      expect(errorCodeOf(String(answer?.body))).toBe('3300');
    } finally {
      proxyA.behaviour = 'answers';
      proxyB.behaviour = 'fails';
    }
  });

  it('/health covers the proxy cache', async () => {
    const res = await call(`${stack.als.adminUrl}/health`, 'GET', {});
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).services).toContainEqual({ name: 'proxyCache', status: 'OK' });
  });
});
