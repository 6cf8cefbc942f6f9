import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SimSet, startSimSet } from '@mojafast/sim';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConfigValues } from '../src/config/index.js';
import { readConfig } from '../src/config/original.js';
import { startAls } from '../src/main.js';
import { adminCall } from './admin-client.js';
import { getParties, newTraceId, settled, startStack } from './helpers.js';
import { startProxySim } from './proxy-sim.js';

/**
 * The secure stack (`infra/svc start --tls`): a MariaDB with require_secure_transport=ON and a Redis with
 * no plaintext port, their certificates signed by the CA in its tls/ folder. Found as the testkit finds it
 * (TLS_DIR, else tls/ in MOJAFAST_STATE_DIR, else .infra/tls of the repository; MYSQL_TLS_PORT 3307,
 * REDIS_TLS_PORT 6380). Without it these tests are skipped, and the suite's name says why.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const tlsDir = resolve(process.env.TLS_DIR || join(process.env.MOJAFAST_STATE_DIR || join(root, '.infra'), 'tls'));
const host = '127.0.0.1';
const mysqlPort = Number(process.env.MYSQL_TLS_PORT || 3307);
const redisPort = Number(process.env.REDIS_TLS_PORT || 6380);
const user = process.env.MYSQL_USER || 'mojafast';
const password = process.env.MYSQL_PASSWORD ?? 'mojafast';
const caFile = join(tlsDir, 'ca.pem');

const listening = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect({ host, port });
    socket.once('connect', () => done(socket.destroy() !== undefined));
    socket.once('error', () => done(false));
  });
const missing = !existsSync(caFile)
  ? `no ${caFile}`
  : !(await listening(mysqlPort))
    ? `nothing listens on ${host}:${mysqlPort}`
    : !(await listening(redisPort))
      ? `nothing listens on ${host}:${redisPort}`
      : undefined;
const title = `on the secure stack${missing ? ` (SKIPPED: ${missing}; start it with infra/svc start --tls)` : ''}`;
// Said on the run's output too: a skip must not pass for a success.
if (missing) console.warn(`als secure-stack tests: ${title}`);

// account-lookup-service's own config/default.json, which each case points at the secure stack.
const stock = JSON.parse(
  readFileSync(fileURLToPath(new URL('./fixtures/account-lookup-service-default.json', import.meta.url)), 'utf8'),
) as Record<string, Record<string, unknown>>;
const dir = mkdtempSync(join(tmpdir(), 'als-secure-'));
const database = `als_tls_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const overTls = () => ({ host, port: mysqlPort, user, password, ssl: { ca: readFileSync(caFile, 'utf8') } });

/** The stock file on the secure MariaDB, with `ssl` as ADDITIONAL_CONNECTION_OPTIONS.ssl, its proxy cache off. */
function originalFile(ssl: unknown): string {
  const file = structuredClone(stock);
  file.DATABASE = {
    ...file.DATABASE,
    HOST: host,
    PORT: mysqlPort,
    USER: user,
    PASSWORD: password,
    DATABASE: database,
    ADDITIONAL_CONNECTION_OPTIONS: ssl === undefined ? {} : { ssl },
  };
  file.PROXY_CACHE = { enabled: false };
  const path = join(dir, `default-${randomUUID()}.json`);
  writeFileSync(path, JSON.stringify(file));
  return path;
}

const local: Partial<ConfigValues> = { host, port: 0, adminPort: 0, logLevel: 'silent' };
/** The ALS as a deployment starts it: the original's file, then our variables. */
const startFrom = (file: string, env: NodeJS.ProcessEnv = {}, overrides: Partial<ConfigValues> = {}) =>
  startAls(readConfig({ CONFIG_FILE: file, ...env }, { overrides: { ...local, ...overrides } }).config);

describe.skipIf(missing !== undefined)(title, () => {
  let sims: SimSet;

  it("serves oracle registration and lookups from the original's default.json with ssl { rejectUnauthorized: false }", async () => {
    const setup = await mysql.createConnection(overTls());
    await setup.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
    cleanups.push(async () => {
      const drop = await mysql.createConnection(overTls());
      await drop.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await drop.end();
    });
    // The session really is encrypted: the server says which cipher it uses.
    const [[cipher]] = (await setup.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) as unknown as [{ Value: string }[]];
    expect(cipher?.Value).not.toBe('');
    await setup.end();

    sims = await startSimSet({ fsps: 5, recordHistory: true });
    cleanups.push(() => sims.close());
    const als = await startFrom(originalFile({ rejectUnauthorized: false }), {}, { switchEndpoint: sims.admin.url });
    cleanups.push(() => als.close());
    sims.payee.setAlsUrl(als.url);
    const created = await adminCall(als.adminUrl, 'POST', '/oracles', {
      oracleIdType: 'MSISDN',
      endpoint: { value: sims.oracle.url, endpointType: 'URL' },
      isDefault: true,
    });
    expect(created.status).toBe(201);
    const listed = await adminCall(als.adminUrl, 'GET', '/oracles');
    // isDefault as the registry's row holds it (MySQL's TINYINT: 1), as on the plain database.
    expect(listed.json).toEqual([
      expect.objectContaining({ oracleIdType: 'MSISDN', endpoint: { value: sims.oracle.url, endpointType: 'URL' } }),
    ]);
    const traceId = newTraceId();
    expect((await getParties(als.url, 'MSISDN/46740000001', traceId)).status).toBe(202);
    expect((await sims.payer?.waitForCallback(traceId, 5_000))?.kind).toBe('success');
    await settled(als);
    const health = await adminCall(als.adminUrl, 'GET', '/health');
    expect(health.json).toMatchObject({ services: expect.arrayContaining([{ name: 'datastore', status: 'OK' }]) });
  });

  it('verifies the server with its CA (ALS_DB_SSL=verify, ALS_DB_SSL_CA_FILE)', async () => {
    const als = await startFrom(originalFile(undefined), { ALS_DB_SSL: 'verify', ALS_DB_SSL_CA_FILE: caFile });
    await als.close();
  });

  // The server's certificate names localhost and 127.0.0.1; 127.1 reaches the same server under a name it
  // does not carry. mysql2 checks the chain of an ssl object, the name only with verifyIdentity: so does ours.
  it('checks the host name only with verifyIdentity (ALS_DB_SSL=verify-identity), as mysql2 does', async () => {
    const elsewhere = { ALS_DB_SSL_CA_FILE: caFile, ALS_DB_HOST: '127.1' };
    const als = await startFrom(originalFile(undefined), { ...elsewhere, ALS_DB_SSL: 'verify' });
    await als.close();
    const refused = (await startFrom(originalFile(undefined), { ...elsewhere, ALS_DB_SSL: 'verify-identity' }).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error & { code?: string };
    expect(refused.message).toMatch(/^the oracle registry's MySQL at 127\.1:\d+ .*cannot be used: .*127\.1/);
    expect(refused.message).not.toContain('\n');
  });

  it('stops the start in one line naming the host and why when the certificate fails verification', async () => {
    const start = startFrom(originalFile({ rejectUnauthorized: true }));
    const error = (await start.then(
      () => undefined,
      (e: unknown) => e,
    )) as Error & { code?: string };
    expect(error.message).toMatch(
      new RegExp(`^the oracle registry's MySQL at ${host}:${mysqlPort} .*cannot be used: .*certificate`),
    );
    expect(error.message).not.toContain('\n');
    expect(error.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|HANDSHAKE_SSL_ERROR/);
  });

  it('a plaintext client is refused by the server: the start stops in one line', async () => {
    const error = (await startFrom(originalFile(undefined)).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toMatch(
      new RegExp(`^the oracle registry's MySQL at ${host}:${mysqlPort} .*cannot be used: `),
    );
    // MariaDB refuses a plaintext login as access denied; MySQL says insecure transport.
    expect(error.message).toMatch(/insecure transport|access denied/i);
    expect(error.message).not.toContain('\n');
  });

  const redisOf = (db: number) =>
    new Redis({ host, port: redisPort, db, tls: { ca: readFileSync(caFile, 'utf8') }, lazyConnect: true });

  it('inter-scheme lookups with the proxy cache on the TLS Redis', async () => {
    const db = 9 + Math.floor(Math.random() * 6);
    const redis = redisOf(db);
    await redis.connect();
    cleanups.push(async () => redis.disconnect());
    const proxyA = await startProxySim('proxyA', 'remotefsp', 'answers');
    const proxyB = await startProxySim('proxyB', 'farfsp', 'fails');
    cleanups.push(() => Promise.all([proxyA.close(), proxyB.close()]));
    const stack = await startStack({
      sims: {
        fsps: 5,
        participants: {
          proxyA: { endpointBase: proxyA.url, isProxy: true },
          proxyB: { endpointBase: proxyB.url, isProxy: true },
        },
      },
      config: {
        proxyCache: true,
        proxyCacheNodes: `${host}:${redisPort}`,
        proxyCacheDb: db,
        proxyCacheTls: 'verify',
        proxyCacheTlsCaFile: caFile,
        participantCacheTtlMs: 0,
      },
    });
    cleanups.push(() => stack.close());
    for (const proxy of [proxyA, proxyB]) proxy.setAlsUrl(stack.als.url);
    const id = `404${Date.now() % 10_000_000}`;
    const traceId = newTraceId();
    expect((await getParties(stack.als.url, `MSISDN/${id}`, traceId)).status).toBe(202);
    const callback = await stack.sims.payer?.waitForCallback(traceId, 5_000);
    expect(callback?.kind).toBe('success');
    expect(callback?.headers['fspiop-proxy']).toBe('proxyA');
    await settled(stack.als);
    expect(await redis.get('dfsp:remotefsp')).toBe('proxyA');
    await redis.del('dfsp:remotefsp');
  });

  it('the proxy cache: a plaintext client and an unverified certificate both stop the start in one line', async () => {
    const file = originalFile({ rejectUnauthorized: false });
    const on = {
      ALS_PROXY_CACHE: 'true',
      ALS_PROXY_CACHE_TYPE: 'redis',
      ALS_PROXY_CACHE_NODES: `${host}:${redisPort}`,
    };
    const plain = (await startFrom(file, { ...on, ALS_TIMEOUT_HANDLER: 'false' }).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(plain.message).toMatch(/^ALS_PROXY_CACHE=on .* cannot be reached/);
    expect(plain.message).not.toContain('\n');
    const untrusted = (await startFrom(file, {
      ...on,
      ALS_TIMEOUT_HANDLER: 'false',
      ALS_PROXY_CACHE_TLS: 'verify',
    }).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    // The server and why: the certificate, and the settings that fix it.
    expect(untrusted.message).toMatch(new RegExp(`redis at ${host}:${redisPort} .*cannot be used: .*certificate`));
    expect(untrusted.message).toContain('ALS_PROXY_CACHE_TLS_CA_FILE');
    expect(untrusted.message).not.toContain('\n');
  });
});
