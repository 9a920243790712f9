// The matrix's judgement on hand-made run digests: a defect counts as caught only when the verdict
// is fail, its topic failed and a failed check cites its requirement; a faithful run only when
// everything passed. Fast, so a matrix that could never say "missed" is caught here.
import { describe, expect, it } from 'vitest';
import { TOPICS } from '../../core/model.ts';
import type { Defect } from '../../reference/defects.ts';
import { DEFECTS } from '../../reference/defects.ts';
import type { RunDigest } from '../../scripts/matrix.ts';
import { catchersNotMet, hostJobs, judgeDefect, judgeFaithful, laterToo, matrixJobs, spendsFixtures, topicsFor, trafficLine, unstableChecks } from '../../scripts/matrix.ts';

const defect = { id: 'request-id-ignored', requirement: 'RID-ECHO', topic: 'request-id', description: 'x' } as Defect;

function digest(over: Partial<RunDigest> = {}): RunDigest {
  return {
    exitCode: 1,
    verdict: 'fail',
    durationMs: 1,
    harnessErrors: [],
    topics: [
      {
        id: 'request-id',
        verdict: 'fail',
        checks: [
          { id: 'request-id/echo', status: 'fail', requirements: ['RID-ECHO'], failedRequirement: 'RID-ECHO' },
          { id: 'request-id/every', status: 'pass', requirements: ['RID-EVERY-RESPONSE'] },
        ],
      },
    ],
    ...over,
  };
}

describe('judgeDefect', () => {
  it('catches: verdict fail, topic failed, a failed check cites the requirement', () => {
    const outcome = judgeDefect(defect, ['request-id'], digest(), 'in-process');
    expect(outcome.caught).toBe(true);
    expect(outcome.citingChecks).toEqual(['request-id/echo']);
    expect(outcome.why).toEqual([]);
  });

  it('misses when the run passed', () => {
    const passed = digest({
      verdict: 'pass',
      exitCode: 0,
      topics: [{ id: 'request-id', verdict: 'pass', checks: [{ id: 'request-id/echo', status: 'pass', requirements: ['RID-ECHO'] }] }],
    });
    const outcome = judgeDefect(defect, ['request-id'], passed, 'in-process');
    expect(outcome.caught).toBe(false);
    expect(outcome.why.join('; ')).toContain('verdict pass');
  });

  it('catches a should-level defect when a citing check warns and the run still passes; misses it when nothing warns', () => {
    const levelOf = () => 'should';
    const warned = digest({
      verdict: 'pass',
      exitCode: 0,
      topics: [{ id: 'request-id', verdict: 'pass', checks: [{ id: 'request-id/echo', status: 'warn', requirements: ['RID-ECHO'], failedRequirement: 'RID-ECHO' }] }],
    });
    expect(judgeDefect(defect, ['request-id'], warned, 'in-process', levelOf).caught).toBe(true);
    const quiet = digest({
      verdict: 'pass',
      exitCode: 0,
      topics: [{ id: 'request-id', verdict: 'pass', checks: [{ id: 'request-id/echo', status: 'pass', requirements: ['RID-ECHO'] }] }],
    });
    const missed = judgeDefect(defect, ['request-id'], quiet, 'in-process', levelOf);
    expect(missed.caught).toBe(false);
    expect(missed.why).toContain('no warned check names RID-ECHO');
    // A should-level break that fails the run is graded too hard: not a catch either.
    expect(judgeDefect(defect, ['request-id'], digest(), 'in-process', levelOf).caught).toBe(false);
  });

  it('fails a faithful run with a warned check', () => {
    const warned = digest({
      verdict: 'pass',
      exitCode: 0,
      topics: TOPICS.map((id) => ({ id, verdict: 'pass', checks: [{ id: `${id}/x`, status: id === 'wallet' ? 'warn' : 'pass', requirements: [] }] })),
    });
    expect(judgeFaithful(1, warned, 'in-process').why).toContain('warn: wallet/x');
  });

  it('misses when only another requirement failed', () => {
    const other = digest({
      topics: [{ id: 'request-id', verdict: 'fail', checks: [{ id: 'request-id/every', status: 'fail', requirements: ['RID-EVERY-RESPONSE'], failedRequirement: 'RID-EVERY-RESPONSE' }] }],
    });
    const outcome = judgeDefect(defect, ['request-id'], other, 'in-process');
    expect(outcome.caught).toBe(false);
    expect(outcome.why).toContain('no failed check names RID-ECHO');
  });

  it('requirement-exact: a check that cites the requirement but failed on another rule is "caught by another rule", not a catch', () => {
    const elsewhere = digest({
      topics: [{ id: 'request-id', verdict: 'fail', checks: [{ id: 'request-id/echo', status: 'fail', requirements: ['RID-ECHO', 'RID-FORMAT'], failedRequirement: 'RID-FORMAT' }] }],
    });
    const outcome = judgeDefect(defect, ['request-id'], elsewhere, 'in-process');
    expect(outcome.caught).toBe(false);
    expect(outcome.otherRule).toEqual(['request-id/echo (RID-FORMAT)']);
    expect(outcome.why.join('; ')).toContain('caught by another rule');
  });

  it('misses when a check that caught the defect (scripts/catchers.json) no longer does, though another still does', () => {
    const outcome = judgeDefect(defect, ['request-id'], digest(), 'in-process', undefined, undefined, ['request-id/echo', 'request-id/every']);
    expect(outcome.caught).toBe(false);
    expect(outcome.why).toEqual(['no longer caught by request-id/every (scripts/catchers.json)']);
    expect(judgeDefect(defect, ['request-id'], digest(), 'in-process', undefined, undefined, ['request-id/echo']).caught).toBe(true);
  });

  it('under another defect seed, lists the recorded catchers that did not catch apart (catchersNotMet), and judges without them', () => {
    const outcome = judgeDefect(defect, ['request-id'], digest(), 'in-process');
    expect(outcome.caught).toBe(true);
    expect(catchersNotMet([outcome], { [defect.id]: ['request-id/echo', 'request-id/every'] })).toEqual(['request-id-ignored: request-id/every']);
    expect(catchersNotMet([outcome], { [defect.id]: ['request-id/echo'] })).toEqual([]);
  });

  it('records the assertion site of the failure that caught it', () => {
    const sited = digest({
      topics: [{ id: 'request-id', verdict: 'fail', checks: [{ id: 'request-id/echo', status: 'fail', requirements: ['RID-ECHO'], failedRequirement: 'RID-ECHO', failedSite: 'request-id.suite.ts:150' }] }],
    });
    expect(judgeDefect(defect, ['request-id'], sited, 'in-process').sites).toEqual(['request-id.suite.ts:150']);
  });

  it('in host mode, lists as not shown a defect whose embedded catchers were skipped as not observable', () => {
    const skipped = digest({
      verdict: 'pass',
      exitCode: 0,
      topics: [{ id: 'request-id', verdict: 'pass', checks: [{ id: 'request-id/echo', status: 'skip', skipKind: 'not-observable', reason: 'needs the clock', requirements: ['RID-ECHO'] }] }],
    });
    const outcome = judgeDefect(defect, ['request-id'], skipped, 'in-process', undefined, { embeddedCatchers: ['request-id/echo'] });
    expect(outcome.caught).toBe(false);
    expect(outcome.notShown).toEqual(['request-id/echo: needs the clock']);
    // A precondition skip is not "not shown": the user could supply it.
    const precondition = digest({ ...skipped, topics: [{ id: 'request-id', verdict: 'pass', checks: [{ id: 'request-id/echo', status: 'skip', skipKind: 'precondition', requirements: ['RID-ECHO'] }] }] });
    expect(judgeDefect(defect, ['request-id'], precondition, 'in-process', undefined, { embeddedCatchers: ['request-id/echo'] }).notShown).toBeUndefined();
    // Embedded mode never lists a defect as not shown.
    expect(judgeDefect(defect, ['request-id'], skipped, 'in-process').notShown).toBeUndefined();
  });

  it('in host mode run twice against one host, counts a defect only when the later run judges it alike', () => {
    const host = { embeddedCatchers: ['request-id/echo'] };
    const caught = judgeDefect(defect, ['request-id'], digest(), 'in-process', undefined, host);
    // The later run met its fixture spent and skipped for the precondition: the defect escaped there.
    const spent = digest({ verdict: 'pass', exitCode: 0, topics: [{ id: 'request-id', verdict: 'pass', checks: [{ id: 'request-id/echo', status: 'skip', skipKind: 'precondition', requirements: ['RID-ECHO'] }] }] });
    const escaped = laterToo(caught, judgeDefect(defect, ['request-id'], spent, 'in-process', undefined, host));
    expect(escaped).toMatchObject({ caught: false, laterRun: 'missed' });
    expect(escaped.notShown).toBeUndefined();
    expect(escaped.why.some((w) => w.startsWith('later run: '))).toBe(true);
    expect(laterToo(caught, caught)).toMatchObject({ caught: true, laterRun: 'caught' });
    const notShown = digest({ verdict: 'pass', exitCode: 0, topics: [{ id: 'request-id', verdict: 'pass', checks: [{ id: 'request-id/echo', status: 'skip', skipKind: 'not-observable', reason: 'r', requirements: ['RID-ECHO'] }] }] });
    const both = judgeDefect(defect, ['request-id'], notShown, 'in-process', undefined, host);
    expect(laterToo(both, both)).toMatchObject({ caught: false, notShown: ['request-id/echo: r'], laterRun: 'not shown' });
  });

  it('runs every defect a webhook deactivation shows, and the first faithful host run, twice against one host', () => {
    const jobs = hostJobs({ faithfulSeeds: [1, 2], rateLimits: [], defectSeed: 3 });
    const again = jobs.filter((j) => j.host?.again).map((j) => j.key);
    expect(again).toContain('host-faithful-1');
    expect(again).not.toContain('host-faithful-2');
    for (const d of DEFECTS.filter((x) => x.topic === 'webhooks')) expect(again, d.id).toContain(`host-defect-${d.id}`);
    expect(DEFECTS.filter(spendsFixtures).length).toBeLessThan(DEFECTS.length / 4);
  });

  it('misses when another topic failed but not the defect\'s', () => {
    const elsewhere = digest({
      topics: [
        { id: 'request-id', verdict: 'pass', checks: [] },
        { id: 'messages', verdict: 'fail', checks: [{ id: 'messages/x', status: 'fail', requirements: ['RID-ECHO'] }] },
      ],
    });
    const outcome = judgeDefect(defect, ['request-id', 'messages'], elsewhere, 'in-process');
    expect(outcome.caught).toBe(false);
    expect(outcome.why.join('; ')).toContain('topic request-id pass');
  });

  it('misses when the run could not be made, or exited other than 1', () => {
    expect(judgeDefect(defect, ['request-id'], digest({ error: 'timed out' }), 'cli').caught).toBe(false);
    expect(judgeDefect(defect, ['request-id'], digest({ exitCode: 2 }), 'cli').caught).toBe(false);
  });
});

describe('check on the runs\' own traffic', () => {
  it('caught only by a finding naming the requirement; shown when a traffic check of it judged an exchange', () => {
    const judge = (traffic: RunDigest['traffic']) => judgeDefect(defect, ['request-id'], digest({ traffic }), 'in-process').traffic;
    expect(judge({ broken: ['RID-ECHO'], judged: ['RID-ECHO'] })).toBe('caught');
    expect(judge({ broken: ['RID-FORMAT'], judged: ['RID-ECHO', 'RID-FORMAT'] })).toBe('shown');
    expect(judge({ broken: [], judged: ['RID-FORMAT'] })).toBe('not shown');
    expect(judge(undefined)).toBeUndefined();
    expect(judge({ broken: [], judged: [], error: 'truncated' })).toBe('judge error');
  });

  it('prints caught / shown beside the names of the shown defects it missed', () => {
    const outcome = (id: string, traffic?: 'caught' | 'shown' | 'not shown' | 'judge error') => ({ ...judgeDefect({ ...defect, id }, ['request-id'], digest(), 'in-process'), ...(traffic ? { traffic } : {}) });
    const line = trafficLine([outcome('a', 'caught'), outcome('b', 'shown'), outcome('c', 'not shown'), outcome('d')]);
    expect(line).toBe("check on the same runs' exchanges.jsonl: 1/2 defects caught of those the traffic shows (1 of 3 not shown by a recording); shown, not caught: b");
    expect(trafficLine([outcome('d')])).toBeUndefined();
    expect(trafficLine([outcome('a', 'caught'), outcome('e', 'judge error')])).toBe(
      "check on the same runs' exchanges.jsonl: 1/1 defects caught of those the traffic shows (0 of 2 not shown by a recording); JUDGE ERROR on the logs of e",
    );
  });
});

describe('judgeFaithful', () => {
  const whole = (status: string): RunDigest => ({
    exitCode: status === 'pass' ? 0 : 1,
    verdict: status === 'pass' ? 'pass' : 'fail',
    durationMs: 1,
    harnessErrors: [],
    topics: TOPICS.map((t) => ({ id: t, verdict: status, checks: [{ id: `${t}/a`, status, requirements: [] }] })),
  });

  it('passes a whole run where every check passed', () => {
    expect(judgeFaithful(1, whole('pass'), 'in-process').passed).toBe(true);
  });

  it('fails a run with a failed check, naming it', () => {
    const outcome = judgeFaithful(1, whole('fail'), 'in-process');
    expect(outcome.passed).toBe(false);
    expect(outcome.why.join('; ')).toContain('fail: wallet/a');
  });

  it('fails a run that left topics out or hit harness errors', () => {
    const partial = { ...whole('pass'), topics: whole('pass').topics.slice(1) };
    expect(judgeFaithful(1, partial, 'in-process').why.join('; ')).toContain('topics absent from the whole run: auth-ordering');
    expect(judgeFaithful(1, { ...whole('pass'), harnessErrors: ['SUITE_MISSING: x'] }, 'in-process').passed).toBe(false);
  });

  it('unstableChecks names a check whose status changed between seeds', () => {
    const a = judgeFaithful(1, whole('pass'), 'in-process');
    const b = { ...judgeFaithful(2, whole('pass'), 'in-process'), statuses: { ...a.statuses, 'wallet/a': 'skip' } };
    expect(unstableChecks([a, a])).toEqual([]);
    expect(unstableChecks([a, b])).toEqual(['wallet/a: seed 1=pass, seed 2=skip']);
  });
});

describe('matrix jobs', () => {
  it('one job per defect, five whole faithful runs, exactly one run through the CLI', () => {
    const jobs = matrixJobs();
    expect(jobs.filter((j) => j.kind === 'faithful').map((j) => j.topics.length)).toEqual(Array(5).fill(TOPICS.length));
    expect(jobs.filter((j) => j.via === 'cli')).toHaveLength(1);
    expect(new Set(jobs.map((j) => j.key)).size).toBe(jobs.length);
  });

  it('a defect run always selects the defect\'s own topic', () => {
    for (const d of DEFECTS) expect(topicsFor(d), d.id).toContain(d.topic);
    expect(topicsFor(defect)).toEqual(['request-id']);
  });
});
