/**
 * Seconds the handlers spent in each stage (`position_stage_seconds_sum` of their /metrics, summed over the
 * processes): where a phase's time went inside the handler, beside the CPU split.
 */
export async function readStageSeconds(metricsUrls: readonly string[]): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  for (const url of metricsUrls) {
    const text = await (await fetch(url)).text();
    for (const match of text.matchAll(/^position_stage_seconds_sum\{stage="([a-z]+)"\} ([0-9.e+-]+)$/gm)) {
      const [, stage, value] = match;
      if (stage !== undefined) totals[stage] = (totals[stage] ?? 0) + Number(value);
    }
  }
  return totals;
}

export function stageDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([stage, value]) => [stage, value - (before[stage] ?? 0)]));
}
