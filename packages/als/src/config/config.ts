import {
  ConfigError,
  defineEnvConfig,
  type EnvSchema,
  METRIC_PREFIX_PATTERN,
  parseMetricLabels,
} from '@mojafast/service-kit';

/**
 * The ALS configuration: one schema and one defaults object, read from the environment once at start-up by
 * the service kit (validated, frozen, a bad value names the exact variable).
 */

export interface ConfigValues {
  host: string;
  port: number;
  adminPort: number;
  hubName: string;
  switchEndpoint: string;
  /** The version the Hub speaks when it is the source (Content-Type/Accept of hub-originated messages). */
  hubFspiopVersion: '1.1' | '2.0';
  oraclesFile: string;
  oracleUrl: string;
  dbHost: string;
  dbPort: number;
  dbUser: string;
  dbPassword: string;
  dbName: string;
  participantCacheTtlMs: number;
  endpointCacheTtlMs: number;
  oracleRegistryCacheTtlMs: number;
  oracleAnswerCacheTtlMs: number;
  cacheMaxStaleMs: number;
  cacheMaxEntries: number;
  upstreamConnections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** 'off' closes every upstream connection after one request: the Mojaloop matrix's keep-alive-off row. */
  upstreamKeepAlive: 'on' | 'off';
  bodyLimitBytes: number;
  /** Time to receive a whole request, headers and body; past it 408 (a slow client holds no socket). */
  requestTimeoutMs: number;
  /** Lookups (requests answered 202) in flight per process; past it 503 with FSPIOP 2003. */
  maxLookupsInFlight: number;
  /** How long a forwarded GET /parties keeps its admission slot while the payee has not called back. */
  lookupCallbackWaitMs: number;
  /** Retry-After of a 503 2003 (admission refused). */
  retryAfterSeconds: number;
  processes: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  profileDir: string;
  profileSeconds: number;
  shutdownTimeoutMs: number;
  /** The original's DELETE_PARTICIPANT_VALIDATION_ENABLED: only the owner may DELETE /participants. */
  deleteParticipantValidation: 'on' | 'off';
  /** The original's FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE: CONSENT and THIRD_PARTY_LINK are served. */
  extendedPartyIdTypes: 'on' | 'off';
  /** How long a /health probe's result is reused (a probe is never run per request). */
  healthCheckIntervalMs: number;
  /** The original's PROXY_CACHE.enabled: inter-scheme discovery through the proxies, on Redis. */
  proxyCache: 'on' | 'off';
  proxyCacheType: 'redis' | 'redis-cluster';
  /** host:port[,host:port...]: the Redis, or the cluster's seed nodes. */
  proxyCacheNodes: string;
  proxyCacheUsername: string;
  proxyCachePassword: string;
  /** Redis database number (plain Redis only; the original's PROXY_CACHE.proxyConfig.db). */
  proxyCacheDb: number;
  /** The original's PROXY_CACHE_EXPIRES_IN_SEC: how long a lookup across the scheme may take. */
  proxyCacheExpiresInSec: number;
  /** The original's HANDLERS.TIMEOUT (DISABLED, TIMEXP, TIMEZONE, BATCH_SIZE, DIST_LOCK). */
  timeoutHandler: 'on' | 'off';
  timeoutSchedule: string;
  timeoutTimezone: string;
  timeoutBatchSize: number;
  timeoutLock: 'on' | 'off';
  timeoutLockTtlMs: number;
  /** The original's ENDPOINT_SECURITY.JWS. */
  jwsValidate: 'on' | 'off';
  jwsValidatePutParties: 'on' | 'off';
  jwsVerificationKeysDirectory: string;
  jwsSign: 'on' | 'off';
  jwsSigningKeyPath: string;
  /** The original's INSTRUMENTATION.METRICS.DISABLED inverted: its metric names beside ours (observe/original-metrics.ts). */
  originalMetrics: 'on' | 'off';
  /** The original's INSTRUMENTATION.METRICS.config.prefix. */
  metricsPrefix: string;
  /** The original's INSTRUMENTATION.METRICS.config.defaultLabels as `name=value,...`. */
  metricsDefaultLabels: string;
}

export type Config = Readonly<ConfigValues>;

export const defaults: Config = Object.freeze({
  host: '0.0.0.0',
  port: 4002,
  adminPort: 4001,
  hubName: 'Hub',
  switchEndpoint: 'http://127.0.0.1:3001',
  hubFspiopVersion: '1.1',
  oraclesFile: '',
  oracleUrl: '',
  dbHost: '127.0.0.1',
  dbPort: 3306,
  dbUser: 'account_lookup',
  dbPassword: '',
  dbName: '',
  // Never older than the original's answers (config/default.json: participants 3 s, endpoints 180 s,
  // GENERAL_CACHE_CONFIG.CACHE_ENABLED false: neither the oracle registry nor oracle answers are cached,
  // catbox serves nothing past its expiry). Faster settings: README "Caches".
  participantCacheTtlMs: 3_000,
  endpointCacheTtlMs: 180_000,
  oracleRegistryCacheTtlMs: 0,
  oracleAnswerCacheTtlMs: 0,
  cacheMaxStaleMs: 0,
  cacheMaxEntries: 100_000,
  upstreamConnections: 64,
  connectTimeoutMs: 3_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 10_000,
  keepAliveTimeoutMs: 30_000,
  upstreamKeepAlive: 'on',
  bodyLimitBytes: 65_536,
  requestTimeoutMs: 10_000,
  maxLookupsInFlight: 32,
  lookupCallbackWaitMs: 250,
  retryAfterSeconds: 1,
  processes: 1,
  logLevel: 'warn',
  profileDir: '.',
  profileSeconds: 10,
  shutdownTimeoutMs: 10_000,
  deleteParticipantValidation: 'off',
  extendedPartyIdTypes: 'off',
  healthCheckIntervalMs: 5_000,
  proxyCache: 'off',
  proxyCacheType: 'redis',
  proxyCacheNodes: '127.0.0.1:6379',
  proxyCacheUsername: '',
  proxyCachePassword: '',
  proxyCacheDb: 0,
  proxyCacheExpiresInSec: 20,
  timeoutHandler: 'on',
  timeoutSchedule: '*/15 * * * * *',
  timeoutTimezone: 'UTC',
  timeoutBatchSize: 100,
  timeoutLock: 'on',
  timeoutLockTtlMs: 10_000,
  jwsValidate: 'off',
  jwsValidatePutParties: 'off',
  jwsVerificationKeysDirectory: 'secrets/jwsVerificationKeys',
  jwsSign: 'off',
  jwsSigningKeyPath: 'secrets/jwsSigningKey.key',
  // account-lookup-service's config/default.json INSTRUMENTATION.METRICS.
  originalMetrics: 'on',
  metricsPrefix: 'moja_als_',
  metricsDefaultLabels: 'serviceName=account-lookup-service',
} satisfies ConfigValues);

/**
 * A cron expression with seconds, its shape only: the cron library checks the fields when the timeout
 * handler starts (it is loaded only then, so an ALS without inter-scheme discovery does not carry it).
 */
const cronShape = '^ *[\\d*/,A-Za-z?-]+( [\\d*/,A-Za-z?-]+){4,5} *$';

export const schema: EnvSchema<ConfigValues> = {
  host: { env: 'ALS_HOST', type: { kind: 'string' }, doc: 'address both servers bind to' },
  port: { env: 'ALS_PORT', type: { kind: 'port' }, doc: 'FSPIOP API port (0 = any free port)' },
  adminPort: {
    env: 'ALS_ADMIN_PORT',
    type: { kind: 'port' },
    doc: 'admin API port: /oracles, /health, /metrics, /profile',
  },
  hubName: { env: 'ALS_HUB_NAME', type: { kind: 'string' }, doc: 'FSPIOP-Source of switch-generated messages' },
  switchEndpoint: {
    env: 'ALS_SWITCH_ENDPOINT',
    type: { kind: 'url' },
    doc: 'central-ledger admin API base URL',
  },
  hubFspiopVersion: {
    env: 'ALS_HUB_FSPIOP_VERSION',
    type: { kind: 'enum', values: ['1.1', '2.0'] },
    doc: 'Content-Type/Accept version of messages the Hub originates',
  },
  oraclesFile: {
    env: 'ALS_ORACLES_FILE',
    type: { kind: 'string', allowEmpty: true },
    doc: 'JSON file with the oracle registry (used when ALS_DB_NAME is empty)',
  },
  oracleUrl: {
    env: 'ALS_ORACLE_URL',
    type: { kind: 'string', allowEmpty: true },
    doc: 'one oracle for every party ID type (used when neither a file nor a database is set)',
  },
  dbHost: { env: 'ALS_DB_HOST', type: { kind: 'string' }, doc: 'MySQL host of the oracleEndpoint table' },
  dbPort: { env: 'ALS_DB_PORT', type: { kind: 'port' }, doc: 'MySQL port' },
  dbUser: { env: 'ALS_DB_USER', type: { kind: 'string' }, doc: 'MySQL user' },
  dbPassword: { env: 'ALS_DB_PASSWORD', type: { kind: 'string', allowEmpty: true }, doc: 'MySQL password' },
  dbName: {
    env: 'ALS_DB_NAME',
    type: { kind: 'string', allowEmpty: true },
    doc: 'MySQL database; set it to read the oracle registry from the database',
  },
  participantCacheTtlMs: {
    env: 'ALS_PARTICIPANT_CACHE_TTL_MS',
    type: { kind: 'int', min: 0 },
    doc: 'freshness of a participant (active, currencies); 0 disables',
  },
  endpointCacheTtlMs: {
    env: 'ALS_ENDPOINT_CACHE_TTL_MS',
    type: { kind: 'int', min: 0 },
    doc: "freshness of a participant's callback endpoints",
  },
  oracleRegistryCacheTtlMs: {
    env: 'ALS_ORACLE_REGISTRY_CACHE_TTL_MS',
    type: { kind: 'int', min: 0 },
    doc: 'freshness of the oracle registry read from MySQL',
  },
  oracleAnswerCacheTtlMs: {
    env: 'ALS_ORACLE_ANSWER_CACHE_TTL_MS',
    type: { kind: 'int', min: 0 },
    doc: 'freshness of an oracle answer (party → FSPs)',
  },
  cacheMaxStaleMs: {
    env: 'ALS_CACHE_MAX_STALE_MS',
    type: { kind: 'int', min: 0 },
    doc: 'how long past its TTL an entry may be served while one refresh runs',
  },
  cacheMaxEntries: {
    env: 'ALS_CACHE_MAX_ENTRIES',
    type: { kind: 'int', min: 1 },
    doc: 'entries per cache (LRU beyond)',
  },
  upstreamConnections: {
    env: 'ALS_UPSTREAM_CONNECTIONS',
    type: { kind: 'int', min: 1 },
    doc: 'keep-alive connections per upstream origin',
  },
  connectTimeoutMs: {
    env: 'ALS_CONNECT_TIMEOUT_MS',
    type: { kind: 'int', min: 1 },
    doc: 'TCP connect timeout to upstreams',
  },
  headersTimeoutMs: {
    env: 'ALS_HEADERS_TIMEOUT_MS',
    type: { kind: 'int', min: 1 },
    doc: 'time to the response headers of an upstream',
  },
  bodyTimeoutMs: {
    env: 'ALS_BODY_TIMEOUT_MS',
    type: { kind: 'int', min: 1 },
    doc: 'idle time within an upstream response body',
  },
  keepAliveTimeoutMs: {
    env: 'ALS_KEEP_ALIVE_TIMEOUT_MS',
    type: { kind: 'int', min: 1 },
    doc: 'how long an idle upstream socket is kept',
  },
  upstreamKeepAlive: {
    env: 'ALS_UPSTREAM_KEEP_ALIVE',
    type: { kind: 'enum', values: ['on', 'off'] },
    doc: "'off' closes each upstream connection after one request (to measure what keep-alive saves)",
  },
  bodyLimitBytes: {
    env: 'ALS_BODY_LIMIT_BYTES',
    type: { kind: 'int', min: 1024 },
    doc: 'largest request body accepted (larger: 400, 3104)',
  },
  requestTimeoutMs: {
    env: 'ALS_REQUEST_TIMEOUT_MS',
    type: { kind: 'int', min: 100 },
    doc: 'time to receive a whole request, headers and body (later: 408, 3000)',
  },
  maxLookupsInFlight: {
    env: 'ALS_MAX_LOOKUPS_IN_FLIGHT',
    type: { kind: 'int', min: 1 },
    doc: 'lookups accepted and not yet finished, per process (more: 503, 2003, Retry-After)',
  },
  lookupCallbackWaitMs: {
    env: 'ALS_LOOKUP_CALLBACK_WAIT_MS',
    type: { kind: 'int', min: 0 },
    doc: "how long a forwarded GET /parties counts as in flight while the payee's callback has not come",
  },
  retryAfterSeconds: {
    env: 'ALS_RETRY_AFTER_SECONDS',
    type: { kind: 'int', min: 1, max: 3600 },
    doc: 'Retry-After of a 503 (2003) refusal',
  },
  processes: {
    env: 'ALS_PROCESSES',
    type: { kind: 'int', min: 1, max: 256 },
    doc: 'worker processes sharing the ports (node:cluster); caches are per process',
  },
  logLevel: {
    env: 'ALS_LOG_LEVEL',
    type: { kind: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    doc: 'pino level; nothing is logged per request at warn',
  },
  profileDir: {
    env: 'ALS_PROFILE_DIR',
    type: { kind: 'string' },
    doc: 'where on-demand .cpuprofile files are written',
  },
  profileSeconds: {
    env: 'ALS_PROFILE_SECONDS',
    type: { kind: 'int', min: 1, max: 600 },
    doc: 'length of a CPU profile started by SIGUSR2',
  },
  shutdownTimeoutMs: {
    env: 'ALS_SHUTDOWN_TIMEOUT_MS',
    type: { kind: 'int', min: 0 },
    doc: 'how long shutdown waits for in-flight callbacks',
  },
  deleteParticipantValidation: {
    env: 'ALS_DELETE_PARTICIPANT_VALIDATION',
    type: { kind: 'enum', values: ['on', 'off'] },
    doc: "`on`: DELETE /participants only by the FSP the oracle holds (the original's DELETE_PARTICIPANT_VALIDATION_ENABLED)",
  },
  extendedPartyIdTypes: {
    env: 'ALS_EXTENDED_PARTY_ID_TYPES',
    type: { kind: 'enum', values: ['on', 'off'] },
    doc: "`on`: CONSENT and THIRD_PARTY_LINK are party ID types too (the original's FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE)",
  },
  healthCheckIntervalMs: {
    env: 'ALS_HEALTH_CHECK_INTERVAL_MS',
    type: { kind: 'int', min: 100 },
    doc: 'how long a /health probe of MySQL and central-ledger is reused',
  },
  proxyCache: {
    env: 'ALS_PROXY_CACHE',
    type: { kind: 'enum', values: ['on', 'off'] },
    doc: "`on`: inter-scheme discovery through the scheme's proxies, its state in Redis (the original's PROXY_CACHE.enabled)",
  },
  proxyCacheType: {
    env: 'ALS_PROXY_CACHE_TYPE',
    type: { kind: 'enum', values: ['redis', 'redis-cluster'] },
    doc: "one Redis, or a Redis Cluster (the original's PROXY_CACHE.type)",
  },
  proxyCacheNodes: {
    env: 'ALS_PROXY_CACHE_NODES',
    type: {
      kind: 'text',
      check: (text) => parseHostPorts(text) !== undefined,
      message: 'must be host:port[,host:port...]',
    },
    doc: "host:port of the Redis, or the cluster's nodes comma-separated",
  },
  proxyCacheUsername: {
    env: 'ALS_PROXY_CACHE_USERNAME',
    type: { kind: 'string', allowEmpty: true },
    doc: 'Redis ACL user',
  },
  proxyCachePassword: {
    env: 'ALS_PROXY_CACHE_PASSWORD',
    type: { kind: 'string', allowEmpty: true },
    doc: 'Redis password',
  },
  proxyCacheDb: {
    env: 'ALS_PROXY_CACHE_DB',
    type: { kind: 'int', min: 0, max: 15 },
    doc: 'Redis database number, plain Redis only (proxyConfig.db)',
  },
  proxyCacheExpiresInSec: {
    env: 'ALS_PROXY_CACHE_EXPIRES_IN_SEC',
    type: { kind: 'int', min: 1 },
    doc: "how long an inter-scheme lookup waits for the proxies before the timeout handler answers 3300 (the original's PROXY_CACHE_EXPIRES_IN_SEC)",
  },
  timeoutHandler: {
    env: 'ALS_TIMEOUT_HANDLER',
    type: { kind: 'enum', values: ['on', 'off'] },
    doc: "answer expired inter-scheme lookups (runs only with ALS_PROXY_CACHE=on; the original's HANDLERS.TIMEOUT.DISABLED)",
  },
  timeoutSchedule: {
    env: 'ALS_TIMEOUT_SCHEDULE',
    type: { kind: 'text', pattern: cronShape, message: 'must be a cron expression (six fields, with seconds)' },
    doc: "cron expression with seconds of the timeout handler's runs (the original's HANDLERS.TIMEOUT.TIMEXP)",
  },
  timeoutTimezone: {
    env: 'ALS_TIMEOUT_TIMEZONE',
    type: { kind: 'string' },
    doc: 'time zone of the schedule (HANDLERS.TIMEOUT.TIMEZONE)',
  },
  timeoutBatchSize: {
    env: 'ALS_TIMEOUT_BATCH_SIZE',
    type: { kind: 'int', min: 1 },
    doc: 'Redis SCAN count per step of a run (HANDLERS.TIMEOUT.BATCH_SIZE)',
  },
  timeoutLock: {
    env: 'ALS_TIMEOUT_LOCK',
    type: { kind: 'enum', values: ['on', 'off'] },
    doc: 'one timeout handler run at a time in the cluster, by a Redis lock (HANDLERS.TIMEOUT.DIST_LOCK.enabled)',
  },
  timeoutLockTtlMs: {
    env: 'ALS_TIMEOUT_LOCK_TTL_MS',
    type: { kind: 'int', min: 100 },
    doc: 'how long the lock outlives a holder that died (DIST_LOCK.lockTimeout)',
  },
  jwsValidate: {
    env: 'ALS_JWS_VALIDATE',
    type: { kind: 'enum', values: ['on', 'off'] },
    doc: '`on`: POST/PUT/DELETE on /parties and /participants need a valid FSPIOP-Signature (JWS_VALIDATE)',
  },
  jwsValidatePutParties: {
    env: 'ALS_JWS_VALIDATE_PUT_PARTIES',
    type: { kind: 'enum', values: ['on', 'off'] },
    doc: '`on`: PUT /parties callbacks are checked too (JWS_VALIDATE_PUT_PARTIES)',
  },
  jwsVerificationKeysDirectory: {
    env: 'ALS_JWS_VERIFICATION_KEYS_DIRECTORY',
    type: { kind: 'string' },
    doc: 'one `{fspId}.pem` public key per FSP (JWS_VERIFICATION_KEYS_DIRECTORY)',
  },
  jwsSign: {
    env: 'ALS_JWS_SIGN',
    type: { kind: 'enum', values: ['on', 'off'] },
    doc: '`on`: every message the Hub originates carries FSPIOP-Signature (JWS_SIGN)',
  },
  jwsSigningKeyPath: {
    env: 'ALS_JWS_SIGNING_KEY_PATH',
    type: { kind: 'string' },
    doc: "the Hub's private key, PEM (JWS_SIGNING_KEY_PATH)",
  },
  originalMetrics: {
    env: 'ALS_ORIGINAL_METRICS',
    type: { kind: 'enum', values: ['on', 'off'] },
    doc: "`on`: /metrics also has account-lookup-service's metric names, which the community dashboards query (`off`: the original's INSTRUMENTATION.METRICS.DISABLED true)",
  },
  metricsPrefix: {
    env: 'ALS_METRICS_PREFIX',
    type: {
      kind: 'text',
      pattern: METRIC_PREFIX_PATTERN,
      // als_ would give the original's process metrics the names of ours (collectDefaultMetrics, metrics.ts).
      check: (text) => text !== 'als_',
      message: 'must begin a Prometheus metric name (a letter, _ or :, then letters, digits, _ or :) other than als_',
    },
    doc: "prefix of the original's metric names (INSTRUMENTATION.METRICS.config.prefix)",
  },
  metricsDefaultLabels: {
    env: 'ALS_METRICS_DEFAULT_LABELS',
    type: {
      kind: 'text',
      check: (text) => parseMetricLabels(text) !== undefined,
      message: 'must be name=value[,name=value...] with Prometheus label names (not le)',
    },
    doc: "labels on every one of the original's metrics, e.g. serviceName=account-lookup-service (INSTRUMENTATION.METRICS.config.defaultLabels)",
  },
};

/** `host:port,host:port` → nodes; undefined when any part is not host:port. */
export function parseHostPorts(raw: string): { host: string; port: number }[] | undefined {
  const nodes: { host: string; port: number }[] = [];
  for (const part of raw.split(',')) {
    const at = part.trim().lastIndexOf(':');
    if (at <= 0) return undefined;
    const host = part.trim().slice(0, at);
    const port = Number(part.trim().slice(at + 1));
    if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
    nodes.push({ host, port });
  }
  return nodes.length > 0 ? nodes : undefined;
}

/** The schema as a list, each setting with its key (the README table and the original's mapping read it). */
export const settings = (
  Object.entries(schema) as [keyof ConfigValues, EnvSchema<ConfigValues>[keyof ConfigValues]][]
).map(([key, setting]) => ({ key, ...setting }));

const envConfig = defineEnvConfig(schema, defaults);

export { ConfigError, parseMetricLabels };

/** Defaults, then environment variables, then explicit overrides (tests); validated and frozen. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ConfigValues> = {}): Config {
  return envConfig.load(env, overrides);
}
