import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { centralLedgerAppDir, type PrivateCentralLedger } from '@mojafast/testkit';

/**
 * Our position handler run as an operator runs it in place of central-ledger's: the built
 * `dist/position.js handler --positionbatch`, reading the very configuration central-ledger's processes read
 * (its config/default.json with the deployment's overrides, merged into one file as a ConfigMap holds it),
 * so topics, consumer group, database and Kafka come from there and nothing is set twice.
 */
export interface RunningProcess {
  readonly child: ChildProcess;
  /** The last 20 kB of its stderr and stdout. */
  log(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export function startProcess(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv },
): RunningProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = once(child, 'exit');
  return {
    child,
    log: () => tail,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resolves once `pattern` appears in the process's output; rejects when it exits first or after `timeoutMs`. */
export async function waitForLog(p: RunningProcess, pattern: RegExp, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(p.log())) {
    if (p.child.exitCode !== null || p.child.signalCode !== null) {
      throw new Error(
        `${what} exited (${p.child.exitCode ?? p.child.signalCode}) before it was ready: ${p.log().slice(-2000)}`,
      );
    }
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs} ms: ${p.log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Json = Record<string, unknown>;

/** rc's merge (deep-extend): objects merge key by key, anything else (arrays too) replaces. */
export function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] =
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      current &&
      typeof current === 'object' &&
      !Array.isArray(current)
        ? deepMerge(current as Json, value as Json)
        : value;
  }
  return out;
}

/**
 * Writes the configuration a private switch's central-ledger processes read (testkit's startCentralLedger:
 * its package's config/default.json under the run directory's rc override, config.json) into `outFile`.
 */
export function writeSwitchConfig(cl: PrivateCentralLedger, outFile: string): void {
  const app = centralLedgerAppDir();
  const base = JSON.parse(readFileSync(join(app, 'config', 'default.json'), 'utf8')) as Json;
  const over = JSON.parse(readFileSync(join(cl.env.CENTRAL_LEDGER_RUN_DIR as string, 'config.json'), 'utf8')) as Json;
  writeFileSync(outFile, `${JSON.stringify(deepMerge(base, over), null, 2)}\n`);
}

/**
 * The built entry point `dist/<file>` of a workspace package, as its start script runs it: resolved through the
 * package's own export (src/ under the tests' "source" condition, dist/ otherwise), then up to its folder.
 */
export function packageEntry(name: string, file: string): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return join(dir, 'dist', file);
}

export async function startOurPositionHandler(
  configFile: string,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningProcess> {
  const p = startProcess(
    process.execPath,
    [packageEntry('@mojafast/position-handler', 'position.js'), 'handler', '--positionbatch'],
    {
      env: {
        ...process.env,
        CONFIG_FILE: configFile,
        // The file's PORT is central-ledger's; ours answers /health on any free port beside it.
        POSITION_HTTP_PORT: '0',
        LOG_LEVEL: 'info',
        ...env,
      },
    },
  );
  await waitForLog(p, /position handler started/, 'our position handler');
  return p;
}

/** Our ALS, built, as `node dist/als` runs it; answers once it printed its ready line (with its URLs). */
export async function startOurAls(env: NodeJS.ProcessEnv): Promise<RunningProcess & { url: string; adminUrl: string }> {
  const p = startProcess(process.execPath, [packageEntry('@mojafast/als', 'als.js')], {
    env: { ...process.env, ALS_HOST: '127.0.0.1', ALS_PORT: '0', ALS_ADMIN_PORT: '0', ...env },
  });
  await waitForLog(p, /"ready":true/, 'our ALS');
  const line = p
    .log()
    .split('\n')
    .find((l) => l.includes('"ready":true')) as string;
  const ready = JSON.parse(line) as { url: string; admin: string };
  return { ...p, url: ready.url, adminUrl: ready.admin };
}
