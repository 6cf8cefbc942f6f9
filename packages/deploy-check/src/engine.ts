import { spawn } from 'node:child_process';

/**
 * The container engine `infra/images` chose (docker when its daemon answers, else podman with the project's
 * CONTAINERS_CONF), run as a program: its arguments, its output, its exit code.
 */
export type EngineName = 'docker' | 'podman';

export function engineName(env: NodeJS.ProcessEnv = process.env): EngineName {
  const name = env.MOJAFAST_CONTAINER_ENGINE;
  if (name !== 'docker' && name !== 'podman')
    throw new Error(`MOJAFAST_CONTAINER_ENGINE is "${name ?? ''}": run through infra/images, which chooses the engine`);
  return name;
}

export interface ExecResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs a program to its end (killed after timeoutMs), its output kept. */
export function exec(
  program: string,
  args: readonly string[],
  options: { timeoutMs?: number; input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ExecResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], env: options.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${program} ${args.join(' ')}: ${error.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs a program that must succeed; its failure is an error naming the command and its last words. */
export async function execOk(
  program: string,
  args: readonly string[],
  options: { timeoutMs?: number; input?: string } = {},
) {
  const result = await exec(program, args, options);
  if (result.code !== 0) {
    const why = (result.stderr.trim() || result.stdout.trim()).split('\n').slice(-3).join(' | ');
    throw new Error(`${program} ${args.slice(0, 3).join(' ')} … exited ${result.code}: ${why}`);
  }
  return result;
}
