import {
  type ConfigOf,
  defineSettings,
  METRIC_PREFIX_PATTERN,
  parseMetricLabels,
  readOriginalSource,
  setting,
} from '@mojafast/service-kit';
import {
  CENTRAL_LEDGER_CONFIG_FILE,
  CENTRAL_LEDGER_RC_APP,
  libraryVariablesNotHonoured,
  mapCentralLedger,
  type PositionHandlerKind,
} from './central-ledger.js';
import { ConfigError } from './config-error.js';

/** central-services-logger's levels, most severe first (its src/lib/constants.js); ours are four of them. */
const LOG_LEVELS = ['error', 'warn', 'audit', 'trace', 'info', 'perf', 'verbose', 'debug', 'silly'] as const;
type HandlerLogLevel = 'error' | 'warn' | 'info' | 'debug';

const logFilterWords = (text: string) =>
  text
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');

/**
 * The handler's settings, each declared once: variable (`POSITION_*`; the older unprefixed names are read
 * as aliases), type, default, doc and central-ledger's key. PositionConfig, the defaults, the validator
 * and docs/configuration.md are all read from here. `<consumer>` is central-ledger's
 * KAFKA.CONSUMER.TRANSFER.POSITION_BATCH (or .POSITION for `handler --position`, central-ledger.ts).
 */
const declared = {
  kafkaClient: setting.enum(['platformatic', 'kafkajs'], {
    env: 'POSITION_KAFKA_CLIENT',
    aliases: ['KAFKA_CLIENT'],
    default: 'platformatic',
    doc: 'Kafka client: `platformatic` (@platformatic/kafka) or `kafkajs` (the client the project design names; no release since 2023)',
  }),
  kafkaBrokers: setting.list({
    env: 'POSITION_KAFKA_BROKERS',
    aliases: ['KAFKA_BROKERS'],
    default: Object.freeze(['127.0.0.1:9092']),
    doc: 'Kafka bootstrap brokers, comma separated',
    original: '<consumer>.config.rdkafkaConf.metadata.broker.list',
  }),
  kafkaClientId: setting.string({
    env: 'POSITION_KAFKA_CLIENT_ID',
    aliases: ['KAFKA_CLIENT_ID'],
    default: 'mojafast-position',
    doc: 'Kafka client id',
    original: '<consumer>.config.rdkafkaConf.client.id',
  }),
  consumerGroup: setting.string({
    env: 'POSITION_CONSUMER_GROUP',
    default: 'cl-group-transfer-position-batch',
    doc: 'consumer group of the position topics',
    original: '<consumer>.config.rdkafkaConf.group.id',
  }),
  positionTopics: setting.list({
    env: 'POSITION_TOPICS',
    default: Object.freeze(['topic-transfer-position-batch']),
    doc: 'position topics to consume, comma separated',
    original: 'KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.PREPARE',
  }),
  notificationTopic: setting.string({
    env: 'POSITION_NOTIFICATION_TOPIC',
    aliases: ['NOTIFICATION_TOPIC'],
    default: 'topic-notification-event',
    doc: 'topic the notifications go to',
    original: 'KAFKA.TOPIC_TEMPLATES.GENERAL_TOPIC_TEMPLATE.TEMPLATE',
  }),
  positionCommitTopic: setting.string({
    env: 'POSITION_COMMIT_TOPIC',
    default: 'topic-transfer-position',
    doc: 'topic of the follow-up message of a commit or abort whose cyrilResult has a step left (unset in central-ledger, it is topic-transfer-position)',
    original: 'KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.COMMIT',
  }),
  bulkProcessingTopic: setting.string({
    env: 'POSITION_BULK_PROCESSING_TOPIC',
    aliases: ['BULK_PROCESSING_TOPIC'],
    default: 'topic-bulk-processing',
    doc: "topic the results of bulk-prepare, bulk-commit, bulk-timeout-reserved and bulk-abort go to (central-ledger's `GENERAL_TOPIC_TEMPLATE` for bulk/processing: the one-at-a-time handler's `Kafka.proceed` with functionality `bulk-processing`)",
    original: 'KAFKA.TOPIC_TEMPLATES.GENERAL_TOPIC_TEMPLATE.TEMPLATE',
  }),
  fromBeginning: setting.bool({
    env: 'POSITION_FROM_BEGINNING',
    default: true,
    doc: 'a new group starts at the earliest offset',
    original: '<consumer>.config.topicConf.auto.offset.reset',
  }),
  batchSize: setting.int({
    env: 'POSITION_BATCH_SIZE',
    default: 1000,
    min: 1,
    max: 10_000,
    doc: 'messages applied in one DB transaction',
    original: '<consumer>.config.options.batchSize',
  }),
  partitionsConsumedConcurrently: setting.int({
    env: 'POSITION_PARTITIONS_CONCURRENTLY',
    default: 4,
    min: 1,
    max: 64,
    doc: 'partitions processed in parallel by one process',
  }),
  maxBytesPerPartition: setting.int({
    env: 'POSITION_KAFKA_MAX_BYTES_PER_PARTITION',
    aliases: ['KAFKA_MAX_BYTES_PER_PARTITION'],
    default: 4 * 1024 * 1024,
    min: 1024,
    max: 1 << 30,
    doc: 'fetch size per partition (bytes); bounds how many messages one fetch hands over',
  }),
  sessionTimeoutMs: setting.int({
    env: 'POSITION_KAFKA_SESSION_TIMEOUT_MS',
    aliases: ['KAFKA_SESSION_TIMEOUT_MS'],
    default: 30_000,
    min: 6000,
    max: 300_000,
    doc: 'consumer group session timeout: how soon a dead process loses its partitions',
  }),
  fetchMinBytes: setting.int({
    env: 'POSITION_KAFKA_FETCH_MIN_BYTES',
    aliases: ['KAFKA_FETCH_MIN_BYTES'],
    default: 1,
    min: 1,
    max: 64 * 1024 * 1024,
    doc: 'a fetch waits on the broker until this many bytes are there (or `POSITION_KAFKA_FETCH_MAX_WAIT_MS` passed)',
  }),
  fetchMaxWaitMs: setting.int({
    env: 'POSITION_KAFKA_FETCH_MAX_WAIT_MS',
    aliases: ['KAFKA_FETCH_MAX_WAIT_MS'],
    default: 100,
    min: 0,
    max: 30_000,
    doc: 'longest a fetch waits on the broker for `POSITION_KAFKA_FETCH_MIN_BYTES`',
  }),
  produceBatchBytes: setting.int({
    env: 'POSITION_KAFKA_PRODUCE_BATCH_BYTES',
    aliases: ['KAFKA_PRODUCE_BATCH_BYTES'],
    default: 800_000,
    min: 1024,
    max: 16 * 1024 * 1024,
    doc: "notification bytes per produce request; keep it under the broker's `message.max.bytes` (1 MiB by default)",
  }),
  produceLingerMs: setting.int({
    env: 'POSITION_KAFKA_PRODUCE_LINGER_MS',
    aliases: ['KAFKA_PRODUCE_LINGER_MS'],
    default: 0,
    min: 0,
    max: 1000,
    doc: 'notifications produced within this time share one request (0 = each chunk is sent at once)',
  }),
  acks: setting.enum(['all', 'leader'], {
    env: 'POSITION_KAFKA_ACKS',
    aliases: ['KAFKA_ACKS'],
    default: 'all',
    doc: 'produce acknowledgement: `all` in-sync replicas, or the `leader` only; offsets are committed after it, so `none` is not offered',
    original: 'KAFKA.PRODUCER.NOTIFICATION.EVENT.config.topicConf.request.required.acks',
  }),
  compression: setting.enum(['none', 'gzip', 'snappy', 'lz4', 'zstd'], {
    env: 'POSITION_KAFKA_COMPRESSION',
    aliases: ['KAFKA_COMPRESSION'],
    default: 'none',
    doc: 'compression of the notifications (kafkajs: `none` or `gzip`)',
    original: 'KAFKA.PRODUCER.NOTIFICATION.EVENT.config.rdkafkaConf.compression.codec',
  }),
  // librdkafka's TLS and SASL keys of the consumer's rdkafkaConf (the producers' must agree: central-ledger.ts);
  // one connection setup serves the consumer, the producer and the topic check.
  kafkaSecurityProtocol: setting.enum(['plaintext', 'ssl', 'sasl_plaintext', 'sasl_ssl'], {
    env: 'POSITION_KAFKA_SECURITY_PROTOCOL',
    default: 'plaintext',
    doc: "how the brokers are spoken to: `plaintext`, `ssl` (TLS), `sasl_plaintext` (SASL without TLS) or `sasl_ssl` (SASL over TLS), librdkafka's values (any case in the original's file)",
    original: '<consumer>.config.rdkafkaConf.security.protocol',
  }),
  kafkaSslCaFile: setting.optional(
    setting.string({
      env: 'POSITION_KAFKA_SSL_CA_FILE',
      default: '',
      doc: "PEM file of the CA certificates the brokers' certificates are verified against, or `probe`: the system's store (librdkafka's value). Unset (and no `POSITION_KAFKA_SSL_CA_PEM`): Node's bundled Mozilla roots, where librdkafka takes the system's",
      original: '<consumer>.config.rdkafkaConf.ssl.ca.location',
    }),
  ),
  kafkaSslCaPem: setting.optional(
    setting.string({
      env: 'POSITION_KAFKA_SSL_CA_PEM',
      default: '',
      doc: 'the CA certificates as PEM text (not with `POSITION_KAFKA_SSL_CA_FILE`)',
      original: '<consumer>.config.rdkafkaConf.ssl.ca.pem',
    }),
  ),
  kafkaSslCertFile: setting.optional(
    setting.string({
      env: 'POSITION_KAFKA_SSL_CERT_FILE',
      default: '',
      doc: "PEM file of the client's certificate, for brokers that authenticate clients by TLS (with a key)",
      original: '<consumer>.config.rdkafkaConf.ssl.certificate.location',
    }),
  ),
  kafkaSslCertPem: setting.optional(
    setting.string({
      env: 'POSITION_KAFKA_SSL_CERT_PEM',
      default: '',
      doc: "the client's certificate as PEM text (not with `POSITION_KAFKA_SSL_CERT_FILE`)",
      original: '<consumer>.config.rdkafkaConf.ssl.certificate.pem',
    }),
  ),
  kafkaSslKeyFile: setting.optional(
    setting.string({
      env: 'POSITION_KAFKA_SSL_KEY_FILE',
      default: '',
      doc: "PEM file of the client certificate's private key",
      original: '<consumer>.config.rdkafkaConf.ssl.key.location',
    }),
  ),
  kafkaSslKeyPem: setting.optional(
    setting.string({
      env: 'POSITION_KAFKA_SSL_KEY_PEM',
      default: '',
      doc: 'the private key as PEM text (not with `POSITION_KAFKA_SSL_KEY_FILE`)',
      original: '<consumer>.config.rdkafkaConf.ssl.key.pem',
    }),
  ),
  kafkaSslKeyPassword: setting.optional(
    setting.string({
      env: 'POSITION_KAFKA_SSL_KEY_PASSWORD',
      default: '',
      doc: 'passphrase of an encrypted private key',
      original: '<consumer>.config.rdkafkaConf.ssl.key.password',
    }),
  ),
  kafkaSslVerify: setting.bool({
    env: 'POSITION_KAFKA_SSL_VERIFY',
    default: true,
    doc: "the brokers' certificates are verified against the CA certificates; false: any certificate is taken (and no host name is checked), as librdkafka's `false` does",
    original: '<consumer>.config.rdkafkaConf.enable.ssl.certificate.verification',
  }),
  kafkaSslHostnameCheck: setting.bool({
    env: 'POSITION_KAFKA_SSL_HOSTNAME_CHECK',
    default: true,
    doc: "a verified certificate must also name the broker's host (address); librdkafka's `https` (its default since 2.0.0) → true, `none` → false",
    original: '<consumer>.config.rdkafkaConf.ssl.endpoint.identification.algorithm',
  }),
  kafkaSaslMechanism: setting.optional(
    setting.enum(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'], {
      env: 'POSITION_KAFKA_SASL_MECHANISM',
      default: 'PLAIN',
      doc: "SASL mechanism with `sasl_ssl` or `sasl_plaintext`, required there (librdkafka's default GSSAPI, Kerberos, is not offered; nor OAUTHBEARER)",
      original: '<consumer>.config.rdkafkaConf.sasl.mechanisms',
    }),
  ),
  kafkaSaslUsername: setting.optional(
    setting.string({
      env: 'POSITION_KAFKA_SASL_USERNAME',
      default: '',
      doc: 'SASL user name',
      original: '<consumer>.config.rdkafkaConf.sasl.username',
    }),
  ),
  kafkaSaslPassword: setting.optional(
    setting.string({
      env: 'POSITION_KAFKA_SASL_PASSWORD',
      default: '',
      doc: 'SASL password',
      original: '<consumer>.config.rdkafkaConf.sasl.password',
    }),
  ),
  dbHost: setting.string({
    env: 'POSITION_DB_HOST',
    aliases: ['DB_HOST'],
    default: '127.0.0.1',
    doc: 'MySQL/MariaDB host',
    original: 'DATABASE.HOST',
  }),
  dbPort: setting.int({
    env: 'POSITION_DB_PORT',
    aliases: ['DB_PORT'],
    default: 3306,
    min: 1,
    max: 65535,
    doc: 'MySQL/MariaDB port',
    original: 'DATABASE.PORT',
  }),
  dbUser: setting.string({
    env: 'POSITION_DB_USER',
    aliases: ['DB_USER'],
    default: 'central_ledger',
    doc: 'database user',
    original: 'DATABASE.USER',
  }),
  dbPassword: setting.string({
    env: 'POSITION_DB_PASSWORD',
    aliases: ['DB_PASSWORD'],
    default: 'password',
    // A MySQL user without a password is valid, and Mojaloop's charts set CLEDG_DATABASE__PASSWORD empty by default.
    allowEmpty: true,
    doc: 'database password',
    original: 'DATABASE.PASSWORD',
  }),
  dbName: setting.string({
    env: 'POSITION_DB_NAME',
    aliases: ['DB_NAME'],
    default: 'central_ledger',
    doc: "central-ledger's database",
    original: 'DATABASE.SCHEMA',
  }),
  dbPoolMax: setting.int({
    env: 'POSITION_DB_POOL_MAX',
    aliases: ['DB_POOL_MAX'],
    default: 8,
    min: 1,
    max: 100,
    doc: 'database connections',
    original: 'DATABASE.POOL_MAX_SIZE',
  }),
  // ADDITIONAL_CONNECTION_OPTIONS is spread into knex's connection by the central-ledger releases that read it
  // (mysql2's connection options): `ssl` is an object or the name of one of mysql2's profiles.
  dbSsl: setting.enum(['off', 'on', 'verify', 'verify-identity'], {
    env: 'POSITION_DB_SSL',
    default: 'off',
    doc: "TLS to the database: `off`; `on` (encrypted, any certificate taken: the original's `ssl: {rejectUnauthorized: false}`); `verify` (the certificate verified against the CA certificates: an `ssl` object, mysql2's default); `verify-identity` (and it must name the host: `verifyIdentity: true`). A certificate that fails stops the start in one line",
    original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl',
  }),
  dbSslCaFile: setting.optional(
    setting.string({
      env: 'POSITION_DB_SSL_CA_FILE',
      default: '',
      doc: "PEM file of the CA certificates the server's certificate is verified against (unset: Node's bundled Mozilla roots)",
    }),
  ),
  dbSslCaPem: setting.optional(
    setting.string({
      env: 'POSITION_DB_SSL_CA_PEM',
      default: '',
      doc: 'the CA certificates as PEM text (not with `POSITION_DB_SSL_CA_FILE`)',
      original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl.ca',
    }),
  ),
  dbSslCertFile: setting.optional(
    setting.string({
      env: 'POSITION_DB_SSL_CERT_FILE',
      default: '',
      doc: "PEM file of the client's certificate, for a user that requires one (`REQUIRE X509`)",
    }),
  ),
  dbSslCertPem: setting.optional(
    setting.string({
      env: 'POSITION_DB_SSL_CERT_PEM',
      default: '',
      doc: "the client's certificate as PEM text (not with `POSITION_DB_SSL_CERT_FILE`)",
      original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl.cert',
    }),
  ),
  dbSslKeyFile: setting.optional(
    setting.string({
      env: 'POSITION_DB_SSL_KEY_FILE',
      default: '',
      doc: "PEM file of the client certificate's private key",
    }),
  ),
  dbSslKeyPem: setting.optional(
    setting.string({
      env: 'POSITION_DB_SSL_KEY_PEM',
      default: '',
      doc: 'the private key as PEM text (not with `POSITION_DB_SSL_KEY_FILE`)',
      original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl.key',
    }),
  ),
  dbSslKeyPassword: setting.optional(
    setting.string({
      env: 'POSITION_DB_SSL_KEY_PASSWORD',
      default: '',
      doc: 'passphrase of an encrypted private key',
      original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl.passphrase',
    }),
  ),
  dbSslProfile: setting.optional(
    setting.enum(['Amazon RDS'], {
      env: 'POSITION_DB_SSL_PROFILE',
      default: 'Amazon RDS',
      doc: "one of mysql2's named CA bundles instead of a CA file (with `POSITION_DB_SSL=verify`, no CA, certificate or key)",
      original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl',
    }),
  ),
  dbConnectTimeoutMs: setting.int({
    env: 'POSITION_DB_CONNECT_TIMEOUT_MS',
    default: 10_000,
    min: 100,
    max: 600_000,
    doc: "how long a new database connection (TCP, TLS and login) may take (mysql2's `connectTimeout`)",
    original: 'DATABASE.ADDITIONAL_CONNECTION_OPTIONS.connectTimeout',
  }),
  referenceTtlMs: setting.int({
    env: 'POSITION_REFERENCE_TTL_MS',
    default: 1000,
    min: 0,
    max: 600_000,
    doc: 'how long accounts, NET_DEBIT_CAP limits and settlement models are reused before a batch reads them again (0 = every batch); central-ledger caches the same facts',
    original: 'CACHE.EXPIRES_IN_MS',
  }),
  hubName: setting.string({
    env: 'POSITION_HUB_NAME',
    aliases: ['HUB_NAME'],
    default: 'Hub',
    doc: 'the switch name in error notifications (FSPIOP-Source)',
    original: 'HUB_PARTICIPANT.NAME',
  }),
  // central-ledger's repository config/default.json says true and false; Mojaloop's charts false and true.
  errorCauseExtension: setting.bool({
    env: 'POSITION_ERROR_CAUSE_EXTENSION',
    default: true,
    doc: "error notifications' `errorInformation` has a `cause` extension (`FSPIOPError: …` and a line naming this handler and the error, where the original has its stack trace); false: no `extensionList`",
    original: 'ERROR_HANDLING.includeCauseExtension',
  }),
  errorTruncateExtensions: setting.bool({
    env: 'POSITION_ERROR_TRUNCATE_EXTENSIONS',
    default: false,
    doc: "each extension value of an error notification cut to the FSPIOP API's 128 characters",
    original: 'ERROR_HANDLING.truncateExtensions',
  }),
  retryInitialMs: setting.int({
    env: 'POSITION_RETRY_INITIAL_MS',
    default: 100,
    min: 1,
    max: 60_000,
    doc: 'first back-off after a DB failure',
  }),
  retryMaxMs: setting.int({
    env: 'POSITION_RETRY_MAX_MS',
    default: 5_000,
    min: 1,
    max: 600_000,
    doc: 'longest back-off (not below `POSITION_RETRY_INITIAL_MS`)',
  }),
  // Long enough for a deadlock storm or a failover to pass unreported, short of a liveness probe's patience.
  stalledAfterMs: setting.int({
    env: 'POSITION_STALLED_AFTER_MS',
    default: 60_000,
    min: 100,
    max: 86_400_000,
    doc: 'a partition whose work keeps failing (it is retried, never skipped) this long without progress is reported: /health DOWN naming it and its last error, one error log line',
  }),
  httpHost: setting.string({
    env: 'POSITION_HTTP_HOST',
    default: '127.0.0.1',
    doc: 'address of /health and /metrics',
  }),
  httpPort: setting.int({
    env: 'POSITION_HTTP_PORT',
    default: 3081,
    min: 0,
    max: 65535,
    doc: 'port of /health, /metrics (0 = any)',
    original: 'PORT',
  }),
  profileDir: setting.string({
    env: 'POSITION_PROFILE_DIR',
    default: '.',
    doc: 'where on-demand .cpuprofile files go',
  }),
  profileSeconds: setting.int({
    env: 'POSITION_PROFILE_SECONDS',
    default: 10,
    min: 1,
    max: 600,
    doc: 'length of an on-demand CPU profile',
  }),
  // central-services-logger's names, which Mojaloop's charts set (LOG_LEVEL, LOG_FILTER) and the original's logger
  // reads before its own CSL_ variables (its src/lib/config.js).
  logLevel: setting.enum(LOG_LEVELS, {
    env: 'POSITION_LOG_LEVEL',
    aliases: ['LOG_LEVEL', 'CSL_LOG_LEVEL'],
    default: 'info',
    doc: "log level: `error`, `warn`, `info`, `debug`, or central-services-logger's other levels, each taken as the nearest of ours that logs no more than it would (`audit`, `trace` → `warn`; `perf`, `verbose` → `info`; `silly` → `debug`)",
  }),
  logFilter: setting.text({
    env: 'POSITION_LOG_FILTER',
    aliases: ['LOG_FILTER', 'CSL_LOG_FILTER'],
    default: '',
    check: (text) => logFilterWords(text).every((word) => (LOG_LEVELS as readonly string[]).includes(word)),
    message: `must be levels separated by commas, of ${LOG_LEVELS.join(', ')}`,
    doc: "only lines of these levels, comma separated (central-services-logger's `LOG_FILTER`, e.g. `error, warn, info`), within `POSITION_LOG_LEVEL`; empty: every level up to it",
  }),
  // central-ledger's config/default.json INSTRUMENTATION.METRICS.
  originalMetrics: setting.bool({
    env: 'POSITION_ORIGINAL_METRICS',
    default: true,
    doc: "`/metrics` also has central-ledger's metric names, which the community dashboards query; false: only ours (central-ledger's key inverted: `DISABLED` true)",
    original: 'INSTRUMENTATION.METRICS.DISABLED',
  }),
  metricsPrefix: setting.text({
    env: 'POSITION_METRICS_PREFIX',
    default: 'moja_cl_',
    pattern: METRIC_PREFIX_PATTERN,
    message: 'must begin a Prometheus metric name (a letter, _ or :, then letters, digits, _ or :)',
    doc: "prefix of central-ledger's metric names; a Prometheus name's start, never empty (our own process metrics have no prefix)",
    original: 'INSTRUMENTATION.METRICS.config.prefix',
  }),
  metricsDefaultLabels: setting.text({
    env: 'POSITION_METRICS_DEFAULT_LABELS',
    default: 'serviceName=central-service',
    check: (text) => parseMetricLabels(text) !== undefined,
    message: 'must be name=value[,name=value...] with Prometheus label names (not le)',
    doc: "`name=value,…` on every one of central-ledger's series, e.g. `serviceName=central-handler-position`; empty: none",
    original: 'INSTRUMENTATION.METRICS.config.defaultLabels',
  }),
  // The batch handler's label set; `handler --position` sets it (central-ledger.ts).
  metricsFspId: setting.string({
    env: 'POSITION_METRICS_FSP_ID',
    default: '',
    allowEmpty: true,
    doc: "the `fspId` label of `transfer_position` among central-ledger's names, as its one-at-a-time handler puts it; `handler --position` sets it from there, `*` when the key is unset; empty (the default): no `fspId`, the batch handler's label set",
    original: 'INSTRUMENTATION.METRICS.labels.fspId',
  }),
};

const handler = defineSettings(declared, { error: ConfigError });

export type PositionConfig = ConfigOf<typeof declared>;

/** Every setting by key: its variable, older names, type, default, doc, central-ledger's key. */
export const configSchema = handler.declared;
/** The same as a list in declaration order, each with its key (the configuration page reads it). */
export const settings = handler.list;
export const configDefaults: PositionConfig = handler.defaults;

export { ConfigError, type PositionHandlerKind };

export interface LoadedConfig {
  readonly config: PositionConfig;
  /** The original's config file read (CONFIG_FILE, or central-ledger's image path when it exists). */
  readonly file: string | undefined;
  /**
   * central-ledger keys (or CLEDG_ variables) its position handler reads that we cannot honour, then the
   * variables of its logger and event-sdk that we do not (CSL_, EVENT_SDK_).
   */
  readonly notHonoured: readonly string[];
}

export interface LoadOptions {
  /** The handlers the command line names (central-ledger's `handler --positionbatch` / `--position`). */
  readonly handlers?: readonly PositionHandlerKind[];
  /** Where the original's file is looked for when CONFIG_FILE is unset (tests point it elsewhere). */
  readonly defaultFile?: string;
  readonly overrides?: Partial<PositionConfig>;
}

/**
 * The settings, in this order: our defaults < central-ledger's config file (CONFIG_FILE, else the path of
 * its image) < its rc overrides (CLEDG_A__B) < our own variables < `overrides`. A bad value throws
 * ConfigError naming the key it came from, whichever of the three it is.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): LoadedConfig {
  const source = readOriginalSource(
    CENTRAL_LEDGER_RC_APP,
    env,
    options.defaultFile ?? CENTRAL_LEDGER_CONFIG_FILE,
    new Set(),
    ConfigError,
  );
  const mapping = mapCentralLedger(source, options.handlers ?? []);
  // The original's values, each checked under its own key's name, then laid under our variables.
  const fromFile: Record<string, string> = {};
  for (const mapped of mapping.values) {
    const field = mapped.field as keyof PositionConfig;
    handler.parse(field, mapped.text, mapped.key);
    // Our variables win over the file under any of their names (an alias too).
    if (handler.nameIn(env, field) === undefined) fromFile[configSchema[field].env] = mapped.text;
  }
  const config = handler.load({ ...fromFile, ...env }, options.overrides);
  // A value from the original's file is named by its key there, one of ours by the variable that gave it.
  const origin = new Map(mapping.values.map((mapped) => [mapped.field, mapped.key]));
  const named = (key: keyof PositionConfig) => handler.nameIn(env, key) ?? origin.get(key) ?? configSchema[key].env;
  if (config.retryMaxMs < config.retryInitialMs) {
    throw new ConfigError(named('retryMaxMs'), `must not be below ${named('retryInitialMs')}`);
  }
  if (config.kafkaClient === 'kafkajs' && config.compression !== 'none' && config.compression !== 'gzip') {
    throw new ConfigError(
      named('compression'),
      `must be none or gzip with ${named('kafkaClient')}=kafkajs, got "${config.compression}"`,
    );
  }
  checkSecurity(config, named);
  const notHonoured = [...mapping.notHonoured, ...libraryVariablesNotHonoured(env)];
  return { config, file: source.file, notHonoured: Object.freeze(notHonoured) };
}

type SecurityField = keyof PositionConfig & `${'kafka' | 'db'}Ssl${string}`;

/**
 * What the TLS and SASL settings cannot say one at a time: a file and PEM text of the same thing (librdkafka
 * refuses both too), a certificate without its key, TLS material where nothing speaks TLS (it would do nothing),
 * SASL without its mechanism or credentials.
 */
function checkSecurity(config: PositionConfig, named: (key: keyof PositionConfig) => string) {
  const set = (key: keyof PositionConfig) => config[key] !== undefined;
  const oneOf = (file: SecurityField, pem: SecurityField) => {
    if (set(file) && set(pem)) throw new ConfigError(named(file), `and ${named(pem)} are both set: give one`);
  };
  const kafkaTls = config.kafkaSecurityProtocol === 'ssl' || config.kafkaSecurityProtocol === 'sasl_ssl';
  const kafkaMaterial: SecurityField[] = [
    'kafkaSslCaFile',
    'kafkaSslCaPem',
    'kafkaSslCertFile',
    'kafkaSslCertPem',
    'kafkaSslKeyFile',
    'kafkaSslKeyPem',
    'kafkaSslKeyPassword',
  ];
  const dbMaterial: SecurityField[] = [
    'dbSslCaFile',
    'dbSslCaPem',
    'dbSslCertFile',
    'dbSslCertPem',
    'dbSslKeyFile',
    'dbSslKeyPem',
    'dbSslKeyPassword',
    'dbSslProfile',
  ];
  for (const [tls, material, protocol, how] of [
    [kafkaTls, kafkaMaterial, 'kafkaSecurityProtocol', 'ssl or sasl_ssl'],
    [config.dbSsl !== 'off', dbMaterial, 'dbSsl', 'on, verify or verify-identity'],
  ] as const) {
    const stray = material.find(set);
    if (!tls && stray !== undefined) {
      throw new ConfigError(named(stray), `is set but ${named(protocol)} is not ${how}: nothing would use it`);
    }
  }
  oneOf('kafkaSslCaFile', 'kafkaSslCaPem');
  oneOf('kafkaSslCertFile', 'kafkaSslCertPem');
  oneOf('kafkaSslKeyFile', 'kafkaSslKeyPem');
  oneOf('dbSslCaFile', 'dbSslCaPem');
  oneOf('dbSslCertFile', 'dbSslCertPem');
  oneOf('dbSslKeyFile', 'dbSslKeyPem');
  for (const [certs, keys] of [
    [
      ['kafkaSslCertFile', 'kafkaSslCertPem'],
      ['kafkaSslKeyFile', 'kafkaSslKeyPem'],
    ],
    [
      ['dbSslCertFile', 'dbSslCertPem'],
      ['dbSslKeyFile', 'dbSslKeyPem'],
    ],
  ] as const) {
    const cert = certs.find(set);
    const key = keys.find(set);
    if ((cert === undefined) !== (key === undefined)) {
      const given = (cert ?? key) as SecurityField;
      const missing = cert === undefined ? certs : keys;
      throw new ConfigError(
        named(given),
        `needs ${missing.map(named).join(' or ')} too: a client certificate goes with its key`,
      );
    }
  }
  if (config.dbSslProfile !== undefined) {
    const other = (['dbSslCaFile', 'dbSslCaPem', 'dbSslCertFile', 'dbSslCertPem'] as const).find(set);
    if (other !== undefined) throw new ConfigError(named('dbSslProfile'), `and ${named(other)} are both set: give one`);
    if (config.dbSsl !== 'verify') {
      throw new ConfigError(
        named('dbSslProfile'),
        `takes ${named('dbSsl')}=verify (what mysql2 does with it), got "${config.dbSsl}"`,
      );
    }
  }
  const sasl = config.kafkaSecurityProtocol === 'sasl_ssl' || config.kafkaSecurityProtocol === 'sasl_plaintext';
  if (sasl) {
    if (config.kafkaSaslMechanism === undefined) {
      throw new ConfigError(
        named('kafkaSaslMechanism'),
        `must be set with ${named('kafkaSecurityProtocol')}=${config.kafkaSecurityProtocol}: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (librdkafka's default GSSAPI is not offered)`,
      );
    }
    for (const key of ['kafkaSaslUsername', 'kafkaSaslPassword'] as const) {
      if (!set(key)) {
        throw new ConfigError(
          named(key),
          `must be set with ${named('kafkaSaslMechanism')}=${config.kafkaSaslMechanism}`,
        );
      }
    }
  } else {
    const stray = (['kafkaSaslMechanism', 'kafkaSaslUsername', 'kafkaSaslPassword'] as const).find(set);
    if (stray !== undefined) {
      throw new ConfigError(
        named(stray),
        `is set but ${named('kafkaSecurityProtocol')} is not sasl_ssl or sasl_plaintext: nothing would use it`,
      );
    }
  }
}

/** The settings alone (see readConfig); throws ConfigError naming the bad key. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<PositionConfig> = {}) {
  return readConfig(env, { overrides }).config;
}

/**
 * Our logger's level for `POSITION_LOG_LEVEL`: the nearest of ours that logs no more than central-services-logger
 * does at that level (it logs every level up to the one named, in the order of LOG_LEVELS).
 */
export function handlerLogLevel(level: PositionConfig['logLevel']): HandlerLogLevel {
  const ours: readonly HandlerLogLevel[] = ['debug', 'info', 'warn', 'error'];
  const rank = LOG_LEVELS.indexOf(level);
  return ours.find((candidate) => LOG_LEVELS.indexOf(candidate) <= rank) ?? 'error';
}

/** The levels POSITION_LOG_FILTER lets through, or undefined when it is empty (every level). */
export function handlerLogFilter(config: PositionConfig): ReadonlySet<string> | undefined {
  const words = logFilterWords(config.logFilter);
  return words.length === 0 ? undefined : new Set(words);
}
