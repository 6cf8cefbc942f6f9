import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { cpSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { request } from 'undici';
import { type Collection, type RunReport, readReport } from './report.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const installScript = join(packageRoot, 'scripts/install.sh');
const launcher = join(packageRoot, 'scripts/launch.cjs');

/**
 * Installs the toolkit if it is not yet (scripts/install.sh: npm ci from toolkit/package-lock.json into the
 * cache folder) and answers its folder. The first run takes a minute or more; later ones a few milliseconds.
 */
export async function installToolkit(): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)('bash', [installScript, 'install'], {
      timeout: 15 * 60_000,
      maxBuffer: 1 << 20,
    });
    return stdout.trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim().split('\n').pop();
    throw new Error(stderr || `ttk: ${installScript} install failed: ${(error as Error).message}`);
  }
}

export interface ToolkitOptions {
  /** The install folder (installToolkit's answer). */
  readonly home: string;
  /** The FSP the toolkit plays (user config FSPID): the FSPIOP-Source its collections send. */
  readonly fspId: string;
  /** Its CALLBACK_ENDPOINT: where a request without its own URL goes (the ALS's API). */
  readonly callbackEndpoint: string;
  /** How long a request waits for its callback (CALLBACK_TIMEOUT). */
  readonly callbackTimeoutMs?: number;
  /** Ports of its API (5050 in its own set-up) and of its FSP side (4040); free ones when absent. */
  readonly apiPort?: number;
  readonly fspPort?: number;
}

export interface Toolkit {
  /** Its API: POST /api/outbound/template/{traceId}?sync=true runs a collection. */
  readonly apiUrl: string;
  /** Its FSP side: the callbacks of the requests it sends come here. */
  readonly fspUrl: string;
  /** The toolkit's log (its standard output and error). */
  readonly logFile: string;
  /** Runs one collection to its end and reads every assertion's result. */
  run(collection: Collection, inputValues: Readonly<Record<string, string>>): Promise<RunReport>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Starts the toolkit as its own process, on loopback, with a state folder of its own: a copy of its
 * spec_files with our system config (its FSP port) and user config (FSP id, callback endpoint, timeouts).
 */
export async function startToolkit(options: ToolkitOptions): Promise<Toolkit> {
  const apiPort = options.apiPort || (await freePort());
  const fspPort = options.fspPort || (await freePort());
  const state = mkdtempSync(join(tmpdir(), 'mojafast-ttk-'));
  const specFiles = join(options.home, 'node_modules/ml-testing-toolkit/spec_files');
  cpSync(specFiles, join(state, 'spec_files'), { recursive: true });
  const edit = (file: string, change: (config: Record<string, unknown>) => void) => {
    const path = join(state, 'spec_files', file);
    const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    change(config);
    writeFileSync(path, JSON.stringify(config, null, 2));
  };
  edit('system_config.json', (c) => {
    c.API_PORT = fspPort;
  });
  edit('user_config.json', (c) => {
    c.FSPID = options.fspId;
    c.CALLBACK_ENDPOINT = options.callbackEndpoint;
    c.CALLBACK_TIMEOUT = options.callbackTimeoutMs ?? 5_000;
  });

  const logFile = join(state, 'toolkit.log');
  const log = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, [launcher], {
    cwd: state,
    env: { ...process.env, TTK_HOME: options.home, TTK_API_PORT: String(apiPort) },
    stdio: ['ignore', log, log],
  });
  const exited = once(child, 'exit');
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const fspUrl = `http://127.0.0.1:${fspPort}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(state, { recursive: true, force: true });
  };

  // Ready when both its API and its FSP side answer; its start takes a few seconds (it loads every API
  // definition it ships).
  const ready = async () => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`ttk: the toolkit exited at start (code ${child.exitCode}), see ${logFile}`);
      try {
        const [api, fsp] = await Promise.all([
          request(`${apiUrl}/api/config/user`, { headersTimeout: 2_000, bodyTimeout: 2_000 }),
          request(`${fspUrl}/health`, { headersTimeout: 2_000, bodyTimeout: 2_000 }),
        ]);
        await Promise.all([api.body.dump(), fsp.body.dump()]);
        if (api.statusCode === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline)
        throw new Error(`ttk: the toolkit did not answer on ${apiUrl} within 60 s, see ${logFile}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  try {
    await ready();
  } catch (error) {
    const tail = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
    await stop();
    throw new Error(`${(error as Error).message}\n${tail}`);
  }

  return {
    apiUrl,
    fspUrl,
    logFile,
    async run(collection, inputValues) {
      const traceId = randomBytes(16).toString('hex');
      const res = await request(`${apiUrl}/api/outbound/template/${traceId}?sync=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...collection.template, inputValues }),
        // A collection's requests each wait at most CALLBACK_TIMEOUT for a callback.
        headersTimeout: 5 * 60_000,
        bodyTimeout: 5 * 60_000,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200)
        throw new Error(`ttk: running ${collection.file} answered ${res.statusCode}: ${text.slice(0, 500)}`);
      return readReport(collection.file, JSON.parse(text));
    },
    close: stop,
  };
}
