#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { simulate } from './simulation.js';

const usage = `pnpm sim:position [--seeds N] [--from S] | --seed S [--trace]
  Runs the position handler's deterministic simulation (src/simulator/): seeds S..S+N-1 (default: 1000 seeds
  from a random start), each one interleaving of the real fetcher and runner on a simulated log and store with
  faults, checked against the pure replay. --seed S replays one seed; --trace prints its last events.`;

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1000' },
    from: { type: 'string' },
    seed: { type: 'string' },
    trace: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  process.stdout.write(`${usage}\n`);
} else {
  const single = values.seed !== undefined;
  const first = Number(values.seed ?? values.from ?? Math.floor(Math.random() * 2 ** 31));
  const count = single ? 1 : Number(values.seeds);
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(count) || count < 1) {
    process.stderr.write(`${usage}\n`);
    process.exitCode = 2;
  } else {
    const started = performance.now();
    let steps = 0;
    let failed = 0;
    for (let seed = first; seed < first + count; seed++) {
      const result = await simulate(seed, {
        trace: values.trace,
        traceLines: Number(process.env.SIM_TRACE_LINES ?? 60),
      });
      steps += result.steps;
      if (values.trace) process.stdout.write(`${result.trace.join('\n')}\n`);
      if (result.violation !== undefined) {
        failed += 1;
        process.stdout.write(
          `seed ${seed} FAILED: ${result.violation}\n  replay: pnpm sim:position --seed ${seed} --trace\n`,
        );
        if (!single) break;
      } else if (single) {
        process.stdout.write(
          `seed ${seed} passed: ${result.messages} messages, ${result.followUps} follow-ups, ${result.members} members, ${result.crashes} crashes, ${result.stops} graceful stops, ${result.steps} events, ${result.simulatedMs} simulated ms\n`,
        );
      }
    }
    const seconds = (performance.now() - started) / 1000;
    if (!single) {
      process.stdout.write(
        `${failed === 0 ? 'passed' : 'stopped at the first failure'}: seeds from ${first}, ${steps} events, ${seconds.toFixed(1)} s\n`,
      );
    }
    if (failed > 0) process.exitCode = 1;
  }
}
