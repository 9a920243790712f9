// The gating part of report.md and report.html: the three verdict tiers apart, the baseline
// comparison, and the certification summary. Called by harness/reports/markdown.ts and html.ts;
// prints nothing when the run was not graded.
import type { RunResult } from '../result.ts';
import type { GatingReport, Tier, TierOutcome } from '../gating-model.ts';
import { TIERS } from '../gating-model.ts';

type Escape = (value: string) => string;

const TIER_TITLE: Record<Tier, string> = {
  must: 'must (a failure fails the run)',
  should: 'should (a failure fails the run only with --strict)',
  advisory: 'advisory (notes and findings beyond the document; never fails the run)',
};

function strictTitle(tier: Tier, gating: GatingReport): string {
  if (tier === 'should' && gating.strict) return 'should (--strict: a failure fails the run)';
  return TIER_TITLE[tier];
}

/** The one-line human summary of a certification: how much of the profile it leaves out. */
export function exclusionsSentence(count: number): string {
  if (count === 0) return 'Certified with no exclusions';
  return `Certified with ${count} exclusion${count === 1 ? '' : 's'} (not observable on this target)`;
}

function failingText(outcome: TierOutcome, code: Escape): string {
  return outcome.failing.map((f) => `${code(f.check)} (${code(f.requirement)})${f.known ? ' known in baseline' : ''}`).join(', ');
}

/** Markdown lines; `text` escapes plain text and `code` makes a code span. */
export function gatingMarkdown(result: RunResult, text: Escape, code: Escape): string[] {
  const gating = result.gating;
  if (!gating) return [];
  const out: string[] = [];
  const cert = gating.certification;
  if (cert) {
    const exclusions = cert.exclusions ?? [];
    out.push(`## Certification: ${cert.certified ? 'CERTIFIED' : 'REFUSED'}`, '');
    out.push(
      cert.certified
        ? `${text(exclusionsSentence(exclusions.length))}: every other \`must\` check ran and passed. certificate.json beside this report holds the per-requirement verdicts, the exclusions and the sha256 of each report file; check it with ${code('conformance verify-certificate')}.`
        : 'Certification needs a run of every topic in which every `must` check ran and passed (or cannot be observed on this target). It was refused because:',
      '',
    );
    for (const reason of cert.refusals) out.push(`- ${text(reason)}`);
    if (exclusions.length > 0) {
      if (cert.refusals.length > 0) out.push('');
      out.push(
        cert.certified
          ? 'Excluded: `must` checks this target cannot be made to show (they need the embedded reference, a fault that cannot be forced, or a request a safety rule forbids on a real host); their requirements are not verified by this certificate:'
          : `Not observable on this target (${exclusions.length}; these would be listed as exclusions, not refusals):`,
        '',
      );
      for (const e of exclusions) out.push(`- ${code(e.check)} (${e.requirements.map(code).join(', ')}): ${text(e.reason)}`);
    }
    const m = cert.mustRequirements;
    out.push('', `Must requirements cited by checks: ${m.total}; passed ${m.pass}, failed ${m.fail}, skipped ${m.skipped}, other ${m.other}.`, '');
  }
  out.push('## Verdict tiers', '');
  out.push('| Tier | Checks | Passed | Failed | Skipped | Errors | Failing |', '| --- | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const tier of TIERS) {
    const o = gating.tiers[tier];
    out.push(`| ${text(strictTitle(tier, gating))} | ${o.checks} | ${o.passed} | ${o.failed} | ${o.skipped} | ${o.errored} | ${failingText(o, code) || '-'} |`);
  }
  out.push('', `Advisory findings: ${gating.advisoryFindings} (listed under Advisories).`, '');
  if (gating.blocking.length > 0) {
    out.push('What fails the run:', '', ...gating.blocking.map((b) => `- ${text(b)}`), '');
  }
  const b = gating.baseline;
  if (b) {
    out.push('## Baseline', '');
    out.push(`${code(b.file)}: ${b.entries} known failures; ${b.known.length} still failing as known, ${b.new.length} new, ${b.stale.length} stale, ${b.unconfirmed.length} not confirmed by this run.`, '');
    for (const e of b.new) out.push(`- New (${e.tier}): ${code(e.check)} ${code(e.requirement)}`);
    for (const e of b.stale) out.push(`- Stale, remove it: ${code(e.check)} ${code(e.requirement)}: ${text(e.why)}`);
    for (const e of b.known) out.push(`- Known: ${code(e.check)} ${code(e.requirement)}: ${text(e.reason)}`);
    for (const e of b.unconfirmed) out.push(`- Not confirmed: ${code(e.check)} ${code(e.requirement)}: ${text(e.why)}`);
    out.push('');
  }
  return out;
}

/** An HTML fragment; `h` escapes text. */
export function gatingHtml(result: RunResult, h: (value: string | number) => string): string {
  const gating = result.gating;
  if (!gating) return '';
  const parts: string[] = [];
  const cert = gating.certification;
  if (cert) {
    const exclusions = cert.exclusions ?? [];
    parts.push(`<section id="certification"><h2>Certification: ${cert.certified ? 'CERTIFIED' : 'REFUSED'}</h2>`);
    if (cert.certified) parts.push(`<p>${h(exclusionsSentence(exclusions.length))}.</p>`);
    if (cert.refusals.length > 0) parts.push(`<ul>${cert.refusals.map((r) => `<li>${h(r)}</li>`).join('')}</ul>`);
    if (exclusions.length > 0) {
      parts.push(
        `<p>${cert.certified ? 'Excluded (not observable on this target; their requirements are not verified by this certificate):' : 'Not observable on this target (would be exclusions, not refusals):'}</p>`,
        `<ul class="exclusions">${exclusions.map((e) => `<li><code>${h(e.check)}</code> (${e.requirements.map((r) => `<code>${h(r)}</code>`).join(', ')}): ${h(e.reason)}</li>`).join('')}</ul>`,
      );
    }
    parts.push('</section>');
  }
  const rows = TIERS.map((tier) => {
    const o = gating.tiers[tier];
    const failing = o.failing.map((f) => `<code>${h(f.check)}</code> (${h(f.requirement)})${f.known ? ' known' : ''}`).join(', ');
    return `<tr><td>${h(strictTitle(tier, gating))}</td><td class="n">${o.checks}</td><td class="n">${o.passed}</td><td class="n">${o.failed}</td><td class="n">${o.skipped}</td><td class="n">${o.errored}</td><td>${failing}</td></tr>`;
  }).join('');
  parts.push(
    `<section id="tiers"><h2>Verdict tiers</h2><div class="table-wrap"><table><tr><th>Tier</th><th class="n">checks</th><th class="n">passed</th><th class="n">failed</th><th class="n">skipped</th><th class="n">errors</th><th>failing</th></tr>${rows}</table></div>`,
  );
  if (gating.blocking.length > 0) parts.push(`<ul>${gating.blocking.map((b) => `<li>${h(b)}</li>`).join('')}</ul>`);
  parts.push('</section>');
  const b = gating.baseline;
  if (b) {
    const item = (label: string, e: { check: string; requirement: string }, detail: string) =>
      `<li>${h(label)}: <code>${h(e.check)}</code> <code>${h(e.requirement)}</code> ${h(detail)}</li>`;
    parts.push(
      `<section id="baseline"><h2>Baseline</h2><p><code>${h(b.file)}</code>: ${b.entries} known failures</p><ul>${[
        ...b.new.map((e) => item(`New (${e.tier})`, e, '')),
        ...b.stale.map((e) => item('Stale, remove it', e, e.why)),
        ...b.known.map((e) => item('Known', e, e.reason)),
        ...b.unconfirmed.map((e) => item('Not confirmed', e, e.why)),
      ].join('')}</ul></section>`,
    );
  }
  return parts.join('\n');
}
