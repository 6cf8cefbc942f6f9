import { describe, expect, it } from 'vitest';
import { type MicroCase, runCase, seededRandom } from '../src/micro/harness.js';

describe('bench:micro harness', () => {
  it('warms every side up once, rotates who goes first each round, and reports medians against ours', async () => {
    const order: string[] = [];
    let closed = false;
    const costs: Record<string, number[]> = { ours: [9, 10, 11], lib: [30, 20, 25] };
    const micro: MicroCase = {
      name: 'fake',
      operation: 'nothing',
      load: 'none',
      unit: 'ns/op',
      operations: 10,
      async setUp() {
        const side = (label: string, role: 'ours' | 'library') => {
          let call = 0;
          return {
            label,
            role,
            sample: (operations: number) => {
              expect(operations).toBe(20);
              order.push(label);
              // The warm-up sample (the first) is not kept.
              return call++ === 0 ? 1_000 : (costs[label]?.[call - 2] as number);
            },
          };
        };
        return {
          sides: [side('ours', 'ours'), side('lib', 'library')],
          async close() {
            closed = true;
          },
        };
      },
    };
    const result = await runCase(micro, { seed: 1, samples: 3, scale: 2 });
    expect(order).toEqual(['ours', 'lib', 'ours', 'lib', 'lib', 'ours', 'ours', 'lib']);
    expect(closed).toBe(true);
    expect(result.sides.map((s) => [s.label, s.median, s.min, s.max, s.vs_ours])).toEqual([
      ['ours', 10, 9, 11, 1],
      ['lib', 25, 20, 30, 2.5],
    ]);
  });

  it('draws the same inputs from the same seed', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const first = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(Array.from({ length: 5 }, seededRandom(8))).not.toEqual(first);
  });
});
