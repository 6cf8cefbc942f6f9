import type { AccountRecord, SettlementModelRecord } from '../ledger/accounts.js';
import { type Amount, formatAmount } from '../ledger/amount.js';
import { type PositionAction, TransferState } from '../ledger/types.js';
import type { KeyedMessage } from '../testing/messages.js';
import type { Prng } from './prng.js';
import {
  ABORT_CODE,
  CURRENCY,
  FX_ABORT_CODE,
  fxCommitMessage,
  fxMessage,
  fxTwoStepAbortMessage,
  payeeTwoStepAbortMessage,
  type SimCyrilChange,
  TARGET_CURRENCY,
  transferMessage,
} from './sim-messages.js';

export { CURRENCY } from './sim-messages.js';

/**
 * A DFSP's accounts: in USD the position account (its messages' key) and the settlement account (liquidity); the
 * same two in EUR, the conversions' target currency.
 */
export interface SimDfsp {
  readonly name: string;
  readonly position: string;
  readonly settlement: string;
  readonly eurPosition: string;
  readonly eurSettlement: string;
}

/**
 * What a transfer is: a plain one (the batch handler's prepare, commit, abort, timeout-reserved), one of a bulk
 * (the one-at-a-time handler's bulk-prepare, bulk-commit, bulk-abort, bulk-timeout-reserved), or a payer-side
 * conversion (an fxTransfer: fx-prepare, then fx-abort, fx-timeout-reserved, or fx-reserve and then the timeout,
 * or the dependent transfer's prepare and its two-step commit, the two-step fx-abort or the payee's two-step abort).
 */
export type SimKind = 'plain' | 'bulk' | 'fx';

/**
 * How a reserved transfer ends: upstream's message after the reservation's notification was acknowledged. A
 * conversion's 'commit', 'dependent-then-abort' (the FXP's fx-abort) and 'dependent-then-payee-abort' (the payee's
 * abort of the dependent transfer) go through fx-reserve and the dependent transfer's prepare first.
 */
export type SimEnding =
  | 'commit'
  | 'abort'
  | 'timeout'
  | 'reserve-then-timeout'
  | 'dependent-then-abort'
  | 'dependent-then-payee-abort';

/** One transfer's (or conversion's) life: its prepare, then (when reserved) the messages upstream sends after it. */
export interface SimTransfer {
  readonly id: string;
  readonly kind: SimKind;
  /** The payer, or the conversion's initiating FSP. */
  readonly payer: SimDfsp;
  /** The payee, or the conversion's FXP. */
  readonly payee: SimDfsp;
  /** The amount, or the conversion's source amount (what the initiating FSP's position reserves). */
  readonly amount: Amount;
  /** Over the payer's net debit cap whatever the order of the others: always refused with 4200. */
  readonly breach: boolean;
  readonly ending: SimEnding;
  /**
   * A conversion that gets a dependent transfer (not refused, ending 'commit' or 'dependent-then-…'): its id,
   * its creditor (the payee of the transfer, the FXP's counterparty in EUR) and the target amount it reserves on
   * the FXP's EUR account.
   */
  readonly dependent?: { readonly id: string; readonly creditor: SimDfsp; readonly amount: Amount };
}

/**
 * One message of a transfer's life: its action, the state upstream records before sending it (the fulfil and
 * timeout handlers write it) and on which (the conversion's dependent transfer, or the transfer or fxTransfer
 * itself), and the result its first notification must carry (none: it has only a follow-up). A message with two
 * cyrilResult steps: the result of its follow-up's first notification.
 */
export interface SimStep {
  readonly action: PositionAction;
  readonly upstreamState: string | undefined;
  readonly onDependent?: boolean;
  readonly expected: string | undefined;
  readonly followUpExpected?: string;
}

/**
 * One position message and where it stands in the transfer's life: upstream's, or the follow-up the handler put
 * on the log for its second cyrilResult step. transferId: the transfer's, or the conversion's commitRequestId for
 * every message of a conversion (its dependent transfer's too).
 */
export interface SimMessage extends KeyedMessage {
  readonly transferId: string;
  readonly action: PositionAction;
  /** Its index in the transfer's steps. */
  readonly step: number;
  readonly followUp: boolean;
}

/** One expected position change of a transfer (or fxTransfer) on an account. */
export interface SimChange {
  readonly account: string;
  readonly change: Amount;
}

const UNIT = 10_000n;
/** Every DFSP's net debit cap: more than all the transfers of a seed together, less than one breach. */
export const NET_DEBIT_CAP = 10_000n * UNIT;
const BREACH = 100_000n * UNIT;
/** Liquidity cover of every DFSP: never the limit here (the net debit cap is). */
const LIQUIDITY = 10_000_000n * UNIT;

/**
 * A seed's ledger and transfers. The outcomes do not depend on the order the handler meets the messages in:
 * normal prepares together stay under every cap, a breach exceeds it alone, and each message after a prepare is
 * sent only once the notification of the one before was acknowledged (as the fulfil handler only answers a
 * prepare that reached the payee, and the timeout handler only expires a reserved transfer). So the pure replay
 * below is the one right answer for every interleaving.
 */
export class Workload {
  readonly dfsps: SimDfsp[];
  readonly transfers: SimTransfer[];
  readonly accounts: AccountRecord[];
  /** Dependent transfer id → its conversion's commitRequestId. */
  readonly #conversionOf: Map<string, string>;
  readonly #byId: Map<string, SimTransfer>;
  readonly settlementModels: SettlementModelRecord[] = [
    { currencyId: CURRENCY, ledgerAccountTypeId: 1, settlementAccountTypeId: 2, requireLiquidityCheck: true },
    { currencyId: TARGET_CURRENCY, ledgerAccountTypeId: 1, settlementAccountTypeId: 2, requireLiquidityCheck: true },
  ];

  constructor(
    prng: Prng,
    options: {
      readonly dfsps: number;
      readonly transfers: number;
      /** Which kinds a seed draws from (swarm testing: some seeds have no bulk or no FX at all). */
      readonly kinds?: readonly SimKind[];
    },
  ) {
    const kinds = options.kinds ?? ['plain'];
    this.dfsps = Array.from({ length: options.dfsps }, (_, i) => ({
      name: `simfsp${i + 1}`,
      position: String(101 + 2 * i),
      settlement: String(102 + 2 * i),
      eurPosition: String(201 + 2 * i),
      eurSettlement: String(202 + 2 * i),
    }));
    this.accounts = this.dfsps.flatMap((d, i) =>
      [
        [CURRENCY, d.position, d.settlement],
        [TARGET_CURRENCY, d.eurPosition, d.eurSettlement],
      ].flatMap(([currencyId, position, settlement]) => [
        {
          participantCurrencyId: position as string,
          participantId: String(i + 2),
          currencyId: currencyId as string,
          ledgerAccountTypeId: 1,
          netDebitCap: NET_DEBIT_CAP,
        },
        {
          participantCurrencyId: settlement as string,
          participantId: String(i + 2),
          currencyId: currencyId as string,
          ledgerAccountTypeId: 2,
          netDebitCap: undefined,
        },
      ]),
    );
    this.transfers = Array.from({ length: options.transfers }, (_, i) => {
      const kind = prng.pick(kinds);
      const payer = prng.pick(this.dfsps);
      const others = this.dfsps.filter((d) => d !== payer);
      const breach = prng.chance(0.1);
      const endings: readonly SimEnding[] =
        kind === 'fx'
          ? [
              'abort',
              'timeout',
              'reserve-then-timeout',
              'commit',
              'commit',
              'dependent-then-abort',
              'dependent-then-payee-abort',
            ]
          : ['commit', 'commit', 'abort', 'timeout'];
      const amount = breach ? BREACH : BigInt(prng.int(1, 200)) * UNIT + BigInt(prng.pick([0, 5000]));
      const ending = prng.pick(endings);
      const hex = i.toString(16).padStart(12, '0');
      const dependent =
        kind === 'fx' && !breach && (ending === 'commit' || ending.startsWith('dependent-'))
          ? // The target amount differs from the source amount, so a step booked with the other's amount shows.
            { id: `00000000-0000-4000-d000-${hex}`, creditor: prng.pick(others), amount: (amount * 9n) / 10n }
          : undefined;
      return {
        // fxTransfers (commitRequestId) and transfers have ids of their own.
        id: `00000000-0000-4000-${kind === 'fx' ? 'f' : '8'}000-${hex}`,
        kind,
        payer,
        payee: prng.pick(others),
        amount,
        breach,
        ending,
        ...(dependent ? { dependent } : {}),
      };
    });
    this.#byId = new Map(this.transfers.map((t) => [t.id, t]));
    this.#conversionOf = new Map(this.transfers.flatMap((t) => (t.dependent ? [[t.dependent.id, t.id] as const] : [])));
  }

  /** Initial positions: positions at 0, settlement accounts (USD and EUR) at -(liquidity cover). */
  initialValue(accountId: string): Amount {
    return this.dfsps.some((d) => d.settlement === accountId || d.eurSettlement === accountId) ? -LIQUIDITY : 0n;
  }

  /** The messages of a transfer's life, in the order upstream sends them; a refused prepare is the only one. */
  steps(transfer: SimTransfer): readonly SimStep[] {
    const { kind, ending } = transfer;
    const refused = transfer.breach ? 'error 4200' : 'success';
    if (kind === 'fx') {
      const timeout = {
        action: 'fx-timeout-reserved',
        upstreamState: TransferState.RESERVED_TIMEOUT,
        expected: 'error 3303',
      } as const;
      const first = { action: 'fx-prepare', upstreamState: undefined, expected: refused } as const;
      if (transfer.breach) return [first];
      if (ending === 'abort')
        return [
          first,
          { action: 'fx-abort', upstreamState: TransferState.RECEIVED_ERROR, expected: `error ${FX_ABORT_CODE}` },
        ];
      if (ending === 'timeout') return [first, timeout];
      const reserve = {
        action: 'fx-reserve',
        upstreamState: TransferState.RECEIVED_FULFIL_DEPENDENT,
        expected: 'success',
      } as const;
      if (ending === 'reserve-then-timeout') return [first, reserve, timeout];
      const dependentPrepare = {
        action: 'prepare',
        upstreamState: undefined,
        onDependent: true,
        expected: 'success',
      } as const;
      if (ending === 'commit')
        return [
          first,
          reserve,
          dependentPrepare,
          // Step 1's notification is the FXP's fx-notify; the follow-up's the commit's, to the payer.
          {
            action: 'commit',
            upstreamState: TransferState.RECEIVED_FULFIL,
            onDependent: true,
            expected: 'success',
            followUpExpected: 'success',
          },
        ];
      if (ending === 'dependent-then-abort')
        return [
          first,
          reserve,
          dependentPrepare,
          // Step 1 notifies nobody (only its follow-up goes out); the follow-up the FXP's error, for both.
          {
            action: 'fx-abort',
            upstreamState: TransferState.RECEIVED_ERROR,
            expected: undefined,
            followUpExpected: `error ${FX_ABORT_CODE}`,
          },
        ];
      return [
        first,
        reserve,
        dependentPrepare,
        // The payee's rejection of the dependent transfer (the fulfil handler writes RECEIVED_ERROR on it): step 1
        // notifies nobody; the follow-up the payee's error to the payer, for both.
        {
          action: 'abort',
          upstreamState: TransferState.RECEIVED_ERROR,
          onDependent: true,
          expected: undefined,
          followUpExpected: `error ${ABORT_CODE}`,
        },
      ];
    }
    const bulk = kind === 'bulk';
    const first = { action: bulk ? 'bulk-prepare' : 'prepare', upstreamState: undefined, expected: refused } as const;
    if (transfer.breach) return [first];
    const last: SimStep =
      ending === 'commit'
        ? { action: bulk ? 'bulk-commit' : 'commit', upstreamState: TransferState.RECEIVED_FULFIL, expected: 'success' }
        : ending === 'abort'
          ? {
              action: bulk ? 'bulk-abort' : 'abort',
              upstreamState: TransferState.RECEIVED_ERROR,
              // bulk-abort's result is a success carrying the message (the one-at-a-time handler's).
              expected: bulk ? 'success' : `error ${ABORT_CODE}`,
            }
          : {
              action: bulk ? 'bulk-timeout-reserved' : 'timeout-reserved',
              upstreamState: TransferState.RESERVED_TIMEOUT,
              expected: 'error 3303',
            };
    return [first, last];
  }

  message(transfer: SimTransfer, step: number, now: Date): SimMessage {
    const { action, onDependent } = this.steps(transfer)[step] as SimStep;
    const accountOf = (dfsp: string) => this.dfsps.find((d) => d.name === dfsp)?.position ?? '0';
    const { dependent } = transfer;
    const parties = {
      id: transfer.id,
      payer: transfer.payer.name,
      payee: transfer.payee.name,
      amount: formatAmount(transfer.amount),
      ...(dependent ? { targetAmount: formatAmount(dependent.amount), dependentId: dependent.id } : {}),
    };
    let message: KeyedMessage;
    if (transfer.kind !== 'fx') message = transferMessage(parties, action, accountOf, now);
    else if (!dependent || (!onDependent && action !== 'fx-abort'))
      message = fxMessage(parties, action, transfer.payer.position, now);
    else if (action === 'prepare') {
      // cyril.js routes a payer-side conversion's dependent prepare to the FXP's account in the target currency.
      message = transferMessage(
        {
          id: dependent.id,
          payer: transfer.payer.name,
          payee: dependent.creditor.name,
          amount: parties.targetAmount ?? '',
        },
        'prepare',
        () => transfer.payee.eurPosition,
        now,
        TARGET_CURRENCY,
      );
    } else if (action === 'commit') {
      message = fxCommitMessage(
        parties,
        dependent.creditor.name,
        [
          { fx: true, id: transfer.id, account: transfer.payee.position, amount: formatAmount(-transfer.amount) },
          {
            fx: false,
            id: dependent.id,
            account: dependent.creditor.eurPosition,
            amount: formatAmount(-dependent.amount),
          },
        ],
        now,
      );
    } else {
      // cyril.js _getPositionChanges: the fxTransfer's reserved changes first, then the transfer's; isOriginalId
      // marks the aborted message's own (the fxTransfer for the FXP's fx-abort, the transfer for the payee's abort).
      const notifyTo = transfer.payer.name;
      const fxAbort = action === 'fx-abort';
      const steps: [SimCyrilChange, SimCyrilChange] = [
        {
          fx: true,
          id: transfer.id,
          account: transfer.payer.position,
          amount: formatAmount(-transfer.amount),
          notifyTo,
          isOriginalId: fxAbort,
        },
        {
          fx: false,
          id: dependent.id,
          account: transfer.payee.eurPosition,
          amount: formatAmount(-dependent.amount),
          notifyTo,
          isOriginalId: !fxAbort,
        },
      ];
      message = fxAbort
        ? fxTwoStepAbortMessage(parties, steps, now)
        : payeeTwoStepAbortMessage(parties, dependent.creditor.name, steps, now);
    }
    return { ...message, transferId: transfer.id, action, step, followUp: false };
  }

  /** The conversion a dependent transfer's id belongs to; any other id as it is. */
  ownerOf(id: string): string {
    return this.#conversionOf.get(id) ?? id;
  }

  /**
   * The action of the message a notification of `action` about `id` answers: an fx-notify answers a conversion's
   * commit; the payee's two-step abort tells the payer of the fxTransfer with an fx-abort (abort.js).
   */
  answeredAction(id: string, action: string): string {
    if (action === 'fx-notify') return 'commit';
    const transfer = this.#byId.get(this.ownerOf(id));
    return action === 'fx-abort' && transfer?.ending === 'dependent-then-payee-abort' ? 'abort' : action;
  }

  /**
   * The pure replay: each transfer's (and fxTransfer's) final state, each account's final value, and the position
   * changes each transfer must have made (its reservation once, its release or commit once), whatever the
   * interleaving.
   */
  replay(): {
    readonly states: Map<string, string>;
    readonly values: Map<string, Amount>;
    readonly changes: Map<string, SimChange[]>;
  } {
    const states = new Map<string, string>();
    const changes = new Map<string, SimChange[]>();
    const values = new Map(
      this.accounts.map((a) => [a.participantCurrencyId, this.initialValue(a.participantCurrencyId)]),
    );
    const add = (t: SimTransfer, account: string, change: Amount) => {
      values.set(account, (values.get(account) ?? 0n) + change);
      changes.get(t.id)?.push({ account, change });
    };
    for (const t of this.transfers) {
      changes.set(t.id, []);
      if (t.breach) {
        states.set(t.id, TransferState.ABORTED_REJECTED);
        continue;
      }
      add(t, t.payer.position, t.amount);
      const { dependent } = t;
      if (dependent) {
        // A conversion's commit books −source on the FXP's USD account and its dependent transfer, which reserved
        // the target amount on the FXP's EUR account, −target on the creditor's. The two-step fx-abort releases both
        // reservations where they were made.
        const committed = t.ending === 'commit';
        const state = committed ? TransferState.COMMITTED : TransferState.ABORTED_ERROR;
        add(t, committed ? t.payee.position : t.payer.position, -t.amount);
        states.set(t.id, state);
        changes.set(dependent.id, []);
        const own = { ...t, id: dependent.id };
        add(own, t.payee.eurPosition, dependent.amount);
        add(own, committed ? dependent.creditor.eurPosition : t.payee.eurPosition, -dependent.amount);
        states.set(dependent.id, state);
        continue;
      }
      if (t.ending === 'commit') {
        add(t, t.payee.position, -t.amount);
        states.set(t.id, TransferState.COMMITTED);
      } else {
        // Every release of a conversion is on the initiating FSP's account, where its fx-prepare reserved.
        add(t, t.payer.position, -t.amount);
        states.set(t.id, t.ending === 'abort' ? TransferState.ABORTED_ERROR : TransferState.EXPIRED_RESERVED);
      }
    }
    return { states, values, changes };
  }
}
