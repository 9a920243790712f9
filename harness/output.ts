// What a run prints: the opening lines (target, seed), progress per topic while vitest runs, and
// the summary table at the end. vitest's own output is silenced; this module is the run's voice.
import { basename } from 'node:path';
import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';
import type { CheckStatus } from '../core/model.ts';
import { checkStatusOf } from './reporter.ts';
import type { CheckResult, RunResult } from './result.ts';
import { paintWith } from './terminal.ts';
import type { Paint } from './terminal.ts';

export type Print = (line: string) => void;

/** Topic id of a suite file: `suites/<topic>.suite.ts`. */
export function topicOfFile(file: string): string {
  return basename(file).replace(/\.suite\.[cm]?[jt]s$/, '');
}

export interface ProgressOptions {
  print: Print;
  /** Rewrites a "running" line in place; plain lines otherwise (CI, pipes). */
  tty: boolean;
  /** Writes without a newline (the TTY in-place line). */
  write?: (text: string) => void;
  paint?: Paint;
}

/**
 * One mark per topic that never overstates: ✓ only when something passed and nothing failed,
 * warned or erred; a topic of skips alone is not a pass.
 */
export function topicMark(counts: Record<CheckStatus, number>, loadFailed = false): { mark: string; colour: 'red' | 'yellow' | 'green' | 'grey' } {
  if (loadFailed || counts.error > 0) return { mark: '!', colour: 'red' };
  if (counts.fail > 0) return { mark: '✗', colour: 'red' };
  if (counts.warn > 0) return { mark: '⚠', colour: 'yellow' };
  if (counts.pass === 0) return { mark: '-', colour: 'grey' };
  return { mark: '✓', colour: 'green' };
}

/** The one file of an overlapped run, which holds every topic as a describe named by it (suites/support/overlap.entry.ts). */
const isOverlapEntry = (module: TestModule) => /overlap\.entry\.[cm]?[jt]s$/.test(module.moduleId);

/** A vitest reporter that prints one line per topic as it finishes. */
export class ProgressReporter implements Reporter {
  constructor(private readonly options: ProgressOptions) {}

  onTestModuleStart(module: TestModule): void {
    if (isOverlapEntry(module)) return;
    if (this.options.tty && this.options.write) this.options.write(`  … ${topicOfFile(module.moduleId)}`);
  }

  onTestSuiteReady(suite: TestSuite): void {
    if (suite.parent !== suite.module || !isOverlapEntry(suite.module)) return;
    if (this.options.tty && this.options.write) this.options.write(`  … ${suite.name}`);
  }

  /** A topic of an overlapped run: its checks' own time (they overlapped others). */
  onTestSuiteResult(suite: TestSuite): void {
    if (suite.parent !== suite.module || !isOverlapEntry(suite.module)) return;
    const tests = [...suite.children.allTests()];
    const ms = tests.reduce((sum, test) => sum + (test.meta().conformance?.durationMs ?? 0), 0);
    this.topicLine(suite.name, tests, false, ms);
  }

  onTestModuleEnd(module: TestModule): void {
    const loadFailed = module.errors().length > 0;
    if (isOverlapEntry(module)) {
      if (loadFailed) this.topicLine('(suites)', [], true, 0);
      return;
    }
    this.topicLine(topicOfFile(module.moduleId), [...module.children.allTests()], loadFailed, module.diagnostic().duration ?? 0);
  }

  private topicLine(topic: string, tests: TestCase[], loadFailed: boolean, ms: number): void {
    const counts: Record<CheckStatus, number> = { pass: 0, fail: 0, warn: 0, skip: 0, error: 0 };
    for (const test of tests) counts[checkStatusOf(test)]++;
    const { mark, colour } = topicMark(counts, loadFailed);
    const paint = this.options.paint ?? ((_c: string, text: string) => text);
    const seconds = (ms / 1000).toFixed(1);
    const extra = [counts.warn > 0 ? `${counts.warn} warned` : '', counts.error > 0 ? `${counts.error} errored` : ''].filter(Boolean);
    const detail = loadFailed
      ? 'suite could not be loaded'
      : [`${counts.pass} passed`, `${counts.fail} failed`, ...extra, `${counts.skip} skipped`].join(', ');
    const line = `  ${paint(colour, mark)} ${topic.padEnd(18)} ${detail} (${seconds} s)`;
    if (this.options.tty && this.options.write) this.options.write(`\r\x1b[K`);
    this.options.print(line);
  }
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)];
}

/** One line per check that did not pass: which check, which requirement, why. */
export function findingLines(result: RunResult, paint: Paint = (_c, t) => t): string[] {
  const lines: string[] = [];
  const label = { fail: paint('red', 'failed'), warn: paint('yellow', 'warned'), error: paint('red', 'errored') } as const;
  for (const status of ['fail', 'warn', 'error'] as const) {
    for (const topic of result.topics) {
      for (const check of topic.checks.filter((c) => c.status === status)) lines.push(`  ${label[status]} ${check.id}: ${findingText(check)}`);
    }
  }
  return lines;
}

function findingText(check: CheckResult): string {
  const f = check.failure;
  const text = f ? `${f.requirement} (section ${f.section}): expected ${f.expected}; got ${f.actual}` : (check.reason ?? 'no reason recorded');
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

/** The closing table: one row per topic, a total row, the named findings, the verdict and the report files. */
export function summaryLines(result: RunResult, reportFiles: string[] = [], paint: Paint = (_c, t) => t, middle: string[] = []): string[] {
  const header = ['topic', 'verdict', 'passed', 'failed', 'warned', 'skipped', 'errored'];
  const rows = result.topics.map((t) => [
    t.id,
    t.verdict,
    String(t.summary.passed),
    String(t.summary.failed),
    String(t.summary.warned),
    String(t.summary.skipped),
    String(t.summary.errored),
  ]);
  const s = result.summary;
  rows.push(['total', result.verdict, String(s.passed), String(s.failed), String(s.warned), String(s.skipped), String(s.errored)]);
  const lines = ['', ...table([header, ...rows]), ''];
  const findings = findingLines(result, paint);
  if (findings.length > 0) lines.push(...findings, '');
  return [...lines, ...middle, ...closingLines(result, reportFiles, paint)];
}

/** What even `--quiet` prints: harness errors, the verdict, where the reports are. */
export function closingLines(result: RunResult, reportFiles: string[] = [], paint: Paint = (_c, t) => t): string[] {
  const lines: string[] = [];
  const s = result.summary;
  for (const error of result.harnessErrors) lines.push(`harness error [${error.code}]: ${error.message}`);
  if (s.passed + s.failed + s.warned + s.errored === 0) {
    lines.push(`no check was executed (${s.skipped} skipped, reasons in the reports): this verdict says nothing about the target`);
  }
  const stopped = result.topics.flatMap((t) => t.checks).filter((c) => c.status === 'skip' && c.reason?.includes('(--max-failures'));
  if (stopped.length > 0) lines.push(`stopped early: ${stopped.length} check${stopped.length > 1 ? 's were' : ' was'} not run (--max-failures)`);
  const colour = result.verdict === 'pass' ? 'green' : result.verdict === 'fail' || result.verdict === 'error' ? 'red' : 'yellow';
  lines.push(`verdict: ${paint(colour, result.verdict)} (seed ${result.seed}; replay with --seed ${result.seed})`);
  for (const file of reportFiles) lines.push(`report: ${file}`);
  return lines;
}

export { paintWith };

/** `run --json`: the run's summary as one JSON object, for scripts (stdout holds nothing else). */
export function jsonSummary(outcome: { exitCode: number; result: RunResult; reportFiles?: string[] }): Record<string, unknown> {
  const r = outcome.result;
  const findings = r.topics.flatMap((t) =>
    t.checks
      .filter((c) => c.status === 'fail' || c.status === 'warn' || c.status === 'error')
      .map((c) => ({ check: c.id, status: c.status, requirement: c.failure?.requirement ?? null, section: c.failure?.section ?? null, reason: c.reason })),
  );
  return {
    verdict: r.verdict,
    exitCode: outcome.exitCode,
    target: r.target.baseUrl,
    profile: r.profile,
    seed: r.seed,
    summary: r.summary,
    topics: r.topics.map((t) => ({ id: t.id, verdict: t.verdict, summary: t.summary })),
    findings,
    harnessErrors: r.harnessErrors,
    reports: outcome.reportFiles ?? [],
  };
}
