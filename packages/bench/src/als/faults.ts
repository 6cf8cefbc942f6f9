import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { LatencyRecorder } from '../report/latency.js';
import { CpuMeter } from '../system/cpu.js';
import { closedPortUrl, startFaultPayee, startSwitchProxy } from './fault-parts.js';
import { parsePartyIdMode, partyIdSource } from './party-ids.js';
import { type LookupRequest, lookupRequest } from './request.js';
import { startAlsStack } from './stack.js';

/**
 * `bench:als --scenario faults`: one ALS, healthy lookups from a closed set of virtual users, and beside
 * them, phase after phase, lookups that meet one fault. Every lookup is followed by its trace id: a 202
 * must end in exactly one callback to the payer (`lost`: none; `duplicated`: more than one, or a callback
 * after a synchronous answer). The healthy lookups/s of each phase is divided by the no-fault phase's, in
 * the same invocation. Then an overload phase: many virtual users that honour Retry-After.
 */

export type FaultName =
  | 'none'
  | 'payee-silent'
  | 'payee-closed-port'
  | 'payee-500'
  | 'oracle-down'
  | 'ledger-down-cold';

export const faultNames: readonly FaultName[] = [
  'none',
  'payee-silent',
  'payee-closed-port',
  'payee-500',
  'oracle-down',
  'ledger-down-cold',
];

export interface FaultBenchOptions {
  readonly healthyVus: number;
  /** Lookups per second sent into the fault, beside the healthy ones. */
  readonly faultRate: number;
  readonly phaseSeconds: number;
  readonly overloadVus: number;
  /** The overload phase this many times in a row on the same ALS (its RSS at each end shows any growth). */
  readonly overloadRounds: number;
  /** False: no fault phases, one no-fault phase (the overload's baseline) then the overload rounds. */
  readonly faultPhases: boolean;
  readonly timeoutMs: number;
  readonly fsps: number;
  readonly progress: (line: string) => void;
}

export interface PhaseResult {
  readonly phase: string;
  readonly healthyPerSecond: number;
  readonly healthyP99Ms: number;
  /** Healthy lookups/s divided by the no-fault phase's (1 for that phase). */
  readonly ratio: number;
  readonly faultSent: number;
  /** What the fault lookups got: synchronous statuses and callbacks, e.g. "cb 1001 x500". */
  readonly faultOutcome: string;
  readonly lost: number;
  readonly duplicated: number;
  /** Accepted lookups that got no callback because the payee never sent one (the ALS's part was done). */
  readonly payeeSilent: number;
  readonly refusedPerSecond: number;
  readonly alsRssMb: number;
  /** The ALS's RSS once the phase's callbacks have settled, MB. */
  readonly alsRssEndMb: number;
  /** Cores used during the phase: ALS, simulators, generator (with the payer FSP), and the whole machine. */
  readonly cpu: Record<string, number>;
}

interface Trace {
  readonly traceId: string;
  readonly status: number;
  readonly fault: boolean;
}

/** Busy and total CPU time of the whole machine (/proc/stat), to tell our processes' load from others'. */
function machineTimes(): { busy: number; total: number } {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, n) => sum + n, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

const rssOf = (pid: number): number => {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
};

export async function runFaultBench(options: FaultBenchOptions): Promise<PhaseResult[]> {
  const callbacks = new Map<string, { count: number }>();
  const payee = await startFaultPayee();
  const proxy = await startSwitchProxy();
  const closedOracle = await closedPortUrl();
  const dir = mkdtempSync(join(tmpdir(), 'mojafast-faults-'));
  const participantsFile = join(dir, 'participants.json');
  const deadBase = await closedPortUrl();
  writeFileSync(
    participantsFile,
    JSON.stringify({
      silentfsp: { endpointBase: payee.silentBase },
      brokenfsp: { endpointBase: payee.brokenBase },
      deadfsp: { endpointBase: deadBase },
    }),
  );
  const stack = await startAlsStack({
    fsps: options.fsps,
    processes: 1,
    cache: true,
    keepAlive: true,
    simsOnly: false,
    // payerfsp1 exists but never looks anything up before central-ledger goes down: its caches are cold.
    simArgs: ['--payers', '1', '--participants-file', participantsFile],
    onCallback: (traceId) => {
      const seen = callbacks.get(traceId);
      if (seen) seen.count++;
      else callbacks.set(traceId, { count: 1 });
    },
    alsEnv: (sims) => {
      proxy.setTarget(sims.admin);
      // MSISDN has the simulated oracle; ACCOUNT_ID an oracle on a closed port (the "oracle down" fault).
      const oraclesFile = join(dir, 'oracles.json');
      writeFileSync(
        oraclesFile,
        JSON.stringify([
          { oracleIdType: 'MSISDN', endpoint: { value: sims.oracle, endpointType: 'URL' }, isDefault: true },
          { oracleIdType: 'ACCOUNT_ID', endpoint: { value: closedOracle, endpointType: 'URL' }, isDefault: true },
        ]),
      );
      return { ALS_SWITCH_ENDPOINT: proxy.url, ALS_ORACLES_FILE: oraclesFile };
    },
  });
  const alsPid = stack.pids.get('als') ?? 0;
  const nextPartyId = partyIdSource(parsePartyIdMode('hot', 1000));
  let faultIds = 0;
  const healthyRequest = () => lookupRequest(nextPartyId(), { version: '1.1', source: 'payerfsp', now: Date.now() });
  const faultRequest = (fault: FaultName): LookupRequest => {
    const id = `4679${String(++faultIds).padStart(7, '0')}`;
    const now = Date.now();
    switch (fault) {
      case 'payee-silent':
        return lookupRequest(id, { version: '1.1', source: 'payerfsp', destination: 'silentfsp', now });
      case 'payee-closed-port':
        return lookupRequest(id, { version: '1.1', source: 'payerfsp', destination: 'deadfsp', now });
      case 'payee-500':
        return lookupRequest(id, { version: '1.1', source: 'payerfsp', destination: 'brokenfsp', now });
      case 'none':
        // The same side traffic as a fault phase, to a healthy payee: the baseline carries the same load.
        return lookupRequest(id, { version: '1.1', source: 'payerfsp', now });
      case 'oracle-down': {
        const request = lookupRequest(id, { version: '1.1', source: 'payerfsp', now });
        return { ...request, path: request.path.replace('/MSISDN/', '/ACCOUNT_ID/') };
      }
      default:
        return lookupRequest(id, { version: '1.1', source: 'payerfsp1', now });
    }
  };

  const results: PhaseResult[] = [];
  try {
    const pool = new Pool(stack.entryUrl, {
      connections: Math.max(options.healthyVus, options.overloadVus) + 32,
      pipelining: 1,
      keepAliveTimeout: 60_000,
    });
    const send = async (request: LookupRequest): Promise<{ status: number; retryAfterMs: number }> => {
      try {
        const res = await pool.request({ path: request.path, method: 'GET', headers: request.headers });
        await res.body.dump();
        const retryAfter = Number(res.headers['retry-after']);
        return { status: res.statusCode, retryAfterMs: Number.isFinite(retryAfter) ? retryAfter * 1000 : 0 };
      } catch {
        return { status: 0, retryAfterMs: 0 };
      }
    };

    // Warm-up: participant, endpoint and oracle caches of the healthy traffic.
    const warmEnd = performance.now() + 5_000;
    await Promise.all(
      Array.from({ length: options.healthyVus }, async () => {
        while (performance.now() < warmEnd) {
          const request = healthyRequest();
          if ((await send(request)).status === 202)
            await stack.payer.waitForCallback(request.traceId, options.timeoutMs).catch(() => undefined);
        }
      }),
    );

    const runPhase = async (phase: string, vus: number, fault: FaultName, rampSeconds = 0): Promise<PhaseResult> => {
      callbacks.clear();
      const traces: Trace[] = [];
      const latency = new LatencyRecorder();
      let ok = 0;
      let refused = 0;
      let rssMax = 0;
      // Lookups started in the ramp (connections being opened) run but are not counted.
      const measureFrom = performance.now() + rampSeconds * 1000;
      const end = measureFrom + options.phaseSeconds * 1000;
      const rssTimer = setInterval(() => {
        rssMax = Math.max(rssMax, rssOf(alsPid));
      }, 250);
      const cpu = new CpuMeter(new Map([...stack.pids, ['generator', process.pid]]));
      let machineStart = machineTimes();
      const cpuStarted = sleep(rampSeconds * 1000).then(() => {
        machineStart = machineTimes();
        return cpu.start();
      });
      if (fault === 'ledger-down-cold') proxy.setDown(true);
      const healthy = Array.from({ length: vus }, async () => {
        while (performance.now() < end) {
          const request = healthyRequest();
          const t0 = performance.now();
          const counted = t0 >= measureFrom;
          const { status, retryAfterMs } = await send(request);
          traces.push({ traceId: request.traceId, status, fault: false });
          if (status === 202) {
            try {
              await stack.payer.waitForCallback(request.traceId, options.timeoutMs);
              if (counted) {
                ok++;
                latency.record(performance.now() - t0);
              }
            } catch {
              // Counted as lost below if no callback came at all.
            }
          } else if (status === 503) {
            if (counted) refused++;
            await sleep(Math.max(retryAfterMs, 100));
          } else {
            await sleep(100);
          }
        }
      });
      const faultSends: Promise<void>[] = [];
      const faulty = (async () => {
        const interval = 1000 / options.faultRate;
        let next = measureFrom;
        await sleep(Math.max(0, next - performance.now()));
        while (next < end) {
          const request = faultRequest(fault);
          faultSends.push(
            send(request).then(({ status }) => {
              traces.push({ traceId: request.traceId, status, fault: true });
            }),
          );
          next += interval;
          await sleep(Math.max(0, next - performance.now()));
        }
      })();
      await Promise.all([...healthy, faulty]);
      await Promise.all(faultSends);
      const seconds = (performance.now() - measureFrom) / 1000;
      await cpuStarted;
      const cores = await cpu.stop();
      const machineEnd = machineTimes();
      const elapsed = machineEnd.total - machineStart.total;
      cores.machine = elapsed > 0 ? ((machineEnd.busy - machineStart.busy) / elapsed) * availableParallelism() : 0;
      clearInterval(rssTimer);
      proxy.setDown(false);
      // Callbacks still on their way: wait until none arrived for a second (at most the lookup timeout).
      let total = -1;
      const graceEnd = performance.now() + options.timeoutMs;
      while (performance.now() < graceEnd) {
        const now = [...callbacks.values()].reduce((sum, c) => sum + c.count, 0);
        if (now === total) break;
        total = now;
        await sleep(1_000);
      }

      const rssEnd = rssOf(alsPid);
      let lost = 0;
      let duplicated = 0;
      let payeeSilent = 0;
      const outcome = new Map<string, number>();
      for (const trace of traces) {
        const count = callbacks.get(trace.traceId)?.count ?? 0;
        if (trace.fault) {
          const key = trace.status === 202 ? `202+${count} cb` : `sync ${trace.status}`;
          outcome.set(key, (outcome.get(key) ?? 0) + 1);
        }
        if (trace.status === 202) {
          if (count === 0) {
            if (trace.fault && fault === 'payee-silent') payeeSilent++;
            else lost++;
          } else if (count > 1) duplicated++;
        } else if (count > 0) duplicated++;
      }
      const summary = latency.summary();
      return {
        phase,
        healthyPerSecond: ok / seconds,
        healthyP99Ms: summary.p99,
        ratio: 1,
        faultSent: traces.filter((t) => t.fault).length,
        faultOutcome: [...outcome.entries()].map(([key, n]) => `${key} x${n}`).join(', ') || '-',
        lost,
        duplicated,
        payeeSilent,
        refusedPerSecond: refused / seconds,
        alsRssMb: rssMax,
        alsRssEndMb: rssEnd,
        cpu: cores,
      };
    };

    // A no-fault phase before and after each fault: each fault's ratio is against the two around it, so
    // a drift of the machine (other processes on the two cores) is not read as the fault's effect.
    const measured: PhaseResult[] = [];
    const phases = options.faultPhases
      ? faultNames.filter((f) => f !== 'none').flatMap((f) => ['none' as const, f])
      : [];
    phases.push('none');
    for (const fault of phases) {
      options.progress(
        `phase ${fault}: ${options.healthyVus} healthy VUs, ${options.faultRate}/s into ${fault === 'none' ? 'a healthy payee' : 'the fault'}, ${options.phaseSeconds}s`,
      );
      measured.push(await runPhase(fault, options.healthyVus, fault));
    }
    const overloads: PhaseResult[] = [];
    for (let round = 1; round <= options.overloadRounds; round++) {
      const name = `overload ${options.overloadVus} VUs${options.overloadRounds > 1 ? `, round ${round}` : ''}`;
      options.progress(
        `phase ${name}: ${options.overloadVus} VUs honouring Retry-After, 3s ramp (not counted), ${options.phaseSeconds}s`,
      );
      overloads.push(await runPhase(name, options.overloadVus, 'none', 3));
    }
    const baselines = measured.filter((r) => r.phase === 'none');
    const overall = baselines.reduce((sum, r) => sum + r.healthyPerSecond, 0) / baselines.length;
    measured.forEach((result, i) => {
      const around =
        result.phase === 'none'
          ? overall
          : ((measured[i - 1]?.healthyPerSecond ?? overall) + (measured[i + 1]?.healthyPerSecond ?? overall)) / 2;
      results.push({ ...result, ratio: around > 0 ? result.healthyPerSecond / around : 0 });
    });
    for (const overload of overloads)
      results.push({ ...overload, ratio: overall > 0 ? overload.healthyPerSecond / overall : 0 });
    await pool.close();
  } finally {
    await stack.close();
    await proxy.close();
    await payee.close();
  }
  return results;
}

/** The table the bench prints (and the report quotes), one row per phase. */
export function faultTable(results: readonly PhaseResult[]): string {
  const header = [
    'phase',
    'healthy/s',
    'ratio',
    'p99 ms',
    'refused/s',
    'RSS MB largest / end',
    'cores als/sims/gen/machine',
    'lost',
    'dup',
    'silent payee',
    'fault lookups: outcome',
  ];
  const rows = results.map((r) => [
    r.phase,
    r.healthyPerSecond.toFixed(0),
    r.ratio.toFixed(2),
    r.healthyP99Ms.toFixed(1),
    r.refusedPerSecond.toFixed(0),
    `${r.alsRssMb.toFixed(0)} / ${r.alsRssEndMb.toFixed(0)}`,
    ['als', 'simulators', 'generator', 'machine'].map((name) => (r.cpu[name] ?? 0).toFixed(2)).join('/'),
    String(r.lost),
    String(r.duplicated),
    String(r.payeeSilent),
    r.faultSent === 0 ? '-' : `${r.faultSent}: ${r.faultOutcome}`,
  ]);
  const lines = [header, ...rows].map((cells) => `| ${cells.join(' | ')} |`);
  lines.splice(1, 0, `|${header.map(() => '---').join('|')}|`);
  return lines.join('\n');
}
