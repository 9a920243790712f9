// Verdict tiers and baselines on hand-made results (no run): which failures decide the verdict.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../harness/errors.ts';
import type { CatalogueEntry, CollectedCheck, RunInfo, RunResult } from '../../harness/result.ts';
import { buildRunResult, checksOf } from '../../harness/result.ts';
import { baselineFromReport, loadBaseline } from '../../harness/gating/baseline.ts';
import type { LoadedBaseline } from '../../harness/gating/baseline.ts';
import { certificationOf, gradeRun } from '../../harness/gating/tiers.ts';

const catalogue: CatalogueEntry[] = [
  { id: 'T-MUST', section: '4.5', level: 'must', text: 'm', testability: 'black-box', topic: 'wallet' },
  { id: 'T-MUST-2', section: '4.5', level: 'must', text: 'm2', testability: 'black-box', topic: 'wallet' },
  { id: 'T-SHOULD', section: '7', level: 'should', text: 's', testability: 'black-box', topic: 'wallet' },
  { id: 'T-NOTE', section: '9', level: 'note', text: 'n', testability: 'black-box', topic: 'wallet' },
];
const levelOf = (id: string) => catalogue.find((r) => r.id === id)?.level;

const info: RunInfo = {
  tool: { name: 'conformance', version: '0.1.0' },
  contract: { version: '0.1.0-draft', sha256: 'a'.repeat(64) },
  target: { baseUrl: 'http://127.0.0.1:1', embedded: true },
  profile: 'full',
  seed: 1,
  runs: 5,
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:01.000Z',
  topics: ['wallet'],
};

function check(id: string, status: CollectedCheck['status'], requirements: string[], failed?: string): CollectedCheck {
  const c: CollectedCheck = { topic: 'wallet', checkId: `wallet/${id}`, title: id, requirements, notes: [], advisories: [], evidence: [], status, durationMs: 1 };
  if (failed) c.failure = { requirement: failed, section: '4.5', expected: 'e', actual: 'a', message: 'm' };
  if (status === 'skip') c.skipReason = 'no fixture';
  return c;
}

const result = (checks: CollectedCheck[]): RunResult => buildRunResult(info, checks, { catalogue });
const baseline = (entries: LoadedBaseline['entries']): LoadedBaseline => ({ file: 'baseline.json', entries });

describe('verdict tiers', () => {
  it('a must failure fails the run; a should failure (warn) only with --strict; a note failure never', () => {
    const mustFails = gradeRun(result([check('a', 'pass', ['T-MUST']), check('b', 'fail', ['T-MUST-2'], 'T-MUST-2')]), { levelOf });
    expect(mustFails.verdict).toBe('fail');
    expect(mustFails.gating?.tiers.must).toMatchObject({ checks: 2, passed: 1, failed: 1 });

    const shouldWarns = result([check('a', 'pass', ['T-MUST']), check('c', 'warn', ['T-SHOULD'], 'T-SHOULD')]);
    expect(gradeRun(shouldWarns, { levelOf }).verdict).toBe('pass');
    const strict = gradeRun(shouldWarns, { levelOf, strict: true });
    expect(strict.verdict).toBe('fail');
    expect(strict.gating?.blocking.join()).toContain('wallet/c broke should requirement T-SHOULD');

    // The collector marks a broken note as fail; its tier is advisory and it never fails the run.
    const noteFails = gradeRun(result([check('a', 'pass', ['T-MUST']), check('d', 'fail', ['T-NOTE'], 'T-NOTE')]), { levelOf });
    expect(noteFails.verdict).toBe('pass');
    expect(noteFails.gating?.tiers.advisory).toMatchObject({ checks: 1, failed: 1 });
  });

  it('a passing check is graded by the strongest requirement it cites; an unknown id counts as must', () => {
    const graded = gradeRun(
      result([check('a', 'pass', ['T-NOTE', 'T-SHOULD']), check('b', 'pass', ['T-NOTE']), check('u', 'fail', ['T-MUST'], 'NOT-IN-CATALOGUE')]),
      { levelOf },
    );
    expect(graded.gating?.tiers.should.checks).toBe(1);
    expect(graded.gating?.tiers.advisory.checks).toBe(1);
    expect(graded.gating?.tiers.must.failing).toEqual([{ check: 'wallet/u', requirement: 'NOT-IN-CATALOGUE', known: false }]);
    expect(graded.verdict).toBe('fail');
  });

  it('errors keep the verdict at error when nothing failed', () => {
    expect(gradeRun(result([check('a', 'pass', ['T-MUST']), check('e', 'error', ['T-MUST'])]), { levelOf }).verdict).toBe('error');
  });
});

describe('baselines', () => {
  const failing = result([check('a', 'pass', ['T-MUST']), check('b', 'fail', ['T-MUST-2'], 'T-MUST-2')]);

  it('a known failure does not fail the run; a new one does', () => {
    const known = gradeRun(failing, { levelOf, baseline: baseline([{ check: 'wallet/b', requirement: 'T-MUST-2', reason: 'ticket 12' }]) });
    expect(known.verdict).toBe('pass');
    expect(known.gating?.baseline).toMatchObject({ known: [{ check: 'wallet/b' }], new: [], stale: [] });
    // Same check, another requirement: not the failure the baseline accepted.
    const other = gradeRun(failing, { levelOf, baseline: baseline([{ check: 'wallet/b', requirement: 'T-MUST', reason: 'ticket 12' }]) });
    expect(other.verdict).toBe('fail');
    expect(other.gating?.baseline?.new).toEqual([{ check: 'wallet/b', requirement: 'T-MUST-2', tier: 'must' }]);
    expect(other.gating?.baseline?.stale.map((s) => s.why)).toEqual(['the check now breaks T-MUST-2 instead']);
  });

  it('an entry that no longer fails is stale and fails the run; one the run could not see is only listed', () => {
    const stale = gradeRun(failing, {
      levelOf,
      baseline: baseline([
        { check: 'wallet/b', requirement: 'T-MUST-2', reason: 'ticket 12' },
        { check: 'wallet/a', requirement: 'T-MUST', reason: 'fixed since' },
        { check: 'wallet/gone', requirement: 'T-MUST', reason: 'renamed' },
        { check: 'cursors/x', requirement: 'CUR-BOUND', reason: 'other topic' },
      ]),
    });
    expect(stale.verdict).toBe('fail');
    expect(stale.gating?.baseline?.stale.map((s) => [s.check, s.why])).toEqual([
      ['wallet/a', 'the check passes now'],
      ['wallet/gone', 'no such check ran in its topic (renamed or removed)'],
    ]);
    expect(stale.gating?.baseline?.unconfirmed.map((s) => s.check)).toEqual(['cursors/x']);
  });

  it('loading refuses an entry without a reason, or with the placeholder, before anything runs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gating-baseline-'));
    const written = baselineFromReport(failing);
    expect(written.knownFailures).toEqual([{ check: 'wallet/b', requirement: 'T-MUST-2', reason: 'TODO: reason' }]);
    const file = join(dir, 'b.json');
    writeFileSync(file, JSON.stringify(written));
    expect(() => loadBaseline(file)).toThrow(/has no reason/);
    writeFileSync(file, JSON.stringify({ version: 1, knownFailures: [{ check: 'wallet/b', requirement: 'T-MUST-2' }] }));
    try {
      loadBaseline(file);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(HarnessError);
      expect((error as HarnessError).code).toBe('CONF_INVALID_VALUE');
    }
    writeFileSync(file, JSON.stringify({ version: 1, knownFailures: [{ check: 'wallet/b', requirement: 'T-MUST-2', reason: 'vendor ticket 12' }] }));
    expect(loadBaseline(file).entries).toHaveLength(1);
  });
});

describe('certification', () => {
  // These hand-made runs cover the wallet topic only: that is the whole profile here.
  const wallet = ['wallet'];
  const notObservable = (c: CollectedCheck): CollectedCheck => ({ ...c, skipKind: 'not-observable', skipReason: 'needs the control origin' });
  const onHost = (checks: CollectedCheck[]): RunResult =>
    buildRunResult({ ...info, target: { baseUrl: 'https://sandbox.example', embedded: false } }, checks, { catalogue });

  it('refuses when a must check failed (even a known one), was skipped for a precondition or erred; certifies when all passed', () => {
    const passed = certificationOf(result([check('a', 'pass', ['T-MUST']), check('c', 'warn', ['T-SHOULD'], 'T-SHOULD')]), levelOf, wallet);
    expect(passed).toMatchObject({ certified: true, refusals: [], exclusions: [] });
    const refused = certificationOf(
      result([check('a', 'fail', ['T-MUST'], 'T-MUST'), check('s', 'skip', ['T-MUST-2']), check('n', 'skip', ['T-NOTE'])]),
      levelOf,
      wallet,
    );
    expect(refused.certified).toBe(false);
    expect(refused.refusals).toEqual(['wallet/a failed (T-MUST)', 'wallet/s was skipped for a precondition (supply it and run again): no fixture']);
    expect(certificationOf(result([]), levelOf, wallet).refusals).toContain('no check ran');
  });

  it('a skip is a precondition unless the check said otherwise, in the result and back through checksOf', () => {
    const built = onHost([check('s', 'skip', ['T-MUST']), notObservable(check('x', 'skip', ['T-MUST-2'])), check('a', 'pass', ['T-MUST'])]);
    const kinds = built.topics[0]!.checks.map((c) => [c.id, c.skipKind]);
    expect(kinds).toEqual([
      ['wallet/s', 'precondition'],
      ['wallet/x', 'not-observable'],
      ['wallet/a', undefined],
    ]);
    // Merging shard results rebuilds from checksOf: the kind survives.
    expect(checksOf(built).map((c) => c.skipKind)).toEqual(['precondition', 'not-observable', undefined]);
  });

  it('a must check not observable on a real host is an exclusion, listed with its requirements and reason, not a refusal', () => {
    const certified = certificationOf(onHost([check('a', 'pass', ['T-MUST']), notObservable(check('x', 'skip', ['T-MUST-2']))]), levelOf, wallet);
    expect(certified).toMatchObject({
      certified: true,
      refusals: [],
      exclusions: [{ check: 'wallet/x', requirements: ['T-MUST-2'], reason: 'needs the control origin' }],
    });
    // A precondition skip beside it still refuses, naming the check.
    const refused = certificationOf(
      onHost([check('s', 'skip', ['T-MUST']), notObservable(check('x', 'skip', ['T-MUST-2']))]),
      levelOf,
      wallet,
    );
    expect(refused.certified).toBe(false);
    expect(refused.refusals).toEqual(['wallet/s was skipped for a precondition (supply it and run again): no fixture']);
    expect(refused.exclusions.map((e) => e.check)).toEqual(['wallet/x']);
  });

  it('on the embedded reference nothing is out of reach: a not-observable skip refuses there', () => {
    const refused = certificationOf(result([check('a', 'pass', ['T-MUST']), notObservable(check('x', 'skip', ['T-MUST-2']))]), levelOf, wallet);
    expect(refused.certified).toBe(false);
    expect(refused.exclusions).toEqual([]);
    expect(refused.refusals[0]).toContain('wallet/x was skipped as not observable, but the embedded reference shows everything');
  });

  it('a partial run (not every topic of the profile) never certifies, and says so first', () => {
    const partial = certificationOf(result([check('a', 'pass', ['T-MUST'])]), levelOf);
    expect(partial.certified).toBe(false);
    expect(partial.refusals).toHaveLength(1);
    expect(partial.refusals[0]).toMatch(/^partial run: topics auth-ordering, idempotency, .* were not run; certification covers every topic/);
    expect(partial.refusals[0]).not.toContain(' wallet');
  });
});
