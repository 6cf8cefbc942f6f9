import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase } from '@mojafast/testkit';
import { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { defaults } from '../src/config/index.js';
import { readConfig } from '../src/config/original.js';

// account-lookup-service's own config/default.json (mirror commit 5da8a0b7), kept as a fixture of its keys.
const original = fileURLToPath(new URL('./fixtures/account-lookup-service-default.json', import.meta.url));
const absent = fileURLToPath(new URL('./fixtures/absent.json', import.meta.url));
const readme = readFileSync(new URL('../docs/original-config.md', import.meta.url), 'utf8');

describe("account-lookup-service's configuration", () => {
  it('reads its default.json unchanged into our settings', () => {
    const { config, file, notHonoured } = readConfig({ CONFIG_FILE: original });
    expect(file).toBe(original);
    expect(config).toEqual({
      ...defaults,
      port: 4002,
      adminPort: 4001,
      hubName: 'Hub',
      switchEndpoint: 'http://localhost:3001',
      dbHost: 'localhost',
      dbPort: 3306,
      dbUser: 'account_lookup',
      dbPassword: 'password',
      dbName: 'account_lookup',
      hubFspiopVersion: '2.0',
      participantCacheTtlMs: 3000,
      endpointCacheTtlMs: 180000,
      oracleRegistryCacheTtlMs: 0,
      extendedPartyIdTypes: false,
      deleteParticipantValidation: false,
      // PROXY_CACHE: enabled, a Redis Cluster whose start-up node is localhost:6379.
      proxyCache: true,
      proxyCacheType: 'redis-cluster',
      proxyCacheNodes: 'localhost:6379',
      // ENDPOINT_SECURITY.JWS: the file's values, which are our defaults.
      jwsSign: false,
      jwsSigningKeyPath: 'secrets/jwsSigningKey.key',
      jwsValidate: false,
      jwsVerificationKeysDirectory: 'secrets/jwsVerificationKeys',
      jwsValidatePutParties: false,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(notHonoured).toContain('DATABASE.POOL_MAX_SIZE');
    expect(notHonoured).toContain('RUN_MIGRATIONS');
    expect(notHonoured.filter((key) => /^(PROXY_CACHE|ENDPOINT_SECURITY)\./.test(key))).toEqual([]);
    expect(notHonoured).not.toContain('HANDLERS.MONITORING_PORT');
    expect(notHonoured).not.toContain('API_PORT');
  });

  it('lays defaults < file < ALS_ rc overrides < our ALS_ variables', () => {
    const { config, notHonoured } = readConfig({
      CONFIG_FILE: original,
      ALS_DATABASE__HOST: 'mysql-als',
      ALS_API_PORT: '4102',
      ALS_FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE: 'true',
      ALS_DB_PORT: '3307', // ours, not an rc override of a DB_PORT key
    });
    expect(config.dbHost).toBe('mysql-als');
    expect(config.port).toBe(4102);
    expect(config.extendedPartyIdTypes).toBe(true);
    expect(config.dbPort).toBe(3307);
    expect(notHonoured).not.toContain('DB_PORT');
    expect(readConfig({ CONFIG_FILE: original, ALS_API_PORT: '4102', ALS_PORT: '4202' }).config.port).toBe(4202);
  });

  it('maps PROXY_CACHE for one Redis (host, port, credentials, db) and for a cluster from an rc variable', () => {
    const redis = readConfig({
      CONFIG_FILE: original,
      // A JSON-valued rc variable replaces the whole group's proxyConfig key by key: cluster set to null
      // leaves host/port, the helm charts' way of choosing one Redis (their comment: unset cluster).
      ALS_PROXY_CACHE__type: 'redis',
      ALS_PROXY_CACHE__proxyConfig__cluster: 'null',
      ALS_PROXY_CACHE__proxyConfig__host: 'redis',
      ALS_PROXY_CACHE__proxyConfig__port: '6380',
      ALS_PROXY_CACHE__proxyConfig__password: 'secret',
      ALS_PROXY_CACHE__proxyConfig__db: '2',
      ALS_PROXY_CACHE_EXPIRES_IN_SEC: '30',
    }).config;
    expect(redis).toMatchObject({
      proxyCache: true,
      proxyCacheType: 'redis',
      proxyCacheNodes: 'redis:6380',
      proxyCachePassword: 'secret',
      proxyCacheDb: 2,
      proxyCacheExpiresInSec: 30,
    });
    const cluster = readConfig({
      CONFIG_FILE: original,
      ALS_PROXY_CACHE__proxyConfig__cluster: '[{"host":"redis-0","port":7000},{"host":"redis-1","port":7001}]',
    }).config;
    expect(cluster).toMatchObject({ proxyCacheType: 'redis-cluster', proxyCacheNodes: 'redis-0:7000,redis-1:7001' });
    // The type decides, as in the original's cache library: `redis` with the stock file's cluster list still
    // beside host and port is one Redis, not a cluster.
    const single = readConfig({
      CONFIG_FILE: original,
      ALS_PROXY_CACHE__type: 'redis',
      ALS_PROXY_CACHE__proxyConfig__host: '127.0.0.1',
      ALS_PROXY_CACHE__proxyConfig__port: '6379',
    }).config;
    expect(single).toMatchObject({ proxyCacheType: 'redis', proxyCacheNodes: '127.0.0.1:6379' });
  });

  it('reads nothing else of PROXY_CACHE when it is disabled, as the original', () => {
    const { config, notHonoured } = readConfig({
      CONFIG_FILE: original,
      ALS_PROXY_CACHE__enabled: 'false',
      ALS_PROXY_CACHE__type: 'memcached', // bad, but the original checks the type only when enabled
    });
    expect(config.proxyCache).toBe(false);
    expect(config.proxyCacheType).toBe(defaults.proxyCacheType);
    expect(notHonoured.filter((key) => key.startsWith('PROXY_CACHE') || key.startsWith('ALS_PROXY'))).toEqual([]);
  });

  it('maps ENDPOINT_SECURITY.JWS from rc variables', () => {
    const { config } = readConfig({
      CONFIG_FILE: original,
      ALS_ENDPOINT_SECURITY__JWS__JWS_SIGN: 'true',
      ALS_ENDPOINT_SECURITY__JWS__JWS_SIGNING_KEY_PATH: '/secrets/hub.key',
      ALS_ENDPOINT_SECURITY__JWS__JWS_VALIDATE: 'true',
      ALS_ENDPOINT_SECURITY__JWS__JWS_VERIFICATION_KEYS_DIRECTORY: '/secrets/fsps',
      ALS_ENDPOINT_SECURITY__JWS__JWS_VALIDATE_PUT_PARTIES: 'true',
    });
    expect(config).toMatchObject({
      jwsSign: true,
      jwsSigningKeyPath: '/secrets/hub.key',
      jwsValidate: true,
      jwsVerificationKeysDirectory: '/secrets/fsps',
      jwsValidatePutParties: true,
    });
  });

  it('maps INSTRUMENTATION.METRICS: DISABLED, config.prefix and every config.defaultLabels label', () => {
    // The stock file's values are our defaults; timeout and labels are accepted (the original reads neither).
    const stock = readConfig({ CONFIG_FILE: original });
    expect(stock.config).toMatchObject({
      originalMetrics: true,
      metricsPrefix: 'moja_als_',
      metricsDefaultLabels: 'serviceName=account-lookup-service',
    });
    expect(stock.notHonoured.filter((key) => key.startsWith('INSTRUMENTATION'))).toEqual([]);
    const { config, notHonoured } = readConfig({
      CONFIG_FILE: original,
      ALS_INSTRUMENTATION__METRICS__config__prefix: 'eu_als_',
      ALS_INSTRUMENTATION__METRICS__config__defaultLabels__serviceName: 'als-eu',
      ALS_INSTRUMENTATION__METRICS__config__defaultLabels__region: 'eu-1',
      ALS_INSTRUMENTATION__METRICS__config__timeout: '1000',
      ALS_INSTRUMENTATION__METRICS__labels__fspId: 'payerfsp',
    });
    expect(config).toMatchObject({ metricsPrefix: 'eu_als_', metricsDefaultLabels: 'serviceName=als-eu,region=eu-1' });
    expect(notHonoured.filter((key) => key.includes('INSTRUMENTATION'))).toEqual([]);
    const disabled = readConfig({ CONFIG_FILE: original, ALS_INSTRUMENTATION__METRICS__DISABLED: 'true' });
    expect(disabled.config.originalMetrics).toBe(false);
    // Our own variable wins over the file's key.
    expect(
      readConfig({ CONFIG_FILE: original, ALS_INSTRUMENTATION__METRICS__DISABLED: 'true', ALS_ORIGINAL_METRICS: 'on' })
        .config.originalMetrics,
    ).toBe(true);
  });

  it("maps ERROR_HANDLING and the timeout handler's HANDLERS keys", () => {
    const { config } = readConfig({
      CONFIG_FILE: original,
      ALS_ERROR_HANDLING__includeCauseExtension: 'true',
      ALS_ERROR_HANDLING__truncateExtensions: 'false',
      ALS_HANDLERS__MONITORING_PORT: '4103',
      ALS_HANDLERS__TIMEOUT__DISABLED: 'true',
      ALS_HANDLERS__TIMEOUT__TIMEXP: '*/5 * * * * *',
      ALS_HANDLERS__TIMEOUT__TIMEZONE: 'Africa/Nairobi',
      ALS_HANDLERS__TIMEOUT__BATCH_SIZE: '50',
      ALS_HANDLERS__TIMEOUT__DIST_LOCK__lockTimeout: '3000',
    });
    expect(config).toMatchObject({
      errorCauseExtension: true,
      truncateExtensions: false,
      monitoringPort: 4103,
      timeoutHandler: false,
      timeoutSchedule: '*/5 * * * * *',
      timeoutTimezone: 'Africa/Nairobi',
      timeoutBatchSize: 50,
      timeoutLockTtlMs: 3000,
    });
    expect(() => readConfig({ CONFIG_FILE: original, ALS_ERROR_HANDLING__includeCauseExtension: 'yes' })).toThrow(
      /^ALS_ERROR_HANDLING__includeCauseExtension: /,
    );
  });

  it("names the timeout handler's keys without an equivalent only where the handler runs", () => {
    const lockKeys = (timeoutHandler: boolean | 'when-on', env: Record<string, string> = {}) =>
      readConfig({ CONFIG_FILE: original, ...env }, { timeoutHandler }).notHonoured.filter((key) =>
        key.startsWith('HANDLERS.'),
      );
    const redlock = ['acquireTimeout', 'driftFactor', 'retryCount', 'retryDelay', 'retryJitter', 'redisConfigs'];
    expect(lockKeys(true)).toEqual(redlock.map((key) => `HANDLERS.TIMEOUT.DIST_LOCK.${key}`));
    expect(lockKeys(false)).toEqual([]);
    // No command line: the handler runs beside the servers when the proxy cache is on (the file's setting).
    expect(lockKeys('when-on')).toHaveLength(redlock.length);
    expect(lockKeys('when-on', { ALS_PROXY_CACHE__enabled: 'false' })).toEqual([]);
  });

  it("maps LOG_LEVEL from central-services-logger's levels; ALS_LOG_LEVEL wins; a level it cannot map is named", () => {
    const level = (env: Record<string, string>) => readConfig(env, { defaultFile: absent });
    for (const [given, pino] of [
      ['error', 'error'],
      ['warn', 'warn'],
      ['audit', 'warn'],
      ['trace', 'warn'],
      ['info', 'info'],
      ['perf', 'info'],
      ['verbose', 'debug'],
      ['debug', 'debug'],
      ['silly', 'trace'],
    ] as const) {
      expect(level({ LOG_LEVEL: given })).toMatchObject({ config: { logLevel: pino }, notHonoured: [] });
    }
    expect(level({ LOG_LEVEL: 'debug', ALS_LOG_LEVEL: 'error' }).config.logLevel).toBe('error');
    expect(level({ LOG_LEVEL: 'loud' })).toMatchObject({
      config: { logLevel: defaults.logLevel },
      notHonoured: ['LOG_LEVEL'],
    });
    expect(level({ LOG_LEVEL: '' }).notHonoured).toEqual([]);
  });

  it('keeps our defaults when there is no file and no override', () => {
    expect(readConfig({}, { defaultFile: absent }).config).toEqual(defaults);
  });

  it.each([
    ['ALS_API_PORT', { ALS_API_PORT: 'http' }],
    ['ALS_PROTOCOL_VERSIONS__CONTENT__DEFAULT', { ALS_PROTOCOL_VERSIONS__CONTENT__DEFAULT: '1.0' }],
    ['ALS_API_TYPE', { ALS_API_TYPE: 'soap' }],
    ['ALS_SWITCH_ENDPOINT', { ALS_SWITCH_ENDPOINT: 'ftp://ledger' }],
    ['ALS_DELETE_PARTICIPANT_VALIDATION_ENABLED', { ALS_DELETE_PARTICIPANT_VALIDATION_ENABLED: 'maybe' }],
    // The original throws `Incorrect proxyCache type` for a type its library does not know.
    ['ALS_PROXY_CACHE__type', { ALS_PROXY_CACHE__type: 'memcached' }],
    ['ALS_PROXY_CACHE__enabled', { ALS_PROXY_CACHE__enabled: 'yes' }],
    ['ALS_PROXY_CACHE__proxyConfig__cluster', { ALS_PROXY_CACHE__proxyConfig__cluster: '[{"host":"redis"}]' }],
    [
      'ALS_PROXY_CACHE__proxyConfig__port',
      {
        ALS_PROXY_CACHE__type: 'redis',
        ALS_PROXY_CACHE__proxyConfig__host: 'redis',
        ALS_PROXY_CACHE__proxyConfig__port: 'x',
      },
    ],
    // The original's cache library requires host and port for one Redis, the cluster list for a cluster.
    ['PROXY_CACHE.proxyConfig.host', { ALS_PROXY_CACHE__type: 'redis' }],
    ['ALS_PROXY_CACHE__proxyConfig__cluster', { ALS_PROXY_CACHE__proxyConfig__cluster: 'null' }],
    ['ALS_ENDPOINT_SECURITY__JWS__JWS_SIGN', { ALS_ENDPOINT_SECURITY__JWS__JWS_SIGN: 'on' }],
    ['ALS_INSTRUMENTATION__METRICS__DISABLED', { ALS_INSTRUMENTATION__METRICS__DISABLED: 'no' }],
    // Not the start of a Prometheus metric name.
    ['ALS_INSTRUMENTATION__METRICS__config__prefix', { ALS_INSTRUMENTATION__METRICS__config__prefix: 'moja-als-' }],
    // `le` is the bucket label of every histogram.
    ['INSTRUMENTATION.METRICS.config.defaultLabels', { ALS_INSTRUMENTATION__METRICS__config__defaultLabels__le: '1' }],
  ])('a bad value stops the start naming its key: %s', (key, env) => {
    expect(() => readConfig({ CONFIG_FILE: original, ...env })).toThrow(new RegExp(`^${key}: `));
  });

  it('names CONFIG_FILE when it cannot be read', () => {
    expect(() => readConfig({ CONFIG_FILE: absent })).toThrow(/^CONFIG_FILE: /);
  });

  it('has every mapped key in the table of docs/original-config.md', () => {
    for (const key of [
      'API_PORT',
      'ADMIN_PORT',
      'HUB_PARTICIPANT.NAME',
      'SWITCH_ENDPOINT',
      'DATABASE.HOST',
      'DATABASE.DATABASE',
      'PROTOCOL_VERSIONS.CONTENT.DEFAULT',
      'CENTRAL_SHARED_PARTICIPANT_CACHE_CONFIG.expiresIn',
      'CENTRAL_SHARED_ENDPOINT_CACHE_CONFIG.expiresIn',
      'GENERAL_CACHE_CONFIG.EXPIRES_IN_MS',
      'FEATURE_ENABLE_EXTENDED_PARTY_ID_TYPE',
      'DELETE_PARTICIPANT_VALIDATION_ENABLED',
      'PROXY_CACHE.enabled',
      'PROXY_CACHE.type',
      'PROXY_CACHE.proxyConfig.cluster',
      'PROXY_CACHE.proxyConfig.port',
      'PROXY_CACHE.proxyConfig.db',
      'PROXY_CACHE_EXPIRES_IN_SEC',
      'ENDPOINT_SECURITY.JWS.JWS_SIGN',
      'ENDPOINT_SECURITY.JWS.JWS_SIGNING_KEY_PATH',
      'ENDPOINT_SECURITY.JWS.JWS_VALIDATE',
      'ENDPOINT_SECURITY.JWS.JWS_VERIFICATION_KEYS_DIRECTORY',
      'ENDPOINT_SECURITY.JWS.JWS_VALIDATE_PUT_PARTIES',
      'INSTRUMENTATION.METRICS.DISABLED',
      'INSTRUMENTATION.METRICS.config.prefix',
      'INSTRUMENTATION.METRICS.config.defaultLabels',
      'INSTRUMENTATION.METRICS.config.timeout',
      'INSTRUMENTATION.METRICS.labels',
      'ERROR_HANDLING.includeCauseExtension',
      'ERROR_HANDLING.truncateExtensions',
      'HANDLERS.MONITORING_PORT',
      'HANDLERS.TIMEOUT.DISABLED',
      'HANDLERS.TIMEOUT.TIMEXP',
      'HANDLERS.TIMEOUT.TIMEZONE',
      'HANDLERS.TIMEOUT.BATCH_SIZE',
      'HANDLERS.TIMEOUT.DIST_LOCK.lockTimeout',
      'HANDLERS.TIMEOUT.DIST_LOCK.enabled',
      'HANDLERS.DISABLED',
    ]) {
      expect(readme).toContain(`${key}\` |`);
    }
  });

  // The stock file enables the proxy cache on a Redis Cluster at localhost:6379; none runs here (infra/svc's
  // Redis is a plain one, which a cluster client refuses too). The original stops when its proxy cache
  // cannot connect (src/server.js awaits createConnectedProxyCache before listening); so does this one,
  // with one line naming the keys, rather than starting without the inter-scheme discovery it was asked for.
  it('stops on the stock file when its Redis Cluster cannot be reached, with one line naming the keys', async () => {
    const child = spawn(process.execPath, ['dist/als.js'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { PATH: process.env.PATH ?? '', CONFIG_FILE: original, ALS_PORT: '0', ALS_ADMIN_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    // The warning of keys not honoured, then the one line that says why it stopped.
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^als: ALS_PROXY_CACHE=on \(PROXY_CACHE\.enabled\) but the redis-cluster at localhost:6379 \(ALS_PROXY_CACHE_NODES, PROXY_CACHE\.proxyConfig\) cannot be reached/,
    );
  }, 30_000);

  // The redis-cluster type is honoured (ioredis Cluster), not merely named: the stock file, its cluster list
  // pointed by the original's own rc variable at a one-node Redis Cluster started here, starts, and /health
  // reports the proxy cache up.
  it('starts on the stock file with its Redis Cluster reachable, the proxy cache on that cluster', async () => {
    const port = await clusterPort();
    const dir = mkdtempSync(join(tmpdir(), 'als-redis-cluster-'));
    const redis = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        // Else CLUSTER SLOTS names the node by an empty address, which ioredis cannot connect to.
        '--cluster-announce-ip',
        '127.0.0.1',
        '--cluster-config-file',
        join(dir, 'nodes.conf'),
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
      ],
      { stdio: 'ignore' },
    );
    const database = await createDatabase({ prefix: 'als_stock_cluster' });
    let als: ChildProcess | undefined;
    // Commands wait in its queue until redis-server listens (it retries every 100 ms meanwhile).
    const admin = new Redis({ host: '127.0.0.1', port, retryStrategy: () => 100, maxRetriesPerRequest: null });
    admin.on('error', () => {});
    try {
      // One node holding every slot: the smallest Redis Cluster there is.
      await admin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
      await vi.waitFor(async () => expect(await admin.call('CLUSTER', 'INFO')).toMatch(/cluster_state:ok/), {
        timeout: 10_000,
        interval: 100,
      });
      const { host, port: dbPort, user, password } = database.connection;
      als = spawn(process.execPath, ['dist/als.js'], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: {
          PATH: process.env.PATH ?? '',
          CONFIG_FILE: original,
          ALS_PORT: '0',
          ALS_ADMIN_PORT: '0',
          ALS_PROXY_CACHE__proxyConfig__cluster: JSON.stringify([{ host: '127.0.0.1', port }]),
          ALS_DATABASE__HOST: host,
          ALS_DATABASE__PORT: String(dbPort),
          ALS_DATABASE__USER: user,
          ALS_DATABASE__PASSWORD: password,
          ALS_DATABASE__DATABASE: database.name,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      als.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      als.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const ready = await vi.waitFor(
        () => {
          if (als?.exitCode !== null) throw new Error(`als exited: ${stderr}`);
          const line = stdout.split('\n').find((l) => l.startsWith('{"ready":true'));
          if (!line) throw new Error('not ready yet');
          return JSON.parse(line) as { admin: string };
        },
        { timeout: 15_000, interval: 100 },
      );
      const health = await fetch(`${ready.admin}/health`);
      const body = (await health.json()) as { services?: { name: string; status: string }[] };
      // The file's SWITCH_ENDPOINT (central-ledger at localhost:3001) does not run here: that one is DOWN.
      expect({ status: health.status, services: body.services }).toEqual({
        status: 503,
        services: [
          { name: 'datastore', status: 'OK' },
          { name: 'proxyCache', status: 'OK' },
          { name: 'participantEndpointService', status: 'DOWN' },
        ],
      });
      als.kill('SIGTERM');
      const [code] = await once(als, 'exit');
      expect(code).toBe(0);
    } finally {
      if (als && als.exitCode === null) als.kill('SIGKILL');
      admin.disconnect();
      redis.kill('SIGTERM');
      await once(redis, 'exit');
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** A free port whose cluster bus port (+10000) is free too. */
async function clusterPort(): Promise<number> {
  const free = (port: number) =>
    new Promise<number | undefined>((done) => {
      const server = createServer();
      server.once('error', () => done(undefined));
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => done(typeof address === 'object' && address ? address.port : undefined));
      });
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await free(0);
    if (port !== undefined && port <= 55_535 && (await free(port + 10_000)) !== undefined) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

const chart = (name: string) => fileURLToPath(new URL(`./fixtures/charts/${name}`, import.meta.url));
/**
 * What the charts' deployments run and set on the ALS container, as helm renders them (fixtures/charts/README.md;
 * deploy-check's charts-render test holds these files to the rendering).
 */
const container = (name: string) =>
  JSON.parse(readFileSync(chart(name), 'utf8')) as { command: string[]; env: Record<string, string> };
const service = container('als-chart-service.env.json');
const admin = container('als-chart-admin.env.json');
const chartEnv = service.env;

describe("Mojaloop's charts: the rendered files and environment", () => {
  it('chart-service (`server --api`): loads, honours what it can, names exactly the rest', () => {
    const { config, notHonoured } = readConfig(
      { CONFIG_FILE: chart('als-chart-service.default.json'), ...chartEnv },
      { timeoutHandler: false },
    );
    expect(config).toMatchObject({
      port: 4002,
      adminPort: 4001,
      dbHost: 'mysqldb',
      dbUser: 'account_lookup',
      // An empty password, from the file and from the chart's empty ALS_DATABASE__PASSWORD.
      dbPassword: '',
      dbName: 'account_lookup',
      hubFspiopVersion: '2.0',
      participantCacheTtlMs: 61_000,
      endpointCacheTtlMs: 180_000,
      oracleRegistryCacheTtlMs: 0,
      switchEndpoint: 'http://mojafast-centralledger-service:80',
      errorCauseExtension: false,
      truncateExtensions: true,
      metricsPrefix: 'moja_',
      metricsDefaultLabels: 'serviceName=account-lookup-service',
      // LOG_LEVEL=info of central-services-logger.
      logLevel: 'info',
      // The file names no HUB_PARTICIPANT: ours keeps its default (the original fails at load without it).
      hubName: 'Hub',
    });
    expect(notHonoured).toEqual([
      'PROTOCOL_VERSIONS.ACCEPT.DEFAULT',
      'PROTOCOL_VERSIONS.ACCEPT.VALIDATELIST',
      'PROTOCOL_VERSIONS.CONTENT.VALIDATELIST',
      'DATABASE.POOL_MIN_SIZE',
      'DATABASE.POOL_MAX_SIZE',
      'DATABASE.ACQUIRE_TIMEOUT_MILLIS',
      'DATABASE.CREATE_TIMEOUT_MILLIS',
      'DATABASE.DESTROY_TIMEOUT_MILLIS',
      'DATABASE.IDLE_TIMEOUT_MILLIS',
      'DATABASE.REAP_INTERVAL_MILLIS',
      'DATABASE.CREATE_RETRY_INTERVAL_MILLIS',
      'DATABASE.DEBUG',
      'DISPLAY_ROUTES',
      'RUN_MIGRATIONS',
      'CENTRAL_SHARED_ENDPOINT_CACHE_CONFIG.generateTimeout',
      'CENTRAL_SHARED_ENDPOINT_CACHE_CONFIG.getDecoratedValue',
      'CENTRAL_SHARED_PARTICIPANT_CACHE_CONFIG.generateTimeout',
      'CENTRAL_SHARED_PARTICIPANT_CACHE_CONFIG.getDecoratedValue',
      'GENERAL_CACHE_CONFIG.MAX_BYTE_SIZE',
      // The original signs as HUB_PARTICIPANT.NAME and never reads this key; nor does ours.
      'ENDPOINT_SECURITY.JWS.FSPIOP_SOURCE_TO_SIGN',
      // Not the original's key (it reads API_DOC_ENDPOINTS_ENABLED).
      'API_DOCUMENTATION_ENDPOINTS',
      // event-sdk's audit and trace events: this ALS emits none. TRACESTATE_HEADER_ENABLED=true and
      // TRACEID_PER_VENDOR=false are what it does; CSL_LOG_TRANSPORT=console too; LOG_LEVEL is mapped.
      'EVENT_SDK_LOG_FILTER',
      'EVENT_SDK_LOG_METADATA_ONLY',
      'EVENT_SDK_SIDECAR_DISABLED',
      'EVENT_SDK_SERVER_HOST',
      'EVENT_SDK_SERVER_PORT',
      // Its tracestate member is written under event-sdk's default key, acmevendor.
      'EVENT_SDK_VENDOR_PREFIX',
      'EVENT_SDK_ASYNC_OVERRIDE_EVENTS',
    ]);
  });

  it('chart-admin (`server --admin`, the older layout): loads, names what it cannot honour', () => {
    const { config, notHonoured } = readConfig(
      { CONFIG_FILE: chart('als-chart-admin.default.json'), ...admin.env },
      { timeoutHandler: false },
    );
    expect(config).toMatchObject({
      adminPort: 4001,
      dbHost: 'mysqldb',
      dbPassword: '',
      logLevel: 'info',
      metricsDefaultLabels: 'serviceName=account-lookup-service-admin',
    });
    expect(notHonoured).toEqual([
      'DATABASE.POOL_MIN_SIZE',
      'DATABASE.POOL_MAX_SIZE',
      'DATABASE.ACQUIRE_TIMEOUT_MILLIS',
      'DATABASE.CREATE_TIMEOUT_MILLIS',
      'DATABASE.DESTROY_TIMEOUT_MILLIS',
      'DATABASE.IDLE_TIMEOUT_MILLIS',
      'DATABASE.REAP_INTERVAL_MILLIS',
      'DATABASE.CREATE_RETRY_INTERVAL_MILLIS',
      'DATABASE.DEBUG',
      'DISPLAY_ROUTES',
      'RUN_MIGRATIONS',
      // The layout before CENTRAL_SHARED_ENDPOINT_CACHE_CONFIG: v17 reads it no more, nor does the admin API use it.
      'ENDPOINT_CACHE_CONFIG.expiresIn',
      'ENDPOINT_CACHE_CONFIG.generateTimeout',
    ]);
  });

  it('starts `server --api` on the chart-service file and environment, naming the keys in one warning', async () => {
    const database = await createDatabase({ prefix: 'als_chart_service' });
    try {
      const { host, port, user, password } = database.connection;
      // The chart's command after `node src/index.js`: server --api.
      const child = spawn(process.execPath, ['dist/als', ...service.command.slice(2)], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: {
          ...process.env,
          ...chartEnv,
          CONFIG_FILE: chart('als-chart-service.default.json'),
          ALS_HOST: '127.0.0.1',
          ALS_API_PORT: '0',
          // Where the chart's names point, here.
          ALS_DATABASE__HOST: host,
          ALS_DATABASE__PORT: String(port),
          ALS_DATABASE__USER: user,
          ALS_DATABASE__PASSWORD: password,
          ALS_DATABASE__DATABASE: database.name,
          ALS_SWITCH_ENDPOINT: 'http://127.0.0.1:1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      await vi.waitFor(() => expect(stdout).toContain('"ready":true'), { timeout: 20_000, interval: 100 });
      const warnings = stderr
        .split('\n')
        .filter((line) => line.includes('account-lookup-service keys not honoured'))
        .map((line) => JSON.parse(line) as { keys: string[]; level: string });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.level).toBe('warn');
      expect(warnings[0]?.keys).toContain('EVENT_SDK_SIDECAR_DISABLED');
      expect(warnings[0]?.keys).not.toContain('LOG_LEVEL');
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      await database.drop();
    }
  });
});
