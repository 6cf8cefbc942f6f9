import { describe, expect, it } from 'vitest';
import { parseBaselineEnv, scenarioArgs, sideResult } from '../src/als/baseline.js';

// The comparison's own parts; the comparison of two real builds is als-baseline.test.ts.
describe('baseline comparison parts', () => {
  it('passes the scenario flags on and keeps the comparison flags, in either spelling, to itself', () => {
    expect(
      scenarioArgs([
        '--vus',
        '4',
        '--baseline',
        '/x',
        '--rounds=3',
        '--baseline-env',
        'A=1',
        '--out',
        'o.json',
        '--ids=new',
      ]),
    ).toEqual(['--vus', '4', '--ids=new']);
  });

  it('reads KEY=VALUE pairs and refuses one without a key', () => {
    expect(parseBaselineEnv(['A=1', 'B=x=y', 'C='])).toEqual({ A: '1', B: 'x=y', C: '' });
    expect(() => parseBaselineEnv(['=1'])).toThrow('--baseline-env must be KEY=VALUE');
    expect(() => parseBaselineEnv(['A'])).toThrow('--baseline-env must be KEY=VALUE');
  });

  it('reads a result file of a build that did not record its commit or the ALS CPU', () => {
    const side = sideResult({ lookups_per_s: 5000, e2e_ms: { p99: 8 }, checks_rate: 1 });
    expect(side).toEqual({
      lookupsPerSecond: 5000,
      p99Ms: 8,
      checksRate: 1,
      alsCores: undefined,
      alsMicrosPerLookup: undefined,
      commit: undefined,
    });
    expect(
      sideResult({ lookups_per_s: 5000, e2e_ms: { p99: 8 }, checks_rate: 1, cpu_cores: { als: 0.5 } })
        .alsMicrosPerLookup,
    ).toBeCloseTo(100, 6);
  });
});
