// report.html: one self-contained page (inline CSS and JS, no external asset, no network; a
// Content-Security-Policy forbids any fetch and allows only this page's own script and style by
// hash). Stable hooks for tests and tooling: `data-testid` on the verdict and counts,
// `data-filter` on the filter buttons, `data-status` on each check row, `data-topic` on topics.
import { MATRIX_TITLE, anchorOf, brokenCells, callerBlocks, cellText, matrixSummary, type MatrixEntry } from './matrix.ts';
import { gatingHtml } from './gating.ts';
import { createHash } from 'node:crypto';
import type { CheckStatus } from '../../core/model.ts';
import type { CheckResult, RequirementResult, RunResult, TopicResult } from '../result.ts';
import { CHECK_STATUS_LABEL, READINGS_INTRO, REQUIREMENT_STATUS_ORDER, SKIP_KIND_LABEL, VERDICT_LABEL, formatRequest, formatResponse, runFacts } from './text.ts';

/** Every string that reaches the page goes through here. */
export function escapeHtml(value: string | number): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
const h = escapeHtml;

/** Ids used in anchors: the topic ids are fixed and safe, but nothing is trusted. */
const anchor = (value: string) => value.replace(/[^A-Za-z0-9_-]/g, '_');

const FILTERS: Array<{ filter: 'all' | CheckStatus; label: string }> = [
  { filter: 'all', label: 'All' },
  { filter: 'fail', label: 'Failed' },
  { filter: 'warn', label: 'Warned' },
  { filter: 'skip', label: 'Skipped' },
  { filter: 'pass', label: 'Passed' },
  { filter: 'error', label: 'Error' },
];

const STYLE = `
:root{--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--skip:#6e7781;--error:#8250df;--untested:#afb8c1;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--code:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1100px;margin:0 auto;padding:12px}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.2em;margin:1.2em 0 .4em}h3{font-size:1em;margin:.2em 0}
.badge{display:inline-block;padding:0 .5em;border-radius:4px;color:#fff;font-weight:600;font-size:.85em;vertical-align:middle}
.s-pass{background:var(--pass)}.s-fail{background:var(--fail)}.s-warn{background:var(--warn)}.s-skip,.s-skipped,.s-recorded{background:var(--skip)}.s-error{background:var(--error)}.s-untested{background:var(--untested);color:var(--fg)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:.5em 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
.counts{display:flex;flex-wrap:wrap;gap:8px;margin:.6em 0;padding:0;list-style:none}
.counts li{border:1px solid var(--line);border-radius:6px;padding:4px 10px}
.counts b{font-size:1.2em}
.filters{display:flex;flex-wrap:wrap;gap:6px;margin:.6em 0;position:sticky;top:0;background:var(--bg);padding:6px 0;z-index:1}
.filters button{font:inherit;padding:6px 12px;border:1px solid var(--line);border-radius:16px;background:var(--bg);cursor:pointer;min-height:36px}
.filters button[aria-pressed=true]{background:var(--fg);color:var(--bg)}
nav ul{padding-left:1.2em;margin:.3em 0}
.check{border:1px solid var(--line);border-left-width:5px;border-radius:4px;margin:6px 0;padding:6px 8px}
.check[data-status=pass]{border-left-color:var(--pass)}.check[data-status=fail]{border-left-color:var(--fail)}.check[data-status=warn]{border-left-color:var(--warn)}.check[data-status=skip]{border-left-color:var(--skip)}.check[data-status=error]{border-left-color:var(--error)}
.check summary{cursor:pointer;overflow-wrap:anywhere}
.meta{color:var(--muted);font-size:.9em}
pre{background:var(--code);padding:8px;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85em;margin:.3em 0}
code{font-size:.9em;overflow-wrap:anywhere}
.table-wrap{overflow-x:auto}
.matrix td.cell{font-size:13px;white-space:nowrap}.matrix .v-fail{color:var(--fail);font-weight:600}.matrix .v-warn{color:var(--warn);font-weight:600}.matrix .v-skip{color:var(--skip)}.matrix .v-recorded{color:var(--muted)}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}
[hidden]{display:none!important}
@media (max-width:600px){body{font-size:14px}main{padding:8px}dl.facts{grid-template-columns:1fr}dl.facts dt{margin-top:4px}}
`;

const SCRIPT = `
(function () {
  var buttons = document.querySelectorAll('button[data-filter]');
  function apply(filter) {
    document.querySelectorAll('.check[data-status]').forEach(function (row) {
      row.hidden = filter !== 'all' && row.getAttribute('data-status') !== filter;
    });
    document.querySelectorAll('section[data-topic]').forEach(function (topic) {
      topic.hidden = filter !== 'all' && !topic.querySelector('.check[data-status="' + filter + '"]');
    });
    buttons.forEach(function (b) { b.setAttribute('aria-pressed', String(b.getAttribute('data-filter') === filter)); });
  }
  buttons.forEach(function (b) {
    b.addEventListener('click', function () { apply(b.getAttribute('data-filter')); });
  });
  apply('all');
})();
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

function badge(status: string, label: string): string {
  return `<span class="badge s-${h(status)}">${h(label)}</span>`;
}

function evidenceBlock(check: CheckResult): string {
  return check.evidence
    .map(
      (exchange, i) => `<details class="exchange"><summary>Exchange ${i + 1}: ${h(exchange.request.method)} ${h(exchange.request.url)} → ${h(exchange.response ? String(exchange.response.status) : 'no response')}</summary>
<h3>Request</h3><pre>${h(formatRequest(exchange))}</pre>
<h3>Response</h3><pre>${h(formatResponse(exchange))}</pre>
<h3>Replay</h3><pre>${h(exchange.curl)}</pre>
</details>`,
    )
    .join('\n');
}

function checkRow(result: RunResult, check: CheckResult): string {
  const parts: string[] = [];
  if (check.failure) {
    const requirement = result.requirements.find((r) => r.id === check.failure?.requirement);
    parts.push(
      `<p>Requirement <code>${h(check.failure.requirement)}</code> (section ${h(check.failure.section)}${requirement ? `, ${h(requirement.level)}` : ''})${requirement ? `: ${h(requirement.text)}` : ''}</p>`,
      `<dl class="facts"><dt>Expected</dt><dd>${h(check.failure.expected)}</dd><dt>Actual</dt><dd>${h(check.failure.actual)}</dd></dl>`,
    );
  } else if (check.reason) {
    if (check.status === 'skip') {
      const kind = check.skipKind ?? 'precondition';
      parts.push(`<p class="reason" data-skip-kind="${h(kind)}"><span class="meta">Skipped, ${h(SKIP_KIND_LABEL[kind])}:</span> ${h(check.reason)}</p>`);
    } else parts.push(`<p class="reason">${h(check.reason)}</p>`);
  }
  if (check.requirements.length > 0) {
    parts.push(`<p class="meta">Cites ${check.requirements.map((id) => `<code>${h(id)}</code>`).join(', ')}</p>`);
  }
  if (check.seed !== undefined) parts.push(`<p class="meta">Seed <code>${h(check.seed)}</code></p>`);
  if (check.counterexample !== undefined) parts.push(`<p class="meta">Counterexample <code>${h(check.counterexample)}</code></p>`);
  if (check.notes.length > 0) parts.push(`<ul class="notes">${check.notes.map((n) => `<li>Note: ${h(n)}</li>`).join('')}</ul>`);
  if (check.advisories.length > 0) {
    parts.push(`<ul class="advisories">${check.advisories.map((n) => `<li>Advisory: ${h(n)}</li>`).join('')}</ul>`);
  }
  parts.push(evidenceBlock(check));
  const open = check.status === 'fail' || check.status === 'error' ? ' open' : '';
  return `<div class="check" data-status="${h(check.status)}" data-check="${h(check.id)}">
<details${open}><summary>${badge(check.status, CHECK_STATUS_LABEL[check.status])} ${h(check.title)} <span class="meta">${h(check.id)} · ${h(check.durationMs)} ms</span></summary>
${parts.join('\n')}
</details></div>`;
}

function topicSection(result: RunResult, topic: TopicResult): string {
  const s = topic.summary;
  return `<section data-topic="${h(topic.id)}" id="topic-${anchor(topic.id)}">
<h2>${h(topic.id)} ${badge(topic.verdict, VERDICT_LABEL[topic.verdict])}</h2>
<p class="meta">${s.total} checks: ${s.passed} passed, ${s.failed} failed, ${s.warned} warned, ${s.skipped} skipped, ${s.errored} errors</p>
${topic.checks.length === 0 ? '<p class="meta">No checks ran for this topic.</p>' : topic.checks.map((c) => checkRow(result, c)).join('\n')}
</section>`;
}

function requirementRow(r: RequirementResult): string {
  const assumption = r.assumption ? `<br><span class="meta">Assumption: ${h(r.assumption)}</span>` : '';
  return `<tr data-requirement-status="${h(r.status)}"><td><code>${h(r.id)}</code></td><td>${h(r.level)}</td><td>${badge(r.status, r.status)}</td><td>${h(r.text)}${assumption}</td></tr>`;
}

function coverage(result: RunResult): string {
  if (result.requirements.length === 0) return '<p class="meta">The catalogue is empty.</p>';
  const head = `<tr><th>Section</th>${REQUIREMENT_STATUS_ORDER.map((s) => `<th class="n">${h(s)}</th>`).join('')}<th class="n">total</th></tr>`;
  const tiers = Object.entries(result.tiers)
    .filter(([, c]) => c.total > 0)
    .map(
      ([level, c]) =>
        `<tr><td>${h(level)}</td>${REQUIREMENT_STATUS_ORDER.map((s) => `<td class="n">${c[s]}</td>`).join('')}<td class="n">${c.total}</td></tr>`,
    )
    .join('');
  const rows = result.sections
    .map(
      (sec) =>
        `<tr><td>${h(sec.section)}${sec.title ? ` ${h(sec.title)}` : ''}</td>${REQUIREMENT_STATUS_ORDER.map((s) => `<td class="n">${sec.counts[s]}</td>`).join('')}<td class="n">${sec.counts.total}</td></tr>`,
    )
    .join('');
  const bySection = result.sections
    .map((sec) => {
      const reqs = sec.requirements
        .map((id) => result.requirements.find((r) => r.id === id))
        .filter((r): r is RequirementResult => r !== undefined);
      return `<details class="section-coverage" data-section="${h(sec.section)}"><summary>Section ${h(sec.section)}${sec.title ? ` ${h(sec.title)}` : ''}: ${sec.counts.pass} of ${sec.counts.total} passed</summary>
<div class="table-wrap"><table><tr><th>Requirement</th><th>Level</th><th>Status</th><th>Rule</th></tr>${reqs.map(requirementRow).join('')}</table></div></details>`;
    })
    .join('\n');
  return `<div class="table-wrap"><table><tr><th>Level</th>${REQUIREMENT_STATUS_ORDER.map((s) => `<th class="n">${h(s)}</th>`).join('')}<th class="n">total</th></tr>${tiers}</table></div>
<div class="table-wrap"><table>${head}${rows}</table></div>
${bySection}`;
}

/** Operations down, caller × object across (a block per caller), failed cells linked to their curl line. */
function matrixSection(result: RunResult): string {
  const matrix = result.authorizationMatrix;
  if (!matrix) return '';
  const cell = (c: MatrixEntry | undefined) => {
    if (!c) return '<td></td>';
    const target = anchorOf(matrix, c);
    const body = target ? `<a href="#${target}">${h(cellText(c))}</a>` : h(cellText(c));
    return `<td class="cell v-${h(c.verdict)}" title="${h(`expected ${c.expected}${c.reason ? `; ${c.reason}` : ''}`)}">${body}</td>`;
  };
  const blocks = callerBlocks(matrix)
    .map(
      (b) => `<h3>${h(b.caller)} <span class="meta">(${h(b.check)})</span></h3>
<table class="matrix"><thead><tr><th>operation</th>${b.objects.map((o) => `<th>${h(o)}</th>`).join('')}</tr></thead><tbody>
${b.rows.map((r) => `<tr><th>${h(r.operation)}</th>${r.cells.map(cell).join('')}</tr>`).join('\n')}
</tbody></table>`,
    )
    .join('\n');
  const broken = brokenCells(matrix)
    .map(
      ({ anchor: id, cell: c }) =>
        `<li id="${h(id)}">${badge(c.verdict, c.verdict.toUpperCase())} <code>${h(c.operation)}</code> as ${h(c.caller)} on ${h(c.object)}: ${h(c.answer ?? '')}, expected ${h(c.expected)} (<code>${h(c.requirement ?? '')}</code>): ${h(c.reason ?? '')}<pre>${h(c.request ?? '')}\n${h(c.curl ?? '')}</pre></li>`,
    )
    .join('');
  return `<section id="authorization-matrix"><h2>${h(MATRIX_TITLE)}</h2>
<p>${h(matrixSummary(matrix))}</p>
${blocks}
${broken ? `<h3>Failed and warned cells</h3><ul>${broken}</ul>` : ''}
</section>`;
}

/** One line per reading the target took; a warning names what breaks for a client. */
function readingsHtml(result: RunResult): string {
  if (result.readings.length === 0) return '';
  const line = (r: RunResult['readings'][number]) =>
    `<li title="${h(r.checks.join(', '))}">${h(r.section)} ${h(r.title)}: ${
      r.grade === 'warning' ? `${badge('warn', 'warning')} <b>${h(r.answer)}</b>: ${h(r.breaks ?? '')}` : h(r.answer)
    }</li>`;
  return `<section id="readings"><h2>Readings</h2><p class="meta">${h(READINGS_INTRO)}</p><ul>${result.readings.map(line).join('')}</ul></section>`;
}

function list(title: string, items: string[]): string {
  return items.length === 0 ? '' : `<h2>${h(title)}</h2><ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul>`;
}

export function renderHtml(result: RunResult): string {
  const s = result.summary;
  // Built only from constants and base64 digests (no quote, no markup), so it needs no escaping.
  const csp = `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; img-src 'none'; form-action 'none'; base-uri 'none'`;
  const counts: Array<[string, string, number]> = [
    ['total', 'checks', s.total],
    ['passed', 'passed', s.passed],
    ['failed', 'failed', s.failed],
    ['warned', 'warned', s.warned],
    ['skipped', 'skipped', s.skipped],
    ['errored', 'errors', s.errored],
  ];
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<title>Conformance report: ${h(VERDICT_LABEL[result.verdict])}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
<h1>Conformance report <span data-testid="verdict" data-verdict="${h(result.verdict)}">${badge(result.verdict, VERDICT_LABEL[result.verdict])}</span></h1>
<ul class="counts">${counts.map(([id, label, n]) => `<li><b data-testid="count-${id}">${n}</b> ${h(label)}</li>`).join('')}</ul>
<dl class="facts">${runFacts(result)
    .map(([name, value]) => `<dt>${h(name)}</dt><dd>${h(value)}</dd>`)
    .join('')}</dl>
</header>
${list(
  'Harness errors',
  result.harnessErrors.map((e) => `<code>${h(e.code)}</code> ${h(e.message)}`),
)}
${gatingHtml(result, h)}
${readingsHtml(result)}
<nav><h2>Topics</h2><ul>${result.topics
    .map(
      (t) =>
        `<li><a href="#topic-${anchor(t.id)}">${h(t.id)}</a> ${badge(t.verdict, VERDICT_LABEL[t.verdict])} <span class="meta">${t.summary.passed}/${t.summary.total} passed</span></li>`,
    )
    .join('')}${result.authorizationMatrix ? `<li><a href="#authorization-matrix">${h(MATRIX_TITLE)}</a></li>` : ''}<li><a href="#coverage">Requirement coverage</a></li></ul></nav>
<div class="filters" role="group" aria-label="Show checks by status">${FILTERS.map(
    ({ filter, label }) => `<button type="button" data-filter="${filter}" aria-pressed="${filter === 'all'}">${h(label)}</button>`,
  ).join('')}</div>
${result.topics.map((t) => topicSection(result, t)).join('\n')}
${matrixSection(result)}
${list(
  'Other notes',
  result.notes.map((n) => `<code>${h(n.check)}</code> ${h(n.text)}`),
)}
${list(
  'Assumptions applied (where the document is silent)',
  result.assumptions.map((a) => `<code>${h(a.requirement)}</code> ${h(a.text)}`),
)}
${list(
  'Advisories (beyond the document, never failing)',
  result.advisories.map((a) => `<code>${h(a.check)}</code> ${h(a.text)}`),
)}
<section id="coverage"><h2>Requirement coverage by section</h2>
${coverage(result)}
</section>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
