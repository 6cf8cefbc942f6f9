import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDumpLine, readDump, writeDump } from '../src/position/dump.js';
import { CpuMeter } from '../src/system/cpu.js';
import { StatementMeter } from '../src/system/mysql-status.js';

describe('kcat dumps', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dump-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes and reads back key and value, splitting at the first delimiter only', async () => {
    const file = join(dir, 'dump.txt');
    const messages = [
      { key: '3', value: '{"a":"x|y","b":1}' },
      { key: null, value: '{"c":2}' },
    ];
    expect(await writeDump(file, messages, '|')).toBe(2);
    expect(await readFile(file, 'utf8')).toBe('3|{"a":"x|y","b":1}\n|{"c":2}\n');
    const read = [];
    for await (const m of readDump(file, '|')) read.push(m);
    expect(read).toEqual(messages);
  });

  it('rejects a line without the delimiter (bad input: a bare JSON line)', () => {
    expect(() => parseDumpLine('{"c":2}', '|')).toThrow('no key delimiter');
  });
});

describe('system meters', () => {
  let db: TestDatabase;
  let connection: mysql.Connection;
  beforeAll(async () => {
    db = await createDatabase({ prefix: 'bench-meter' });
    connection = await mysql.createConnection(db.connection);
  });
  afterAll(async () => {
    await connection?.end();
    await db?.drop();
  });

  it('counts the statements and commits the server ran between start and stop', async () => {
    const meter = new StatementMeter(connection);
    const worker = await mysql.createConnection(db.connection);
    await meter.start();
    await worker.query('CREATE TABLE t (id INT PRIMARY KEY)');
    for (let i = 0; i < 5; i++) {
      await worker.beginTransaction();
      await worker.query('INSERT INTO t VALUES (?)', [i]);
      await worker.commit();
    }
    const delta = await meter.stop();
    await worker.end();
    expect(delta.Com_insert).toBeGreaterThanOrEqual(5);
    expect(delta.Com_commit).toBeGreaterThanOrEqual(5);
    expect(delta.Questions).toBeGreaterThanOrEqual(16);
  });

  it('measures the CPU a busy process used, as the process itself accounts it', async () => {
    const meter = new CpuMeter(new Map([['self', process.pid]]));
    await meter.start();
    const startedAt = performance.now();
    const before = process.cpuUsage();
    while (performance.now() < startedAt + 500) Math.sqrt(Math.random());
    const own = process.cpuUsage(before);
    const wallSeconds = (performance.now() - startedAt) / 1000;
    const used = await meter.stop();
    const expected = (own.user + own.system) / 1e6 / wallSeconds;
    expect(expected).toBeGreaterThan(0.05);
    // /proc counts in 10 ms ticks: over half a second that is within a few hundredths of a core.
    expect(used.self).toBeGreaterThan(expected - 0.1);
    expect(used.self).toBeLessThan(expected + 0.1);
  });
});

describe('notification metadata', () => {
  it('reads correlationId, action and status from the captured central-ledger notifications', async () => {
    const { metadataOf } = await import('../src/position/notifications.js');
    // Captured from central-ledger 19.5.5's position handler, kept here as fixtures.
    const examples = new URL('./fixtures/', import.meta.url);
    for (const [file, action, status] of [
      ['notif-prepare-example.json', 'prepare', 'success'],
      ['notif-commit-example.json', 'commit', 'success'],
      ['notif-prepare-limit-error.json', 'prepare', 'error'],
    ] as const) {
      const message = JSON.parse(await readFile(new URL(file, examples), 'utf8'));
      const value = message.value ?? message;
      // As text and as the bytes the Kafka client hands over.
      for (const metadata of [metadataOf(JSON.stringify(value)), metadataOf(Buffer.from(JSON.stringify(value)))]) {
        expect(metadata?.correlationId).toBe(value.metadata.correlationId);
        expect(metadata?.event?.action).toBe(action);
        expect(metadata?.event?.state?.status).toBe(status);
      }
    }
  });

  it('falls back to the whole message when metadata is not its last member (bad input: reordered envelope)', async () => {
    const { metadataOf } = await import('../src/position/notifications.js');
    const text = JSON.stringify({ metadata: { correlationId: 't9', event: { action: 'commit' } }, id: 't9' });
    expect(metadataOf(text)?.correlationId).toBe('t9');
    expect(metadataOf(Buffer.from(text))?.correlationId).toBe('t9');
  });
});

describe('replay record encoding', () => {
  it('computes CRC-32C (Castagnoli) as Kafka checks it: the standard check value and kafkajs agree', async () => {
    const { crc32c } = await import('../src/position/crc32c.js');
    // RFC 3720 B.4 check value of "123456789".
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    const require = createRequire(import.meta.url);
    const kafkajsCrc = require(require.resolve('kafkajs/src/protocol/recordBatch/crc32C/index.js')) as (
      buffer: Buffer,
    ) => number;
    const odd = Buffer.from(Array.from({ length: 1999 }, (_, i) => (i * 31 + 7) & 0xff));
    expect(crc32c(odd)).toBe(kafkajsCrc(odd) >>> 0);
    expect(crc32c(odd, 3, 1000)).toBe(kafkajsCrc(odd.subarray(3, 1000)) >>> 0);
  });
});
