import { type PayerSim, startPayerSim } from '@mojafast/sim';
import { type DatabaseConnection, registerOracle } from '@mojafast/testkit';
import { entryPoints } from '../load/paths.js';
import { freePort } from '../load/ports.js';
import { type Service, spawnUntilReadyLine } from '../load/processes.js';

export interface AlsStackOptions {
  readonly fsps: number;
  /** ALS processes behind one port (node:cluster in the ALS); ignored with `target` or `simsOnly`. */
  readonly processes: number;
  readonly cache: boolean;
  readonly keepAlive: boolean;
  /** An ALS already running elsewhere: only the simulators are started, pointed at it. */
  readonly target?: string | undefined;
  /** No ALS at all: the generator talks to the payee simulator, which calls the payer back directly. */
  readonly simsOnly: boolean;
  /** Fixed simulator ports (admin P, oracle P+1, payee P+2) so a `target` ALS can be configured for them. */
  readonly simPortBase?: number | undefined;
  readonly simArgs?: readonly string[];
  /** The ALS's ALS_API_TYPE (fspiop when absent). */
  readonly apiType?: 'fspiop' | 'iso20022' | undefined;
  /** The payer simulator's callback hook (the fault bench counts callbacks per trace id). */
  readonly onCallback?: (traceId: string, kind: 'success' | 'error') => void;
  /** ALS variables set after the defaults, from the simulators' URLs (the fault bench's oracles and proxy). */
  readonly alsEnv?: (sims: SimsReady) => Record<string, string>;
  /** How the payer tells callbacks apart: by trace id (default) or by party (sim's PayerSimOptions.keyBy). */
  readonly keyBy?: 'trace' | 'party';
  /** Another ALS than ours at its bench defaults (the original, or ours in drop-in mode), started on `alsPort`. */
  readonly als?: AlsUnderTest;
  /**
   * The oracle registry in MySQL, as the ALS runs in a Mojaloop deployment, instead of one oracle URL: the
   * ALS makes its tables there, over TLS when the connection has `ssl` (its certificate verified against that
   * CA), and the simulated oracle is registered through its admin API before the first lookup. `serverPid`:
   * the database server's, so its CPU is measured too.
   */
  readonly registry?: { readonly connection: DatabaseConnection; readonly serverPid: number | undefined };
}

/** Starts an ALS on the simulators, its FSPIOP API on `alsPort`; `pids` are the processes to measure by name. */
export type AlsUnderTest = (
  sims: SimsReady,
  alsPort: number,
) => Promise<{ readonly pids: ReadonlyMap<string, number>; stop(): Promise<void> }>;

export interface AlsStack {
  /** Where the generator sends GET /parties. */
  readonly entryUrl: string;
  /** Set when lookups must name the payee (sims only: there is no oracle on the way). */
  readonly destination: string | undefined;
  readonly payer: PayerSim;
  readonly sims: { admin: string; oracle: string; payee: string };
  readonly pids: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

export interface SimsReady {
  admin: string;
  oracle: string;
  payee: string;
}

/**
 * The processes of one scenario: the payer FSP inside the generator (so a callback is noticed without
 * another hop), the other simulators in one process, the ALS in its own: three processes on two cores,
 * so the summary says what the ALS costs, not what the generator costs.
 */
export async function startAlsStack(options: AlsStackOptions): Promise<AlsStack> {
  const payer = await startPayerSim({ port: 0, onCallback: options.onCallback, keyBy: options.keyBy });
  const services: Pick<Service, 'stop'>[] = [];
  const close = async () => {
    for (const service of services.reverse()) await service.stop();
    await payer.close();
  };
  try {
    const alsPort = options.simsOnly || options.target ? undefined : await freePort();
    const alsUrl = options.target ?? (alsPort ? `http://127.0.0.1:${alsPort}` : payer.url);
    const sims = await spawnUntilReadyLine<SimsReady>({
      name: 'simulators',
      command: process.execPath,
      args: [
        entryPoints.sim,
        '--fsps',
        String(options.fsps),
        '--als-url',
        options.simsOnly ? payer.url : alsUrl,
        '--payer-url',
        payer.url,
        '--port-base',
        String(options.simPortBase ?? 0),
        ...(options.simArgs ?? []),
      ],
    });
    services.push(sims);
    const pids = new Map<string, number>([['simulators', sims.child.pid ?? 0]]);
    if (options.simsOnly) {
      return { entryUrl: sims.ready.payee, destination: 'payeefsp1', payer, sims: sims.ready, pids, close };
    }
    if (!alsPort) {
      return { entryUrl: alsUrl, destination: undefined, payer, sims: sims.ready, pids, close };
    }
    if (options.als) {
      const started = await options.als(sims.ready, alsPort);
      services.push({ stop: () => started.stop() });
      for (const [name, pid] of started.pids) pids.set(name, pid);
      return { entryUrl: alsUrl, destination: undefined, payer, sims: sims.ready, pids, close };
    }
    const adminPort = await freePort();
    const als = await spawnUntilReadyLine({
      name: 'als',
      command: process.execPath,
      args: [entryPoints.als],
      env: {
        ...alsEnvironment(alsPort, adminPort, sims.ready, options),
        ...(options.registry ? registryEnvironment(options.registry.connection) : {}),
        ...options.alsEnv?.(sims.ready),
      },
    });
    services.push(als);
    pids.set('als', als.child.pid ?? 0);
    if (options.registry) {
      // The simulated oracle as the default for MSISDN, through the admin API as an operator registers one.
      const status = await registerOracle(`http://127.0.0.1:${adminPort}`, sims.ready.oracle);
      if (status !== 201) throw new Error(`POST /oracles on the ALS's admin API answered ${status}`);
      if (options.registry.serverPid) pids.set('mariadb', options.registry.serverPid);
    }
    return { entryUrl: alsUrl, destination: undefined, payer, sims: sims.ready, pids, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The ALS cache settings a scenario runs with, spelled out so the report states them: "cache on" is the
 * ALS's defaults (packages/als/docs/design.md "Caches": never older than the original's answers), "cache off"
 * every TTL 0.
 */
export function alsCacheSettings(cache: boolean): Record<string, string> {
  return {
    ALS_PARTICIPANT_CACHE_TTL_MS: cache ? '3000' : '0',
    ALS_ENDPOINT_CACHE_TTL_MS: cache ? '180000' : '0',
    ALS_ORACLE_REGISTRY_CACHE_TTL_MS: '0',
    ALS_ORACLE_ANSWER_CACHE_TTL_MS: '0',
    ALS_CACHE_MAX_STALE_MS: '0',
  };
}

/** The ALS's database settings for a registry in MySQL (packages/als/docs/configuration.md). */
function registryEnvironment(db: DatabaseConnection): Record<string, string> {
  return {
    ALS_ORACLE_URL: '',
    ALS_DB_HOST: db.host,
    ALS_DB_PORT: String(db.port),
    ALS_DB_USER: db.user,
    ALS_DB_PASSWORD: db.password,
    ALS_DB_NAME: db.database,
    // The CA as PEM text, which the setting takes as the original's ssl.ca holds it.
    ...(db.ssl ? { ALS_DB_SSL: 'verify', ALS_DB_SSL_CA_FILE: db.ssl.ca } : {}),
  };
}

/** The ALS's own variables (packages/als/docs/configuration.md). */
function alsEnvironment(
  port: number,
  adminPort: number,
  sims: SimsReady,
  options: AlsStackOptions,
): Record<string, string> {
  return {
    ALS_HOST: '127.0.0.1',
    ALS_PORT: String(port),
    ALS_ADMIN_PORT: String(adminPort),
    ALS_SWITCH_ENDPOINT: sims.admin,
    ALS_ORACLE_URL: sims.oracle,
    ALS_DB_NAME: '',
    ALS_PROCESSES: String(options.processes),
    ALS_UPSTREAM_KEEP_ALIVE: options.keepAlive ? 'on' : 'off',
    ALS_LOG_LEVEL: 'warn',
    ...(options.apiType ? { ALS_API_TYPE: options.apiType } : {}),
    ...alsCacheSettings(options.cache),
  };
}
