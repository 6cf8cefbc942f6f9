import type { Amount } from '../ledger/amount.js';
import { TransferState } from '../ledger/types.js';
import type { SimStore } from './sim-store.js';
import type { SimChange, Workload } from './workload.js';

/** The states a transfer (or fxTransfer) reaches once per life: a second one is a result given twice. */
const RESULT_STATES = new Set<string>([
  TransferState.RESERVED,
  TransferState.ABORTED_REJECTED,
  TransferState.COMMITTED,
  TransferState.ABORTED_ERROR,
  TransferState.EXPIRED_RESERVED,
]);

/**
 * The end state against the pure replay: each transfer's (fxTransfer's) results once each and its last state the
 * replay's; each transfer's position changes the replay's (its reservation once, its release or commit once, on the
 * replay's accounts); each position = initial + Σ changes = the replay's.
 */
export function checkAgainstReplay(
  workload: Workload,
  replay: ReturnType<Workload['replay']>,
  store: SimStore,
  broken: (what: string) => void,
): void {
  const describe = (changes: readonly SimChange[]) =>
    changes
      .map((c) => `${c.account} ${c.change}`)
      .sort()
      .join(', ') || 'none';
  const booked = new Map<string, SimChange[]>();
  for (const { account, change, transferId } of store.changes) {
    const list = booked.get(transferId) ?? [];
    list.push({ account, change });
    booked.set(transferId, list);
  }
  // Every transfer and fxTransfer of the workload, a conversion's dependent transfer too.
  for (const [id, changes] of replay.changes) {
    const kind = workload.transfers.find((t) => t.id === workload.ownerOf(id))?.kind;
    const what = `${kind} ${id === workload.ownerOf(id) ? 'transfer' : 'dependent transfer'} ${id}`;
    const history = store.histories.get(id) ?? store.fxHistories.get(id) ?? [];
    const outcomes = history.map((s) => s.transferStateId).filter((s) => RESULT_STATES.has(s));
    if (new Set(outcomes).size !== outcomes.length) broken(`${what}: results ${outcomes.join(', ')}`);
    const last = history.at(-1)?.transferStateId;
    if (last !== replay.states.get(id)) broken(`${what} ended ${last}, the replay says ${replay.states.get(id)}`);
    const made = describe(booked.get(id) ?? []);
    const expected = describe(changes);
    if (made !== expected) broken(`${what}: position changes ${made}, the replay's ${expected}`);
    booked.delete(id);
  }
  for (const [transferId, changes] of booked) {
    broken(`position changes of no transfer of the workload (${transferId}): ${describe(changes)}`);
  }
  const sums = new Map<string, Amount>();
  for (const { account, change } of store.changes) sums.set(account, (sums.get(account) ?? 0n) + change);
  for (const [account, position] of store.positions) {
    const summed = workload.initialValue(account) + (sums.get(account) ?? 0n);
    if (position.value !== summed)
      broken(`account ${account}: position ${position.value} ≠ initial + Σ changes ${summed}`);
    if (position.value !== replay.values.get(account)) {
      broken(`account ${account}: position ${position.value}, the replay says ${replay.values.get(account)}`);
    }
  }
}
