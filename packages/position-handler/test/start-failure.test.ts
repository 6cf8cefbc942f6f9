import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createDatabase, loadInfraSettings, type TestDatabase, uniqueName } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestLedger, type TestLedger } from './helpers.js';

// dist/position.js is built by the vitest global setup, as an operator runs it.
const entry = fileURLToPath(new URL('../dist/position.js', import.meta.url));
let db: TestDatabase;
let migrated: TestLedger;

beforeAll(async () => {
  db = await createDatabase({ prefix: 'position_start_failure' });
  migrated = await createTestLedger('position_start_topic', { currencies: ['USD'], dfsps: [] });
});
afterAll(async () => {
  await db?.drop();
  await migrated?.drop();
});

/** The handler as an operator starts it, on the plain broker and `database`, with `env` over that. */
function startHandler(database: TestDatabase, env: Record<string, string>) {
  const settings = loadInfraSettings();
  const child = spawn(process.execPath, [entry], {
    env: {
      ...process.env,
      KAFKA_BROKERS: settings.kafka.brokers.join(','),
      DB_HOST: database.connection.host,
      DB_PORT: String(database.connection.port),
      DB_USER: database.connection.user,
      DB_PASSWORD: database.connection.password,
      DB_NAME: database.name,
      POSITION_HTTP_PORT: '0',
      LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const output = { stderr: '' };
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  return { child, output };
}

describe('start-up failure', () => {
  it('exits non-zero instead of idling when its topic does not exist (bad input: POSITION_TOPICS names no topic)', async () => {
    const { child, output } = startHandler(migrated.db, {
      POSITION_TOPICS: uniqueName('missing_topic'),
      NOTIFICATION_TOPIC: uniqueName('missing_notifications'),
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(killer);
    expect(signal).toBeNull();
    expect(code).toBe(1);
    expect(output.stderr).toContain('start failed');
    // One line naming the topic and the command that creates it, not the client's protocol error.
    expect(output.stderr).toMatch(/Kafka topics? [^\n]*missing_topic[^\n]*kafka-topics\.sh --bootstrap-server/);
    expect(output.stderr).not.toContain('does not host this topic-partition');
  });

  it('names an unmigrated database and the command that migrates it, once, while it waits (bad input: an empty database)', async () => {
    const { child, output } = startHandler(db, { POSITION_RETRY_INITIAL_MS: '20', POSITION_RETRY_MAX_MS: '50' });
    try {
      const notMigrated = (text: string) => text.split('\n').filter((l) => l.includes('is not migrated'));
      const line = await vi.waitFor(
        () => {
          const [first] = notMigrated(output.stderr);
          if (!first) throw new Error(`no line yet: ${output.stderr}`);
          return first;
        },
        { timeout: 20_000, interval: 50 },
      );
      expect(line).toContain(`database ${db.name} is not migrated (missing participantCurrency,`);
      expect(line).toContain('npm run migrate');
      // Still waiting, retried many times at 20-50 ms, and the line was not repeated.
      await vi.waitFor(() => expect(child.exitCode).toBeNull(), { timeout: 1_000 });
      expect(notMigrated(output.stderr)).toHaveLength(1);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });

  it('a SIGTERM while it waits for the database gives the wait up and exits 0 (an orchestrator sends one, then SIGKILL)', async () => {
    // A minute between two looks at the database: only giving the wait up ends the process in time.
    const { child, output } = startHandler(db, { POSITION_RETRY_INITIAL_MS: '60000', POSITION_RETRY_MAX_MS: '60000' });
    await vi.waitFor(() => expect(output.stderr).toContain('is not migrated'), { timeout: 20_000, interval: 50 });
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(killer);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(output.stderr).toContain('stopped during the start');
  });
});
