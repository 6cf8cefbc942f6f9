import { join } from 'node:path';
import { createDatabase, type TestDatabase } from '@mojafast/testkit';
import { stateDir } from '../load/paths.js';
import { pidFrom } from '../load/processes.js';
import { markdownTable } from '../report/table.js';
import { runScenario, type Scenario, type ScenarioResult } from './scenario.js';

/**
 * `bench:als --tls`: what encryption to the database costs the ALS. Both sides read the oracle registry from
 * MariaDB as a Mojaloop deployment does (the ALS's default: read on every lookup, the original's too): one on
 * the plain server, one on the secure stack's (require_secure_transport; the certificate verified against its
 * CA), each on a fresh database, rounds alternating the order so a drift of the machine favours neither.
 * FSPIOP traffic stays HTTP, as in Mojaloop's secure postures (TLS ends at the ingress).
 */
type Side = 'plain' | 'tls';

export interface TlsSide {
  readonly lookupsPerSecond: number;
  readonly p99Ms: number;
  readonly failed: number;
  /** CPU per lookup in µs of the ALS and of the database server. */
  readonly alsMicrosPerLookup: number;
  readonly mariadbMicrosPerLookup: number | undefined;
}

export interface TlsRound {
  readonly round: number;
  readonly order: 'plain first' | 'TLS first';
  readonly plain: TlsSide;
  readonly tls: TlsSide;
}

export interface TlsComparison {
  readonly scenario: string;
  readonly rounds: readonly TlsRound[];
  /** TLS over plain, mean over the rounds. */
  readonly lookupsRatio: number;
  readonly alsCpuRatio: number;
}

export async function compareTls(
  base: Scenario,
  rounds: number,
  progress: (line: string) => void,
): Promise<TlsComparison> {
  const results: TlsRound[] = [];
  for (let round = 1; round <= rounds; round++) {
    const plainFirst = round % 2 === 1;
    progress(`round ${round}/${rounds}: ${plainFirst ? 'plain first' : 'TLS first'}`);
    const order: Side[] = plainFirst ? ['plain', 'tls'] : ['tls', 'plain'];
    const sides = new Map<Side, TlsSide>();
    for (const stack of order) {
      const side = await runSide(base, stack);
      progress(
        `  ${stack}: ${side.lookupsPerSecond.toFixed(0)} lookups/s, ALS ${side.alsMicrosPerLookup.toFixed(1)} µs/lookup`,
      );
      sides.set(stack, side);
    }
    results.push({
      round,
      order: plainFirst ? 'plain first' : 'TLS first',
      plain: sides.get('plain') as TlsSide,
      tls: sides.get('tls') as TlsSide,
    });
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    scenario: base.name,
    rounds: results,
    lookupsRatio: mean(results.map((r) => r.tls.lookupsPerSecond / r.plain.lookupsPerSecond)),
    alsCpuRatio: mean(results.map((r) => r.tls.alsMicrosPerLookup / r.plain.alsMicrosPerLookup)),
  };
}

async function runSide(base: Scenario, stack: Side): Promise<TlsSide> {
  const secure = stack === 'tls';
  const db: TestDatabase = await createDatabase({ prefix: 'bench_als_registry', secure });
  let result: ScenarioResult;
  try {
    const serverPid = await pidFrom(join(stateDir, secure ? 'mariadb-tls' : 'mariadb', 'mysqld.pid'));
    result = await runScenario({
      ...base,
      stack: { ...base.stack, registry: { connection: db.connection, serverPid } },
    });
  } finally {
    await db.drop();
  }
  const perLookup = (cores: number | undefined) =>
    cores === undefined ? undefined : (cores / Math.max(result.driver.lookupsPerSecond, 1e-9)) * 1e6;
  return {
    lookupsPerSecond: result.driver.lookupsPerSecond,
    p99Ms: result.driver.e2e.p99,
    failed: result.driver.fails,
    alsMicrosPerLookup: perLookup(result.cpu.als) ?? 0,
    mariadbMicrosPerLookup: perLookup(result.cpu.mariadb),
  };
}

/** A row per round, then the mean ratios. */
export function tlsTable(comparison: TlsComparison): string {
  const us = (n: number | undefined) => (n === undefined ? 'n/a' : n.toFixed(1));
  return [
    `scenario: ${comparison.scenario}, oracle registry in MariaDB (read per lookup)`,
    '',
    markdownTable(
      [
        'round',
        'order',
        'plain lookups/s',
        'plain p99 ms',
        'plain ALS µs/lookup',
        'plain MariaDB µs/lookup',
        'TLS lookups/s',
        'TLS p99 ms',
        'TLS ALS µs/lookup',
        'TLS MariaDB µs/lookup',
        'TLS/plain lookups/s',
      ],
      comparison.rounds.map((r) => [
        String(r.round),
        r.order,
        r.plain.lookupsPerSecond.toFixed(0),
        String(r.plain.p99Ms),
        us(r.plain.alsMicrosPerLookup),
        us(r.plain.mariadbMicrosPerLookup),
        r.tls.lookupsPerSecond.toFixed(0),
        String(r.tls.p99Ms),
        us(r.tls.alsMicrosPerLookup),
        us(r.tls.mariadbMicrosPerLookup),
        (r.tls.lookupsPerSecond / r.plain.lookupsPerSecond).toFixed(2),
      ]),
    ),
    '',
    `TLS/plain (mean of rounds): lookups/s ${comparison.lookupsRatio.toFixed(2)}, ALS CPU per lookup ${comparison.alsCpuRatio.toFixed(2)}`,
  ].join('\n');
}
