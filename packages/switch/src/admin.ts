import { request } from 'undici';

/**
 * central-ledger's admin API, called as a hub operator does when setting up a hub and onboarding DFSPs (the
 * community's provisioning collections, mojaloop/testing-toolkit-test-cases collections/hub/provisioning:
 * MojaloopHub_Setup, then one onboarding per DFSP): the Hub's settlement and reconciliation accounts per
 * currency, a default deferred-net settlement model, each DFSP's currencies with a net debit cap and initial
 * position, its callback endpoints, and funds in on its settlement account.
 */
export class AdminError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`central-ledger admin API ${method} ${path} answered ${status}: ${body.slice(0, 300)}`);
  }
}

export interface Position {
  readonly currency: string;
  readonly value: number;
}

export interface Account {
  readonly id: number;
  readonly ledgerAccountType: string;
  readonly currency: string;
  readonly isActive: number | boolean;
  readonly value: number;
  readonly reservedValue: number;
}

export class CentralLedgerAdmin {
  constructor(readonly baseUrl: string) {}

  async call<T = unknown>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    const res = await request(`${this.baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new AdminError(method, path, res.statusCode, text);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** A call whose "already there" answer (a second hub set-up) counts as done. */
  private async once(method: 'POST', path: string, body: unknown, already: RegExp): Promise<void> {
    try {
      await this.call(method, path, body);
    } catch (error) {
      if (!(error instanceof AdminError && already.test(error.body))) throw error;
    }
  }

  /** MojaloopHub_Setup: the Hub's accounts per currency and the default settlement model. Idempotent. */
  async setUpHub(currencies: readonly string[], hubName = 'Hub'): Promise<void> {
    for (const currency of currencies) {
      for (const type of ['HUB_MULTILATERAL_SETTLEMENT', 'HUB_RECONCILIATION']) {
        await this.once('POST', `/participants/${hubName}/accounts`, { type, currency }, /already been registered/);
      }
    }
    await this.once(
      'POST',
      '/settlementModels',
      {
        name: 'DEFAULTDEFERREDNET',
        settlementGranularity: 'NET',
        settlementInterchange: 'MULTILATERAL',
        settlementDelay: 'DEFERRED',
        requireLiquidityCheck: true,
        ledgerAccountType: 'POSITION',
        autoPositionReset: true,
        settlementAccountType: 'SETTLEMENT',
      },
      /already exists|Duplicate|duplicate/,
    );
  }

  async addEndpoints(name: string, endpoints: Readonly<Record<string, string>>): Promise<void> {
    for (const [type, value] of Object.entries(endpoints)) {
      await this.call('POST', `/participants/${name}/endpoints`, { type, value });
    }
  }

  positions(name: string): Promise<Position[]> {
    return this.call<Position[]>('GET', `/participants/${name}/positions`);
  }

  async position(name: string, currency: string): Promise<number> {
    const p = await this.call<Position>('GET', `/participants/${name}/positions?currency=${currency}`);
    return p.value;
  }

  accounts(name: string): Promise<Account[]> {
    return this.call<Account[]>('GET', `/participants/${name}/accounts`);
  }

  setActive(name: string, isActive: boolean): Promise<unknown> {
    return this.call('PUT', `/participants/${name}`, { isActive });
  }
}

/** The callback endpoints a DFSP registers (the onboarding collections' list, under one base URL). */
export function dfspEndpoints(base: string): Record<string, string> {
  return {
    FSPIOP_CALLBACK_URL_PARTICIPANT_PUT: `${base}/participants/{{partyIdType}}/{{partyIdentifier}}`,
    FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR: `${base}/participants/{{partyIdType}}/{{partyIdentifier}}/error`,
    FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT: `${base}/participants/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}`,
    FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT_ERROR: `${base}/participants/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}/error`,
    FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT: `${base}/participants/{{requestId}}`,
    FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR: `${base}/participants/{{requestId}}/error`,
    FSPIOP_CALLBACK_URL_PARTIES_GET: `${base}/parties/{{partyIdType}}/{{partyIdentifier}}`,
    FSPIOP_CALLBACK_URL_PARTIES_PUT: `${base}/parties/{{partyIdType}}/{{partyIdentifier}}`,
    FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR: `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/error`,
    FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET: `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}`,
    FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT: `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}`,
    FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR: `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}/error`,
    FSPIOP_CALLBACK_URL_QUOTES: base,
    FSPIOP_CALLBACK_URL_FX_QUOTES: base,
    FSPIOP_CALLBACK_URL_TRANSFER_POST: `${base}/transfers`,
    FSPIOP_CALLBACK_URL_TRANSFER_PUT: `${base}/transfers/{{transferId}}`,
    FSPIOP_CALLBACK_URL_TRANSFER_ERROR: `${base}/transfers/{{transferId}}/error`,
    FSPIOP_CALLBACK_URL_FX_TRANSFER_POST: `${base}/fxTransfers`,
    FSPIOP_CALLBACK_URL_FX_TRANSFER_PUT: `${base}/fxTransfers/{{commitRequestId}}`,
    FSPIOP_CALLBACK_URL_FX_TRANSFER_ERROR: `${base}/fxTransfers/{{commitRequestId}}/error`,
  };
}

export interface DfspSpec {
  readonly name: string;
  /** Per currency: the net debit cap and the funds in on its settlement account. */
  readonly currencies: Readonly<Record<string, { readonly netDebitCap: string; readonly fundsIn: string }>>;
  readonly callbackBase: string;
}

/**
 * One DFSP's onboarding (MojaloopSims_Onboarding): the participant and each currency, its NET_DEBIT_CAP with
 * initial position 0, its endpoints, then funds in on each settlement account, recorded by central-ledger's
 * admin handler from the admin topic; answers once every settlement account shows its funds.
 */
export async function onboardDfsp(admin: CentralLedgerAdmin, spec: DfspSpec, waitMs = 30_000): Promise<void> {
  for (const [currency, { netDebitCap }] of Object.entries(spec.currencies)) {
    await admin.call('POST', '/participants', { name: spec.name, currency });
    await admin.call('POST', `/participants/${spec.name}/initialPositionAndLimits`, {
      currency,
      limit: { type: 'NET_DEBIT_CAP', value: Number(netDebitCap) },
      initialPosition: 0,
    });
  }
  await admin.addEndpoints(spec.name, dfspEndpoints(spec.callbackBase));
  const accounts = await admin.accounts(spec.name);
  for (const [currency, { fundsIn }] of Object.entries(spec.currencies)) {
    const settlement = accounts.find((a) => a.ledgerAccountType === 'SETTLEMENT' && a.currency === currency);
    if (!settlement) throw new Error(`${spec.name} has no ${currency} SETTLEMENT account after onboarding`);
    await admin.call('POST', `/participants/${spec.name}/accounts/${settlement.id}`, {
      transferId: crypto.randomUUID(),
      externalReference: `funds in ${spec.name} ${currency}`,
      action: 'recordFundsIn',
      reason: 'initial liquidity',
      amount: { amount: fundsIn, currency },
    });
  }
  const deadline = Date.now() + waitMs;
  for (;;) {
    const now = await admin.accounts(spec.name);
    const pending = Object.entries(spec.currencies).filter(([currency, { fundsIn }]) => {
      const s = now.find((a) => a.ledgerAccountType === 'SETTLEMENT' && a.currency === currency);
      return !s || Number(s.value) !== -Number(fundsIn);
    });
    if (pending.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        `funds in of ${spec.name} (${pending.map(([c]) => c).join(', ')}) not recorded within ${waitMs} ms: is central-ledger's admin handler running?`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
