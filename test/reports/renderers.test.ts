// The four renderers and writeReports on a hand-made result: content, escaping, self-containment,
// well-formedness, schema validity and the secret-leak guard.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { HarnessError } from '../../harness/errors.ts';
import type { CollectedCheck } from '../../harness/result.ts';
import { buildRunResult, mergeRunResults, type RunResult } from '../../harness/result.ts';
import { REPORT_FILES, findLeaks, renderReports, writeReports } from '../../harness/reports/index.ts';
import { escapeMarkdown } from '../../harness/reports/markdown.ts';
import { runInfo, sectionTitles, testCatalogue } from './catalogue.ts';
import { exchange, sampleChecks } from './checks.ts';
import { validateReport } from './schema.ts';

const options = { catalogue: testCatalogue, sectionTitles };

function resultOf(checks: CollectedCheck[] = sampleChecks(), info = runInfo()): RunResult {
  return buildRunResult(info, checks, options);
}

describe('report.json', () => {
  it('validates against spec/report.schema.json and holds the outside-interface fields', () => {
    const doc = JSON.parse(renderReports(resultOf())['report.json']) as Record<string, any>;
    expect(validateReport(doc)).toEqual([]);
    expect(doc).toMatchObject({
      tool: { name: 'conformance', version: '0.1.0' },
      contract: { version: '0.1.0-draft', sha256: 'a'.repeat(64) },
      target: { baseUrl: 'http://127.0.0.1:4010', embedded: true },
      profile: 'full',
      seed: 42,
      startedAt: '2025-01-01T00:00:00.000Z',
      finishedAt: '2025-01-01T00:00:01.500Z',
      verdict: 'fail',
      summary: { passed: 1, failed: 1, skipped: 1 },
    });
    const check = doc.topics[0].checks[1];
    expect(Object.keys(check)).toEqual(expect.arrayContaining(['id', 'title', 'requirements', 'status', 'reason', 'evidence']));
    expect(Object.keys(doc.requirements[0])).toEqual(expect.arrayContaining(['id', 'section', 'text', 'status']));
  });

  it('is rejected by the schema when an outcome is unknown or a field is missing', () => {
    const doc = JSON.parse(renderReports(resultOf())['report.json']) as Record<string, any>;
    doc.topics[0].checks[0].status = 'flaky';
    delete doc.contract.sha256;
    const paths = validateReport(doc).map((e) => e.instancePath);
    expect(paths).toContain('/topics/0/checks/0/status');
    expect(paths).toContain('/contract');
  });
});

describe('report.md', () => {
  const md = renderReports(resultOf())['report.md'];

  it('opens with the verdict, the counts and the run identity', () => {
    expect(md.split('\n').slice(0, 3)).toEqual([
      '# Conformance report: FAIL',
      '',
      '5 checks: 1 passed, 1 failed, 1 warned, 1 skipped, 1 errors.',
    ]);
    expect(md).toContain(`| Contract | 0.1.0-draft (sha256 ${'a'.repeat(64)}) |`);
    expect(md).toContain('| Seed | 42 |');
  });

  it('has a summary table per topic and each failure with requirement, section, evidence and curl', () => {
    expect(md).toContain('| `wallet` | FAIL | 4 | 1 | 1 | 0 | 1 | 1 |');
    expect(md).toContain('| `problem-details` | PASS | 1 | 0 | 0 | 1 | 0 | 0 |');
    expect(md).toContain('- Requirement: `FIX-MUST-B` (section 4.5, must)');
    expect(md).toContain('- Expected: 200 with a balance');
    expect(md).toContain('- Actual: 500 internal\\_error');
    expect(md).toContain('```http\nHTTP 500\ncontent-type: application/problem+json');
    expect(md).toContain("```sh\ncurl -sS -X POST 'http://127.0.0.1:4010/v1/businesses/");
  });

  it('keeps warnings, errors and skips in their own sections, with notes and assumptions', () => {
    const headings = md.split('\n').filter((l) => l.startsWith('## '));
    expect(headings).toEqual([
      '## Readings',
      '## Topics',
      '## Failures',
      '## Warnings (broken "should")',
      '## Errors (the check could not run)',
      '## Skipped',
      '## Other notes',
      '## Advisories (beyond the document, never failing)',
      '## Assumptions applied (where the document is silent)',
      '## Requirement coverage',
    ]);
    expect(md).toContain('- `wallet/skip` refuses a limited caller \\[FIX-NEEDS-FIXTURE\\]: CONFORMANCE\\_LIMITED\\_CLIENT\\_ID is not set (precondition)');
    expect(md).toContain('- `wallet/pass`: the target chose reading B');
  });

  it('shows each reading the target took once, a warning naming what breaks', () => {
    const section = md.slice(md.indexOf('## Readings'), md.indexOf('## Topics')).split('\n').filter((l) => l.startsWith('- '));
    expect(section).toEqual([
      '- 2.6 next\\_cursor on the last page: **a cursor still offered with has\\_more false**, warning: a client that pages while a cursor is offered asks again past the last page',
      '- 4.3 An empty cursor value: 400 validation\\_failed',
    ]);
  });

  it('cannot be broken out of by evidence or titles', () => {
    const checks = sampleChecks();
    checks[1] = {
      ...checks[1]!,
      title: 'a | pipe <img src=x onerror=alert(1)>',
      evidence: [exchange({ status: 500, body: '```\n# not a heading\n```' })],
    };
    const text = renderReports(resultOf(checks))['report.md'];
    expect(text).toContain('a \\| pipe &lt;img src=x onerror=alert(1)>');
    expect(escapeMarkdown('expected 200 -> got 404 & 1 &lt;')).toBe('expected 200 -> got 404 & 1 &amp;lt;');
    expect(text).toContain('````http\nHTTP 500');
    expect(text).not.toContain('<img');
  });

  it('matches the recorded rendering', async () => {
    await expect(md).toMatchFileSnapshot('./__snapshots__/report.md');
  });
});

describe('junit.xml', () => {
  const xmlText = renderReports(resultOf())['junit.xml'];
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xmlText);
  const suites = [xml.testsuites.testsuite].flat() as Array<Record<string, any>>;
  const cases = suites.flatMap((s) => [s['testcase'] ?? []].flat() as Array<Record<string, any>>);
  const caseOf = (name: string) => {
    const found = cases.find((c) => String(c['name']).startsWith(name));
    if (!found) throw new Error(name);
    return found;
  };

  it('is well-formed', () => {
    expect(XMLValidator.validate(xmlText)).toBe(true);
  });

  it('has one testsuite per topic and one testcase per check, classname the topic', () => {
    expect(suites.map((s) => s['name'])).toEqual(['wallet', 'idempotency', 'problem-details']);
    expect(cases).toHaveLength(5);
    expect(caseOf('carries an instance')['classname']).toBe('problem-details');
  });

  it('keeps failure, error and skipped apart, and a warning passes with its status', () => {
    const elements = (c: Record<string, any>) => ['failure', 'error', 'skipped'].filter((k) => k in c);
    expect(elements(caseOf('answers 200'))).toEqual(['failure']);
    expect(elements(caseOf('accepts a submission'))).toEqual(['error']);
    expect(elements(caseOf('refuses a limited'))).toEqual(['skipped']);
    expect(elements(caseOf('carries an instance'))).toEqual([]);
    expect(elements(caseOf('returns the balance'))).toEqual([]);
    expect(caseOf('carries an instance')['system-out']).toContain('WARN (should)');
    expect(xml.testsuites).toMatchObject({ tests: '5', failures: '1', errors: '1', skipped: '1' });
    expect(suites[0]).toMatchObject({ tests: '4', failures: '1', errors: '1', skipped: '1' });
  });

  it('carries the requirement ids and the run identity as properties', () => {
    const props = [caseOf('answers 200')['properties']['property']].flat() as Array<{ name: string; value: string }>;
    expect(props.filter((p) => p.name === 'requirement').map((p) => p.value)).toEqual(['FIX-MUST-A', 'FIX-MUST-B']);
    expect(props).toContainEqual({ name: 'status', value: 'fail' });
    const suiteProps = [suites[0]!['properties']['property']].flat() as Array<{ name: string; value: string }>;
    expect(suiteProps).toContainEqual({ name: 'contract-sha256', value: 'a'.repeat(64) });
    expect(suiteProps).toContainEqual({ name: 'seed', value: '42' });
    expect(suiteProps).toContainEqual({ name: 'profile', value: 'full' });
  });

  it('escapes markup and control characters and stays well-formed', () => {
    const checks = sampleChecks();
    checks[1] = { ...checks[1]!, title: 'a "quoted" <tag> & \'apos\' \u0001 ]]>', evidence: [exchange({ body: '</failure><x>' })] };
    const text = renderReports(resultOf(checks))['junit.xml'];
    expect(XMLValidator.validate(text)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', processEntities: true }).parse(text);
    const names = [parsed.testsuites.testsuite].flat().flatMap((s: any) => [s.testcase ?? []].flat().map((c: any) => c.name));
    expect(names).toContain('a "quoted" <tag> & \'apos\' \uFFFD ]]>');
  });

  it('matches the recorded rendering', async () => {
    await expect(xmlText).toMatchFileSnapshot('./__snapshots__/junit.xml');
  });
});

describe('report.html', () => {
  const html = renderReports(resultOf())['report.html'];

  it('is one self-contained file: no external asset, no network', () => {
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/<script[^>]*\bsrc\s*=/i);
    expect(html).not.toMatch(/\b(?:src|href|action|srcset)\s*=\s*["']?\s*(?:https?:)?\/\//i);
    expect(html).not.toMatch(/url\(|@import/i);
    expect(html).toContain("default-src 'none'");
  });

  it('allows its own script and style by hash in the Content-Security-Policy', () => {
    const digest = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    expect(script.length).toBeGreaterThan(0);
    expect(html).toContain(`script-src ${digest(script)}`);
    expect(html).toContain(`style-src ${digest(style)}`);
  });

  it('shows verdict, counts, run identity and is made for narrow screens', () => {
    expect(html).toContain('data-testid="verdict" data-verdict="fail"');
    for (const [id, n] of Object.entries({ total: 5, passed: 1, failed: 1, warned: 1, skipped: 1, errored: 1 })) {
      expect(html).toContain(`data-testid="count-${id}">${n}<`);
    }
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain('@media (max-width:600px)');
    expect(html).toContain(`<dd>0.1.0-draft (sha256 ${'a'.repeat(64)})</dd>`);
    expect(html).toContain('<dd>42</dd>');
  });

  it('marks each check row with its status and offers one filter per status', () => {
    const statuses = [...html.matchAll(/class="check" data-status="(\w+)"/g)].map((m) => m[1]);
    expect(statuses.sort()).toEqual(['error', 'fail', 'pass', 'skip', 'warn']);
    const filters = [...html.matchAll(/data-filter="(\w+)"/g)].map((m) => m[1]);
    expect(filters).toEqual(['all', 'fail', 'warn', 'skip', 'pass', 'error']);
  });

  it('shows evidence in expandable blocks with request, response and curl line', () => {
    const block = /<details class="exchange">[\s\S]*?<\/details>/.exec(html)?.[0] ?? '';
    expect(block).toContain('<h3>Request</h3><pre>POST http://127.0.0.1:4010/v1/businesses/');
    expect(block).toContain('<h3>Response</h3><pre>HTTP 500');
    expect(block).toContain('<h3>Replay</h3><pre>curl -sS -X POST');
    expect(block).toContain('&#39;authorization: Bearer &lt;redacted&gt;&#39;');
  });

  it('shows requirement coverage by section of the document', () => {
    const sections = [...html.matchAll(/data-section="([^"]+)"/g)].map((m) => m[1]);
    expect(sections).toEqual(['4.1', '4.5', '5', '7', '9']);
    expect(html).toContain('Section 4.5 Wallet balance retrieval: 1 of 2 passed');
    expect(html).toContain('<tr data-requirement-status="untested"><td><code>FIX-UNTESTED</code>');
    expect(html).toContain('Assumption: A missing field list is read as every field required.');
  });

  it('lists the readings chosen, the assumptions applied and the advisories', () => {
    expect(html).toContain('<h2>Other notes</h2><ul><li><code>wallet/pass</code> the target chose reading B</li></ul>');
    expect(html).toContain('<section id="readings"><h2>Readings</h2>');
    expect(html).toContain('<li title="wallet/pass">4.3 An empty cursor value: 400 validation_failed</li>');
    expect(html).toContain('<h2>Assumptions applied (where the document is silent)</h2><ul><li><code>FIX-MUST-A</code>');
    expect(html).toContain('<li><code>problem-details/warn</code> the detail repeats the title</li>');
  });

  it('escapes a script injected in a title and everywhere else', () => {
    const checks = sampleChecks();
    checks[0] = { ...checks[0]!, title: '<script>alert("x")</script>', notes: ['<b onclick=x>'] };
    const page = renderReports(resultOf(checks))['report.html'];
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page).toContain('&lt;b onclick=x&gt;');
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).not.toContain('<b onclick');
  });

  it('filters check rows by status with its own script', () => {
    const dom = fakeDom(html);
    runInNewContext(/<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '', { document: dom.document });
    expect(dom.visibleRows()).toHaveLength(5);
    dom.click('fail');
    expect(dom.visibleRows()).toEqual(['fail']);
    expect(dom.visibleTopics()).toEqual(['wallet']);
    expect(dom.pressed()).toEqual(['fail']);
    dom.click('warn');
    expect(dom.visibleRows()).toEqual(['warn']);
    expect(dom.visibleTopics()).toEqual(['problem-details']);
    dom.click('all');
    expect(dom.visibleRows()).toHaveLength(5);
    expect(dom.visibleTopics()).toEqual(['wallet', 'idempotency', 'problem-details']);
  });
});

/** Just enough of a DOM for the filter script: buttons, check rows and topic sections. */
function fakeDom(html: string) {
  class El {
    hidden = false;
    handlers: Array<() => void> = [];
    constructor(readonly attrs: Record<string, string>, readonly rows: El[] = []) {}
    getAttribute(name: string) {
      return this.attrs[name] ?? null;
    }
    setAttribute(name: string, value: string) {
      this.attrs[name] = value;
    }
    addEventListener(_type: string, handler: () => void) {
      this.handlers.push(handler);
    }
    querySelector(selector: string) {
      const status = /data-status="(\w+)"/.exec(selector)?.[1];
      return this.rows.find((r) => r.attrs['data-status'] === status) ?? null;
    }
  }
  const buttons = [...html.matchAll(/data-filter="(\w+)"/g)].map((m) => new El({ 'data-filter': m[1]! }));
  const rows: El[] = [];
  const topics = html
    .split('<section data-topic="')
    .slice(1)
    .map((chunk) => {
      const own = [...chunk.matchAll(/class="check" data-status="(\w+)"/g)].map((m) => new El({ 'data-status': m[1]! }));
      rows.push(...own);
      return new El({ 'data-topic': chunk.slice(0, chunk.indexOf('"')) }, own);
    });
  const document = {
    querySelectorAll(selector: string) {
      if (selector === 'button[data-filter]') return buttons;
      if (selector === '.check[data-status]') return rows;
      if (selector === 'section[data-topic]') return topics;
      throw new Error(`unexpected selector ${selector}`);
    },
  };
  return {
    document,
    click: (filter: string) => buttons.find((b) => b.attrs['data-filter'] === filter)?.handlers.forEach((h) => h()),
    visibleRows: () => rows.filter((r) => !r.hidden).map((r) => r.attrs['data-status']),
    visibleTopics: () => topics.filter((t) => !t.hidden).map((t) => t.attrs['data-topic']),
    pressed: () => buttons.filter((b) => b.attrs['aria-pressed'] === 'true').map((b) => b.attrs['data-filter']),
  };
}

describe('writeReports', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conformance-reports-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the four files, replacing previous ones', async () => {
    await writeFile(join(dir, 'report.json'), 'old');
    const paths = await writeReports(dir, resultOf(), ['canary-secret-not-present']);
    expect(paths).toEqual(REPORT_FILES.map((f) => join(dir, f)));
    expect((await readdir(dir)).sort()).toEqual([...REPORT_FILES].sort());
    expect(JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')).verdict).toBe('fail');
  });

  it('blocks a canary secret found in evidence and writes nothing, naming the files but not the secret', async () => {
    const canary = 'canary-Sup3r-s3cret';
    const checks = sampleChecks();
    checks[1] = { ...checks[1]!, evidence: [exchange({ body: `{"leaked":"${canary}"}` })] };
    const error = await writeReports(dir, resultOf(checks), [canary]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HarnessError);
    expect((error as HarnessError).code).toBe('SECRET_LEAK_BLOCKED');
    expect((error as HarnessError).message).toContain('report.json');
    expect((error as HarnessError).message).toContain('report.html');
    expect((error as HarnessError).message).not.toContain(canary);
    expect(await readdir(dir)).toEqual([]);
  });

  it('finds a secret in the escaped forms a renderer turns it into', () => {
    const secret = 'p&ss<w0rd>"x';
    const checks = sampleChecks();
    checks[0] = { ...checks[0]!, notes: [`token ${secret}`] };
    const files = renderReports(resultOf(checks));
    expect(files['report.html']).not.toContain(secret);
    expect(findLeaks(files, [secret]).sort()).toEqual([...REPORT_FILES].sort());
    expect(findLeaks(renderReports(resultOf()), [secret])).toEqual([]);
  });
});

describe('the authorization matrix section', () => {
  const cells = [
    { operation: 'getSmsBulkMessage', caller: 'primary', object: 'own', expected: '2xx', verdict: 'pass' as const, answer: '200', request: 'GET /v1/x' },
    {
      operation: 'getSmsBulkMessage',
      caller: 'primary',
      object: 'foreign',
      expected: '404 resource_not_found or 403, never 2xx',
      verdict: 'fail' as const,
      answer: '200',
      requirement: 'CONC-FOREIGN-OBJECT',
      reason: '200 instead of a refusal',
      request: 'GET /v1/y',
      curl: "curl -X GET 'http://127.0.0.1:4010/v1/y'",
    },
    { operation: 'deactivateWebhookEndpoint', caller: 'primary', object: 'own', expected: '2xx', verdict: 'skip' as const, reason: 'not sent' },
  ];
  const result = () => {
    const [first, ...rest] = sampleChecks();
    return resultOf([{ ...first!, matrix: cells }, ...rest]);
  };

  it('report.json carries every cell, valid against the schema, and a merge keeps them', () => {
    const doc = JSON.parse(renderReports(result())['report.json']) as Record<string, any>;
    expect(validateReport(doc)).toEqual([]);
    expect(doc.authorizationMatrix.operations).toEqual(['getSmsBulkMessage', 'deactivateWebhookEndpoint']);
    expect(doc.authorizationMatrix.columns).toEqual([{ caller: 'primary', object: 'own' }, { caller: 'primary', object: 'foreign' }]);
    expect(doc.authorizationMatrix.cells).toHaveLength(3);
    expect(mergeRunResults([result()], options).authorizationMatrix).toEqual(result().authorizationMatrix);
  });

  it('report.md and report.html show it under its title, a failed cell with its curl line', () => {
    const files = renderReports(result());
    for (const name of ['report.md', 'report.html'] as const) {
      expect(files[name], name).toContain('Authorization matrix');
      expect(files[name], name).toContain('200, FAIL');
      expect(files[name], name).toContain('curl -X GET');
    }
    expect(files['report.html']).toMatch(/<a href="#matrix-cell-2">200, FAIL<\/a>/);
    expect(renderReports(resultOf())['report.md']).not.toContain('Authorization matrix');
  });
});
