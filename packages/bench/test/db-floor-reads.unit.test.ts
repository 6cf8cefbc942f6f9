import { PositionStore } from '@mojafast/position-handler';
import { describe, expect, it } from 'vitest';
import { floorFactsOf, floorReadsSql } from '../src/position/db-floor-reads.js';

// What the reads floor asks and how it reads the answers; db-floor.test.ts runs it on the real database.
describe('database floor reads', () => {
  // The hints as PositionStore.open finds them on a schema with the history index only.
  const sql = new PositionStore(undefined as never, true, {
    history: 'FORCE INDEX (transferstatechange_transferid_index)',
    payee: '',
  });

  it('reads positions, prepares’ states and commits’ payee amounts in one statement list, in that order', () => {
    const both = floorReadsSql(sql, { accountIds: ['3', '1'], prepareIds: ['p'], commitIds: ['c1', 'c2'] });
    expect(both.kinds).toEqual(['start', 'position', 'history', 'commit']);
    expect(both.sql.split(';\n')).toHaveLength(4);
    expect(both.values).toEqual(['1', '3', 'p', 'c1', 'c2', 2, 1]);
    const commits = floorReadsSql(sql, { accountIds: ['1'], prepareIds: [], commitIds: ['c'] });
    expect(commits.kinds).toEqual(['start', 'position', 'commit']);
  });

  it('takes the latest of each prepare’s state changes and each commit’s latest state and payee amount', () => {
    const facts = floorFactsOf(
      ['start', 'position', 'history', 'commit'],
      [
        {},
        [{ k: 1, id: 7, a: '10.5', b: '0' }],
        [
          { k: 'p', id: 5, a: 'RESERVED' },
          { k: 'p', id: 2, a: 'RECEIVED_PREPARE' },
        ],
        [
          { k: 'c', a: '-4', b: 'RECEIVED_FULFIL' },
          { k: 'gone', a: '-1', b: null },
        ],
      ],
    );
    expect(facts.positions.get('1')).toEqual({ participantPositionId: '7', value: 105_000n, reservedValue: 0n });
    expect([...facts.latestStates]).toEqual([
      ['p', 'RESERVED'],
      ['c', 'RECEIVED_FULFIL'],
    ]);
    expect([...facts.payeeAmounts]).toEqual([
      ['c', -40_000n],
      ['gone', -10_000n],
    ]);
  });
});
