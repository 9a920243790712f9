// report.html as a person sees it: a real run against the embedded reference with one defect
// switched on (passes, one failure, skips from the safe profile) opened in headless Chromium.
// Checks what someone reading a CI artifact relies on: the counts, the filters, the evidence of a
// failure, coverage by section, no network use, no console error, and usable on a phone.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CheckResult, RunResult } from '../../harness/result.ts';
import { ROOT, cli } from '../harness/fixtures/spawn.ts';

/** Debian's chromium package; .ci/run installs it with apt-get when it is missing. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const NO_BROWSER = `no Chromium at ${CHROMIUM} (Debian package "chromium"; .ci/run installs it with apt-get where apt is available)`;

/** One failing rule, the safe profile's skips (webhooks deactivates) and plain passes (messages). */
const RUN_ARGS = ['run', '--topic', 'wallet,webhooks,messages', '--profile', 'safe', '--defects', 'available-differs-from-current', '--seed', '3', '--runs', '5'];

/** The screenshot the README shows; rewritten when missing or with UPDATE_SCREENSHOT=1. */
const SCREENSHOT = join(ROOT, 'docs', 'report-screenshot.png');

let work: string;
let fileUrl: string;
let report: RunResult;
let failed: CheckResult;
let browser: Browser | undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'conformance-browser-'));
  const reportDir = join(work, 'reports');
  const run = await cli([...RUN_ARGS, '--report-dir', reportDir]);
  // Exit 1: a check failed, as the defect intends; 0 or 2 means the run is not the one this test needs.
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
  report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as RunResult;
  const s = report.summary;
  expect({ passed: s.passed > 0, failed: s.failed > 0, skipped: s.skipped > 0 }, 'the run must have passes, failures and skips').toEqual({
    passed: true,
    failed: true,
    skipped: true,
  });
  failed = report.topics.flatMap((t) => t.checks).find((c) => c.status === 'fail' && c.evidence.length > 0)!;
  expect(failed, 'a failed check with evidence').toBeDefined();
  fileUrl = pathToFileURL(join(reportDir, 'report.html')).href;

  if (existsSync(CHROMIUM)) {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  } else {
    // The skip note is not shown by every reporter: say it where a CI log shows it.
    console.warn(`test/browser skipped: ${NO_BROWSER}`);
  }
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

beforeEach((context) => {
  if (!browser) context.skip(NO_BROWSER);
});

interface Opened {
  page: Page;
  /** Every URL the page asked for (only the report's own file: URL is allowed). */
  requests: string[];
  /** Console errors and uncaught page errors. */
  problems: string[];
  close(): Promise<void>;
}

async function openReport(width = 1280, height = 900): Promise<Opened> {
  const context = await browser!.newContext({ viewport: { width, height }, serviceWorkers: 'block', javaScriptEnabled: true });
  const requests: string[] = [];
  const problems: string[] = [];
  // Anything but the file itself is refused before it leaves, and still recorded as a failure.
  await context.route('**/*', (route) => (route.request().url() === fileUrl ? route.continue() : route.abort()));
  const page = await context.newPage();
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(fileUrl, { waitUntil: 'load' });
  return {
    page,
    requests,
    problems,
    close: () => context.close(),
  };
}

/** What the page shows for each status: the rows that are not hidden. */
async function visibleStatuses(page: Page): Promise<string[]> {
  return page.$$eval('.check[data-status]', (rows) =>
    rows.filter((row) => (row as HTMLElement).offsetParent !== null).map((row) => row.getAttribute('data-status') ?? ''),
  );
}

describe('report.html in headless Chromium', { timeout: 120_000 }, () => {
  it('shows summary counts and a verdict that match report.json', async () => {
    const { page, close } = await openReport();
    try {
      await expect(page.getAttribute('[data-testid=verdict]', 'data-verdict')).resolves.toBe(report.verdict);
      const s = report.summary;
      const expected = { total: s.total, passed: s.passed, failed: s.failed, warned: s.warned, skipped: s.skipped, errored: s.errored };
      const shown: Record<string, number> = {};
      for (const key of Object.keys(expected)) {
        const counter = page.getByTestId(`count-${key}`);
        expect(await counter.isVisible(), `count-${key} visible`).toBe(true);
        shown[key] = Number((await counter.textContent())?.trim());
      }
      expect(shown).toEqual(expected);
      // The rows agree with the counts too.
      const statuses = await page.$$eval('.check[data-status]', (rows) => rows.map((r) => r.getAttribute('data-status')));
      expect(statuses.filter((x) => x === 'fail').length).toBe(s.failed);
      expect(statuses.filter((x) => x === 'skip').length).toBe(s.skipped);
      expect(statuses.filter((x) => x === 'pass').length).toBe(s.passed);
    } finally {
      await close();
    }
  });

  it('the "Failed" filter shows only failed checks, and "All" brings every check back', async () => {
    const { page, close } = await openReport();
    try {
      await page.click('button[data-filter="fail"]');
      expect(await page.getAttribute('button[data-filter="fail"]', 'aria-pressed')).toBe('true');
      const onlyFailed = await visibleStatuses(page);
      expect(onlyFailed.length).toBe(report.summary.failed);
      expect(new Set(onlyFailed)).toEqual(new Set(['fail']));
      // A topic without a failure disappears with its rows.
      const withoutFailure = report.topics.filter((t) => !t.checks.some((c) => c.status === 'fail')).map((t) => t.id);
      expect(withoutFailure.length).toBeGreaterThan(0);
      for (const topic of withoutFailure) expect(await page.isVisible(`section[data-topic="${topic}"]`), topic).toBe(false);

      await page.click('button[data-filter="skip"]');
      const onlySkipped = await visibleStatuses(page);
      expect(onlySkipped.length).toBe(report.summary.skipped);
      expect(new Set(onlySkipped)).toEqual(new Set(['skip']));

      await page.click('button[data-filter="all"]');
      expect((await visibleStatuses(page)).length).toBe(report.summary.total);
    } finally {
      await close();
    }
  });

  it("a failed check's evidence expands and shows the request, the response and the curl line", async () => {
    const { page, close } = await openReport();
    try {
      const row = page.locator(`.check[data-check="${failed.id}"]`);
      // The failure itself is open from the start: requirement, expected, actual.
      await expect(row.locator('dl.facts').isVisible()).resolves.toBe(true);
      const facts = (await row.locator('dl.facts').innerText()).replace(/\s+/g, ' ');
      expect(facts).toContain(failed.failure!.expected.replace(/\s+/g, ' '));
      expect(facts).toContain(failed.failure!.actual.replace(/\s+/g, ' '));

      const exchange = row.locator('details.exchange').first();
      const blocks = exchange.locator('pre');
      expect(await blocks.first().isVisible(), 'evidence starts collapsed').toBe(false);
      await exchange.locator('summary').click();
      expect(await blocks.nth(0).isVisible()).toBe(true);

      const evidence = failed.evidence[0]!;
      const headings = await exchange.locator('h3').allInnerTexts();
      expect(headings).toEqual(['Request', 'Response', 'Replay']);
      const [request, response, replay] = await blocks.allTextContents();
      expect(request!.split('\n')[0]).toBe(`${evidence.request.method} ${evidence.request.url}`);
      expect(response!.split('\n')[0]).toBe(`HTTP ${evidence.response!.status}`);
      if (evidence.response!.body) expect(response).toContain(evidence.response!.body);
      expect(replay).toBe(evidence.curl);
      expect(replay).toMatch(/^curl /);
      // The token never reaches the page: the curl line reads it from $TOKEN.
      expect(await page.content()).not.toMatch(/Bearer ey[A-Za-z0-9_-]+\./);
    } finally {
      await close();
    }
  });

  it('shows requirement coverage by section, with the failed requirement in its section', async () => {
    const { page, close } = await openReport();
    try {
      const coverage = page.locator('#coverage');
      await coverage.scrollIntoViewIfNeeded();
      expect(await coverage.locator('h2').innerText()).toBe('Requirement coverage by section');
      const sections = coverage.locator('details.section-coverage');
      expect(await sections.count()).toBe(report.sections.length);
      expect(report.sections.length).toBeGreaterThan(1);

      const section = report.sections.find((sec) => sec.requirements.includes(failed.failure!.requirement))!;
      const details = coverage.locator(`details.section-coverage[data-section="${section.section}"]`);
      const summary = details.locator('summary');
      expect(await summary.isVisible()).toBe(true);
      expect(await summary.innerText()).toContain(`${section.counts.pass} of ${section.counts.total} passed`);
      await summary.click();
      const requirementRow = details.locator('tr', { hasText: failed.failure!.requirement });
      expect(await requirementRow.isVisible()).toBe(true);
      expect(await requirementRow.getAttribute('data-requirement-status')).toBe('fail');
    } finally {
      await close();
    }
  });

  it('makes no network request and logs no console error, whatever is clicked', async () => {
    const { page, requests, problems, close } = await openReport();
    try {
      for (const filter of await page.$$eval('button[data-filter]', (b) => b.map((x) => x.getAttribute('data-filter')))) {
        await page.click(`button[data-filter="${filter}"]`);
      }
      await page.click('button[data-filter="all"]');
      await page.$$eval('details', (all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
      await page.click('a[href="#coverage"]');
      await page.waitForTimeout(200);
      expect(requests).toEqual([fileUrl]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  for (const width of [1280, 390]) {
    it(`is usable ${width} pixels wide: no horizontal overflow, controls visible and working`, async () => {
      const { page, problems, close } = await openReport(width, 844);
      try {
        // Worst case: every evidence block and coverage table open.
        await page.$$eval('details', (all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
        const overflow = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          bodyScrollWidth: document.body.scrollWidth,
          viewport: window.innerWidth,
        }));
        expect(overflow.scrollWidth, JSON.stringify(overflow)).toBeLessThanOrEqual(width);
        expect(overflow.bodyScrollWidth, JSON.stringify(overflow)).toBeLessThanOrEqual(width);

        await page.evaluate(() => window.scrollTo(0, 0));
        for (const selector of ['[data-testid=verdict]', '[data-testid=count-failed]', '[data-testid=count-skipped]', ...['all', 'fail', 'skip', 'pass'].map((f) => `button[data-filter="${f}"]`)]) {
          const box = await page.locator(selector).boundingBox();
          expect(box, `${selector} is laid out`).not.toBeNull();
          expect(await page.isVisible(selector), `${selector} visible`).toBe(true);
          expect(box!.x, `${selector} starts inside the viewport`).toBeGreaterThanOrEqual(0);
          expect(box!.x + box!.width, `${selector} ends inside the viewport`).toBeLessThanOrEqual(width);
        }
        // The filter buttons are big enough to tap and they still work at this width.
        const tap = await page.locator('button[data-filter="fail"]').boundingBox();
        expect(tap!.height).toBeGreaterThanOrEqual(32);
        await page.locator('button[data-filter="fail"]').click();
        expect(new Set(await visibleStatuses(page))).toEqual(new Set(['fail']));
        const failedRow = page.locator(`.check[data-check="${failed.id}"]`);
        const rowBox = await failedRow.boundingBox();
        expect(rowBox!.x + rowBox!.width).toBeLessThanOrEqual(width);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    });
  }

  it('saves a screenshot of the report (docs/report-screenshot.png when missing or with UPDATE_SCREENSHOT=1)', async () => {
    const { page, close } = await openReport(1280, 1000);
    try {
      // The view the README shows: the header and counts, then the failed check with its first
      // exchange open, from the top of the page down to the end of that exchange.
      await page.click('button[data-filter="fail"]');
      const exchange = page.locator(`.check[data-check="${failed.id}"] details.exchange`).first();
      await exchange.locator('summary').click();
      await page.evaluate(() => window.scrollTo(0, 0));
      const bottom = await exchange.evaluate((e) => e.getBoundingClientRect().bottom + window.scrollY);
      const image = await page.screenshot({ fullPage: true, clip: { x: 0, y: 0, width: 1280, height: Math.ceil(bottom) + 16 }, type: 'png' });
      expect(image.subarray(1, 4).toString('latin1')).toBe('PNG');
      const local = join(ROOT, 'reports', 'browser');
      mkdirSync(local, { recursive: true });
      writeFileSync(join(local, 'report-screenshot.png'), image);
      if (!existsSync(SCREENSHOT) || process.env.UPDATE_SCREENSHOT === '1') writeFileSync(SCREENSHOT, image);
      expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    } finally {
      await close();
    }
  });
});
