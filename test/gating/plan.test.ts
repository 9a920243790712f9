// The request plan against what really reaches the host: counting proxies in front of the
// embedded reference's API and token endpoint record every request of a run; the plan, collected
// before, must cover them, in total and check by check. And a check is held to its budget.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunConfig } from '../../harness/config.ts';
import { loadConfig } from '../../harness/config.ts';
import { collectPlan, formatPlan, withCheckBudgets } from '../../harness/gating/plan.ts';
import type { RequestPlan } from '../../harness/gating/plan.ts';
import type { RunResult } from '../../harness/result.ts';
import { runConformance } from '../../harness/runner.ts';
import { startReference } from '../../reference/index.ts';
import type { RunningReference } from '../../reference/index.ts';
import { startCountingProxy } from './counting-proxy.ts';
import type { CountingProxy } from './counting-proxy.ts';

const FIXTURE_SUITES = fileURLToPath(new URL('./fixtures/suites', import.meta.url));
const quiet = { print: () => undefined, printError: () => undefined, tty: false };

interface Counted {
  plan: RequestPlan;
  result: RunResult;
  sent: number;
}

describe('request plan', { timeout: 180_000 }, () => {
  let reference: RunningReference;
  let api: CountingProxy;
  let auth: CountingProxy;

  /** A run through the proxies (the reference's control origin is not the target: not counted). */
  function configFor(topics: string, runs: number): RunConfig {
    const config = loadConfig({ topic: topics, seed: '3', runs: String(runs), reportDir: mkdtempSync(join(tmpdir(), 'gating-plan-')) }, {}, tmpdir());
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

  async function countedRun(topics: string, runs: number, suitesDir?: string): Promise<Counted> {
    const config = configFor(topics, runs);
    const before = api.count + auth.count;
    const plan = await collectPlan(config, suitesDir ? { suitesDir } : {});
    // Nothing is sent while planning.
    expect(api.count + auth.count).toBe(before);
    const { result } = await runConformance(config, { ...quiet, ...(suitesDir ? { suitesDir } : {}) });
    return { plan, result, sent: api.count + auth.count - before };
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

  it('a check over its declared budget is an error, never a pass, and never sends past it', async () => {
    const { plan, result, sent } = await countedRun('wallet', 4, FIXTURE_SUITES);
    expect(plan.checks.map((c) => [c.id, c.maxRequests, c.declared])).toEqual([
      ['wallet/within-budget', 3, true],
      ['wallet/over-budget', 2, true],
      ['wallet/swallows-refusal', 1, true],
      ['wallet/per-case', 5, true], // 1 + 1 per case, 4 cases
    ]);
    const checks = new Map(result.topics.flatMap((t) => t.checks).map((c) => [c.id, c]));
    expect(checks.get('wallet/within-budget')).toMatchObject({ status: 'pass', requestsSent: 3 });
    expect(checks.get('wallet/over-budget')).toMatchObject({ status: 'error', requestsSent: 2 });
    expect(checks.get('wallet/over-budget')?.reason).toContain('request budget of 2');
    expect(checks.get('wallet/swallows-refusal')).toMatchObject({ status: 'error', requestsSent: 1 });
    expect(checks.get('wallet/per-case')).toMatchObject({ status: 'pass', requestsSent: 4 });
    expect(sent).toBe(3 + 2 + 1 + 4);
    expect(sent).toBeLessThanOrEqual(plan.totalRequests);
  });

  it('the plan of the real suites covers every request the run sends, in total and per check', async () => {
    const topics = ['wallet', 'request-id', 'messages', 'concealment', 'validation'].filter((t) =>
      readFileSafe(join(fileURLToPath(new URL('../../suites', import.meta.url)), `${t}.suite.ts`)),
    );
    const { plan, result, sent } = await countedRun(topics.join(','), 5);
    expect(plan.problems).toEqual([]);
    expect(plan.checks.length).toBeGreaterThan(0);
    const lines = formatPlan(plan, 10);
    expect(lines.at(-1)).toMatch(/^least wall time at 10 requests\/s: /);

    const ran = result.topics.flatMap((t) => t.checks);
    // Every executed check recorded what it sent; their sum is what reached the host.
    const recorded = ran.reduce((n, c) => n + (c.requestsSent ?? 0), 0);
    expect(recorded).toBe(sent);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(plan.totalRequests);
    for (const check of ran) {
      const planned = plan.checks.find((p) => p.id === check.id);
      expect(planned, check.id).toBeDefined();
      expect(check.requestsSent ?? 0, check.id).toBeLessThanOrEqual(planned!.maxRequests);
      expect(check.status, `${check.id}: ${check.reason}`).not.toBe('error');
    }
    for (const topic of plan.topics) {
      const actual = ran.filter((c) => c.id.startsWith(`${topic.topic}/`)).reduce((n, c) => n + (c.requestsSent ?? 0), 0);
      expect(actual, topic.topic).toBeLessThanOrEqual(topic.maxRequests);
    }
    // How tight the bound is, for the record (the plan is an upper bound by design).
    console.info(`plan ${plan.totalRequests} requests, sent ${sent} (${((sent / plan.totalRequests) * 100).toFixed(0)}%)`);
  });
});

function readFileSafe(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').length > 0;
  } catch {
    return false;
  }
}
