import {
  asText,
  keyName,
  leaves,
  metricLabelsText,
  type OriginalSource,
  pathKey,
  readOriginalSource,
  type Tree,
  valueAt,
} from '@mojafast/service-kit';
import { type Config, ConfigError, type ConfigValues, loadConfig, parseHostPorts, schema, settings } from './index.js';

/** Where account-lookup-service's image has its config file (its Dockerfile: WORKDIR /opt/app, COPY config). */
export const ALS_CONFIG_FILE = '/opt/app/config/default.json';
/** Its rc app name: `rc('ALS', …)` in src/lib/config.js, so overrides are ALS_A__B. */
export const ALS_RC_APP = 'ALS';

export interface LoadedConfig {
  readonly config: Config;
  readonly file: string | undefined;
  /** Keys of the original's file (or ALS_ rc variables) we cannot honour: named once at start. */
  readonly notHonoured: readonly string[];
}

/**
 * Keys only the timeout handler reads (the original's `handlers --timeout` process): named, when this
 * process has no equivalent, only where the handler runs; elsewhere they are another process's keys.
 */
const handlerKeys: readonly string[] = ['HANDLERS'];

/**
 * central-services-logger's levels (`LOG_LEVEL`: error 0, warn 1, audit 2, trace 3, info 4, perf 5,
 * verbose 6, debug 7, silly 8) as pino's, each showing what that level shows of our lines: its `audit` and
 * `trace` rank above `info`, so they show warnings and errors only.
 */
const loggerLevels: Readonly<Record<string, Config['logLevel']>> = {
  error: 'error',
  warn: 'warn',
  audit: 'warn',
  trace: 'warn',
  info: 'info',
  perf: 'info',
  verbose: 'debug',
  debug: 'debug',
  silly: 'trace',
  // pino's own names, for a deployment that already sets them.
  fatal: 'fatal',
  silent: 'silent',
};

/**
 * The variables account-lookup-service's libraries read (the chart sets them) that this ALS either honours
 * or does the same as without them: the value that is ours is honoured, any other named.
 */
const sameAsOurs: Readonly<Record<string, string>> = {
  // central-services-logger's console transport: ours logs to the console too (stderr, JSON lines).
  CSL_LOG_TRANSPORT: 'console',
  // event-sdk's tracestate member: ours always writes it, under the event-sdk's default vendor key.
  EVENT_SDK_TRACESTATE_HEADER_ENABLED: 'true',
  EVENT_SDK_VENDOR_PREFIX: 'acmevendor',
  // false: the request's trace id is kept when tracestate has no member of ours, which ours always does.
  EVENT_SDK_TRACEID_PER_VENDOR: 'false',
};

/**
 * The original's own variables (not rc's `ALS_`): `LOG_LEVEL` → ALS_LOG_LEVEL, unless that is set; the
 * values of `sameAsOurs` accepted; every other `EVENT_SDK_*` (audit and trace events to a sidecar or the log,
 * which this ALS does not emit), `LOG_FILTER`, other `CSL_*` and a level we cannot map, named.
 */
function originalEnvironment(env: NodeJS.ProcessEnv): { fromEnv: Record<string, string>; notHonoured: string[] } {
  const fromEnv: Record<string, string> = {};
  const notHonoured: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    // An empty variable is as none: central-services-logger reads `LOG_LEVEL || its default`.
    if (value === undefined || value === '') continue;
    if (name === 'LOG_LEVEL') {
      const level = loggerLevels[value.trim().toLowerCase()];
      if (level === undefined) notHonoured.push(name);
      else if (env.ALS_LOG_LEVEL === undefined) fromEnv.ALS_LOG_LEVEL = level;
    } else if (name in sameAsOurs) {
      if (value.trim().toLowerCase() !== sameAsOurs[name]) notHonoured.push(name);
    } else if (name.startsWith('EVENT_SDK_') || name.startsWith('CSL_') || name === 'LOG_FILTER') {
      notHonoured.push(name);
    }
  }
  return { fromEnv, notHonoured };
}

/** The original's boolean keys take true or false only (rc gives them as text); ours read that text. */
const flag = (value: unknown, key: string): boolean => {
  const text = asText(value);
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new ConfigError(key, `must be true or false, got "${text}"`);
};
const bool = (value: unknown, key: string): string => String(flag(value, key));

/**
 * PROXY_CACHE.proxyConfig.cluster, `[{ host, port }, ...]` (ioredis Cluster's start-up nodes), as
 * ALS_PROXY_CACHE_NODES's `host:port,...`. From an rc variable it is a string: JSON, or already host:port.
 */
function clusterNodes(value: unknown, key: string): string {
  let nodes = value;
  if (typeof value === 'string') {
    if (parseHostPorts(value)) return value;
    try {
      nodes = JSON.parse(value);
    } catch {
      throw new ConfigError(key, `must be a list of { host, port }, got "${value}"`);
    }
  }
  const list = Array.isArray(nodes) ? nodes : [];
  const text = list
    .map((node: unknown) => {
      const { host, port } = (typeof node === 'object' && node !== null ? node : {}) as Record<string, unknown>;
      return `${asText(host)}:${asText(port)}`;
    })
    .join(',');
  if (list.length === 0 || parseHostPorts(text) === undefined)
    throw new ConfigError(key, `must be a list of { host, port }, got ${JSON.stringify(value)}`);
  return text;
}

/** A PEM value of the original (text, or a list of texts as node:tls takes `ca`) as one PEM text. */
function pemText(value: unknown, key: string): string {
  const parts = Array.isArray(value) ? value : [value];
  if (parts.length === 0 || parts.some((part) => typeof part !== 'string' || !part.includes('-----BEGIN')))
    throw new ConfigError(key, 'must be PEM text (or a list of PEM texts)');
  return parts.join('\n');
}

/** Our settings of one TLS connection (config/index.ts): its mode and its PEM files. */
interface TlsSettings {
  readonly mode: keyof Config;
  readonly ca: keyof Config;
  readonly cert: keyof Config;
  readonly key: keyof Config;
}

/**
 * The settings, in this order: our defaults < account-lookup-service's config file (CONFIG_FILE, else the
 * path of its image) < its rc overrides (ALS_A__B; our own ALS_… variables excepted) < our variables <
 * `overrides`. A bad value throws ConfigError naming the key it came from.
 */
export function readConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: {
    defaultFile?: string;
    overrides?: Partial<ConfigValues>;
    /** What the command line asks of the timeout handler (command-line.ts AlsRole); undefined: 'when-on'. */
    timeoutHandler?: boolean | 'when-on';
  } = {},
): LoadedConfig {
  const ours = new Set(settings.map((s) => s.env));
  const source = readOriginalSource(ALS_RC_APP, env, options.defaultFile ?? ALS_CONFIG_FILE, ours);
  const notHonoured: string[] = [];
  // The timeout handler's keys without an equivalent here: named only where the handler runs.
  const handlerOnly: string[] = [];
  let fromFile: Record<string, string> = {};
  if (source.tree !== undefined) {
    const r = createReader(source, source.tree);
    // In the order of the original's file, so that of two bad keys the same one is named.
    for (const read of [
      readService,
      readDatabase,
      readLookups,
      readTimeoutHandler,
      readProxyCache,
      readJws,
      readInstrumentation,
    ])
      read(r);
    for (const [path] of leaves(r.tree)) {
      if (r.used.has(pathKey(path))) continue;
      if (handlerKeys.includes(path[0] as string)) handlerOnly.push(keyName(source, path));
      else notHonoured.push(keyName(source, path));
    }
    fromFile = r.fromFile;
  }
  const environment = originalEnvironment(env);
  notHonoured.push(...environment.notHonoured);
  // Our variables (and test overrides) win over the file and the original's variables: laid over them.
  const config = loadConfig({ ...fromFile, ...environment.fromEnv, ...env }, options.overrides);
  const role = options.timeoutHandler ?? 'when-on';
  if (role === true || (role === 'when-on' && config.proxyCache && config.timeoutHandler))
    notHonoured.push(...handlerOnly);
  return { config, file: source.file, notHonoured: Object.freeze(notHonoured) };
}

/** The original's tree being read: our variables found so far, and every key read (the rest are named). */
interface Reader {
  readonly source: OriginalSource;
  readonly tree: Tree;
  /** Our variables, by name, as the file gives them. */
  readonly fromFile: Record<string, string>;
  readonly used: Set<string>;
  /** Marks a key as read. */
  seen(path: readonly string[]): void;
  /** The setting's `original` key (config/index.ts) is where its value is in the original's tree. */
  take(key: keyof Config, convert?: (value: unknown, name: string) => string): void;
  /** A key read and checked, with no setting of ours behind it. */
  accept(path: string[], ok: (text: string) => boolean, detail: string): void;
  /** A boolean key, read (undefined when unset). */
  flagAt(path: string[]): boolean | undefined;
}

function createReader(source: OriginalSource, tree: Tree): Reader {
  const fromFile: Record<string, string> = {};
  const used = new Set<string>();
  const seen = (path: readonly string[]) => {
    used.add(pathKey(path));
  };
  return {
    source,
    tree,
    fromFile,
    used,
    seen,
    take(key, convert = (v) => asText(v)) {
      const setting = schema[key];
      const path = setting.original?.split('.') ?? [];
      const value = valueAt(tree, path);
      if (value === undefined) return;
      seen(path);
      const name = keyName(source, path);
      const text = convert(value, name);
      // Validated by our own parser, the error renamed to the original's key.
      try {
        loadConfig({ [setting.env]: text });
      } catch (error) {
        if (error instanceof ConfigError) throw new ConfigError(name, error.message.slice(setting.env.length + 2));
        throw error;
      }
      fromFile[setting.env] = text;
    },
    accept(path, ok, detail) {
      const value = valueAt(tree, path);
      if (value === undefined) return;
      seen(path);
      if (!ok(asText(value))) throw new ConfigError(keyName(source, path), `${detail}, got "${asText(value)}"`);
    },
    flagAt(path) {
      const value = valueAt(tree, path);
      if (value === undefined) return undefined;
      seen(path);
      return flag(value, keyName(source, path));
    },
  };
}

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A node:tls options object of the original (mysql2's `ssl`, ioredis's `tls`) as our TLS settings: any
 * object is TLS, verified unless `rejectUnauthorized` is false (both libraries' default), its ca, cert and
 * key PEM text. Its other keys (ciphers, passphrase, servername...) are left unseen: named.
 */
function readTlsObject(r: Reader, path: string[], ours: TlsSettings) {
  const fields = valueAt(r.tree, path) as Record<string, unknown>;
  r.seen(path);
  const rejectPath = [...path, 'rejectUnauthorized'];
  const reject = fields.rejectUnauthorized;
  r.seen(rejectPath);
  const verify = reject === undefined || reject === null || flag(reject, keyName(r.source, rejectPath));
  r.fromFile[schema[ours.mode].env] = verify ? 'verify' : 'on';
  for (const field of ['ca', 'cert', 'key'] as const) {
    const pem = fields[field];
    if (pem === undefined || pem === null || pem === '') continue;
    r.seen([...path, field]);
    r.fromFile[schema[ours[field]].env] = pemText(pem, keyName(r.source, [...path, field]));
  }
}

/** The ports, the hub, the switch's endpoint and the API type. */
function readService(r: Reader) {
  r.take('port');
  r.take('adminPort');
  r.take('hubName');
  r.take('switchEndpoint');
  r.take('apiType');
}

function readDatabase(r: Reader) {
  r.accept(['DATABASE', 'DIALECT'], (t) => t === 'mysql' || t === 'mysql2', 'must be mysql or mysql2');
  r.take('dbHost', (v) => asText(v).replace(/\/$/, ''));
  r.take('dbPort');
  r.take('dbUser');
  r.take('dbPassword');
  // The original keeps its oracle registry in this database: naming it selects the database registry.
  r.take('dbName');
  // DATABASE.ADDITIONAL_CONNECTION_OPTIONS: spread into mysql2's connection options by the original
  // (src/lib/config.js). Its `ssl` is honoured; any other key of it is named. Empty, it does nothing there either.
  const additional = ['DATABASE', 'ADDITIONAL_CONNECTION_OPTIONS'];
  const additionalValue = valueAt(r.tree, additional);
  if (isObject(additionalValue) && Object.keys(additionalValue as object).length === 0) r.seen(additional);
  const sslPath = [...additional, 'ssl'];
  const ssl = valueAt(r.tree, sslPath);
  if (isObject(ssl)) {
    readTlsObject(r, sslPath, { mode: 'dbSsl', ca: 'dbSslCaFile', cert: 'dbSslCertFile', key: 'dbSslKeyFile' });
    // mysql2 checks that the certificate names the host only with verifyIdentity, and only when it verifies.
    const identityPath = [...sslPath, 'verifyIdentity'];
    const identity = valueAt(r.tree, identityPath);
    if (identity !== undefined && identity !== null) {
      r.seen(identityPath);
      if (flag(identity, keyName(r.source, identityPath)) && r.fromFile.ALS_DB_SSL === 'verify')
        r.fromFile.ALS_DB_SSL = 'verify-identity';
    }
  } else if (ssl !== undefined) {
    r.seen(sslPath);
    const text = asText(ssl);
    // No TLS, as mysql2 reads a falsy `ssl`; rc gives false as text.
    if (text === '' || text === 'false') r.fromFile.ALS_DB_SSL = 'off';
    // A string is the name of one of mysql2's CA profiles; `true` is none (mysql2 refuses it).
    else if (text === 'true')
      throw new ConfigError(keyName(r.source, sslPath), 'must be an object of TLS options or a mysql2 profile name');
    else {
      r.fromFile.ALS_DB_SSL = 'verify';
      r.fromFile.ALS_DB_SSL_PROFILE = text;
    }
  }
}

/** The FSPIOP version, the caches and what lookups and error callbacks do. */
function readLookups(r: Reader) {
  r.take('hubFspiopVersion');
  r.take('participantCacheTtlMs');
  r.take('endpointCacheTtlMs');
  // GENERAL_CACHE_CONFIG caches the oracle registry (oracleEndpointCached); disabled, it is read each time.
  const enabled = r.flagAt(['GENERAL_CACHE_CONFIG', 'CACHE_ENABLED']);
  if (enabled === true) r.take('oracleRegistryCacheTtlMs');
  else if (enabled === false) {
    r.seen(['GENERAL_CACHE_CONFIG', 'EXPIRES_IN_MS']);
    r.fromFile.ALS_ORACLE_REGISTRY_CACHE_TTL_MS = '0';
  }
  r.take('extendedPartyIdTypes', bool);
  r.take('deleteParticipantValidation', bool);
  r.take('proxyCacheExpiresInSec');
  // ERROR_HANDLING: the options every error callback's body is built with (toApiErrorObject of
  // central-services-error-handling, fspiop/error-handling.ts).
  r.take('errorCauseExtension', bool);
  r.take('truncateExtensions', bool);
}

/**
 * HANDLERS: the timeout handler's (src/handlers), its monitoring port and schedule; read by every process as
 * the original's src/lib/config.js reads them, used where the handler runs.
 */
function readTimeoutHandler(r: Reader) {
  r.take('monitoringPort');
  const disabled = r.flagAt(['HANDLERS', 'TIMEOUT', 'DISABLED']);
  if (disabled !== undefined) r.fromFile.ALS_TIMEOUT_HANDLER = String(!disabled);
  r.take('timeoutSchedule');
  r.take('timeoutTimezone');
  r.take('timeoutBatchSize');
  r.take('timeoutLockTtlMs');
  // HANDLERS.DISABLED is read into the original's config and used by none of its code. DIST_LOCK.enabled:
  // off there, on here (ALS_TIMEOUT_LOCK, docs/differences.md): either way one answer per expired lookup,
  // as the DEL of its key decides who answers, so the key changes nothing and is accepted.
  r.seen(['HANDLERS', 'DISABLED']);
  r.seen(['HANDLERS', 'TIMEOUT', 'DIST_LOCK', 'enabled']);
}

const proxyConfig = ['PROXY_CACHE', 'proxyConfig'];

/**
 * PROXY_CACHE: the original reads the rest of the group only when `enabled` is truthy (src/lib/config.js
 * checks `type` then; src/server.js connects the cache then), so a disabled group is neither checked nor
 * reported.
 */
function readProxyCache(r: Reader) {
  if (valueAt(r.tree, ['PROXY_CACHE', 'enabled']) === undefined) return;
  r.take('proxyCache', bool);
  if (r.fromFile.ALS_PROXY_CACHE !== 'true') {
    for (const [path] of leaves(r.tree)) if (path[0] === 'PROXY_CACHE') r.seen(path);
    return;
  }
  const typePath = ['PROXY_CACHE', 'type'];
  // Any other type (or none) is the original's `TypeError: Incorrect proxyCache type`: it stops too.
  const type = asText(valueAt(r.tree, typePath));
  r.seen(typePath);
  if (type !== 'redis' && type !== 'redis-cluster')
    throw new ConfigError(keyName(r.source, typePath), `must be redis or redis-cluster, got "${type}"`);
  // The original's cache library (@mojaloop/inter-scheme-proxy-cache-lib 2.10.0, createProxyCache)
  // goes by `type` alone: redis-cluster is an ioredis Cluster on proxyConfig.cluster, which it requires;
  // redis is one Redis at proxyConfig.host and port, which it requires, a `cluster` list beside them
  // (the stock file's) ignored.
  r.fromFile.ALS_PROXY_CACHE_TYPE = type;
  r.fromFile.ALS_PROXY_CACHE_NODES = type === 'redis-cluster' ? clusterStartNodes(r) : redisNode(r);
  r.take('proxyCacheUsername');
  r.take('proxyCachePassword');
  r.take('proxyCacheDb');
  // TLS: the library hands proxyConfig to ioredis as it is. One Redis reads `tls` (any truthy value is
  // TLS); a Cluster connects its nodes with `redisOptions` (its own options carry no TLS, username or
  // password: there they are named, as they do nothing in the original either).
  const optionsPath = type === 'redis-cluster' ? [...proxyConfig, 'redisOptions'] : proxyConfig;
  if (type === 'redis-cluster') {
    for (const [field, key] of [
      ['username', 'proxyCacheUsername'],
      ['password', 'proxyCachePassword'],
    ] as const) {
      const path = [...optionsPath, field];
      const value = valueAt(r.tree, path);
      if (value === undefined || value === null) continue;
      r.seen(path);
      r.fromFile[schema[key].env] = asText(value);
    }
  }
  const tlsPath = [...optionsPath, 'tls'];
  const tls = valueAt(r.tree, tlsPath);
  if (isObject(tls))
    readTlsObject(r, tlsPath, {
      mode: 'proxyCacheTls',
      ca: 'proxyCacheTlsCaFile',
      cert: 'proxyCacheTlsCertFile',
      key: 'proxyCacheTlsKeyFile',
    });
  else if (tls !== undefined) {
    r.seen(tlsPath);
    const text = asText(tls);
    r.fromFile.ALS_PROXY_CACHE_TLS = text === '' || text === 'false' ? 'off' : 'verify';
  }
}

/** proxyConfig.cluster, required when the type is redis-cluster, as our `host:port,...`. */
function clusterStartNodes(r: Reader): string {
  const clusterPath = [...proxyConfig, 'cluster'];
  // rc's "null" is null in the original (parse-strings-in-object): how a deployment unsets the file's list.
  const rawCluster = valueAt(r.tree, clusterPath);
  const cluster = rawCluster === 'null' || rawCluster === '' ? null : rawCluster;
  r.seen(clusterPath);
  if (cluster === undefined || cluster === null)
    throw new ConfigError(keyName(r.source, clusterPath), 'must list the start-up nodes when type is redis-cluster');
  return clusterNodes(cluster, keyName(r.source, clusterPath));
}

/** proxyConfig.host and port, required when the type is redis, as our `host:port`; a `cluster` beside them unread. */
function redisNode(r: Reader): string {
  // Seen whatever the type: the stock file's list stands beside host and port.
  r.seen([...proxyConfig, 'cluster']);
  const hostPath = [...proxyConfig, 'host'];
  const portPath = [...proxyConfig, 'port'];
  const host = valueAt(r.tree, hostPath);
  const port = valueAt(r.tree, portPath);
  r.seen(hostPath);
  r.seen(portPath);
  if (host === undefined || host === null || host === '')
    throw new ConfigError(keyName(r.source, hostPath), 'is required when type is redis');
  if (port === undefined || port === null || port === '')
    throw new ConfigError(keyName(r.source, portPath), 'is required when type is redis');
  const node = `${asText(host)}:${asText(port)}`;
  if (parseHostPorts(node) === undefined)
    throw new ConfigError(keyName(r.source, portPath), `must be a host and a TCP port, got "${node}"`);
  return node;
}

/**
 * ENDPOINT_SECURITY.JWS: read at start by the original's src/lib/config.js (JWS_SIGN reads the key file there
 * and stops the start when it is missing; ours loads it before anything connects, same outcome).
 */
function readJws(r: Reader) {
  r.take('jwsSign', bool);
  r.take('jwsSigningKeyPath');
  r.take('jwsValidate', bool);
  r.take('jwsVerificationKeysDirectory');
  r.take('jwsValidatePutParties', bool);
}

/**
 * INSTRUMENTATION.METRICS: src/server.js sets central-services-metrics up with `config` (prefix,
 * defaultLabels) unless DISABLED; our /metrics then carries the original's names so (original-metrics.ts).
 */
function readInstrumentation(r: Reader) {
  const instrumentation = ['INSTRUMENTATION', 'METRICS'];
  const disabled = r.flagAt([...instrumentation, 'DISABLED']);
  if (disabled !== undefined) r.fromFile.ALS_ORIGINAL_METRICS = String(!disabled);
  r.take('metricsPrefix');
  const labelsPath = [...instrumentation, 'config', 'defaultLabels'];
  r.take('metricsDefaultLabels', (value, name) =>
    metricLabelsText(value, name, (path) => r.seen([...labelsPath, ...path])),
  );
  // Accepted whatever their value, as the original does nothing with them either: `timeout` was
  // prom-client's collection interval, which its version (15, under central-services-metrics 12) no longer
  // reads (process metrics are sampled on scrape, as ours); `labels` (INSTRUMENTATION_METRICS_LABELS in
  // src/lib/config.js) is read by no metric of account-lookup-service.
  for (const [path] of leaves(r.tree)) {
    const under = (prefix: readonly string[]) => prefix.every((part, i) => path[i] === part);
    if (under([...instrumentation, 'config', 'timeout']) || under([...instrumentation, 'labels'])) r.seen(path);
  }
}
