import { markdownTable } from '../report/table.js';
import type { ApiType } from './request.js';
import { runScenario, type Scenario } from './scenario.js';

/**
 * `bench:als --api-type both`: what the ISO 20022 API costs beside FSPIOP, in one invocation. The same
 * scenario against the ALS in each mode (ALS_API_TYPE; the generator and the payee simulator speak that
 * mode's media types and bodies), rounds alternating the order so a drift of the machine favours neither.
 */
export interface ApiTypeSide {
  readonly lookupsPerSecond: number;
  readonly p99Ms: number;
  readonly failed: number;
  /** The ALS's CPU per lookup, µs. */
  readonly alsMicrosPerLookup: number;
}

export interface ApiTypeRound {
  readonly round: number;
  readonly order: 'FSPIOP first' | 'ISO 20022 first';
  readonly fspiop: ApiTypeSide;
  readonly iso20022: ApiTypeSide;
}

export interface ApiTypeComparison {
  readonly scenario: string;
  readonly rounds: readonly ApiTypeRound[];
  /** ISO 20022 over FSPIOP, mean over the rounds. */
  readonly lookupsRatio: number;
  readonly alsCpuRatio: number;
}

export async function compareApiTypes(
  base: Scenario,
  rounds: number,
  progress: (line: string) => void,
): Promise<ApiTypeComparison> {
  const results: ApiTypeRound[] = [];
  for (let round = 1; round <= rounds; round++) {
    const fspiopFirst = round % 2 === 1;
    progress(`round ${round}/${rounds}: ${fspiopFirst ? 'FSPIOP first' : 'ISO 20022 first'}`);
    const order: ApiType[] = fspiopFirst ? ['fspiop', 'iso20022'] : ['iso20022', 'fspiop'];
    const sides = new Map<ApiType, ApiTypeSide>();
    for (const apiType of order) {
      const result = await runScenario({ ...base, apiType });
      const side = {
        lookupsPerSecond: result.driver.lookupsPerSecond,
        p99Ms: result.driver.e2e.p99,
        failed: result.driver.fails,
        alsMicrosPerLookup: ((result.cpu.als ?? 0) / Math.max(result.driver.lookupsPerSecond, 1e-9)) * 1e6,
      };
      progress(
        `  ${apiType}: ${side.lookupsPerSecond.toFixed(0)} lookups/s, ALS ${side.alsMicrosPerLookup.toFixed(1)} µs/lookup, ${side.failed} failed`,
      );
      sides.set(apiType, side);
    }
    results.push({
      round,
      order: fspiopFirst ? 'FSPIOP first' : 'ISO 20022 first',
      fspiop: sides.get('fspiop') as ApiTypeSide,
      iso20022: sides.get('iso20022') as ApiTypeSide,
    });
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    scenario: base.name,
    rounds: results,
    lookupsRatio: mean(results.map((r) => r.iso20022.lookupsPerSecond / r.fspiop.lookupsPerSecond)),
    alsCpuRatio: mean(results.map((r) => r.iso20022.alsMicrosPerLookup / r.fspiop.alsMicrosPerLookup)),
  };
}

/** A row per round, then the mean ratios. */
export function apiTypeTable(comparison: ApiTypeComparison): string {
  const side = (s: ApiTypeSide) => [
    s.lookupsPerSecond.toFixed(0),
    String(s.p99Ms),
    s.alsMicrosPerLookup.toFixed(1),
    String(s.failed),
  ];
  return [
    `scenario: ${comparison.scenario}`,
    '',
    markdownTable(
      [
        'round',
        'order',
        ...['FSPIOP', 'ISO'].flatMap((api) => [
          `${api} lookups/s`,
          `${api} p99 ms`,
          `${api} ALS µs/lookup`,
          `${api} failed`,
        ]),
        'ISO/FSPIOP lookups/s',
      ],
      comparison.rounds.map((r) => [
        String(r.round),
        r.order,
        ...side(r.fspiop),
        ...side(r.iso20022),
        (r.iso20022.lookupsPerSecond / r.fspiop.lookupsPerSecond).toFixed(2),
      ]),
    ),
    '',
    `ISO 20022/FSPIOP (mean of rounds): lookups/s ${comparison.lookupsRatio.toFixed(2)}, ALS CPU per lookup ${comparison.alsCpuRatio.toFixed(2)}`,
  ].join('\n');
}
