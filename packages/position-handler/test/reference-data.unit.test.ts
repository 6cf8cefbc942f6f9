import { describe, expect, it } from 'vitest';
import { type AccountRow, ReferenceData, type SettlementModelRow } from '../src/store/reference-data.js';

const payer: AccountRow[] = [
  { participantCurrencyId: '3', participantId: '2', currencyId: 'USD', ledgerAccountTypeId: 1, netDebitCap: '1000' },
  { participantCurrencyId: '4', participantId: '2', currencyId: 'USD', ledgerAccountTypeId: 2, netDebitCap: null },
];
const payee: AccountRow[] = [
  { participantCurrencyId: '5', participantId: '3', currencyId: 'USD', ledgerAccountTypeId: 1, netDebitCap: '500' },
];
const ledger = [...payer, ...payee];
const model: SettlementModelRow = {
  currencyId: null,
  ledgerAccountTypeId: 1,
  settlementAccountTypeId: 2,
  requireLiquidityCheck: 1,
};

/** A loader over `rows` that records which ids each call asked for. */
function loaderOf(rows: AccountRow[]) {
  const calls: string[][] = [];
  const load = async (ids: readonly string[]) => {
    calls.push([...ids]);
    const participants = new Set(
      rows.filter((r) => ids.includes(String(r.participantCurrencyId))).map((r) => r.participantId),
    );
    return rows.filter((r) => participants.has(r.participantId)).map((r) => ({ ...r }));
  };
  return { calls, load };
}

describe('ReferenceData (accounts, limits and settlement models reused for a TTL)', () => {
  it('answers every account of the participants involved, and within the TTL without reading again', async () => {
    let now = 0;
    const reference = new ReferenceData(1000, () => now);
    const { calls, load } = loaderOf(ledger);
    expect((await reference.accounts(['3'], load)).map((r) => r.participantCurrencyId)).toEqual(['3', '4']);
    now = 999;
    // '4' came with '3' (same participant); only the payee's account is new.
    expect((await reference.accounts(['3', '4', '5'], load)).map((r) => r.participantCurrencyId)).toEqual([
      '3',
      '4',
      '5',
    ]);
    expect(calls).toEqual([['3'], ['5']]);
  });

  it('reads again once the TTL has passed, and so sees a changed limit', async () => {
    let now = 0;
    const reference = new ReferenceData(1000, () => now);
    const rows = ledger.map((r) => ({ ...r }));
    const { load } = loaderOf(rows);
    expect((await reference.accounts(['3'], load))[0]?.netDebitCap).toBe('1000');
    (rows[0] as AccountRow).netDebitCap = '2000';
    now = 500;
    expect((await reference.accounts(['3'], load))[0]?.netDebitCap).toBe('1000');
    now = 1000;
    expect((await reference.accounts(['3'], load))[0]?.netDebitCap).toBe('2000');
  });

  it('with TTL 0 reads in every batch', async () => {
    const reference = new ReferenceData(0, () => 0);
    const { calls, load } = loaderOf(ledger);
    await reference.accounts(['3'], load);
    await reference.accounts(['3'], load);
    expect(calls).toEqual([['3'], ['3']]);
    let modelReads = 0;
    const loadModels = async () => {
      modelReads += 1;
      return [model];
    };
    await reference.settlementModels(loadModels);
    await reference.settlementModels(loadModels);
    expect(modelReads).toBe(2);
  });

  it('does not remember an account the ledger does not know (bad input: key of an unknown account)', async () => {
    const reference = new ReferenceData(1000, () => 0);
    const rows: AccountRow[] = [];
    const { calls, load } = loaderOf(rows);
    expect(await reference.accounts(['9'], load)).toEqual([]);
    rows.push({
      participantCurrencyId: '9',
      participantId: '7',
      currencyId: 'EUR',
      ledgerAccountTypeId: 1,
      netDebitCap: '1',
    });
    expect((await reference.accounts(['9'], load)).map((r) => r.participantCurrencyId)).toEqual(['9']);
    expect(calls).toEqual([['9'], ['9']]);
  });

  it('keeps the settlement models for the TTL', async () => {
    let now = 0;
    const reference = new ReferenceData(1000, () => now);
    let reads = 0;
    const load = async () => {
      reads += 1;
      return [model];
    };
    expect(await reference.settlementModels(load)).toEqual([model]);
    now = 999;
    await reference.settlementModels(load);
    expect(reads).toBe(1);
    now = 1000;
    await reference.settlementModels(load);
    expect(reads).toBe(2);
  });
});
