import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAlsKey } from '../src/discovery/proxy-cache.js';
import { createRedisProxyCache, type RedisProxyCache } from '../src/upstream/proxy-cache-redis.js';
import { createRedisLock, TIMEOUT_HANDLER_LOCK_KEY } from '../src/upstream/redis-lock.js';
import { createTestRedis, type TestRedis } from './redis.js';

// The proxy cache against a real Redis, checked key by key against the original library's layout
// (@mojaloop/inter-scheme-proxy-cache-lib 2.10, RedisProxyCache.js), so both can share one cache.
describe('proxy cache on Redis', () => {
  let redis: TestRedis;
  let cache: RedisProxyCache;
  beforeAll(async () => {
    redis = await createTestRedis();
    cache = createRedisProxyCache(redis.options);
    await cache.connect();
  });
  afterAll(async () => {
    await cache?.disconnect();
    await redis?.drop();
  });

  it('maps an FSP of another scheme to its proxy under dfsp:{id}', async () => {
    expect(await cache.addDfspIdToProxyMapping('remotefsp', 'proxyA')).toBe(true);
    expect(await redis.client.get('dfsp:remotefsp')).toBe('proxyA');
    expect(await cache.lookupProxyByDfspId('remotefsp')).toBe('proxyA');
    expect(await cache.removeDfspIdFromProxyMapping('remotefsp')).toBe(true);
    expect(await cache.lookupProxyByDfspId('remotefsp')).toBeNull();
    // Bad input: a dfspId longer than the library's 32 characters is refused, not stored.
    await expect(cache.addDfspIdToProxyMapping('x'.repeat(33), 'proxyA')).rejects.toThrow(/invalid dfspId/);
  });

  it('a lookup sent to two proxies: the first success wins, the late error is not the last without success', async () => {
    const req = { sourceId: 'payerfsp', type: 'MSISDN', partyId: '111' };
    expect(await cache.setSendToProxiesList(req, ['proxyA', 'proxyB', 'proxyA'], 20)).toBe(true);
    expect((await redis.client.smembers('als:payerfsp:MSISDN:111')).sort()).toEqual(['proxyA', 'proxyB']);
    expect(Number(await redis.client.get('als:payerfsp:MSISDN:111:expiresAt'))).toBeGreaterThan(Date.now());
    // The same lookup again while it is in flight is refused (the original then answers 'Failed to cache').
    expect(await cache.setSendToProxiesList(req, ['proxyA'], 20)).toBe(false);

    expect(await cache.isPendingCallback(req, 'proxyB')).toBe(true);
    expect(await cache.isPendingCallback(req, 'proxyC')).toBe(false);
    expect(await cache.receivedSuccessResponse(req, 'proxyB')).toBe('first');
    expect(await redis.client.get('als:payerfsp:MSISDN:111:success')).toBe('proxyB');
    // proxyA's error is the last answer, but one proxy succeeded: nothing to tell the requester.
    expect(await cache.receivedErrorResponse(req, 'proxyA')).toBe(false);
    expect(await redis.client.exists('als:payerfsp:MSISDN:111', 'als:payerfsp:MSISDN:111:expiresAt')).toBe(0);
    // A success from a proxy that was not asked is not an inter-scheme answer.
    expect(await cache.receivedSuccessResponse(req, 'proxyC')).toBe('not-awaited');
  });

  it('two proxies finding the party: the first is the answer, the second is late', async () => {
    const req = { sourceId: 'payerfsp', type: 'MSISDN', partyId: '666' };
    await cache.setSendToProxiesList(req, ['proxyA', 'proxyB'], 20);
    expect(await cache.receivedSuccessResponse(req, 'proxyB')).toBe('first');
    expect(await cache.receivedSuccessResponse(req, 'proxyA')).toBe('late');
    expect(await redis.client.keys('als:payerfsp:MSISDN:666*')).toEqual([]);
    // A success key left behind by an earlier lookup of the party does not make the next one's answer late.
    await redis.client.set('als:payerfsp:MSISDN:666:success', 'proxyA');
    await cache.setSendToProxiesList(req, ['proxyA', 'proxyB'], 20);
    expect(await cache.receivedSuccessResponse(req, 'proxyA')).toBe('first');
  });

  it('every proxy failing: only the last error is the last without success', async () => {
    const req = { sourceId: 'payerfsp', type: 'MSISDN', partyId: '222' };
    await cache.setSendToProxiesList(req, ['proxyA', 'proxyB'], 20);
    expect(await cache.receivedErrorResponse(req, 'proxyA')).toBe(false);
    expect(await cache.receivedErrorResponse(req, 'proxyB')).toBe(true);
    expect(await cache.receivedErrorResponse(req, 'proxyB')).toBe(false);
  });

  it('an expired lookup with no success is handed out once, even to two handlers at the same time', async () => {
    const expired = { sourceId: 'payerfsp', type: 'MSISDN', partyId: '333' };
    const answered = { sourceId: 'payerfsp', type: 'MSISDN', partyId: '444' };
    const pending = { sourceId: 'payerfsp', type: 'MSISDN', partyId: '555' };
    await cache.setSendToProxiesList(expired, ['proxyA'], 20);
    await cache.setSendToProxiesList(answered, ['proxyA', 'proxyB'], 20);
    await cache.setSendToProxiesList(pending, ['proxyA'], 20);
    await cache.receivedSuccessResponse(answered, 'proxyA');
    const past = String(Date.now() - 1);
    await redis.client.set('als:payerfsp:MSISDN:333:expiresAt', past);
    await redis.client.set('als:payerfsp:MSISDN:444:expiresAt', past);

    const second = createRedisProxyCache(redis.options);
    await second.connect();
    const seen: string[] = [];
    const counts = await Promise.all([
      cache.processExpiredAlsKeys(async (key) => void seen.push(key), 10),
      second.processExpiredAlsKeys(async (key) => void seen.push(key), 10),
    ]);
    await second.disconnect();
    expect(seen).toEqual(['als:payerfsp:MSISDN:333']);
    expect(counts[0] + counts[1]).toBe(1);
    expect(parseAlsKey(seen[0] as string)).toEqual(expired);
    expect(await redis.client.exists('als:payerfsp:MSISDN:333', 'als:payerfsp:MSISDN:444:success')).toBe(0);
    expect(await cache.isPendingCallback(pending, 'proxyA')).toBe(true);
  });

  it('the timeout lock: of two processes racing, one wins; released, the other gets it', async () => {
    const a = createRedisLock(redis.client, TIMEOUT_HANDLER_LOCK_KEY, 10_000);
    const b = createRedisLock(cache.client, TIMEOUT_HANDLER_LOCK_KEY, 10_000);
    const won = await Promise.all([a.acquire(), b.acquire()]);
    expect(won.filter(Boolean)).toHaveLength(1);
    const [winner, loser] = won[0] ? [a, b] : [b, a];
    await loser.release(); // not the holder: must not free the winner's lock
    expect(await loser.acquire()).toBe(false);
    await winner.release();
    expect(await loser.acquire()).toBe(true);
    await loser.release();
  });

  it('health: PONG is healthy; a closed client is not', async () => {
    expect(await cache.healthCheck()).toBe(true);
    const gone = createRedisProxyCache({ ...redis.options, nodes: [{ host: '127.0.0.1', port: 1 }] });
    expect(await gone.healthCheck()).toBe(false);
    gone.client.disconnect();
  });
});
