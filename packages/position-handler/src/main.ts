import {
  abortableDelay,
  type CpuProfiler,
  closeFailure,
  createCpuProfiler,
  createResources,
  type ObserveServer,
  packageVersion,
  parseMetricLabels,
  startObserveServer,
} from '@mojafast/service-kit';
import type { Pool } from 'mysql2';
import { Registry } from 'prom-client';
import { createPlatformaticBus } from './bus/platformatic-bus.js';
import { missingTopics, missingTopicsMessage } from './bus/topic-check.js';
import type { BusOptions, KafkaSecurity, PositionBus } from './bus/types.js';
import { handlerLogFilter, handlerLogLevel, type PositionConfig } from './config/index.js';
import { handlerServices } from './observe/health.js';
import { createLogger, type Logger } from './observe/logger.js';
import { createMetrics } from './observe/metrics.js';
import { PartitionProgress } from './observe/progress.js';
import { PositionRunner } from './runner/runner.js';
import { dbSsl, kafkaSecurity, secureConnectFailure } from './security.js';
import { endStorePool, storePoolFromConfig } from './store/db.js';
import { PositionStore } from './store/position-store.js';
import { missingTables } from './store/schema-check.js';

export interface PositionService {
  readonly store: PositionStore;
  readonly registry: Registry;
  readonly http: ObserveServer;
  readonly profiler: CpuProfiler;
  /** Finishes the batch in hand, commits its offsets, leaves the group, closes the DB pool and HTTP server. */
  stop(): Promise<void>;
}

export interface ServiceOverrides {
  readonly logger?: Logger;
  readonly registry?: Registry;
  readonly bus?: PositionBus;
  /** Lets a test wrap one store call to inject a fault. */
  readonly decorateStore?: (store: PositionStore) => PositionStore;
  /** Lets a test wrap one bus call to inject a fault. */
  readonly decorateBus?: (bus: PositionBus) => PositionBus;
  /** Aborted by a stop signal during the start: the wait for the database is given up (runService). */
  readonly startSignal?: AbortSignal;
}

/** The bus settings of a handler configuration (the handler, and the bench's processes that share its env). */
export function busOptionsFromConfig(
  config: PositionConfig,
  logger: Logger,
  clientId = config.kafkaClientId,
  security: KafkaSecurity = kafkaSecurity(config),
): BusOptions {
  return {
    brokers: config.kafkaBrokers,
    clientId,
    groupId: config.consumerGroup,
    topics: config.positionTopics,
    notificationTopic: config.notificationTopic,
    fromBeginning: config.fromBeginning,
    partitionsConsumedConcurrently: config.partitionsConsumedConcurrently,
    sessionTimeoutMs: config.sessionTimeoutMs,
    fetchMinBytes: config.fetchMinBytes,
    fetchMaxWaitMs: config.fetchMaxWaitMs,
    maxBytesPerPartition: config.maxBytesPerPartition,
    produceBatchBytes: config.produceBatchBytes,
    produceLingerMs: config.produceLingerMs,
    acks: config.acks === 'all' ? -1 : 1,
    compression: config.compression,
    security,
    logger,
  };
}

/** The bus of KAFKA_CLIENT; kafkajs is imported only when it is the one asked for. */
export async function createBus(client: PositionConfig['kafkaClient'], options: BusOptions): Promise<PositionBus> {
  if (client !== 'kafkajs') return createPlatformaticBus(options);
  const { createKafkajsBus } = await import('./bus/kafkajs-bus.js');
  return createKafkajsBus(options);
}

/**
 * A database that is down at start-up is waited for (with back-off), not a reason for a crash loop. One that
 * refuses our TLS (a certificate that fails verification, a server without TLS, or one that requires it while
 * ours is off) refuses every retry alike: that stops the start in one line.
 */
async function openWithRetry(
  pool: Pool,
  config: PositionConfig,
  logger: Logger,
  signal: AbortSignal | undefined,
): Promise<PositionStore> {
  let delay = config.retryInitialMs;
  let reported = '';
  for (;;) {
    try {
      // An unmigrated database is waited for too (migrations may be running), named once with the command.
      const missing = await missingTables(pool);
      if (missing.length === 0) return await PositionStore.open(pool, config.referenceTtlMs);
      const line = `database ${config.dbName} is not migrated (missing ${missing.join(', ')}): run central-ledger's migrations (\`npm run migrate\` in central-ledger), or \`node dist/provision-cli.js --migrate <ledger.json>\` for a test ledger; waiting for it`;
      if (line !== reported) logger.error(line);
      reported = line;
    } catch (error) {
      const secure = secureConnectFailure(error, 'database', `${config.dbHost}:${config.dbPort}`);
      if (secure) throw secure;
      logger.error({ err: error, retryInMs: delay }, 'database not reachable; retrying');
    }
    await abortableDelay(delay, signal);
    delay = Math.min(delay * 2, config.retryMaxMs);
  }
}

/** The only place that knows every layer: config in, a running handler out. */
export async function startPositionService(
  config: PositionConfig,
  overrides: ServiceOverrides = {},
): Promise<PositionService> {
  const logger =
    overrides.logger ?? createLogger(handlerLogLevel(config.logLevel), undefined, handlerLogFilter(config));
  const registry = overrides.registry ?? new Registry();
  const progress = new PartitionProgress(config.stalledAfterMs);
  // central-ledger's names with the deployment's prefix and default labels, bound once here (none per message).
  const metrics = createMetrics(
    registry,
    config.originalMetrics && {
      prefix: config.metricsPrefix,
      defaultLabels: parseMetricLabels(config.metricsDefaultLabels) ?? {},
      fspId: config.metricsFspId,
    },
    progress,
  );
  // Everything opened from here on is closed by `resources`, in reverse order: all of it on stop, and on a
  // failed start what was opened so far, so the process exits non-zero and the orchestrator restarts it
  // instead of idling with /health at 503.
  const resources = createResources({
    closing: (name) => logger.debug({ resource: name }, 'closing'),
    closed: (name) => logger.debug({ resource: name }, 'closed'),
  });
  // Every close runs even when one before it failed; the failures are thrown together afterwards.
  const closeAll = () =>
    resources.close().then((failures) => {
      const failed = closeFailure(failures);
      if (failed) throw failed;
    });
  try {
    // Files the TLS settings name are read once, here: one that cannot be read stops the start naming it.
    const security = kafkaSecurity(config);
    const pool = resources.own('database pool', storePoolFromConfig(config, dbSsl(config)), endStorePool);
    const brokers = `brokers ${config.kafkaBrokers.join(',')}`;
    // A TLS or SASL refusal by the brokers is named in one line; the clients' own errors nest it in retries.
    const kafka = async <T>(connect: () => Promise<T>): Promise<T> => {
      try {
        return await connect();
      } catch (error) {
        throw secureConnectFailure(error, 'Kafka', brokers) ?? error;
      }
    };
    const opened = await openWithRetry(pool, config, logger, overrides.startSignal);
    const store = overrides.decorateStore ? overrides.decorateStore(opened) : opened;
    if (!overrides.bus) {
      const topics = [
        ...config.positionTopics,
        config.notificationTopic,
        config.positionCommitTopic,
        config.bulkProcessingTopic,
      ];
      const missing = await kafka(() => missingTopics(config.kafkaBrokers, topics, security));
      if (missing.length > 0) throw new Error(missingTopicsMessage(config.kafkaBrokers, missing));
    }
    const kafkaBus =
      overrides.bus ??
      (await createBus(config.kafkaClient, busOptionsFromConfig(config, logger, config.kafkaClientId, security)));
    const bus = overrides.decorateBus ? overrides.decorateBus(kafkaBus) : kafkaBus;
    const runner = new PositionRunner(bus, store, metrics, logger, {
      batchSize: config.batchSize,
      hubName: config.hubName,
      retryInitialMs: config.retryInitialMs,
      retryMaxMs: config.retryMaxMs,
      followUpTopic: config.positionCommitTopic,
      bulkProcessingTopic: config.bulkProcessingTopic,
      progress,
      errorHandling: {
        includeCauseExtension: config.errorCauseExtension,
        truncateExtensions: config.errorTruncateExtensions,
      },
    });
    const profiler = resources.own(
      'profiler',
      createCpuProfiler({ directory: config.profileDir, prefix: 'position' }),
      (p) => p.stop(),
    );
    const http = resources.own(
      'http server',
      await startObserveServer({
        host: config.httpHost,
        port: config.httpPort,
        registry,
        version: packageVersion(import.meta.url),
        services: handlerServices({
          broker: () => bus.isReady(),
          database: () => store.ping().then(() => true),
          stalled: () => progress.stalled(),
        }),
        profile: { path: '/admin/profile', profiler, defaultSeconds: config.profileSeconds },
      }),
      (h) => h.close(),
    );
    // The Kafka clients connect in start: owned before it, so a start that fails halfway still disconnects.
    // The runner's stop finishes the chunk in hand (its notifications and offset commit) before the bus stops.
    const started = resources.own('kafka', runner, (r) => r.stop());
    await kafka(() => started.start());
    logger.info(
      {
        topics: config.positionTopics,
        group: config.consumerGroup,
        kafkaClient: config.kafkaClient,
        batchSize: config.batchSize,
        http: `${http.address.address}:${http.address.port}`,
      },
      'position handler started',
    );
    let stopped: Promise<void> | undefined;
    return {
      store,
      registry,
      http,
      profiler,
      stop() {
        stopped ??= closeAll().then(() => logger.info('position handler stopped'));
        return stopped;
      },
    };
  } catch (error) {
    await closeAll().catch((closing: unknown) => logger.error({ err: closing }, 'closing after a failed start failed'));
    throw error;
  }
}
