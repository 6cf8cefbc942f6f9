import type { Consumer, Producer } from 'kafkajs';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, createTopic, type TestDatabase, type TestTopic, testKafka } from '../src/index.js';

// The plumbing every other test stands on, with the real broker and the real server.

describe('real Kafka broker', () => {
  let topic: TestTopic;
  let producer: Producer;
  let consumer: Consumer;

  beforeAll(async () => {
    topic = await createTopic({ prefix: 'plumbing', partitions: 2 });
    const kafka = testKafka();
    producer = kafka.producer();
    consumer = kafka.consumer({ groupId: `${topic.name}-group` });
    await Promise.all([producer.connect(), consumer.connect()]);
  });

  afterAll(async () => {
    await Promise.all([producer?.disconnect(), consumer?.disconnect()]);
    await topic?.drop();
  });

  it('gives back what was produced, with its key, on the partition the key chose', async () => {
    const sent = Array.from({ length: 20 }, (_, i) => ({ key: `account-${i % 4}`, value: `message-${i}` }));
    await consumer.subscribe({ topic: topic.name, fromBeginning: true });
    const received: { key: string; value: string; partition: number }[] = [];
    const done = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message, partition }) => {
          received.push({ key: String(message.key), value: String(message.value), partition });
          if (received.length === sent.length) resolve();
        },
      });
    });
    await producer.send({ topic: topic.name, messages: sent });
    await done;

    expect(received.map((m) => m.value).sort()).toEqual(sent.map((m) => m.value).sort());
    const partitionsByKey = new Map<string, Set<number>>();
    for (const m of received) partitionsByKey.set(m.key, (partitionsByKey.get(m.key) ?? new Set()).add(m.partition));
    for (const partitions of partitionsByKey.values()) expect(partitions.size).toBe(1);
    // Within one key, order is the order of production.
    const forKey0 = received.filter((m) => m.key === 'account-0').map((m) => m.value);
    expect(forKey0).toEqual(sent.filter((m) => m.key === 'account-0').map((m) => m.value));
  });

  it('deletes the topic on drop', async () => {
    const extra = await createTopic({ prefix: 'plumbing-drop' });
    const admin = testKafka().admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).toContain(extra.name);
      await extra.drop();
      expect(await admin.listTopics()).not.toContain(extra.name);
    } finally {
      await admin.disconnect();
    }
  });
});

describe('real MySQL-compatible server', () => {
  let db: TestDatabase;
  let connection: mysql.Connection;

  beforeAll(async () => {
    db = await createDatabase({ prefix: 'plumbing' });
    connection = await mysql.createConnection(db.connection);
  });

  afterAll(async () => {
    await connection?.end();
    await db?.drop();
  });

  it('creates a table, writes a row in a committed transaction and reads it back exactly', async () => {
    await connection.query(
      'CREATE TABLE participantPosition (participantPositionId BIGINT UNSIGNED PRIMARY KEY AUTO_INCREMENT, value DECIMAL(18,4) NOT NULL) ENGINE=InnoDB',
    );
    await connection.beginTransaction();
    await connection.query('INSERT INTO participantPosition (value) VALUES (?)', ['12345678901234.5678']);
    await connection.commit();
    const [rows] = await connection.query<mysql.RowDataPacket[]>('SELECT value FROM participantPosition');
    expect(rows.map((r) => r.value)).toEqual(['12345678901234.5678']);
  });

  it('drops the database on drop', async () => {
    const extra = await createDatabase({ prefix: 'plumbing-drop' });
    const [before] = await connection.query<mysql.RowDataPacket[]>('SHOW DATABASES LIKE ?', [extra.name]);
    expect(before).toHaveLength(1);
    await extra.drop();
    const [after] = await connection.query<mysql.RowDataPacket[]>('SHOW DATABASES LIKE ?', [extra.name]);
    expect(after).toHaveLength(0);
  });
});
