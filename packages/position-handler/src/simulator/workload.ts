import type { AccountRecord, SettlementModelRecord } from '../ledger/accounts.js';
import { type Amount, formatAmount } from '../ledger/amount.js';
import { type PositionAction, TransferState } from '../ledger/types.js';
import type { KeyedMessage } from '../testing/messages.js';
import type { Prng } from './prng.js';
import { ABORT_CODE, CURRENCY, FX_ABORT_CODE, fxMessage, transferMessage } from './sim-messages.js';

export { CURRENCY } from './sim-messages.js';

/** A DFSP's two accounts: the position account (its messages' key) and the settlement account (liquidity). */
export interface SimDfsp {
  readonly name: string;
  readonly position: string;
  readonly settlement: string;
}

/**
 * What a transfer is: a plain one (the batch handler's prepare, commit, abort, timeout-reserved), one of a bulk
 * (the one-at-a-time handler's bulk-prepare, bulk-commit, bulk-abort, bulk-timeout-reserved), or a payer-side
 * conversion (an fxTransfer: fx-prepare, then fx-abort, fx-timeout-reserved, or fx-reserve and later the timeout).
 */
export type SimKind = 'plain' | 'bulk' | 'fx';

/** How a reserved transfer ends: upstream's message after the reservation's notification was acknowledged. */
export type SimEnding = 'commit' | 'abort' | 'timeout' | 'reserve-then-timeout';

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
}

/**
 * One message of a transfer's life: its action, the state upstream records before sending it (the fulfil and
 * timeout handlers write it), and the result its first notification must carry.
 */
export interface SimStep {
  readonly action: PositionAction;
  readonly upstreamState: string | undefined;
  readonly expected: string;
}

/** One position message and where it stands in the transfer's life. */
export interface SimMessage extends KeyedMessage {
  readonly transferId: string;
  readonly action: PositionAction;
  /** Its index in the transfer's steps. */
  readonly step: number;
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
  readonly settlementModels: SettlementModelRecord[] = [
    { currencyId: CURRENCY, ledgerAccountTypeId: 1, settlementAccountTypeId: 2, requireLiquidityCheck: true },
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
    }));
    this.accounts = this.dfsps.flatMap((d, i) => [
      {
        participantCurrencyId: d.position,
        participantId: String(i + 2),
        currencyId: CURRENCY,
        ledgerAccountTypeId: 1,
        netDebitCap: NET_DEBIT_CAP,
      },
      {
        participantCurrencyId: d.settlement,
        participantId: String(i + 2),
        currencyId: CURRENCY,
        ledgerAccountTypeId: 2,
        netDebitCap: undefined,
      },
    ]);
    this.transfers = Array.from({ length: options.transfers }, (_, i) => {
      const kind = prng.pick(kinds);
      const payer = prng.pick(this.dfsps);
      const others = this.dfsps.filter((d) => d !== payer);
      const breach = prng.chance(0.1);
      const endings: readonly SimEnding[] =
        kind === 'fx' ? ['abort', 'timeout', 'reserve-then-timeout'] : ['commit', 'commit', 'abort', 'timeout'];
      return {
        // fxTransfers (commitRequestId) and transfers have ids of their own.
        id: `00000000-0000-4000-${kind === 'fx' ? 'f' : '8'}000-${i.toString(16).padStart(12, '0')}`,
        kind,
        payer,
        payee: prng.pick(others),
        amount: breach ? BREACH : BigInt(prng.int(1, 200)) * UNIT + BigInt(prng.pick([0, 5000])),
        breach,
        ending: prng.pick(endings),
      };
    });
  }

  /** Initial positions: positions at 0, settlement accounts at -(liquidity cover). */
  initialValue(accountId: string): Amount {
    return this.dfsps.some((d) => d.settlement === accountId) ? -LIQUIDITY : 0n;
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
      return [
        first,
        { action: 'fx-reserve', upstreamState: TransferState.RECEIVED_FULFIL_DEPENDENT, expected: 'success' },
        timeout,
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
    const { action } = this.steps(transfer)[step] as SimStep;
    const accountOf = (dfsp: string) => this.dfsps.find((d) => d.name === dfsp)?.position ?? '0';
    const parties = {
      id: transfer.id,
      payer: transfer.payer.name,
      payee: transfer.payee.name,
      amount: formatAmount(transfer.amount),
    };
    const message =
      transfer.kind === 'fx'
        ? fxMessage(parties, action, transfer.payer.position, now)
        : transferMessage(parties, action, accountOf, now);
    return { ...message, transferId: transfer.id, action, step };
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
