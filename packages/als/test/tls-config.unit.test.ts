import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.js';
import { readConfig } from '../src/config/original.js';
import { createRedisClient } from '../src/upstream/proxy-cache-redis.js';
import { failureReason, isCertificateFailure, readPem, tlsOptions, upstreamCa } from '../src/upstream/tls.js';

// account-lookup-service's own config/default.json, the base every case below changes.
const stock = JSON.parse(
  readFileSync(fileURLToPath(new URL('./fixtures/account-lookup-service-default.json', import.meta.url)), 'utf8'),
) as { DATABASE: Record<string, unknown>; PROXY_CACHE?: Record<string, unknown> };
const dir = mkdtempSync(join(tmpdir(), 'als-tls-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
let files = 0;
/** The stock file with `change` applied, read as the ALS reads it (plus `env`). */
function read(change: (file: typeof stock) => void, env: NodeJS.ProcessEnv = {}) {
  const file = structuredClone(stock);
  change(file);
  const path = join(dir, `default-${files++}.json`);
  writeFileSync(path, JSON.stringify(file));
  return readConfig({ CONFIG_FILE: path, ...env });
}
/** The stock file with DATABASE.ADDITIONAL_CONNECTION_OPTIONS set to `options`. */
const withOptions = (options: unknown, env: NodeJS.ProcessEnv = {}) =>
  read((file) => {
    file.DATABASE.ADDITIONAL_CONNECTION_OPTIONS = options;
  }, env);
const plainRedis = (file: typeof stock) => {
  file.PROXY_CACHE = { enabled: true, type: 'redis', proxyConfig: { host: 'redis', port: 6380 } };
};

describe('MySQL TLS of the original (DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl, the chart db_ssl_* values)', () => {
  it('is off with the stock file, whose empty ADDITIONAL_CONNECTION_OPTIONS is not named', () => {
    const { config, notHonoured } = read(() => {});
    expect(config.dbSsl).toBe('off');
    expect(notHonoured).not.toContain('DATABASE.ADDITIONAL_CONNECTION_OPTIONS');
  });

  it('reads an ssl object: rejectUnauthorized false is encrypted only, the PEM texts kept', () => {
    const { config, notHonoured } = read((file) => {
      file.DATABASE.ADDITIONAL_CONNECTION_OPTIONS = {
        ssl: { rejectUnauthorized: false, ca: pem, cert: pem, key: pem },
      };
    });
    expect(config).toMatchObject({ dbSsl: 'on', dbSslCaFile: pem, dbSslCertFile: pem, dbSslKeyFile: pem });
    expect(notHonoured.filter((key) => key.includes('ADDITIONAL'))).toEqual([]);
  });

  it('verifies by default, as mysql2 does (an empty ssl object, or rejectUnauthorized true); a ca list is joined', () => {
    expect(withOptions({ ssl: {} }).config.dbSsl).toBe('verify');
    const { config } = read((file) => {
      file.DATABASE.ADDITIONAL_CONNECTION_OPTIONS = { ssl: { rejectUnauthorized: true, ca: [pem, pem] } };
    });
    expect(config.dbSsl).toBe('verify');
    expect(config.dbSslCaFile).toBe(`${pem}\n${pem}`);
  });

  it('checks the host name only with verifyIdentity true, and only when it verifies, as mysql2 does', () => {
    expect(withOptions({ ssl: { verifyIdentity: true } }).config.dbSsl).toBe('verify-identity');
    expect(withOptions({ ssl: { verifyIdentity: false } }).config.dbSsl).toBe('verify');
    expect(withOptions({ ssl: { rejectUnauthorized: false, verifyIdentity: true } }).config.dbSsl).toBe('on');
    const { notHonoured } = withOptions({ ssl: { verifyIdentity: true } });
    expect(notHonoured.filter((key) => key.includes('ADDITIONAL'))).toEqual([]);
    expect(() => withOptions({ ssl: { verifyIdentity: 'yes' } })).toThrow(
      /^DATABASE\.ADDITIONAL_CONNECTION_OPTIONS\.ssl\.verifyIdentity: must be true or false/,
    );
  });

  it("reads the chart's rc variables (db_ssl_enabled, db_ssl_verify, db_ssl_ca_secret)", () => {
    // The admin chart sets them on the ALS's migration container as rc variables over its default.json.
    const { config, notHonoured } = read(() => {}, {
      ALS_DATABASE__ADDITIONAL_CONNECTION_OPTIONS__ssl__rejectUnauthorized: 'false',
      ALS_DATABASE__ADDITIONAL_CONNECTION_OPTIONS__ssl__ca: pem,
    });
    expect(config).toMatchObject({ dbSsl: 'on', dbSslCaFile: pem });
    expect(notHonoured.filter((key) => key.includes('ADDITIONAL'))).toEqual([]);
    expect(
      readConfig({ ALS_DATABASE__ADDITIONAL_CONNECTION_OPTIONS__ssl__rejectUnauthorized: 'true' }).config.dbSsl,
    ).toBe('verify');
  });

  it('takes a string as the name of a mysql2 CA profile, false as none; our variables win', () => {
    const profile = withOptions({ ssl: 'Amazon RDS' });
    expect(profile.config).toMatchObject({ dbSsl: 'verify', dbSslProfile: 'Amazon RDS' });
    expect(withOptions({ ssl: false }).config.dbSsl).toBe('off');
    const ours = withOptions({ ssl: {} }, { ALS_DB_SSL: 'on' });
    expect(ours.config.dbSsl).toBe('on');
  });

  it('names the keys it does not honour and refuses what mysql2 refuses, naming the key', () => {
    const { notHonoured } = read((file) => {
      file.DATABASE.ADDITIONAL_CONNECTION_OPTIONS = { ssl: { ca: pem, minVersion: 'TLSv1.3' }, connectTimeout: 5000 };
    });
    expect(notHonoured).toContain('DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl.minVersion');
    expect(notHonoured).toContain('DATABASE.ADDITIONAL_CONNECTION_OPTIONS.connectTimeout');
    expect(() => withOptions({ ssl: true })).toThrow(
      /^DATABASE\.ADDITIONAL_CONNECTION_OPTIONS\.ssl: must be an object of TLS options or a mysql2 profile name/,
    );
    expect(() => withOptions({ ssl: { ca: 'not pem' } })).toThrow(
      /^DATABASE\.ADDITIONAL_CONNECTION_OPTIONS\.ssl\.ca: must be PEM text/,
    );
    expect(() => withOptions({ ssl: { rejectUnauthorized: 'no' } })).toThrow(
      /^DATABASE\.ADDITIONAL_CONNECTION_OPTIONS\.ssl\.rejectUnauthorized: must be true or false/,
    );
  });
});

describe("Redis TLS of the original's proxy cache library (PROXY_CACHE.proxyConfig)", () => {
  it('reads tls, username and password of one Redis', () => {
    const { config, notHonoured } = read((file) => {
      plainRedis(file);
      Object.assign(file.PROXY_CACHE?.proxyConfig as object, {
        username: 'als',
        password: 'secret',
        tls: { rejectUnauthorized: false, ca: pem, cert: pem, key: pem },
      });
    });
    expect(config).toMatchObject({
      proxyCacheNodes: 'redis:6380',
      proxyCacheUsername: 'als',
      proxyCachePassword: 'secret',
      proxyCacheTls: 'on',
      proxyCacheTlsCaFile: pem,
      proxyCacheTlsCertFile: pem,
      proxyCacheTlsKeyFile: pem,
    });
    expect(notHonoured.filter((key) => key.startsWith('PROXY_CACHE'))).toEqual([]);
  });

  it('verifies with an empty tls object or tls true, as ioredis (node:tls) does', () => {
    const empty = read((file) => {
      plainRedis(file);
      Object.assign(file.PROXY_CACHE?.proxyConfig as object, { tls: {} });
    });
    expect(empty.config.proxyCacheTls).toBe('verify');
    const rc = read(plainRedis, { ALS_PROXY_CACHE__proxyConfig__tls: 'true' });
    expect(rc.config.proxyCacheTls).toBe('verify');
  });

  it("reads a cluster's redisOptions (tls, username, password), where ioredis Cluster takes them for its nodes", () => {
    const { config, notHonoured } = read((file) => {
      const proxyConfig = file.PROXY_CACHE?.proxyConfig as Record<string, unknown>;
      proxyConfig.redisOptions = { username: 'als', password: 'secret', tls: { ca: pem } };
      // A Cluster's own options carry no TLS: the original connects in plaintext with it, ours names it.
      proxyConfig.tls = { ca: pem };
    });
    expect(config).toMatchObject({
      proxyCacheType: 'redis-cluster',
      proxyCacheUsername: 'als',
      proxyCachePassword: 'secret',
      proxyCacheTls: 'verify',
      proxyCacheTlsCaFile: pem,
    });
    expect(notHonoured).toContain('PROXY_CACHE.proxyConfig.tls.ca');
  });

  it('gives the TLS options to one Redis and to every node of a cluster', () => {
    const tls = { rejectUnauthorized: true, ca: pem };
    const plain = createRedisClient({ type: 'redis', nodes: [{ host: 'r', port: 6380 }], tls, commandTimeoutMs: 100 });
    expect(plain.options).toMatchObject({ tls });
    const cluster = createRedisClient({
      type: 'redis-cluster',
      nodes: [{ host: 'r', port: 6380 }],
      tls,
      commandTimeoutMs: 100,
    });
    expect((cluster.options as { redisOptions?: object }).redisOptions).toMatchObject({ tls });
    plain.disconnect();
    cluster.disconnect();
  });
});

describe('TLS settings', () => {
  it('are off by default; the modes and files are read as declared', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ dbSsl: 'off', proxyCacheTls: 'off', upstreamCaFile: '' });
    expect(() => loadConfig({ ALS_DB_SSL: 'required' })).toThrow(/^ALS_DB_SSL: must be one of/);
    expect(() => loadConfig({ ALS_PROXY_CACHE_TLS: 'yes' })).toThrow(/^ALS_PROXY_CACHE_TLS: must be one of/);
  });

  it('reads a PEM file, or PEM text as is; an unreadable file names its variable', () => {
    const file = join(dir, 'ca.pem');
    writeFileSync(file, pem);
    expect(readPem(file, 'ALS_DB_SSL_CA_FILE')).toBe(pem);
    expect(readPem(pem, 'ALS_DB_SSL_CA_FILE')).toBe(pem);
    expect(readPem('', 'ALS_DB_SSL_CA_FILE')).toBeUndefined();
    expect(() => readPem(join(dir, 'none.pem'), 'ALS_DB_SSL_CA_FILE')).toThrow(
      /^ALS_DB_SSL_CA_FILE: cannot read .*ENOENT/,
    );
  });

  it('builds node:tls options: on accepts any certificate, verify checks it', () => {
    const none = { value: '', variable: 'X' };
    expect(tlsOptions('off', { ca: none, cert: none, key: none })).toBeUndefined();
    expect(tlsOptions('on', { ca: none, cert: none, key: none })).toEqual({ rejectUnauthorized: false });
    expect(tlsOptions('verify', { ca: { value: pem, variable: 'X' }, cert: none, key: none })).toEqual({
      rejectUnauthorized: true,
      ca: pem,
    });
  });

  it("adds ALS_UPSTREAM_CA_FILE to Node's CAs, never in their place", () => {
    expect(upstreamCa('', 'ALS_UPSTREAM_CA_FILE')).toBeUndefined();
    const cas = upstreamCa(pem, 'ALS_UPSTREAM_CA_FILE') ?? [];
    expect(cas.at(-1)).toBe(pem);
    expect(cas.length).toBeGreaterThan(50);
  });

  it('says a certificate fails verification, with its code', () => {
    const error = Object.assign(new Error('self-signed certificate in certificate chain'), {
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
    });
    expect(isCertificateFailure(error)).toBe(true);
    expect(failureReason(error)).toBe(
      'its certificate fails verification: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)',
    );
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3307'), { code: 'ECONNREFUSED' });
    expect(isCertificateFailure(refused)).toBe(false);
    expect(failureReason(refused)).toBe('connect ECONNREFUSED 127.0.0.1:3307');
  });
});
