import { type CentralLedgerAdmin, onboardDfsp } from './admin.js';
import { completedTimestamp, fxTransferBody, newSecret, type Secret, transferBody } from './bodies.js';
import type { Callback } from './callbacks.js';
import { decodePayload } from './callbacks.js';
import type { Received, SwitchDriver } from './driver.js';
import {
  type ErrorBody,
  errorMessage,
  type FxTransferBody,
  fulfilMessage,
  getMessage,
  newId,
  prepareMessage,
  type TransferBody,
} from './envelope.js';
import type { CallbackRecorder, Recorded } from './http-front.js';

/**
 * The end-to-end scenarios, each on DFSPs of its own (onboarded for it through the admin API), driven through
 * central-ledger's prepare, fulfil and timeout handlers with ml-api-adapter's messages, and observed as an FSP
 * would: the callbacks ml-api-adapter makes of each notification, the positions the admin API reports, and
 * each transfer's state by a GET through the switch. The observation names roles (payer, payee, fxp, Hub) and
 * labels (T1, F1), never generated names or ids, so the runs with either position handler compare line by line.
 */

export type Role = 'payer' | 'payee' | 'fxp';

export interface DfspPlan {
  readonly currencies: Readonly<Record<string, { readonly netDebitCap: string; readonly fundsIn: string }>>;
}

export interface Observation {
  readonly scenario: string;
  /** One line per notification, in the order read per transfer: `T1 commit success: payer PUT from payee state=COMMITTED`. */
  readonly notifications: readonly string[];
  /** `payer USD` → position value, from GET /participants/{name}/positions. */
  readonly positions: Readonly<Record<string, string>>;
  /** `T1` → transferState from a GET through the switch (`F1` → conversionState). */
  readonly states: Readonly<Record<string, string>>;
  /** Notifications ml-api-adapter would refuse (no context, ...), with the reason. */
  readonly refused: readonly string[];
  /**
   * With ml-api-adapter in front (ScenarioRun.recorder): every callback as the FSPs received it, in arrival
   * order per transfer: `T1 payee PUT /transfers/T1 from payer to payee <body>`, roles and labels for names and
   * ids, timestamps as `<time>`; empty otherwise.
   */
  readonly callbacks: readonly string[];
}

export interface ScenarioRun {
  readonly driver: SwitchDriver;
  readonly admin: CentralLedgerAdmin;
  /** Distinguishes the DFSP names of one run (e.g. the handler under test) from another's on the same switch. */
  readonly tag: string;
  /** Each DFSP's endpoints are `<callbackBase>/<its name>/...`. */
  readonly callbackBase: string;
  /** The FSPs' callback servers, when ml-api-adapter runs in front: the observation lists what they received. */
  readonly recorder?: CallbackRecorder;
  /** How long a step waits for the notification it expects. */
  readonly stepTimeoutMs: number;
  /** New transfer and fxTransfer ids (UUIDs by default; ISO 20022 mode needs ULIDs). */
  readonly newId?: () => string;
  /** How long an expiry scenario waits for central-ledger's timeout handler (its cron: HANDLERS.TIMEOUT.TIMEXP). */
  readonly expiryTimeoutMs: number;
}

/** What a scenario's steps use: its DFSPs' names and the labelled transfers. */
export class ScenarioContext {
  readonly ids = new Map<string, { id: string; resource: 'transfers' | 'fxTransfers'; from: string; to: string }>();
  readonly secrets = new Map<string, Secret>();

  constructor(
    readonly run: ScenarioRun,
    readonly names: Readonly<Record<Role, string>>,
  ) {}

  private label(id: string): string {
    for (const [label, entry] of this.ids) if (entry.id === id) return label;
    return id;
  }

  newId(): string {
    return (this.run.newId ?? newId)();
  }

  role(name: string): string {
    for (const [role, n] of Object.entries(this.names)) if (n === name) return role;
    return name;
  }

  /** POST /transfers from the payer; answers the first notification about it (prepare to payee or error to payer). */
  async prepare(
    label: string,
    spec: {
      currency: string;
      amount: string;
      expiresInMs?: number;
      payer?: Role;
      payee?: Role;
      transferId?: string;
      /** The payer's JSON spaced with this indent (line breaks and all). */
      indent?: number;
    },
  ): Promise<{ body: TransferBody; notified: Received | undefined }> {
    const secret = newSecret();
    const payer = this.names[spec.payer ?? 'payer'];
    const payee = this.names[spec.payee ?? 'payee'];
    const body = transferBody(
      {
        payer,
        payee,
        currency: spec.currency,
        amount: spec.amount,
        expiresInMs: spec.expiresInMs,
        transferId: spec.transferId ?? this.newId(),
      },
      secret,
    );
    this.ids.set(label, { id: body.transferId, resource: 'transfers', from: payer, to: payee });
    this.secrets.set(label, secret);
    await this.run.driver.send(prepareMessage(this.run.driver.prefix, body, undefined, spec.indent));
    return { body, notified: await this.expect(label, ['prepare']) };
  }

  /** The same POST /transfers again, byte for byte (a payer's resend). */
  async resend(label: string, body: TransferBody | FxTransferBody): Promise<Received | undefined> {
    const before = this.run.driver.about(this.ids.get(label)?.id ?? '').length;
    await this.run.driver.send(prepareMessage(this.run.driver.prefix, body));
    return this.expectNth(label, before + 1);
  }

  /** POST /fxTransfers from the payer to the FXP, for the transfer labelled `transferLabel` (its id reserved now). */
  async fxPrepare(
    label: string,
    transferLabel: string,
    spec: {
      source: { currency: string; amount: string };
      target: { currency: string; amount: string };
      expiresInMs?: number;
    },
  ): Promise<{ body: FxTransferBody; notified: Received | undefined }> {
    const secret = newSecret();
    const determiningTransferId = this.newId();
    this.ids.set(transferLabel, {
      id: determiningTransferId,
      resource: 'transfers',
      from: this.names.payer,
      to: this.names.payee,
    });
    const body = fxTransferBody(
      { payer: this.names.payer, fxp: this.names.fxp, determiningTransferId, commitRequestId: this.newId(), ...spec },
      secret,
    );
    this.ids.set(label, {
      id: body.commitRequestId,
      resource: 'fxTransfers',
      from: this.names.payer,
      to: this.names.fxp,
    });
    this.secrets.set(label, secret);
    await this.run.driver.send(prepareMessage(this.run.driver.prefix, body));
    return { body, notified: await this.expect(label, ['fx-prepare']) };
  }

  /** PUT /transfers/{id} (or /fxTransfers) from the payee (or FXP) with the state given; waits for `awaits`. */
  async fulfil(
    label: string,
    state: 'COMMITTED' | 'RESERVED' | 'ABORTED',
    awaits: readonly string[],
    timeoutMs?: number,
  ): Promise<Received | undefined> {
    const entry = this.entry(label);
    const secret = this.secrets.get(label);
    const fx = entry.resource === 'fxTransfers';
    const body =
      state === 'ABORTED'
        ? { completedTimestamp: completedTimestamp(), [fx ? 'conversionState' : 'transferState']: state }
        : {
            fulfilment: secret?.fulfilment,
            completedTimestamp: completedTimestamp(),
            [fx ? 'conversionState' : 'transferState']: state,
          };
    await this.run.driver.send(fulfilMessage(this.run.driver.prefix, entry.id, entry.to, entry.from, body));
    return awaits.length === 0 ? undefined : this.expect(label, awaits, timeoutMs);
  }

  /** PUT .../{id}/error from the payee (or FXP). */
  async error(label: string, code: string, awaits: readonly string[]): Promise<Received | undefined> {
    const entry = this.entry(label);
    const body: ErrorBody = { errorInformation: { errorCode: code, errorDescription: 'Payee rejected the transfer' } };
    await this.run.driver.send(
      errorMessage(this.run.driver.prefix, entry.resource, entry.id, entry.to, entry.from, body),
    );
    return this.expect(label, awaits);
  }

  entry(label: string) {
    const entry = this.ids.get(label);
    if (!entry) throw new Error(`no transfer labelled ${label} in this scenario`);
    return entry;
  }

  /** The first notification about `label` with one of `actions` not yet seen, or undefined after the timeout. */
  async expect(
    label: string,
    actions: readonly string[],
    timeoutMs = this.run.stepTimeoutMs,
  ): Promise<Received | undefined> {
    const { id } = this.entry(label);
    // A missing notification is an outcome, recorded in the observation and compared with the other run's.
    return this.run.driver.waitForOrNone((r) => r.id === id && actions.includes(r.action), timeoutMs);
  }

  private async expectNth(label: string, n: number): Promise<Received | undefined> {
    const { id } = this.entry(label);
    const driver = this.run.driver;
    await driver.waitForOrNone(() => driver.about(id).length >= n, this.run.stepTimeoutMs);
    return driver.about(id)[n - 1];
  }

  describe(r: Received): string[] {
    const label = this.label(r.id);
    const event = r.value.metadata.event;
    const payload = decodePayload(r.value.content.payload) as Record<string, unknown> | undefined;
    const info = payload?.errorInformation as { errorCode?: string } | undefined;
    const head = `${label} ${r.action} ${event.state.status}${info?.errorCode ? ` ${info.errorCode}` : ''}`;
    if (!r.outcome.ok) return [`${head}: refused by ml-api-adapter (${r.outcome.refused})`];
    if (r.outcome.callbacks.length === 0) return [`${head}: no callback`];
    // A line-based dump of the topic breaks on a value with line breaks: the original re-serialises payloads.
    const spaced = r.raw.includes('\n') ? ' (line breaks in the Kafka value)' : '';
    return r.outcome.callbacks.map(
      (c: Callback) => `${head}: ${this.role(c.fsp)} ${c.kind} from ${this.role(c.source)}${stateOf(c.body)}${spaced}`,
    );
  }

  /** A callback as its FSP received it, as a line that compares across runs (names, ids and times replaced). */
  describeCallback(r: Recorded, label: string): string {
    const anon = (text: string) => {
      // Times, secrets and the ILP packet (which holds the id) differ from run to run; the bytes around them not.
      let out = text
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
        .replace(
          /"(fulfilment|condition|ilpPacket|ExctnConf|IlpV4PrepPacket|Sh256Sgntr|MsgId)":(\s*)"[^"]*"/g,
          '"$1":$2"<$1>"',
        );
      for (const [l, entry] of this.ids) out = out.split(entry.id).join(l);
      for (const [role, name] of Object.entries(this.names)) out = out.split(name).join(role);
      return out;
    };
    const header = (name: string) => String(r.headers[name] ?? '-');
    return anon(
      `${label} ${r.fsp} ${r.method} ${r.path} from ${header('fspiop-source')} to ${header('fspiop-destination')} ${header('content-type')} ${r.body}`,
    );
  }
}

function stateOf(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const b = body as Record<string, unknown>;
  const state = b.transferState ?? b.conversionState;
  const info = b.errorInformation as { errorCode?: string; errorDescription?: string } | undefined;
  return `${state ? ` state=${state}` : ''}${info?.errorCode ? ` error=${info.errorCode} "${info.errorDescription}"` : ''}`;
}

export interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly dfsps: Readonly<Partial<Record<Role, DfspPlan>>>;
  /** Waits on central-ledger's timeout handler. */
  readonly expiry?: boolean;
  /**
   * What the FSPs must see with our position handler: the positions and GET states, and the notifications'
   * callbacks (sorted lines of `ScenarioContext.describe`) where they are pinned.
   */
  readonly expected: {
    readonly positions: Readonly<Record<string, string>>;
    readonly states: Readonly<Record<string, string>>;
    readonly notifications?: readonly string[];
  };
  readonly steps: (ctx: ScenarioContext) => Promise<void>;
}

const usd = (netDebitCap: string, fundsIn: string): DfspPlan => ({ currencies: { USD: { netDebitCap, fundsIn } } });
const usdEur = (netDebitCap: string, fundsIn: string): DfspPlan => ({
  currencies: { USD: { netDebitCap, fundsIn }, EUR: { netDebitCap, fundsIn } },
});
const plain = { payer: usd('1000', '1000'), payee: usd('1000', '1000') };
const fx = { payer: usdEur('1000', '1000'), payee: usdEur('1000', '1000'), fxp: usdEur('1000', '1000') };
const conversion = { source: { currency: 'USD', amount: '100' }, target: { currency: 'EUR', amount: '90' } };

export const scenarios: readonly Scenario[] = [
  {
    name: 'commit',
    title: 'prepare → commit',
    dfsps: plain,
    expected: {
      positions: { 'payer USD': '100', 'payee USD': '-100' },
      states: { T1: 'COMMITTED' },
      notifications: [
        'T1 commit success: payee PUT from Hub state=COMMITTED',
        'T1 commit success: payer PUT from payee state=COMMITTED',
        'T1 prepare success: payee POST from payer',
      ],
    },
    steps: async (c) => {
      await c.prepare('T1', { currency: 'USD', amount: '100' });
      await c.fulfil('T1', 'COMMITTED', ['commit']);
    },
  },
  {
    name: 'commit-spaced',
    title: "prepare with the payer's JSON spaced over lines → commit",
    dfsps: plain,
    expected: {
      positions: { 'payer USD': '100', 'payee USD': '-100' },
      states: { T1: 'COMMITTED' },
      notifications: [
        'T1 commit success: payee PUT from Hub state=COMMITTED',
        'T1 commit success: payer PUT from payee state=COMMITTED',
        'T1 prepare success: payee POST from payer',
      ],
    },
    steps: async (c) => {
      await c.prepare('T1', { currency: 'USD', amount: '100', indent: 2 });
      await c.fulfil('T1', 'COMMITTED', ['commit']);
    },
  },
  {
    name: 'reserve',
    title: 'prepare → reserve (PUT with RESERVED: the payer told, the payee PATCHed)',
    dfsps: plain,
    expected: {
      positions: { 'payer USD': '100', 'payee USD': '-100' },
      states: { T1: 'COMMITTED' },
      notifications: [
        'T1 prepare success: payee POST from payer',
        'T1 reserve success: payee PATCH from Hub state=COMMITTED',
        'T1 reserve success: payer PUT from Hub state=COMMITTED',
      ],
    },
    steps: async (c) => {
      await c.prepare('T1', { currency: 'USD', amount: '100' });
      await c.fulfil('T1', 'RESERVED', ['reserve']);
    },
  },
  {
    name: 'abort',
    title: "prepare → abort by the payee's error callback",
    dfsps: plain,
    expected: {
      positions: { 'payer USD': '0', 'payee USD': '0' },
      states: { T1: 'ABORTED' },
      notifications: [
        'T1 abort error 5101: payee PUT_ERROR from Hub error=5101 "Payee rejected the transfer"',
        'T1 abort error 5101: payer PUT_ERROR from payee error=5101 "Payee rejected the transfer"',
        'T1 prepare success: payee POST from payer',
      ],
    },
    steps: async (c) => {
      await c.prepare('T1', { currency: 'USD', amount: '100' });
      await c.error('T1', '5101', ['abort']);
    },
  },
  {
    name: 'ndc-breach',
    title: "prepare over the payer's net debit cap (4200), then one within it",
    dfsps: { payer: usd('100', '1000'), payee: usd('1000', '1000') },
    expected: {
      positions: { 'payer USD': '60', 'payee USD': '0' },
      states: { T1: 'ABORTED', T2: 'RESERVED' },
      notifications: [
        'T1 prepare error 4200: payer PUT_ERROR from Hub error=4200 "Payer limit error"',
        'T2 prepare success: payee POST from payer',
      ],
    },
    steps: async (c) => {
      await c.prepare('T1', { currency: 'USD', amount: '150' });
      await c.prepare('T2', { currency: 'USD', amount: '60' });
    },
  },
  {
    name: 'liquidity-breach',
    title: "prepare over the payer's liquidity (4001), then one within it",
    dfsps: { payer: usd('1000', '100'), payee: usd('1000', '1000') },
    expected: {
      positions: { 'payer USD': '60', 'payee USD': '0' },
      states: { T1: 'ABORTED', T2: 'RESERVED' },
      notifications: [
        'T1 prepare error 4001: payer PUT_ERROR from Hub error=4001 "Payer FSP insufficient liquidity"',
        'T2 prepare success: payee POST from payer',
      ],
    },
    steps: async (c) => {
      await c.prepare('T1', { currency: 'USD', amount: '150' });
      await c.prepare('T2', { currency: 'USD', amount: '60' });
    },
  },
  {
    name: 'resend',
    title: 'the same prepare sent again after its reservation, and again after its commit',
    dfsps: plain,
    expected: {
      positions: { 'payer USD': '100', 'payee USD': '-100' },
      states: { T1: 'COMMITTED' },
      notifications: [
        'T1 commit success: payee PUT from Hub state=COMMITTED',
        'T1 commit success: payer PUT from payee state=COMMITTED',
        'T1 prepare success: payee POST from payer',
        'T1 prepare-duplicate success: payer PUT from Hub state=COMMITTED',
        'T1 prepare-duplicate success: payer PUT from Hub state=RESERVED',
      ],
    },
    steps: async (c) => {
      const { body } = await c.prepare('T1', { currency: 'USD', amount: '100' });
      await c.resend('T1', body);
      await c.fulfil('T1', 'COMMITTED', ['commit']);
      await c.resend('T1', body);
    },
  },
  {
    name: 'reject',
    title: 'the payee rejects (PUT with ABORTED: ignored by the fulfil handler), then the transfer expires',
    dfsps: plain,
    expiry: true,
    expected: {
      positions: { 'payer USD': '0', 'payee USD': '0' },
      states: { T1: 'ABORTED' },
      notifications: [
        'T1 prepare success: payee POST from payer',
        'T1 timeout-reserved error 3303: payee PUT_ERROR from Hub error=3303 "Transfer expired"',
        'T1 timeout-reserved error 3303: payer PUT_ERROR from Hub error=3303 "Transfer expired"',
      ],
    },
    steps: async (c) => {
      await c.prepare('T1', { currency: 'USD', amount: '100', expiresInMs: 2_000 });
      await c.fulfil('T1', 'ABORTED', []);
      await c.expect('T1', ['timeout-reserved'], c.run.expiryTimeoutMs);
    },
  },
  {
    name: 'expiry',
    title: "a reserved transfer expires (central-ledger's timeout handler, timeout-reserved)",
    dfsps: plain,
    expiry: true,
    expected: {
      positions: { 'payer USD': '0', 'payee USD': '0' },
      states: { T1: 'ABORTED' },
      notifications: [
        'T1 prepare success: payee POST from payer',
        'T1 timeout-reserved error 3303: payee PUT_ERROR from Hub error=3303 "Transfer expired"',
        'T1 timeout-reserved error 3303: payer PUT_ERROR from Hub error=3303 "Transfer expired"',
      ],
    },
    steps: async (c) => {
      await c.prepare('T1', { currency: 'USD', amount: '100', expiresInMs: 2_000 });
      await c.expect('T1', ['timeout-reserved'], c.run.expiryTimeoutMs);
    },
  },
  {
    name: 'fx-commit',
    title: 'payer-side conversion: fxTransfer prepare and reserve, then the dependent transfer prepared and committed',
    dfsps: fx,
    expected: {
      positions: {
        'payer USD': '100',
        'payer EUR': '0',
        'payee USD': '0',
        'payee EUR': '-90',
        'fxp USD': '-100',
        'fxp EUR': '90',
      },
      states: { T1: 'COMMITTED', F1: 'COMMITTED' },
      notifications: [
        'F1 fx-notify success: fxp PATCH from Hub state=COMMITTED',
        'F1 fx-prepare success: fxp POST from payer',
        'F1 fx-reserve success: payer PUT from fxp state=RESERVED',
        'T1 commit success: payee PUT from Hub state=COMMITTED',
        'T1 commit success: payer PUT from payee state=COMMITTED',
        'T1 prepare success: payee POST from payer',
      ],
    },
    steps: async (c) => {
      await c.fxPrepare('F1', 'T1', conversion);
      await c.fulfil('F1', 'RESERVED', ['fx-reserve']);
      await c.prepare('T1', { currency: 'EUR', amount: '90', transferId: c.entry('T1').id });
      await c.fulfil('T1', 'COMMITTED', ['commit']);
      await c.expect('F1', ['fx-notify']);
    },
  },
  {
    name: 'fx-abort-fxp-first',
    title: "FX abort: the FXP's error on its fxTransfer before the dependent transfer (fx-abort)",
    dfsps: fx,
    expected: {
      positions: {
        'payer USD': '0',
        'payer EUR': '0',
        'payee USD': '0',
        'payee EUR': '0',
        'fxp USD': '0',
        'fxp EUR': '0',
      },
      states: { T1: 'error 3208', F1: 'ABORTED' },
      notifications: [
        'F1 fx-abort error 5101: fxp PUT_ERROR from Hub error=5101 "Payee rejected the transfer"',
        'F1 fx-abort error 5101: payer PUT_ERROR from fxp error=5101 "Payee rejected the transfer"',
        'F1 fx-prepare success: fxp POST from payer',
      ],
    },
    steps: async (c) => {
      await c.fxPrepare('F1', 'T1', conversion);
      await c.error('F1', '5101', ['fx-abort']);
    },
  },
  {
    name: 'fx-abort-transfer',
    title: "FX abort: the payee's error on the dependent transfer (abort in two cyrilResult steps)",
    dfsps: fx,
    expected: {
      positions: {
        'payer USD': '0',
        'payer EUR': '0',
        'payee USD': '0',
        'payee EUR': '0',
        'fxp USD': '0',
        'fxp EUR': '0',
      },
      states: { T1: 'ABORTED', F1: 'ABORTED' },
      notifications: [
        'F1 fx-notify success: fxp PATCH from Hub state=ABORTED',
        'F1 fx-prepare success: fxp POST from payer',
        'F1 fx-reserve success: payer PUT from fxp state=RESERVED',
        'T1 abort error 5101: payee PUT_ERROR from Hub error=5101 "Payee rejected the transfer"',
        'T1 abort error 5101: payer PUT_ERROR from payee error=5101 "Payee rejected the transfer"',
        'T1 prepare success: payee POST from payer',
      ],
    },
    steps: async (c) => {
      await c.fxPrepare('F1', 'T1', conversion);
      await c.fulfil('F1', 'RESERVED', ['fx-reserve']);
      await c.prepare('T1', { currency: 'EUR', amount: '90', transferId: c.entry('T1').id });
      await c.error('T1', '5101', ['abort']);
      await c.expect('F1', ['fx-notify']);
    },
  },
  {
    name: 'fx-abort-two-step',
    title: "FX abort: the FXP's error after the dependent transfer is reserved (two-step fx-abort)",
    dfsps: fx,
    // The outcome a finished two-step fx-abort leaves: the FXP's EUR reservation and the payer's USD given
    // back, both aborted; its notifications are left to the comparison with central-ledger's run.
    expected: {
      positions: {
        'payer USD': '0',
        'payer EUR': '0',
        'payee USD': '0',
        'payee EUR': '0',
        'fxp USD': '0',
        'fxp EUR': '0',
      },
      states: { T1: 'ABORTED', F1: 'ABORTED' },
    },
    steps: async (c) => {
      await c.fxPrepare('F1', 'T1', conversion);
      await c.fulfil('F1', 'RESERVED', ['fx-reserve']);
      await c.prepare('T1', { currency: 'EUR', amount: '90', transferId: c.entry('T1').id });
      await c.error('F1', '5101', ['fx-abort']);
      await c.expect('T1', ['abort']);
    },
  },
  {
    name: 'fx-expiry',
    title: 'FX expiry: an fxTransfer the FXP never answers expires (fx-timeout-reserved)',
    dfsps: fx,
    expiry: true,
    expected: {
      positions: {
        'payer USD': '0',
        'payer EUR': '0',
        'payee USD': '0',
        'payee EUR': '0',
        'fxp USD': '0',
        'fxp EUR': '0',
      },
      states: { T1: 'error 3208', F1: 'ABORTED' },
      notifications: [
        'F1 fx-prepare success: fxp POST from payer',
        'F1 fx-timeout-reserved error 3303: fxp PUT_ERROR from Hub error=3303 "Transfer expired"',
        'F1 fx-timeout-reserved error 3303: payer PUT_ERROR from Hub error=3303 "Transfer expired"',
      ],
    },
    steps: async (c) => {
      await c.fxPrepare('F1', 'T1', { ...conversion, expiresInMs: 2_000 });
      await c.expect('F1', ['fx-timeout-reserved'], c.run.expiryTimeoutMs);
    },
  },
];

const ROLES: readonly Role[] = ['payer', 'payee', 'fxp'];

const ROLE_SUFFIX: Record<Role, string> = { payer: 'pr', payee: 'pe', fxp: 'fx' };

/** Onboards the scenario's DFSPs under names unique to this run: `<tag><index><role suffix>`. */
export async function onboardScenario(run: ScenarioRun, scenario: Scenario, index: number): Promise<ScenarioContext> {
  const names = Object.fromEntries(ROLES.map((r) => [r, `${run.tag}${index}${ROLE_SUFFIX[r]}`])) as Record<
    Role,
    string
  >;
  for (const role of ROLES) {
    const plan = scenario.dfsps[role];
    if (plan)
      await onboardDfsp(run.admin, {
        name: names[role],
        currencies: plan.currencies,
        callbackBase: `${run.callbackBase}/${names[role]}`,
      });
  }
  return new ScenarioContext(run, names);
}

/** Reads what the FSPs saw: every notification about the scenario's transfers, positions and GET states. */
export async function observe(scenario: Scenario, ctx: ScenarioContext): Promise<Observation> {
  const { driver, admin } = ctx.run;
  const notifications: string[] = [];
  const refused: string[] = [];
  const getIds = new Set<string>();
  for (const [label, entry] of ctx.ids) {
    for (const r of driver.about(entry.id)) {
      if (r.action === 'get' || r.action === 'fx-get') continue;
      notifications.push(...ctx.describe(r));
      if (!r.outcome.ok) refused.push(`${label} ${r.action}: ${r.outcome.refused}`);
    }
    getIds.add(label);
  }
  const positions: Record<string, string> = {};
  for (const role of ROLES) {
    const plan = scenario.dfsps[role];
    if (!plan) continue;
    for (const currency of Object.keys(plan.currencies)) {
      positions[`${role} ${currency}`] = String(await admin.position(ctx.names[role], currency));
    }
  }
  const states: Record<string, string> = {};
  for (const label of getIds) states[label] = await stateByGet(ctx, label);
  const callbacks: string[] = [];
  const { recorder } = ctx.run;
  if (recorder) {
    for (const [label, entry] of ctx.ids) {
      for (const r of recorder.about(entry.id)) callbacks.push(ctx.describeCallback(r, label));
    }
  }
  return { scenario: scenario.name, notifications, positions, states, refused, callbacks };
}

/** GET /transfers/{id} (or /fxTransfers) from the payer through the switch's get handler. */
async function stateByGet(ctx: ScenarioContext, label: string): Promise<string> {
  const entry = ctx.entry(label);
  const { driver } = ctx.run;
  const seen = driver.about(entry.id).length;
  const { recorder } = ctx.run;
  const called = recorder?.about(entry.id).length ?? 0;
  const action = entry.resource === 'fxTransfers' ? 'fx-get' : 'get';
  await driver.send(getMessage(driver.prefix, entry.resource, entry.id, entry.from, entry.to));
  const answer = await driver.waitForOrNone(
    (r) => r.id === entry.id && r.action === action && driver.about(entry.id).indexOf(r) >= seen,
    ctx.run.stepTimeoutMs,
  );
  if (!answer) return 'no answer';
  // With ml-api-adapter in front, its callback of the answer reaches the payer after the notification.
  if (recorder) await recorder.waitForMore(entry.id, called, ctx.run.stepTimeoutMs);
  const body = decodePayload(answer.value.content.payload) as Record<string, unknown>;
  const code = (body.errorInformation as { errorCode?: string } | undefined)?.errorCode;
  return String(body.transferState ?? body.conversionState ?? (code ? `error ${code}` : 'unknown'));
}

/**
 * Runs the scenarios, each on its own DFSPs: first the expiry ones together (they share one wait on the timeout
 * handler's cron), then the others one at a time, so no scenario's messages share a position batch with
 * another's (central-ledger's batch handler loses a whole batch when one message in it throws).
 */
export async function runScenarios(run: ScenarioRun, list: readonly Scenario[] = scenarios): Promise<Observation[]> {
  const contexts: ScenarioContext[] = [];
  for (const [i, scenario] of list.entries()) contexts.push(await onboardScenario(run, scenario, i));
  const ctx = (i: number) => contexts[i] as ScenarioContext;
  await Promise.all(list.map((s, i) => (s.expiry ? s.steps(ctx(i)) : undefined)));
  for (const [i, s] of list.entries()) if (!s.expiry) await s.steps(ctx(i));
  const out: Observation[] = [];
  for (const [i, scenario] of list.entries()) out.push(await observe(scenario, ctx(i)));
  return out;
}
