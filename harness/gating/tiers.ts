// Verdict tiers: each check is graded at the level of the catalogue entry it verifies. A broken
// `must` fails the run; a broken `should` (status warn) fails it only with --strict; a broken
// `note` and every advisory finding are informational. A baseline of known failures takes the
// failures it lists out of the verdict, and fails the run for each entry that no longer fails.
import type { Level } from '../../spec/requirements.ts';
import { requirementById } from '../../spec/requirements.ts';
import { TOPICS } from '../../core/model.ts';
import type { CheckResult, RunResult, Verdict } from '../result.ts';
import type { LoadedBaseline } from './baseline.ts';
import { baselineKey } from './baseline.ts';
import type { BaselineComparison, CertificationExclusion, CertificationSummary, GatingReport, Tier, TierOutcome } from '../gating-model.ts';
import { TIERS } from '../gating-model.ts';

export interface GradeOptions {
  strict?: boolean;
  baseline?: LoadedBaseline;
  /** Level of a requirement id; the catalogue's by default (tests bring their own). */
  levelOf?: (requirementId: string) => Level | undefined;
}

const TIER_OF_LEVEL: Record<Level, Tier> = { must: 'must', should: 'should', note: 'advisory' };
const RANK: Tier[] = ['must', 'should', 'advisory'];

function defaultLevelOf(id: string): Level | undefined {
  return requirementById(id)?.level;
}

/** The requirement a failing check broke: the one its failure names. */
export function failedRequirement(check: CheckResult): string {
  return check.failure?.requirement ?? check.requirements[0] ?? '?';
}

/**
 * The tier of a check: a failure is graded by the requirement it broke (an unknown id counts as
 * must, so a typo cannot soften a verdict); otherwise by the strongest requirement it cites.
 */
export function tierOf(check: CheckResult, levelOf: (id: string) => Level | undefined = defaultLevelOf): Tier {
  if (check.status === 'fail' || check.status === 'warn') {
    if (check.status === 'warn') return 'should';
    const level = levelOf(failedRequirement(check));
    return level ? TIER_OF_LEVEL[level] : 'must';
  }
  return tierOfRequirements(check.requirements, levelOf);
}

/** The tier of a check that did not fail: the highest of its requirements' (also what `plan` knows). */
export function tierOfRequirements(requirements: readonly string[], levelOf: (id: string) => Level | undefined = defaultLevelOf): Tier {
  const tiers = requirements.map((id) => {
    const level = levelOf(id);
    return level ? TIER_OF_LEVEL[level] : 'must';
  });
  return RANK.find((t) => tiers.includes(t)) ?? 'must';
}

function emptyOutcome(): TierOutcome {
  return { checks: 0, passed: 0, failed: 0, skipped: 0, errored: 0, failing: [] };
}

/** The result with `gating` filled in and its verdict decided by the tiers and the baseline. */
export function gradeRun(result: RunResult, options: GradeOptions = {}): RunResult {
  const levelOf = options.levelOf ?? defaultLevelOf;
  const strict = options.strict ?? false;
  const known = new Map((options.baseline?.entries ?? []).map((e) => [baselineKey(e.check, e.requirement), e]));
  const tiers = Object.fromEntries(TIERS.map((t) => [t, emptyOutcome()])) as Record<Tier, TierOutcome>;
  const blocking: string[] = [];
  const comparison: BaselineComparison | undefined = options.baseline
    ? { file: options.baseline.file, entries: options.baseline.entries.length, known: [], new: [], stale: [], unconfirmed: [] }
    : undefined;
  const failedKeys = new Set<string>();
  const checksById = new Map<string, CheckResult>();

  for (const topic of result.topics) {
    for (const check of topic.checks) {
      checksById.set(check.id, check);
      const tier = tierOf(check, levelOf);
      const outcome = tiers[tier];
      outcome.checks += 1;
      if (check.status === 'pass') outcome.passed += 1;
      else if (check.status === 'skip') outcome.skipped += 1;
      else if (check.status === 'error') outcome.errored += 1;
      else {
        outcome.failed += 1;
        const requirement = failedRequirement(check);
        const key = baselineKey(check.id, requirement);
        failedKeys.add(key);
        const entry = known.get(key);
        outcome.failing.push({ check: check.id, requirement, known: entry !== undefined });
        if (entry) {
          comparison?.known.push(entry);
          continue;
        }
        const decides = tier === 'must' || (tier === 'should' && strict);
        if (tier !== 'advisory') comparison?.new.push({ check: check.id, requirement, tier });
        if (decides) {
          blocking.push(`${check.id} broke ${tier} requirement ${requirement}${comparison ? ' (not in the baseline)' : ''}`);
        }
      }
    }
  }

  if (comparison && options.baseline) {
    const selected = new Set<string>(result.topics.map((t) => t.id));
    for (const entry of options.baseline.entries) {
      if (failedKeys.has(baselineKey(entry.check, entry.requirement))) continue;
      const topic = entry.check.split('/')[0] ?? '';
      const check = checksById.get(entry.check);
      if (!selected.has(topic)) {
        comparison.unconfirmed.push({ ...entry, why: `topic ${topic} was not part of this run` });
      } else if (check?.status === 'skip' || check?.status === 'error') {
        comparison.unconfirmed.push({ ...entry, why: `the check was ${check.status === 'skip' ? 'skipped' : 'not run to the end (error)'}` });
      } else {
        const why = !check
          ? 'no such check ran in its topic (renamed or removed)'
          : check.status === 'pass'
            ? 'the check passes now'
            : `the check now breaks ${failedRequirement(check)} instead`;
        comparison.stale.push({ ...entry, why });
        blocking.push(`baseline entry ${entry.check} ${entry.requirement} is stale (${why}); remove it from ${comparison.file}`);
      }
    }
  }

  const gating: GatingReport = {
    strict,
    tiers,
    advisoryFindings: result.advisories.length,
    blocking,
    ...(comparison ? { baseline: comparison } : {}),
    ...(result.gating?.certification ? { certification: result.gating.certification } : {}),
  };
  const erred = result.summary.errored > 0 || result.harnessErrors.length > 0;
  const verdict: Verdict = blocking.length > 0 ? 'fail' : erred ? 'error' : 'pass';
  return { ...result, verdict, gating };
}

/**
 * Certification: the run covered every topic, and every `must` check ran and passed or was skipped
 * as not observable on this target. A must check that failed (even one a baseline knows), erred or
 * was skipped for a precondition (something whoever runs it can supply) refuses it; one skipped as
 * not observable becomes an exclusion, listed in the certificate. The embedded reference can show
 * everything, so there a not-observable skip refuses too.
 */
export function certificationOf(
  result: RunResult,
  levelOf: (id: string) => Level | undefined = defaultLevelOf,
  requiredTopics: readonly string[] = TOPICS,
): CertificationSummary {
  const refusals: string[] = [];
  const exclusions: CertificationExclusion[] = [];
  const ran = new Set<string>(result.topics.map((t) => t.id));
  const missing = requiredTopics.filter((t) => !ran.has(t));
  if (missing.length > 0) {
    refusals.push(
      `partial run: topics ${missing.join(', ')} were not run; certification covers every topic (run without --topic or CONFORMANCE_TOPICS)`,
    );
  }
  for (const topic of result.topics) {
    for (const check of topic.checks) {
      if (tierOf(check, levelOf) !== 'must') continue;
      const reason = check.reason ?? 'no reason given';
      if (check.status === 'fail') refusals.push(`${check.id} failed (${failedRequirement(check)})`);
      else if (check.status === 'skip' && check.skipKind === 'not-observable' && !result.target.embedded) {
        exclusions.push({ check: check.id, requirements: [...check.requirements], reason });
      } else if (check.status === 'skip' && check.skipKind === 'not-observable') {
        refusals.push(`${check.id} was skipped as not observable, but the embedded reference shows everything: ${reason}`);
      } else if (check.status === 'skip') refusals.push(`${check.id} was skipped for a precondition (supply it and run again): ${reason}`);
      else if (check.status === 'error') refusals.push(`${check.id} could not run: ${check.reason ?? 'error'}`);
    }
  }
  for (const e of result.harnessErrors) refusals.push(`harness error ${e.code}: ${e.message}`);
  if (result.summary.total === 0) refusals.push('no check ran');
  const must = result.requirements.filter((r) => r.level === 'must' && r.checks.length > 0);
  const count = (s: string) => must.filter((r) => r.status === s).length;
  const mustRequirements = {
    total: must.length,
    pass: count('pass'),
    fail: count('fail'),
    skipped: count('skipped'),
    other: must.length - count('pass') - count('fail') - count('skipped'),
  };
  return { certified: refusals.length === 0, refusals, exclusions, mustRequirements };
}
