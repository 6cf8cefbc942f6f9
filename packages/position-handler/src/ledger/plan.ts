import type { Amount } from './amount.js';
import { handlerErrors, rejectionFromReason, rejectionReason } from './errors.js';
import {
  type AccountFacts,
  type CyrilPlan,
  type ErrorName,
  type LedgerCommand,
  type Outcome,
  type PlanInput,
  type PlanResult,
  type PositionChangePlan,
  type StateChangePlan,
  type StateRecord,
  type TransferErrorPlan,
  TransferState,
} from './types.js';

/** Key '0': central-ledger's marker for "no position change" (payer and payee behind the same proxy). */
export const NO_POSITION_ACCOUNT = '0';

interface Running {
  value: Amount;
  readonly facts: AccountFacts;
  touched: boolean;
}

/** A state history: a transfer's (transferStateChange) or an fxTransfer's (fxTransferStateChange). */
type Target = { readonly fx: boolean; readonly id: string };

const ABORT_ERRORS: Record<string, ErrorName> = {
  abort: 'ABORT_REJECTED',
  'fx-abort': 'ABORT_REJECTED',
  'abort-validation': 'ABORT_VALIDATION',
  'fx-abort-validation': 'ABORT_VALIDATION',
};

/** What a releasing action needs, writes, and with which transferStateChange.reason. */
interface Release {
  readonly needs: string;
  readonly result: string;
  /** null; the expiry text; or the reason of the state the message found (handler.js transferInfo.reason). */
  readonly reason: 'none' | 'expired' | 'kept';
}

const RELEASE = {
  abort: { needs: TransferState.RECEIVED_ERROR, result: TransferState.ABORTED_ERROR, reason: 'none' },
  timeout: { needs: TransferState.RESERVED_TIMEOUT, result: TransferState.EXPIRED_RESERVED, reason: 'expired' },
  bulkAbort: { needs: TransferState.RECEIVED_ERROR, result: TransferState.ABORTED_ERROR, reason: 'kept' },
  // handler.js checks no state for reject; the fulfil handler writes RECEIVED_REJECT before it (transfer facade).
  reject: { needs: TransferState.RECEIVED_REJECT, result: TransferState.ABORTED_REJECTED, reason: 'kept' },
} as const satisfies Record<string, Release>;

/**
 * Applies one batch in memory, in message order, and returns every row to write and every notification to
 * send. Pure: the same input gives the same output, so a crash-safety test can replay it.
 *
 * Idempotency rests on the transfer's own history, read in the same transaction as the write: each action
 * has a precondition state and a result state. A message whose transfer's latest state is the action's result is
 * a replay: nothing is written and the first delivery's notification is re-sent. A message whose transfer has
 * moved on since (a redelivered prepare of a committed transfer) writes nothing and gets the original's answer
 * for a transfer in the wrong state, 2001 from the Hub, without the original's ABORTED_REJECTED on top of a
 * finished transfer. Since state changes, position changes and positions commit in one DB transaction, "result
 * state recorded" and "position moved" are the same fact.
 *
 * FX (central-ledger 19.5.5 domain/position/fx-*.js, fulfil.js, abort.js): fx-prepare checks and moves the
 * initiating FSP's position like a prepare (the same running value, so plain and FX prepares of one account share
 * the headroom); commit and abort messages carrying cyrilResult steps apply their first step not done, on the
 * step's transfer or fxTransfer, and either finish or send the message on to the next step's account.
 */
export function planBatch(input: PlanInput): PlanResult {
  const stateChanges: StateChangePlan[] = [];
  const positionChanges: PositionChangePlan[] = [];
  const transferErrors: TransferErrorPlan[] = [];
  const outcomes: Outcome[] = [];
  const running = new Map<string, Running>();
  const histories = new Map<string, StateRecord[]>();

  const historyOf = (target: Target): StateRecord[] => {
    const key = `${target.fx ? 'x' : 't'}:${target.id}`;
    let history = histories.get(key);
    if (!history) {
      const facts = target.fx ? input.fxTransfers?.get(target.id) : input.transfers.get(target.id);
      history = [...(facts?.history ?? [])];
      histories.set(key, history);
    }
    return history;
  };
  const latest = (target: Target) => historyOf(target).at(-1)?.transferStateId;
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
  const writeState = (target: Target, transferStateId: string, reason: string | null): number => {
    stateChanges.push(
      target.fx
        ? { fx: true, transferId: target.id, transferStateId, reason }
        : { transferId: target.id, transferStateId, reason },
    );
    historyOf(target).push({ transferStateId, reason });
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
  const wrongState = (seq: number, current: string | undefined, needs: string) =>
    fail(seq, 'INCORRECT_STATE', `Invalid State: ${current} - expected: ${needs}`);

  /** Liquidity cover (4001) then net debit cap (4200) on the running value + reservedValue (prepare.js). */
  const refusalOf = (account: Running, amount: Amount): 'LIQUIDITY' | 'LIMIT' | undefined => {
    const facts = account.facts;
    // Effective position from the running value: each prepare accepted earlier in this batch has already
    // raised it, so the headroom shrinks (the original adds the amount back and over-reserves).
    const effective = account.value + facts.reservedValue;
    if (facts.liquidityCover !== null && amount > facts.liquidityCover - effective) return 'LIQUIDITY';
    if (facts.netDebitCap !== undefined && amount > facts.netDebitCap - effective) return 'LIMIT';
    return undefined;
  };

  /**
   * handler.js answers a refused bulk-prepare after TransferService.logTransferError: a transferError row naming
   * the transfer's latest state change (the ABORTED_REJECTED just written) with the error's code and description.
   * The batch handler's prepare writes none.
   */
  const logTransferError = (command: LedgerCommand, stateChange: number, name: ErrorName): void => {
    if (command.action !== 'bulk-prepare') return;
    const { fspiop } = handlerErrors[name];
    transferErrors.push({ stateChange, errorCode: fspiop.code, errorDescription: fspiop.description });
  };

  /** prepare and fx-prepare: RECEIVED_PREPARE → RESERVED (+ amount) or ABORTED_REJECTED. */
  const prepare = (command: LedgerCommand, target: Target, account: Running | undefined): void => {
    const { seq } = command;
    const history = historyOf(target);
    const current = latest(target);
    if (current !== TransferState.RECEIVED_PREPARE) {
      if (current === TransferState.RESERVED) {
        outcomes.push({ seq, result: 'replayed' });
      } else if (current === TransferState.ABORTED_REJECTED) {
        outcomes.push({
          seq,
          result: 'replayed',
          error: { name: rejectionFromReason(history.at(-1)?.reason ?? null) },
        });
      } else if (history.some((r) => r.transferStateId === TransferState.RESERVED)) {
        // Redelivered after the transfer moved on (committed, aborted, expired): nothing written.
        fail(seq, 'INCORRECT_STATE');
      } else {
        const reason = target.fx ? rejectionReason.FX_INCORRECT_STATE : rejectionReason.INCORRECT_STATE;
        logTransferError(command, writeState(target, TransferState.ABORTED_REJECTED, reason), 'INCORRECT_STATE');
        outcomes.push({ seq, result: 'rejected', error: { name: 'INCORRECT_STATE' } });
      }
      return;
    }
    const amount = command.amount ?? 0n;
    if (account) {
      const facts = account.facts;
      if (facts.prepareProblem !== undefined || facts.netDebitCap === undefined) {
        fail(seq, 'ACCOUNT_MISCONFIGURED', facts.prepareProblem ?? 'no active NET_DEBIT_CAP limit');
        return;
      }
      const refusal = refusalOf(account, amount);
      if (refusal) {
        logTransferError(
          command,
          writeState(target, TransferState.ABORTED_REJECTED, rejectionReason[refusal]),
          refusal,
        );
        outcomes.push({ seq, result: 'rejected', error: { name: refusal } });
        return;
      }
    }
    move(account, writeState(target, TransferState.RESERVED, null), amount);
    outcomes.push({ seq, result: 'applied' });
  };

  /**
   * A cyrilResult step of a commit (→ COMMITTED) or an abort (→ ABORTED_ERROR) on the step's transfer or
   * fxTransfer, when the message's own transfer is in `needs`. A step whose target already carries the result is
   * a replay: its notifications or follow-up go out again. The step must name the message's account: the
   * original books it on the key whatever the step says.
   */
  const cyrilStep = (
    command: LedgerCommand,
    own: Target,
    cyril: CyrilPlan,
    needs: string,
    result: string,
    account: Running | undefined,
    error: ErrorName | undefined,
  ): void => {
    const { seq } = command;
    const { step } = cyril;
    const target = { fx: step.fx, id: step.id };
    const extra = {
      ...(error ? { error: { name: error } } : {}),
      ...(cyril.nextAccountId === undefined ? {} : { next: cyril.nextAccountId }),
      ...(step.fx && result === TransferState.COMMITTED ? { fxNotify: true } : {}),
    };
    if (latest(target) === result) {
      outcomes.push({ seq, result: 'replayed', ...extra });
      return;
    }
    const current = latest(own);
    // A follow-up finds its own transfer or fxTransfer already in the result when an earlier step of the same
    // message moved it (an fx-abort's first step aborts its own fxTransfer, the second releases the dependent
    // transfer's reservation on the FXP); abort.js refuses that follow-up and the abort never finishes.
    const movedByEarlierStep =
      current === result && (cyril.done ?? []).some((done) => done.fx === own.fx && done.id === own.id);
    if (current !== needs && !movedByEarlierStep) {
      wrongState(seq, current, needs);
      return;
    }
    if (step.accountId !== command.accountId && command.accountId !== NO_POSITION_ACCOUNT) {
      fail(seq, 'BAD_CYRIL_RESULT', `positionChange on account ${step.accountId}, message key ${command.accountId}`);
      return;
    }
    move(account, writeState(target, result, null), step.amount);
    if (cyril.nextAccountId === undefined) {
      for (const change of cyril.transferStateChanges) {
        writeState({ fx: false, id: change.transferId }, change.transferStateId, change.reason);
      }
    }
    outcomes.push({ seq, result: 'applied', ...extra });
  };

  for (const command of input.commands) {
    const { seq, transferId, action } = command;
    const own: Target = { fx: action.startsWith('fx-'), id: transferId };
    if (historyOf(own).length === 0) {
      fail(seq, 'TRANSFER_NOT_FOUND');
      continue;
    }
    const current = latest(own);
    const changesPosition = command.accountId !== NO_POSITION_ACCOUNT;
    const account = changesPosition ? accountOf(command.accountId) : undefined;
    if (changesPosition && !account) {
      fail(seq, 'ACCOUNT_NOT_FOUND', `position account ${command.accountId}`);
      continue;
    }

    switch (action) {
      case 'prepare':
      case 'bulk-prepare':
      case 'fx-prepare':
        prepare(command, own, account);
        break;
      case 'commit':
      case 'reserve':
      case 'bulk-commit': {
        if (command.cyril) {
          cyrilStep(
            command,
            own,
            command.cyril,
            TransferState.RECEIVED_FULFIL,
            TransferState.COMMITTED,
            account,
            undefined,
          );
          break;
        }
        if (current !== TransferState.RECEIVED_FULFIL) {
          if (current === TransferState.COMMITTED) outcomes.push({ seq, result: 'replayed' });
          else wrongState(seq, current, TransferState.RECEIVED_FULFIL);
          break;
        }
        const payeeAmount = input.transfers.get(transferId)?.payeeAmount;
        if (payeeAmount === undefined) {
          fail(seq, 'TRANSFER_NOT_FOUND', 'no PAYEE_DFSP transferParticipant');
          break;
        }
        move(account, writeState(own, TransferState.COMMITTED, null), payeeAmount);
        outcomes.push({ seq, result: 'applied' });
        break;
      }
      case 'fx-reserve': {
        // fx-fulfil.js: RECEIVED_FULFIL_DEPENDENT stays as it is (the fulfil of the dependent transfer commits
        // it); only a notification to the initiating FSP.
        const needs = TransferState.RECEIVED_FULFIL_DEPENDENT;
        if (current === needs) {
          outcomes.push({ seq, result: 'applied' });
        } else if (
          current === TransferState.ABORTED_REJECTED ||
          historyOf(own).some((r) => r.transferStateId === needs)
        ) {
          // Already rejected, or redelivered after the fxTransfer moved on: nothing written.
          wrongState(seq, current, needs);
        } else {
          writeState(own, TransferState.ABORTED_REJECTED, rejectionReason.FX_FULFIL_INCORRECT_STATE);
          outcomes.push({
            seq,
            result: 'rejected',
            error: { name: 'INCORRECT_STATE', detail: `Invalid State: ${current} - expected: ${needs}` },
          });
        }
        break;
      }
      case 'abort':
      case 'abort-validation':
      case 'fx-abort':
      case 'fx-abort-validation': {
        const error = ABORT_ERRORS[action] as ErrorName;
        if (command.cyril) {
          cyrilStep(
            command,
            own,
            command.cyril,
            TransferState.RECEIVED_ERROR,
            TransferState.ABORTED_ERROR,
            account,
            error,
          );
          break;
        }
        releaseReservation(command, own, RELEASE.abort, account, error);
        break;
      }
      case 'timeout-reserved':
      case 'bulk-timeout-reserved':
        releaseReservation(command, own, RELEASE.timeout, account, 'EXPIRED');
        break;
      // handler.js: bulk-abort and reject book ABORTED_ERROR / ABORTED_REJECTED with the reason of the state the
      // fulfil handler wrote (getTransferInfoToChangePosition reads the latest transferStateChange's reason) and
      // answer with a success notification carrying the message as it came (no fspiopError to Kafka.proceed).
      case 'bulk-abort':
        releaseReservation(command, own, RELEASE.bulkAbort, account, undefined);
        break;
      case 'reject':
        releaseReservation(command, own, RELEASE.reject, account, undefined);
        break;
      case 'fx-timeout-reserved': {
        const needs = TransferState.RESERVED_TIMEOUT;
        if (current !== needs) {
          if (current === TransferState.EXPIRED_RESERVED)
            outcomes.push({ seq, result: 'replayed', error: { name: 'EXPIRED' } });
          else wrongState(seq, current, needs);
          break;
        }
        // fx-timeout-reserved.js: the change of the reservation on this account, subtracted.
        const reserved = changesPosition
          ? input.fxTransfers?.get(transferId)?.reservedChanges.get(command.accountId)
          : 0n;
        if (reserved === undefined) {
          fail(seq, 'TRANSFER_NOT_FOUND', `no RESERVED position change on account ${command.accountId}`);
          break;
        }
        move(account, writeState(own, TransferState.EXPIRED_RESERVED, rejectionReason.EXPIRED), -reserved);
        outcomes.push({ seq, result: 'applied', error: { name: 'EXPIRED' } });
        break;
      }
    }
  }

  /**
   * abort, abort-validation (without cyrilResult steps), timeout-reserved and the one-at-a-time handler's
   * bulk-abort, bulk-timeout-reserved and reject: + the payee amount on the key.
   */
  function releaseReservation(
    command: LedgerCommand,
    own: Target,
    release: Release,
    account: Running | undefined,
    error: ErrorName | undefined,
  ) {
    const { seq } = command;
    const { needs, result } = release;
    const withError = error ? { error: { name: error } } : {};
    const history = historyOf(own);
    const current = latest(own);
    if (current !== needs) {
      // A reject's ABORTED_REJECTED is its own only after RECEIVED_REJECT: a prepare writes that state too.
      const own =
        current === result && (result !== TransferState.ABORTED_REJECTED || history.at(-2)?.transferStateId === needs);
      if (own) outcomes.push({ seq, result: 'replayed', ...withError });
      else wrongState(seq, current, needs);
      return;
    }
    const reason =
      release.reason === 'expired'
        ? rejectionReason.EXPIRED
        : release.reason === 'kept'
          ? (history.at(-1)?.reason ?? null)
          : null;
    const payeeAmount = input.transfers.get(own.id)?.payeeAmount;
    if (payeeAmount === undefined) {
      fail(seq, 'TRANSFER_NOT_FOUND', 'no PAYEE_DFSP transferParticipant');
      return;
    }
    // The payee row is stored negative, so adding it releases what the prepare reserved on the payer.
    move(account, writeState(own, result, reason), payeeAmount);
    outcomes.push({ seq, result: 'applied', ...withError });
  }

  const positionUpdates = [...running.values()]
    .filter((account) => account.touched)
    .map((account) => ({ participantPositionId: account.facts.participantPositionId, value: account.value }));
  return {
    stateChanges,
    positionChanges,
    positionUpdates,
    outcomes,
    ...(transferErrors.length > 0 ? { transferErrors } : {}),
  };
}
