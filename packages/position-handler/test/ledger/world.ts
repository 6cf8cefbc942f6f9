import { expect } from 'vitest';
import { type Amount, parseAmount } from '../../src/ledger/amount.js';
import { Batch, type Running, type Target } from '../../src/ledger/batch.js';
import {
  type AccountFacts,
  type FxTransferFacts,
  isFxAction,
  type LedgerCommand,
  NO_POSITION_ACCOUNT,
  type PlanInput,
  type PlanResult,
  type PositionAction,
  type StateRecord,
  type TransferFacts,
} from '../../src/ledger/types.js';

/** Plain-value worlds for the ledger's unit tests: accounts, transfers and fxTransfers as a batch reads them. */

export const $ = (text: string): Amount => parseAmount(text);

/** A history, oldest first: a state id, or [state id, reason]. */
export function states(...entries: (string | readonly [string, string | null])[]): StateRecord[] {
  return entries.map((e) =>
    typeof e === 'string' ? { transferStateId: e, reason: null } : { transferStateId: e[0], reason: e[1] },
  );
}

/** Account '3' (position 30) by default, NDC and liquidity cover 1000, nothing reserved. */
export function accountFacts(id = '3', over: Partial<AccountFacts> = {}): AccountFacts {
  return {
    participantCurrencyId: id,
    participantPositionId: `${id}0`,
    value: 0n,
    reservedValue: 0n,
    netDebitCap: $('1000'),
    liquidityCover: $('1000'),
    ...over,
  };
}

export interface World {
  readonly commands?: readonly LedgerCommand[];
  /** transferId → history and payee amount (default -10). */
  readonly transfers?: Record<string, { states: StateRecord[]; payee?: Amount | null }>;
  /** commitRequestId → history and the RESERVED change per account. */
  readonly fxTransfers?: Record<string, { states: StateRecord[]; reserved?: Record<string, Amount> }>;
  /** Default: accounts '3' and '4' as accountFacts makes them. */
  readonly accounts?: readonly AccountFacts[];
}

export function inputOf(world: World): PlanInput {
  const transfers = new Map<string, TransferFacts>();
  for (const [id, t] of Object.entries(world.transfers ?? {}))
    transfers.set(id, { history: t.states, payeeAmount: t.payee === null ? undefined : (t.payee ?? $('-10')) });
  const fxTransfers = new Map<string, FxTransferFacts>();
  for (const [id, t] of Object.entries(world.fxTransfers ?? {}))
    fxTransfers.set(id, { history: t.states, reservedChanges: new Map(Object.entries(t.reserved ?? {})) });
  const accounts = world.accounts ?? [accountFacts('3'), accountFacts('4')];
  return {
    commands: world.commands ?? [],
    accounts: new Map(accounts.map((a) => [a.participantCurrencyId, a])),
    transfers,
    fxTransfers,
  };
}

/** A command on transfer 't' (for fx- actions the fxTransfer 't'), key '3', seq 0. */
export function command(action: PositionAction, over: Partial<LedgerCommand> = {}): LedgerCommand {
  return { seq: 0, action, transferId: 't', accountId: '3', ...over };
}

export type Action = (batch: Batch, command: LedgerCommand, own: Target, account: Running | undefined) => void;

/**
 * Applies commands to one batch through `action`, finding the message's own transfer and account as planBatch does,
 * and returns what the batch planned.
 */
export function apply(world: World, action: Action, ...commands: LedgerCommand[]): PlanResult {
  const batch = new Batch(inputOf(world));
  for (const c of commands) {
    const own = batch.target(isFxAction(c.action), c.transferId);
    action(batch, c, own, c.accountId === NO_POSITION_ACCOUNT ? undefined : batch.account(c.accountId));
  }
  return batch.result();
}

/** Nothing written: no state, position or error rows. */
export function expectNothingWritten(result: PlanResult): void {
  expect(result.stateChanges).toEqual([]);
  expect(result.positionChanges).toEqual([]);
  expect(result.positionUpdates).toEqual([]);
  expect(result.transferErrors).toBeUndefined();
}
