import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { type AlsEnvOptions, alsEnv } from './env.js';

/** The built ALS, run as operators run it (`node dist/als.js`). */
export const oursEntry = fileURLToPath(new URL('../../als/dist/als.js', import.meta.url));
/** account-lookup-service's own config/default.json (v17.16.1), as the ALS package keeps it. */
export const originalConfigFile = fileURLToPath(
  new URL('../../als/test/fixtures/account-lookup-service-default.json', import.meta.url),
);

export interface MysqlSettings {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
}

export interface RunningOurs {
  readonly api: string;
  readonly admin: string;
  /** What it wrote to stderr and stdout (for a failure's message). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts our ALS in drop-in mode: the original's config file and the parity run's rc overrides (env.ts), on
 * free ports, with its oracle registry in `database` (which must exist and may be empty: it migrates it).
 */
export async function startOurs(options: {
  switchEndpoint: string;
  database: MysqlSettings & { name: string };
  proxyCache?: AlsEnvOptions['proxyCache'];
  env?: Readonly<Record<string, string>>;
}): Promise<RunningOurs> {
  const child: ChildProcess = spawn(process.execPath, [oursEntry], {
    env: {
      PATH: process.env.PATH ?? '',
      CONFIG_FILE: originalConfigFile,
      ...alsEnv({
        switchEndpoint: options.switchEndpoint,
        apiPort: 0,
        adminPort: 0,
        database: options.database,
        proxyCache: options.proxyCache,
      }),
      ALS_LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const ready = await new Promise<{ url: string; admin: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`our ALS did not start within 20 s:\n${out}`)), 20_000);
    const check = () => {
      const line = out.split('\n').find((l) => l.startsWith('{"ready":true'));
      if (line) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve(JSON.parse(line) as { url: string; admin: string });
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`our ALS exited (${code}) at start:\n${out}`));
    });
  });
  return {
    api: ready.url,
    admin: ready.admin,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
