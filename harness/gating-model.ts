// What gating adds to a run's result (RunResult.gating): the verdict tiers, the comparison with a
// baseline of known failures, and the certification summary. Data only; harness/gating/tiers.ts
// computes it and harness/gating/render.ts prints it into report.md and report.html.

/** must: a failure fails the run; should: fails it only with --strict; advisory: never. */
export type Tier = 'must' | 'should' | 'advisory';
export const TIERS: readonly Tier[] = ['must', 'should', 'advisory'];

/** One failing check in a tier, and whether a baseline knows it. */
export interface TierFinding {
  check: string;
  requirement: string;
  /** The baseline lists this failure: it does not decide the verdict. */
  known: boolean;
}

export interface TierOutcome {
  checks: number;
  passed: number;
  /** `fail` in the must and advisory tiers, `warn` in the should tier. */
  failed: number;
  skipped: number;
  errored: number;
  failing: TierFinding[];
}

/** One entry of a baseline file: a failure known and accepted for now, with the reason. */
export interface BaselineEntry {
  check: string;
  requirement: string;
  reason: string;
}

export interface BaselineComparison {
  file: string;
  entries: number;
  /** Failures the baseline lists: they do not fail the run. */
  known: BaselineEntry[];
  /** Failures the baseline does not list: each fails the run (should ones only with --strict). */
  new: Array<{ check: string; requirement: string; tier: Tier }>;
  /** Entries whose check ran and no longer fails that way: each fails the run until removed. */
  stale: Array<BaselineEntry & { why: string }>;
  /** Entries that this run could not confirm either way (topic not selected, check skipped or errored). */
  unconfirmed: Array<BaselineEntry & { why: string }>;
}

/**
 * A `must` check skipped as not observable on this target (skipKind `not-observable`): it does not
 * refuse certification, and the certificate lists it, so the verdict says what it does not cover.
 */
export interface CertificationExclusion {
  check: string;
  requirements: string[];
  reason: string;
}

export interface CertificationSummary {
  certified: boolean;
  /**
   * Why certification was refused (a partial run, must checks failed, erred or skipped for a
   * precondition, harness errors); empty when certified.
   */
  refusals: string[];
  /** Must checks not observable on this target: listed, not refusing. */
  exclusions: CertificationExclusion[];
  /** Requirement verdicts by level: must ones all pass when certified. */
  mustRequirements: { total: number; pass: number; fail: number; skipped: number; other: number };
}

export interface GatingReport {
  strict: boolean;
  tiers: Record<Tier, TierOutcome>;
  /** Findings beyond the document (t.advise): informational, counted in the advisory tier. */
  advisoryFindings: number;
  /** What made the verdict fail, one line each; empty when nothing did. */
  blocking: string[];
  baseline?: BaselineComparison;
  certification?: CertificationSummary;
}
