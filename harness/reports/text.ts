// Wording and formatting shared by the report renderers, so that every report names outcomes
// and shows evidence the same way.
import type { CheckStatus, Exchange, SkipKind } from '../../core/model.ts';
import type { RequirementStatus, RunResult, TopicVerdict, Verdict } from '../result.ts';

export const CHECK_STATUS_LABEL: Record<CheckStatus, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  warn: 'WARN',
  skip: 'SKIP',
  error: 'ERROR',
};

export const VERDICT_LABEL: Record<Verdict | TopicVerdict, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  error: 'ERROR',
  skipped: 'SKIPPED',
};

/** How each kind of skip is named wherever skips are listed (a precondition the run can be given, or not observable at all). */
export const SKIP_KIND_LABEL: Record<SkipKind, string> = {
  precondition: 'precondition',
  'not-observable': 'not observable on this target',
};

export const REQUIREMENT_STATUS_ORDER: RequirementStatus[] = ['pass', 'fail', 'warn', 'error', 'skipped', 'untested'];

/** The line above a report's Readings section. */
export const READINGS_INTRO =
  'Where the document reads more than one way, the answer this target gave (docs/readings.md lists every such point). A warning marks an answer a client written from the document breaks on.';

/** The run's identity, one line per fact, in the order every report shows it. */
export function runFacts(result: RunResult): Array<[string, string]> {
  const facts: Array<[string, string]> = [
    ['Tool', `${result.tool.name} ${result.tool.version}`],
    ['Contract', `${result.contract.version} (sha256 ${result.contract.sha256})`],
    ['Target', `${result.target.baseUrl}${result.target.embedded ? ' (embedded reference)' : ''}`],
    ['Profile', result.profile],
    ['Seed', String(result.seed)],
    ['Runs per property', String(result.runs)],
    ['Started', result.startedAt],
    ['Finished', result.finishedAt],
    ['Duration', formatDuration(result.durationMs)],
  ];
  if (result.shard !== undefined) facts.push(['Shard', result.shard]);
  return facts;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

function headerLines(headers: Record<string, string>): string[] {
  return Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
}

/** `POST /v1/...` then headers, a blank line and the body (as recorded: redacted and cut). */
export function formatRequest(exchange: Exchange): string {
  const { request } = exchange;
  const lines = [`${request.method} ${request.url}`, ...headerLines(request.headers)];
  if (request.body !== undefined && request.body !== '') lines.push('', request.body);
  return lines.join('\n');
}

export function formatResponse(exchange: Exchange): string {
  if (!exchange.response) return `no response: ${exchange.transportError ?? 'unknown transport failure'}`;
  const { response } = exchange;
  const lines = [`HTTP ${response.status}`, ...headerLines(response.headers)];
  if (response.body !== undefined && response.body !== '') lines.push('', response.body);
  return lines.join('\n');
}
