import { type Amount, type PositionStore, parseAmount } from '@mojafast/position-handler';

type Sql = { sql: string; values: unknown[] };

/** central-ledger's PAYEE_DFSP role and PRINCIPLE_VALUE entry type, as its seeds number them. */
const PAYEE_DFSP = 2;
const PRINCIPLE_VALUE = 1;

/** What one batch's read answers: the locked positions, each transfer's latest state, each commit's payee amount. */
export interface FloorFacts {
  readonly positions: Map<string, { participantPositionId: string; value: Amount; reservedValue: Amount }>;
  readonly latestStates: Map<string, string>;
  readonly payeeAmounts: Map<string, Amount>;
}

/**
 * The fewest reads a correct handler cannot do without, in one round trip with START TRANSACTION:
 * - the batch's positions, locked in one order (the handler's own statement, PositionStore.lockAndReadSql): a
 *   position change records the position after it, so it must be read under a lock;
 * - a commit's payee amount (no commit message carries it) and its transfer's latest state (a redelivered commit
 *   must not move the position twice), one statement: central-ledger's payee index, then the last entry of
 *   the transferId index (its rows ordered by the primary key) for the latest state alone (the handler's
 *   statement for a transfer judged by its latest state, written out here so that the floor stays put when the
 *   handler's reads change);
 * - a prepare's state: the transfer's state changes by transferId (the handler's statement; a new prepare's
 *   transfer has one, RECEIVED_PREPARE, so its whole history is its latest state).
 * Read under READ COMMITTED after the locks, as the handler reads; nothing here is judged (no rules).
 */
export function floorReadsSql(
  sql: PositionStore,
  reads: { accountIds: readonly string[]; prepareIds: readonly string[]; commitIds: readonly string[] },
): Sql & { readonly kinds: readonly ReadKind[] } {
  const locks = sql.lockAndReadSql({
    accountIds: reads.accountIds,
    transferIds: reads.prepareIds,
    payeeTransferIds: [],
    latestStateIds: [],
    fxTransferIds: [],
    fxReservedIds: [],
  });
  const statements: Sql[] = [{ sql: 'START TRANSACTION', values: [] }, locks];
  const kinds: ReadKind[] = ['start', ...(locks.kinds as ReadKind[])];
  if (reads.commitIds.length > 0) {
    kinds.push('commit');
    statements.push({
      sql: `SELECT p.transferId AS k, p.amount AS a,
                   (SELECT s.transferStateId FROM transferStateChange s ${sql.hints.history} WHERE s.transferId = p.transferId
                     ORDER BY s.transferStateChangeId DESC LIMIT 1) AS b
              FROM transferParticipant p ${sql.hints.payee}
             WHERE p.transferId IN (${reads.commitIds.map(() => '?').join(',')})
               AND p.transferParticipantRoleTypeId = ? AND p.ledgerEntryTypeId = ?`,
      values: [...reads.commitIds, PAYEE_DFSP, PRINCIPLE_VALUE],
    });
  }
  return { sql: statements.map((s) => s.sql).join(';\n'), values: statements.flatMap((s) => s.values), kinds };
}

interface Row {
  k: string | number;
  id?: string | number;
  a?: string | null;
  b?: string | null;
}

/** What each result set of floorReadsSql holds, in order. */
export type ReadKind = 'start' | 'position' | 'history' | 'commit';

/**
 * floorReadsSql's result sets by their kinds. A prepare's history rows come unordered: the one with the highest
 * id is its latest.
 */
export function floorFactsOf(kinds: readonly ReadKind[], results: readonly unknown[]): FloorFacts {
  const of = (kind: ReadKind) => (results[kinds.indexOf(kind)] ?? []) as Row[];
  const positionRows = of('position');
  const historyRows = kinds.includes('history') ? of('history') : [];
  const commitRows = kinds.includes('commit') ? of('commit') : [];
  const positions: FloorFacts['positions'] = new Map();
  for (const r of positionRows)
    positions.set(String(r.k), {
      participantPositionId: String(r.id),
      value: parseAmount(String(r.a)),
      reservedValue: parseAmount(String(r.b)),
    });
  const latestStates = new Map<string, string>();
  const latestIds = new Map<string, number>();
  for (const r of historyRows) {
    const id = Number(r.id);
    if ((latestIds.get(String(r.k)) ?? -1) > id) continue;
    latestIds.set(String(r.k), id);
    latestStates.set(String(r.k), String(r.a));
  }
  const payeeAmounts = new Map<string, Amount>();
  for (const r of commitRows) {
    payeeAmounts.set(String(r.k), parseAmount(String(r.a)));
    if (r.b !== null && r.b !== undefined) latestStates.set(String(r.k), r.b);
  }
  return { positions, latestStates, payeeAmounts };
}
