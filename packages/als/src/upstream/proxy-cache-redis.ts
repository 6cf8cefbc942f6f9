import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { AlsRequest, ProxyCache } from '../discovery/proxy-cache.js';
import { isCertificateFailure } from './tls.js';

/**
 * The inter-scheme proxy cache on Redis or Redis Cluster, with the keys and semantics of the original's
 * @mojaloop/inter-scheme-proxy-cache-lib 2.10 (dist/lib/storages/RedisProxyCache.js), so an original ALS
 * and this one can share a cache:
 *   dfsp:{dfspId}                          → proxy name
 *   als:{sourceId}:{type}:{partyId}        → set of the proxies still awaited
 *   als:{sourceId}:{type}:{partyId}:expiresAt → epoch ms when the lookup times out
 *   als:{sourceId}:{type}:{partyId}:success   → the proxy that found the party
 *   getParties:{proxy}:{sourceId}:{type}:{partyId}:expiresAt
 */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

export interface ProxyCacheRedisOptions {
  readonly type: 'redis' | 'redis-cluster';
  readonly nodes: readonly RedisNode[];
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** The database number (plain Redis only; a cluster has database 0 only). */
  readonly db?: number | undefined;
  /** node:tls options (upstream/tls.ts tlsOptions): TLS to the Redis, to each node of a cluster; undefined: none. */
  readonly tls?: ConnectionOptions | undefined;
  /** Every Redis command fails after this instead of queueing while Redis is away. */
  readonly commandTimeoutMs: number;
}

export interface RedisProxyCache extends ProxyCache {
  readonly client: Redis | Cluster;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

// The library validates IDs before building keys (src/validation.ts): a dfspId is 1-32 characters, and no
// key part may hold the separator, so an FSPIOP-Source cannot forge another lookup's key.
function dfspKey(dfspId: string): string {
  if (dfspId.length < 1 || dfspId.length > 32) throw new Error(`proxy cache: invalid dfspId "${dfspId}"`);
  return `dfsp:${dfspId}`;
}

function alsKey(req: AlsRequest): string {
  for (const part of [req.sourceId, req.type, req.partyId]) {
    if (part === '') throw new Error('proxy cache: alsRequest has an empty part');
  }
  return `als:${req.sourceId}:${req.type}:${req.partyId}`;
}

const expiryKeyOf = (req: AlsRequest) => `${alsKey(req)}:expiresAt`;
const successKeyOf = (req: AlsRequest) => `${alsKey(req)}:success`;
const getPartiesExpiryKey = (req: AlsRequest, proxyId: string) =>
  `getParties:${proxyId}:${req.sourceId}:${req.type}:${req.partyId}:expiresAt`;

export function createRedisClient(options: ProxyCacheRedisOptions): Redis | Cluster {
  const common: RedisOptions = {
    lazyConnect: true,
    username: options.username,
    password: options.password,
    db: options.db ?? 0,
    commandTimeout: options.commandTimeoutMs,
    // A Redis that is away fails the command at once (the flows answer an error) instead of queueing it.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // A cluster's nodes are connected with redisOptions (the Cluster's own options carry no TLS): so this
    // reaches every node the cluster names, as the original's `proxyConfig.redisOptions.tls` does.
    ...(options.tls !== undefined ? { tls: options.tls } : {}),
  };
  if (options.type === 'redis-cluster') {
    return new Cluster(
      options.nodes.map((n) => ({ host: n.host, port: n.port })),
      { lazyConnect: true, enableOfflineQueue: false, redisOptions: { ...common, db: 0 } },
    );
  }
  const [node] = options.nodes;
  if (node === undefined) throw new Error('proxy cache: no Redis node configured');
  return new Redis({ ...common, host: node.host, port: node.port });
}

export function createRedisProxyCache(options: ProxyCacheRedisOptions): RedisProxyCache {
  const client = createRedisClient(options);
  const isCluster = options.type === 'redis-cluster';
  // An unhandled 'error' event would crash the process; a lost connection shows as failed commands and a
  // DOWN /health instead. The last one is kept for connect(): ioredis rejects a refused TLS handshake with
  // "Connection is closed", the reason (an untrusted certificate) only in this event.
  let lastError: unknown;
  client.on('error', (error: unknown) => {
    lastError = error;
  });

  const del = async (...keys: string[]) => {
    // In a cluster the keys may sit in different slots: one DEL each (the library does the same).
    if (isCluster) return (await Promise.all(keys.map((k) => client.del(k)))).reduce((a, b) => a + b, 0);
    return client.del(...keys);
  };

  /**
   * This proxy's answer is in: drops it from the lookup's set and tells whether it was the last one awaited;
   * on the last one the lookup's keys are dropped and `hadSuccess` tells whether a proxy found the party.
   * SREM and SCARD go in one MULTI (the original's library pipelines them): sent as two commands, two
   * answers arriving together could both remove themselves before either counts, both see 0, and the
   * requester would hear two outcomes. Both commands name the one set key, so a cluster runs them in its slot.
   */
  const isLastCallback = async (req: AlsRequest, proxyId: string) => {
    const key = alsKey(req);
    const results = await client.multi().srem(key, proxyId).scard(key).exec();
    if (results === null) throw new Error('proxy cache: MULTI of SREM/SCARD was discarded');
    const [[sremError, removed] = [], [scardError, card] = []] = results;
    if (sremError || scardError) throw sremError ?? scardError;
    const isLast = removed === 1 && card === 0;
    let hadSuccess = false;
    if (isLast) {
      const [, , successCount] = await Promise.all([
        client.del(key),
        client.del(expiryKeyOf(req)),
        client.del(successKeyOf(req)),
      ]);
      hadSuccess = successCount === 1;
    }
    return { removed: removed === 1, isLast, hadSuccess };
  };

  const isPendingCallback = async (req: AlsRequest, proxyId: string | undefined) => {
    if (!proxyId) return false;
    return (await client.sismember(alsKey(req), proxyId)) === 1;
  };

  /**
   * One expired lookup. The original reads the expiry, then deletes; two handlers racing could both
   * call back. Here only the caller whose DEL removed the expiry key calls back, so an expired lookup
   * gets its 3303 exactly once even when the timeout lock is off.
   */
  const processExpiryKey = async (expiryKey: string, onExpired: (key: string) => Promise<void>) => {
    const expiresAt = await client.get(expiryKey);
    if (expiresAt === null || Number(expiresAt) >= Date.now()) return false;
    if ((await client.del(expiryKey)) !== 1) return false;
    const actualKey = expiryKey.slice(0, -':expiresAt'.length);
    const successKey = `${actualKey}:success`;
    const [, winner] = await Promise.all([client.del(actualKey), client.get(successKey)]);
    if (winner !== null) {
      // A proxy found the party in time: nothing to tell the requester.
      await client.del(successKey);
      return false;
    }
    await onExpired(actualKey);
    return true;
  };

  const nodes = (): Redis[] => (isCluster ? (client as Cluster).nodes('master') : [client as Redis]);

  return {
    client,
    async connect() {
      lastError = undefined;
      try {
        await client.connect();
      } catch (error) {
        throw isCertificateFailure(lastError) ? lastError : error;
      }
    },
    async disconnect() {
      client.disconnect();
    },
    async addDfspIdToProxyMapping(dfspId, proxyId) {
      return (await client.set(dfspKey(dfspId), proxyId)) === 'OK';
    },
    async lookupProxyByDfspId(dfspId) {
      return client.get(dfspKey(dfspId));
    },
    async removeDfspIdFromProxyMapping(dfspId) {
      return (await client.del(dfspKey(dfspId))) === 1;
    },
    async setSendToProxiesList(req, proxyIds, ttlSec) {
      if (!(ttlSec > 0)) throw new Error(`proxy cache: invalid TTL ${ttlSec}`);
      const key = alsKey(req);
      if ((await client.exists(key)) === 1) return false;
      const unique = [...new Set(proxyIds)];
      if (unique.length === 0) return false;
      const expiresAt = String(Date.now() + ttlSec * 1000);
      // A success key left by an earlier lookup of the party that ended without its cleanup (its expiry
      // handled while a success was being stored) would make this lookup's first success look late.
      const [added, set] = await Promise.all([
        client.sadd(key, ...unique),
        client.set(expiryKeyOf(req), expiresAt),
        client.del(successKeyOf(req)),
      ]);
      return added === unique.length && set === 'OK';
    },
    isPendingCallback,
    async receivedSuccessResponse(req, proxyId) {
      if (!(await isPendingCallback(req, proxyId))) return 'not-awaited';
      // SET NX: of two proxies that both found the party, the first is the lookup's answer (the original's
      // plain SET lets each one win). The success key is set before this proxy leaves the set, so an error
      // that turns out to be the last one sees it.
      const first = (await client.set(successKeyOf(req), proxyId, 'NX')) === 'OK';
      const { removed } = await isLastCallback(req, proxyId);
      if (first) return 'first';
      return removed ? 'late' : 'not-awaited';
    },
    async receivedErrorResponse(req, proxyId) {
      const { isLast, hadSuccess } = await isLastCallback(req, proxyId);
      return isLast && !hadSuccess;
    },
    async removeProxyGetPartiesTimeout(req, proxyId) {
      return (await del(getPartiesExpiryKey(req, proxyId ?? ''))) > 0;
    },
    async processExpiredAlsKeys(onExpired, batchSize) {
      let expired = 0;
      for (const node of nodes()) {
        const stream = node.scanStream({ match: 'als:*:*:*:expiresAt', count: batchSize });
        for await (const keys of stream as AsyncIterable<string[]>) {
          const results = await Promise.all(keys.map((k) => processExpiryKey(k, onExpired).catch(() => false)));
          expired += results.filter(Boolean).length;
        }
      }
      return expired;
    },
    async healthCheck() {
      try {
        return (await client.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
  };
}
