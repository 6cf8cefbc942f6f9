import { mkdtemp, readFile, rm } from 'node:fs/promises';
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

  it('measures the CPU a busy process used', async () => {
    const meter = new CpuMeter(new Map([['self', process.pid]]));
    await meter.start();
    const until = performance.now() + 300;
    while (performance.now() < until) Math.sqrt(Math.random());
    const used = await meter.stop();
    expect(used.self).toBeGreaterThan(0.3);
  });
});
