// The reporter tested as vitest tests its own: fixture suites run through vitest's Node API with
// the CheckCollector attached, then the collected checks are built into a result and rendered.
import { beforeAll, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { CollectedCheck } from '../../harness/result.ts';
import { buildRunResult, type RunResult } from '../../harness/result.ts';
import { renderReports } from '../../harness/reports/index.ts';
import { runInfo, sectionTitles, testCatalogue } from './catalogue.ts';
import { runFixtures } from './run-fixtures.ts';
import { validateReport } from './schema.ts';

let checks: CollectedCheck[];
let harnessErrors: Array<{ code: string; message: string }>;
let result: RunResult;

const byId = (id: string) => {
  const check = checks.find((c) => c.checkId === id);
  if (!check) throw new Error(`no collected check ${id}`);
  return check;
};

beforeAll(async () => {
  const collector = await runFixtures(['wallet-outcomes.fixture.ts', 'idempotency-skipped.fixture.ts', 'broken.fixture.ts']);
  // Normalise what varies between runs: durations.
  checks = collector.checks().map((c) => ({ ...c, durationMs: 0 }));
  harnessErrors = collector.harnessErrors();
  result = buildRunResult(runInfo({ harnessErrors }), checks, { catalogue: testCatalogue, sectionTitles });
}, 120_000);

describe('CheckCollector', () => {
  it('keeps pass, fail, warn, skip and error apart', () => {
    expect(Object.fromEntries(checks.map((c) => [c.checkId, c.status]))).toEqual({
      'idempotency/profile': 'skip',
      'idempotency/collection': 'skip',
      'wallet/pass': 'pass',
      'wallet/fail': 'fail',
      'wallet/warn': 'warn',
      'wallet/skip': 'skip',
      'wallet/error': 'error',
      'wallet/timeout': 'error',
      'wallet/injected': 'pass',
    });
  });

  it('ignores tests declared without conformance meta', () => {
    expect(checks.some((c) => c.title.startsWith('not a check'))).toBe(false);
  });

  it('keeps the failure data and the evidence of a failed check', () => {
    const fail = byId('wallet/fail');
    expect(fail.failure?.requirement).toBe('FIX-MUST-B');
    expect(fail.evidence).toHaveLength(1);
    expect(fail.evidence[0]?.response?.status).toBe(500);
    expect(fail.errorMessage).toBeUndefined();
  });

  it('grades a broken should as warn, not fail', () => {
    expect(byId('wallet/warn').failure?.requirement).toBe('FIX-SHOULD');
    expect(byId('wallet/warn').status).toBe('warn');
  });

  it('keeps skip reasons, including a skip at collection', () => {
    expect(byId('wallet/skip').skipReason).toBe('CONFORMANCE_LIMITED_CLIENT_ID is not set');
    expect(byId('idempotency/profile').skipReason).toBe('profile safe sends GET only');
    expect(byId('idempotency/collection').skipReason).toBe('skipped without a stated reason');
    expect(byId('idempotency/collection').skipKind).toBe('precondition');
  });

  it('gives an error a one-line message without a stack', () => {
    expect(byId('wallet/error').errorMessage).toBe('TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:1');
    expect(byId('wallet/timeout').errorMessage).toMatch(/^Test timed out in 50ms/);
    for (const c of checks) expect(c.errorMessage ?? '').not.toMatch(/\n|\s+at\s/);
  });

  it('reports a suite that cannot load as a harness error, not as a check', () => {
    expect(harnessErrors).toEqual([
      { code: 'SUITE_LOAD_FAILED', message: 'test/reports/fixtures/broken.fixture.ts: suite failed to load on purpose' },
    ]);
  });
});

describe('the result of the fixture run', () => {
  it('counts each outcome separately and grades topics and run', () => {
    expect(result.summary).toEqual({ total: 9, passed: 2, failed: 1, warned: 1, skipped: 3, errored: 2 });
    expect(result.topics.map((t) => [t.id, t.verdict])).toEqual([
      ['wallet', 'fail'],
      ['idempotency', 'skipped'],
    ]);
    expect(result.verdict).toBe('fail');
  });

  it('lists every catalogue requirement with its status', () => {
    expect(Object.fromEntries(result.requirements.map((r) => [r.id, r.status]))).toEqual({
      'FIX-MUST-A': 'pass',
      'FIX-MUST-B': 'fail',
      'FIX-SHOULD': 'warn',
      'FIX-NEEDS-FIXTURE': 'skipped',
      'FIX-ERRORED': 'error',
      'FIX-UNTESTED': 'untested',
    });
    expect(result.assumptions).toEqual([{ requirement: 'FIX-MUST-A', text: testCatalogue[0]?.assumption }]);
  });

  it('renders reports that keep the outcomes apart', () => {
    const files = renderReports(result);
    expect(validateReport(JSON.parse(files['report.json']))).toEqual([]);

    expect(XMLValidator.validate(files['junit.xml'])).toBe(true);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(files['junit.xml']);
    const suites = xml.testsuites.testsuite as Array<{ name: string; testcase: unknown }>;
    const cases = suites.flatMap((s) => [s.testcase].flat() as Array<Record<string, unknown>>);
    const kind = (c: Record<string, unknown>) =>
      ['failure', 'error', 'skipped'].filter((k) => k in c).join('+') || 'none';
    expect(Object.fromEntries(cases.map((c) => [`${String(c['classname'])}: ${String(c['name'])}`, kind(c)]))).toMatchObject({
      'wallet: fail: a must is broken [FIX-MUST-A, FIX-MUST-B]': 'failure',
      'wallet: warn: a should is broken [FIX-SHOULD]': 'none',
      'wallet: error: the harness throws [FIX-ERRORED]': 'error',
      'wallet: error: the check times out [FIX-ERRORED]': 'error',
      'wallet: skip: a fixture is missing [FIX-NEEDS-FIXTURE]': 'skipped',
      'idempotency: skipped by profile [FIX-MUST-B]': 'skipped',
      'harness: SUITE_LOAD_FAILED #1': 'error',
    });

    const md = files['report.md'];
    expect(md).toContain('# Conformance report: FAIL');
    expect(md).toContain('9 checks: 2 passed, 1 failed, 1 warned, 3 skipped, 2 errors.');
    expect(md).toContain('### FAIL `wallet/fail`');
    expect(md).toContain('- Requirement: `FIX-MUST-B` (section 4.5, must)');

    const html = files['report.html'];
    expect(html.match(/data-status="error"/g)).toHaveLength(2);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
    expect(html.match(/<script/g)).toHaveLength(1);
  });
});

describe('CheckCollector on suites written with the real check wrapper', () => {
  let wrapped: CollectedCheck[];
  beforeAll(async () => {
    // Levels from the project's own catalogue, as in a real run.
    wrapped = (await runFixtures(['check-wrapper.fixture.ts'], {})).checks();
  }, 120_000);

  it('maps each outcome of check() to its status', () => {
    expect(Object.fromEntries(wrapped.map((c) => [c.checkId, c.status]))).toEqual({
      'wallet/wrapped-pass': 'pass',
      'wallet/wrapped-fail': 'fail',
      'wallet/wrapped-warn': 'warn',
      'wallet/wrapped-skip': 'skip',
      'wallet/wrapped-unobservable': 'skip',
      'wallet/wrapped-error': 'error',
    });
  });

  it('keeps the data the wrapper records', () => {
    const get = (id: string) => wrapped.find((c) => c.checkId === `wallet/${id}`);
    expect(get('wrapped-pass')?.notes).toEqual(['the target chose reading A']);
    expect(get('wrapped-pass')?.evidence).toHaveLength(1);
    expect(get('wrapped-pass')?.seed).toBe(42);
    expect(get('wrapped-fail')?.failure).toMatchObject({ requirement: 'WAL-RETRIEVE', expected: '200 with a balance', actual: '500 internal_error' });
    expect(get('wrapped-warn')?.failure?.requirement).toBe('PROB-INSTANCE');
    expect(get('wrapped-skip')?.skipReason).toBe('CONFORMANCE_BUSINESS_ID is not set');
    // A skip is a precondition unless the check says it cannot be observed on the target.
    expect(get('wrapped-skip')?.skipKind).toBe('precondition');
    expect(get('wrapped-unobservable')).toMatchObject({ skipKind: 'not-observable', skipReason: 'the wallet source cannot be switched off on this target' });
    expect(get('wrapped-pass')?.skipKind).toBeUndefined();
    expect(get('wrapped-error')?.errorMessage).toBe('RangeError: response larger than the size cap');
    expect(get('wrapped-pass')?.title).toBe('wrapped: passes with a note [WAL-RETRIEVE]');
  });
});
