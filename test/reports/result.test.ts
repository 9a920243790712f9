// buildRunResult and mergeRunResults: verdicts, counts, requirement coverage, shard merging.
import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../harness/errors.ts';
import type { CollectedCheck } from '../../harness/result.ts';
import { buildRunResult, checksOf, mergeRunResults } from '../../harness/result.ts';
import { requirements } from '../../spec/requirements.ts';
import { runInfo, sectionTitles, testCatalogue } from './catalogue.ts';
import { sampleChecks } from './checks.ts';
import { validateReport } from './schema.ts';

const options = { catalogue: testCatalogue, sectionTitles };
const withStatus = (status: CollectedCheck['status'], id: string): CollectedCheck => {
  const sample = sampleChecks().find((c) => c.status === status);
  if (!sample) throw new Error(status);
  return { ...sample, checkId: `wallet/${id}`, topic: 'wallet' };
};

describe('buildRunResult', () => {
  it('grades a topic fail > error > skipped > pass, and a warning does not fail it', () => {
    const verdict = (...statuses: CollectedCheck['status'][]) =>
      buildRunResult(runInfo({ topics: ['wallet'] }), statuses.map((s, i) => withStatus(s, `c${i}`)), options).topics[0]?.verdict;
    expect(verdict('pass', 'fail', 'error', 'skip')).toBe('fail');
    expect(verdict('pass', 'error', 'skip')).toBe('error');
    expect(verdict('skip', 'skip')).toBe('skipped');
    expect(verdict('pass', 'warn', 'skip')).toBe('pass');
    expect(verdict()).toBe('skipped');
  });

  it('grades the run fail > error > pass; a harness error alone makes it error', () => {
    const verdict = (statuses: CollectedCheck['status'][], harnessErrors: Array<{ code: string; message: string }> = []) =>
      buildRunResult(runInfo({ harnessErrors }), statuses.map((s, i) => withStatus(s, `c${i}`)), options).verdict;
    expect(verdict(['pass', 'error', 'fail'])).toBe('fail');
    expect(verdict(['pass', 'error', 'warn'])).toBe('error');
    expect(verdict(['pass', 'warn', 'skip'])).toBe('pass');
    expect(verdict(['pass'], [{ code: 'SUITE_LOAD_FAILED', message: 'x' }])).toBe('error');
  });

  it('counts every outcome on its own', () => {
    const result = buildRunResult(runInfo(), sampleChecks(), options);
    expect(result.summary).toEqual({ total: 5, passed: 1, failed: 1, warned: 1, skipped: 1, errored: 1 });
    expect(result.topics.find((t) => t.id === 'problem-details')?.summary.warned).toBe(1);
  });

  it('keeps the reason of each outcome', () => {
    const result = buildRunResult(runInfo(), sampleChecks(), options);
    const reasons = Object.fromEntries(result.topics.flatMap((t) => t.checks).map((c) => [c.status, c.reason]));
    expect(reasons).toEqual({
      pass: null,
      fail: 'Received: 500 internal_error / Expected: 200 with a balance (FIX-MUST-B)',
      warn: 'Received: none / Expected: an instance member (FIX-SHOULD)',
      skip: 'CONFORMANCE_LIMITED_CLIENT_ID is not set',
      error: 'TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:1',
    });
  });

  it('does not let a failure on one requirement decide the others the check cites', () => {
    const onlyFail = sampleChecks().filter((c) => c.status === 'fail');
    const result = buildRunResult(runInfo(), onlyFail, options);
    const status = (id: string) => result.requirements.find((r) => r.id === id)?.status;
    expect(status('FIX-MUST-B')).toBe('fail');
    expect(status('FIX-MUST-A')).toBe('untested');
  });

  it('lets an error outrank a pass, so a requirement is never passed half-checked', () => {
    const pass = { ...withStatus('pass', 'p'), requirements: ['FIX-ERRORED'] };
    const result = buildRunResult(runInfo(), [pass, withStatus('error', 'e')], options);
    expect(result.requirements.find((r) => r.id === 'FIX-ERRORED')?.status).toBe('error');
  });

  it('reports coverage per level and per section', () => {
    const result = buildRunResult(runInfo(), sampleChecks(), options);
    expect(result.tiers.must).toEqual({ pass: 1, fail: 1, warn: 0, error: 1, skipped: 1, untested: 0, total: 4 });
    expect(result.tiers.note.untested).toBe(1);
    expect(result.sections.map((s) => [s.section, s.title, s.counts.total])).toEqual([
      ['4.1', undefined, 1],
      ['4.5', 'Wallet balance retrieval', 2],
      ['5', undefined, 1],
      ['7', 'Error responses', 1],
      ['9', undefined, 1],
    ]);
  });

  it('lists every requirement of the real catalogue, untested when nothing cites it', () => {
    const result = buildRunResult(runInfo(), []);
    expect(requirements.length).toBeGreaterThan(0);
    expect(result.requirements.map((r) => r.id)).toEqual(requirements.map((r) => r.id));
    expect(new Set(result.requirements.map((r) => r.status))).toEqual(new Set(['untested']));
    expect(result.sections.reduce((n, s) => n + s.counts.total, 0)).toBe(requirements.length);
    expect(validateReport(JSON.parse(JSON.stringify(result)))).toEqual([]);
  });
});

describe('mergeRunResults', () => {
  const all = sampleChecks();
  const shard1 = buildRunResult(
    runInfo({ shard: '1/2', finishedAt: '2025-01-01T00:00:01.000Z' }),
    all.filter((c) => c.topic === 'wallet'),
    options,
  );
  const shard2 = buildRunResult(
    runInfo({ shard: '2/2', topics: ['problem-details'], startedAt: '2025-01-01T00:00:00.200Z', finishedAt: '2025-01-01T00:00:03.000Z' }),
    all.filter((c) => c.topic !== 'wallet'),
    options,
  );

  it('gives the result a single run would have given', () => {
    const merged = mergeRunResults([shard1, shard2], options);
    const single = buildRunResult(
      runInfo({ shard: '1/2,2/2', topics: ['wallet', 'idempotency', 'problem-details'], finishedAt: '2025-01-01T00:00:03.000Z' }),
      all,
      options,
    );
    expect(merged).toEqual(single);
    expect(merged.summary).toEqual({ total: 5, passed: 1, failed: 1, warned: 1, skipped: 1, errored: 1 });
    expect(merged.durationMs).toBe(3000);
  });

  it('round-trips checks through a result', () => {
    const rebuilt = buildRunResult(runInfo(), checksOf(buildRunResult(runInfo(), all, options)), options);
    expect(rebuilt).toEqual(buildRunResult(runInfo(), all, options));
  });

  it('refuses shards of different runs', () => {
    const other = { ...shard2, seed: 7 };
    expect(() => mergeRunResults([shard1, other], options)).toThrow(HarnessError);
    expect(() => mergeRunResults([], options)).toThrow(HarnessError);
  });
});
