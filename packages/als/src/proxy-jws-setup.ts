import { type Config, ConfigError, parseHostPorts } from './config/config.js';
import { answerExpiredLookup } from './discovery/inter-scheme.js';
import type { DiscoveryPorts, HeaderMap, OutboundRequest, ProxyPorts } from './discovery/types.js';
import { startTimeoutHandler, type TimeoutHandler } from './handlers/timeout.js';
import { loadSigningKey, loadVerificationKeys } from './jws/keys.js';
import { createJwsSigner } from './jws/sign.js';
import { validateJws } from './jws/validate.js';
import type { CentralLedger } from './upstream/central-ledger.js';
import { createRedisProxyCache, type RedisProxyCache } from './upstream/proxy-cache-redis.js';
import { createRedisLock, TIMEOUT_HANDLER_LOCK_KEY } from './upstream/redis-lock.js';

/**
 * The optional parts of the ALS, each off by default as in the original: inter-scheme discovery on a
 * proxy cache in Redis with its timeout handler, JWS validation of incoming requests and JWS signing of
 * the Hub's messages. With all off, nothing here touches a lookup: no proxy ports, the send function
 * unwrapped, no validation hook.
 */
export interface ProxyJws {
  /** Present when ALS_PROXY_CACHE=on. */
  readonly proxy: ProxyPorts | undefined;
  readonly proxyCache: RedisProxyCache | undefined;
  /** Signs what the Hub originates when ALS_JWS_SIGN=on; else `send` itself. */
  wrapSend(send: (request: OutboundRequest) => Promise<void>): (request: OutboundRequest) => Promise<void>;
  /**
   * When ALS_JWS_VALIDATE=on: which requests must carry a valid signature (the original's onPostAuth:
   * not GET, only /parties and /participants, PUT /parties only with JWS_VALIDATE_PUT_PARTIES), and the
   * check itself, which throws the validator's message.
   */
  readonly jws:
    | {
        readonly applies: (method: string, path: string) => boolean;
        readonly validate: (headers: HeaderMap, body: unknown) => Promise<void>;
      }
    | undefined;
  /** Starts the timeout handler (ALS_PROXY_CACHE=on and ALS_TIMEOUT_HANDLER=on) once the ports exist. */
  startTimeoutHandler(ports: DiscoveryPorts, onError: (error: unknown) => void): TimeoutHandler | undefined;
  close(): Promise<void>;
}

export async function setUpProxyAndJws(config: Config, centralLedger: CentralLedger): Promise<ProxyJws> {
  // Keys first: a missing or broken key file stops the start before anything connects.
  const verificationKeys =
    config.jwsValidate === 'on' ? loadVerificationKeys(config.jwsVerificationKeysDirectory) : undefined;
  const signer = config.jwsSign === 'on' ? createJwsSigner(loadSigningKey(config.jwsSigningKeyPath)) : undefined;

  let proxyCache: RedisProxyCache | undefined;
  let proxy: ProxyPorts | undefined;
  if (config.proxyCache === 'on') {
    const nodes = parseHostPorts(config.proxyCacheNodes);
    if (!nodes) throw new ConfigError('ALS_PROXY_CACHE_NODES', 'must be host:port[,host:port...]');
    proxyCache = createRedisProxyCache({
      type: config.proxyCacheType,
      nodes,
      username: config.proxyCacheUsername || undefined,
      password: config.proxyCachePassword || undefined,
      db: config.proxyCacheDb,
      commandTimeoutMs: config.connectTimeoutMs,
    });
    try {
      await proxyCache.connect();
    } catch (error) {
      proxyCache.client.disconnect();
      throw new Error(
        `ALS_PROXY_CACHE=on but Redis at ${config.proxyCacheNodes} cannot be reached (${(error as Error).message}); start it (infra/svc start redis) or set ALS_PROXY_CACHE_NODES`,
      );
    }
    proxy = {
      cache: proxyCache,
      proxyNames: () => centralLedger.proxyNames(),
      expiresInSec: config.proxyCacheExpiresInSec,
    };
  }

  let timeoutHandler: TimeoutHandler | undefined;
  return {
    proxy,
    proxyCache,
    wrapSend(send) {
      if (!signer) return send;
      const hub = config.hubName;
      return async (request) => {
        // The original signs a message whose FSPIOP-Source is the hub (FSPIOP_SOURCE_TO_SIGN) and that has
        // a body (participantEndpoint/facade.js defineJwsSigner; the signer refuses an empty body).
        if (request.headers['fspiop-source'] !== hub || request.body === undefined) return send(request);
        const signed = await signer.sign(request.headers, request.method, request.body.toString());
        return send({
          ...request,
          headers: { ...request.headers, 'fspiop-signature': signed.signature },
          body: signed.body,
        });
      };
    },
    jws: verificationKeys
      ? {
          applies(method, path) {
            if (method === 'GET') return false;
            const resource = path.split('/')[1];
            if (resource !== 'parties' && resource !== 'participants') return false;
            return !(method === 'PUT' && resource === 'parties' && config.jwsValidatePutParties !== 'on');
          },
          validate: (headers, body) => validateJws(headers, body, verificationKeys),
        }
      : undefined,
    startTimeoutHandler(ports, onError) {
      if (!proxy || !proxyCache || config.timeoutHandler !== 'on') return undefined;
      const ready = proxy;
      timeoutHandler = startTimeoutHandler({
        cache: proxyCache,
        lock:
          config.timeoutLock === 'on'
            ? createRedisLock(proxyCache.client, TIMEOUT_HANDLER_LOCK_KEY, config.timeoutLockTtlMs)
            : undefined,
        schedule: config.timeoutSchedule,
        timeZone: config.timeoutTimezone,
        batchSize: config.timeoutBatchSize,
        answer: (key) => answerExpiredLookup(ports, ready, key),
        onError,
      });
      return timeoutHandler;
    },
    async close() {
      await timeoutHandler?.stop();
      await proxyCache?.disconnect();
    },
  };
}
