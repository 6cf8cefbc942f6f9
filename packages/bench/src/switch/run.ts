import { LatencyRecorder } from '../report/latency.js';
import { CpuMeter } from '../system/cpu.js';
import { runArrivals } from './arrivals.js';
import { coresPer1000, microsPerTransfer, type Stack, type SwitchBenchRun } from './results.js';
import type { SwitchStack } from './stack.js';
import { runFlow } from './transfer-flow.js';
import { validityGate } from './validity.js';

export interface LatencySinks {
  readonly discovery: LatencyRecorder;
  readonly transfer: LatencyRecorder;
  readonly e2e: LatencyRecorder;
}

export interface RunOptions {
  readonly rate: number;
  readonly durationS: number;
  readonly warmupS: number;
  /** Seconds with no load before the measured run, to measure each process's idle use. */
  readonly idleS: number;
  readonly maxInFlight: number;
  readonly timeoutMs: number;
  readonly seed: string;
}

/**
 * One run: a stack's ALS and position handler started on the switch, a warm-up at the offered rate (not
 * measured), `idleS` with no load (each process's idle use), then `durationS` at the offered rate, measured: each iteration a lookup then a transfer; CPU of
 * every process and the growth of the gate's topics from the first arrival until every iteration settled.
 */
export async function measureRun(
  sw: SwitchStack,
  stack: Stack,
  round: number,
  o: RunOptions,
  progress: (line: string) => void,
  /** Recorders of the stack over all its runs, for the k6 summary: each latency is recorded there too. */
  sinks?: LatencySinks,
): Promise<SwitchBenchRun> {
  const pair = await sw.startPair(stack);
  try {
    const ctx = {
      alsUrl: sw.alsUrl,
      frontUrl: sw.front.url,
      payer: sw.payer,
      payerName: sw.payerName,
      payeeName: sw.payeeName,
      seed: o.seed,
      timeoutMs: o.timeoutMs,
    };
    // MSISDNs unique per run and iteration, so every lookup asks the oracle as a first lookup does.
    const msisdn = (phase: number, i: number) =>
      `4${round % 10}${stack === 'ours' ? 1 : 0}${phase}${String(i).padStart(7, '0')}`;
    if (o.warmupS > 0) {
      await runArrivals({
        rate: o.rate,
        durationMs: o.warmupS * 1000,
        maxInFlight: o.maxInFlight,
        iteration: async (i) => {
          await runFlow(ctx, msisdn(0, i));
        },
      });
    }
    const idle = new CpuMeter(pair.pids);
    await idle.start();
    await new Promise((r) => setTimeout(r, o.idleS * 1000));
    const idleCores = o.idleS > 0 ? await idle.stop() : {};
    const discovery = new LatencyRecorder();
    const transfer = new LatencyRecorder();
    const e2e = new LatencyRecorder();
    const failures: Record<string, number> = {};
    let completed = 0;
    let failed = 0;
    const before = await sw.topicEnds();
    const cpu = new CpuMeter(pair.pids);
    await cpu.start();
    const t0 = performance.now();
    const arrivals = await runArrivals({
      rate: o.rate,
      durationMs: o.durationS * 1000,
      maxInFlight: o.maxInFlight,
      iteration: async (i) => {
        const outcome = await runFlow(ctx, msisdn(1, i));
        if (outcome.ok) {
          completed++;
          discovery.record(outcome.discoveryMs);
          transfer.record(outcome.transferMs);
          e2e.record(outcome.e2eMs);
          sinks?.discovery.record(outcome.discoveryMs);
          sinks?.transfer.record(outcome.transferMs);
          sinks?.e2e.record(outcome.e2eMs);
        } else {
          failed++;
          const key = `${outcome.stage}: ${outcome.reason}`;
          failures[key] = (failures[key] ?? 0) + 1;
        }
      },
    });
    const windowS = (performance.now() - t0) / 1000;
    const cores = await cpu.stop();
    const after = await sw.topicEnds();
    const cpuMicros = microsPerTransfer(cores, windowS, completed);
    const marginalMicros = microsPerTransfer(cores, windowS, completed, idleCores);
    const run: SwitchBenchRun = {
      stack,
      round,
      offeredPerSecond: o.rate,
      durationS: o.durationS,
      started: arrivals.started,
      dropped: arrivals.dropped,
      completed,
      failed,
      failures,
      completedPerSecond: completed / windowS,
      discovery: discovery.summary(),
      transfer: transfer.summary(),
      e2e: e2e.summary(),
      gate: validityGate({
        prepare: after.prepare - before.prepare,
        fulfil: after.fulfil - before.fulfil,
        notification: after.notification - before.notification,
      }),
      cpuMicrosPerTransfer: cpuMicros,
      idleCores,
      marginalMicrosPerTransfer: marginalMicros,
      coresPer1000: coresPer1000(cpuMicros),
      marginalCoresPer1000: coresPer1000(marginalMicros),
    };
    progress(
      `round ${round} ${stack}: ${completed} completed (${failed} failed, ${arrivals.dropped} dropped), ${run.completedPerSecond.toFixed(1)}/s, e2e p95 ${run.e2e.p95.toFixed(1)} ms, gate ${run.gate.fulfilPerPrepare.toFixed(2)} / ${run.gate.notificationPerPrepare.toFixed(2)}, ALS ${run.coresPer1000.als.toFixed(3)} and position ${run.coresPer1000.position.toFixed(3)} cores per 1,000/s (${run.marginalCoresPer1000.als.toFixed(3)} and ${run.marginalCoresPer1000.position.toFixed(3)} above idle)`,
    );
    return run;
  } finally {
    await pair.stop();
  }
}
