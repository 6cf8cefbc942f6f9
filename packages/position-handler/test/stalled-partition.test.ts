import { describe, expect, it, vi } from 'vitest';
import { formatAmount, parseAmount } from '../src/ledger/amount.js';
import { startPositionService } from '../src/main.js';
import { createLogger } from '../src/observe/logger.js';
import { insertTransfers } from '../src/testing/index.js';
import { generatePositionMessages, generateTransfers } from '../src/testing/messages.js';
import { plus, positionOf, produce, testConfig, useLedgerWithTopics, waitForCommittedOffset } from './helpers.js';

const STALLED_AFTER_MS = 1500;

interface Health {
  status: string;
  services: { name: string; status: string; [key: string]: unknown }[];
}

/**
 * A permanent error under a running handler: a column the write needs is dropped while prepares keep coming. The
 * partition's transaction is retried (never skipped) and, once it has made no progress for POSITION_STALLED_AFTER_MS,
 * /health is DOWN naming the partition and the error, /metrics shows the seconds since progress and the retries by
 * class, and each back-off step is one warn line with the error serialized. The column comes back: /health OK,
 * every transfer applied once, every position equal to the sum of its changes, every transfer notified once.
 */
describe('a stalled partition (a column dropped under a running handler)', () => {
  const env = useLedgerWithTopics('position_stall', {
    currencies: ['USD'],
    dfsps: [
      { name: 'stallpayer', netDebitCap: '100000', liquidity: '100000' },
      { name: 'stallpayee', netDebitCap: '100000', liquidity: '100000' },
    ],
  });

  it('/health DOWN within the bound naming the partition and the error, OK again after the column returns; nothing lost or applied twice', {
    timeout: 60_000,
  }, async () => {
    const payer = env.ledger.ledger.accounts.get('stallpayer:USD')?.position as number;
    const transfers = generateTransfers({
      transfers: 100,
      dfsps: ['stallpayer', 'stallpayee'],
      currencies: ['USD'],
    }).map((t) => ({ ...t, payer: 'stallpayer', payee: 'stallpayee', amount: '2' }));
    await insertTransfers(
      env.ledger.knex,
      transfers.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
      env.ledger.ledger.accounts,
    );
    const messages = generatePositionMessages({ transfers, action: 'prepare', accountOf: () => payer });
    const before = await positionOf(env.ledger.knex, payer);
    const lines: Record<string, unknown>[] = [];
    const service = await startPositionService(
      testConfig(env.ledger.db, env.input, env.output, { batchSize: 20, stalledAfterMs: STALLED_AFTER_MS }),
      { logger: createLogger('info', (line) => lines.push(JSON.parse(line))) },
    );
    const url = `http://127.0.0.1:${service.http.address.port}`;
    const health = async () => {
      const response = await fetch(`${url}/health`);
      return { code: response.status, body: (await response.json()) as Health };
    };
    const metric = async (name: string) => (await service.registry.getSingleMetricAsString(name)) ?? '';
    try {
      // Running and progressing.
      await produce(env.producer, env.input.name, messages.slice(0, 40));
      await env.reader.waitFor(40);
      expect((await health()).code).toBe(200);

      await env.ledger.knex.raw('ALTER TABLE participantPositionChange DROP COLUMN reservedValue');
      const dropped = Date.now();
      await produce(env.producer, env.input.name, messages.slice(40));

      let down: { code: number; body: Health } | undefined;
      await vi.waitFor(
        async () => {
          down = await health();
          expect(down.code).toBe(503);
        },
        { timeout: STALLED_AFTER_MS + 5_000, interval: 100 },
      );
      // Within the bound (plus one fetch and one back-off step), and not before it.
      expect(Date.now() - dropped).toBeLessThan(STALLED_AFTER_MS + 3_000);
      const partition = down?.body.services.find((s) => s.name.startsWith('partition '));
      expect(down?.body.status).toBe('DOWN');
      expect(down?.body.services.find((s) => s.name === 'datastore')?.status).toBe('OK');
      expect(partition).toMatchObject({
        name: `partition ${env.input.name}:0`,
        status: 'DOWN',
        topic: env.input.name,
        partition: 0,
        lastError: { class: 'permanent', code: 'ER_BAD_FIELD_ERROR', errno: 1054 },
      });
      expect(String((partition?.lastError as { message: string } | undefined)?.message)).toMatch(/reservedValue/);
      expect(partition?.stalledForSeconds).toBeGreaterThanOrEqual(STALLED_AFTER_MS / 1000);

      const since = (await metric('position_partition_seconds_since_progress')).match(
        new RegExp(`position_partition_seconds_since_progress\\{topic="${env.input.name}",partition="0"\\} ([\\d.]+)`),
      );
      expect(Number(since?.[1])).toBeGreaterThanOrEqual(STALLED_AFTER_MS / 1000);
      expect(await metric('position_db_retries_total')).toMatch(/position_db_retries_total\{class="permanent"\} [1-9]/);

      const steps = lines.filter((l) => l.msg === 'transaction rolled back; retrying');
      expect(steps.length).toBeGreaterThan(1);
      const step = steps[0] as { level: string; errorClass: string; partition: number; err: Record<string, unknown> };
      expect(step).toMatchObject({ level: 'warn', errorClass: 'permanent', partition: 0 });
      expect(step.err).toMatchObject({ errno: 1054, code: 'ER_BAD_FIELD_ERROR', sqlState: '42S22' });
      expect(String(step.err.stack)).toMatch(/\n\s+at /);
      // One error line when it crosses the bound: at the first back-off step past it.
      const stalledLines = () => lines.filter((l) => String(l.msg).startsWith('partition stalled'));
      await vi.waitFor(() => expect(stalledLines()).toHaveLength(1), { timeout: 2_000, interval: 50 });
      expect(stalledLines()[0]).toMatchObject({ level: 'error', partition: 0, lastError: { errno: 1054 } });

      // Nothing was applied or committed past the failing chunk meanwhile.
      expect(env.reader.values).toHaveLength(40);

      await env.ledger.knex.raw(
        'ALTER TABLE participantPositionChange ADD COLUMN reservedValue DECIMAL(18,4) NOT NULL AFTER `change`',
      );
      await vi.waitFor(async () => expect((await health()).code).toBe(200), { timeout: 10_000, interval: 100 });
      expect((await health()).body.services.map((s) => s.name)).toEqual(['datastore', 'broker']);
      await env.reader.waitFor(100);
      await waitForCommittedOffset(`${env.input.name}-group`, env.input.name, '100', 10_000);
      expect(lines.filter((l) => l.msg === 'partition progresses again')).toHaveLength(1);
      expect(stalledLines()).toHaveLength(1);
      expect(await metric('position_partition_seconds_since_progress')).toMatch(
        new RegExp(`position_partition_seconds_since_progress\\{topic="${env.input.name}",partition="0"\\} 0$`, 'm'),
      );

      // Exactly once: one RESERVED per transfer, the payer moved by each once, the position the sum of its changes.
      const reserved = await env.ledger
        .knex('transferStateChange')
        .select('transferId')
        .where({ transferStateId: 'RESERVED' })
        .whereIn(
          'transferId',
          transfers.map((t) => t.transferId),
        );
      expect(reserved).toHaveLength(100);
      expect(new Set(reserved.map((r: { transferId: string }) => r.transferId)).size).toBe(100);
      expect(await positionOf(env.ledger.knex, payer)).toBe(plus(before, '200'));
      const [rows] = (await env.ledger.knex.raw(
        `SELECT pp.value AS value, COALESCE(SUM(ppc.change), 0) AS total FROM participantPosition pp
           LEFT JOIN participantPositionChange ppc ON ppc.participantPositionId = pp.participantPositionId
          WHERE pp.participantCurrencyId = ? GROUP BY pp.participantPositionId`,
        [payer],
      )) as [{ value: string; total: string }[]];
      expect(formatAmount(parseAmount(String(rows[0]?.total)))).toBe(rows[0]?.value);
      // Every transfer notified, once.
      const ids = env.reader.values.map((n) => n.id);
      expect(ids).toHaveLength(100);
      expect(new Set(ids).size).toBe(100);
    } finally {
      await service.stop();
    }
  });
});
