import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/load/ports.js';
import { measureRun } from '../src/switch/run.js';
import { type SwitchStack, startSwitchStack } from '../src/switch/stack.js';

// bench:switch end to end, short: the whole switch (central-ledger 19.14.0, ml-api-adapter 16.10.1, the FSPs)
// with our ALS and position handler, a few seconds at a low rate, every transfer completed and the topic gate
// valid. The originals' stack is the same code path with other processes (bench:switch runs it).
let sw: SwitchStack | undefined;
const lines: string[] = [];

beforeAll(async () => {
  sw = await startSwitchStack({
    alsPort: await freePort(),
    alsConfig: 'chart',
    seed: 'switch-bench-test',
    progress: (line) => lines.push(line),
  });
}, 180_000);

afterAll(async () => {
  await sw?.close();
}, 120_000);

describe('bench:switch, one short run with ours', () => {
  it('completes every transfer at the offered rate, the gate valid, every process measured', async () => {
    const run = await measureRun(
      sw as SwitchStack,
      'ours',
      1,
      { rate: 5, durationS: 3, warmupS: 1, idleS: 1, maxInFlight: 50, timeoutMs: 20_000, seed: 'switch-bench-test' },
      (line) => lines.push(line),
    );
    console.info(lines.join('\n'));
    expect(run.failures).toEqual({});
    expect(run).toMatchObject({ stack: 'ours', started: 15, completed: 15, failed: 0, dropped: 0 });
    expect(run.gate).toMatchObject({ prepare: 15, fulfil: 15, notification: 30, valid: true });
    expect(run.e2e.count).toBe(15);
    expect(run.e2e.min).toBeGreaterThanOrEqual(run.discovery.min);
    expect(Object.keys(run.cpuMicrosPerTransfer).sort()).toEqual([
      'als',
      'bench',
      'central-ledger-api',
      'central-ledger-handlers',
      'fsps',
      'kafka',
      'mariadb',
      'ml-api-adapter',
      'position',
    ]);
    expect(run.coresPer1000.als).toBeGreaterThan(0);
    expect(run.coresPer1000.position).toBeGreaterThan(0);
    expect(Object.keys(run.idleCores).sort()).toEqual(Object.keys(run.cpuMicrosPerTransfer).sort());
    expect(run.marginalCoresPer1000.als).toBeLessThanOrEqual(run.coresPer1000.als);
  }, 120_000);
});
