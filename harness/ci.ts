// CI systems as people use them. GitHub Actions (GITHUB_ACTIONS=true): report.md is appended to the
// job summary ($GITHUB_STEP_SUMMARY) and each failed, warned or errored check becomes a workflow
// annotation naming the requirement and its section. GitLab and others read junit.xml as written.
import { appendFileSync } from 'node:fs';
import type { Print } from './output.ts';
import type { CheckResult, RunResult } from './result.ts';

/** Workflow-command escaping (actions/toolkit): data escapes %, CR, LF; properties also : and ,. */
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

const LEVEL = { fail: 'error', error: 'error', warn: 'warning' } as const;

/** One `::error title=...::message` line for a check that did not pass. */
export function annotationOf(check: CheckResult): string | undefined {
  if (check.status !== 'fail' && check.status !== 'warn' && check.status !== 'error') return undefined;
  const f = check.failure;
  const title = f ? `${check.id} breaks ${f.requirement} (section ${f.section})` : `${check.id} could not be run`;
  const message = f ? `expected ${f.expected}; got ${f.actual}` : (check.reason ?? 'no reason recorded');
  const cut = message.length > 1000 ? `${message.slice(0, 997)}...` : message;
  return `::${LEVEL[check.status]} title=${escapeProperty(title)}::${escapeData(cut)}`;
}

/**
 * Publishes a finished run to the CI system it runs in, if any. The result and report.md are
 * already redacted; nothing here reads a secret.
 */
export function publishToCi(result: RunResult, markdown: string | undefined, print: Print, env: NodeJS.ProcessEnv = process.env): void {
  if (env.GITHUB_ACTIONS !== 'true') return;
  const summaryFile = env.GITHUB_STEP_SUMMARY;
  if (summaryFile && markdown !== undefined) {
    try {
      appendFileSync(summaryFile, `${markdown}\n`);
    } catch (error) {
      print(`::warning title=conformance::could not append to GITHUB_STEP_SUMMARY (${escapeData((error as NodeJS.ErrnoException).code ?? 'error')})`);
    }
  }
  for (const topic of result.topics) for (const check of topic.checks) {
    const line = annotationOf(check);
    if (line) print(line);
  }
  for (const error of result.harnessErrors) print(`::error title=${escapeProperty(`conformance harness error ${error.code}`)}::${escapeData(error.message)}`);
}
