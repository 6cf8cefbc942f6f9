import {
  createKnex,
  createStorePool,
  decodeMessage,
  endStorePool,
  migrateLatest,
  planAndWriteBatch,
} from '@mojafast/position-handler';
import { createDatabase } from '@mojafast/testkit';
import { describe, expect, it } from 'vitest';
import { FloorLedger } from '../src/position/db-floor.js';
import { provisionWorkload, recordFulfilOutcomes } from '../src/position/provision-workload.js';
import { positionMismatches } from '../src/position/verify.js';

// The database floors' ledger in this process (the bench runs it in a child, db-floor-process.ts), driven as the
// runner drives a batch (planAndWriteBatch: reference data, lock and read, plan, the runner's plan checks, write)
// on the real database: the rows it writes must leave the positions the workload expects.

const BATCH = 15;

describe('database floor ledger', () => {
  it.each([
    ['no reads', false],
    ['fewest reads', true],
  ] as const)('%s: applies every prepare, then every commit, and leaves the expected positions', async (_, reads) => {
    const db = await createDatabase({ prefix: 'bench_floor' });
    const knex = createKnex({ ...db.connection, poolMax: 2 });
    const pool = createStorePool({ ...db.connection, poolMax: 2 });
    try {
      await migrateLatest(knex);
      const work = await provisionWorkload({ transfers: 40, dfsps: 3, currencies: 2, delimiter: '|' }, knex);
      let ledger: FloorLedger | undefined;
      for (const phase of work.phases) {
        await recordFulfilOutcomes(knex, phase.outcomes);
        // The reads floor takes amounts and positions from the database: one started afresh for the commits
        // knows nothing of the prepares and must still move the payees' positions by the right amounts.
        if (!ledger || reads) {
          ledger = new FloorLedger(pool, reads);
          await ledger.load();
          // Without central-ledger's index named, MariaDB scans transferStateChange for a batch of 1,000 ids.
          const read = ledger.readsSql({ accountIds: ['1'], prepareIds: ['p'], commitIds: ['c'] }).sql;
          expect(read.match(/FORCE INDEX \((\w+)\)/g)).toEqual([
            'FORCE INDEX (transferstatechange_transferid_index)',
            'FORCE INDEX (transferstatechange_transferid_index)',
            'FORCE INDEX (getTransferInfoToChangePosition)',
          ]);
        }
        const floor = ledger;
        const commands = phase.messages.map((m) => {
          const p = decodeMessage(m.key, m.value);
          return {
            seq: 0,
            action: p.action,
            transferId: p.transferId,
            accountId: p.key,
            ...(p.amount === undefined ? {} : { amount: p.amount }),
          };
        });
        for (let i = 0; i < commands.length; i += BATCH) {
          const chunk = commands.slice(i, i + BATCH).map((c, seq) => ({ ...c, seq }));
          const plan = await planAndWriteBatch(floor.store(), chunk, undefined, (input) => floor.plan(input));
          expect(plan.outcomes.map((o) => o.result)).toEqual(chunk.map(() => 'applied'));
        }
        expect(floor.applied).toBe(reads ? commands.length : commands.length * (phase.label === 'commit' ? 2 : 1));
      }
      expect(await positionMismatches(knex, work.ledger, work.expected)).toEqual([]);
      const [states] = (await knex.raw(
        `SELECT transferStateId AS state, COUNT(*) AS n FROM transferStateChange
          WHERE transferStateId IN ('RESERVED', 'COMMITTED') GROUP BY transferStateId ORDER BY transferStateId`,
      )) as [{ state: string; n: number }[]];
      expect(states.map((s) => [s.state, Number(s.n)])).toEqual([
        ['COMMITTED', 40],
        ['RESERVED', 40],
      ]);
    } finally {
      await endStorePool(pool);
      await knex.destroy();
      await db.drop();
    }
  });
});
