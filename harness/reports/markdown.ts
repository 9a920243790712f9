// report.md: a summary table per topic, then every failure with its requirement, section and
// evidence. Written to be pasted as a CI job summary (GitHub renders it, HTML sanitised).
import { gatingMarkdown } from './gating.ts';
import type { CheckResult, RunResult, TopicResult } from '../result.ts';
import { MATRIX_TITLE, brokenCells, callerBlocks, cellText, matrixSummary } from './matrix.ts';
import { CHECK_STATUS_LABEL, READINGS_INTRO, REQUIREMENT_STATUS_ORDER, SKIP_KIND_LABEL, VERDICT_LABEL, formatRequest, formatResponse, runFacts } from './text.ts';

/** Plain text in Markdown: no HTML, no table breaks, no accidental emphasis or links. */
export function escapeMarkdown(value: string): string {
  return value
    // `<` opens HTML and `&name;` is an entity; a lone `>` or `&` is plain text in Markdown, and
    // escaping them would show `-&gt;` wherever the raw file is read.
    .replace(/&(?=#?\w+;)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/([\\`*_[\]|#])/g, '\\$1')
    .replace(/\r?\n/g, ' ');
}

const text = escapeMarkdown;

/** Exchanges shown per finding here; report.html and report.json keep them all. */
const EXCHANGES_SHOWN = 3;

/** A code span that survives backticks inside the value. */
function code(value: string): string {
  const single = value.replace(/\r?\n/g, ' ');
  const longest = Math.max(0, ...(single.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = single.startsWith('`') || single.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${single}${pad}${fence}`;
}

/** A fenced block longer than any backtick run inside, so evidence cannot close it early. */
function fenced(body: string, info = ''): string {
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${body}\n${fence}`;
}

function row(cells: Array<string | number>): string {
  return `| ${cells.join(' | ')} |`;
}

function topicTable(topics: TopicResult[]): string[] {
  const lines = [
    row(['Topic', 'Verdict', 'Checks', 'Passed', 'Failed', 'Warned', 'Skipped', 'Errors']),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  for (const t of topics) {
    const s = t.summary;
    lines.push(row([code(t.id), VERDICT_LABEL[t.verdict], s.total, s.passed, s.failed, s.warned, s.skipped, s.errored]));
  }
  return lines;
}

function checkDetail(result: RunResult, topic: TopicResult, check: CheckResult): string[] {
  const lines = [`### ${CHECK_STATUS_LABEL[check.status]} ${code(check.id)}: ${text(check.title)}`, ''];
  lines.push(`- Topic: ${code(topic.id)}`);
  if (check.failure) {
    const requirement = result.requirements.find((r) => r.id === check.failure?.requirement);
    const level = requirement ? `, ${requirement.level}` : '';
    lines.push(`- Requirement: ${code(check.failure.requirement)} (section ${text(check.failure.section)}${level})`);
    if (requirement) lines.push(`- Rule: ${text(requirement.text)}`);
    lines.push(`- Expected: ${text(check.failure.expected)}`);
    lines.push(`- Actual: ${text(check.failure.actual)}`);
  } else if (check.reason) {
    lines.push(`- Reason: ${text(check.reason)}`);
  }
  if (check.requirements.length > 0) lines.push(`- Cites: ${check.requirements.map(code).join(', ')}`);
  if (check.seed !== undefined) lines.push(`- Seed: ${code(String(check.seed))} (replay with ${code(`--seed ${check.seed}`)})`);
  if (check.counterexample !== undefined) lines.push(`- Counterexample: ${code(check.counterexample)}`);
  for (const note of check.notes) lines.push(`- Note: ${text(note)}`);
  lines.push('');
  // A CI job summary has a size limit; the other reports keep every exchange.
  check.evidence.slice(0, EXCHANGES_SHOWN).forEach((exchange, i) => {
    lines.push(`Exchange ${i + 1} of ${check.evidence.length} (${Math.round(exchange.durationMs)} ms):`, '');
    lines.push(fenced(formatRequest(exchange), 'http'), '');
    lines.push(fenced(formatResponse(exchange), 'http'), '');
    lines.push('Replay:', '', fenced(exchange.curl, 'sh'), '');
  });
  if (check.evidence.length > EXCHANGES_SHOWN) {
    lines.push(`${check.evidence.length - EXCHANGES_SHOWN} more exchanges are in report.html and report.json.`, '');
  }
  return lines;
}

/** One table per caller: operations down, objects across; failed and warned cells listed with their curl line. */
function matrixSection(result: RunResult): string[] {
  const matrix = result.authorizationMatrix;
  if (!matrix) return [];
  const lines = [text(matrixSummary(matrix)), ''];
  for (const b of callerBlocks(matrix)) {
    lines.push(`### ${text(b.caller)} (${code(b.check)})`, '', row(['Operation', ...b.objects.map(text)]), row(['---', ...b.objects.map(() => '---')]));
    for (const r of b.rows) lines.push(row([code(r.operation), ...r.cells.map((c) => (c ? text(cellText(c)) : ''))]));
    lines.push('');
  }
  const broken = brokenCells(matrix);
  if (broken.length > 0) {
    lines.push('### Failed and warned cells', '');
    for (const { cell: c } of broken) {
      lines.push(`- ${c.verdict.toUpperCase()} ${code(c.operation)} as ${text(c.caller)} on ${text(c.object)}: ${text(c.answer ?? '')}, expected ${text(c.expected)} (${code(c.requirement ?? '')}): ${text(c.reason ?? '')}`);
      if (c.curl) lines.push('', fenced(c.curl, 'sh'), '');
    }
  }
  return section(MATRIX_TITLE, lines);
}

function section(title: string, body: string[]): string[] {
  return body.length === 0 ? [] : [`## ${title}`, '', ...body, ''];
}

/** One line per reading the target took (docs/readings.md lists every reading point). */
function readingsMarkdown(result: RunResult, text: (s: string) => string): string[] {
  if (result.readings.length === 0) return [];
  return [
    READINGS_INTRO,
    '',
    ...result.readings.map((r) => `- ${r.section} ${text(r.title)}: ${r.grade === 'warning' ? `**${text(r.answer)}**, warning: ${text(r.breaks ?? '')}` : text(r.answer)}`),
  ];
}

export function renderMarkdown(result: RunResult): string {
  const s = result.summary;
  const out: string[] = [`# Conformance report: ${VERDICT_LABEL[result.verdict]}`, ''];
  out.push(
    `${s.total} checks: ${s.passed} passed, ${s.failed} failed, ${s.warned} warned, ${s.skipped} skipped, ${s.errored} errors.`,
    '',
  );
  out.push(row(['Run', '']), row(['---', '---']));
  for (const [name, value] of runFacts(result)) out.push(row([name, text(value)]));
  out.push('');

  out.push(
    ...section(
      'Harness errors',
      result.harnessErrors.map((e) => `- ${code(e.code)}: ${text(e.message)}`),
    ),
  );
  out.push(...gatingMarkdown(result, text, code));
  out.push(...section('Readings', readingsMarkdown(result, text)));
  out.push('## Topics', '', ...topicTable(result.topics), '');

  const withStatus = (status: CheckResult['status']) =>
    result.topics.flatMap((t) => t.checks.filter((c) => c.status === status).map((c) => ({ t, c })));
  out.push(...section('Failures', withStatus('fail').flatMap(({ t, c }) => checkDetail(result, t, c))));
  out.push(
    ...section('Warnings (broken "should")', withStatus('warn').flatMap(({ t, c }) => checkDetail(result, t, c))),
  );
  out.push(...section('Errors (the check could not run)', withStatus('error').flatMap(({ t, c }) => checkDetail(result, t, c))));
  out.push(...matrixSection(result));
  out.push(
    ...section(
      'Skipped',
      withStatus('skip').map(({ c }) => `- ${code(c.id)} ${text(c.title)}: ${text(c.reason ?? '')} (${text(SKIP_KIND_LABEL[c.skipKind ?? 'precondition'])})`),
    ),
  );
  out.push(...section('Other notes', result.notes.map((n) => `- ${code(n.check)}: ${text(n.text)}`)));
  out.push(...section('Advisories (beyond the document, never failing)', result.advisories.map((n) => `- ${code(n.check)}: ${text(n.text)}`)));
  out.push(
    ...section(
      'Assumptions applied (where the document is silent)',
      result.assumptions.map((a) => `- ${code(a.requirement)}: ${text(a.text)}`),
    ),
  );

  const header = ['', ...REQUIREMENT_STATUS_ORDER, 'total'];
  const coverage = [row(header), row(header.map((_, i) => (i === 0 ? '---' : '---:')))];
  for (const [level, counts] of Object.entries(result.tiers)) {
    if (counts.total === 0) continue;
    coverage.push(row([level, ...REQUIREMENT_STATUS_ORDER.map((st) => counts[st]), counts.total]));
  }
  coverage.push('', row(['Section', ...header.slice(1)]), row(header.map((_, i) => (i === 0 ? '---' : '---:'))));
  for (const sec of result.sections) {
    const name = sec.title ? `${sec.section} ${text(sec.title)}` : sec.section;
    coverage.push(row([name, ...REQUIREMENT_STATUS_ORDER.map((st) => sec.counts[st]), sec.counts.total]));
  }
  out.push(...section('Requirement coverage', result.requirements.length === 0 ? [] : coverage));
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
