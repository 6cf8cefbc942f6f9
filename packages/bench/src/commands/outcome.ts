import { writeJson } from '../report/json.js';
import type { MetricSet } from '../report/metrics.js';
import { renderSummary } from '../report/summary.js';
import { evaluateThresholds, parseThreshold, type ThresholdResult } from '../report/thresholds.js';

/**
 * The end of every benchmark: thresholds evaluated, the k6-style summary printed, the JSON written,
 * and an exit code that says whether every threshold held (k6 exits 99 when one fails).
 */
export async function finish(options: {
  title: string;
  metrics: MetricSet;
  thresholds: readonly string[];
  defaultMetric: string;
  out?: string | undefined;
  json: Record<string, unknown>;
}): Promise<ThresholdResult[]> {
  const results = evaluateThresholds(
    options.thresholds.map((t) => parseThreshold(t, options.defaultMetric)),
    options.metrics,
  );
  process.stdout.write(`\n${renderSummary(options.title, options.metrics, results)}\n`);
  if (options.out) {
    await writeJson(options.out, {
      ...options.json,
      thresholds: results.map((r) => ({ threshold: r.threshold.source, actual: r.actual ?? null, ok: r.ok })),
      metrics: Object.fromEntries(options.metrics),
    });
    process.stdout.write(`results written to ${options.out}\n`);
  }
  if (results.some((r) => !r.ok)) process.exitCode = 99;
  return results;
}

export function progress(text: string): void {
  process.stderr.write(`${text}\n`);
}
