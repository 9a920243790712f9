// Determinism: every value the generators produce is a function of the run's seed
// (CONFORMANCE_SEED), so a failure replays from the seed and path the report records.
import fc from 'fast-check';

/** `n` values of `arb` for `seed`: the same seed always gives the same values. */
export function sample<T>(arb: fc.Arbitrary<T>, seed: number, n: number): T[] {
  return fc.sample(arb, { seed, numRuns: n });
}

/** Parameters for fc.assert / fc.check under the run's seed and case count. */
export function runParams<T = unknown>(seed: number, numRuns: number, extra: fc.Parameters<T> = {}): fc.Parameters<T> {
  return { ...extra, seed, numRuns };
}

/** One value per named arbitrary (the `name` keys kept), each from its own derived seed. */
export function sampleEach<T>(arbs: Record<string, fc.Arbitrary<T>>, seed: number): Array<{ name: string; value: T }> {
  return Object.entries(arbs).map(([name, arb], i) => ({ name, value: sample(arb, (seed + i * 7919) | 0, 1)[0]! }));
}

/** mulberry32: a tiny deterministic PRNG, so 1,000 recipients cost one seed, not 1,000 draws. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
