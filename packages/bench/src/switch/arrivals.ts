/**
 * k6's constant-arrival-rate executor: iteration i starts at `i / rate` seconds whatever the earlier ones are
 * doing (an open model: a slow switch meets the same offered load, and its queueing shows in the latency),
 * for `durationMs`; an iteration due while `maxInFlight` are running is dropped and counted, as k6 counts
 * dropped_iterations. Resolves once every started iteration has settled (each bounds its own time).
 */
export interface ArrivalOutcome {
  readonly started: number;
  readonly dropped: number;
}

export async function runArrivals(options: {
  readonly rate: number;
  readonly durationMs: number;
  readonly maxInFlight: number;
  readonly iteration: (i: number) => Promise<void>;
  readonly now?: () => number;
}): Promise<ArrivalOutcome> {
  const now = options.now ?? (() => performance.now());
  const total = Math.floor((options.rate * options.durationMs) / 1000);
  const intervalMs = 1000 / options.rate;
  const t0 = now();
  const running = new Set<Promise<void>>();
  let started = 0;
  let dropped = 0;
  for (let i = 0; i < total; i++) {
    const due = t0 + i * intervalMs;
    const wait = due - now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (running.size >= options.maxInFlight) {
      dropped++;
      continue;
    }
    started++;
    const p: Promise<void> = options.iteration(i).finally(() => running.delete(p));
    running.add(p);
  }
  await Promise.allSettled([...running]);
  return { started, dropped };
}
