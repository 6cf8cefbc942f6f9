import type { ScenarioResult } from './scenario.js';

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/**
 * The JSON of one ALS run. The first fields are the contract every build keeps (`lookups_per_s`, `e2e_ms`,
 * `checks_rate`, `failed`, `vus`, `duration_s`); the rest say what was run and what it cost.
 */
export function alsResultJson(result: ScenarioResult): Record<string, unknown> {
  const { driver, scenario } = result;
  const e2e = driver.e2e;
  const accept = driver.metrics.get('http_req_duration');
  return {
    lookups_per_s: round(driver.lookupsPerSecond, 1),
    e2e_ms: { p50: e2e.med, p90: e2e.p90, p95: e2e.p95, p99: e2e.p99, max: e2e.max, avg: round(e2e.avg, 3) },
    checks_rate: driver.passes + driver.fails === 0 ? 0 : driver.passes / (driver.passes + driver.fails),
    failed: driver.fails,
    vus: scenario.model.kind === 'closed' ? scenario.model.vus : scenario.model.maxVus,
    duration_s: round(driver.durationSeconds, 3),
    scenario: scenario.name,
    model: scenario.model,
    ids: scenario.ids,
    fspiop_version: scenario.version,
    api_type: scenario.apiType ?? 'fspiop',
    als_processes: scenario.stack.simsOnly ? 0 : scenario.stack.processes,
    cache: scenario.stack.cache,
    keep_alive: scenario.stack.keepAlive,
    target: scenario.stack.target ?? null,
    timeouts: driver.timeouts,
    dropped_iterations: driver.dropped,
    accept_ms: accept?.type === 'trend' ? accept.values : null,
    cpu_cores: Object.fromEntries(Object.entries(result.cpu).map(([k, v]) => [k, round(v, 3)])),
    rss_mb: result.rssMb,
  };
}

/** A generator using most of a core is measuring itself; the summary must say so (developers' guide). */
export function generatorWarning(result: ScenarioResult): string | undefined {
  const used = result.cpu.generator;
  if (used !== undefined && used > 0.85) {
    return `note: the load generator used ${used.toFixed(2)} cores; on 2 shared cores it is likely part of the limit`;
  }
  return undefined;
}
