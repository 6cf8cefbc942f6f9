import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface RunningService<T> {
  /** What the ready line told (ports, URLs). */
  readonly ready: T;
  /** Everything the process wrote so far, for failure messages. */
  output(): string;
  /** Sends SIGTERM (what a container runtime sends) and resolves with how the process ended. */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `node <entry>` the way a container's CMD does and waits until one output line (stdout or stderr)
 * satisfies `readyWhen`. A process that exits first or stays silent past the timeout is an error that
 * carries its output.
 */
export function startService<T>(
  entry: string,
  options: {
    cwd: string;
    env: Record<string, string>;
    readyWhen: (line: string) => T | undefined;
    args?: readonly string[];
    timeoutMs?: number;
  },
): Promise<RunningService<T>> {
  const child: ChildProcess = spawn(process.execPath, [entry, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${entry}: ${why}\n${log}`));
    };
    const timer = setTimeout(() => fail('not ready in time'), options.timeoutMs ?? 20_000);
    const onLine = (line: string) => {
      log += `${line}\n`;
      if (settled) return;
      const ready = options.readyWhen(line);
      if (ready === undefined) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        ready,
        output: () => log,
        async stop(timeoutMs = 15_000) {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
          try {
            return await exited;
          } finally {
            clearTimeout(killer);
          }
        },
      });
    };
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', onLine);
    }
    void exited.then(({ code, signal }) => fail(`exited (${code ?? signal}) before it was ready`));
  });
}
