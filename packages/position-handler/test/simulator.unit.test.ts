import { describe, expect, it } from 'vitest';
import { simulate } from '../src/simulator/simulation.js';

/**
 * The deterministic simulation (src/simulator/): each seed is one interleaving of the real PartitionFetcher and
 * PositionRunner on a simulated partitioned log and store, with plain, bulk and FX transfers (conversions with their
 * dependent transfer, the two-step commit, the FXP's two-step fx-abort and the payee's two-step abort, whose follow-ups
 * go back on the log) and the faults that
 * seed draws (failed and late acknowledgements and commits, lost replies, failed transactions, crashes, graceful
 * stops, rebalances), checked against the pure replay. A failure names its seed; `pnpm sim:position --seed S --trace` replays it, SEED=S here too.
 * Longer runs: `pnpm sim:position --seeds N`.
 */
const SEEDS = 2_000;
/**
 * Seeds of longer runs that found a defect, kept: 1009240 (a settle chain of a partition revoked and given back
 * to the same member retried its offset commit under the new ownership, so the messages handled again were
 * notified after their commit), and seeds 8 (a refused commit re-notified acknowledged messages) and 179 (a
 * partition starved of fetch slots). Those seeds were drawn before the workload had bulk and FX transfers and
 * graceful stops, so they now replay other interleavings (the starved partition has its own test in
 * partition-fetcher.unit.test.ts).
 */
const REGRESSION_SEEDS = [1_009_240];

describe('position handler simulation', () => {
  it(`${SEEDS} seeds: one result per transfer (the replay's), each reservation made and released once, positions = initial + Σ changes, no offset committed past an unacknowledged notification, nothing notified again once committed, a graceful stop drains and commits what was acknowledged`, async () => {
    const only = process.env.SEED === undefined ? undefined : Number(process.env.SEED);
    const seeds =
      only === undefined ? [...Array.from({ length: SEEDS }, (_, i) => i + 1), ...REGRESSION_SEEDS] : [only];
    let events = 0;
    for (const seed of seeds) {
      const result = await simulate(seed);
      events += result.steps;
      if (result.violation !== undefined) {
        expect.fail(
          `seed ${seed}: ${result.violation}\n  replay: pnpm sim:position --seed ${seed} --trace (or SEED=${seed})`,
        );
      }
    }
    expect(events).toBeGreaterThan(seeds.length);
  }, 60_000);
});
