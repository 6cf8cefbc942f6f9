import { describe, expect, it } from 'vitest';
import { runsTable, type SideRun, summarise } from '../src/als/versus.js';

const run = (side: string, round: number, lookups: number, alsCores: number, rss: number): SideRun => ({
  side,
  round,
  lookupsPerSecond: lookups,
  p99Ms: 10 * round,
  checksRate: 1,
  failed: 0,
  cores: { als: alsCores, generator: 0.3 },
  rssMb: { als: rss, simulators: 100 },
  alsMicrosPerLookup: (alsCores / lookups) * 1e6,
});

// Each side's figures are the mean over its rounds, except RSS: the largest, so growth across rounds shows.
describe('bench:als --original / --floor summaries', () => {
  it('averages each side over its rounds and keeps the largest RSS', () => {
    const [ours, relay] = summarise([
      run('ours', 1, 1000, 0.5, 180),
      run('relay', 1, 2000, 0.5, 120),
      run('relay', 2, 2000, 0.7, 130),
      run('ours', 2, 1000, 0.7, 200),
    ]);
    expect(ours).toMatchObject({ side: 'ours', lookupsPerSecond: 1000, alsRssMb: 200, p99Ms: 15 });
    expect(ours?.alsMicrosPerLookup).toBeCloseTo(600);
    expect(relay?.alsMicrosPerLookup).toBeCloseTo(300);
  });

  it('writes a row per run with every process RSS', () => {
    const table = runsTable([run('ours', 1, 1000, 0.5, 180)]);
    expect(table).toContain('| 1 | ours | 1000 | 10.0 | 0.50 | 500 | 0 | als 180, simulators 100 |');
  });
});
