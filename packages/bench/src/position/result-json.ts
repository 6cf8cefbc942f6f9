import type { PhaseLabel, PhaseResult } from './measure-phase.js';

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

/** CPU time of each measured process over the phase, per message: comparable across rates and durations. */
export function cpuMicrosPerMessage(phase: PhaseResult): Record<string, number> {
  return Object.fromEntries(
    Object.entries(phase.cpu).map(([k, cores]) => [
      k,
      Math.round((cores * phase.durationSeconds * 1e6) / phase.messages),
    ]),
  );
}
