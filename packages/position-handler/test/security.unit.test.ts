import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkajsConnection } from '../src/bus/kafkajs-bus.js';
import { platformaticConnection } from '../src/bus/platformatic-connection.js';
import { ConfigError, readConfig } from '../src/config/index.js';
import { busOptionsFromConfig } from '../src/main.js';
import { createLogger } from '../src/observe/logger.js';
import { dbSsl, kafkaSecurity, secureConnectFailure } from '../src/security.js';
import { renderedFile } from './chart-fixtures.js';

// The chart's rendered default.json (central-ledger's keys as a deployment has them), with a secure
// deployment's keys added in the consumer's and both producers' rdkafkaConf, as Mojaloop's secure values do.
// biome-ignore lint/suspicious/noExplicitAny: edits of a JSON file written back as JSON
type Json = any;
const consumer = ['KAFKA', 'CONSUMER', 'TRANSFER', 'POSITION_BATCH'];
const producers = [
  ['KAFKA', 'PRODUCER', 'NOTIFICATION', 'EVENT'],
  ['KAFKA', 'PRODUCER', 'TRANSFER', 'POSITION'],
];
const rdkafka = (tree: Json, block: string[]) => block.reduce((at, key) => at[key], tree).config.rdkafkaConf;
const PEM = (what: string) => `-----BEGIN ${what}-----\nMIIB\n-----END ${what}-----\n`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'position-security-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let written = 0;
function file(edit: (tree: Json) => void): string {
  const tree = JSON.parse(readFileSync(renderedFile, 'utf8'));
  edit(tree);
  const path = join(dir, `default-${written++}.json`);
  writeFileSync(path, JSON.stringify(tree));
  return path;
}
/** The same keys in the consumer's and both producers' rdkafkaConf. */
const everywhere = (keys: Record<string, unknown>) => (tree: Json) => {
  for (const block of [consumer, ...producers]) Object.assign(rdkafka(tree, block), keys);
};
const load = (path: string, env: NodeJS.ProcessEnv = {}) => readConfig({ CONFIG_FILE: path, ...env });
const failure = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('no ConfigError');
};
const noFiles = (path: string): string => {
  throw new Error(`read ${path}`);
};

describe("the original's rdkafka TLS and SASL keys", () => {
  it('security.protocol ssl with enable.ssl.certificate.verification false: TLS taking any certificate, on both clients', () => {
    const { config, notHonoured } = load(
      file(everywhere({ 'security.protocol': 'ssl', 'enable.ssl.certificate.verification': false })),
    );
    expect(config).toMatchObject({ kafkaSecurityProtocol: 'ssl', kafkaSslVerify: false, kafkaSslHostnameCheck: true });
    expect(notHonoured.filter((key) => /ssl|security/.test(key))).toEqual([]);
    const security = kafkaSecurity(config, noFiles);
    expect(security).toEqual({ tls: { rejectUnauthorized: false }, sasl: undefined, serverName: true });
    expect(platformaticConnection(security)).toEqual({ tls: { rejectUnauthorized: false }, tlsServerName: true });
    expect(kafkajsConnection(security)).toEqual({ ssl: { rejectUnauthorized: false } });
    const options = busOptionsFromConfig(config, createLogger('error'));
    expect(options.security).toEqual(security);
  });

  it('files, PEM text, key password and the host name check, as librdkafka reads them (its enum values in any case)', () => {
    const files = { '/etc/kafka/ca.pem': PEM('CERTIFICATE'), '/etc/kafka/client.pem': PEM('CERTIFICATE') };
    const { config } = load(
      file(
        everywhere({
          'security.protocol': 'SSL',
          'ssl.ca.location': '/etc/kafka/ca.pem',
          'ssl.certificate.location': '/etc/kafka/client.pem',
          'ssl.key.pem': PEM('PRIVATE KEY'),
          'ssl.key.password': 'k3y',
          'ssl.endpoint.identification.algorithm': 'None',
        }),
      ),
    );
    expect(config).toMatchObject({
      kafkaSecurityProtocol: 'ssl',
      kafkaSslCaFile: '/etc/kafka/ca.pem',
      kafkaSslCertFile: '/etc/kafka/client.pem',
      kafkaSslKeyPem: PEM('PRIVATE KEY'),
      kafkaSslKeyPassword: 'k3y',
      kafkaSslVerify: true,
      kafkaSslHostnameCheck: false,
    });
    const security = kafkaSecurity(config, (path) => files[path as keyof typeof files] ?? noFiles(path));
    const { checkServerIdentity, ...tls } = security.tls ?? {};
    expect(tls).toEqual({
      rejectUnauthorized: true,
      ca: PEM('CERTIFICATE'),
      cert: PEM('CERTIFICATE'),
      key: PEM('PRIVATE KEY'),
      passphrase: 'k3y',
    });
    // The chain is verified, the name is not: Node's identity check answers "fine".
    expect(checkServerIdentity?.('kafka', {} as never)).toBeUndefined();
    // https (librdkafka's default since 2.0.0): Node's own check stays.
    const https = load(file(everywhere({ 'security.protocol': 'ssl' }))).config;
    expect(kafkaSecurity(https, noFiles).tls).toEqual({ rejectUnauthorized: true });
  });

  it.each([
    ['PLAIN', 'plain'],
    ['SCRAM-SHA-256', 'scram-sha-256'],
    ['scram-sha-512', 'scram-sha-512'],
  ])('sasl_ssl with sasl.mechanisms %s, sasl.username and sasl.password', (mechanism, kafkajs) => {
    const { config } = load(
      file(
        everywhere({
          'security.protocol': 'sasl_ssl',
          'sasl.mechanisms': mechanism,
          'sasl.username': 'mojafast',
          'sasl.password': 'mojafast-secret',
          'ssl.ca.pem': PEM('CERTIFICATE'),
        }),
      ),
    );
    const upper = mechanism.toUpperCase();
    expect(config).toMatchObject({ kafkaSecurityProtocol: 'sasl_ssl', kafkaSaslMechanism: upper });
    const security = kafkaSecurity(config, noFiles);
    const sasl = { mechanism: upper, username: 'mojafast', password: 'mojafast-secret' };
    expect(security.sasl).toEqual(sasl);
    expect(platformaticConnection(security)).toEqual({
      tls: { rejectUnauthorized: true, ca: PEM('CERTIFICATE') },
      tlsServerName: true,
      sasl,
    });
    expect(kafkajsConnection(security)).toEqual({
      ssl: { rejectUnauthorized: true, ca: PEM('CERTIFICATE') },
      sasl: { ...sasl, mechanism: kafkajs },
    });
  });

  it('sasl_plaintext: SASL without TLS; sasl.mechanism, librdkafka alias, is read too', () => {
    const { config } = load(
      file(
        everywhere({
          'security.protocol': 'sasl_plaintext',
          'sasl.mechanism': 'PLAIN',
          'sasl.username': 'u',
          'sasl.password': 'p',
        }),
      ),
    );
    const security = kafkaSecurity(config, noFiles);
    expect(platformaticConnection(security)).toEqual({ sasl: { mechanism: 'PLAIN', username: 'u', password: 'p' } });
  });

  it('as CLEDG_ variables, over the file; our variables win over both', () => {
    const base = file(() => {});
    const env = {
      'CLEDG_KAFKA__CONSUMER__TRANSFER__POSITION_BATCH__config__rdkafkaConf__security.protocol': 'ssl',
      'CLEDG_KAFKA__CONSUMER__TRANSFER__POSITION_BATCH__config__rdkafkaConf__enable.ssl.certificate.verification':
        'false',
      'CLEDG_KAFKA__PRODUCER__NOTIFICATION__EVENT__config__rdkafkaConf__security.protocol': 'ssl',
      'CLEDG_KAFKA__PRODUCER__NOTIFICATION__EVENT__config__rdkafkaConf__enable.ssl.certificate.verification': 'false',
      'CLEDG_KAFKA__PRODUCER__TRANSFER__POSITION__config__rdkafkaConf__security.protocol': 'ssl',
      'CLEDG_KAFKA__PRODUCER__TRANSFER__POSITION__config__rdkafkaConf__enable.ssl.certificate.verification': 'false',
    };
    expect(load(base, env).config).toMatchObject({ kafkaSecurityProtocol: 'ssl', kafkaSslVerify: false });
    expect(load(base, { ...env, POSITION_KAFKA_SSL_VERIFY: 'true' }).config.kafkaSslVerify).toBe(true);
  });

  it('consumer and producer blocks that disagree stop the start naming both keys', () => {
    const onlyConsumer = file((tree) => {
      rdkafka(tree, consumer)['security.protocol'] = 'ssl';
    });
    expect(failure(() => load(onlyConsumer))).toBe(
      'KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.rdkafkaConf.security.protocol and KAFKA.PRODUCER.NOTIFICATION.EVENT.config.rdkafkaConf.security.protocol differ ("ssl" and unset): the consumer and the producers share one connection setup here, so they must say the same',
    );
    const verification = file((tree) => {
      everywhere({ 'security.protocol': 'ssl', 'enable.ssl.certificate.verification': false })(tree);
      rdkafka(tree, producers[1] as string[])['enable.ssl.certificate.verification'] = true;
    });
    expect(failure(() => load(verification))).toMatch(
      /^KAFKA\.CONSUMER\.TRANSFER\.POSITION_BATCH\.config\.rdkafkaConf\.enable\.ssl\.certificate\.verification and KAFKA\.PRODUCER\.TRANSFER\.POSITION\.config\.rdkafkaConf\.enable\.ssl\.certificate\.verification differ \("false" and "true"\)/,
    );
    // A secret is never shown.
    const password = file((tree) => {
      everywhere({ 'security.protocol': 'sasl_ssl', 'sasl.mechanisms': 'PLAIN', 'sasl.username': 'u' })(tree);
      rdkafka(tree, consumer)['sasl.password'] = 'secret-one';
      rdkafka(tree, producers[0] as string[])['sasl.password'] = 'secret-two';
    });
    const message = failure(() => load(password));
    expect(message).toContain('(given and given)');
    expect(message).not.toMatch(/secret-/);
    // The same meaning in other words is no disagreement: unset and librdkafka's default.
    const same = file((tree) => {
      everywhere({ 'security.protocol': 'ssl' })(tree);
      rdkafka(tree, consumer)['enable.ssl.certificate.verification'] = true;
    });
    expect(load(same).config.kafkaSslVerify).toBe(true);
  });

  it('refuses what cannot work, naming the key: a bad value, SASL without mechanism or login, both file and PEM', () => {
    expect(failure(() => load(file(everywhere({ 'security.protocol': 'tls' }))))).toMatch(
      /^KAFKA\.CONSUMER\.TRANSFER\.POSITION_BATCH\.config\.rdkafkaConf\.security\.protocol must be plaintext, ssl, sasl_plaintext or sasl_ssl, got "tls"/,
    );
    expect(
      failure(() => load(file(everywhere({ 'security.protocol': 'sasl_ssl', 'sasl.mechanisms': 'GSSAPI' })))),
    ).toMatch(/sasl\.mechanisms must be PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 \(GSSAPI and OAUTHBEARER are not offered/);
    expect(failure(() => load(file(everywhere({ 'security.protocol': 'sasl_ssl' }))))).toMatch(
      /^POSITION_KAFKA_SASL_MECHANISM must be set with KAFKA\.CONSUMER\.TRANSFER\.POSITION_BATCH\.config\.rdkafkaConf\.security\.protocol=sasl_ssl/,
    );
    expect(
      failure(() => load(file(everywhere({ 'security.protocol': 'sasl_ssl', 'sasl.mechanisms': 'PLAIN' })))),
    ).toMatch(/^POSITION_KAFKA_SASL_USERNAME must be set with .*sasl\.mechanisms=PLAIN/);
    expect(
      failure(() =>
        load(
          file(everywhere({ 'security.protocol': 'ssl', 'ssl.ca.location': '/a', 'ssl.ca.pem': PEM('CERTIFICATE') })),
        ),
      ),
    ).toMatch(/ssl\.ca\.location and .*ssl\.ca\.pem are both set/);
    expect(failure(() => load(file(everywhere({ 'ssl.ca.location': '/a' }))))).toMatch(
      /ssl\.ca\.location is set but POSITION_KAFKA_SECURITY_PROTOCOL is not ssl or sasl_ssl/,
    );
    expect(
      failure(() => readConfig({ POSITION_KAFKA_SECURITY_PROTOCOL: 'ssl', POSITION_KAFKA_SSL_CERT_FILE: '/c' })),
    ).toMatch(/^POSITION_KAFKA_SSL_CERT_FILE needs POSITION_KAFKA_SSL_KEY_FILE or POSITION_KAFKA_SSL_KEY_PEM too/);
  });

  it('a file that cannot be read stops the start naming the setting and the path', () => {
    const { config } = readConfig(
      { POSITION_KAFKA_SECURITY_PROTOCOL: 'ssl', POSITION_KAFKA_SSL_CA_FILE: join(dir, 'missing.pem') },
      { defaultFile: '/nonexistent/default.json' },
    );
    expect(() => kafkaSecurity(config)).toThrow(
      new RegExp(`^POSITION_KAFKA_SSL_CA_FILE names ${join(dir, 'missing.pem')}, which cannot be read: ENOENT`),
    );
    expect(() =>
      kafkaSecurity(readConfig({ POSITION_KAFKA_SECURITY_PROTOCOL: 'ssl', POSITION_KAFKA_SSL_CA_FILE: dir }).config),
    ).toThrow(/is a directory, not a PEM file/);
  });

  it('the TLS keys it does not honour are named in the warning; no SNI when every broker is an address', () => {
    const { config, notHonoured } = load(
      file((tree) => {
        everywhere({ 'security.protocol': 'ssl', 'ssl.cipher.suites': 'HIGH', 'ssl.keystore.location': '/k.p12' })(
          tree,
        );
        for (const block of [consumer, ...producers]) rdkafka(tree, block)['metadata.broker.list'] = '127.0.0.1:9192';
      }),
    );
    expect(notHonoured).toContain('KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.rdkafkaConf.ssl.cipher.suites');
    expect(notHonoured).toContain('KAFKA.CONSUMER.TRANSFER.POSITION_BATCH.config.rdkafkaConf.ssl.keystore.location');
    expect(notHonoured).toContain('KAFKA.PRODUCER.NOTIFICATION.EVENT.config.rdkafkaConf.ssl.cipher.suites');
    expect(notHonoured).not.toContain('KAFKA.PRODUCER.NOTIFICATION.EVENT.config.rdkafkaConf.security.protocol');
    expect(kafkaSecurity(config, noFiles).serverName).toBe(false);
  });
});

describe("the original's DATABASE.ADDITIONAL_CONNECTION_OPTIONS", () => {
  const withOptions = (options: unknown) =>
    file((tree) => {
      tree.DATABASE.ADDITIONAL_CONNECTION_OPTIONS = options;
    });

  it('ssl {rejectUnauthorized: false}: TLS taking any certificate', () => {
    const { config, notHonoured } = load(withOptions({ ssl: { rejectUnauthorized: false } }));
    expect(config.dbSsl).toBe('on');
    expect(notHonoured.filter((key) => key.includes('ADDITIONAL'))).toEqual([]);
    expect(dbSsl(config, noFiles)).toEqual({ rejectUnauthorized: false, verifyIdentity: false });
  });

  it('ssl with ca, cert, key and passphrase (PEM text, one or a list), verifyIdentity; connectTimeout', () => {
    const { config } = load(
      withOptions({
        ssl: {
          ca: [PEM('CERTIFICATE'), PEM('CERTIFICATE')],
          cert: PEM('CERTIFICATE'),
          key: PEM('PRIVATE KEY'),
          passphrase: 'k',
          verifyIdentity: true,
        },
        connectTimeout: 2500,
      }),
    );
    expect(config).toMatchObject({ dbSsl: 'verify-identity', dbConnectTimeoutMs: 2500 });
    expect(dbSsl(config, noFiles)).toEqual({
      rejectUnauthorized: true,
      verifyIdentity: true,
      ca: `${PEM('CERTIFICATE')}\n${PEM('CERTIFICATE')}`,
      cert: PEM('CERTIFICATE'),
      key: PEM('PRIVATE KEY'),
      passphrase: 'k',
    });
    // An object without rejectUnauthorized verifies, as mysql2 does.
    expect(load(withOptions({ ssl: {} })).config.dbSsl).toBe('verify');
  });

  it("a mysql2 profile's name; false turns TLS off; CLEDG_ variables as text", () => {
    const profile = load(withOptions({ ssl: 'Amazon RDS' })).config;
    expect(profile).toMatchObject({ dbSsl: 'verify', dbSslProfile: 'Amazon RDS' });
    expect(dbSsl(profile, noFiles)).toBe('Amazon RDS');
    expect(load(withOptions({ ssl: false })).config.dbSsl).toBe('off');
    const env = { CLEDG_DATABASE__ADDITIONAL_CONNECTION_OPTIONS__ssl__rejectUnauthorized: 'false' };
    expect(
      load(
        file(() => {}),
        env,
      ).config.dbSsl,
    ).toBe('on');
    expect(failure(() => load(withOptions({ ssl: 'RDS' })))).toMatch(
      /^DATABASE\.ADDITIONAL_CONNECTION_OPTIONS\.ssl must be an object .* or the name of a mysql2 profile \(Amazon RDS\), got "RDS"/,
    );
    expect(failure(() => load(withOptions({ ssl: true })))).toMatch(/ssl must be an object or the name/);
  });

  it('our own settings: files read at start, PEM text, modes', () => {
    const files: Record<string, string> = { '/db/ca.pem': PEM('CERTIFICATE'), '/db/key.pem': PEM('PRIVATE KEY') };
    const { config } = readConfig(
      {
        POSITION_DB_SSL: 'verify',
        POSITION_DB_SSL_CA_FILE: '/db/ca.pem',
        POSITION_DB_SSL_CERT_PEM: PEM('CERTIFICATE'),
        POSITION_DB_SSL_KEY_FILE: '/db/key.pem',
      },
      { defaultFile: '/nonexistent/default.json' },
    );
    expect(dbSsl(config, (path) => files[path] ?? noFiles(path))).toEqual({
      rejectUnauthorized: true,
      verifyIdentity: false,
      ca: PEM('CERTIFICATE'),
      cert: PEM('CERTIFICATE'),
      key: PEM('PRIVATE KEY'),
    });
    expect(dbSsl(readConfig({}, { defaultFile: '/nonexistent/default.json' }).config, noFiles)).toBeUndefined();
    expect(failure(() => readConfig({ POSITION_DB_SSL_CA_FILE: '/db/ca.pem' }))).toMatch(
      /^POSITION_DB_SSL_CA_FILE is set but POSITION_DB_SSL is not on, verify or verify-identity/,
    );
    expect(failure(() => readConfig({ POSITION_DB_SSL: 'on', POSITION_DB_SSL_PROFILE: 'Amazon RDS' }))).toMatch(
      /^POSITION_DB_SSL_PROFILE takes POSITION_DB_SSL=verify/,
    );
  });

  it('its other keys are named in the warning', () => {
    const { notHonoured } = load(withOptions({ ssl: { rejectUnauthorized: false, ciphers: 'HIGH' }, charset: 'utf8' }));
    expect(notHonoured).toContain('DATABASE.ADDITIONAL_CONNECTION_OPTIONS.ssl.ciphers');
    expect(notHonoured).toContain('DATABASE.ADDITIONAL_CONNECTION_OPTIONS.charset');
  });
});

describe('a secure connection refused', () => {
  it("is found inside the clients' nested errors and said in one line naming the host and the reason", () => {
    const tls = Object.assign(new Error('self-signed certificate in certificate chain'), {
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
    });
    const nested = new AggregateError(
      [new Error('Connection to 127.0.0.1:9192 failed.', { cause: tls })],
      'Cannot connect to any broker.',
    );
    const found = secureConnectFailure(nested, 'Kafka', 'brokers 127.0.0.1:9192');
    expect(found?.message).toBe(
      'Kafka brokers 127.0.0.1:9192: secure connection failed: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)',
    );
    expect(found?.code).toBe('POSITION_SECURE_CONNECT');
    expect(found?.cause).toBe(nested);
    const required = Object.assign(
      new Error('Connections using insecure transport are prohibited while --require_secure_transport=ON.'),
      { code: 'ER_SECURE_TRANSPORT_REQUIRED' },
    );
    expect(secureConnectFailure(required, 'database', '127.0.0.1:3307')?.message).toMatch(
      /^database 127\.0\.0\.1:3307: secure connection failed: Connections using insecure transport/,
    );
    // A server that is down is waited for, not a secure failure.
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3307'), { code: 'ECONNREFUSED' });
    expect(secureConnectFailure(down, 'database', '127.0.0.1:3307')).toBeUndefined();
  });
});
