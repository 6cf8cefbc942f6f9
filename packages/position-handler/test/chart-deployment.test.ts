import { loadInfraSettings, uniqueName } from '@mojafast/testkit';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readConfig } from '../src/config/index.js';
import { type PositionService, startPositionService } from '../src/main.js';
import { generatePositionMessages } from '../src/testing/messages.js';
import { insertTransfers } from '../src/testing/transfers.js';
import { produce, quietLogger, testConfig, useLedgerWithTopics } from './helpers.js';

// The settings Mojaloop's chart gives the batch position handler by default (fixtures/charts/README.md), on the
// real MariaDB and Kafka: a database user without a password (CLEDG_DATABASE__PASSWORD empty) and error
// notifications without a cause extension (ERROR_HANDLING.includeCauseExtension false).
const chartFile = new URL('./fixtures/charts/position-batch-chart.default.json', import.meta.url).pathname;

async function asServerAdmin<T>(work: (c: mysql.Connection) => Promise<T>): Promise<T> {
  const { host, port, user, password } = loadInfraSettings().mysql;
  const connection = await mysql.createConnection({ host, port, user, password });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

describe("the chart's default settings on a real database and broker", () => {
  const env = useLedgerWithTopics('position_chart', {
    currencies: ['USD'],
    dfsps: [
      { name: 'payerfsp', netDebitCap: '25', liquidity: '10000' },
      { name: 'payeefsp', netDebitCap: '1000', liquidity: '10000' },
    ],
  });
  // MariaDB takes a user name of up to 80 characters; this one exists only while the suite runs.
  const user = uniqueName('nopw');
  let service: PositionService | undefined;
  let dropUser = false;

  beforeAll(async () => {
    const host = loadInfraSettings().mysql.host;
    await asServerAdmin(async (c) => {
      await c.query('CREATE USER ?@? ', [user, host]);
      dropUser = true;
      await c.query(`GRANT ALL PRIVILEGES ON \`${env.ledger.db.name}\`.* TO ?@?`, [user, host]);
    });
    const chart = readConfig(
      { CONFIG_FILE: chartFile, CLEDG_DATABASE__PASSWORD: '', CLEDG_DATABASE__USER: user },
      { handlers: ['positionbatch'] },
    ).config;
    expect(chart.dbPassword).toBe('');
    service = await startPositionService(
      testConfig(env.ledger.db, env.input, env.output, {
        dbUser: chart.dbUser,
        dbPassword: chart.dbPassword,
        errorCauseExtension: chart.errorCauseExtension,
        errorTruncateExtensions: chart.errorTruncateExtensions,
      }),
      { logger: quietLogger },
    );
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    if (dropUser)
      await asServerAdmin((c) => c.query('DROP USER IF EXISTS ?@?', [user, loadInfraSettings().mysql.host]));
  });

  it('connects as a user without a password and sends errorInformation without an extensionList', async () => {
    const accounts = env.ledger.ledger.accounts;
    const transfer = {
      transferId: '00000000-0000-4000-8000-00000000c4a7',
      payer: 'payerfsp',
      payee: 'payeefsp',
      currency: 'USD',
      amount: '30',
    };
    await insertTransfers(env.ledger.knex, [{ ...transfer, state: 'RECEIVED_PREPARE' }], accounts);
    const before = env.reader.values.length;
    const messages = generatePositionMessages({
      transfers: [transfer],
      action: 'prepare',
      accountOf: (dfsp) => accounts.get(`${dfsp}:USD`)?.position as number,
    });
    await produce(env.producer, env.input.name, messages);
    const note = await vi.waitFor(
      () => {
        const found = env.reader.values.slice(before).find((n) => n.id === transfer.transferId);
        expect(found).toBeDefined();
        return found as { content: { payload: unknown } };
      },
      { timeout: 20_000, interval: 20 },
    );
    // Over the payer's net debit cap: 4200, as central-ledger's error library writes it under the chart's setting.
    expect(note.content.payload).toEqual({
      errorInformation: { errorCode: '4200', errorDescription: 'Payer limit error' },
    });
  });
});
