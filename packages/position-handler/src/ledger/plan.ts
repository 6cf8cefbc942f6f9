import type { Amount } from './amount.js';
import { rejectionFromReason, rejectionReason } from './errors.js';
import {
  type AccountFacts,
  type ErrorName,
  type Outcome,
  type PlanInput,
  type PlanResult,
  type PositionChangePlan,
  type StateChangePlan,
  type StateRecord,
  TransferState,
} from './types.js';

/** Key '0': central-ledger's marker for "no position change" (payer and payee behind the same proxy). */
export const NO_POSITION_ACCOUNT = '0';

interface Running {
  value: Amount;
  readonly facts: AccountFacts;
  touched: boolean;
}

/**
 * Applies one batch in memory, in message order, and returns every row to write and every notification to
 * send. Pure: the same input gives the same output, so a crash-safety test can replay it.
 *
 * Idempotency rests on the transfer's own history, read in the same transaction as the write: each action
 * has a precondition state and a result state, and a message whose transfer already carries the action's
 * result (anywhere in its history, for a redelivery after later steps) is a replay: nothing is written and
 * the first delivery's notification is re-sent. Since state changes, position changes and positions commit
 * in one DB transaction, "result state recorded" and "position moved" are the same fact. Unlike the
 * original, a redelivered prepare for a COMMITTED transfer is recognised and never writes ABORTED_REJECTED.
 */
export function planBatch(input: PlanInput): PlanResult {
  const stateChanges: StateChangePlan[] = [];
  const positionChanges: PositionChangePlan[] = [];
  const outcomes: Outcome[] = [];
  const running = new Map<string, Running>();
  const histories = new Map<string, StateRecord[]>();

  const historyOf = (transferId: string): StateRecord[] => {
    let history = histories.get(transferId);
    if (!history) {
      history = [...(input.transfers.get(transferId)?.history ?? [])];
      histories.set(transferId, history);
    }
    return history;
  };
  const accountOf = (accountId: string): Running | undefined => {
    let account = running.get(accountId);
    if (!account) {
      const facts = input.accounts.get(accountId);
      if (!facts) return undefined;
      account = { value: facts.value, facts, touched: false };
      running.set(accountId, account);
    }
    return account;
  };
  const fail = (seq: number, name: ErrorName, detail?: string): void => {
    outcomes.push({ seq, result: 'failed', error: detail === undefined ? { name } : { name, detail } });
  };
  const writeState = (transferId: string, transferStateId: string, reason: string | null): number => {
    stateChanges.push({ transferId, transferStateId, reason });
    historyOf(transferId).push({ transferStateId, reason });
    return stateChanges.length - 1;
  };
  const move = (account: Running | undefined, stateChange: number, change: Amount): void => {
    if (!account) return;
    account.value += change;
    account.touched = true;
    positionChanges.push({
      stateChange,
      participantCurrencyId: account.facts.participantCurrencyId,
      participantPositionId: account.facts.participantPositionId,
      value: account.value,
      change,
      reservedValue: account.facts.reservedValue,
    });
  };

  for (const command of input.commands) {
    const { seq, transferId } = command;
    const history = historyOf(transferId);
    if (history.length === 0) {
      fail(seq, 'TRANSFER_NOT_FOUND');
      continue;
    }
    const current = history[history.length - 1]?.transferStateId;
    const has = (state: string) => history.some((record) => record.transferStateId === state);
    const changesPosition = command.accountId !== NO_POSITION_ACCOUNT;
    const account = changesPosition ? accountOf(command.accountId) : undefined;
    if (changesPosition && !account) {
      fail(seq, 'ACCOUNT_NOT_FOUND', `position account ${command.accountId}`);
      continue;
    }

    switch (command.action) {
      case 'prepare': {
        if (current !== TransferState.RECEIVED_PREPARE) {
          if (has(TransferState.RESERVED)) {
            outcomes.push({ seq, result: 'replayed' });
          } else {
            const rejected = history.findLast((r) => r.transferStateId === TransferState.ABORTED_REJECTED);
            if (rejected) {
              outcomes.push({ seq, result: 'replayed', error: { name: rejectionFromReason(rejected.reason) } });
            } else {
              writeState(transferId, TransferState.ABORTED_REJECTED, rejectionReason.INCORRECT_STATE);
              outcomes.push({ seq, result: 'rejected', error: { name: 'INCORRECT_STATE' } });
            }
          }
          break;
        }
        const amount = command.amount ?? 0n;
        if (account) {
          const facts = account.facts;
          if (facts.prepareProblem !== undefined || facts.netDebitCap === undefined) {
            fail(seq, 'ACCOUNT_MISCONFIGURED', facts.prepareProblem ?? 'no active NET_DEBIT_CAP limit');
            break;
          }
          // Effective position from the running value: each prepare accepted earlier in this batch has already
          // raised it, so the headroom shrinks (the original adds the amount back and over-reserves).
          const effective = account.value + facts.reservedValue;
          let refusal: 'LIQUIDITY' | 'LIMIT' | undefined;
          if (facts.liquidityCover !== null && amount > facts.liquidityCover - effective) refusal = 'LIQUIDITY';
          else if (amount > facts.netDebitCap - effective) refusal = 'LIMIT';
          if (refusal) {
            writeState(transferId, TransferState.ABORTED_REJECTED, rejectionReason[refusal]);
            outcomes.push({ seq, result: 'rejected', error: { name: refusal } });
            break;
          }
        }
        move(account, writeState(transferId, TransferState.RESERVED, null), amount);
        outcomes.push({ seq, result: 'applied' });
        break;
      }
      case 'commit':
      case 'reserve': {
        if (current !== TransferState.RECEIVED_FULFIL) {
          if (has(TransferState.COMMITTED)) outcomes.push({ seq, result: 'replayed' });
          else fail(seq, 'INCORRECT_STATE', `Invalid State: ${current} - expected: ${TransferState.RECEIVED_FULFIL}`);
          break;
        }
        const payeeAmount = input.transfers.get(transferId)?.payeeAmount;
        if (payeeAmount === undefined) {
          fail(seq, 'TRANSFER_NOT_FOUND', 'no PAYEE_DFSP transferParticipant');
          break;
        }
        move(account, writeState(transferId, TransferState.COMMITTED, null), payeeAmount);
        outcomes.push({ seq, result: 'applied' });
        break;
      }
      case 'abort':
      case 'abort-validation':
      case 'timeout-reserved': {
        const timeout = command.action === 'timeout-reserved';
        const needs = timeout ? TransferState.RESERVED_TIMEOUT : TransferState.RECEIVED_ERROR;
        const result = timeout ? TransferState.EXPIRED_RESERVED : TransferState.ABORTED_ERROR;
        const error: ErrorName = timeout
          ? 'EXPIRED'
          : command.action === 'abort'
            ? 'ABORT_REJECTED'
            : 'ABORT_VALIDATION';
        if (current !== needs) {
          if (has(result)) outcomes.push({ seq, result: 'replayed', error: { name: error } });
          else fail(seq, 'INCORRECT_STATE', `Invalid State: ${current} - expected: ${needs}`);
          break;
        }
        const payeeAmount = input.transfers.get(transferId)?.payeeAmount;
        if (payeeAmount === undefined) {
          fail(seq, 'TRANSFER_NOT_FOUND', 'no PAYEE_DFSP transferParticipant');
          break;
        }
        // The payee row is stored negative, so adding it releases what the prepare reserved on the payer.
        move(account, writeState(transferId, result, timeout ? rejectionReason.EXPIRED : null), payeeAmount);
        outcomes.push({ seq, result: 'applied', error: { name: error } });
        break;
      }
    }
  }

  const positionUpdates = [...running.values()]
    .filter((account) => account.touched)
    .map((account) => ({ participantPositionId: account.facts.participantPositionId, value: account.value }));
  return { stateChanges, positionChanges, positionUpdates, outcomes };
}
