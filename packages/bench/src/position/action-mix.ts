import { parseAmount } from '@mojafast/position-handler';
import type { GeneratedFxTransfer, GeneratedTransfer } from '@mojafast/position-handler/testing';

/**
 * Which actions a generated run replays (prepare only, commit only for transfers already prepared,
 * mixed, aborts, limit breaches):
 * - `prepare,commit`: the prepares, then the fulfil outcomes of the accepted ones (two phases);
 * - `prepare`: the prepares only;
 * - `commit`: only the fulfil outcomes, of transfers provisioned as already reserved;
 * - `mixed`: one phase, prepares of new transfers interleaved with the outcomes of reserved ones.
 */
export type MixPhases = 'prepare,commit' | 'prepare' | 'commit' | 'mixed';
export const MIX_PHASES: readonly MixPhases[] = ['prepare,commit', 'prepare', 'commit', 'mixed'];

export interface ActionMix {
  readonly phases: MixPhases;
  /** Share of the fulfil outcomes that are aborts (the transfer in RECEIVED_ERROR) instead of commits. */
  readonly aborts: number;
  /** Share of the prepares whose amount is over the payer's net debit cap: refused with 4200. */
  readonly breaches: number;
  /**
   * Share of the transfers done as FX: a payer-side conversion, its fx-prepare and the dependent
   * prepare in the prepare phase, the dependent transfer's commit (two cyrilResult steps) in the commit phase.
   */
  readonly fx?: number;
}

export const defaultMix: ActionMix = Object.freeze({ phases: 'prepare,commit', aborts: 0, breaches: 0 });

export function isDefaultMix(mix: ActionMix): boolean {
  return mix.phases === defaultMix.phases && mix.aborts === 0 && mix.breaches === 0 && !mix.fx;
}

/** fx-prepare, fx-dependent-prepare (the dependent transfer's prepare) and fx-commit (its commit) belong to an FX transfer. */
export type StepAction = 'prepare' | 'commit' | 'abort' | 'fx-prepare' | 'fx-dependent-prepare' | 'fx-commit';

export interface MixStep {
  readonly transfer: GeneratedTransfer;
  readonly action: StepAction;
  /** FX steps: the conversion (its transferId is the dependent transfer, `transfer`'s id). */
  readonly fx?: GeneratedFxTransfer;
}

/** The id a step's message and notification carry: the commitRequestId for fx-prepare, else the transfer's. */
export function stepId(step: MixStep): string {
  return step.action === 'fx-prepare' && step.fx ? step.fx.commitRequestId : step.transfer.transferId;
}

/** The action of the notification that answers a step. */
export function notifiedAction(action: StepAction): string {
  return action === 'fx-dependent-prepare' ? 'prepare' : action === 'fx-commit' ? 'commit' : action;
}

export interface MixPhase {
  readonly label: 'prepare' | 'commit' | 'mixed';
  readonly steps: readonly MixStep[];
  /** Error notifications the phase must produce: the refused prepares and the aborts. */
  readonly expectedErrors: number;
}

export interface MixPlan {
  /** Every transfer, breaching ones carrying their over-the-cap amount. */
  readonly transfers: readonly GeneratedTransfer[];
  /** Provisioned as the prepare handler and a position handler before us would leave them: RESERVED. */
  readonly reserved: readonly GeneratedTransfer[];
  /** Transfer ids of the prepares over the net debit cap. */
  readonly breaching: ReadonlySet<string>;
  /** The transfers done as FX: their conversions (the dependent transfer is in the target currency). */
  readonly fx: readonly GeneratedFxTransfer[];
  readonly phases: readonly MixPhase[];
}

/** Index i is picked when ⌊(i+1)·share⌋ > ⌊i·share⌋: the share spread evenly and the same on every run. */
export function picked(index: number, share: number): boolean {
  return Math.floor((index + 1) * share) > Math.floor(index * share);
}

/**
 * The phases of a run and what each must produce. `breachAmount` must exceed every payer's net debit cap;
 * breaching prepares get no fulfil outcome (they end ABORTED_REJECTED).
 */
export function planMix(
  generated: readonly GeneratedTransfer[],
  mix: ActionMix,
  breachAmount: string,
  fxOf?: (transfer: GeneratedTransfer) => GeneratedFxTransfer,
): MixPlan {
  if (mix.phases === 'commit' && mix.breaches > 0)
    throw new Error('--breaches needs prepares: not with --actions commit');
  if (mix.fx && mix.phases !== 'prepare,commit') throw new Error('--fx needs --actions prepare,commit');
  if (mix.fx && !fxOf) throw new Error('an FX mix needs the conversion of a transfer');
  const outcomeOf = (index: number): StepAction => (picked(index, mix.aborts) ? 'abort' : 'commit');
  const prepareStep = (transfer: GeneratedTransfer): MixStep => ({ transfer, action: 'prepare' });
  const errorsOf = (steps: readonly MixStep[], breaching: ReadonlySet<string>) =>
    steps.filter((s) => s.action === 'abort' || (s.action === 'prepare' && breaching.has(s.transfer.transferId)))
      .length;

  // Reserved transfers (commit, mixed) take the even positions in mixed; fresh ones can breach.
  const reservedIndex = (i: number) => mix.phases === 'commit' || (mix.phases === 'mixed' && i % 2 === 0);
  let freshCount = 0;
  const breaching = new Set<string>();
  const transfers = generated.map((t, i) => {
    if (reservedIndex(i)) return t;
    const breach = picked(freshCount++, mix.breaches);
    if (!breach) return t;
    breaching.add(t.transferId);
    return { ...t, amount: breachAmount };
  });
  const reserved = transfers.filter((_, i) => reservedIndex(i));
  const fresh = transfers.filter((_, i) => !reservedIndex(i));
  // FX: a share of the fresh transfers that are not limit breaches, spread evenly.
  const fxById = new Map<string, GeneratedFxTransfer>();
  if (mix.fx && fxOf) {
    let fxIndex = 0;
    for (const t of fresh) {
      if (breaching.has(t.transferId)) continue;
      if (picked(fxIndex++, mix.fx)) fxById.set(t.transferId, fxOf(t));
    }
  }
  const fxSteps = (t: GeneratedTransfer, ...actions: StepAction[]): MixStep[] => {
    const fx = fxById.get(t.transferId);
    return fx ? actions.map((action) => ({ transfer: t, action, fx })) : [];
  };

  const phases: MixPhase[] = [];
  const outcomes = (list: readonly GeneratedTransfer[]) =>
    list.map((transfer, i) => ({ transfer, action: outcomeOf(i) }));
  if (mix.phases === 'prepare,commit' || mix.phases === 'prepare') {
    const steps = fresh.flatMap((t) =>
      fxById.has(t.transferId) ? fxSteps(t, 'fx-prepare', 'fx-dependent-prepare') : [prepareStep(t)],
    );
    phases.push({ label: 'prepare', steps, expectedErrors: errorsOf(steps, breaching) });
  }
  if (mix.phases === 'prepare,commit') {
    const plain = outcomes(fresh.filter((t) => !breaching.has(t.transferId) && !fxById.has(t.transferId)));
    const byId = new Map(plain.map((s) => [s.transfer.transferId, s]));
    const steps = fresh.flatMap((t) =>
      fxById.has(t.transferId)
        ? fxSteps(t, 'fx-commit')
        : byId.has(t.transferId)
          ? [byId.get(t.transferId) as MixStep]
          : [],
    );
    phases.push({ label: 'commit', steps, expectedErrors: errorsOf(steps, breaching) });
  }
  if (mix.phases === 'commit') {
    const steps = outcomes(reserved);
    phases.push({ label: 'commit', steps, expectedErrors: errorsOf(steps, breaching) });
  }
  if (mix.phases === 'mixed') {
    const settled = outcomes(reserved);
    const steps: MixStep[] = [];
    for (let i = 0; i < Math.max(settled.length, fresh.length); i++) {
      const outcome = settled[i];
      const transfer = fresh[i];
      if (outcome) steps.push(outcome);
      if (transfer) steps.push(prepareStep(transfer));
    }
    phases.push({ label: 'mixed', steps, expectedErrors: errorsOf(steps, breaching) });
  }
  return { transfers, reserved, breaching, fx: [...fxById.values()], phases };
}

/**
 * Final position per account, in ten-thousandths, keyed `dfsp:currency`: the reserved transfers and every
 * accepted prepare add the amount to the payer; an abort takes it back; a commit takes it from the payee.
 */
export function expectedPositionsOf(plan: MixPlan): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  const add = (dfsp: string, currency: string, delta: bigint) => {
    const key = `${dfsp}:${currency}`;
    totals.set(key, (totals.get(key) ?? 0n) + delta);
  };
  for (const t of plan.reserved) add(t.payer, t.currency, parseAmount(t.amount));
  for (const phase of plan.phases) {
    for (const { transfer: t, action, fx } of phase.steps) {
      // FX (a payer-side conversion): the payer's source position, the FXP's target position (the dependent
      // prepare), then the FXP's source and the payee's target positions (the commit's two steps).
      if (fx && action === 'fx-prepare') add(fx.payer, fx.sourceCurrency, parseAmount(fx.sourceAmount));
      else if (fx && action === 'fx-dependent-prepare') add(fx.fxp, fx.targetCurrency, parseAmount(fx.targetAmount));
      else if (fx && action === 'fx-commit') {
        add(fx.fxp, fx.sourceCurrency, -parseAmount(fx.sourceAmount));
        add(fx.payee, fx.targetCurrency, -parseAmount(fx.targetAmount));
      } else if (action === 'commit') add(t.payee, t.currency, -parseAmount(t.amount));
      else if (action === 'abort') add(t.payer, t.currency, -parseAmount(t.amount));
      else if (!plan.breaching.has(t.transferId)) add(t.payer, t.currency, parseAmount(t.amount));
    }
  }
  return totals;
}
