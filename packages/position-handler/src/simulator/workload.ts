import type { AccountRecord, SettlementModelRecord } from '../ledger/accounts.js';
import { type Amount, formatAmount } from '../ledger/amount.js';
import { TransferState } from '../ledger/types.js';
import { generatePositionMessages, type KeyedMessage } from '../testing/messages.js';
import type { Prng } from './prng.js';

/** A DFSP's two accounts: the position account (its messages' key) and the settlement account (liquidity). */
export interface SimDfsp {
  readonly name: string;
  readonly position: string;
  readonly settlement: string;
}

/** One transfer's life: its prepare, then (when reserved) the commit or the abort upstream sends after it. */
export interface SimTransfer {
  readonly id: string;
  readonly payer: SimDfsp;
  readonly payee: SimDfsp;
  readonly amount: Amount;
  /** Over the payer's net debit cap whatever the order of the others: always refused with 4200. */
  readonly breach: boolean;
  readonly ending: 'commit' | 'abort';
}

/** One position message and where its result stands in the pure replay. */
export interface SimMessage extends KeyedMessage {
  readonly transferId: string;
  readonly action: 'prepare' | 'commit' | 'abort';
}

export const CURRENCY = 'USD';
const UNIT = 10_000n;
/** Every DFSP's net debit cap: more than all the transfers of a seed together, less than one breach. */
export const NET_DEBIT_CAP = 10_000n * UNIT;
const BREACH = 100_000n * UNIT;
/** Liquidity cover of every DFSP: never the limit here (the net debit cap is). */
const LIQUIDITY = 10_000_000n * UNIT;

/**
 * A seed's ledger and transfers. The outcomes do not depend on the order the handler meets the messages in:
 * normal prepares together stay under every cap, a breach exceeds it alone, and a commit or abort is sent only
 * once its prepare's notification was acknowledged (as the fulfil handler only answers a prepare that reached
 * the payee). So the pure replay below is the one right answer for every interleaving.
 */
export class Workload {
  readonly dfsps: SimDfsp[];
  readonly transfers: SimTransfer[];
  readonly accounts: AccountRecord[];
  readonly settlementModels: SettlementModelRecord[] = [
    { currencyId: CURRENCY, ledgerAccountTypeId: 1, settlementAccountTypeId: 2, requireLiquidityCheck: true },
  ];

  constructor(prng: Prng, options: { readonly dfsps: number; readonly transfers: number }) {
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
      const payer = prng.pick(this.dfsps);
      const others = this.dfsps.filter((d) => d !== payer);
      const breach = prng.chance(0.1);
      return {
        id: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
        payer,
        payee: prng.pick(others),
        amount: breach ? BREACH : BigInt(prng.int(1, 200)) * UNIT + BigInt(prng.pick([0, 5000])),
        breach,
        ending: prng.chance(0.7) ? 'commit' : 'abort',
      };
    });
  }

  /** Initial positions: positions at 0, settlement accounts at -(liquidity cover). */
  initialValue(accountId: string): Amount {
    return this.dfsps.some((d) => d.settlement === accountId) ? -LIQUIDITY : 0n;
  }

  message(transfer: SimTransfer, action: SimMessage['action'], now: Date): SimMessage {
    const [message] = generatePositionMessages({
      transfers: [
        {
          transferId: transfer.id,
          payer: transfer.payer.name,
          payee: transfer.payee.name,
          currency: CURRENCY,
          amount: formatAmount(transfer.amount),
        },
      ],
      action,
      accountOf: (dfsp) => this.dfsps.find((d) => d.name === dfsp)?.position ?? '0',
      now,
    });
    return { ...(message as KeyedMessage), transferId: transfer.id, action };
  }

  /** The pure replay: each transfer's final state and each account's final value, whatever the interleaving. */
  replay(): { readonly states: Map<string, string>; readonly values: Map<string, Amount> } {
    const states = new Map<string, string>();
    const values = new Map(
      this.accounts.map((a) => [a.participantCurrencyId, this.initialValue(a.participantCurrencyId)]),
    );
    const add = (account: string, change: Amount) => values.set(account, (values.get(account) ?? 0n) + change);
    for (const t of this.transfers) {
      if (t.breach) {
        states.set(t.id, TransferState.ABORTED_REJECTED);
        continue;
      }
      add(t.payer.position, t.amount);
      if (t.ending === 'commit') {
        add(t.payee.position, -t.amount);
        states.set(t.id, TransferState.COMMITTED);
      } else {
        add(t.payer.position, -t.amount);
        states.set(t.id, TransferState.ABORTED_ERROR);
      }
    }
    return { states, values };
  }
}
