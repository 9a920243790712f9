// The request plan: before anything is sent, which checks will run and the most requests each
// sends, in total and per topic, and the least wall time that takes at a given rate. The checks
// are collected with vitest's collect mode (suite files are loaded, no check body runs); each
// check's budget is its declared `maxRequests` or its topic's default below. The run holds every
// check to that budget (suites/support/check.ts) and the whole run to the plan's total.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createVitest } from 'vitest/node';
import type { RunConfig } from '../config.ts';
import { HarnessError } from '../errors.ts';
import type { CheckMeta, RequestBudget, SuiteConfig, Topic } from '../model.ts';
import { TOPICS, requestLimit } from '../model.ts';
import { topicOfFile } from '../output.ts';
import { PACKAGE_ROOT, orderTopics } from '../runner.ts';

/**
 * Budget of a check that declares none, per topic: the requests its checks send at most, token
 * requests included (a check that runs alone, as in `conformance replay`, fetches its own token and
 * pays for responses its topic shares). About twice the most any check of the topic sent on the
 * reference at --runs 1, 25 and 50; a check whose count follows the target (polling, paging) or
 * needs more must declare `maxRequests` in its suite.
 */
export const DEFAULT_CHECK_BUDGETS: Record<Topic, RequestBudget> = {
  'auth-ordering': 16,
  idempotency: 32,
  'recipient-limits': { fixed: 12, perCase: 1 },
  cursors: { fixed: 32, perCase: 2 },
  'bulk-invariants': { fixed: 80, perCase: 4 },
  wallet: 32,
  concealment: 32,
  'request-id': { fixed: 24, perCase: 2 },
  'problem-details': 16,
  validation: { fixed: 100, perCase: 2 },
  schemas: 24,
  webhooks: 8,
  messages: 12,
};

export interface PlannedCheck {
  id: string;
  title: string;
  topic: Topic;
  /** Most requests the check sends in this run. */
  maxRequests: number;
  /** Declared by the check (true) or its topic's default (false). */
  declared: boolean;
}

export interface TopicPlan {
  topic: Topic;
  checks: number;
  maxRequests: number;
}

export interface RequestPlan {
  target: string;
  profile: string;
  runs: number;
  checks: PlannedCheck[];
  topics: TopicPlan[];
  totalRequests: number;
  /** Problems collecting the suites (a file that does not load): its checks are not in the plan. */
  problems: string[];
}

export interface PlanOptions {
  suitesDir?: string;
  /** Only checks whose full name matches (as `conformance replay` runs them). */
  testNamePattern?: string;
}

/** The run configuration with per-check budgets switched on (every gated run uses it). */
export function withCheckBudgets(config: RunConfig): RunConfig {
  return { ...config, settings: { ...config.settings, checkBudgets: { ...DEFAULT_CHECK_BUDGETS, ...config.settings.checkBudgets } } };
}

function silentSink(): Writable {
  return new Writable({ write: (_chunk, _encoding, callback) => callback() });
}

/**
 * Collects the checks a run of `config` would execute, without sending anything. The suites get a
 * configuration whose hosts are placeholders: module code must not send, and collect mode runs no
 * check body.
 */
export async function collectPlan(config: RunConfig, options: PlanOptions = {}): Promise<RequestPlan> {
  const suitesDir = options.suitesDir ?? join(PACKAGE_ROOT, 'suites');
  const budgets = { ...DEFAULT_CHECK_BUDGETS, ...config.settings.checkBudgets };
  const problems: string[] = [];
  const files: string[] = [];
  for (const topic of config.topics) {
    const file = join(suitesDir, `${topic}.suite.ts`);
    if (existsSync(file)) files.push(file);
    else problems.push(`no suite for topic ${topic} (${topic}.suite.ts)`);
  }
  const placeholder = 'http://127.0.0.1:9';
  const suiteConfig: SuiteConfig = {
    target: config.target ?? { baseUrl: placeholder, tokenUrl: `${placeholder}/oauth2/token`, audience: 'service-external-api', embedded: true },
    apps: config.apps,
    fixtures: config.fixtures,
    params: config.params,
    settings: { ...config.settings, exchangeLogPath: '', checkBudgets: budgets },
    secrets: [],
  };
  const checks: PlannedCheck[] = [];
  if (files.length > 0) {
    const vitest = await createVitest(
      'test',
      {
        root: PACKAGE_ROOT,
        dir: suitesDir,
        config: false,
        include: orderTopics(files, topicOfFile).map((f) => f.slice(suitesDir.length + 1).replace(/\\/g, '/')),
        watch: false,
        reporters: [],
        provide: { conformance: suiteConfig },
        setupFiles: [join(PACKAGE_ROOT, 'harness', 'vitest-setup.ts')],
        fileParallelism: false,
        pool: 'forks',
        passWithNoTests: true,
        silent: true,
        ...(options.testNamePattern !== undefined ? { testNamePattern: options.testNamePattern } : {}),
        ...(config.shard ? { shard: config.shard } : {}),
      } as never,
      {},
      { stdout: silentSink(), stderr: silentSink() },
    );
    try {
      const collected = await vitest.collect();
      process.exitCode = undefined; // vitest sets it; the CLI decides the exit code
      const modules = orderTopics([...collected.testModules], (m) => topicOfFile(m.moduleId));
      for (const module of modules) {
        for (const error of module.errors()) problems.push(`${module.relativeModuleId}: ${(error.message ?? '').split('\n')[0]}`);
        for (const test of module.children.allTests()) {
          const meta = (test.meta() as unknown as { conformance?: CheckMeta }).conformance;
          if (!meta) continue;
          // Declared skip/todo, or filtered out by the name pattern: nothing will be sent.
          if (test.options.mode !== 'run' && test.options.mode !== 'only') continue;
          const budget = meta.maxRequests ?? budgets[meta.topic];
          checks.push({
            id: meta.checkId,
            title: test.name,
            topic: meta.topic,
            maxRequests: budget === undefined ? 0 : requestLimit(budget, config.settings.runs),
            declared: meta.maxRequests !== undefined,
          });
        }
      }
    } catch (error) {
      throw new HarnessError('CONF_INVALID_VALUE', `the suites could not be collected for the plan: ${(error as Error).message.split('\n')[0]}`);
    } finally {
      await vitest.close();
    }
  }
  const topics: TopicPlan[] = [];
  for (const topic of TOPICS) {
    const own = checks.filter((c) => c.topic === topic);
    if (own.length > 0) topics.push({ topic, checks: own.length, maxRequests: own.reduce((n, c) => n + c.maxRequests, 0) });
  }
  return {
    target: config.target?.baseUrl ?? 'embedded reference',
    profile: config.settings.profile,
    runs: config.settings.runs,
    checks,
    topics: orderTopics(topics, (t) => t.topic),
    totalRequests: checks.reduce((n, c) => n + c.maxRequests, 0),
    problems,
  };
}

/** `--rate N/s` (or `N`): requests per second the sandbox owner allows. */
export function parseRate(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*s)?\s*$/.exec(text);
  const rate = m ? Number(m[1]) : NaN;
  if (!(rate > 0)) throw new HarnessError('CONF_INVALID_VALUE', `--rate must be a positive number of requests per second like 5/s (got ${JSON.stringify(text)})`);
  return rate;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const m = Math.floor(seconds / 60);
  const s = Math.ceil(seconds - m * 60);
  return m < 60 ? `${m} min ${s} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** The plan as printed by `conformance plan` and `run --dry-run`. */
export function formatPlan(plan: RequestPlan, rate?: number): string[] {
  const lines = [
    `request plan (nothing has been sent): target ${plan.target}, profile ${plan.profile}, ${plan.runs} cases per property`,
    '',
  ];
  for (const topic of plan.topics) {
    lines.push(`${topic.topic}: ${topic.checks} checks, at most ${topic.maxRequests} requests${rate ? `, at least ${duration(topic.maxRequests / rate)} at ${rate}/s` : ''}`);
    for (const check of plan.checks.filter((c) => c.topic === topic.topic)) {
      lines.push(`  ${String(check.maxRequests).padStart(5)}  ${check.id}${check.declared ? '' : ' (topic default)'}`);
    }
  }
  lines.push('');
  lines.push(`total: ${plan.checks.length} checks in ${plan.topics.length} topics, at most ${plan.totalRequests} requests (token requests included)`);
  if (rate) {
    // The plan is an upper bound, so this is the least time a run needs at that rate to be safe.
    lines.push(`least wall time at ${rate} requests/s: ${duration(plan.totalRequests / rate)}`);
  }
  for (const problem of plan.problems) lines.push(`not planned: ${problem}`);
  return lines;
}
