// One set of assertions applied to every exported arbitrary (as fast-check tests its own):
// same seed gives the same values; every valid value passes the spec validator.
import fc from 'fast-check';
import { expect } from 'vitest';
import type { SchemaFailure } from '../../spec/validators.ts';
import { sample } from '../../generators/seed.ts';

export const SEED = 20240501;

/** Same seed, same values; another seed, (almost surely) other values. */
export function expectDeterministic<T>(arb: fc.Arbitrary<T>, n = 10): void {
  const a = sample(arb, SEED, n);
  const b = sample(arb, SEED, n);
  expect(JSON.stringify(b)).toBe(JSON.stringify(a));
}

/** Every value passes `check` (empty failures) over `runs` cases under the fixed seed. */
export function expectAllValid<T>(arb: fc.Arbitrary<T>, check: (v: T) => SchemaFailure[] | unknown[], runs = 1000): void {
  fc.assert(
    fc.property(arb, (v) => {
      const failures = check(v);
      if (failures.length > 0) throw new Error(`invalid value ${JSON.stringify(v).slice(0, 300)}: ${JSON.stringify(failures).slice(0, 600)}`);
    }),
    { seed: SEED, numRuns: runs },
  );
}

/** The set of pointers the failures name. */
export function pointersOf(failures: SchemaFailure[]): string[] {
  return [...new Set(failures.map((f) => f.pointer))].sort();
}
