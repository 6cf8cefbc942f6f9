import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

/** A service the benchmark started in a process of its own, so the generator never measures itself. */
export interface Service {
  readonly name: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
}

function startProcess(options: SpawnOptions): {
  child: ChildProcess;
  stderrTail: () => string;
  stop: () => Promise<void>;
} {
  const child = spawn(options.command, options.args, {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { child, stderrTail: () => stderr.trim(), stop };
}

function exitError(name: string, child: ChildProcess, stderrTail: string): Error {
  return new Error(
    `${name} exited (code ${child.exitCode}, signal ${child.signalCode}) before it was ready: ${stderrTail}`,
  );
}

/** Starts a process that prints one JSON line with `"ready": true` on stdout when it listens. */
export async function spawnUntilReadyLine<T>(
  options: SpawnOptions,
  timeoutMs = 30_000,
): Promise<Service & { ready: T }> {
  const { child, stderrTail, stop } = startProcess(options);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = new Promise<T>((resolve, reject) => {
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as { ready?: boolean };
        if (parsed.ready === true) resolve(parsed as T);
      } catch {
        // Not the ready line.
      }
    });
    child.once('exit', () => reject(exitError(options.name, child, stderrTail())));
    setTimeout(
      () => reject(new Error(`${options.name} printed no ready line within ${timeoutMs} ms`)),
      timeoutMs,
    ).unref();
  });
  try {
    const value = await ready;
    child.stdout?.resume();
    return { name: options.name, child, stop, ready: value };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts a process and polls an HTTP URL until it answers 2xx. */
export async function spawnUntilHealthy(
  options: SpawnOptions,
  healthUrl: string,
  timeoutMs = 30_000,
): Promise<Service> {
  const { child, stderrTail, stop } = startProcess(options);
  child.stdout?.resume();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw exitError(options.name, child, stderrTail());
    try {
      const response = await fetch(healthUrl);
      if (response.ok) return { name: options.name, child, stop };
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`${options.name} did not answer ${healthUrl} within ${timeoutMs} ms: ${stderrTail()}`);
}

/** The pid in a pid file (infra/svc's, central-ledger's), or undefined when the file is missing or holds none. */
export async function pidFrom(file: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
