import type { PhaseLabel, PhaseResult } from './measure-phase.js';

/** What the side-by-side comparisons read of one run (run.ts's PositionBenchResult). */
interface ComparedRun {
  readonly phases: readonly PhaseResult[];
  readonly positionMismatches: readonly string[];
}

/** One phase as bench:position's JSON (`--out`) gives it: snake_case, rounded. */
export function phaseJson(phase: PhaseResult | undefined) {
  if (!phase) return null;
  const l = phase.latency;
  return {
    messages: phase.messages,
    msgs_per_s: Number(phase.msgsPerSecond.toFixed(1)),
    latency_ms: { p50: l.med, p90: l.p90, p95: l.p95, p99: l.p99, max: l.max, avg: Number(l.avg.toFixed(3)) },
    sql_per_msg: Number(phase.sqlPerMessage.toFixed(4)),
    sql_statements: phase.sqlStatements,
    db_commits_per_s: Number(phase.commitsPerSecond.toFixed(1)),
    lost: phase.lost,
    duplicated: phase.duplicated,
    error_notifications: phase.errorNotifications,
    error_notifications_expected: phase.expectedErrorNotifications,
    duration_s: Number(phase.durationSeconds.toFixed(3)),
    cpu_cores: Object.fromEntries(Object.entries(phase.cpu).map(([k, v]) => [k, Number(v.toFixed(3))])),
    cpu_us_per_msg: cpuMicrosPerMessage(phase),
    handler_stage_s: Object.fromEntries(Object.entries(phase.handlerStages).map(([k, v]) => [k, Number(v.toFixed(3))])),
    mysql_status: phase.mysqlStatus,
    mysql_status_per_msg: Object.fromEntries(
      Object.entries(phase.mysqlStatus ?? {}).map(([k, v]) => [k, Number((v / phase.messages).toFixed(3))]),
    ),
    rss_mb: phase.rssMb,
  };
}

/** A run's phases by their label (prepare, commit, mixed; null for a phase the run has not): --actions decides. */
export function phasesJson(result: { readonly phases: readonly PhaseResult[] }) {
  const of = (label: PhaseLabel) => phaseJson(result.phases.find((p) => p.action === label));
  return { prepare: of('prepare'), commit: of('commit'), mixed: of('mixed') };
}

/** One run of a side-by-side comparison as its JSON gives it: the phases and the positions that did not match. */
export function comparedRunJson(result: ComparedRun) {
  return { ...phasesJson(result), position_mismatches: result.positionMismatches };
}

/** Lost, duplicated or wrong positions of one run of a comparison, a line each naming the round and the side. */
export function comparedRunFailures(round: number, side: string, result: ComparedRun): string[] {
  return [
    ...result.phases
      .filter((p) => p.lost > 0 || p.duplicated > 0)
      .map((p) => `round ${round} ${side} ${p.action}: ${p.lost} lost, ${p.duplicated} duplicated`),
    ...result.positionMismatches.map((m) => `round ${round} ${side}: ${m}`),
  ];
}

/** CPU time of each measured process over the phase, per message: comparable across rates and durations. */
export function cpuMicrosPerMessage(phase: PhaseResult): Record<string, number> {
  return Object.fromEntries(
    Object.entries(phase.cpu).map(([k, cores]) => [
      k,
      Math.round((cores * phase.durationSeconds * 1e6) / phase.messages),
    ]),
  );
}

/** The handler's phase against a database floor's: msgs/s and MariaDB CPU per message, handler over floor. */
export function toDbFloor(handler: PhaseResult, floor: PhaseResult | undefined) {
  const hc = cpuMicrosPerMessage(handler);
  const fc = floor ? cpuMicrosPerMessage(floor) : {};
  return {
    msgs_per_s: Number((handler.msgsPerSecond / Math.max(floor?.msgsPerSecond ?? 0, 1e-9)).toFixed(3)),
    mariadb_cpu_per_msg: Number(((hc.mariadb ?? 0) / Math.max(fc.mariadb ?? 0, 1e-9)).toFixed(3)),
  };
}
