import { type AdminSim, type ParticipantSpec, startAdminSim } from './admin.js';
import type { FaultOptions } from './faults.js';
import type { Bind } from './http.js';
import { type OracleSim, type PartyEntry, startOracleSim } from './oracle.js';
import { type PayeeSim, startPayeeSim } from './payee.js';
import { type PayerSim, startPayerSim } from './payer.js';

export interface SimSetOptions {
  readonly fsps?: number;
  readonly payers?: number;
  readonly alsUrl?: string;
  /** An external payer; when absent a payer simulator is started. */
  readonly payerUrl?: string;
  /** Ports admin, oracle, payee, payer = base, base+1, base+2, base+3; 0 picks free ones. */
  readonly portBase?: number;
  /** Listen address and advertised host of every simulator of the set (loopback by default). */
  readonly bind?: Bind;
  readonly notFoundPrefix?: string;
  readonly payeeErrorPrefix?: string;
  readonly dropRate?: number;
  readonly deadEndpointFsps?: readonly string[];
  /** FSPs known to the admin simulator but inactive, with endpoints on the payer simulator. */
  readonly inactiveFsps?: readonly string[];
  readonly adminFaults?: FaultOptions;
  readonly oracleFaults?: FaultOptions;
  readonly payeeFaults?: FaultOptions;
  readonly payerFaults?: FaultOptions;
  readonly recordHistory?: boolean;
  /** Explicit participants of the admin simulator (override generated ones). */
  readonly participants?: Readonly<Record<string, ParticipantSpec>>;
  /** Explicit parties of the oracle simulator, "Type/ID[/SubId]" → entries. */
  readonly parties?: Readonly<Record<string, readonly PartyEntry[]>>;
}

export interface SimSet {
  readonly admin: AdminSim;
  readonly oracle: OracleSim;
  readonly payee: PayeeSim;
  readonly payer: PayerSim | undefined;
  readonly payerUrl: string;
  close(): Promise<void>;
}

/** Admin, oracle, payee and (unless an external one is named) payer, wired to each other. */
export async function startSimSet(opts: SimSetOptions = {}): Promise<SimSet> {
  const base = opts.portBase ?? 0;
  const port = (offset: number) => (base > 0 ? base + offset : 0);
  const started: { close(): Promise<void> }[] = [];
  try {
    const payer = opts.payerUrl
      ? undefined
      : await startPayerSim({
          port: port(3),
          bind: opts.bind,
          faults: opts.payerFaults,
          recordHistory: opts.recordHistory,
        });
    if (payer) started.push(payer);
    const payerUrl = opts.payerUrl ?? (payer as PayerSim).url;
    const payee = await startPayeeSim({
      port: port(2),
      bind: opts.bind,
      alsUrl: opts.alsUrl,
      faults: opts.payeeFaults,
      dropRate: opts.dropRate,
      errorPrefix: opts.payeeErrorPrefix,
    });
    started.push(payee);
    const admin = await startAdminSim({
      port: port(0),
      bind: opts.bind,
      fsps: opts.fsps,
      payers: opts.payers,
      payeeUrl: payee.url,
      payerUrl,
      deadEndpointFsps: opts.deadEndpointFsps,
      inactiveFsps: opts.inactiveFsps,
      participants: opts.participants,
      faults: opts.adminFaults,
    });
    started.push(admin);
    const oracle = await startOracleSim({
      port: port(1),
      bind: opts.bind,
      fsps: opts.fsps,
      notFoundPrefix: opts.notFoundPrefix,
      parties: opts.parties,
      faults: opts.oracleFaults,
    });
    started.push(oracle);
    return {
      admin,
      oracle,
      payee,
      payer,
      payerUrl,
      async close() {
        await Promise.all(started.map((s) => s.close()));
      },
    };
  } catch (error) {
    await Promise.all(started.map((s) => s.close()));
    throw error;
  }
}
