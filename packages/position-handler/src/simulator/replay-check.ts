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
  for (const transfer of workload.transfers) {
    const history = store.histories.get(transfer.id) ?? store.fxHistories.get(transfer.id) ?? [];
    const outcomes = history.map((s) => s.transferStateId).filter((s) => RESULT_STATES.has(s));
    if (new Set(outcomes).size !== outcomes.length) broken(`transfer ${transfer.id}: results ${outcomes.join(', ')}`);
    const last = history.at(-1)?.transferStateId;
    if (last !== replay.states.get(transfer.id)) {
      broken(`transfer ${transfer.id} ended ${last}, the replay says ${replay.states.get(transfer.id)}`);
    }
    const made = describe(booked.get(transfer.id) ?? []);
    const expected = describe(replay.changes.get(transfer.id) ?? []);
    if (made !== expected)
      broken(`${transfer.kind} transfer ${transfer.id}: position changes ${made}, the replay's ${expected}`);
    booked.delete(transfer.id);
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
