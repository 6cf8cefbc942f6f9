/**
 * What the inter-scheme discovery flows need from the proxy cache, with the semantics of the original's
 * @mojaloop/inter-scheme-proxy-cache-lib (RedisProxyCache). The Redis implementation lives in
 * src/upstream/proxy-cache-redis.ts; the flows import only this interface.
 */

/** One lookup in flight across the scheme: who asked, for which party (the library's alsRequest). */
export interface AlsRequest {
  readonly sourceId: string;
  readonly type: string;
  readonly partyId: string;
}

export interface ProxyCache {
  /** Remembers behind which proxy an FSP of another scheme sits (key `dfsp:{dfspId}`, no expiry). */
  addDfspIdToProxyMapping(dfspId: string, proxyId: string): Promise<boolean>;
  lookupProxyByDfspId(dfspId: string): Promise<string | null>;
  removeDfspIdFromProxyMapping(dfspId: string): Promise<boolean>;
  /**
   * Starts an inter-scheme lookup: the proxies asked (set `als:{source}:{type}:{id}`) and its expiry
   * (`…:expiresAt`, epoch ms). False when that lookup is already in flight or Redis refused.
   */
  setSendToProxiesList(alsReq: AlsRequest, proxyIds: readonly string[], ttlSec: number): Promise<boolean>;
  /** Is this proxy still awaited for this lookup? */
  isPendingCallback(alsReq: AlsRequest, proxyId: string | undefined): Promise<boolean>;
  /**
   * A proxy answered with the party: `first` when it is the lookup's first success (remembered in
   * `…:success`), `late` when another proxy found it first, `not-awaited` when this proxy was not awaited.
   */
  receivedSuccessResponse(alsReq: AlsRequest, proxyId: string): Promise<'first' | 'late' | 'not-awaited'>;
  /** A proxy failed or answered an error: true when it was the last one awaited and none succeeded. */
  receivedErrorResponse(alsReq: AlsRequest, proxyId: string): Promise<boolean>;
  removeProxyGetPartiesTimeout(alsReq: AlsRequest, proxyId: string | undefined): Promise<boolean>;
  /**
   * Calls `onExpired` once for every inter-scheme lookup whose expiry has passed with no success,
   * with the lookup's key (`als:{source}:{type}:{id}`), and forgets the lookup. Answers how many expired.
   */
  processExpiredAlsKeys(onExpired: (key: string) => Promise<void>, batchSize: number): Promise<number>;
  healthCheck(): Promise<boolean>;
}

/** The lookup named by an `als:{source}:{type}:{id}` key (TimeoutPartiesService.parseExpiredKey). */
export function parseAlsKey(key: string): AlsRequest {
  const [sourceId = '', type = '', partyId = ''] = key.split(':').slice(-3);
  return { sourceId, type, partyId };
}
