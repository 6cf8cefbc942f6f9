import { markdownTable } from '../report/table.js';
import type { ScenarioResult } from './scenario.js';

export interface MatrixRow {
  readonly name: string;
  readonly lookupsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly checksRate: number;
  readonly cpu: Record<string, number>;
}

export function matrixRow(result: ScenarioResult): MatrixRow {
  const { driver } = result;
  const total = driver.passes + driver.fails;
  return {
    name: result.scenario.name,
    lookupsPerSecond: driver.lookupsPerSecond,
    p50: driver.e2e.med,
    p99: driver.e2e.p99,
    checksRate: total === 0 ? 0 : driver.passes / total,
    cpu: result.cpu,
  };
}

/** One row per scenario with its ratio to the sims-only baseline: the ceiling of this machine. */
export function matrixMarkdown(rows: readonly MatrixRow[], baselineName: string, header: string): string {
  const baseline = rows.find((r) => r.name === baselineName)?.lookupsPerSecond ?? 0;
  const cells = rows.map((r) => [
    r.name,
    r.lookupsPerSecond.toFixed(0),
    baseline > 0 ? `${(r.lookupsPerSecond / baseline).toFixed(2)}×` : 'n/a',
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    `${(r.checksRate * 100).toFixed(2)}%`,
    Object.entries(r.cpu)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', '),
  ]);
  const table = markdownTable(
    ['scenario', 'lookups/s', 'vs sims-only', 'e2e p50 ms', 'e2e p99 ms', 'checks', 'CPU (cores)'],
    cells,
    { align: ['left', 'right', 'right', 'right', 'right', 'right', 'left'] },
  );
  return `${header}\n\n${table}\n`;
}

const escapeXml = (s: string) => s.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A plot a person can open in a browser: per scenario a bar for lookups/s and, on the same row, the
 * p50 and p99 end-to-end latency as dots on their own axis.
 */
export function matrixSvg(rows: readonly MatrixRow[], title: string): string {
  const rowHeight = 22;
  const labelWidth = 300;
  const barWidth = 360;
  const latencyWidth = 300;
  const top = 50;
  const width = labelWidth + barWidth + latencyWidth + 60;
  const height = top + rows.length * rowHeight + 40;
  const maxRate = Math.max(1, ...rows.map((r) => r.lookupsPerSecond));
  const maxLatency = Math.max(1, ...rows.map((r) => r.p99));
  const latencyX = (ms: number) => labelWidth + barWidth + 40 + (ms / maxLatency) * latencyWidth;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="20" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="${labelWidth}" y="${top - 8}">lookups/s (max ${maxRate.toFixed(0)})</text>`,
    `<text x="${labelWidth + barWidth + 40}" y="${top - 8}">e2e latency ms (● p50, ◆ p99; axis to ${maxLatency.toFixed(1)})</text>`,
  ];
  rows.forEach((r, i) => {
    const y = top + i * rowHeight;
    const w = (r.lookupsPerSecond / maxRate) * barWidth;
    parts.push(
      `<text x="10" y="${y + 15}">${escapeXml(r.name)}</text>`,
      `<rect x="${labelWidth}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowHeight - 8}" fill="#3b7dd8"/>`,
      `<text x="${labelWidth + w + 4}" y="${y + 15}">${r.lookupsPerSecond.toFixed(0)}</text>`,
      `<line x1="${latencyX(0)}" y1="${y + 11}" x2="${latencyX(maxLatency)}" y2="${y + 11}" stroke="#ddd"/>`,
      `<circle cx="${latencyX(r.p50).toFixed(1)}" cy="${y + 11}" r="4" fill="#2a9d3f"/>`,
      `<rect x="${(latencyX(r.p99) - 4).toFixed(1)}" y="${y + 7}" width="8" height="8" fill="#d8453b" transform="rotate(45 ${latencyX(r.p99).toFixed(1)} ${y + 11})"/>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
