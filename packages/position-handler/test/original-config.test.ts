import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configDefaults, readConfig } from '../src/config/index.js';
import { centralLedgerPackageDir } from './central-ledger.js';

// central-ledger 19.5.5's own config/default.json, from the npm package (fetched like its migrations).
// biome-ignore lint/suspicious/noExplicitAny: edits of a JSON file written back as JSON
type Json = any;
let original: string;
let dir: string;
const readme = readFileSync(new URL('../docs/original-config.md', import.meta.url), 'utf8');

beforeAll(() => {
  original = join(centralLedgerPackageDir(), 'config', 'default.json');
  dir = mkdtempSync(join(tmpdir(), 'position-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(name: string, edit: (tree: Json) => void): string {
  const tree = JSON.parse(readFileSync(original, 'utf8'));
  edit(tree);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(tree));
  return file;
}

describe("central-ledger's configuration", () => {
  it('reads its default.json unchanged (batch handler) into our settings', () => {
    const { config, file, notHonoured } = readConfig({ CONFIG_FILE: original });
    expect(file).toBe(original);
    expect(config).toEqual({
      ...configDefaults,
      httpPort: 3001,
      dbHost: 'localhost',
      dbPort: 3306,
      dbUser: 'central_ledger',
      dbPassword: 'password',
      dbName: 'central_ledger',
      dbPoolMax: 10,
      hubName: 'Hub',
      referenceTtlMs: 0, // CACHE.CACHE_ENABLED false: reference data is read every batch
      kafkaBrokers: ['localhost:9092'],
      consumerGroup: 'cl-group-transfer-position-batch',
      kafkaClientId: 'cl-con-transfer-position-batch',
      fromBeginning: true,
      batchSize: 10,
      // POSITION.PREPARE is null in the file, so the batch handler consumes the template's topic
      // (src/handlers/positions/handlerBatch.js), as the original does.
      positionTopics: ['topic-transfer-position'],
      notificationTopic: 'topic-notification-event',
      bulkProcessingTopic: 'topic-bulk-processing',
      positionCommitTopic: 'topic-transfer-position',
      acks: 'all',
    });
    expect(Object.isFrozen(config)).toBe(true);
    // Keys the original's position handler reads and we cannot honour are named; other services' are not.
    expect(notHonoured).toContain('DATABASE.POOL_MIN_SIZE');
    expect(notHonoured).toContain('KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.options.pollFrequency');
    // INSTRUMENTATION.METRICS: mapped (DISABLED, prefix, defaultLabels) or accepted (timeout; labels, which
    // the batch handler does not read).
    expect(notHonoured.filter((key) => key.startsWith('INSTRUMENTATION'))).toEqual([]);
    expect(notHonoured).not.toContain('MONGODB.HOST');
    expect(notHonoured).not.toContain('KAFKA.CONSUMER.TRANSFER.FULFIL.config.rdkafkaConf.group.id');
    expect(notHonoured).not.toContain('DATABASE.HOST');
    // ERROR_HANDLING: mapped; its file's values (a cause extension, not truncated) are our defaults.
    expect(notHonoured.filter((key) => key.startsWith('ERROR_HANDLING'))).toEqual([]);
    const tree = JSON.parse(readFileSync(original, 'utf8'));
    expect(tree.ERROR_HANDLING).toEqual({
      includeCauseExtension: config.errorCauseExtension,
      truncateExtensions: config.errorTruncateExtensions,
    });
  });

  it('takes the POSITION consumer section and topic for `handler --position`', () => {
    const { config } = readConfig({ CONFIG_FILE: original }, { handlers: ['position'] });
    expect(config.consumerGroup).toBe('cl-group-transfer-position');
    expect(config.batchSize).toBe(1);
    expect(config.positionTopics).toEqual(['topic-transfer-position']);
  });

  it('maps INSTRUMENTATION.METRICS: DISABLED, config.prefix and every config.defaultLabels label', () => {
    const file = writeConfig('instrumentation.json', (tree) => {
      tree.INSTRUMENTATION.METRICS.config.prefix = 'eu_cl_';
      // The Helm charts give each deployment its own serviceName.
      tree.INSTRUMENTATION.METRICS.config.defaultLabels = { serviceName: 'central-handler-position', zone: 'a' };
      tree.INSTRUMENTATION.METRICS.config.timeout = 1000;
    });
    const { config, notHonoured } = readConfig({ CONFIG_FILE: file });
    expect(config).toMatchObject({
      originalMetrics: true,
      metricsPrefix: 'eu_cl_',
      metricsDefaultLabels: 'serviceName=central-handler-position,zone=a',
    });
    expect(notHonoured.filter((key) => key.startsWith('INSTRUMENTATION'))).toEqual([]);
    expect(readConfig({ CONFIG_FILE: original }).config).toMatchObject({
      originalMetrics: true,
      metricsPrefix: 'moja_cl_',
      metricsDefaultLabels: 'serviceName=central-service',
    });
    const env = { CONFIG_FILE: original, CLEDG_INSTRUMENTATION__METRICS__DISABLED: 'true' };
    expect(readConfig(env).config.originalMetrics).toBe(false);
    expect(readConfig({ ...env, POSITION_ORIGINAL_METRICS: 'true' }).config.originalMetrics).toBe(true);
  });

  it('takes INSTRUMENTATION.METRICS.labels.fspId for `handler --position` only, as handler.js and handlerBatch.js read it', () => {
    const zoned = writeConfig('fspid.json', (tree) => {
      tree.INSTRUMENTATION.METRICS.labels.fspId = 'zone-a';
    });
    const position = readConfig({ CONFIG_FILE: zoned }, { handlers: ['position'] });
    expect(position.config.metricsFspId).toBe('zone-a');
    expect(position.notHonoured.filter((key) => key.startsWith('INSTRUMENTATION'))).toEqual([]);
    // Both handlers: the one-at-a-time label set (docs/differences.md).
    expect(readConfig({ CONFIG_FILE: zoned }, { handlers: ['positionbatch', 'position'] }).config.metricsFspId).toBe(
      'zone-a',
    );
    // The batch handler's histogram has no fspId label, whatever the file says.
    const batch = readConfig({ CONFIG_FILE: zoned }, { handlers: ['positionbatch'] });
    expect(batch.config.metricsFspId).toBe('');
    expect(batch.notHonoured.filter((key) => key.startsWith('INSTRUMENTATION'))).toEqual([]);
    // The chart's file says "*"; a file without the key, or no file at all, gives the same.
    expect(readConfig({ CONFIG_FILE: original }, { handlers: ['position'] }).config.metricsFspId).toBe('*');
    const unset = writeConfig('fspid-unset.json', (tree) => {
      delete tree.INSTRUMENTATION.METRICS.labels;
    });
    expect(readConfig({ CONFIG_FILE: unset }, { handlers: ['position'] }).config.metricsFspId).toBe('*');
    expect(readConfig({}, { defaultFile: join(dir, 'absent'), handlers: ['position'] }).config.metricsFspId).toBe('*');
    // rc's variable, then ours, win over the file.
    const env = { CONFIG_FILE: zoned, CLEDG_INSTRUMENTATION__METRICS__labels__fspId: 'zone-b' };
    expect(readConfig(env, { handlers: ['position'] }).config.metricsFspId).toBe('zone-b');
    expect(
      readConfig({ ...env, POSITION_METRICS_FSP_ID: 'zone-c' }, { handlers: ['position'] }).config.metricsFspId,
    ).toBe('zone-c');
  });

  it('refuses an INSTRUMENTATION.METRICS.labels.fspId that is no label value (bad input: an object) with --position', () => {
    const file = writeConfig('fspid-object.json', (tree) => {
      tree.INSTRUMENTATION.METRICS.labels.fspId = { zone: 'a' };
    });
    expect(() => readConfig({ CONFIG_FILE: file }, { handlers: ['position'] })).toThrow(
      /^INSTRUMENTATION\.METRICS\.labels\.fspId must be a label value/,
    );
  });

  it('consumes EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.PREPARE when the deployment sets it', () => {
    const file = writeConfig('mapped.json', (tree) => {
      tree.KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.PREPARE = 'topic-transfer-position-batch';
      tree.KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.COMMIT = 'topic-transfer-position-batch';
      tree.CACHE.CACHE_ENABLED = true;
    });
    const { config } = readConfig({ CONFIG_FILE: file });
    expect(config.positionTopics).toEqual(['topic-transfer-position-batch']);
    expect(config.positionCommitTopic).toBe('topic-transfer-position-batch');
    expect(config.referenceTtlMs).toBe(1000);
  });

  it('lays defaults < file < CLEDG_ overrides < our variables', () => {
    const env = {
      CONFIG_FILE: original,
      CLEDG_DATABASE__HOST: 'mysql-cl',
      CLEDG_DATABASE__PORT: '3307',
      CLEDG_HUB_PARTICIPANT__NAME: 'Switch',
      // rc matches the prefix in any case and keeps the rest of the name as written.
      'cledg_KAFKA__CONSUMER__TRANSFER__POSITION_BATCH__config__rdkafkaConf__metadata.broker.list': 'kafka:29092',
      DB_PORT: '3308',
    };
    const { config } = readConfig(env);
    expect(config.dbHost).toBe('mysql-cl');
    expect(config.dbPort).toBe(3308);
    expect(config.hubName).toBe('Switch');
    expect(config.kafkaBrokers).toEqual(['kafka:29092']);
    // The producers' broker lists still say localhost: one client of ours cannot use two lists.
    expect(readConfig(env).notHonoured).toContain(
      'KAFKA.PRODUCER.NOTIFICATION.EVENT.config.rdkafkaConf.metadata.broker.list',
    );
  });

  it("takes DATABASE.DIALECT mysql2 (central-ledger 19.14.0's own file) as well as mysql", () => {
    const file = writeConfig('mysql2.json', (tree) => {
      tree.DATABASE.DIALECT = 'mysql2';
    });
    expect(readConfig({ CONFIG_FILE: file }).config.dbHost).toBe('localhost');
    expect(readConfig({ CONFIG_FILE: original, CLEDG_DATABASE__DIALECT: 'mysql2' }).notHonoured).not.toContain(
      'DATABASE.DIALECT',
    );
  });

  it("takes an empty database password: the file's, the charts' empty CLEDG_DATABASE__PASSWORD, our own", () => {
    const file = writeConfig('no-password.json', (tree) => {
      tree.DATABASE.PASSWORD = '';
    });
    expect(readConfig({ CONFIG_FILE: file }).config.dbPassword).toBe('');
    expect(readConfig({ CONFIG_FILE: original, CLEDG_DATABASE__PASSWORD: '' }).config.dbPassword).toBe('');
    expect(readConfig({ CONFIG_FILE: original, POSITION_DB_PASSWORD: '' }).config.dbPassword).toBe('');
  });

  it('reads CLEDG_ overrides without a file', () => {
    const { config, file } = readConfig({ CLEDG_DATABASE__SCHEMA: 'ledger' }, { defaultFile: join(dir, 'absent') });
    expect(file).toBeUndefined();
    expect(config).toEqual({ ...configDefaults, dbName: 'ledger' });
  });

  it('looks at the path of the original image when CONFIG_FILE is unset', () => {
    expect(readConfig({}, { defaultFile: original }).config.httpPort).toBe(3001);
    expect(readConfig({}, { defaultFile: join(dir, 'absent') }).config).toEqual(configDefaults);
  });

  it.each([
    ['CLEDG_DATABASE__PORT', 'CLEDG_DATABASE__PORT', { CLEDG_DATABASE__PORT: 'three' }],
    ['DATABASE.DIALECT (a dialect we do not speak)', 'CLEDG_DATABASE__DIALECT', { CLEDG_DATABASE__DIALECT: 'pg' }],
    ['AMOUNT.SCALE', 'CLEDG_AMOUNT__SCALE', { CLEDG_AMOUNT__SCALE: '2' }],
    ['DISABLED yes', 'CLEDG_INSTRUMENTATION__METRICS__DISABLED', { CLEDG_INSTRUMENTATION__METRICS__DISABLED: 'yes' }],
    // Not the start of a Prometheus metric name.
    [
      'prefix moja-cl-',
      'CLEDG_INSTRUMENTATION__METRICS__config__prefix',
      { CLEDG_INSTRUMENTATION__METRICS__config__prefix: 'moja-cl-' },
    ],
    [
      'defaultLabels le',
      'INSTRUMENTATION.METRICS.config.defaultLabels',
      {},
      (tree: Json) => {
        tree.INSTRUMENTATION.METRICS.config.defaultLabels = { le: '1' };
      },
    ],
    [
      'acks 0',
      'KAFKA.PRODUCER.NOTIFICATION.EVENT.config.topicConf.request.required.acks',
      {},
      (tree: Json) => {
        tree.KAFKA.PRODUCER.NOTIFICATION.EVENT.config.topicConf['request.required.acks'] = 0;
      },
    ],
    [
      'batchSize 0',
      'KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.options.batchSize',
      {},
      (tree: Json) => {
        tree.KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.options.batchSize = 0;
      },
    ],
    [
      'auto.offset.reset',
      'KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.topicConf.auto.offset.reset',
      {},
      (tree: Json) => {
        tree.KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.topicConf['auto.offset.reset'] = 'sometimes';
      },
    ],
  ] as [string, string, Record<string, string>, ((tree: Json) => void)?][])(
    'a bad value stops the start naming its key: %s',
    (name, key, env, edit) => {
      const file = edit ? writeConfig(`${name.replace(/\W/g, '_')}.json`, edit) : original;
      const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(() => readConfig({ CONFIG_FILE: file, ...env })).toThrow(new RegExp(`^${escaped} `));
    },
  );

  it('names CONFIG_FILE when it cannot be read or is no JSON object', () => {
    expect(() => readConfig({ CONFIG_FILE: join(dir, 'absent.json') })).toThrow(/^CONFIG_FILE /);
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'PORT=3001');
    expect(() => readConfig({ CONFIG_FILE: notJson })).toThrow(/^CONFIG_FILE /);
  });

  it('has every mapped key in the table of docs/original-config.md', () => {
    for (const key of [
      'PORT',
      'DATABASE.HOST',
      'DATABASE.SCHEMA',
      'DATABASE.POOL_MAX_SIZE',
      'HUB_PARTICIPANT.NAME',
      'CACHE.EXPIRES_IN_MS',
      'KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.PREPARE',
      'KAFKA.EVENT_TYPE_ACTION_TOPIC_MAP.POSITION.COMMIT',
      'KAFKA.TOPIC_TEMPLATES.GENERAL_TOPIC_TEMPLATE.TEMPLATE',
      'rdkafkaConf.metadata.broker.list',
      'rdkafkaConf.group.id',
      'rdkafkaConf.client.id',
      'topicConf.auto.offset.reset',
      'options.batchSize',
      'topicConf.request.required.acks',
      'INSTRUMENTATION.METRICS.DISABLED',
      'INSTRUMENTATION.METRICS.config.prefix',
      'INSTRUMENTATION.METRICS.config.defaultLabels',
      'INSTRUMENTATION.METRICS.config.timeout',
      'INSTRUMENTATION.METRICS.labels.fspId',
    ]) {
      expect(readme).toContain(`${key}\` |`);
    }
  });
});
