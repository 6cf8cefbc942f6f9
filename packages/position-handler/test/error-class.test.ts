import { createServer } from 'node:net';
import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyError, summarizeError } from '../src/observe/error-class.js';
import { createLogger } from '../src/observe/logger.js';

/** The errors the database and the network really raise, classified as the runner reports them. */
describe('error classes (real MariaDB and socket errors)', () => {
  let db: TestDatabase;
  const connections: mysql.Connection[] = [];
  const connect = async () => {
    const connection = await mysql.createConnection({ ...db.connection, multipleStatements: true });
    connections.push(connection);
    return connection;
  };
  const failure = (work: Promise<unknown>) =>
    work.then(
      () => {
        throw new Error('expected a failure');
      },
      (error: unknown) => error,
    );

  beforeAll(async () => {
    db = await createDatabase({ prefix: 'position_errors' });
    const c = await connect();
    await c.query('CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB; INSERT INTO t VALUES (1, 1)');
  });
  afterAll(async () => {
    for (const c of connections) c.destroy();
    await db?.drop();
  });

  it('permanent: an unknown column, a duplicate key, a NOT NULL refused, a syntax error, a bug in our code', async () => {
    const c = await connect();
    const unknown = await failure(c.query('INSERT INTO t (id, nosuch) VALUES (2, 1)'));
    expect(summarizeError(unknown)).toMatchObject({ class: 'permanent', code: 'ER_BAD_FIELD_ERROR', errno: 1054 });
    expect(classifyError(await failure(c.query('INSERT INTO t VALUES (1, 1)')))).toBe('permanent');
    expect(classifyError(await failure(c.query('INSERT INTO t VALUES (3, NULL)')))).toBe('permanent');
    expect(classifyError(await failure(c.query('INSER INTO t VALUES (4, 1)')))).toBe('permanent');
    expect(summarizeError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toMatchObject({
      class: 'permanent',
      type: 'TypeError',
    });
  });

  it('transient: a lock wait timeout, a read-only transaction, a killed connection, a refused connect, a cause that is one', async () => {
    const holder = await connect();
    const waiter = await connect();
    await holder.query('START TRANSACTION; SELECT * FROM t WHERE id = 1 FOR UPDATE');
    await waiter.query('SET SESSION innodb_lock_wait_timeout = 1');
    const lockWait = await failure(waiter.query('UPDATE t SET v = 2 WHERE id = 1'));
    expect(summarizeError(lockWait)).toMatchObject({ class: 'transient', errno: 1205 });
    await holder.query('ROLLBACK');

    await waiter.query('START TRANSACTION READ ONLY');
    const readOnly = await failure(waiter.query('UPDATE t SET v = 3 WHERE id = 1'));
    expect(summarizeError(readOnly)).toMatchObject({ class: 'transient', errno: 1792 });
    await waiter.query('ROLLBACK');

    const victim = await connect();
    const [[{ id }]] = (await victim.query('SELECT CONNECTION_ID() AS id')) as unknown as [[{ id: number }]];
    await holder.query(`KILL ${id}`);
    expect(classifyError(await failure(victim.query('SELECT 1')))).toBe('transient');

    // A port nothing listens on: bound, then closed.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const refused = await failure(mysql.createConnection({ ...db.connection, host: '127.0.0.1', port }));
    expect(summarizeError(refused)).toMatchObject({ class: 'transient', code: 'ECONNREFUSED' });

    expect(classifyError(new Error('batch failed', { cause: lockWait }))).toBe('transient');
  });

  it('the log line: pino error serializer with stack, errno, code, the cause as its own object, the statement cut short', async () => {
    const c = await connect();
    const values = Array.from({ length: 400 }, (_, i) => [i + 10, i]);
    const error = await failure(c.query('INSERT INTO t (id, nosuch) VALUES ?', [values]));
    const lines: string[] = [];
    createLogger('warn', (line) => lines.push(line)).warn(
      { err: new Error('transaction rolled back', { cause: error }) },
      'retrying',
    );
    const logged = JSON.parse(lines[0] as string).err;
    expect(logged).toMatchObject({ type: 'Error', message: 'transaction rolled back' });
    expect(logged.stack).toMatch(/^Error: transaction rolled back\n\s+at /);
    expect(logged.cause).toMatchObject({ errno: 1054, code: 'ER_BAD_FIELD_ERROR', sqlState: '42S22' });
    expect(logged.cause.stack).toMatch(/at /);
    expect((error as { sql: string }).sql.length).toBeGreaterThan(2000);
    expect(logged.cause.sql).toMatch(/^INSERT INTO t \(id, nosuch\) VALUES .*… \(\d+ chars\)$/s);
    expect(logged.cause.sql.length).toBeLessThan(400);
  });
});
