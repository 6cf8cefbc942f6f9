import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTopic, loadInfraSettings } from '@mojafast/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generatePositionMessages, generateTransfers } from '../src/testing/messages.js';
import { insertTransfers } from '../src/testing/transfers.js';
import { produce, useLedgerWithTopics } from './helpers.js';

// central-ledger's one-at-a-time position handler (`handler --position`, src/handlers/positions/handler.js)
// labels transfer_position {success, fspId, action} with fspId = INSTRUMENTATION.METRICS.labels.fspId ("*"
// in its config/default.json). The built handler is started as a deployment starts it, on its command line,
// one prepare goes through the real broker, and /metrics must carry the label.

// dist/position.js is built by the vitest global setup, as an operator runs it.
const entry = fileURLToPath(new URL('../dist/position.js', import.meta.url));

describe('transfer_position under `handler --position`', () => {
  const env = useLedgerWithTopics('position_fspid', {
    currencies: ['USD'],
    dfsps: [
      { name: 'fspidpayer', netDebitCap: '1000', liquidity: '1000' },
      { name: 'fspidpayee', netDebitCap: '1000', liquidity: '1000' },
    ],
  });
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'position-fspid-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * Starts `node dist/position.js handler --position` on its own input topic holding one new prepare within
   * the payer's cap, with central-ledger's file `file` (none when undefined), and returns /metrics once the
   * prepare was counted there, with the handler's stderr (its log lines).
   */
  async function metricsOnPosition(name: string, file: unknown): Promise<{ text: string; log: string }> {
    const input = await createTopic({ prefix: `position_fspid_${name}` });
    const transfers = generateTransfers({ transfers: 1, dfsps: ['fspidpayer', 'fspidpayee'], currencies: ['USD'] }).map(
      (t) => ({ ...t, payer: 'fspidpayer', payee: 'fspidpayee', amount: '1' }),
    );
    const { ledger, output } = env;
    await insertTransfers(
      ledger.knex,
      transfers.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
      ledger.ledger.accounts,
    );
    const payer = ledger.ledger.accounts.get('fspidpayer:USD')?.position ?? -1;
    await produce(
      env.producer,
      input.name,
      generatePositionMessages({ transfers, action: 'prepare', accountOf: () => payer }),
    );
    const configFile = join(dir, `${name}.json`);
    if (file !== undefined) writeFileSync(configFile, JSON.stringify(file));
    const db = ledger.db.connection;
    let child: ChildProcess | undefined;
    let log = '';
    const killer = setTimeout(() => child?.kill('SIGKILL'), 60_000);
    try {
      child = spawn(process.execPath, [entry, 'handler', '--position'], {
        env: {
          PATH: process.env.PATH,
          ...(file === undefined ? {} : { CONFIG_FILE: configFile }),
          KAFKA_BROKERS: loadInfraSettings().kafka.brokers.join(','),
          POSITION_CONSUMER_GROUP: `${input.name}-group`,
          POSITION_TOPICS: input.name,
          NOTIFICATION_TOPIC: output.name,
          POSITION_COMMIT_TOPIC: input.name,
          BULK_PROCESSING_TOPIC: output.name,
          DB_HOST: db.host,
          DB_PORT: String(db.port),
          DB_USER: db.user,
          DB_PASSWORD: db.password,
          DB_NAME: db.database,
          POSITION_HTTP_PORT: '0',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        log += chunk.toString();
      });
      const started = await vi.waitFor(
        () => {
          const line = log.split('\n').find((l) => l.includes('position handler started'));
          if (!line) throw new Error(`not started yet: ${log}`);
          return JSON.parse(line) as { http: string };
        },
        { timeout: 30_000, interval: 100 },
      );
      const url = `http://127.0.0.1:${started.http.split(':').at(-1)}/metrics`;
      const text = await vi.waitFor(
        async () => {
          const page = await (await fetch(url)).text();
          expect(page).toMatch(/^position_messages_total\{action="prepare",result="applied"\} 1$/m);
          return page;
        },
        { timeout: 30_000, interval: 100 },
      );
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      return { text, log };
    } finally {
      clearTimeout(killer);
      if (child && child.exitCode === null) child.kill('SIGKILL');
      await input.drop();
    }
  }

  it("labels it with the file's INSTRUMENTATION.METRICS.labels.fspId and names no key in the warning", async () => {
    const { text, log } = await metricsOnPosition('set', {
      INSTRUMENTATION: { METRICS: { DISABLED: false, labels: { fspId: 'payerfsp-zone-a' } } },
    });
    expect(text).toMatch(
      /^moja_cl_transfer_position_count\{success="true",fspId="payerfsp-zone-a",action="prepare",serviceName="central-service"\} 1$/m,
    );
    // The per-batch histogram keeps handlerBatch.js's label set.
    expect(text).toMatch(/^moja_cl_transfer_position_batch_count\{success="true",serviceName="central-service"\} 1$/m);
    expect(log).not.toContain('central-ledger keys not honoured');
  });

  it('labels it fspId="*", the value of central-ledger\'s own file, when the key is not set (no file at all)', async () => {
    const { text } = await metricsOnPosition('unset', undefined);
    expect(text).toMatch(
      /^moja_cl_transfer_position_count\{success="true",fspId="\*",action="prepare",serviceName="central-service"\} 1$/m,
    );
    expect(text).not.toMatch(/^moja_cl_transfer_position_count\{success="true",action="prepare"/m);
  });
});
