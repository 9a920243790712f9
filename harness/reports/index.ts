// Renders the four report files from one RunResult, refuses to write any of them if a secret
// would leak, then replaces the previous reports in the report directory.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HarnessError } from '../errors.ts';
import { SecretSet } from '../redact.ts';
import type { RunResult } from '../result.ts';
import { escapeHtml, renderHtml } from './html.ts';
import { renderJson } from './json.ts';
import { escapeXml, renderJunit } from './junit.ts';
import { escapeMarkdown, renderMarkdown } from './markdown.ts';

export const REPORT_FILES = ['report.json', 'report.md', 'report.html', 'junit.xml'] as const;
export type ReportFile = (typeof REPORT_FILES)[number];

export function renderReports(result: RunResult): Record<ReportFile, string> {
  return {
    'report.json': renderJson(result),
    'report.md': renderMarkdown(result),
    'report.html': renderHtml(result),
    'junit.xml': renderJunit(result),
  };
}

/**
 * Each secret as it could appear in a rendered file: as it travels (raw, URL-, form- or
 * JSON-encoded), then as each renderer escapes text (HTML, XML, Markdown).
 */
function leakForms(secrets: string[]): string[] {
  const forms = new Set<string>();
  for (const value of new SecretSet(secrets).list()) {
    for (const form of [value, escapeHtml(value), escapeXml(value), escapeMarkdown(value)]) forms.add(form);
  }
  return [...forms];
}

/** The report files that contain a secret; the secret itself is never returned or printed. */
export function findLeaks(files: Record<string, string>, secrets: string[]): string[] {
  const forms = leakForms(secrets);
  return Object.entries(files)
    .filter(([, content]) => forms.some((form) => content.includes(form)))
    .map(([name]) => name);
}

export async function writeReports(dir: string, result: RunResult, secrets: string[]): Promise<string[]> {
  const files = renderReports(result);
  const leaking = findLeaks(files, secrets);
  if (leaking.length > 0) {
    throw new HarnessError(
      'SECRET_LEAK_BLOCKED',
      `a configured secret would appear in ${leaking.join(', ')}; no report was written`,
    );
  }
  const paths: string[] = [];
  try {
    await mkdir(dir, { recursive: true });
    for (const name of REPORT_FILES) {
      const path = join(dir, name);
      // Write beside, then rename: a reader never sees a half-written report.
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, files[name], 'utf8');
      await rename(temporary, path);
      paths.push(path);
    }
  } catch (error) {
    await Promise.all(REPORT_FILES.map((name) => rm(join(dir, `${name}.${process.pid}.tmp`), { force: true })));
    const reason = error instanceof Error && 'code' in error ? String((error as { code: unknown }).code) : 'unknown';
    throw new HarnessError('REPORT_WRITE_FAILED', `could not write the reports to ${dir} (${reason})`);
  }
  return paths;
}
