import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCpuProfiler } from '../src/index.js';

describe('createCpuProfiler', () => {
  const directory = mkdtempSync(join(tmpdir(), 'service-kit-profile-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('writes a .cpuprofile named after the service; a second request while one runs gets the same file', async () => {
    const profiler = createCpuProfiler({ directory, prefix: 'svc' });
    const first = profiler.profile(1);
    const second = profiler.profile(1);
    expect(profiler.running).toBe(true);
    const [file, again] = await Promise.all([first, second]);
    expect(again).toBe(file);
    expect(profiler.running).toBe(false);
    expect(basename(file)).toMatch(new RegExp(`^svc-${process.pid}-\\d+\\.cpuprofile$`));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveProperty('nodes');
  });

  it('stop() ends a 600 s profile at once and still writes it', async () => {
    const profiler = createCpuProfiler({ directory, prefix: 'stopped' });
    const profiled = profiler.profile(600);
    const startedAt = Date.now();
    await profiler.stop();
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(profiler.running).toBe(false);
    expect(existsSync(await profiled)).toBe(true);
  });
});
