import { describe, expect, it } from 'vitest';
import {
  type AccountRecord,
  accountFactsOf,
  accountsToLock,
  type PositionRecord,
  readsFor,
  resolveSettlementAccounts,
  type SettlementModelRecord,
} from '../src/ledger/accounts.js';
import { parseAmount } from '../src/ledger/amount.js';
import type { LedgerCommand } from '../src/ledger/types.js';

// Participant 2 (payer): USD position 3, USD settlement 4, EUR position 5 with no EUR settlement account.
// Participant 7 (payee): USD position 8.
const accounts: AccountRecord[] = [
  {
    participantCurrencyId: '3',
    participantId: '2',
    currencyId: 'USD',
    ledgerAccountTypeId: 1,
    netDebitCap: 10_000_000n,
  },
  { participantCurrencyId: '4', participantId: '2', currencyId: 'USD', ledgerAccountTypeId: 2, netDebitCap: undefined },
  { participantCurrencyId: '5', participantId: '2', currencyId: 'EUR', ledgerAccountTypeId: 1, netDebitCap: 10_000n },
  { participantCurrencyId: '8', participantId: '7', currencyId: 'USD', ledgerAccountTypeId: 1, netDebitCap: 10_000n },
];
const anyCurrency: SettlementModelRecord = {
  currencyId: null,
  ledgerAccountTypeId: 1,
  settlementAccountTypeId: 2,
  requireLiquidityCheck: true,
};
const position = (id: string, value: string): PositionRecord => ({
  participantCurrencyId: id,
  participantPositionId: `${id}0`,
  value: parseAmount(value),
  reservedValue: 0n,
});
const command = (seq: number, action: LedgerCommand['action'], accountId: string): LedgerCommand => ({
  seq,
  action,
  transferId: `t${seq}`,
  accountId,
  ...(action === 'prepare' ? { amount: 10_000n } : {}),
});

describe('readsFor: what a batch must read', () => {
  it('accounts sorted numerically without the no-position key 0, prepare accounts, payee reads for the other actions', () => {
    const reads = readsFor([command(0, 'prepare', '10'), command(1, 'commit', '8'), command(2, 'abort', '0')]);
    expect(reads.accountIds).toEqual(['8', '10']);
    expect([...reads.prepareAccountIds]).toEqual(['10']);
    expect(reads.transferIds).toEqual(['t0', 't1', 't2']);
    expect(reads.payeeTransferIds).toEqual(['t1', 't2']);
  });
});

describe('resolveSettlementAccounts (central-ledger binProcessor _constructRequiredMaps)', () => {
  it("the currency's own model first, else the model with no currency; then the participant's account of its settlement type", () => {
    const usdOwn: SettlementModelRecord = { ...anyCurrency, currencyId: 'USD', requireLiquidityCheck: false };
    const choices = resolveSettlementAccounts(accounts, [anyCurrency, usdOwn], new Set(['3', '5']));
    expect(choices.get('3')).toEqual({ model: usdOwn, accountId: '4' });
    // EUR has no model of its own: the currency-less one, but the participant has no EUR settlement account.
    expect(choices.get('5')).toEqual({ model: anyCurrency, accountId: undefined });
    expect(choices.has('8')).toBe(false); // not a prepare account
  });

  it('no model for the ledger account type: none chosen', () => {
    const choices = resolveSettlementAccounts(accounts, [{ ...anyCurrency, ledgerAccountTypeId: 9 }], new Set(['3']));
    expect(choices.get('3')).toEqual({ model: undefined, accountId: undefined });
  });

  it('the settlement accounts are locked beside the batch accounts, in one numeric order', () => {
    const reads = readsFor([command(0, 'prepare', '3'), command(1, 'commit', '10')]);
    const choices = resolveSettlementAccounts(accounts, [anyCurrency], reads.prepareAccountIds);
    expect(accountsToLock(reads, choices)).toEqual(['3', '4', '10']);
  });
});

describe('accountFactsOf: liquidity cover and why a prepare account cannot be checked', () => {
  const reads = readsFor([command(0, 'prepare', '3'), command(1, 'prepare', '5'), command(2, 'commit', '8')]);
  const positions = new Map([
    ['3', position('3', '5')],
    ['4', position('4', '-1000')],
    ['5', position('5', '0')],
    ['8', position('8', '-2')],
  ]);

  it('cover = -(settlement account value); no settlement account → problem; non-prepare accounts are not checked', () => {
    const choices = resolveSettlementAccounts(accounts, [anyCurrency], reads.prepareAccountIds);
    const facts = accountFactsOf(reads, accounts, choices, positions);
    expect(facts.get('3')).toEqual({
      participantCurrencyId: '3',
      participantPositionId: '30',
      value: parseAmount('5'),
      reservedValue: 0n,
      netDebitCap: 10_000_000n,
      liquidityCover: parseAmount('1000'),
    });
    expect(facts.get('5')?.prepareProblem).toBe('no settlement account position for account 5');
    expect(facts.get('8')?.liquidityCover).toBeNull();
    expect(facts.get('8')?.prepareProblem).toBeUndefined();
  });

  it('a model without the liquidity check leaves the cover null; no model at all is a problem', () => {
    const noCheck = resolveSettlementAccounts(
      accounts,
      [{ ...anyCurrency, requireLiquidityCheck: false }],
      reads.prepareAccountIds,
    );
    expect(accountFactsOf(reads, accounts, noCheck, positions).get('5')).toMatchObject({ liquidityCover: null });
    expect(accountFactsOf(reads, accounts, noCheck, positions).get('5')?.prepareProblem).toBeUndefined();
    const none = resolveSettlementAccounts(accounts, [], reads.prepareAccountIds);
    expect(accountFactsOf(reads, accounts, none, positions).get('3')?.prepareProblem).toBe(
      'no settlement model for currency USD',
    );
  });

  it('an account without a participantCurrency row or a position is left out (the planner answers ACCOUNT_NOT_FOUND)', () => {
    const unknown = readsFor([command(0, 'commit', '99')]);
    expect(accountFactsOf(unknown, accounts, new Map(), positions).size).toBe(0);
  });
});
