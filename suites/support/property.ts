// Runs a fast-check property inside a check, with the run's seed and case count, so a failure
// names the seed and counterexample path that replay it.
import * as fc from 'fast-check';
import type { CheckContext } from './check.ts';
import { CheckSkipped, ConformanceFailure } from './failure.ts';

export interface PropertyOptions<T = unknown> {
  /** Upper bound on cases for this property (e.g. when each case sends a large body). */
  maxRuns?: number;
  /**
   * Shrinking replays the property many times, each replay sending requests; off by default so
   * a failing run stays within the request budget. The seed and path still replay the case.
   */
  shrink?: boolean;
  /** Cases tried first, within the runs (a boundary every seed must meet). */
  examples?: T[];
}

function describeValue(value: unknown): string {
  try {
    const text = fc.stringify(value);
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  } catch {
    return String(value);
  }
}

/**
 * Checks `predicate` for every value drawn from `arbitrary`. The predicate fails by throwing,
 * normally through `t.expect`/`t.fail`; a ConformanceFailure is re-thrown with the seed, the
 * counterexample path and the value in its message and in `counterexample`.
 */
export async function forAll<T>(
  t: CheckContext,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  options: PropertyOptions<T> = {},
): Promise<{ runs: number }> {
  const { seed, runs } = t.config.settings;
  const numRuns = Math.max(1, Math.min(runs, options.maxRuns ?? runs));
  const details = await fc.check(fc.asyncProperty(arbitrary, predicate), {
    seed,
    numRuns,
    endOnFailure: !options.shrink,
    ...(options.examples ? { examples: options.examples.map((e): [T] => [e]) } : {}),
  });
  if (!details.failed) return { runs: details.numRuns };

  const cause = details.errorInstance;
  // A skip or a harness error is not a counterexample: let the wrapper treat it as such.
  if (cause instanceof CheckSkipped) throw cause;
  const replay = `seed ${details.seed}, path "${details.counterexamplePath}"`;
  const value = details.counterexample ? describeValue(details.counterexample[0]) : '(none)';
  if (cause instanceof ConformanceFailure) {
    const failure = new ConformanceFailure({
      requirement: cause.requirement,
      expected: cause.expected,
      actual: cause.actual,
      exchanges: cause.exchanges,
      // The site that failed inside the property is the one the matrix proves.
      ...(cause.site ? { site: cause.site } : {}),
      counterexample: `${replay}: ${value}`,
    });
    failure.message = `${cause.message} — counterexample after ${details.numRuns} run(s), replay with ${replay}: ${value}`;
    throw failure;
  }
  if (cause instanceof Error) throw cause;
  throw new Error(`property failed without an error (${replay}): ${value}`);
}

/** FNV-1a, so each label draws its own seeded value while the run seed still replays it. */
function labelHash(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * One value of `arbitrary` for a single-example step (a setup body, a fixture bulk), drawn from
 * the run seed and `label`: the same seed gives the same value, different labels differ.
 */
export function generate<T>(t: CheckContext, arbitrary: fc.Arbitrary<T>, label: string): T {
  const seed = (t.config.settings.seed ^ labelHash(label)) | 0;
  return fc.sample(arbitrary, { seed, numRuns: 1 })[0]!;
}
