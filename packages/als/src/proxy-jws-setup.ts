import type { Resources } from '@mojafast/service-kit';
import { type Config, ConfigError, parseHostPorts, schema } from './config/index.js';
import { answerExpiredLookup } from './discovery/inter-scheme.js';
import type { DiscoveryPorts, ProxyPorts, SettlingSend } from './discovery/types.js';
import type { TimeoutHandler } from './handlers/timeout.js';
import type { IncomingJwsCheck } from './http/jws-hook.js';
import type { KeyWatchLogger } from './jws/keys.js';
import type { CentralLedger } from './upstream/central-ledger.js';
import type { RedisProxyCache } from './upstream/proxy-cache-redis.js';
import { ConnectionStartError, failureReason, isCertificateFailure, tlsOptions } from './upstream/tls.js';

// ioredis, jose and cron are imported only when their part is on: an ALS with all off does not load
// them (nothing of them in its heap or start-up).

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
  wrapSend(send: SettlingSend): SettlingSend;
  /**
   * When ALS_JWS_VALIDATE=on: which requests must carry a valid signature (the original's onPostAuth:
   * not GET, only /parties and /participants, PUT /parties only with JWS_VALIDATE_PUT_PARTIES), and the
   * check itself, which throws the validator's message.
   */
  readonly jws: IncomingJwsCheck | undefined;
  /**
   * Starts the timeout handler (ALS_PROXY_CACHE=on and ALS_TIMEOUT_HANDLER=on) once the ports exist; it is
   * owned by the resources given to setUpProxyAndJws.
   */
  startTimeoutHandler(ports: DiscoveryPorts, onError: (error: unknown) => void): TimeoutHandler | undefined;
}

/** Each part that holds a connection, a watcher or a timer is registered with `resources` as it opens. */

export async function setUpProxyAndJws(
  config: Config,
  centralLedger: CentralLedger,
  log: KeyWatchLogger,
  resources: Resources,
): Promise<ProxyJws> {
  // Keys first: a missing or broken key file stops the start before anything connects.
  const keys = config.jwsValidate || config.jwsSign ? await import('./jws/keys.js') : undefined;
  const verificationKeys =
    keys && config.jwsValidate ? keys.loadVerificationKeys(config.jwsVerificationKeysDirectory) : undefined;
  const signer =
    keys && config.jwsSign
      ? (await import('./jws/sign.js')).createJwsSigner(keys.loadSigningKey(config.jwsSigningKeyPath))
      : undefined;
  const validateJws = verificationKeys ? (await import('./jws/validate.js')).validateJws : undefined;

  let startTimeoutHandler: typeof import('./handlers/timeout.js').startTimeoutHandler | undefined;
  let redisLock: typeof import('./upstream/redis-lock.js') | undefined;
  if (config.proxyCache && config.timeoutHandler) {
    // The schedule was checked with the settings (config/index.ts, loadConfig).
    startTimeoutHandler = (await import('./handlers/timeout.js')).startTimeoutHandler;
    redisLock = await import('./upstream/redis-lock.js');
  }

  let proxyCache: RedisProxyCache | undefined;
  let proxy: ProxyPorts | undefined;
  if (config.proxyCache) {
    const nodes = parseHostPorts(config.proxyCacheNodes);
    if (!nodes) throw new ConfigError(schema.proxyCacheNodes.env, 'must be host:port[,host:port...]');
    const { createRedisProxyCache } = await import('./upstream/proxy-cache-redis.js');
    proxyCache = resources.own(
      'proxy cache',
      createRedisProxyCache({
        type: config.proxyCacheType,
        nodes,
        username: config.proxyCacheUsername || undefined,
        password: config.proxyCachePassword || undefined,
        db: config.proxyCacheDb,
        tls: tlsOptions(config.proxyCacheTls, {
          ca: { value: config.proxyCacheTlsCaFile, variable: schema.proxyCacheTlsCaFile.env },
          cert: { value: config.proxyCacheTlsCertFile, variable: schema.proxyCacheTlsCertFile.env },
          key: { value: config.proxyCacheTlsKeyFile, variable: schema.proxyCacheTlsKeyFile.env },
        }),
        commandTimeoutMs: config.connectTimeoutMs,
      }),
      (cache) => cache.disconnect(),
    );
    try {
      await proxyCache.connect();
    } catch (error) {
      // The original stops here too: src/server.js awaits the proxy cache's connect() before it listens.
      // The keys are named both ways, as the setting may come from the original's file.
      // An untrusted certificate is the TLS settings' to fix, not the server's.
      if (isCertificateFailure(error))
        throw new ConnectionStartError(
          `the proxy cache's ${config.proxyCacheType} at ${config.proxyCacheNodes} (ALS_PROXY_CACHE_NODES, PROXY_CACHE.proxyConfig) cannot be used: ${failureReason(error)}; give its CA (ALS_PROXY_CACHE_TLS_CA_FILE, PROXY_CACHE.proxyConfig.tls.ca) or set ALS_PROXY_CACHE_TLS=on`,
          error,
        );
      throw new ConnectionStartError(
        `ALS_PROXY_CACHE=on (PROXY_CACHE.enabled) but the ${config.proxyCacheType} at ${config.proxyCacheNodes} (ALS_PROXY_CACHE_NODES, PROXY_CACHE.proxyConfig) cannot be reached (${failureReason(error)}); start it (infra/svc start redis), point the key at it, or set ALS_PROXY_CACHE=off (ALS_PROXY_CACHE__enabled=false)`,
        error,
      );
    }
    proxy = {
      cache: proxyCache,
      proxyNames: () => centralLedger.proxyNames(),
      expiresInSec: config.proxyCacheExpiresInSec,
    };
  }

  // Last, once nothing above can fail the start: keys added, replaced or removed apply without a restart.
  if (keys && verificationKeys)
    resources.own(
      'JWS key watcher',
      keys.watchVerificationKeys(config.jwsVerificationKeysDirectory, verificationKeys, log),
      (watcher) => watcher.close(),
    );
  return {
    proxy,
    proxyCache,
    wrapSend(send) {
      if (!signer) return send;
      const hub = config.hubName;
      return async (request, settled) => {
        // The original signs a message whose FSPIOP-Source is the hub (FSPIOP_SOURCE_TO_SIGN) and that has
        // a body (participantEndpoint/facade.js defineJwsSigner; the signer refuses an empty body).
        if (request.headers['fspiop-source'] !== hub || request.body === undefined) return send(request, settled);
        let signed: Awaited<ReturnType<typeof signer.sign>>;
        try {
          signed = await signer.sign(request.headers, request.method, request.body.toString());
        } catch (error) {
          // Nothing was sent: the send's timer ends failed, as it did around the whole signed send.
          settled?.(false);
          throw error;
        }
        return send(
          {
            ...request,
            headers: { ...request.headers, 'fspiop-signature': signed.signature },
            body: signed.body,
          },
          settled,
        );
      };
    },
    jws:
      verificationKeys && validateJws
        ? {
            applies(method, path) {
              if (method === 'GET') return false;
              const resource = path.split('/')[1];
              if (resource !== 'parties' && resource !== 'participants') return false;
              return !(method === 'PUT' && resource === 'parties' && !config.jwsValidatePutParties);
            },
            validate: (headers, body) => validateJws(headers, body, verificationKeys),
          }
        : undefined,
    startTimeoutHandler(ports, onError) {
      if (!proxy || !proxyCache || !startTimeoutHandler || !redisLock) return undefined;
      const ready = proxy;
      const handler = startTimeoutHandler({
        cache: proxyCache,
        lock: config.timeoutLock
          ? redisLock.createRedisLock(proxyCache.client, redisLock.TIMEOUT_HANDLER_LOCK_KEY, config.timeoutLockTtlMs)
          : undefined,
        schedule: config.timeoutSchedule,
        timeZone: config.timeoutTimezone,
        batchSize: config.timeoutBatchSize,
        answer: (key) => answerExpiredLookup(ports, ready, key),
        onError,
      });
      return resources.own('timeout handler', handler, (started) => started.stop());
    },
  };
}
