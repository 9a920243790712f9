// junit.xml: one testsuite per topic, one testcase per check (classname = topic, name = title).
// The four outcomes stay apart: FAIL -> <failure>, ERROR -> <error>, SKIP -> <skipped>; WARN (a
// broken `should`) passes for CI but carries status=warn and its finding in <system-out>.
import type { CheckResult, RunResult, TopicResult } from '../result.ts';
import { formatRequest, formatResponse, runFacts } from './text.ts';

// Characters XML 1.0 cannot carry at all (controls, lone surrogates, U+FFFE/U+FFFF).
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(value: string): string {
  return value
    .replace(INVALID_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Attribute values also keep their line breaks (a raw newline would be normalised to a space). */
function attr(value: string | number): string {
  return escapeXml(String(value)).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function property(name: string, value: string | number): string {
  return `<property name="${attr(name)}" value="${attr(value)}"/>`;
}

function details(result: RunResult, check: CheckResult): string {
  const lines: string[] = [];
  if (check.failure) {
    const requirement = result.requirements.find((r) => r.id === check.failure?.requirement);
    lines.push(`Requirement: ${check.failure.requirement} (section ${check.failure.section})`);
    if (requirement) lines.push(`Rule: ${requirement.text}`);
    lines.push(`Expected: ${check.failure.expected}`, `Actual: ${check.failure.actual}`);
  } else if (check.reason) {
    lines.push(check.reason);
  }
  if (check.seed !== undefined) lines.push(`Seed: ${check.seed}`);
  if (check.counterexample !== undefined) lines.push(`Counterexample: ${check.counterexample}`);
  check.evidence.forEach((exchange, i) => {
    lines.push('', `--- exchange ${i + 1} ---`, formatRequest(exchange), '', formatResponse(exchange), '', `replay: ${exchange.curl}`);
  });
  return escapeXml(lines.join('\n'));
}

function testcase(result: RunResult, topic: TopicResult, check: CheckResult): string {
  const props = [
    property('check', check.id),
    property('status', check.status),
    ...check.requirements.map((id) => property('requirement', id)),
  ];
  if (check.failure) props.push(property('failed-requirement', check.failure.requirement));
  const body: string[] = [`      <properties>${props.join('')}</properties>`];
  const message = attr(check.reason ?? '');
  switch (check.status) {
    case 'fail':
      body.push(`      <failure message="${message}" type="conformance">${details(result, check)}</failure>`);
      break;
    case 'error':
      body.push(`      <error message="${message}" type="harness">${details(result, check)}</error>`);
      break;
    case 'skip':
      body.push(`      <skipped message="${message}"/>`);
      break;
    case 'warn':
      body.push(`      <system-out>${escapeXml('WARN (should): ')}${details(result, check)}</system-out>`);
      break;
    case 'pass':
      break;
  }
  const notes = [...check.notes.map((n) => `note: ${n}`), ...check.advisories.map((a) => `advisory: ${a}`)];
  if (notes.length > 0 && check.status !== 'warn') body.push(`      <system-out>${escapeXml(notes.join('\n'))}</system-out>`);
  return [
    `    <testcase classname="${attr(topic.id)}" name="${attr(check.title)}" time="${seconds(check.durationMs)}">`,
    ...body,
    '    </testcase>',
  ].join('\n');
}

function runProperties(result: RunResult, indent: string): string {
  const props = runFacts(result).map(([name, value]) => property(name.toLowerCase().replace(/ /g, '-'), value));
  props.push(property('contract-sha256', result.contract.sha256), property('verdict', result.verdict));
  return `${indent}<properties>\n${props.map((p) => `${indent}  ${p}`).join('\n')}\n${indent}</properties>`;
}

export function renderJunit(result: RunResult): string {
  const s = result.summary;
  const suites = result.topics.map((topic) => {
    const t = topic.summary;
    const time = topic.checks.reduce((sum, c) => sum + c.durationMs, 0);
    return [
      `  <testsuite name="${attr(topic.id)}" tests="${t.total}" failures="${t.failed}" errors="${t.errored}" skipped="${t.skipped}" time="${seconds(time)}" timestamp="${attr(result.startedAt)}">`,
      runProperties(result, '    '),
      ...topic.checks.map((check) => testcase(result, topic, check)),
      '  </testsuite>',
    ].join('\n');
  });
  // Problems outside any check (a suite that failed to load) must still turn a CI run red.
  if (result.harnessErrors.length > 0) {
    suites.push(
      [
        `  <testsuite name="harness" tests="${result.harnessErrors.length}" failures="0" errors="${result.harnessErrors.length}" skipped="0" time="0.000" timestamp="${attr(result.startedAt)}">`,
        ...result.harnessErrors.map(
          (e, i) =>
            `    <testcase classname="harness" name="${attr(`${e.code} #${i + 1}`)}" time="0.000">
      <error message="${attr(e.message)}" type="${attr(e.code)}">${escapeXml(e.message)}</error>
    </testcase>`,
        ),
        '  </testsuite>',
      ].join('\n'),
    );
  }
  const errors = s.errored + result.harnessErrors.length;
  const tests = s.total + result.harnessErrors.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attr(`${result.tool.name} ${result.tool.version}`)}" tests="${tests}" failures="${s.failed}" errors="${errors}" skipped="${s.skipped}" time="${seconds(result.durationMs)}" timestamp="${attr(result.startedAt)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
