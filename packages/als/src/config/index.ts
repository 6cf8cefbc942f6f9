import { createRequire } from 'node:module';
import {
  ConfigError,
  type ConfigOf,
  defineSettings,
  METRIC_PREFIX_PATTERN,
  parseMetricLabels,
  setting,
} from '@mojafast/service-kit';

/**
 * The ALS's settings, each declared once: variable, type, default, doc and the original's key (of
 * account-lookup-service's config/default.json). The Config type, the defaults, the validator and
 * docs/configuration.md are all read from here. Read from the environment once at start-up (validated,
 * frozen, a bad value names its variable).
 */

/**
 * A cron expression with seconds, its shape only: the cron library checks the fields when the timeout
 * handler is on (loadConfig), so an ALS without inter-scheme discovery does not load it.
 */
const cronShape = '^ *[\\d*/,A-Za-z?-]+( [\\d*/,A-Za-z?-]+){4,5} *$';
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const declared = {
  host: setting.string({ env: 'ALS_HOST', default: '0.0.0.0', doc: 'address both servers bind to' }),
  port: setting.port({
    env: 'ALS_PORT',
    default: 4002,
    doc: 'FSPIOP API port (0 = any free port)',
    original: 'API_PORT',
  }),
  adminPort: setting.port({
    env: 'ALS_ADMIN_PORT',
    default: 4001,
    doc: 'admin API port: /oracles, /health, /metrics, /profile',
    original: 'ADMIN_PORT',
  }),
  monitoringPort: setting.port({
    env: 'ALS_MONITORING_PORT',
    default: 4003,
    doc: 'port of `/health` and `/metrics` of the timeout handler process (`handlers --timeout`)',
    original: 'HANDLERS.MONITORING_PORT',
  }),
  hubName: setting.string({
    env: 'ALS_HUB_NAME',
    default: 'Hub',
    doc: 'FSPIOP-Source of switch-generated messages',
    original: 'HUB_PARTICIPANT.NAME',
  }),
  switchEndpoint: setting.url({
    env: 'ALS_SWITCH_ENDPOINT',
    default: 'http://127.0.0.1:3001',
    doc: 'central-ledger admin API base URL',
    original: 'SWITCH_ENDPOINT',
  }),
  apiType: setting.enum(['fspiop', 'iso20022'], {
    env: 'ALS_API_TYPE',
    default: 'fspiop',
    doc: "the API served on /parties and /participants: `fspiop`, or `iso20022` (ISO 20022 media types, ISO bodies on PUT /parties, the Hub's /parties error callbacks as ISO bodies)",
    original: 'API_TYPE',
  }),
  hubFspiopVersion: setting.enum(['1.1', '2.0'], {
    env: 'ALS_HUB_FSPIOP_VERSION',
    default: '1.1',
    doc: 'Content-Type/Accept version of messages the Hub originates',
    original: 'PROTOCOL_VERSIONS.CONTENT.DEFAULT',
  }),
  oraclesFile: setting.string({
    env: 'ALS_ORACLES_FILE',
    default: '',
    allowEmpty: true,
    doc: 'JSON file with the oracle registry (used when ALS_DB_NAME is empty)',
  }),
  oracleUrl: setting.string({
    env: 'ALS_ORACLE_URL',
    default: '',
    allowEmpty: true,
    doc: 'one oracle for every party ID type (used when neither a file nor a database is set)',
  }),
  dbHost: setting.string({
    env: 'ALS_DB_HOST',
    default: '127.0.0.1',
    doc: 'MySQL host of the oracleEndpoint table',
    original: 'DATABASE.HOST',
  }),
  dbPort: setting.port({ env: 'ALS_DB_PORT', default: 3306, doc: 'MySQL port', original: 'DATABASE.PORT' }),
  dbUser: setting.string({
    env: 'ALS_DB_USER',
    default: 'account_lookup',
    doc: 'MySQL user',
    original: 'DATABASE.USER',
  }),
  dbPassword: setting.string({
    env: 'ALS_DB_PASSWORD',
    default: '',
    allowEmpty: true,
    doc: 'MySQL password',
    original: 'DATABASE.PASSWORD',
  }),
  dbName: setting.string({
    env: 'ALS_DB_NAME',
    default: '',
    allowEmpty: true,
    doc: 'MySQL database; set it to read the oracle registry from the database',
    original: 'DATABASE.DATABASE',
  }),
  // TLS to MySQL: the original passes DATABASE.ADDITIONAL_CONNECTION_OPTIONS into mysql2's connection
  // options, so its `ssl` (an object, or the name of one of mysql2's CA profiles) turns TLS on.
  dbSsl: setting.enum(['off', 'on', 'verify', 'verify-identity'], {
    env: 'ALS_DB_SSL',
    default: 'off',
    doc: "TLS to MySQL: `off`; `on` (encrypted, the server's certificate not checked: the original's `ssl: {rejectUnauthorized: false}`); `verify` (its certificate must chain to a trusted CA: an `ssl` object, mysql2's default); `verify-identity` (and it must name the host: `verifyIdentity: true`); a certificate that fails verification stops the start",
    original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl',
  }),
  dbSslCaFile: setting.string({
    env: 'ALS_DB_SSL_CA_FILE',
    default: '',
    allowEmpty: true,
    doc: "PEM file of the CAs MySQL's certificate must chain to with `verify` (empty: Node's, NODE_EXTRA_CA_CERTS included); PEM text itself is taken too, as the original's key holds it",
    original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl.ca',
  }),
  dbSslCertFile: setting.string({
    env: 'ALS_DB_SSL_CERT_FILE',
    default: '',
    allowEmpty: true,
    doc: 'PEM file (or text) of the client certificate, for a MySQL that asks for one',
    original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl.cert',
  }),
  dbSslKeyFile: setting.string({
    env: 'ALS_DB_SSL_KEY_FILE',
    default: '',
    allowEmpty: true,
    doc: "PEM file (or text) of the client certificate's private key",
    original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl.key',
  }),
  dbSslProfile: setting.string({
    env: 'ALS_DB_SSL_PROFILE',
    default: '',
    allowEmpty: true,
    doc: "the CAs of one of mysql2's named profiles (`Amazon RDS`) instead of a file; the original's `ssl` given as that name",
  }),
  // Never older than the original's answers (config/default.json: participants 3 s, endpoints 180 s,
  // GENERAL_CACHE_CONFIG.CACHE_ENABLED false: neither the oracle registry nor oracle answers are cached,
  // catbox serves nothing past its expiry). Faster settings: docs/design.md "Caches".
  participantCacheTtlMs: setting.int({
    env: 'ALS_PARTICIPANT_CACHE_TTL_MS',
    default: 3_000,
    min: 0,
    doc: 'freshness of a participant (active, currencies); 0 disables',
    original: 'CENTRAL_SHARED_PARTICIPANT_CACHE_CONFIG.expiresIn',
  }),
  endpointCacheTtlMs: setting.int({
    env: 'ALS_ENDPOINT_CACHE_TTL_MS',
    default: 180_000,
    min: 0,
    doc: "freshness of a participant's callback endpoints",
    original: 'CENTRAL_SHARED_ENDPOINT_CACHE_CONFIG.expiresIn',
  }),
  oracleRegistryCacheTtlMs: setting.int({
    env: 'ALS_ORACLE_REGISTRY_CACHE_TTL_MS',
    default: 0,
    min: 0,
    doc: 'freshness of the oracle registry read from MySQL',
    original: 'GENERAL_CACHE_CONFIG.EXPIRES_IN_MS',
  }),
  oracleAnswerCacheTtlMs: setting.int({
    env: 'ALS_ORACLE_ANSWER_CACHE_TTL_MS',
    default: 0,
    min: 0,
    doc: 'freshness of an oracle answer (party → FSPs)',
  }),
  cacheMaxStaleMs: setting.int({
    env: 'ALS_CACHE_MAX_STALE_MS',
    default: 0,
    min: 0,
    doc: 'how long past its TTL an entry may be served while one refresh runs',
  }),
  cacheMaxEntries: setting.int({
    env: 'ALS_CACHE_MAX_ENTRIES',
    default: 100_000,
    min: 1,
    doc: 'entries per cache (LRU beyond)',
  }),
  upstreamConnections: setting.int({
    env: 'ALS_UPSTREAM_CONNECTIONS',
    default: 64,
    min: 1,
    doc: 'keep-alive connections per upstream origin',
  }),
  connectTimeoutMs: setting.int({
    env: 'ALS_CONNECT_TIMEOUT_MS',
    default: 3_000,
    min: 1,
    doc: 'TCP connect timeout to upstreams',
  }),
  headersTimeoutMs: setting.int({
    env: 'ALS_HEADERS_TIMEOUT_MS',
    default: 10_000,
    min: 1,
    doc: 'time to the response headers of an upstream',
  }),
  bodyTimeoutMs: setting.int({
    env: 'ALS_BODY_TIMEOUT_MS',
    default: 10_000,
    min: 1,
    doc: 'idle time within an upstream response body',
  }),
  keepAliveTimeoutMs: setting.int({
    env: 'ALS_KEEP_ALIVE_TIMEOUT_MS',
    default: 30_000,
    min: 1,
    doc: 'how long an idle upstream socket is kept',
  }),
  upstreamKeepAlive: setting.bool({
    env: 'ALS_UPSTREAM_KEEP_ALIVE',
    default: true,
    doc: "false: each upstream connection is closed after one request (the Mojaloop matrix's keep-alive-off row, to measure what keep-alive saves)",
  }),
  upstreamCaFile: setting.string({
    env: 'ALS_UPSTREAM_CA_FILE',
    default: '',
    allowEmpty: true,
    doc: "PEM file of CAs trusted for https:// oracles, central-ledger and FSPs besides Node's (which NODE_EXTRA_CA_CERTS extends, for these too)",
  }),
  bodyLimitBytes: setting.int({
    env: 'ALS_BODY_LIMIT_BYTES',
    default: 65_536,
    min: 1024,
    doc: 'largest request body accepted (larger: 400, 3104)',
  }),
  requestTimeoutMs: setting.int({
    env: 'ALS_REQUEST_TIMEOUT_MS',
    default: 10_000,
    min: 100,
    doc: 'time to receive a whole request, headers and body (later: 408, 3000); a slow client holds no socket',
  }),
  maxLookupsInFlight: setting.int({
    env: 'ALS_MAX_LOOKUPS_IN_FLIGHT',
    default: 32,
    min: 1,
    doc: 'lookups accepted and not yet finished, per process (more: 503, 2003, Retry-After)',
  }),
  lookupCallbackWaitMs: setting.int({
    env: 'ALS_LOOKUP_CALLBACK_WAIT_MS',
    default: 250,
    min: 0,
    doc: "how long a forwarded GET /parties counts as in flight while the payee's callback has not come",
  }),
  retryAfterSeconds: setting.int({
    env: 'ALS_RETRY_AFTER_SECONDS',
    default: 1,
    min: 1,
    max: 3600,
    doc: 'Retry-After of a 503 (2003) refusal',
  }),
  processes: setting.int({
    env: 'ALS_PROCESSES',
    default: 1,
    min: 1,
    max: 256,
    doc: 'worker processes sharing the ports (node:cluster); caches are per process',
  }),
  logLevel: setting.enum(logLevels, {
    env: 'ALS_LOG_LEVEL',
    default: 'warn',
    doc: 'pino level; nothing is logged per request at warn',
  }),
  profileDir: setting.string({
    env: 'ALS_PROFILE_DIR',
    default: '.',
    doc: 'where on-demand .cpuprofile files are written',
  }),
  profileSeconds: setting.int({
    env: 'ALS_PROFILE_SECONDS',
    default: 10,
    min: 1,
    max: 600,
    doc: 'length of a CPU profile started by SIGUSR2',
  }),
  shutdownTimeoutMs: setting.int({
    env: 'ALS_SHUTDOWN_TIMEOUT_MS',
    default: 10_000,
    min: 0,
    doc: 'how long shutdown waits for in-flight callbacks',
  }),
  deleteParticipantValidation: setting.bool({
    env: 'ALS_DELETE_PARTICIPANT_VALIDATION',
    default: false,
    doc: 'DELETE /participants only by the FSP the oracle holds',
    original: 'DELETE_PARTICIPANT_VALIDATION_ENABLED',
  }),
  extendedPartyIdTypes: setting.bool({
    env: 'ALS_EXTENDED_PARTY_ID_TYPES',
    default: false,
    doc: 'CONSENT and THIRD_PARTY_LINK are party ID types too',
    original: 'FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE',
  }),
  healthCheckIntervalMs: setting.int({
    env: 'ALS_HEALTH_CHECK_INTERVAL_MS',
    default: 5_000,
    min: 100,
    doc: 'how long a /health probe of MySQL and central-ledger is reused (a probe is never run per request)',
  }),
  proxyCache: setting.bool({
    env: 'ALS_PROXY_CACHE',
    default: false,
    doc: "inter-scheme discovery through the scheme's proxies, its state in Redis (docs/inter-scheme.md)",
    original: 'PROXY_CACHE.enabled',
  }),
  proxyCacheType: setting.enum(['redis', 'redis-cluster'], {
    env: 'ALS_PROXY_CACHE_TYPE',
    default: 'redis',
    doc: '`redis` (one server) or `redis-cluster`',
    original: 'PROXY_CACHE.type',
  }),
  proxyCacheNodes: setting.text({
    env: 'ALS_PROXY_CACHE_NODES',
    default: '127.0.0.1:6379',
    check: (text) => parseHostPorts(text) !== undefined,
    message: 'must be host:port[,host:port...]',
    doc: "`host:port` of the Redis, or the cluster's nodes comma-separated",
    original: 'PROXY_CACHE.proxyConfig',
  }),
  proxyCacheUsername: setting.string({
    env: 'ALS_PROXY_CACHE_USERNAME',
    default: '',
    allowEmpty: true,
    doc: 'Redis ACL user',
    original: 'PROXY_CACHE.proxyConfig.username',
  }),
  proxyCachePassword: setting.string({
    env: 'ALS_PROXY_CACHE_PASSWORD',
    default: '',
    allowEmpty: true,
    doc: 'Redis password',
    original: 'PROXY_CACHE.proxyConfig.password',
  }),
  proxyCacheDb: setting.int({
    env: 'ALS_PROXY_CACHE_DB',
    default: 0,
    min: 0,
    max: 15,
    doc: 'Redis database number, plain Redis only',
    original: 'PROXY_CACHE.proxyConfig.db',
  }),
  // TLS to Redis: the original's cache library hands proxyConfig to ioredis as its options, so `tls` (plain
  // Redis) or `redisOptions.tls` (a cluster's nodes) turns TLS on with node:tls's options.
  proxyCacheTls: setting.enum(['off', 'on', 'verify'], {
    env: 'ALS_PROXY_CACHE_TLS',
    default: 'off',
    doc: "TLS to the proxy cache's Redis (each node of a cluster): `off`; `on` (its certificate not checked); `verify` (it must chain to a trusted CA and name the host)",
    original: 'PROXY_CACHE.proxyConfig.tls',
  }),
  proxyCacheTlsCaFile: setting.string({
    env: 'ALS_PROXY_CACHE_TLS_CA_FILE',
    default: '',
    allowEmpty: true,
    doc: "PEM file (or text) of the CAs Redis's certificate must chain to with `verify` (empty: Node's, NODE_EXTRA_CA_CERTS included)",
    original: 'PROXY_CACHE.proxyConfig.tls.ca',
  }),
  proxyCacheTlsCertFile: setting.string({
    env: 'ALS_PROXY_CACHE_TLS_CERT_FILE',
    default: '',
    allowEmpty: true,
    doc: 'PEM file (or text) of the client certificate, for a Redis that asks for one (`tls-auth-clients`)',
    original: 'PROXY_CACHE.proxyConfig.tls.cert',
  }),
  proxyCacheTlsKeyFile: setting.string({
    env: 'ALS_PROXY_CACHE_TLS_KEY_FILE',
    default: '',
    allowEmpty: true,
    doc: "PEM file (or text) of the client certificate's private key",
    original: 'PROXY_CACHE.proxyConfig.tls.key',
  }),
  proxyCacheExpiresInSec: setting.int({
    env: 'ALS_PROXY_CACHE_EXPIRES_IN_SEC',
    default: 20,
    min: 1,
    doc: 'how long an inter-scheme lookup waits for the proxies before the timeout handler answers 3300',
    original: 'PROXY_CACHE_EXPIRES_IN_SEC',
  }),
  timeoutHandler: setting.bool({
    env: 'ALS_TIMEOUT_HANDLER',
    default: true,
    doc: 'answer expired inter-scheme lookups: in `handlers --timeout`, and with no command line when `ALS_PROXY_CACHE` is true (the original key inverted: `DISABLED` true)',
    original: 'HANDLERS.TIMEOUT.DISABLED',
  }),
  timeoutSchedule: setting.text({
    env: 'ALS_TIMEOUT_SCHEDULE',
    default: '*/15 * * * * *',
    pattern: cronShape,
    message: 'must be a cron expression (six fields, with seconds)',
    doc: "cron expression, with seconds, of the timeout handler's runs",
    original: 'HANDLERS.TIMEOUT.TIMEXP',
  }),
  timeoutTimezone: setting.string({
    env: 'ALS_TIMEOUT_TIMEZONE',
    default: 'UTC',
    doc: 'time zone of the schedule',
    original: 'HANDLERS.TIMEOUT.TIMEZONE',
  }),
  timeoutBatchSize: setting.int({
    env: 'ALS_TIMEOUT_BATCH_SIZE',
    default: 100,
    min: 1,
    doc: 'Redis SCAN count per step of a run',
    original: 'HANDLERS.TIMEOUT.BATCH_SIZE',
  }),
  timeoutLock: setting.bool({
    env: 'ALS_TIMEOUT_LOCK',
    default: true,
    doc: 'one timeout handler run at a time in the whole cluster, by a Redis lock `mutex:als-timeout-handler` (the original: `HANDLERS.TIMEOUT.DIST_LOCK.enabled`, off there)',
  }),
  timeoutLockTtlMs: setting.int({
    env: 'ALS_TIMEOUT_LOCK_TTL_MS',
    default: 10_000,
    min: 100,
    doc: 'how long the lock outlives a holder that died',
    original: 'HANDLERS.TIMEOUT.DIST_LOCK.lockTimeout',
  }),
  errorCauseExtension: setting.bool({
    env: 'ALS_ERROR_CAUSE_EXTENSION',
    default: false,
    doc: "error callbacks carry a `cause` extension: the error's stack, as the original's central-services-error-handling adds it (its internals: for a test scheme, never for FSPs)",
    original: 'ERROR_HANDLING.includeCauseExtension',
  }),
  truncateExtensions: setting.bool({
    env: 'ALS_TRUNCATE_EXTENSIONS',
    default: true,
    doc: "every extension value of an error callback cut to the API's 128 characters",
    original: 'ERROR_HANDLING.truncateExtensions',
  }),
  jwsValidate: setting.bool({
    env: 'ALS_JWS_VALIDATE',
    default: false,
    doc: 'POST/PUT/DELETE on /parties and /participants need a valid `FSPIOP-Signature`',
    original: 'ENDPOINT_SECURITY.JWS.JWS_VALIDATE',
  }),
  jwsValidatePutParties: setting.bool({
    env: 'ALS_JWS_VALIDATE_PUT_PARTIES',
    default: false,
    doc: 'PUT /parties callbacks are checked too',
    original: 'ENDPOINT_SECURITY.JWS.JWS_VALIDATE_PUT_PARTIES',
  }),
  jwsVerificationKeysDirectory: setting.string({
    env: 'ALS_JWS_VERIFICATION_KEYS_DIRECTORY',
    default: 'secrets/jwsVerificationKeys',
    doc: 'one `{fspId}.pem` public key per FSP',
    original: 'ENDPOINT_SECURITY.JWS.JWS_VERIFICATION_KEYS_DIRECTORY',
  }),
  jwsSign: setting.bool({
    env: 'ALS_JWS_SIGN',
    default: false,
    doc: 'every message the Hub originates carries `FSPIOP-Signature`',
    original: 'ENDPOINT_SECURITY.JWS.JWS_SIGN',
  }),
  jwsSigningKeyPath: setting.string({
    env: 'ALS_JWS_SIGNING_KEY_PATH',
    default: 'secrets/jwsSigningKey.key',
    doc: "the Hub's private key, PEM, RSA (RS256) or EC (ES256)",
    original: 'ENDPOINT_SECURITY.JWS.JWS_SIGNING_KEY_PATH',
  }),
  // account-lookup-service's config/default.json INSTRUMENTATION.METRICS.
  originalMetrics: setting.bool({
    env: 'ALS_ORIGINAL_METRICS',
    default: true,
    doc: "`/metrics` also has account-lookup-service's metric names, which the community dashboards query (observe/original-metrics.ts); false: only ours (the original's key inverted: `DISABLED` true)",
    original: 'INSTRUMENTATION.METRICS.DISABLED',
  }),
  metricsPrefix: setting.text({
    env: 'ALS_METRICS_PREFIX',
    default: 'moja_als_',
    pattern: METRIC_PREFIX_PATTERN,
    // als_ would give the original's process metrics the names of ours (collectDefaultMetrics, metrics.ts).
    check: (text) => text !== 'als_',
    message: 'must begin a Prometheus metric name (a letter, _ or :, then letters, digits, _ or :) other than als_',
    doc: "prefix of the original's metric names; a Prometheus name's start, never empty",
    original: 'INSTRUMENTATION.METRICS.config.prefix',
  }),
  metricsDefaultLabels: setting.text({
    env: 'ALS_METRICS_DEFAULT_LABELS',
    default: 'serviceName=account-lookup-service',
    check: (text) => parseMetricLabels(text) !== undefined,
    message: 'must be name=value[,name=value...] with Prometheus label names (not le)',
    doc: "`name=value,…` on every one of the original's series, with `serviceVersion` set to our version over any given, as the original sets its own; empty: none",
    original: 'INSTRUMENTATION.METRICS.config.defaultLabels',
  }),
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

const als = defineSettings(declared);

export type Config = ConfigOf<typeof declared>;
/** The same, for tests and overrides that build one field by field. */
export type ConfigValues = { -readonly [K in keyof Config]: Config[K] };

/** Every setting by key (its variable, type, default, doc, original key). */
export const schema = als.declared;
/** The same as a list in declaration order, each with its key (the configuration page and the original's mapping read it). */
export const settings = als.list;
export const defaults: Config = als.defaults;

export { ConfigError, parseMetricLabels };

/** Defaults, then environment variables, then explicit overrides (tests); validated and frozen. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ConfigValues> = {}): Config {
  const config = als.load(env, overrides);
  // The fields of the schedule are checked only when it is used; the shape (timeoutSchedule's pattern)
  // always. cron is loaded here then, not by every ALS.
  if (config.proxyCache && config.timeoutHandler) {
    const cron = createRequire(import.meta.url)('cron') as typeof import('cron');
    if (!cron.validateCronExpression(config.timeoutSchedule).valid)
      als.refuse('timeoutSchedule', `must be a cron expression, got "${config.timeoutSchedule}"`);
  }
  return config;
}
