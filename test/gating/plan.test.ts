// The request plan against what really reaches the host: counting proxies in front of the
// embedded reference's API and token endpoint record every request of a run; the plan, collected
// before, must cover them, in total, per topic and check by check, and stay near them. A check is
// held to its budget, a write it did not declare is refused, and what it declares (writes, the
// control origin) is what the plan counts and the run does.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunConfig } from '../../harness/config.ts';
import { loadConfig } from '../../harness/config.ts';
import { collectPlan, formatPlan, withCheckBudgets } from '../../harness/gating/plan.ts';
import type { RequestPlan } from '../../harness/gating/plan.ts';
import type { Exchange } from '../../core/model.ts';
import type { RunResult } from '../../harness/result.ts';
import { runConformance } from '../../harness/runner.ts';
import { startReference } from '../../reference/index.ts';
import type { RunningReference } from '../../reference/index.ts';
import { SHARED_SPARE } from '../../suites/support/check.ts';
import { startCountingProxy } from './counting-proxy.ts';
import type { CountingProxy } from './counting-proxy.ts';

const FIXTURE_SUITES = fileURLToPath(new URL('./fixtures/suites', import.meta.url));
const quiet = { print: () => undefined, printError: () => undefined, tty: false };

interface Counted {
  plan: RequestPlan;
  result: RunResult;
  sent: number;
  reportDir: string;
}

describe('request plan', { timeout: 240_000 }, () => {
  let reference: RunningReference;
  let api: CountingProxy;
  let auth: CountingProxy;

  /** A run through the proxies (the reference's control origin is not the target: not counted). */
  function configFor(topics: string | undefined, runs: number | undefined, profile = 'full'): RunConfig {
    const flags = { seed: '3', profile, reportDir: mkdtempSync(join(tmpdir(), 'gating-plan-')), ...(topics ? { topic: topics } : {}), ...(runs ? { runs: String(runs) } : {}) };
    const config = loadConfig(flags, {}, tmpdir());
    config.target = {
      baseUrl: api.origin,
      tokenUrl: `${auth.origin}/oauth2/token`,
      audience: reference.audience,
      embedded: true,
      controlUrl: reference.controlUrl,
    };
    config.apps = reference.apps;
    config.fixtures = reference.fixtures;
    return withCheckBudgets(config);
  }

  async function countedRun(config: RunConfig, suitesDir?: string): Promise<Counted> {
    const before = api.count + auth.count;
    const plan = await collectPlan(config, suitesDir ? { suitesDir } : {});
    // Nothing is sent while planning.
    expect(api.count + auth.count).toBe(before);
    const { result } = await runConformance(config, { ...quiet, ...(suitesDir ? { suitesDir } : {}) });
    return { plan, result, sent: api.count + auth.count - before, reportDir: config.reportDir };
  }

  /** Every check's requests in the plan's order (the order they ran in), sliced out of the exchange log by what each recorded. */
  function exchangesByCheck({ plan, result, reportDir }: Counted): Map<string, Exchange[]> {
    const log = readFileSync(join(reportDir, 'exchanges.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Exchange);
    const ran = new Map(result.topics.flatMap((t) => t.checks).map((c) => [c.id, c]));
    const out = new Map<string, Exchange[]>();
    let at = 0;
    for (const planned of plan.checks) {
      const n = ran.get(planned.id)?.requestsSent ?? 0;
      out.set(planned.id, log.slice(at, at + n));
      at += n;
    }
    expect(at, 'every exchange of the log belongs to a check').toBe(log.length);
    return out;
  }

  /** The run stayed within its plan: in total, per topic (own budgets and the shared allowance) and per check. */
  function expectWithinPlan({ plan, result, sent }: Counted): void {
    const ran = result.topics.flatMap((t) => t.checks);
    // Every executed check recorded what it sent; their sum is what reached the host.
    expect(ran.reduce((n, c) => n + (c.requestsSent ?? 0), 0)).toBe(sent);
    expect(sent).toBeLessThanOrEqual(plan.totalRequests);
    for (const topic of plan.topics) {
      const own = ran.filter((c) => c.id.startsWith(`${topic.topic}/`));
      expect(own.reduce((n, c) => n + (c.requestsSent ?? 0), 0), topic.topic).toBeLessThanOrEqual(topic.maxRequests);
    }
    for (const check of ran) {
      const planned = plan.checks.find((p) => p.id === check.id);
      expect(planned, check.id).toBeDefined();
      const shared = plan.topics.find((t) => t.topic === planned!.topic)!.shared;
      expect(check.requestsSent ?? 0, check.id).toBeLessThanOrEqual(planned!.maxRequests + shared);
      expect(check.status, `${check.id}: ${check.reason}`).not.toBe('error');
    }
  }

  beforeAll(async () => {
    reference = await startReference();
    const tokenOrigin = new URL(reference.tokenUrl).origin;
    api = await startCountingProxy(reference.baseUrl);
    auth = await startCountingProxy(tokenOrigin);
  });
  afterAll(async () => {
    await Promise.all([api?.close(), auth?.close()]);
    await reference?.close();
  });

  it('a check over its budget and the shared allowance, or with an undeclared write or fixture, is an error and never sends past them', async () => {
    const { plan, result, sent } = await countedRun(configFor('wallet', 4), FIXTURE_SUITES);
    expect(plan.checks.map((c) => [c.id, c.maxRequests])).toEqual([
      ['wallet/within-budget', 2],
      ['wallet/over-budget', 2],
      ['wallet/swallows-refusal', 1],
      ['wallet/per-case', 5], // 1 + 1 per case, 4 cases
      ['wallet/undeclared-write', 1],
      ['wallet/declared-write', 1],
      ['wallet/needs-control', 1],
      ['wallet/needs-fixture', 1],
      ['wallet/undeclared-fixture', 1],
    ]);
    expect(plan.topics).toEqual([{ topic: 'wallet', checks: 9, shared: SHARED_SPARE, maxRequests: 15 + SHARED_SPARE }]);
    const checks = new Map(result.topics.flatMap((t) => t.checks).map((c) => [c.id, c]));
    // A token request and two reads: the token comes out of the shared allowance (6 left, then 5).
    expect(checks.get('wallet/within-budget')).toMatchObject({ status: 'pass', requestsSent: 3 });
    // Its own 2 and the 5 left of the allowance, then refused.
    expect(checks.get('wallet/over-budget')).toMatchObject({ status: 'error', requestsSent: 7 });
    expect(checks.get('wallet/over-budget')?.reason).toContain('request budget of 7');
    expect(checks.get('wallet/swallows-refusal')).toMatchObject({ status: 'error', requestsSent: 1 });
    expect(checks.get('wallet/per-case')).toMatchObject({ status: 'pass', requestsSent: 4 });
    expect(checks.get('wallet/undeclared-write')).toMatchObject({ status: 'error', requestsSent: 0 });
    expect(checks.get('wallet/undeclared-write')?.reason).toContain('without declaring what it writes');
    expect(checks.get('wallet/declared-write')).toMatchObject({ status: 'pass', requestsSent: 1 });
    expect(checks.get('wallet/needs-control')).toMatchObject({ status: 'pass', requestsSent: 1 });
    expect(checks.get('wallet/needs-fixture')).toMatchObject({ status: 'pass', requestsSent: 1 });
    // Reading a fixture not declared in needs is a defect of the check: it errs before sending.
    expect(checks.get('wallet/undeclared-fixture')).toMatchObject({ status: 'error', requestsSent: 0 });
    expect(checks.get('wallet/undeclared-fixture')?.reason).toContain('reads the fixture businessId without declaring it in needs');
    expect(sent).toBe(3 + 7 + 1 + 4 + 0 + 1 + 1 + 1);
    expect(sent).toBeLessThanOrEqual(plan.totalRequests);

    // In profile safe the declared write counts 0 and is skipped; without a control origin, so is the other.
    const safe = configFor('wallet', 4, 'safe');
    const host = configFor('wallet', 4);
    host.target = { ...host.target!, embedded: false };
    delete host.target.controlUrl;
    const counted = async (config: RunConfig) => new Map((await collectPlan(config, { suitesDir: FIXTURE_SUITES })).checks.map((c) => [c.id, c]));
    expect((await counted(safe)).get('wallet/declared-write')).toMatchObject({ maxRequests: 0, skip: 'profile safe sends nothing that posts to the wallet (fixture)' });
    expect((await counted(host)).get('wallet/needs-control')).toMatchObject({ maxRequests: 0, skip: 'needs the control origin (fixture)', skipKind: 'not-observable' });
    // A missing fixture declared in needs is known to the plan before anything is sent.
    const bare = configFor('wallet', 4);
    bare.fixtures = { ...bare.fixtures, otherBusinessId: undefined };
    const barePlan = await collectPlan(bare, { suitesDir: FIXTURE_SUITES });
    expect(barePlan.checks.find((c) => c.id === 'wallet/needs-fixture')).toMatchObject({ maxRequests: 0, skip: 'needs CONFORMANCE_OTHER_BUSINESS_ID', skipKind: 'precondition' });
    expect(formatPlan(barePlan)).toContain('  needs CONFORMANCE_OTHER_BUSINESS_ID: 1 check (wallet/needs-fixture)');
  });

  it('the plan of a default run covers every request it sends, in total, per topic and per check, and is at most 2.5 times it', async () => {
    const counted = await countedRun(configFor(undefined, undefined));
    const { plan, result, sent } = counted;
    expect(plan.problems).toEqual([]);
    expect(plan.runs).toBe(25);
    expect(plan.checks.length).toBe(result.summary.total);
    expect(formatPlan(plan, 10).filter((l) => l.startsWith('least wall time at 10 requests/s: '))).toHaveLength(1);
    expectWithinPlan(counted);
    expect(plan.totalRequests).toBeLessThanOrEqual(2.5 * sent);

    // Every check that sent anything but GET to the API declares it (the wrapper refuses any other).
    const byCheck = exchangesByCheck(counted);
    const writers = new Set<string>();
    for (const check of plan.checks) {
      const methods = byCheck.get(check.id)!.filter((x) => x.request.url.startsWith(api.origin)).map((x) => x.request.method);
      if (methods.some((m) => m !== 'GET')) writers.add(check.id);
      if (writers.has(check.id)) expect(check.writes, `${check.id} sends ${[...new Set(methods)].join(', ')}`).toBeDefined();
    }
    expect(writers.size).toBeGreaterThan(30);
    // A check skipped whole in profile safe showed a write here: no coverage is given up for nothing.
    // A write the checks of a topic share (its shared allowance: cursors' second bulk, one promise)
    // counts to whichever asks first, so a check of such a topic may show it through a sibling.
    const safe = await collectPlan(configFor(undefined, undefined, 'safe'));
    const sharing = new Set(plan.topics.filter((p) => p.shared > 0).map((p) => p.topic as string));
    const writerTopics = new Set([...writers].map((id) => id.split('/')[0]));
    const sharesWrite = (id: string) => sharing.has(id.split('/')[0]!) && writerTopics.has(id.split('/')[0]!);
    for (const check of safe.checks.filter((c) => c.skip?.startsWith('profile safe'))) expect(writers.has(check.id) || sharesWrite(check.id), `${check.id} sent no write`).toBe(true);
    // How tight the bound is, for the record.
    console.info(`default run: plan ${plan.totalRequests} requests, sent ${sent} (${((sent / plan.totalRequests) * 100).toFixed(0)}%)`);
  });

  it('in profile safe the checks that write count 0 and send nothing, and the plan covers the run', async () => {
    const counted = await countedRun(configFor(undefined, undefined, 'safe'));
    const { plan, result, sent } = counted;
    expectWithinPlan(counted);
    expect(plan.totalRequests).toBeLessThanOrEqual(2.5 * sent);
    const ran = new Map(result.topics.flatMap((t) => t.checks).map((c) => [c.id, c]));
    const skipped = plan.checks.filter((c) => c.skip?.startsWith('profile safe sends nothing that '));
    expect(skipped.length).toBeGreaterThan(30);
    for (const check of skipped) {
      expect(check.maxRequests, check.id).toBe(0);
      expect(ran.get(check.id), check.id).toMatchObject({ status: 'skip', requestsSent: 0, reason: check.skip });
    }
    // Nothing the safe plan counts writes.
    expect(plan.checks.filter((c) => c.writes !== undefined)).toEqual([]);
  });

  it('against a host without the control origin the checks that need it count 0, and the cross-business DELETE waits for a declared sandbox', async () => {
    const config = configFor(undefined, undefined);
    const embeddedPlan = await collectPlan(config);
    const embedded = new Map(embeddedPlan.checks.map((c) => [c.id, c]));
    config.target = { ...config.target!, embedded: false };
    delete config.target.controlUrl;
    const host = await collectPlan(config);
    const unobservable = host.checks.filter((c) => c.skip !== undefined);
    // auth-ordering/expired-token-401 is not among them: CONFORMANCE_EXPIRED_TOKEN supplies it on any host.
    expect(unobservable.map((c) => c.id).sort()).toEqual([
      'bulk-invariants/counts-unavailable',
      'cursors/cursor-lifetime',
      'idempotency/seven-day-window',
      'recipient-limits/at-maximum-accepted',
      'recipient-limits/malformed-entries-count',
      'webhooks/foreign-endpoint-refused',
      'webhooks/next-endpoint-deactivated',
      'webhooks/random-endpoint-404',
    ]);
    for (const check of unobservable) {
      expect(check.maxRequests, check.id).toBe(0);
      expect(embedded.get(check.id)!.maxRequests, check.id).toBeGreaterThan(0);
    }
    // (Totals are not compared: a host's bulk polls read more often than the embedded reference's.)

    // A declared sandbox takes the full-size and malformed-number submissions and the random DELETE.
    config.settings = { ...config.settings, sandbox: true };
    const sandbox = await collectPlan(config);
    expect(sandbox.checks.filter((c) => c.skip !== undefined).map((c) => c.id).sort()).toEqual([
      'bulk-invariants/counts-unavailable',
      'cursors/cursor-lifetime',
      'idempotency/seven-day-window',
    ]);
    // The cross-business DELETE waits for the declaration, a precondition whoever runs it can supply.
    const crossBusiness = unobservable.find((c) => c.id === 'webhooks/foreign-endpoint-refused')!;
    expect(crossBusiness.skipKind).toBe('precondition');
    expect(crossBusiness.skip).toMatch(/declare CONFORMANCE_SANDBOX=true to send it/);
    for (const id of ['recipient-limits/at-maximum-accepted', 'recipient-limits/malformed-entries-count', 'webhooks/random-endpoint-404']) {
      expect(unobservable.find((c) => c.id === id)!.skip, id).toMatch(/declare CONFORMANCE_SANDBOX=true to check/);
    }
  });
});
