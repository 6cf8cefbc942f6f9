import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaults } from '../src/config/config.js';
import { readConfig } from '../src/config/original.js';

// account-lookup-service's own config/default.json (mirror commit 5da8a0b7), kept as a fixture of its keys.
const original = fileURLToPath(new URL('./fixtures/account-lookup-service-default.json', import.meta.url));
const absent = fileURLToPath(new URL('./fixtures/absent.json', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

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
      extendedPartyIdTypes: 'off',
      deleteParticipantValidation: 'off',
      // PROXY_CACHE: enabled, a Redis Cluster whose start-up node is localhost:6379.
      proxyCache: 'on',
      proxyCacheType: 'redis-cluster',
      proxyCacheNodes: 'localhost:6379',
      // ENDPOINT_SECURITY.JWS: the file's values, which are our defaults.
      jwsSign: 'off',
      jwsSigningKeyPath: 'secrets/jwsSigningKey.key',
      jwsValidate: 'off',
      jwsVerificationKeysDirectory: 'secrets/jwsVerificationKeys',
      jwsValidatePutParties: 'off',
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
    expect(config.extendedPartyIdTypes).toBe('on');
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
      proxyCache: 'on',
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
  });

  it('reads nothing else of PROXY_CACHE when it is disabled, as the original', () => {
    const { config, notHonoured } = readConfig({
      CONFIG_FILE: original,
      ALS_PROXY_CACHE__enabled: 'false',
      ALS_PROXY_CACHE__type: 'memcached', // bad, but the original checks the type only when enabled
    });
    expect(config.proxyCache).toBe('off');
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
      jwsSign: 'on',
      jwsSigningKeyPath: '/secrets/hub.key',
      jwsValidate: 'on',
      jwsVerificationKeysDirectory: '/secrets/fsps',
      jwsValidatePutParties: 'on',
    });
  });

  it('keeps our defaults when there is no file and no override', () => {
    expect(readConfig({}, { defaultFile: absent }).config).toEqual(defaults);
  });

  it.each([
    ['ALS_API_PORT', { ALS_API_PORT: 'http' }],
    ['ALS_PROTOCOL_VERSIONS__CONTENT__DEFAULT', { ALS_PROTOCOL_VERSIONS__CONTENT__DEFAULT: '1.0' }],
    ['ALS_API_TYPE', { ALS_API_TYPE: 'iso20022' }],
    ['ALS_SWITCH_ENDPOINT', { ALS_SWITCH_ENDPOINT: 'ftp://ledger' }],
    ['ALS_DELETE_PARTICIPANT_VALIDATION_ENABLED', { ALS_DELETE_PARTICIPANT_VALIDATION_ENABLED: 'maybe' }],
    // The original throws `Incorrect proxyCache type` for a type its library does not know.
    ['ALS_PROXY_CACHE__type', { ALS_PROXY_CACHE__type: 'memcached' }],
    ['ALS_PROXY_CACHE__enabled', { ALS_PROXY_CACHE__enabled: 'yes' }],
    ['ALS_PROXY_CACHE__proxyConfig__cluster', { ALS_PROXY_CACHE__proxyConfig__cluster: '[{"host":"redis"}]' }],
    [
      'ALS_PROXY_CACHE__proxyConfig__port',
      { ALS_PROXY_CACHE__proxyConfig__cluster: 'null', ALS_PROXY_CACHE__proxyConfig__port: 'x' },
    ],
    ['ALS_ENDPOINT_SECURITY__JWS__JWS_SIGN', { ALS_ENDPOINT_SECURITY__JWS__JWS_SIGN: 'on' }],
  ])('a bad value stops the start naming its key: %s', (key, env) => {
    expect(() => readConfig({ CONFIG_FILE: original, ...env })).toThrow(new RegExp(`^${key}: `));
  });

  it('names CONFIG_FILE when it cannot be read', () => {
    expect(() => readConfig({ CONFIG_FILE: absent })).toThrow(/^CONFIG_FILE: /);
  });

  it('has every mapped key in the README table', () => {
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
});
