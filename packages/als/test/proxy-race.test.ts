import { partyBody } from '@mojafast/sim';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lookupHeaders, newTraceId, type Stack, settled, startStack } from './helpers.js';
import { type ProxySim, startProxySim } from './proxy-sim.js';
import { createTestRedis, type TestRedis } from './redis.js';
import { startRedisCluster, type TestRedisCluster } from './redis-cluster.js';

// Two proxies of other schemes answering one inter-scheme lookup at the same moment: whatever the mix of
// answers, the requester hears exactly one outcome. The proxies stay silent on the fan-out's GET; the test
// then sends both proxies' PUTs to the ALS together, so both reach the proxy cache's "is this the last
// answer?" decision at once. Run on one Redis and on a Redis Cluster (where one lookup's keys sit in
// different slots), 100 lookups per mix.
const LOOKUPS = 100;
const CONCURRENT_LOOKUPS = 4;

type Answer = 'success' | 'error';
const mixes: readonly (readonly [Answer, Answer])[] = [
  ['error', 'error'],
  ['success', 'error'],
  ['success', 'success'],
];

interface Deployment {
  readonly name: string;
  start(): Promise<{ config: Record<string, unknown>; keys(): Promise<string[]>; stop(): Promise<void> }>;
}

const deployments: readonly Deployment[] = [
  {
    name: 'one Redis',
    async start() {
      const redis: TestRedis = await createTestRedis();
      const node = redis.options.nodes[0];
      return {
        config: {
          proxyCacheType: 'redis',
          proxyCacheNodes: `${node?.host}:${node?.port}`,
          proxyCacheDb: redis.options.db,
        },
        keys: () => redis.client.keys('als:*'),
        stop: () => redis.drop(),
      };
    },
  },
  {
    name: 'a Redis Cluster',
    async start() {
      const cluster: TestRedisCluster = await startRedisCluster();
      return {
        config: {
          proxyCacheType: 'redis-cluster',
          proxyCacheNodes: cluster.options.nodes.map((n) => `${n.host}:${n.port}`).join(','),
        },
        async keys() {
          const all = await Promise.all(cluster.client.nodes('master').map((n) => n.keys('als:*')));
          return all.flat();
        },
        stop: () => cluster.stop(),
      };
    },
  },
];

describe.each(deployments)('concurrent proxy answers on $name', (deployment) => {
  let backend: Awaited<ReturnType<Deployment['start']>>;
  let proxyA: ProxySim;
  let proxyB: ProxySim;
  let stack: Stack;

  beforeAll(async () => {
    backend = await deployment.start();
    proxyA = await startProxySim('proxyA', 'remotefspA', 'silent');
    proxyB = await startProxySim('proxyB', 'remotefspB', 'silent');
    stack = await startStack({
      sims: {
        fsps: 5,
        participants: {
          proxyA: { endpointBase: proxyA.url, isProxy: true },
          proxyB: { endpointBase: proxyB.url, isProxy: true },
        },
      },
      config: {
        proxyCache: true,
        proxyCacheExpiresInSec: 30,
        participantCacheTtlMs: 0,
        ...backend.config,
      },
    });
  }, 30_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([proxyA, proxyB].map((p) => p?.close()));
    await backend?.stop();
  });

  /** The PUT (or PUT …/error) a proxy sends back for the fan-out's GET it received. */
  const answer = (proxy: ProxySim, kind: Answer, type: string, id: string, traceparent: string) =>
    request(`${stack.als.url}/parties/${type}/${id}${kind === 'error' ? '/error' : ''}`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/vnd.interoperability.parties+json;version=1.1',
        date: new Date().toUTCString(),
        'fspiop-source': proxy.remoteFsp,
        'fspiop-destination': 'payerfsp',
        'fspiop-proxy': proxy.name,
        traceparent,
      },
      body:
        kind === 'error'
          ? '{"errorInformation":{"errorCode":"3204","errorDescription":"Party not found"}}'
          : partyBody(type, id, undefined, proxy.remoteFsp, '1.1'),
    }).then(async (res) => {
      await res.body.dump();
      return res.statusCode;
    });

  it.each(mixes)(
    '%s + %s: one callback per lookup',
    async (first, second) => {
      const prefix = `404${mixes.findIndex((m) => m[0] === first && m[1] === second)}`;
      const traces: { traceId: string; id: string }[] = [];
      const lookup = async (n: number) => {
        const traceId = newTraceId();
        const id = `${prefix}${String(n).padStart(6, '0')}`;
        traces.push({ traceId, id });
        const headers = lookupHeaders(traceId);
        const res = await request(`${stack.als.url}/parties/MSISDN/${id}`, { method: 'GET', headers });
        await res.body.dump();
        expect(res.statusCode).toBe(202);
        const fanOut = (p: ProxySim) =>
          p.received.find((r) => r.method === 'GET' && r.path === `/parties/MSISDN/${id}`);
        await vi.waitFor(() => expect(fanOut(proxyA) && fanOut(proxyB)).toBeTruthy(), { timeout: 5_000, interval: 5 });
        // The second answer 0-3 ms after the first: the flows of a success and of an error take different
        // numbers of Redis round trips before the decision, so some offset lines their decisions up.
        const statuses = await Promise.all([
          answer(proxyA, first, 'MSISDN', id, headers.traceparent as string),
          new Promise((resolve) => (n % 4 === 0 ? resolve(undefined) : setTimeout(resolve, n % 4))).then(() =>
            answer(proxyB, second, 'MSISDN', id, headers.traceparent as string),
          ),
        ]);
        expect(statuses).toEqual([200, 200]);
      };
      for (let n = 0; n < LOOKUPS; n += CONCURRENT_LOOKUPS) {
        await Promise.all(Array.from({ length: Math.min(CONCURRENT_LOOKUPS, LOOKUPS - n) }, (_, k) => lookup(n + k)));
      }
      await settled(stack.als, 10_000);

      const counts = traces.map(({ traceId }) => stack.sims.payer?.callbacksFor(traceId) ?? []);
      const twice = counts.filter((c) => c.length > 1).length;
      const none = counts.filter((c) => c.length === 0).length;
      console.log(
        `${deployment.name}, ${first} + ${second}: ${twice} of ${LOOKUPS} lookups got 2+ callbacks, ${none} got none`,
      );
      expect({ twice, none }).toEqual({ twice: 0, none: 0 });
      const wanted = first === 'success' || second === 'success' ? 'success' : 'error';
      expect(counts.filter((c) => c[0]?.kind !== wanted)).toEqual([]);
      // Every lookup is forgotten once answered: no key of it is left for the timeout handler.
      expect(await backend.keys()).toEqual([]);
    },
    60_000,
  );
});
