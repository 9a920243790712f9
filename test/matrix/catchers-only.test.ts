// The matrix as `npm test` runs it: each defect with only the checks that caught it
// (scripts/catchers.json). What judgeDefect reads comes from those checks alone, so a weakened
// assertion or a removed catcher must still turn it red: proven here on hand-made digests and on
// real runs with an assertion site weakened (suites/support/sites.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOPICS } from '../../core/model.ts';
import type { Defect } from '../../reference/defects.ts';
import { DEFECTS } from '../../reference/defects.ts';
import { readCatchers } from '../../scripts/catchers.ts';
import type { RunDigest } from '../../scripts/matrix.ts';
import { ROOT, catcherSelection, judgeDefect, matrixJobs, runJobs, topicsFor, wholeTopicsAgain } from '../../scripts/matrix.ts';
import { assertionSites } from '../../scripts/sites.ts';
import { requirementById } from '../../spec/requirements.ts';

const catchers = readCatchers();
const defect = { id: 'cursor-not-bound-to-bulk', requirement: 'CUR-BOUND', topic: 'cursors', description: 'x' } as Defect;
const two = { [defect.id]: ['cursors/cursor-bound-to-bulk', 'cursors/cursor-bound-to-filters'] };

/** A catcher-only run: the selected checks, each failing on the defect's requirement unless listed as passing. */
function selectedRun(passing: string[] = [], absent: string[] = []): RunDigest {
  const checks = two[defect.id]!.filter((id) => !absent.includes(id)).map((id) =>
    passing.includes(id) ? { id, status: 'pass', requirements: ['CUR-BOUND'] } : { id, status: 'fail', requirements: ['CUR-BOUND'], failedRequirement: 'CUR-BOUND', failedSite: `cursors.suite.ts:${id.length}` },
  );
  const failed = checks.some((c) => c.status === 'fail');
  return { exitCode: failed ? 1 : 0, verdict: failed ? 'fail' : 'pass', durationMs: 1, harnessErrors: [], topics: [{ id: 'cursors', verdict: failed ? 'fail' : 'pass', checks }] };
}

describe('catcher-only defect runs', () => {
  it('select the checks that caught the defect, within their own topics', () => {
    expect(catcherSelection(defect, two)).toEqual({ topics: ['cursors'], checks: two[defect.id] });
    const job = matrixJobs({ defects: [defect], faithfulSeeds: [], catchersOnly: true }, two).find((j) => j.defect === defect.id)!;
    expect(job.checks).toEqual(two[defect.id]);
    expect(job.topics).toEqual(['cursors']);
    // npm run matrix (no catchersOnly) keeps the whole topics.
    const whole = matrixJobs({ defects: [defect], faithfulSeeds: [] }, two).find((j) => j.defect === defect.id)!;
    expect(whole.checks).toBeUndefined();
    expect(whole.topics).toEqual(topicsFor(defect));
  });

  it('run whole topics for a defect without recorded catchers; a catcher that reads the whole run is selected like another (its miss runs whole topics)', () => {
    expect(catcherSelection(defect, {})).toBeUndefined();
    expect(catcherSelection(defect, { [defect.id]: [] })).toBeUndefined();
    const withReader = ['cursors/cursor-bound-to-bulk', 'schemas/bodies-match-schemas'];
    expect(catcherSelection(defect, { [defect.id]: withReader })).toEqual({ topics: TOPICS.filter((t) => t === 'cursors' || t === 'schemas'), checks: withReader });
    const job = matrixJobs({ defects: [defect], faithfulSeeds: [], catchersOnly: true }, {}).find((j) => j.defect === defect.id)!;
    expect(job.checks).toBeUndefined();
    expect(job.topics).toEqual(topicsFor(defect));
  });

  it('for every defect of the registry: a must is selected with a check of its own topic, and no topic beyond its whole run', () => {
    for (const d of DEFECTS) {
      const selected = catcherSelection(d, catchers);
      if (!selected) continue;
      expect(selected.checks.every((id) => selected.topics.includes(id.split('/')[0] as never)), d.id).toBe(true);
      expect(selected.topics.every((t) => topicsFor(d).includes(t)), d.id).toBe(true);
      if (requirementById(d.requirement)?.level !== 'should') expect(selected.topics, d.id).toContain(d.topic);
    }
    expect(DEFECTS.filter((d) => catcherSelection(d, catchers)).length).toBeGreaterThan(DEFECTS.length / 2);
  });

  it('names the requirements written at each assertion site, for the defects a site left unproven is looked for in first', () => {
    const sites = assertionSites(join(ROOT, 'suites'));
    const lines = readFileSync(join(ROOT, 'suites', 'idempotency.suite.ts'), 'utf8').split('\n');
    // A multi-line t.expect: its requirement a few lines below the call, not the next site's.
    const at = lines.findIndex((l, i) => /t\.expect\($/.test(l.trim()) && lines.slice(i + 1, i + 4).some((n) => n.includes("'IDEM-KEY-LENGTH'")));
    expect(at).toBeGreaterThan(0);
    expect(sites.find((s) => s.id === `idempotency.suite.ts:${at + 1}`)?.requirements).toEqual(['IDEM-KEY-LENGTH']);
    // Most sites name theirs; a site that takes it from a variable names none.
    expect(sites.filter((s) => s.requirements.length > 0).length).toBeGreaterThan(sites.length / 2);
    expect(sites.flatMap((s) => s.requirements).filter((r) => requirementById(r) === undefined), 'quoted ids that are no requirement').toEqual([]);
  });

  it('a miss runs again with whole topics (a catcher may need a sibling check\'s requests); a whole-topics run does not', () => {
    const [job] = matrixJobs({ defects: [defect], faithfulSeeds: [], catchersOnly: true }, two);
    const again = wholeTopicsAgain(job!)!;
    expect(again.checks).toBeUndefined();
    expect(again.topics).toEqual(topicsFor(defect));
    expect(again.key).not.toBe(job!.key);
    expect(wholeTopicsAgain(again)).toBeUndefined();
  });

  it('still report a lost catcher: one selected check that passes (a weakened assertion) or is gone (a removed check)', () => {
    expect(judgeDefect(defect, ['cursors'], selectedRun(), 'in-process', undefined, undefined, two[defect.id]).caught).toBe(true);
    const weakened = judgeDefect(defect, ['cursors'], selectedRun(['cursors/cursor-bound-to-filters']), 'in-process', undefined, undefined, two[defect.id]);
    expect(weakened.caught).toBe(false);
    expect(weakened.why.join('; ')).toContain('no longer caught by cursors/cursor-bound-to-filters');
    const removed = judgeDefect(defect, ['cursors'], selectedRun([], ['cursors/cursor-bound-to-bulk']), 'in-process', undefined, undefined, two[defect.id]);
    expect(removed.caught).toBe(false);
    expect(removed.why.join('; ')).toContain('no longer caught by cursors/cursor-bound-to-bulk');
  });

  it('on real runs: caught with its catchers alone, missed with the site of its one catcher weakened', async () => {
    const unrendered = DEFECTS.find((d) => d.id === 'message-unrendered')!;
    const lines = readFileSync(join(ROOT, 'suites', 'messages.suite.ts'), 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes("'MSG-RENDERED-CONTENT'") && l.includes('t.expect('));
    const site = assertionSites(join(ROOT, 'suites')).find((s) => s.id === `messages.suite.ts:${line + 1}`)!;
    expect(site).toBeDefined();
    const [job] = matrixJobs({ defects: [unrendered], faithfulSeeds: [], catchersOnly: true, cliDefect: 'none' }, catchers);
    expect(job!.checks).toEqual(catchers[unrendered.id]);
    expect(job!.topics.length).toBeLessThan(TOPICS.length);
    const weakened = { ...job!, key: `${job!.key}-weakened`, weaken: site.id };
    const digests = await runJobs([job!, weakened], { concurrency: 2, catchers });
    const judge = (key: string) => judgeDefect(unrendered, job!.topics, digests.get(key)!, 'in-process', undefined, undefined, catchers[unrendered.id]);
    expect(judge(job!.key).caught, judge(job!.key).why.join('; ')).toBe(true);
    expect(judge(job!.key).sites).toContain(site.id);
    const missed = judge(weakened.key);
    expect(missed.caught).toBe(false);
    expect(missed.why.join('; ')).toContain('no longer caught by');
  }, 120_000);
});
