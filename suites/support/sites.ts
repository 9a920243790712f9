// Assertion sites: where in a suite file a rule is asserted (`suites/<topic>.suite.ts:<line>`), so
// the mutation matrix can prove each one fails against some defect, and `npm run mutate` can
// weaken one at a time. A site is the first suite-file frame of the assertion's stack: the line
// of the `t.expect`, `t.fail` or `expectProblem(...)` call in the suite, helpers of support/ skipped.

// A compiled suite (dist/, the installed package) names its `.js` line; the matrix runs the sources.
const SUITE_FRAME = /suites[\\/]([a-z-]+\.suite\.[jt]s):(\d+):\d+/;

/** The site of the assertion being made now, or undefined outside a suite file. */
export function currentSite(): string | undefined {
  const stack = new Error().stack ?? '';
  const m = SUITE_FRAME.exec(stack);
  return m ? `${m[1]}:${m[2]}` : undefined;
}

/**
 * `npm run mutate` weakens one site so that it can never fail (MUTATE_WEAKEN_SITE=file:line): the
 * matrix must then turn red, or the assertion was never proven.
 */
export function isWeakened(site: string | undefined): boolean {
  return site !== undefined && process.env.MUTATE_WEAKEN_SITE === site;
}
