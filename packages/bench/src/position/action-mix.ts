import { type GeneratedTransfer, parseAmount } from '@mojafast/position-handler';

/**
 * Which actions a generated run replays (issue #6: prepare only, commit only for transfers already prepared,
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
}

export const defaultMix: ActionMix = Object.freeze({ phases: 'prepare,commit', aborts: 0, breaches: 0 });

export function isDefaultMix(mix: ActionMix): boolean {
  return mix.phases === defaultMix.phases && mix.aborts === 0 && mix.breaches === 0;
}

export type StepAction = 'prepare' | 'commit' | 'abort';

export interface MixStep {
  readonly transfer: GeneratedTransfer;
  readonly action: StepAction;
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
export function planMix(generated: readonly GeneratedTransfer[], mix: ActionMix, breachAmount: string): MixPlan {
  if (mix.phases === 'commit' && mix.breaches > 0)
    throw new Error('--breaches needs prepares: not with --actions commit');
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

  const phases: MixPhase[] = [];
  const outcomes = (list: readonly GeneratedTransfer[]) =>
    list.map((transfer, i) => ({ transfer, action: outcomeOf(i) }));
  if (mix.phases === 'prepare,commit' || mix.phases === 'prepare') {
    const steps = fresh.map(prepareStep);
    phases.push({ label: 'prepare', steps, expectedErrors: errorsOf(steps, breaching) });
  }
  if (mix.phases === 'prepare,commit') {
    const steps = outcomes(fresh.filter((t) => !breaching.has(t.transferId)));
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
  return { transfers, reserved, breaching, phases };
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
    for (const { transfer: t, action } of phase.steps) {
      if (action === 'commit') add(t.payee, t.currency, -parseAmount(t.amount));
      else if (action === 'abort') add(t.payer, t.currency, -parseAmount(t.amount));
      else if (!plan.breaching.has(t.transferId)) add(t.payer, t.currency, parseAmount(t.amount));
    }
  }
  return totals;
}
