import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Kafka, logLevel } from 'kafkajs';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDatabase,
  createTopic,
  type KafkaSecurity,
  loadInfraSettings,
  readTlsCredentials,
  type TestDatabase,
  type TestTopic,
  testKafka,
} from '../src/index.js';

// The secure stack (`infra/svc start --tls`, run by the global setup): each server serves a TLS client and
// refuses a plaintext one, so a service's test can count on both.
const settings = loadInfraSettings();
const { ca } = readTlsCredentials(settings);

/** A kafkajs client that gives up at once: the refusals below must fail fast, not after retries. */
function impatientKafka(config: Omit<ConstructorParameters<typeof Kafka>[0], 'clientId'>): Kafka {
  return new Kafka({
    clientId: 'mojafast-secure-stack',
    connectionTimeout: 3_000,
    authenticationTimeout: 3_000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
    ...config,
  });
}

describe('the TLS Kafka', () => {
  let topic: TestTopic;

  beforeAll(async () => {
    topic = await createTopic({ prefix: 'secure-stack', secure: true });
  });

  afterAll(async () => {
    await topic?.drop();
  });

  const securities: KafkaSecurity[] = ['ssl', 'sasl-plain', 'sasl-scram-sha-256', 'sasl-scram-sha-512', 'mtls'];
  it.each(securities)('gives back what was produced over %s', async (security) => {
    const kafka = testKafka(settings, `mojafast-secure-${security}`, security);
    const producer = kafka.producer();
    const consumer = kafka.consumer({ groupId: `${topic.name}-${security}` });
    await Promise.all([producer.connect(), consumer.connect()]);
    try {
      await consumer.subscribe({ topic: topic.name, fromBeginning: true });
      const value = `over ${security}`;
      const received = new Promise<string>((resolve) => {
        void consumer.run({
          eachMessage: async ({ message }) => {
            if (String(message.value) === value) resolve(value);
          },
        });
      });
      await producer.send({ topic: topic.name, messages: [{ key: security, value }] });
      expect(await received).toBe(value);
    } finally {
      await Promise.all([producer.disconnect(), consumer.disconnect()]);
    }
  });

  it('holds the KAFKA_TOPICS topics, as the plain broker does', async () => {
    const admin = testKafka(settings, 'mojafast-secure-topics', 'ssl').admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: ['topic-transfer-position-batch'] });
      expect(topics[0]?.partitions).toHaveLength(4);
    } finally {
      await admin.disconnect();
    }
  });

  it('refuses a plaintext client on its SSL and its SASL_SSL listener', async () => {
    for (const brokers of [settings.tls.kafka.sslBrokers, settings.tls.kafka.saslBrokers]) {
      const admin = impatientKafka({ brokers: [...brokers] }).admin();
      await expect(admin.connect()).rejects.toThrow();
      await admin.disconnect();
    }
  });

  it('refuses a wrong SASL password, and a client without a certificate on the listener that requires one', async () => {
    const { saslBrokers, mtlsBrokers, sasl } = settings.tls.kafka;
    const wrong = impatientKafka({
      brokers: [...saslBrokers],
      ssl: { ca },
      sasl: { mechanism: 'scram-sha-512', username: sasl.username, password: `${sasl.password}-wrong` },
    }).admin();
    await expect(wrong.connect()).rejects.toThrow(/SASL SCRAM SHA512 authentication failed/);
    await wrong.disconnect();
    const anonymous = impatientKafka({ brokers: [...mtlsBrokers], ssl: { ca } }).admin();
    await expect(anonymous.connect()).rejects.toThrow();
    await anonymous.disconnect();
  });
});

describe('the TLS MariaDB', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createDatabase({ prefix: 'secure-stack', secure: true });
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('takes a TLS connection that checks its certificate, and requires secure transport', async () => {
    expect(db.connection).toMatchObject({ port: settings.tls.mysql.port, ssl: { ca } });
    const connection = await mysql.createConnection(db.connection);
    try {
      const [status] = await connection.query<mysql.RowDataPacket[]>("SHOW SESSION STATUS LIKE 'Ssl_version'");
      expect(status[0]?.Value).toMatch(/^TLSv1\.[23]$/);
      const [rows] = await connection.query<mysql.RowDataPacket[]>('SELECT @@require_secure_transport AS required');
      expect(Number(rows[0]?.required)).toBe(1);
      await connection.query('CREATE TABLE t (id INT PRIMARY KEY)');
      await connection.query('INSERT INTO t VALUES (1)');
      const [read] = await connection.query<mysql.RowDataPacket[]>('SELECT id FROM t');
      expect(read.map((r) => r.id)).toEqual([1]);
    } finally {
      await connection.end();
    }
  });

  it('refuses the same user over plaintext', async () => {
    const { user, password } = settings.mysql;
    const { host, port } = settings.tls.mysql;
    // MariaDB answers an insecure login under require_secure_transport as a denied one (MySQL: 3159).
    await expect(mysql.createConnection({ host, port, user, password })).rejects.toMatchObject({
      code: expect.stringMatching(/^(ER_ACCESS_DENIED_ERROR|ER_SECURE_TRANSPORT_REQUIRED)$/),
    });
  });

  it("holds the originals' users and central-ledger's schema on its default database", async () => {
    const { host, port } = settings.tls.mysql;
    const connection = await mysql.createConnection({
      host,
      port,
      user: 'central_ledger',
      password: 'password',
      database: 'central_ledger',
      ssl: { ca },
    });
    try {
      const [rows] = await connection.query<mysql.RowDataPacket[]>("SELECT name FROM participant WHERE name = 'Hub'");
      expect(rows).toHaveLength(1);
    } finally {
      await connection.end();
    }
  });
});

describe('the TLS Redis', () => {
  const { host, port } = settings.tls.redis;

  /** Everything the server sends after PING until it closes or 3 s pass. */
  function answerTo(socket: import('node:net').Socket, ready: string): Promise<string> {
    return new Promise((resolve, reject) => {
      let answer = '';
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(answer);
      }, 3_000);
      socket.on(ready, () => socket.write('PING\r\n'));
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString('latin1');
        if (answer.includes('\r\n')) {
          clearTimeout(timer);
          socket.end();
          resolve(answer);
        }
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(answer);
      });
      socket.on('timeout', () => reject(new Error('timeout')));
    });
  }

  it('answers PING over TLS, its certificate checked against the CA', async () => {
    const socket = tlsConnect({ host, port, ca, servername: 'localhost' });
    expect(await answerTo(socket, 'secureConnect')).toBe('+PONG\r\n');
  });

  it('refuses a plaintext client', async () => {
    const socket = tcpConnect({ host, port });
    expect(await answerTo(socket, 'connect')).not.toContain('PONG');
  });
});
