import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadInfraSettings, uniqueName } from '@mojafast/testkit';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generatePositionMessages } from '../src/testing/messages.js';
import { insertTransfers } from '../src/testing/transfers.js';
import { chartArgs, chartEnv, expectedWarning, renderedFile } from './chart-fixtures.js';
import { produce, useLedgerWithTopics } from './helpers.js';

// dist/position.js is built by the vitest global setup, as an operator runs it.
const entry = fileURLToPath(new URL('../dist/position.js', import.meta.url));

async function asServerAdmin<T>(work: (c: mysql.Connection) => Promise<T>): Promise<T> {
  const { host, port, user, password } = loadInfraSettings().mysql;
  const connection = await mysql.createConnection({ host, port, user, password });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

// The handler run as the chart runs it (its command line, its rendered default.json, its container environment)
// on the real MariaDB and Kafka: a database user without a password (CLEDG_DATABASE__PASSWORD empty) and error
// notifications without a cause extension (ERROR_HANDLING.includeCauseExtension false). Only where the services
// are is overridden, with central-ledger's own variables, as a deployment would.
describe("Mojaloop's chart for the batch position handler, default values, on a real database and broker", () => {
  const env = useLedgerWithTopics('position_chart', {
    currencies: ['USD'],
    dfsps: [
      { name: 'payerfsp', netDebitCap: '25', liquidity: '10000' },
      { name: 'payeefsp', netDebitCap: '1000', liquidity: '10000' },
    ],
  });
  // MariaDB takes a user name of up to 80 characters; this one exists only while the suite runs.
  const user = uniqueName('nopw');
  let dropUser = false;
  let cwd: string;

  beforeAll(async () => {
    const host = loadInfraSettings().mysql.host;
    await asServerAdmin(async (c) => {
      await c.query('CREATE USER ?@?', [user, host]);
      dropUser = true;
      await c.query(`GRANT ALL PRIVILEGES ON \`${env.ledger.db.name}\`.* TO ?@?`, [user, host]);
    });
    // Its working directory: nothing may appear there (the chart may run it on a read-only root filesystem).
    cwd = mkdtempSync(join(tmpdir(), 'position-chart-cwd-'));
  });
  afterAll(async () => {
    if (dropUser)
      await asServerAdmin((c) => c.query('DROP USER IF EXISTS ?@?', [user, loadInfraSettings().mysql.host]));
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it('starts with the expected warning, answers 4200 without an extensionList, writes no file', async () => {
    const { mysql: db, kafka } = loadInfraSettings();
    const brokers = kafka.brokers.join(',');
    const rdkafka = (section: string) => `CLEDG_KAFKA__${section}__config__rdkafkaConf__metadata.broker.list`;
    const child = spawn(process.execPath, [entry, ...chartArgs], {
      cwd,
      env: {
        PATH: process.env.PATH,
        CONFIG_FILE: renderedFile,
        ...chartEnv,
        CLEDG_PORT: '0',
        CLEDG_DATABASE__HOST: db.host,
        CLEDG_DATABASE__PORT: String(db.port),
        CLEDG_DATABASE__USER: user,
        CLEDG_DATABASE__SCHEMA: env.ledger.db.name,
        [rdkafka('CONSUMER__TRANSFER__POSITION_BATCH')]: brokers,
        [rdkafka('PRODUCER__NOTIFICATION__EVENT')]: brokers,
        [rdkafka('PRODUCER__TRANSFER__POSITION')]: brokers,
        'CLEDG_KAFKA__CONSUMER__TRANSFER__POSITION_BATCH__config__rdkafkaConf__group.id': `${env.input.name}-group`,
        CLEDG_KAFKA__EVENT_TYPE_ACTION_TOPIC_MAP__POSITION__PREPARE: env.input.name,
        CLEDG_KAFKA__EVENT_TYPE_ACTION_TOPIC_MAP__POSITION__COMMIT: env.input.name,
        // The notification topic follows the general template; this test's own topic instead.
        NOTIFICATION_TOPIC: env.output.name,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    try {
      await vi.waitFor(
        () => {
          if (!stderr.includes('position handler started')) throw new Error(`not started yet: ${stderr}`);
        },
        { timeout: 30_000, interval: 100 },
      );
      const warning = stderr.split('\n').find((line) => line.includes('central-ledger keys not honoured'));
      expect(JSON.parse(warning as string).keys).toEqual(expectedWarning);

      const accounts = env.ledger.ledger.accounts;
      const transfer = {
        transferId: '00000000-0000-4000-8000-00000000c4a7',
        payer: 'payerfsp',
        payee: 'payeefsp',
        currency: 'USD',
        amount: '30',
      };
      await insertTransfers(env.ledger.knex, [{ ...transfer, state: 'RECEIVED_PREPARE' }], accounts);
      const messages = generatePositionMessages({
        transfers: [transfer],
        action: 'prepare',
        accountOf: (dfsp) => accounts.get(`${dfsp}:USD`)?.position as number,
      });
      await produce(env.producer, env.input.name, messages);
      const note = await vi.waitFor(
        () => {
          const found = env.reader.values.find((n) => n.id === transfer.transferId);
          expect(found).toBeDefined();
          return found as { content: { payload: unknown } };
        },
        { timeout: 20_000, interval: 20 },
      );
      // Over the payer's net debit cap: 4200, as central-ledger's error library writes it under the chart's setting.
      expect(note.content.payload).toEqual({
        errorInformation: { errorCode: '4200', errorDescription: 'Payer limit error' },
      });
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      // CSL_LOG_TRANSPORT=file would make the original write logs/combined.log; ours logs to stderr only.
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
