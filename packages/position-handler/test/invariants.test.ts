import { describe, expect, it, vi } from 'vitest';
import { startPositionService } from '../src/main.js';
import { createLogger } from '../src/observe/logger.js';
import { PositionStore } from '../src/store/position-store.js';
import { insertTransfers } from '../src/testing/index.js';
import { generatePositionMessages, generateTransfers } from '../src/testing/messages.js';
import { committedOffset, positionOf, produce, testConfig, useLedgerWithTopics } from './helpers.js';

interface Health {
  status: string;
  services: { name: string; status: string; [key: string]: unknown }[];
}

/**
 * Money that does not add up is never committed: the position UPDATE is made to match no row (one internal call
 * mocked: the store's UPDATE statement gets `AND 1 = 0`), so the write's affected rows differ from the plan's.
 * The transaction rolls back before its COMMIT, the partition is DOWN on /health at once (long before
 * POSITION_STALLED_AFTER_MS), nothing is written, notified or committed; once the UPDATE is right again the
 * batch goes through and /health is OK.
 */
describe('an invariant violated under a running handler', () => {
  const env = useLedgerWithTopics('position_invariant', {
    currencies: ['USD'],
    dfsps: [
      { name: 'invpayer', netDebitCap: '100000', liquidity: '100000' },
      { name: 'invpayee', netDebitCap: '100000', liquidity: '100000' },
    ],
  });

  it('the position UPDATE matching other rows than planned: partition DOWN at once, nothing committed; applied once when it heals', {
    timeout: 60_000,
  }, async () => {
    const payer = env.ledger.ledger.accounts.get('invpayer:USD')?.position as number;
    const transfers = generateTransfers({ transfers: 10, dfsps: ['invpayer', 'invpayee'], currencies: ['USD'] }).map(
      (t) => ({ ...t, payer: 'invpayer', payee: 'invpayee', amount: '3' }),
    );
    await insertTransfers(
      env.ledger.knex,
      transfers.map((t) => ({ ...t, state: 'RECEIVED_PREPARE' as const })),
      env.ledger.ledger.accounts,
    );
    const before = await positionOf(env.ledger.knex, payer);
    const updateSql = PositionStore.prototype.positionUpdatesSql;
    const wrongUpdate = vi.spyOn(PositionStore.prototype, 'positionUpdatesSql').mockImplementation(function (
      this: PositionStore,
      updates,
    ) {
      const statement = updateSql.call(this, updates);
      return { sql: `${statement.sql} AND 1 = 0`, values: statement.values };
    });
    const lines: Record<string, unknown>[] = [];
    // The bound is far away: DOWN must come from the violation itself, not from the stall timer.
    const service = await startPositionService(
      testConfig(env.ledger.db, env.input, env.output, { batchSize: 10, stalledAfterMs: 600_000 }),
      { logger: createLogger('info', (line) => lines.push(JSON.parse(line))) },
    );
    const url = `http://127.0.0.1:${service.http.address.port}`;
    const health = async () => {
      const response = await fetch(`${url}/health`);
      return { code: response.status, body: (await response.json()) as Health };
    };
    try {
      await produce(
        env.producer,
        env.input.name,
        generatePositionMessages({ transfers, action: 'prepare', accountOf: () => payer }),
      );
      let down: { code: number; body: Health } | undefined;
      await vi.waitFor(
        async () => {
          down = await health();
          expect(down.code).toBe(503);
        },
        { timeout: 15_000, interval: 100 },
      );
      expect(down?.body.services.find((s) => s.name.startsWith('partition '))).toMatchObject({
        name: `partition ${env.input.name}:0`,
        status: 'DOWN',
        lastError: { class: 'permanent', type: 'InvariantViolation' },
      });
      expect(lines.filter((l) => String(l.msg).startsWith('partition stopped: invariant violated'))).toHaveLength(1);
      expect(wrongUpdate).toHaveBeenCalled();

      // Nothing committed: no state, no position change, no notification, no offset.
      const states = await env.ledger
        .knex('transferStateChange')
        .whereIn(
          'transferId',
          transfers.map((t) => t.transferId),
        )
        .whereNot({ transferStateId: 'RECEIVED_PREPARE' });
      expect(states).toHaveLength(0);
      expect(await positionOf(env.ledger.knex, payer)).toBe(before);
      expect(env.reader.values).toHaveLength(0);
      expect(await committedOffset(`${env.input.name}-group`, env.input.name)).toBe('-1');

      // Healed: the batch goes through once, /health is OK again.
      wrongUpdate.mockRestore();
      await env.reader.waitFor(10);
      await vi.waitFor(async () => expect((await health()).code).toBe(200), { timeout: 10_000, interval: 100 });
      const reserved = await env.ledger
        .knex('transferStateChange')
        .whereIn(
          'transferId',
          transfers.map((t) => t.transferId),
        )
        .where({ transferStateId: 'RESERVED' });
      expect(reserved).toHaveLength(10);
    } finally {
      wrongUpdate.mockRestore();
      await service.stop();
    }
  });
});
