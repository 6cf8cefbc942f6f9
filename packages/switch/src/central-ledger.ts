import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadInfraSettings, parseEnvFile, testKafka, uniqueName } from '@mojafast/testkit';

/**
 * A private central-ledger 19.5.5 switch for one test file or benchmark: its own database, its own topic
 * prefix (every topic and consumer group of its processes), its admin API and handler ports free ones, started
 * and stopped through the project's `infra/svc` (infra/central-ledger), which installs central-ledger once into
 * the cache and writes the override file its processes read. Several can run beside the default one.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SVC = join(ROOT, 'infra', 'svc');

export interface PrivateSwitch {
  readonly prefix: string;
  readonly database: string;
  readonly apiUrl: string;
  readonly runDir: string;
  /** The override its processes read on top of central-ledger's config/default.json (rc, CLEDG_config). */
  readonly overrideFile: string;
  /** central-ledger's installed package (config/default.json, its sources). */
  readonly packageDir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Starts central-ledger's own batch position handler on this switch. */
  startOriginalPosition(): Promise<void>;
  /** Stops it (SIGTERM, as a deployment's rollout does) and waits until it is gone. */
  stopOriginalPosition(): Promise<void>;
  /** Stops every process, drops its database and deletes its topics. */
  destroy(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** infra/services.env with the environment over it, as infra/svc reads them. */
function services(): Record<string, string | undefined> {
  return { ...parseEnvFile(readFileSync(join(ROOT, 'infra', 'services.env'), 'utf8')), ...process.env };
}

/** Where infra/central-ledger installs central-ledger: the cache, per version and Node major. */
export function centralLedgerPackageDir(values = services()): string {
  const cache = values.MOJAFAST_CACHE_DIR ?? join(homedir(), '.cache', 'mojafast');
  const major = (values.CENTRAL_LEDGER_NODE_VERSION ?? '').split('.')[0];
  return join(
    cache,
    `central-ledger-${values.CENTRAL_LEDGER_VERSION}-node${major}`,
    'node_modules',
    '@mojaloop',
    'central-ledger',
  );
}

async function svc(args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  try {
    await run(SVC, [...args], { env, maxBuffer: 4 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    const line = (e.stderr ?? '').split('\n').find((l) => l.includes('ERROR')) ?? e.message;
    throw new Error(`infra/svc ${args.join(' ')}: ${line.trim()}`);
  }
}

function pidOf(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startPrivateSwitch(name = 'switch'): Promise<PrivateSwitch> {
  const id = uniqueName(name);
  const prefix = `${id}-`;
  const runDir = await mkdtemp(join(tmpdir(), `${id}-`));
  const [api, handlers, position] = [await freePort(), await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CENTRAL_LEDGER_TOPIC_PREFIX: prefix,
    CENTRAL_LEDGER_DB: id,
    CENTRAL_LEDGER_RUN_DIR: runDir,
    CENTRAL_LEDGER_PORT: String(api),
    CENTRAL_LEDGER_HANDLERS_PORT: String(handlers),
    CENTRAL_LEDGER_POSITION_PORT: String(position),
  };
  const positionPid = join(runDir, 'position.pid');
  const self: PrivateSwitch = {
    prefix,
    database: id,
    apiUrl: `http://127.0.0.1:${api}`,
    runDir,
    overrideFile: join(runDir, 'config.json'),
    packageDir: centralLedgerPackageDir(),
    env,
    startOriginalPosition: () => svc(['start', 'central-ledger', '--with-original-position'], env),
    async stopOriginalPosition() {
      const pid = pidOf(positionPid);
      if (pid === undefined || !alive(pid)) return;
      process.kill(pid, 'SIGTERM');
      const deadline = Date.now() + 30_000;
      while (alive(pid)) {
        if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async destroy() {
      await svc(['reset', 'central-ledger'], env);
      await rm(runDir, { recursive: true, force: true });
      const admin = testKafka(loadInfraSettings(), 'mojafast-switch-cleanup').admin();
      await admin.connect();
      try {
        const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
        if (topics.length > 0) await admin.deleteTopics({ topics });
      } finally {
        await admin.disconnect();
      }
    },
  };
  try {
    await svc(['start', 'central-ledger'], env);
  } catch (error) {
    await self.destroy().catch(() => undefined);
    throw error;
  }
  return self;
}
