import { randomInt } from 'node:crypto';

/** A test's source of randomness that can be replayed: its seed is printed, and `SEED=<n>` gives the same draws. */
export interface SeededRandom {
  readonly seed: number;
  /** A number in [0, 1), as Math.random. */
  next(): number;
  /** An integer in [min, max), as crypto.randomInt. */
  int(min: number, max: number): number;
}

/**
 * The randomness of a randomised test: seeded from `SEED` when set (a replay), else from a fresh random seed;
 * either way the seed is printed with the test's `label` and the command that replays it. A test that draws from
 * it twice in a row with the same seed gets the same values (mulberry32: small, fast, not for secrets).
 * Draws that decide when something happens (a kill after N ms) replay the same delays; the interleaving they
 * meet still depends on the machine's timing.
 */
export function seededRandom(label: string, env: NodeJS.ProcessEnv = process.env): SeededRandom {
  const given = env.SEED;
  if (given !== undefined && !/^\d{1,10}$/.test(given)) throw new Error(`SEED must be a whole number, got "${given}"`);
  const seed = given === undefined ? randomInt(0, 2 ** 31) : Number(given) >>> 0;
  console.log(
    `[seed] ${label}: SEED=${seed} (replay: SEED=${seed} pnpm vitest run <its test file> -t '<its test name>')`,
  );
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { seed, next, int: (min, max) => min + Math.floor(next() * (max - min)) };
}
