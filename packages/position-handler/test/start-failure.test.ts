import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createDatabase, loadInfraSettings, type TestDatabase, uniqueName } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// dist/position.js is built by the vitest global setup, as an operator runs it.
const entry = fileURLToPath(new URL('../dist/position.js', import.meta.url));
let db: TestDatabase;

beforeAll(async () => {
  db = await createDatabase({ prefix: 'position_start_failure' });
});
afterAll(() => db?.drop());

describe('start-up failure', () => {
  it('exits non-zero instead of idling when its topic does not exist (bad input: POSITION_TOPICS names no topic)', async () => {
    const settings = loadInfraSettings();
    const child = spawn(process.execPath, [entry], {
      env: {
        ...process.env,
        KAFKA_BROKERS: settings.kafka.brokers.join(','),
        POSITION_TOPICS: uniqueName('missing_topic'),
        NOTIFICATION_TOPIC: uniqueName('missing_notifications'),
        DB_HOST: db.connection.host,
        DB_PORT: String(db.connection.port),
        DB_USER: db.connection.user,
        DB_PASSWORD: db.connection.password,
        DB_NAME: db.name,
        POSITION_HTTP_PORT: '0',
        LOG_LEVEL: 'error',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(killer);
    expect(signal).toBeNull();
    expect(code).toBe(1);
    expect(stderr).toContain('start failed');
  });
});
