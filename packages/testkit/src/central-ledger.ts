import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { testKafka } from './kafka.js';
import { uniqueName } from './names.js';
import { type InfraSettings, loadInfraSettings, parseEnvFile } from './settings.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const svc = join(repoRoot, 'infra/svc');

/**
 * A central-ledger switch of one test file (`infra/svc start central-ledger` with settings of its own): its
 * own topic prefix (every topic and consumer group), database, ports and run directory, on the shared
 * Kafka and MariaDB. central-ledger must be built already (`./run ci` builds it into the cache).
 */
export interface PrivateCentralLedger {
  /** Prefix of every topic and consumer group, e.g. `<prefix>topic-transfer-prepare`. */
  readonly prefix: string;
  readonly database: string;
  readonly ports: { readonly api: number; readonly handlers: number; readonly position: number };
  /** The admin API, e.g. `${adminUrl}/participants`. */
  readonly adminUrl: string;
  /** The environment infra/svc was given; for more infra/svc calls on this switch. */
  readonly env: Readonly<Record<string, string>>;
  /** Starts central-ledger's own batch position handler on this switch (group `<prefix>cl-group-transfer-position-batch`). */
  startOriginalPosition(): Promise<void>;
  stopOriginalPosition(): Promise<void>;
  /** Stops every process, drops the database and the topics, removes the run directory; safe to call twice. */
  stop(): Promise<void>;
}

export interface CentralLedgerOptions {
  /** HANDLERS.TIMEOUT.TIMEXP, e.g. `*\/2 * * * * *`; central-ledger's default looks every 15 s. */
  readonly timeoutCron?: string;
  readonly withOriginalPosition?: boolean;
  /** Its batch position handler's consumer batch size (KAFKA.CONSUMER.TRANSFER.POSITION_BATCH batchSize; default 10). */
  readonly positionBatchSize?: number;
  readonly settings?: InfraSettings;
}

function servicesEnv(): Record<string, string | undefined> {
  return { ...parseEnvFile(readFileSync(join(repoRoot, 'infra/services.env'), 'utf8')), ...process.env };
}

/** Where infra/svc builds an original from its source: `<cache>/<name>-<version>-node<major>` (infra/originals). */
function originalInstallDir(name: string, versionKey: string, nodeVersionKey: string): string {
  const env = servicesEnv();
  const cache = env.MOJAFAST_CACHE_DIR || join(homedir(), '.cache', 'mojafast');
  const nodeMajor = String(env[nodeVersionKey]).split('.')[0];
  return join(cache, `${name}-${env[versionKey]}-node${nodeMajor}`);
}

/** Where infra/svc installs central-ledger (infra/central-ledger/central-ledger.sh, CL_HOME). */
export function centralLedgerInstallDir(): string {
  return originalInstallDir('central-ledger', 'CENTRAL_LEDGER_VERSION', 'CENTRAL_LEDGER_NODE_VERSION');
}

/** Where infra/svc builds ml-api-adapter (infra/ml-api-adapter/ml-api-adapter.sh, MLAPI_HOME): app/ and node/. */
export function mlApiAdapterInstallDir(): string {
  return originalInstallDir('ml-api-adapter', 'ML_API_ADAPTER_VERSION', 'ML_API_ADAPTER_NODE_VERSION');
}

/** central-ledger's own folder in that install: its source with its dependencies (src/, config/, migrations/). */
export function centralLedgerAppDir(): string {
  return join(centralLedgerInstallDir(), 'app');
}

/** A TCP port free on 127.0.0.1 now (the OS's choice). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** infra/svc ACTION SERVICE... with this switch's environment; a failure carries infra/svc's own error line. */
async function svcCall(env: Record<string, string>, ...args: string[]): Promise<string> {
  try {
    const { stderr } = await run(svc, args, { env: { ...process.env, ...env }, timeout: 600_000 });
    return stderr;
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? '');
    const line = stderr.split('\n').find((l) => l.includes('ERROR')) ?? stderr.trim().split('\n').pop();
    throw new Error(`infra/svc ${args.join(' ')} failed: ${line}`);
  }
}

export async function startCentralLedger(options: CentralLedgerOptions = {}): Promise<PrivateCentralLedger> {
  const installed = join(centralLedgerInstallDir(), '.installed');
  if (!existsSync(installed))
    throw new Error(
      `central-ledger is not installed (${installed} missing): run ./run ci (or infra/svc start central-ledger) once`,
    );
  const settings = options.settings ?? loadInfraSettings();
  const name = uniqueName('cl');
  const prefix = `${name}-`;
  const runDir = mkdtempSync(join(tmpdir(), `${name}-`));
  const ports = { api: await freePort(), handlers: await freePort(), position: await freePort() };
  const env: Record<string, string> = {
    CENTRAL_LEDGER_TOPIC_PREFIX: prefix,
    CENTRAL_LEDGER_DB: name,
    CENTRAL_LEDGER_RUN_DIR: runDir,
    CENTRAL_LEDGER_PORT: String(ports.api),
    CENTRAL_LEDGER_HANDLERS_PORT: String(ports.handlers),
    CENTRAL_LEDGER_POSITION_PORT: String(ports.position),
    ...(options.timeoutCron ? { CENTRAL_LEDGER_TIMEOUT_CRON: options.timeoutCron } : {}),
    ...(options.positionBatchSize ? { CENTRAL_LEDGER_POSITION_BATCH_SIZE: String(options.positionBatchSize) } : {}),
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await svcCall(env, 'stop', 'central-ledger');
    const connection = await mysql.createConnection(settings.mysql);
    try {
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
    } finally {
      await connection.end();
    }
    const admin = testKafka(settings, 'mojafast-testkit-admin').admin();
    await admin.connect();
    try {
      const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
      if (topics.length > 0) await admin.deleteTopics({ topics });
    } finally {
      await admin.disconnect();
    }
    rmSync(runDir, { recursive: true, force: true });
  };
  try {
    await svcCall(
      env,
      'start',
      'central-ledger',
      ...(options.withOriginalPosition ? ['--with-original-position'] : []),
    );
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
  return {
    prefix,
    database: name,
    ports,
    adminUrl: `http://127.0.0.1:${ports.api}`,
    env,
    startOriginalPosition: async () => {
      await svcCall(env, 'start', 'central-ledger-position');
    },
    stopOriginalPosition: async () => {
      await svcCall(env, 'stop', 'central-ledger-position');
    },
    stop,
  };
}
