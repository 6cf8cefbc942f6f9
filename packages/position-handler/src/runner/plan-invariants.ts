import type { PlanInput, PlanResult } from '../ledger/types.js';

/**
 * A batch whose money does not add up: the plan (or what the database did with it) breaks a rule no correct
 * batch can break. Never committed: the transaction is rolled back, the partition is DOWN on /health at once and
 * its batch is tried again (with back-off) without ever being committed while the rule is broken.
 */
export class InvariantViolation extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(`invariant violated: ${message}`, options);
    this.name = 'InvariantViolation';
  }
}

/**
 * Checks a batch's plan before it is written: one outcome per command; per account, each position change's
 * running value = the previous one + its change (from the value read under lock), and the account's final
 * position = initial + Σ its changes; an update for exactly the accounts changed; every change naming a state
 * change of the plan. O(rows), a few Map look-ups per row.
 */
export function checkPlan(input: PlanInput, result: PlanResult): void {
  const { commands } = input;
  if (result.outcomes.length !== commands.length) {
    throw new InvariantViolation(`${result.outcomes.length} outcomes for ${commands.length} commands`);
  }
  const expected = new Set(commands.map((c) => c.seq));
  for (const outcome of result.outcomes) {
    if (!expected.delete(outcome.seq))
      throw new InvariantViolation(`outcome for command ${outcome.seq} twice or unknown`);
  }
  const initial = new Map<string, bigint>();
  for (const account of input.accounts.values()) initial.set(account.participantPositionId, account.value);
  const running = new Map<string, bigint>();
  for (const change of result.positionChanges) {
    const id = change.participantPositionId;
    const before = running.get(id) ?? initial.get(id);
    if (before === undefined) throw new InvariantViolation(`position change on position ${id}, not read under lock`);
    if (change.value !== before + change.change) {
      throw new InvariantViolation(`position ${id}: running value ${change.value} ≠ ${before} + ${change.change}`);
    }
    if (!(change.stateChange >= 0 && change.stateChange < result.stateChanges.length)) {
      throw new InvariantViolation(`position change on ${id} names state change ${change.stateChange}, not planned`);
    }
    running.set(id, change.value);
  }
  for (const update of result.positionUpdates) {
    const id = update.participantPositionId;
    const final = running.get(id);
    if (final === undefined) throw new InvariantViolation(`position ${id} updated without a position change`);
    if (update.value !== final) {
      throw new InvariantViolation(`position ${id}: final ${update.value} ≠ initial ${initial.get(id)} + Σ changes`);
    }
    running.delete(id);
  }
  if (running.size > 0)
    throw new InvariantViolation(`positions ${[...running.keys()].join(', ')} changed, not updated`);
}
