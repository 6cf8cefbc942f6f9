import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { type EngineName, exec, execOk } from './engine.js';

/**
 * One of our services running as a container of the engine (created by `run -d`, compose or kube play),
 * followed through its log until it prints its ready line, stopped the way an orchestrator stops it.
 */
export interface RunningContainer {
  readonly name: string;
  output(): string;
  /** SIGTERM through `<engine> stop -t <grace>`, then how the process ended and how long the stop took. */
  stop(graceSeconds?: number): Promise<StopResult>;
}

export interface StopResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly ms: number;
}

export const imageOf = (id: string) => `mojafast/${id}:latest`;

/**
 * Follows a created container's log (`<engine> logs -f`) until a line satisfies readyWhen. A container that
 * exits first, or stays silent past the timeout, is an error carrying its log.
 */
export function followContainer(
  engine: EngineName,
  name: string,
  readyWhen: (line: string) => true | undefined,
  timeoutMs: number,
): Promise<RunningContainer> {
  const follower: ChildProcess = spawn(engine, ['logs', '-f', name], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      follower.kill();
      reject(new Error(`container ${name}: ${why}\n${log}`));
    };
    const timer = setTimeout(() => fail(`not ready within ${timeoutMs} ms`), timeoutMs);
    const onLine = (line: string) => {
      log += `${line}\n`;
      if (settled || readyWhen(line) === undefined) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        name,
        output: () => log,
        async stop(graceSeconds = 30) {
          const stopped = await exec(engine, ['stop', '-t', String(graceSeconds), name], {
            timeoutMs: (graceSeconds + 30) * 1000,
          });
          const state = await exec(engine, ['inspect', '--format', '{{.State.ExitCode}}', name]);
          follower.kill();
          const code = state.code === 0 ? Number(state.stdout.trim()) : null;
          return { code, signal: null, ms: stopped.ms };
        },
      });
    };
    for (const stream of [follower.stdout, follower.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', onLine);
    }
    // `logs -f` ends when the container does.
    follower.once('close', () => fail('exited before it was ready'));
  });
}

/**
 * The name podman gave a container of a played Deployment: its pod is <deployment>-pod and each container
 * <pod>-<container>. No such container is an error naming the play and the containers there are.
 */
export async function playedContainerName(play: string, deployment: string, container: string): Promise<string> {
  const { stdout } = await execOk('podman', ['ps', '-a', '--format', '{{.Names}}']);
  const names = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const name = names.find((l) => l.startsWith(`${deployment}-pod`) && l.endsWith(`-${container}`));
  if (!name) throw new Error(`${play}: no container of ${deployment} among ${names.join(', ')}`);
  return name;
}

/** `<engine> run -d` of one service's image on the host's network, with the env and command given. */
export async function runContainer(
  engine: EngineName,
  options: {
    name: string;
    image: string;
    env: Record<string, string>;
    command: readonly string[];
    readyWhen: (line: string) => true | undefined;
    timeoutMs: number;
  },
): Promise<RunningContainer> {
  const envArgs = Object.entries(options.env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  await execOk(engine, [
    'run',
    '-d',
    '--name',
    options.name,
    '--network',
    'host',
    ...envArgs,
    options.image,
    ...options.command,
  ]);
  return followContainer(engine, options.name, options.readyWhen, options.timeoutMs);
}

/** The uid and gid of the container's main process (PID 1 in its PID namespace), from /proc. */
export async function mainProcessIds(engine: EngineName, name: string): Promise<{ uid: number; gid: number }> {
  const { stdout } = await execOk(engine, ['exec', name, 'cat', '/proc/1/status']);
  const field = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(stdout)?.[1]);
  return { uid: field('Uid'), gid: field('Gid') };
}

/** Runs the image's HEALTHCHECK command inside the container, as the engine would, and gives its exit code. */
export async function runHealthcheck(engine: EngineName, name: string): Promise<number | null> {
  const { stdout } = await execOk(engine, ['inspect', '--format', '{{json .Config.Healthcheck}}', name]);
  const check = JSON.parse(stdout) as { Test?: string[] } | null;
  const [kind, ...command] = check?.Test ?? [];
  if (kind !== 'CMD' || command.length === 0) throw new Error(`container ${name}: no exec-form HEALTHCHECK`);
  return (await exec(engine, ['exec', name, ...command], { timeoutMs: 10_000 })).code;
}

/** Removes containers whatever their state; a name that is already gone is fine. */
export async function removeContainers(engine: EngineName, names: readonly string[]): Promise<void> {
  if (names.length > 0) await exec(engine, ['rm', '-f', ...names]);
}
