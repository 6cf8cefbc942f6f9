import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../src/command-line.js';
import { configDefaults, handlerLogFilter, handlerLogLevel, readConfig } from '../src/config/index.js';

// The ConfigMap and the container environment of Mojaloop's chart for the batch position handler, rendered
// with its default values (fixtures/charts/README.md says how).
const charts = new URL('./fixtures/charts/', import.meta.url);
const renderedFile = new URL('position-batch-chart.default.json', charts).pathname;
const renderedKnexfile = new URL('position-batch-chart.knexfile.js', charts).pathname;

/** The variables templates/deployment.yaml sets on the container, CLEDG_DATABASE__PASSWORD empty by default. */
const chartEnv = {
  CLEDG_DATABASE__PASSWORD: '',
  LOG_LEVEL: 'info',
  LOG_FILTER: 'error, warn, info',
  CSL_LOG_TRANSPORT: 'file',
  EVENT_SDK_LOG_FILTER: 'audit:*, log:warn, log:error',
  EVENT_SDK_LOG_METADATA_ONLY: 'false',
  EVENT_SDK_SIDECAR_DISABLED: 'false',
  EVENT_SDK_SERVER_HOST: 'localhost',
  EVENT_SDK_SERVER_PORT: '50051',
  EVENT_SDK_VENDOR_PREFIX: 'mojaloop',
  EVENT_SDK_TRACESTATE_HEADER_ENABLED: 'true',
  EVENT_SDK_ASYNC_OVERRIDE_EVENTS: 'log,trace',
  EVENT_SDK_TRACEID_PER_VENDOR: 'false',
};
/** The container's command after `node src/handlers/index.js`. */
const chartArgs = ['handler', '--positionbatch'];

const batch = 'KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config';
const notification = 'KAFKA.PRODUCER.NOTIFICATION.EVENT.config';
const follow = 'KAFKA.PRODUCER.TRANSFER.POSITION.config';
const producerKeys = (section: string) => [
  `${section}.options.messageCharset`,
  `${section}.rdkafkaConf.client.id`,
  `${section}.rdkafkaConf.event_cb`,
  `${section}.rdkafkaConf.dr_cb`,
  `${section}.rdkafkaConf.socket.keepalive.enable`,
  `${section}.rdkafkaConf.queue.buffering.max.messages`,
];
/** What the start-up warning names for the chart's file and environment: every key the handler cannot honour. */
const expectedWarning = [
  'DATABASE.POOL_MIN_SIZE',
  'DATABASE.ACQUIRE_TIMEOUT_MILLIS',
  'DATABASE.CREATE_TIMEOUT_MILLIS',
  'DATABASE.DESTROY_TIMEOUT_MILLIS',
  'DATABASE.IDLE_TIMEOUT_MILLIS',
  'DATABASE.REAP_INTERVAL_MILLIS',
  'DATABASE.CREATE_RETRY_INTERVAL_MILLIS',
  'DATABASE.DEBUG',
  'HUB_PARTICIPANT.ID',
  'HUB_PARTICIPANT.ACCOUNTS',
  'CACHE.MAX_BYTE_SIZE',
  'KAFKA.TOPIC_TEMPLATES.GENERAL_TOPIC_TEMPLATE.REGEX',
  `${batch}.options.mode`,
  `${batch}.options.pollFrequency`,
  `${batch}.options.recursiveTimeout`,
  `${batch}.options.messageCharset`,
  `${batch}.options.messageAsJSON`,
  `${batch}.options.sync`,
  `${batch}.options.consumeTimeout`,
  `${batch}.rdkafkaConf.socket.keepalive.enable`,
  `${batch}.rdkafkaConf.allow.auto.create.topics`,
  `${batch}.rdkafkaConf.partition.assignment.strategy`,
  ...producerKeys(follow),
  `${follow}.topicConf.request.required.acks`,
  `${follow}.topicConf.partitioner`,
  ...producerKeys(notification),
  `${notification}.topicConf.partitioner`,
  'CSL_LOG_TRANSPORT',
  'EVENT_SDK_ASYNC_OVERRIDE_EVENTS',
  'EVENT_SDK_LOG_FILTER',
  'EVENT_SDK_LOG_METADATA_ONLY',
  'EVENT_SDK_SERVER_HOST',
  'EVENT_SDK_SERVER_PORT',
  'EVENT_SDK_SIDECAR_DISABLED',
  'EVENT_SDK_TRACEID_PER_VENDOR',
  'EVENT_SDK_TRACESTATE_HEADER_ENABLED',
  'EVENT_SDK_VENDOR_PREFIX',
];

let dir: string;
let mysql2File: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'position-chart-'));
  // Every current rendering of the chart says mysql2 (its values.yaml here is old).
  const tree = JSON.parse(readFileSync(renderedFile, 'utf8'));
  expect(tree.DATABASE.DIALECT).toBe('mysql');
  tree.DATABASE.DIALECT = 'mysql2';
  mysql2File = join(dir, 'default.json');
  writeFileSync(mysql2File, JSON.stringify(tree));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Mojaloop's helm chart for the batch position handler, default values", () => {
  it.each([
    ['DIALECT mysql, as rendered', () => renderedFile],
    ['DIALECT mysql2, as current renderings', () => mysql2File],
  ])('starts on its file and environment (%s): every value mapped, the rest named', (_name, file) => {
    const { config, notHonoured } = readConfig(
      { CONFIG_FILE: file(), ...chartEnv },
      { handlers: parseCommandLine(chartArgs) },
    );
    expect(config).toEqual({
      ...configDefaults,
      httpPort: 3001,
      dbHost: 'mysqldb',
      dbPort: 3306,
      dbUser: 'central_ledger',
      dbPassword: '',
      dbName: 'central_ledger',
      dbPoolMax: 30,
      referenceTtlMs: 0,
      hubName: 'Hub',
      kafkaBrokers: ['kafka:9092'],
      consumerGroup: 'cl-group-transfer-position-batch',
      kafkaClientId: 'cl-con-transfer-position-batch',
      fromBeginning: true,
      batchSize: 100,
      positionTopics: ['topic-transfer-position-batch'],
      notificationTopic: 'topic-notification-event',
      positionCommitTopic: 'topic-transfer-position-batch',
      acks: 'all',
      errorCauseExtension: false,
      errorTruncateExtensions: true,
      logLevel: 'info',
      logFilter: 'error, warn, info',
      originalMetrics: true,
      metricsPrefix: 'moja_',
      metricsDefaultLabels: 'serviceName=central-handler-position',
      metricsFspId: '',
    });
    expect(handlerLogLevel(config.logLevel)).toBe('info');
    expect([...(handlerLogFilter(config) ?? [])]).toEqual(['error', 'warn', 'info']);
    expect(notHonoured).toEqual(expectedWarning);
  });

  it('reads the file from where the chart mounts it, beside a knexfile.js it never loads', () => {
    // The chart's ConfigMap at /opt/app/config: default.json and knexfile.js. The knexfile requires central-ledger's
    // own /opt/app/src/lib/config, so loading it here would throw.
    const mounted = join(dir, 'config');
    mkdirSync(mounted);
    copyFileSync(renderedFile, join(mounted, 'default.json'));
    copyFileSync(renderedKnexfile, join(mounted, 'knexfile.js'));
    expect(readFileSync(renderedKnexfile, 'utf8')).toContain("require('/opt/app/src/lib/config')");
    const loaded = readConfig(chartEnv, { defaultFile: join(mounted, 'default.json'), handlers: ['positionbatch'] });
    expect(loaded.file).toBe(join(mounted, 'default.json'));
    expect(loaded.config.dbHost).toBe('mysqldb');
    expect(loaded.notHonoured).toEqual(expectedWarning);
  });
});
