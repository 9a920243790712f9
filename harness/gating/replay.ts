// `conformance replay REPORT CHECK_ID`: runs exactly one check of a report again, with the seed,
// cases per property and profile the report recorded, against the same target (the embedded
// reference with the same defects, or the configured host if it is the one in the report), and
// says whether it still fails.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { RunConfig } from '../config.ts';
import { didYouMean } from '../closest.ts';
import { HarnessError } from '../errors.ts';
import type { Topic } from '../../core/model.ts';
import { TOPICS } from '../../core/model.ts';
import type { CheckResult, RunResult } from '../result.ts';
import { READS_WHOLE_RUN } from '../package.ts';

export function readReport(file: string): RunResult {
  if (!existsSync(file)) throw new HarnessError('CONF_INVALID_VALUE', `${file}: no such report`);
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
    if (!Array.isArray(report.topics) || !report.target) throw new Error('not a report.json (no topics or target)');
    return report;
  } catch (error) {
    throw new HarnessError('CONF_INVALID_VALUE', `${file}: ${(error as Error).message.split('\n')[0]}`);
  }
}

export function findCheck(report: RunResult, checkId: string): { topic: Topic; check: CheckResult } {
  for (const topic of report.topics) {
    const check = topic.checks.find((c) => c.id === checkId);
    if (check) return { topic: topic.id, check };
  }
  const failed = report.topics.flatMap((t) => t.checks.filter((c) => c.status === 'fail' || c.status === 'warn').map((c) => c.id));
  throw new HarnessError(
    'CONF_INVALID_VALUE',
    `no check ${checkId} in the report${didYouMean(checkId, report.topics.flatMap((t) => t.checks.map((c) => c.id)))}${failed.length > 0 ? `; failed checks: ${failed.slice(0, 10).join(', ')}` : ''}`,
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface ReplayPlan {
  config: RunConfig;
  topic: Topic;
  check: CheckResult;
  /** vitest name filter: the check's title at the end of the full test name. */
  testNamePattern?: string;
  /** Why the whole run is repeated instead of the one check (cross-topic checks). */
  wholeRun?: string;
}

/**
 * The configuration that repeats one check. `config` comes from the usual sources (flags, env,
 * .env); the report decides the seed, cases, profile and target.
 */
export function replayConfig(report: RunResult, checkId: string, config: RunConfig, reportFile: string, reportDir?: string): ReplayPlan {
  const { topic, check } = findCheck(report, checkId);
  if (report.target.embedded) {
    if (config.target) {
      throw new HarnessError(
        'CONF_INVALID_VALUE',
        `the report was made against the embedded reference; unset CONFORMANCE_BASE_URL to replay ${checkId}`,
      );
    }
  } else {
    const configured = config.target?.baseUrl.replace(/\/+$/, '');
    if (configured !== report.target.baseUrl.replace(/\/+$/, '')) {
      throw new HarnessError(
        'CONF_INVALID_VALUE',
        `the report was made against ${report.target.baseUrl}; set CONFORMANCE_BASE_URL (and its credentials and fixtures) to that host to replay ${checkId}${configured ? ` (configured: ${configured})` : ''}`,
      );
    }
  }
  const seed = check.seed ?? report.seed;
  // The failing case as shrunk (its path under the seed), for a check that runs it alone.
  const replayPath = /path "([\d:]+)"/.exec(check.counterexample ?? '')?.[1];
  // Checks of these topics judge every exchange of the run: alone they would see almost none.
  const wholeRun = READS_WHOLE_RUN.includes(topic)
    ? `${topic} judges the exchanges of the whole run, so every topic of the report runs again`
    : undefined;
  const topics = wholeRun ? TOPICS.filter((t) => report.topics.some((r) => r.id === t)) : [topic];
  const replay: RunConfig = {
    ...config,
    topics,
    defects: report.target.embedded ? [...(report.target.defects ?? [])] : [],
    seedGiven: true,
    reportDir: reportDir ? resolve(reportDir) : join(dirname(resolve(reportFile)), 'replay'),
    settings: { ...config.settings, seed, runs: report.runs, profile: report.profile, ...(replayPath ? { replayPath } : {}) },
  };
  delete replay.shard;
  return {
    config: replay,
    topic,
    check,
    ...(wholeRun ? { wholeRun } : { testNamePattern: `${escapeRegExp(check.title)}$` }),
  };
}
