import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../src/command-line.js';
import { configDefaults, handlerLogFilter, handlerLogLevel, readConfig } from '../src/config/index.js';
import { chartArgs, chartEnv, expectedWarning, renderedFile, renderedKnexfile } from './chart-fixtures.js';

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
      bulkProcessingTopic: 'topic-bulk-processing',
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
