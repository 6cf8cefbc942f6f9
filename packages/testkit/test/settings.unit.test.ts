import { describe, expect, it } from 'vitest';
import { loadInfraSettings, parseEnvFile } from '../src/index.js';

describe('infra settings', () => {
  it('takes infra/services.env defaults and lets the environment override them', () => {
    const settings = loadInfraSettings({ KAFKA_PORT: '19092', MYSQL_PORT: '13306', MYSQL_USER: 'someone' });
    expect(settings.kafka.brokers).toEqual(['127.0.0.1:19092']);
    expect(settings.mysql).toMatchObject({ host: '127.0.0.1', port: 13306, user: 'someone' });
    expect(Object.isFrozen(settings.mysql)).toBe(true);
    expect(loadInfraSettings({}).redis).toEqual({ host: '127.0.0.1', port: 6379 });
    expect(loadInfraSettings({ REDIS_PORT: '16379' }).redis.port).toBe(16379);
    // Bad input: a Redis port that is no port.
    expect(() => loadInfraSettings({ REDIS_PORT: '0' })).toThrow('REDIS_PORT must be a TCP port (1-65535), got "0"');
  });

  it('places the secure stack beside the plain servers, its certificates in the state directory', () => {
    const { tls } = loadInfraSettings({ MOJAFAST_STATE_DIR: '/tmp/state', KAFKA_SASL_PORT: '19193' });
    expect(tls).toMatchObject({
      dir: '/tmp/state/tls',
      caFile: '/tmp/state/tls/ca.pem',
      certFile: '/tmp/state/tls/server.pem',
      keyFile: '/tmp/state/tls/server-key.pem',
      clientCertFile: '/tmp/state/tls/client.pem',
      clientKeyFile: '/tmp/state/tls/client-key.pem',
      kafka: {
        sslBrokers: ['127.0.0.1:9192'],
        saslBrokers: ['127.0.0.1:19193'],
        mtlsBrokers: ['127.0.0.1:9194'],
        sasl: { username: 'mojafast', password: 'mojafast-secret' },
      },
      mysql: { host: '127.0.0.1', port: 3307 },
      redis: { host: '127.0.0.1', port: 6380 },
    });
    expect(Object.isFrozen(tls.kafka.sasl)).toBe(true);
    expect(loadInfraSettings({ TLS_DIR: '/etc/mojafast-tls' }).tls.clientKeyFile).toBe(
      '/etc/mojafast-tls/client-key.pem',
    );
    expect(loadInfraSettings({ MOJAFAST_STATE_DIR: '' }).tls.dir).toMatch(/\/\.infra\/tls$/);
    expect(() => loadInfraSettings({ MYSQL_TLS_PORT: '' })).toThrow(
      'MYSQL_TLS_PORT must be a TCP port (1-65535), got ""',
    );
  });

  it('names the bad key when a port is not a port', () => {
    expect(() => loadInfraSettings({ MYSQL_PORT: 'three' })).toThrow(
      'MYSQL_PORT must be a TCP port (1-65535), got "three"',
    );
  });

  it('rejects a services.env line that is not KEY=VALUE', () => {
    expect(() => parseEnvFile('KAFKA_PORT 9092')).toThrow('line "KAFKA_PORT 9092" is not KEY=VALUE');
  });
});
