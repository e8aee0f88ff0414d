/**
 * Property-based tests (fast-check) of the input surfaces, in `*.fuzz.test.ts` files: seeded and
 * reproducible. `npm test` runs each property at a small budget; `npm run fuzz` runs them long (FUZZ_RUNS,
 * default there 20,000 per property). A failure prints its seed and path: `FUZZ_SEED=<seed>` replays it.
 */
import fc from 'fast-check';
import type { Parameters } from 'fast-check';

/** Runs per property: FUZZ_RUNS, else the budget a property chose for `npm test`. */
export function fuzzRuns(inNpmTest: number): number {
  const runs = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(runs) && runs > 0 ? runs : inNpmTest;
}

/** The seed of this run: FUZZ_SEED to replay one, else a new one, printed so that any run can be replayed. */
export const FUZZ_SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : Date.now() ^ (Math.random() * 0x7fffffff);
// mocha's parallel workers inherit the environment of the run that loads this first: one seed for the whole run.
process.env.FUZZ_SEED = String(FUZZ_SEED);

const counted = new Map<string, number>();

/** fast-check parameters for one property: the run's seed, the budget, and the count kept for the summary. */
export function fuzzParameters<T>(surface: string, inNpmTest: number, extra: Parameters<T> = {}): Parameters<T> {
  const numRuns = fuzzRuns(inNpmTest);
  counted.set(surface, (counted.get(surface) ?? 0) + numRuns);
  return { seed: FUZZ_SEED, numRuns, endOnFailure: true, ...extra };
}

/** Cases run per surface since the last call (the root hook prints them after each file), counted afresh after. */
export function takeFuzzCounts(): ReadonlyMap<string, number> {
  const taken = new Map(counted);
  counted.clear();
  return taken;
}

export { fc };
