import type { Amount } from './amount.js';
import type {
  AccountFacts,
  ErrorName,
  Outcome,
  PlanInput,
  PlanResult,
  PositionChangePlan,
  StateChangePlan,
  StateRecord,
  TransferErrorPlan,
} from './types.js';

/** An account's position as the batch has moved it so far. */
export interface Running {
  value: Amount;
  readonly facts: AccountFacts;
  touched: boolean;
}

/**
 * A state history: a transfer's (transferStateChange) or an fxTransfer's (fxTransferStateChange), as the batch
 * has moved it so far. One per transfer and batch, so a message allocates none.
 */
export interface Target {
  readonly fx: boolean;
  /** transferId, or commitRequestId when fx. */
  readonly id: string;
  /** The stored history, oldest first, then the states this batch wrote. Empty: no such transfer. */
  readonly history: StateRecord[];
}

/** The state a target is in now; undefined when it has none. */
export function latestState(target: Target): string | undefined {
  const { history } = target;
  return history[history.length - 1]?.transferStateId;
}

/**
 * The running state of one batch: the facts read under lock, each account's position and each transfer's
 * history as the messages planned so far left them, and the rows and outcomes planned so far. The actions
 * (./actions/) read it and record what they decide in it; nothing else is touched, so planning stays pure.
 */
export class Batch {
  readonly stateChanges: StateChangePlan[] = [];
  readonly positionChanges: PositionChangePlan[] = [];
  readonly transferErrors: TransferErrorPlan[] = [];
  readonly outcomes: Outcome[] = [];
  private readonly accounts = new Map<string, Running>();
  private readonly transfers = new Map<string, Target>();
  private readonly fxTransfers = new Map<string, Target>();

  constructor(readonly input: PlanInput) {}

  /** The transfer (fx: fxTransfer) with its history so far, the stored one copied on first use. */
  target(fx: boolean, id: string): Target {
    const targets = fx ? this.fxTransfers : this.transfers;
    let target = targets.get(id);
    if (!target) {
      const facts = fx ? this.input.fxTransfers?.get(id) : this.input.transfers.get(id);
      target = { fx, id, history: facts ? [...facts.history] : [] };
      targets.set(id, target);
    }
    return target;
  }

  /** The position account with its running value; undefined when the batch read no such account. */
  account(accountId: string): Running | undefined {
    let account = this.accounts.get(accountId);
    if (!account) {
      const facts = this.input.accounts.get(accountId);
      if (!facts) return undefined;
      account = { value: facts.value, facts, touched: false };
      this.accounts.set(accountId, account);
    }
    return account;
  }

  /** transferParticipant.amount of the transfer's PAYEE_DFSP row (stored negative); undefined when not read. */
  payeeAmount(transferId: string): Amount | undefined {
    return this.input.transfers.get(transferId)?.payeeAmount;
  }

  fail(seq: number, name: ErrorName, detail?: string): void {
    this.outcomes.push({ seq, result: 'failed', error: detail === undefined ? { name } : { name, detail } });
  }

  /** central-ledger's 2001 "Invalid State" for a transfer not in the state an action needs. */
  wrongState(seq: number, current: string | undefined, needs: string): void {
    this.fail(seq, 'INCORRECT_STATE', `Invalid State: ${current} - expected: ${needs}`);
  }

  /** Records a state change of the target; returns its index, which position changes and errors refer to. */
  writeState(target: Target, transferStateId: string, reason: string | null): number {
    this.stateChanges.push(
      target.fx
        ? { fx: true, transferId: target.id, transferStateId, reason }
        : { transferId: target.id, transferStateId, reason },
    );
    target.history.push({ transferStateId, reason });
    return this.stateChanges.length - 1;
  }

  /** Moves the account by `change`, referring to state change `stateChange`; no account: no position change. */
  move(account: Running | undefined, stateChange: number, change: Amount): void {
    if (!account) return;
    account.value += change;
    account.touched = true;
    this.positionChanges.push({
      stateChange,
      participantCurrencyId: account.facts.participantCurrencyId,
      participantPositionId: account.facts.participantPositionId,
      value: account.value,
      change,
      reservedValue: account.facts.reservedValue,
    });
  }

  result(): PlanResult {
    const positionUpdates = [...this.accounts.values()]
      .filter((account) => account.touched)
      .map((account) => ({ participantPositionId: account.facts.participantPositionId, value: account.value }));
    return {
      stateChanges: this.stateChanges,
      positionChanges: this.positionChanges,
      positionUpdates,
      outcomes: this.outcomes,
      ...(this.transferErrors.length > 0 ? { transferErrors: this.transferErrors } : {}),
    };
  }
}
