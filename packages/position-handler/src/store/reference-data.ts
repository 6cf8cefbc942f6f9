/**
 * The ledger's reference data (each participant's accounts with their NET_DEBIT_CAP, and the settlement models),
 * kept for `ttlMs` so a batch does not read it again: central-ledger caches the same facts
 * (participantCurrencyCached, participantLimitCached, settlementModelCached; CACHE.EXPIRES_IN_MS). A changed
 * limit or a new account is seen within `ttlMs`; 0 reads them in every batch. Positions, the changing facts,
 * are never cached: they are read under lock in each transaction.
 */
export interface AccountRow {
  participantCurrencyId: number | string;
  participantId: number | string;
  currencyId: string;
  ledgerAccountTypeId: number | string;
  netDebitCap: string | null;
}

export interface SettlementModelRow {
  currencyId: string | null;
  ledgerAccountTypeId: number | string;
  settlementAccountTypeId: number | string;
  requireLiquidityCheck: number | boolean;
}

interface Entry<T> {
  readonly value: T;
  readonly expiresAt: number;
}

export class ReferenceData {
  /** participantCurrencyId → every account of its participant (its settlement account is among them). */
  private readonly accountsByAccount = new Map<string, Entry<readonly AccountRow[]>>();
  private models: Entry<readonly SettlementModelRow[]> | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The accounts of the participants that own `accountIds`; `load` reads those of the ids not held (one
   * statement for all of them). An id the ledger does not know is not remembered: it may be created any time.
   */
  async accounts(
    accountIds: readonly string[],
    load: (missing: readonly string[]) => Promise<AccountRow[]>,
  ): Promise<AccountRow[]> {
    const now = this.now();
    const missing = accountIds.filter((id) => !this.fresh(this.accountsByAccount.get(id), now));
    if (missing.length > 0) {
      const rows = await load(missing);
      const byParticipant = new Map<string, AccountRow[]>();
      for (const row of rows) {
        const participant = String(row.participantId);
        let group = byParticipant.get(participant);
        if (!group) {
          group = [];
          byParticipant.set(participant, group);
        }
        group.push(row);
      }
      if (this.ttlMs > 0) {
        const expiresAt = now + this.ttlMs;
        for (const group of byParticipant.values()) {
          for (const row of group)
            this.accountsByAccount.set(String(row.participantCurrencyId), { value: group, expiresAt });
        }
      } else {
        return rows;
      }
    }
    const seen = new Set<readonly AccountRow[]>();
    const result: AccountRow[] = [];
    for (const id of accountIds) {
      const group = this.accountsByAccount.get(id)?.value;
      if (group && !seen.has(group)) {
        seen.add(group);
        result.push(...group);
      }
    }
    return result;
  }

  async settlementModels(load: () => Promise<SettlementModelRow[]>): Promise<readonly SettlementModelRow[]> {
    const now = this.now();
    if (this.models && this.fresh(this.models, now)) return this.models.value;
    const value = await load();
    if (this.ttlMs > 0) this.models = { value, expiresAt: now + this.ttlMs };
    return value;
  }

  private fresh(entry: Entry<unknown> | undefined, now: number): boolean {
    return entry !== undefined && entry.expiresAt > now;
  }
}
