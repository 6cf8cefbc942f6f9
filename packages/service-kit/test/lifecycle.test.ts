import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/service.mjs', import.meta.url));

function run(mode: string) {
  const child = spawn(process.execPath, [fixture, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, output, exited };
}

const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((line) => line !== '');

describe('runService', () => {
  it('stops once on SIGTERM, ignores a second signal while draining, and exits 0 by itself', async () => {
    const { child, output, exited } = run('ok');
    await vi.waitFor(() => expect(output.stdout).toBe('ready\n'), { timeout: 10_000 });
    child.kill('SIGTERM');
    await vi.waitFor(() => expect(output.stderr).toContain('stopping'), { timeout: 5_000 });
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const logged = lines(output.stderr).map((line) => JSON.parse(line));
    expect(logged).toEqual([expect.objectContaining({ level: 'info', msg: 'stopping', signal: 'SIGTERM' })]);
  });

  it('a SIGTERM during the start stops the service as soon as it has started, and it exits 0', async () => {
    const { child, output, exited } = run('slow-start');
    await vi.waitFor(() => expect(output.stdout).toBe('starting\n'), { timeout: 10_000 });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output.stdout).toBe('starting\nready\n');
    const logged = lines(output.stderr).map((line) => JSON.parse(line));
    expect(logged.map((entry) => entry.msg)).toEqual(['stopping once started', 'stopping']);
  });

  it('a SIGTERM while the start waits for a dependency gives the wait up: the start closes what it opened, exit 0', async () => {
    const { child, output, exited } = run('waits');
    await vi.waitFor(() => expect(output.stdout).toBe('starting\n'), { timeout: 10_000 });
    child.kill('SIGTERM');
    // Ends by itself, long before an orchestrator's grace period (and the test's time limit) runs out.
    expect(await exited).toBe(0);
    expect(output.stdout).toBe('starting\n');
    const logged = lines(output.stderr).map((line) => JSON.parse(line));
    expect(logged.map((entry) => entry.msg)).toEqual(['stopping once started', 'stopped during the start']);
  });

  it('a second signal while the start still waits ends the process as Node would', async () => {
    const { child, output, exited } = run('slow-start');
    await vi.waitFor(() => expect(output.stdout).toBe('starting\n'), { timeout: 10_000 });
    child.kill('SIGTERM');
    await vi.waitFor(() => expect(output.stderr).toContain('stopping once started'), { timeout: 5_000 });
    child.kill('SIGTERM');
    const [code, signal] = await once(child, 'exit');
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
    expect(await exited).toBe(null);
  });

  it('exits 1 with a `start failed` line when the start throws (bad input: a taken port)', async () => {
    const { output, exited } = run('fail');
    expect(await exited).toBe(1);
    const [line, ...rest] = lines(output.stderr);
    expect(rest).toEqual([]);
    expect(JSON.parse(line as string)).toMatchObject({ level: 'error', msg: 'start failed' });
    expect(JSON.parse(line as string).error).toContain('port 4002 taken');
  });

  it("exits with the service's own code and words for an operator's mistake (bad input: a bad flag)", async () => {
    const { output, exited } = run('usage');
    expect(await exited).toBe(2);
    expect(lines(output.stderr)).toEqual(['usage: --fsps must be a whole number']);
  });

  it('exits 1 with a `stop failed` line when the stop throws', async () => {
    const { child, output, exited } = run('stop-fails');
    await vi.waitFor(() => expect(output.stdout).toBe('ready\n'), { timeout: 10_000 });
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    const logged = lines(output.stderr).map((line) => JSON.parse(line));
    expect(logged.map((entry) => entry.msg)).toEqual(['stopping', 'stop failed']);
    expect(logged[1].error).toContain('pool did not close');
  });
});
