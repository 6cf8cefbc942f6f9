import { readFileSync } from 'node:fs';
import { collectOriginalProcessMetrics, withSettings } from '@mojafast/service-kit';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  configDefaults,
  handlerLogFilter,
  handlerLogLevel,
  loadConfig,
  readConfig,
  settings,
} from '../src/config/index.js';
import { handlerErrors } from '../src/ledger/errors.js';
import { createLogger } from '../src/observe/logger.js';
import { createMetrics, STAGES } from '../src/observe/metrics.js';
import { ORIGINAL_METRICS_DEFAULTS } from '../src/observe/original-metrics.js';

const actions = readFileSync(new URL('../docs/actions.md', import.meta.url), 'utf8');
const metricsPage = readFileSync(new URL('../docs/metrics.md', import.meta.url), 'utf8');
const page = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');

describe('config', () => {
  it('uses the defaults when the environment says nothing, and freezes the result', () => {
    const config = loadConfig({});
    expect(config).toEqual(configDefaults);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads and converts env variables', () => {
    const config = loadConfig({
      POSITION_BATCH_SIZE: '250',
      POSITION_TOPICS: 'a, b',
      POSITION_FROM_BEGINNING: 'false',
    });
    expect(config.batchSize).toBe(250);
    expect(config.positionTopics).toEqual(['a', 'b']);
    expect(config.fromBeginning).toBe(false);
  });

  it.each([
    ['POSITION_BATCH_SIZE', '0'],
    ['POSITION_BATCH_SIZE', 'ten'],
    ['DB_PORT', '70000'],
    ['POSITION_FROM_BEGINNING', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FILTER', 'error, loud'],
    ['POSITION_TOPICS', ' , '],
    ['KAFKA_CLIENT', 'rdkafka'],
    ['KAFKA_ACKS', 'none'],
    ['KAFKA_FETCH_MAX_WAIT_MS', '-1'],
    ['KAFKA_COMPRESSION', 'brotli'],
  ])('names the bad variable: %s=%s', (key, value) => {
    expect(() => loadConfig({ [key]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [key]: value })).toThrow(new RegExp(`^${key} `));
  });

  it('takes an empty database password (a MySQL user without one), under either name', () => {
    expect(loadConfig({ POSITION_DB_PASSWORD: '' }).dbPassword).toBe('');
    expect(loadConfig({ DB_PASSWORD: '' }).dbPassword).toBe('');
    expect(loadConfig({}).dbPassword).toBe('password');
  });

  it('refuses a compression kafkajs cannot do (zstd) with KAFKA_CLIENT=kafkajs, naming KAFKA_COMPRESSION', () => {
    expect(loadConfig({ KAFKA_COMPRESSION: 'zstd' }).compression).toBe('zstd');
    expect(() => loadConfig({ KAFKA_CLIENT: 'kafkajs', KAFKA_COMPRESSION: 'zstd' })).toThrow(/^KAFKA_COMPRESSION /);
    expect(loadConfig({ KAFKA_CLIENT: 'kafkajs', KAFKA_COMPRESSION: 'gzip' }).kafkaClient).toBe('kafkajs');
  });

  it('renders docs/configuration.md from the declarations (pnpm config:page)', () => {
    expect(settings.map((s) => s.key).sort()).toEqual(Object.keys(configDefaults).sort());
    expect(withSettings(page, settings)).toBe(page);
  });

  it('reads the older unprefixed names as aliases, the POSITION_ name winning', () => {
    expect(loadConfig({ DB_HOST: 'old' }).dbHost).toBe('old');
    expect(loadConfig({ DB_HOST: 'old', POSITION_DB_HOST: 'new' }).dbHost).toBe('new');
    expect(loadConfig({ POSITION_KAFKA_CLIENT: 'kafkajs' }).kafkaClient).toBe('kafkajs');
    // An alias in the environment wins over central-ledger's key, as the variable itself does.
    const loaded = readConfig(
      { CLEDG_DATABASE__HOST: 'from-rc', DB_HOST: 'from-alias' },
      { defaultFile: '/nonexistent/default.json' },
    );
    expect(loaded.config.dbHost).toBe('from-alias');
  });

  it("takes central-services-logger's levels (LOG_LEVEL, as Mojaloop's charts set it), each as the nearest of ours logging no more", () => {
    const expected = {
      error: 'error',
      warn: 'warn',
      audit: 'warn',
      trace: 'warn',
      info: 'info',
      perf: 'info',
      verbose: 'info',
      debug: 'debug',
      silly: 'debug',
    } as const;
    for (const [level, ours] of Object.entries(expected)) {
      expect(handlerLogLevel(loadConfig({ LOG_LEVEL: level }).logLevel), level).toBe(ours);
    }
    // LOG_LEVEL before the logger's own rc variable, as its src/lib/config.js reads them.
    expect(loadConfig({ LOG_LEVEL: 'debug', CSL_LOG_LEVEL: 'error' }).logLevel).toBe('debug');
    expect(loadConfig({ CSL_LOG_LEVEL: 'error' }).logLevel).toBe('error');
  });

  it('logs only the levels LOG_FILTER names, within the level', () => {
    expect(handlerLogFilter(loadConfig({}))).toBeUndefined();
    const config = loadConfig({ LOG_FILTER: 'error, warn, info', LOG_LEVEL: 'info' });
    expect([...(handlerLogFilter(config) ?? [])]).toEqual(['error', 'warn', 'info']);
    const lines: string[] = [];
    const logger = createLogger(handlerLogLevel('debug'), (line) => lines.push(line), new Set(['error', 'audit']));
    logger.error('kept');
    logger.warn('dropped');
    logger.info('dropped');
    logger.debug('dropped');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['kept']);
  });

  it("names the variables of central-ledger's logger and event-sdk that mean nothing here, once, and refuses none", () => {
    const env = {
      CSL_LOG_TRANSPORT: 'file',
      EVENT_SDK_SIDECAR_DISABLED: 'false',
      EVENT_SDK_SERVER_PORT: '50051',
      CSL_LOG_LEVEL: 'info',
      CSL_LOG_FILTER: 'error, warn',
    };
    const { notHonoured } = readConfig(env, { defaultFile: '/nonexistent/default.json' });
    expect(notHonoured).toEqual(['CSL_LOG_TRANSPORT', 'EVENT_SDK_SERVER_PORT', 'EVENT_SDK_SIDECAR_DISABLED']);
    // The console transport is what we do.
    const console = readConfig({ CSL_LOG_TRANSPORT: 'console' }, { defaultFile: '/nonexistent/default.json' });
    expect(console.notHonoured).toEqual([]);
  });

  it('reads booleans as central-ledger and this project spelled them', () => {
    for (const [text, value] of [
      ['on', true],
      ['off', false],
      ['yes', true],
      ['no', false],
      ['1', true],
      ['0', false],
    ] as const) {
      expect(loadConfig({ POSITION_FROM_BEGINNING: text }).fromBeginning, text).toBe(value);
    }
  });
});

describe('error catalogue and metrics agree with docs/actions.md and docs/metrics.md', () => {
  it('lists every error with its FSPIOP code and description', () => {
    for (const [name, entry] of Object.entries(handlerErrors)) {
      expect(actions).toContain(`| ${name} | ${entry.fspiop.code} | ${entry.fspiop.description} |`);
    }
  });

  it('names every metric the handler registers', async () => {
    // The handler's own names: what createMetrics registers beyond prom-client's default metrics, which
    // it collects both unprefixed and under the original's prefix and labels.
    const registry = new Registry();
    createMetrics(registry);
    const defaults = new Registry();
    collectDefaultMetrics({ register: defaults });
    collectOriginalProcessMetrics(defaults, ORIGINAL_METRICS_DEFAULTS);
    const known = new Set((await defaults.getMetricsAsJSON()).map((metric) => metric.name));
    const names = (await registry.getMetricsAsJSON()).map((metric) => metric.name).filter((name) => !known.has(name));
    expect(names).toContain('position_messages_total');
    expect(names).toContain('moja_cl_transfer_position');
    for (const name of names) expect(metricsPage).toContain(`\`${name}\``);
    for (const stage of STAGES) expect(metricsPage).toContain(`\`${stage}\``);
  });
});
