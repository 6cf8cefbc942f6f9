import { describe, expect, it, vi } from 'vitest';
import { seededRandom } from '../src/seed.js';

describe('seededRandom', () => {
  it('prints its seed, and SEED= replays the same draws', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const first = seededRandom('a test', {});
      const draws = Array.from({ length: 20 }, () => first.int(0, 400));
      expect(log).toHaveBeenLastCalledWith(expect.stringContaining(`a test: SEED=${first.seed}`));
      const replay = seededRandom('a test', { SEED: String(first.seed) });
      expect(replay.seed).toBe(first.seed);
      expect(Array.from({ length: 20 }, () => replay.int(0, 400))).toEqual(draws);
      expect(draws.every((d) => Number.isInteger(d) && d >= 0 && d < 400)).toBe(true);
      expect(new Set(draws).size).toBeGreaterThan(5);
      const other = seededRandom('a test', { SEED: String(first.seed + 1) });
      expect(Array.from({ length: 20 }, () => other.int(0, 400))).not.toEqual(draws);
      expect(() => seededRandom('a test', { SEED: 'abc' })).toThrow(/SEED must be a whole number/);
    } finally {
      log.mockRestore();
    }
  });
});
