// Baselines for gating a pipeline: a committed file of known failures, each keyed by check id and
// requirement id and carrying the reason it is accepted for now. Known failures do not fail a run;
// a new failure does; an entry that no longer fails does too, so the file only ever shrinks.
import { existsSync, readFileSync } from 'node:fs';
import { HarnessError } from '../errors.ts';
import type { RunResult } from '../result.ts';
import type { BaselineEntry } from '../gating-model.ts';

export const BASELINE_VERSION = 1;
/** What `conformance baseline` writes in place of a reason; a run refuses it until replaced. */
export const REASON_PLACEHOLDER = 'TODO: reason';

export interface BaselineFile {
  version: typeof BASELINE_VERSION;
  /** Where the entries came from (informational). */
  source?: { report?: string; target?: string; contractSha256?: string; createdAt?: string };
  knownFailures: BaselineEntry[];
}

export interface LoadedBaseline {
  file: string;
  entries: BaselineEntry[];
}

export const baselineKey = (check: string, requirement: string): string => `${check}\u0000${requirement}`;

function invalid(file: string, message: string): never {
  throw new HarnessError('CONF_INVALID_VALUE', `--baseline ${file}: ${message}`);
}

/** Reads and checks a baseline; every problem is a HarnessError (exit 2) before anything is sent. */
export function loadBaseline(file: string): LoadedBaseline {
  if (!existsSync(file)) invalid(file, 'no such file');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return invalid(file, `is not JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (!raw || typeof raw !== 'object' || !Array.isArray((raw as BaselineFile).knownFailures)) {
    invalid(file, 'must be an object with a knownFailures array (write one with conformance baseline)');
  }
  const version = (raw as BaselineFile).version;
  if (version !== BASELINE_VERSION) invalid(file, `has version ${JSON.stringify(version)}; this tool reads version ${BASELINE_VERSION}`);
  const entries: BaselineEntry[] = [];
  const seen = new Set<string>();
  (raw as BaselineFile).knownFailures.forEach((entry: unknown, i) => {
    const where = `knownFailures[${i}]`;
    if (!entry || typeof entry !== 'object') invalid(file, `${where} is not an object`);
    const { check, requirement, reason } = entry as Partial<BaselineEntry>;
    if (typeof check !== 'string' || !check.includes('/')) invalid(file, `${where}.check must be a check id like "wallet/reserved-zero"`);
    if (typeof requirement !== 'string' || !requirement.trim()) invalid(file, `${where}.requirement must be a requirement id`);
    // A known failure without a stated reason is not a decision anyone took: refuse it.
    if (typeof reason !== 'string' || !reason.trim() || /^\s*TODO\b/i.test(reason)) {
      invalid(file, `${where} (${check} ${requirement}) has no reason; say why the failure is accepted for now`);
    }
    const key = baselineKey(check, requirement);
    if (seen.has(key)) invalid(file, `${where} repeats ${check} ${requirement}`);
    seen.add(key);
    entries.push({ check, requirement, reason: reason.trim() });
  });
  return { file, entries };
}

/**
 * A baseline listing every failure of a report (fail, and warn: a `should` broken, which fails a
 * --strict run), each with the placeholder reason to be replaced before the file is used.
 */
export function baselineFromReport(report: RunResult, reportPath?: string): BaselineFile {
  const knownFailures: BaselineEntry[] = [];
  for (const topic of report.topics) {
    for (const check of topic.checks) {
      if (check.status !== 'fail' && check.status !== 'warn') continue;
      const requirement = check.failure?.requirement ?? check.requirements[0] ?? '?';
      knownFailures.push({ check: check.id, requirement, reason: REASON_PLACEHOLDER });
    }
  }
  return {
    version: BASELINE_VERSION,
    source: {
      ...(reportPath ? { report: reportPath } : {}),
      target: report.target.baseUrl,
      contractSha256: report.contract.sha256,
      createdAt: new Date().toISOString(),
    },
    knownFailures,
  };
}
