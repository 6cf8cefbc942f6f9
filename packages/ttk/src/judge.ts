import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConfigValues, loadConfig, type RunningAls, startAls } from '@mojafast/als';
import { hashId, type SimSet, startSimSet } from '@mojafast/sim';
import type { Collection, RunReport } from './report.js';
import { installToolkit, startToolkit, type Toolkit } from './toolkit.js';

/** The FSP the toolkit plays, registered with the central-ledger simulator, its endpoints on the toolkit. */
export const toolkitFsp = 'testingtoolkitdfsp';
/** Payee simulators behind the oracle simulator: an ID resolves to payeefsp{hash % fsps + 1}. */
const payeeFsps = 3;
/** IDs that start so are answered by the payee simulator with a 3204 error callback. */
const payeeErrorPrefix = '999';
/** IDs that start so are unknown to the oracle simulator (an empty partyList). */
const notFoundPrefix = '404';

export interface JudgeOptions {
  /** An ALS started elsewhere (the original, say), with ALS_SWITCH_ENDPOINT at the simulators' port base. */
  readonly als?: { readonly url: string; readonly adminUrl: string };
  /** Ports of the simulators: central-ledger admin API = base, oracle base+1, payee base+2, payer base+3. */
  readonly simsPortBase?: number;
  /** Settings of our ALS when it is ours that is judged (defaults: loopback, free ports, an empty registry). */
  readonly config?: Partial<ConfigValues>;
  /** How long each toolkit request waits for its callback. */
  readonly callbackTimeoutMs?: number;
}

export interface Judge {
  readonly toolkit: Toolkit;
  readonly sims: SimSet;
  readonly als: { readonly url: string; readonly adminUrl: string };
  /** The values the collections read as {$inputs.NAME}. */
  readonly inputs: Readonly<Record<string, string>>;
  run(collection: Collection): Promise<RunReport>;
  close(): Promise<void>;
}

/** Ten digits no earlier run used, so the oracle simulator and the ALS caches have never seen them. */
const freshDigits = () =>
  `${Date.now() % 1e7}`.padStart(7, '0') + `${Math.floor(Math.random() * 1e3)}`.padStart(3, '0');

/**
 * The simulators, the ALS (ours, or the one given) and the toolkit, wired to each other: the toolkit is an
 * FSP of the scheme whose callbacks reach it, the oracle simulator answers lookups, the payee simulators
 * answer GET /parties with a PUT back to the ALS.
 */
export async function startJudge(options: JudgeOptions = {}): Promise<Judge> {
  const home = await installToolkit();
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const sims = await startSimSet({
      fsps: payeeFsps,
      portBase: options.simsPortBase ?? 0,
      notFoundPrefix,
      payeeErrorPrefix,
    });
    closers.push(() => sims.close());

    let als = options.als;
    if (!als) {
      // An empty registry: the oracle-admin collection registers the oracles the lookups use, as an
      // operator would.
      const dir = mkdtempSync(join(tmpdir(), 'mojafast-ttk-als-'));
      closers.push(async () => rmSync(dir, { recursive: true, force: true }));
      const oraclesFile = join(dir, 'oracles.json');
      writeFileSync(oraclesFile, '[]');
      const running: RunningAls = await startAls(
        loadConfig(
          {},
          {
            host: '127.0.0.1',
            port: 0,
            adminPort: 0,
            logLevel: 'warn',
            switchEndpoint: sims.admin.url,
            oraclesFile,
            oracleUrl: '',
            ...options.config,
          },
        ),
      );
      closers.push(() => running.close());
      als = { url: running.url, adminUrl: running.adminUrl };
    }
    sims.payee.setAlsUrl(als.url);

    const toolkit = await startToolkit({
      home,
      fspId: toolkitFsp,
      callbackEndpoint: als.url,
      callbackTimeoutMs: options.callbackTimeoutMs ?? 5_000,
    });
    closers.push(() => toolkit.close());
    sims.admin.setParticipant(toolkitFsp, { endpointBase: toolkit.fspUrl, currencies: ['USD', 'EUR'] });

    const msisdn = `4670${freshDigits()}`;
    const inputs: Record<string, string> = {
      ALS_URL: als.url,
      ALS_ADMIN_URL: als.adminUrl,
      ORACLE_URL: sims.oracle.url,
      FSP_ID: toolkitFsp,
      MSISDN: msisdn,
      PAYEE_FSP: `payeefsp${(hashId(msisdn) % payeeFsps) + 1}`,
      PARTICIPANT_MSISDN: `4671${freshDigits()}`,
      UNKNOWN_MSISDN: `${notFoundPrefix}${freshDigits()}`,
      PAYEE_ERROR_MSISDN: `${payeeErrorPrefix}${freshDigits()}`,
      PARTIES_11: 'application/vnd.interoperability.parties+json;version=1.1',
      PARTIES_20: 'application/vnd.interoperability.parties+json;version=2.0',
      PARTICIPANTS_11: 'application/vnd.interoperability.participants+json;version=1.1',
    };
    return {
      toolkit,
      sims,
      als,
      inputs,
      run: (collection) => toolkit.run(collection, inputs),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
