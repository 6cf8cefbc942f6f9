import { describe, expect, it } from 'vitest';
import { cacheCase } from '../src/micro/cases/cache.js';
import { decodeCase } from '../src/micro/cases/decode.js';
import { histogramCase } from '../src/micro/cases/histogram.js';
import { runCase } from '../src/micro/harness.js';

// The in-process cases of bench:micro, each a few thousand operations: what they set up runs, ours is the
// first side, and every side measures a cost. (The loopback cases fork a peer from dist/: the bench's own run.)
describe('bench:micro, the in-process cases at a small scale', () => {
  for (const micro of [histogramCase, cacheCase, decodeCase]) {
    it(`${micro.name}: ours first, then the others, each a finite positive cost per operation`, async () => {
      const result = await runCase(micro, { seed: 7, samples: 2, scale: 0.002 });
      expect(result.name).toBe(micro.name);
      expect(result.sides[0]?.role).toBe('ours');
      expect(result.sides[0]?.vs_ours).toBe(1);
      expect(result.sides.length).toBeGreaterThan(1);
      for (const side of result.sides) {
        expect(side.samples).toHaveLength(2);
        expect(Number.isFinite(side.median) && side.median > 0, side.label).toBe(true);
      }
    });
  }
});
