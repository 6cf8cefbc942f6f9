import {
  defineEnvConfig,
  type EnvSchema,
  METRIC_PREFIX_PATTERN,
  parseMetricLabels,
  readOriginalSource,
} from '@mojafast/service-kit';
import {
  CENTRAL_LEDGER_CONFIG_FILE,
  CENTRAL_LEDGER_RC_APP,
  mapCentralLedger,
  type PositionHandlerKind,
} from './central-ledger.js';
import { ConfigError } from './config-error.js';

/**
 * The handler's settings: one schema, one defaults object, read from the environment once at start-up by
 * the service kit (validated, frozen, a bad value names its env variable).
 */
export interface PositionConfig {
  readonly kafkaClient: 'platformatic' | 'kafkajs';
  readonly kafkaBrokers: readonly string[];
  readonly kafkaClientId: string;
  readonly consumerGroup: string;
  readonly positionTopics: readonly string[];
  readonly notificationTopic: string;
  readonly positionCommitTopic: string;
  readonly bulkProcessingTopic: string;
  readonly fromBeginning: boolean;
  readonly batchSize: number;
  readonly partitionsConsumedConcurrently: number;
  readonly maxBytesPerPartition: number;
  readonly sessionTimeoutMs: number;
  readonly fetchMinBytes: number;
  readonly fetchMaxWaitMs: number;
  readonly produceBatchBytes: number;
  readonly produceLingerMs: number;
  readonly acks: 'all' | 'leader';
  readonly compression: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
  readonly dbHost: string;
  readonly dbPort: number;
  readonly dbUser: string;
  readonly dbPassword: string;
  readonly dbName: string;
  readonly dbPoolMax: number;
  readonly referenceTtlMs: number;
  readonly hubName: string;
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  /** A partition whose work keeps failing this long without progress makes /health DOWN. */
  readonly stalledAfterMs: number;
  readonly httpHost: string;
  readonly httpPort: number;
  readonly profileDir: string;
  readonly profileSeconds: number;
  readonly logLevel: 'error' | 'warn' | 'info' | 'debug';
  /** central-ledger's metric names beside ours (its INSTRUMENTATION.METRICS.DISABLED false). */
  readonly originalMetrics: boolean;
  /** Their prefix (INSTRUMENTATION.METRICS.config.prefix). */
  readonly metricsPrefix: string;
  /** Their default labels as `name=value,...` (INSTRUMENTATION.METRICS.config.defaultLabels). */
  readonly metricsDefaultLabels: string;
  /**
   * The `fspId` label of their `transfer_position` (INSTRUMENTATION.METRICS.labels.fspId, which only the
   * one-at-a-time handler, `--position`, puts there); empty: no such label, as the batch handler.
   */
  readonly metricsFspId: string;
}

/** Every setting, its env variable and what it means. The README table is checked against this. */
export const configSchema: EnvSchema<PositionConfig> = Object.freeze({
  kafkaClient: {
    env: 'KAFKA_CLIENT',
    type: { kind: 'enum', values: ['platformatic', 'kafkajs'] },
    doc: 'Kafka client: @platformatic/kafka, or kafkajs (the one the project design names; no release since 2023)',
  },
  kafkaBrokers: { env: 'KAFKA_BROKERS', type: { kind: 'list' }, doc: 'Kafka bootstrap brokers, comma separated' },
  kafkaClientId: { env: 'KAFKA_CLIENT_ID', type: { kind: 'string' }, doc: 'Kafka client id' },
  consumerGroup: {
    env: 'POSITION_CONSUMER_GROUP',
    type: { kind: 'string' },
    doc: 'consumer group of the position topics',
  },
  positionTopics: {
    env: 'POSITION_TOPICS',
    type: { kind: 'list' },
    doc: 'position topics to consume, comma separated',
  },
  notificationTopic: { env: 'NOTIFICATION_TOPIC', type: { kind: 'string' }, doc: 'topic the notifications go to' },
  positionCommitTopic: {
    env: 'POSITION_COMMIT_TOPIC',
    type: { kind: 'string' },
    doc: "topic of the follow-up message of a commit or abort whose cyrilResult has a step left (central-ledger's KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.COMMIT; unset there, it is topic-transfer-position)",
  },
  bulkProcessingTopic: {
    env: 'BULK_PROCESSING_TOPIC',
    type: { kind: 'string' },
    doc: "topic the results of bulk-prepare, bulk-commit, bulk-timeout-reserved and bulk-abort go to (central-ledger's GENERAL_TOPIC_TEMPLATE for bulk/processing)",
  },
  fromBeginning: {
    env: 'POSITION_FROM_BEGINNING',
    type: { kind: 'bool' },
    doc: 'a new group starts at the earliest offset',
  },
  batchSize: {
    env: 'POSITION_BATCH_SIZE',
    type: { kind: 'int', min: 1, max: 10_000 },
    doc: 'messages applied in one DB transaction',
  },
  partitionsConsumedConcurrently: {
    env: 'POSITION_PARTITIONS_CONCURRENTLY',
    type: { kind: 'int', min: 1, max: 64 },
    doc: 'partitions processed in parallel by one process',
  },
  maxBytesPerPartition: {
    env: 'KAFKA_MAX_BYTES_PER_PARTITION',
    type: { kind: 'int', min: 1024, max: 1 << 30 },
    doc: 'fetch size per partition (bytes); bounds how many messages one fetch hands over',
  },
  sessionTimeoutMs: {
    env: 'KAFKA_SESSION_TIMEOUT_MS',
    type: { kind: 'int', min: 6000, max: 300_000 },
    doc: 'consumer group session timeout: how soon a dead process loses its partitions',
  },
  fetchMinBytes: {
    env: 'KAFKA_FETCH_MIN_BYTES',
    type: { kind: 'int', min: 1, max: 64 * 1024 * 1024 },
    doc: 'a fetch waits on the broker until this many bytes are there (or KAFKA_FETCH_MAX_WAIT_MS passed)',
  },
  fetchMaxWaitMs: {
    env: 'KAFKA_FETCH_MAX_WAIT_MS',
    type: { kind: 'int', min: 0, max: 30_000 },
    doc: 'longest a fetch waits on the broker for KAFKA_FETCH_MIN_BYTES',
  },
  produceBatchBytes: {
    env: 'KAFKA_PRODUCE_BATCH_BYTES',
    type: { kind: 'int', min: 1024, max: 16 * 1024 * 1024 },
    doc: "notification bytes per produce request; keep it under the broker's message.max.bytes (1 MiB by default)",
  },
  produceLingerMs: {
    env: 'KAFKA_PRODUCE_LINGER_MS',
    type: { kind: 'int', min: 0, max: 1000 },
    doc: 'notifications produced within this time share one request (0 = each chunk is sent at once)',
  },
  acks: {
    env: 'KAFKA_ACKS',
    type: { kind: 'enum', values: ['all', 'leader'] },
    doc: 'produce acknowledgement: all in-sync replicas, or the leader only (offsets are committed after it)',
  },
  compression: {
    env: 'KAFKA_COMPRESSION',
    type: { kind: 'enum', values: ['none', 'gzip', 'snappy', 'lz4', 'zstd'] },
    doc: 'compression of the notifications (kafkajs: none or gzip)',
  },
  dbHost: { env: 'DB_HOST', type: { kind: 'string' }, doc: 'MySQL/MariaDB host' },
  dbPort: { env: 'DB_PORT', type: { kind: 'int', min: 1, max: 65535 }, doc: 'MySQL/MariaDB port' },
  dbUser: { env: 'DB_USER', type: { kind: 'string' }, doc: 'database user' },
  dbPassword: { env: 'DB_PASSWORD', type: { kind: 'string' }, doc: 'database password' },
  dbName: { env: 'DB_NAME', type: { kind: 'string' }, doc: "central-ledger's database" },
  dbPoolMax: { env: 'DB_POOL_MAX', type: { kind: 'int', min: 1, max: 100 }, doc: 'database connections' },
  referenceTtlMs: {
    env: 'POSITION_REFERENCE_TTL_MS',
    type: { kind: 'int', min: 0, max: 600_000 },
    doc: 'how long accounts, NET_DEBIT_CAP limits and settlement models are reused before a batch reads them again (0 = every batch)',
  },
  hubName: { env: 'HUB_NAME', type: { kind: 'string' }, doc: 'the switch name in error notifications (FSPIOP-Source)' },
  retryInitialMs: {
    env: 'POSITION_RETRY_INITIAL_MS',
    type: { kind: 'int', min: 1, max: 60_000 },
    doc: 'first back-off after a DB failure',
  },
  retryMaxMs: { env: 'POSITION_RETRY_MAX_MS', type: { kind: 'int', min: 1, max: 600_000 }, doc: 'longest back-off' },
  stalledAfterMs: {
    env: 'POSITION_STALLED_AFTER_MS',
    type: { kind: 'int', min: 100, max: 86_400_000 },
    doc: 'a partition whose work keeps failing (it is retried, never skipped) this long without progress is reported: /health DOWN naming it and its last error, one error log line',
  },
  httpHost: { env: 'POSITION_HTTP_HOST', type: { kind: 'string' }, doc: 'address of /health and /metrics' },
  httpPort: {
    env: 'POSITION_HTTP_PORT',
    type: { kind: 'int', min: 0, max: 65535 },
    doc: 'port of /health, /metrics (0 = any)',
  },
  profileDir: { env: 'POSITION_PROFILE_DIR', type: { kind: 'string' }, doc: 'where on-demand .cpuprofile files go' },
  profileSeconds: {
    env: 'POSITION_PROFILE_SECONDS',
    type: { kind: 'int', min: 1, max: 600 },
    doc: 'length of an on-demand CPU profile',
  },
  logLevel: { env: 'LOG_LEVEL', type: { kind: 'enum', values: ['error', 'warn', 'info', 'debug'] }, doc: 'log level' },
  originalMetrics: {
    env: 'POSITION_ORIGINAL_METRICS',
    type: { kind: 'bool' },
    doc: "/metrics also has central-ledger's metric names, which the community dashboards query (false: central-ledger's INSTRUMENTATION.METRICS.DISABLED true)",
  },
  metricsPrefix: {
    env: 'POSITION_METRICS_PREFIX',
    type: {
      kind: 'text',
      pattern: METRIC_PREFIX_PATTERN,
      message: 'must begin a Prometheus metric name (a letter, _ or :, then letters, digits, _ or :)',
    },
    doc: "prefix of central-ledger's metric names (INSTRUMENTATION.METRICS.config.prefix); never empty, as our own process metrics have none",
  },
  metricsDefaultLabels: {
    env: 'POSITION_METRICS_DEFAULT_LABELS',
    type: {
      kind: 'text',
      check: (text) => parseMetricLabels(text) !== undefined,
      message: 'must be name=value[,name=value...] with Prometheus label names (not le)',
    },
    doc: "labels on every one of central-ledger's metrics, e.g. serviceName=central-handler-position (INSTRUMENTATION.METRICS.config.defaultLabels)",
  },
  metricsFspId: {
    env: 'POSITION_METRICS_FSP_ID',
    type: { kind: 'string', allowEmpty: true },
    doc: "fspId label of central-ledger's transfer_position, as its one-at-a-time handler (--position) puts it (INSTRUMENTATION.METRICS.labels.fspId); empty: none, as its batch handler",
  },
});

export const configDefaults: PositionConfig = Object.freeze({
  kafkaClient: 'platformatic',
  kafkaBrokers: Object.freeze(['127.0.0.1:9092']),
  kafkaClientId: 'mojafast-position',
  consumerGroup: 'cl-group-transfer-position-batch',
  positionTopics: Object.freeze(['topic-transfer-position-batch']),
  notificationTopic: 'topic-notification-event',
  positionCommitTopic: 'topic-transfer-position',
  bulkProcessingTopic: 'topic-bulk-processing',
  fromBeginning: true,
  batchSize: 1000,
  partitionsConsumedConcurrently: 4,
  maxBytesPerPartition: 4 * 1024 * 1024,
  sessionTimeoutMs: 30_000,
  fetchMinBytes: 1,
  fetchMaxWaitMs: 100,
  produceBatchBytes: 800_000,
  produceLingerMs: 0,
  acks: 'all',
  compression: 'none',
  dbHost: '127.0.0.1',
  dbPort: 3306,
  dbUser: 'central_ledger',
  dbPassword: 'password',
  dbName: 'central_ledger',
  dbPoolMax: 8,
  referenceTtlMs: 1000,
  hubName: 'Hub',
  retryInitialMs: 100,
  retryMaxMs: 5_000,
  // Long enough for a deadlock storm or a failover to pass unreported, short of a liveness probe's patience.
  stalledAfterMs: 60_000,
  httpHost: '127.0.0.1',
  httpPort: 3081,
  profileDir: '.',
  profileSeconds: 10,
  logLevel: 'info',
  // central-ledger's config/default.json INSTRUMENTATION.METRICS.
  originalMetrics: true,
  metricsPrefix: 'moja_cl_',
  metricsDefaultLabels: 'serviceName=central-service',
  // The batch handler's label set; `handler --position` sets it (central-ledger.ts).
  metricsFspId: '',
});

export { ConfigError, type PositionHandlerKind };

const envConfig = defineEnvConfig(configSchema, configDefaults, { error: ConfigError });

export interface LoadedConfig {
  readonly config: PositionConfig;
  /** The original's config file read (CONFIG_FILE, or central-ledger's image path when it exists). */
  readonly file: string | undefined;
  /** central-ledger keys (or CLEDG_ variables) its position handler reads that we cannot honour. */
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
    envConfig.parse(field, mapped.text, mapped.key);
    fromFile[configSchema[field].env] = mapped.text;
  }
  const config = envConfig.load({ ...fromFile, ...env }, options.overrides);
  if (config.retryMaxMs < config.retryInitialMs) {
    throw new ConfigError(configSchema.retryMaxMs.env, 'must not be below POSITION_RETRY_INITIAL_MS');
  }
  if (config.kafkaClient === 'kafkajs' && config.compression !== 'none' && config.compression !== 'gzip') {
    throw new ConfigError(
      configSchema.compression.env,
      `must be none or gzip with KAFKA_CLIENT=kafkajs, got "${config.compression}"`,
    );
  }
  return { config, file: source.file, notHonoured: Object.freeze(mapping.notHonoured) };
}

/** The settings alone (see readConfig); throws ConfigError naming the bad key. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<PositionConfig> = {}) {
  return readConfig(env, { overrides }).config;
}
