import { readFileSync } from 'node:fs';

/** One metric a community dashboard queries (a fact taken from mojaloop/helm's dashboards). */
export interface DashboardMetric {
  readonly name: string;
  readonly labels: readonly string[];
  readonly dashboard: string;
}

/** A service's dashboard-metrics.json: the names it exports and those it does not (with why, in the file). */
export interface DashboardFixture {
  readonly covered: DashboardMetric[];
  readonly notCovered: DashboardMetric[];
}

export function readDashboardFixture(url: URL): DashboardFixture {
  return JSON.parse(readFileSync(url, 'utf8')) as DashboardFixture;
}

/**
 * name → the label sets of its samples on a Prometheus text page. A histogram's `_count` sample counts
 * only once something was observed (a series bound in advance renders 0 before that).
 */
export function prometheusSamples(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match?.[1] || (match[1].endsWith('_count') && !(Number(match[3]) > 0))) continue;
    const list = found.get(match[1]) ?? [];
    list.push(match[2] ?? '');
    found.set(match[1], list);
  }
  return found;
}
