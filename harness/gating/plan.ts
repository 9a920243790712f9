// The request plan: before anything is sent, which checks will run and the most requests each
// sends, in total and per topic, and the least wall time that takes at a given rate. The checks'
// declarations are read without vitest (./declarations.ts: suite files are loaded, no check body
// runs); each check's meta carries what the check wrapper (suites/support/check.ts) decided from its
// declarations for this run: its budget, or 0 and why when it is skipped before sending anything
// (profile safe and a check that writes, a target without the control origin), and its topic's
// shared allowance. The run holds every check to exactly that.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunConfig } from '../config.ts';
import { HarnessError } from '../errors.ts';
import type { Fixtures, SkipKind, SuiteConfig, Topic } from '../../core/model.ts';
import { VARIABLES } from '../../core/variables.ts';
import { TOPICS } from '../../core/model.ts';
import { topicOfFile } from '../output.ts';
import { PACKAGE_ROOT, SUITES_DIR, orderTopics, suiteFileName } from '../package.ts';
import { collectDeclarations } from './declarations.ts';

export interface PlannedCheck {
  id: string;
  title: string;
  topic: Topic;
  /** Most requests the check sends itself in this run (its topic's shared allowance aside). */
  maxRequests: number;
  /** Why it is skipped before sending anything in this run (then `maxRequests` is 0). */
  skip?: string;
  /** What kind of skip: a precondition (a fixture or the profile) or not observable on this target. */
  skipKind?: SkipKind;
  requirements: string[];
  /** What its requests other than GET do, when it sends any. */
  writes?: string;
}

export interface TopicPlan {
  topic: Topic;
  checks: number;
  /**
   * Token requests and reads the topic's checks share, sent by whichever check needs them first:
   * counted once, and only when a check of the topic runs.
   */
  shared: number;
  /** Its checks' budgets and the shared allowance. */
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
}

/** The run configuration with per-check budgets switched on (every gated run uses it). */
export function withCheckBudgets(config: RunConfig): RunConfig {
  return { ...config, settings: { ...config.settings, checkBudgets: true } };
}

const PLACEHOLDER_APP = { clientId: 'embedded', clientSecret: 'embedded' };

/** A value for every fixture a variable can set: what the embedded reference seeds. */
function embeddedFixturePlaceholders(): Fixtures {
  const fixtures: Record<string, unknown> = {};
  for (const variable of VARIABLES) {
    if (!variable.sets || !('fixture' in variable.sets)) continue;
    fixtures[variable.sets.fixture] = variable.kind === 'list' || variable.kind === 'uuids' ? ['embedded'] : 'embedded';
    for (const need of variable.supplies ?? []) fixtures[need] = 'embedded';
  }
  return fixtures as Fixtures;
}

/**
 * The configuration the suites see while the plan reads their declarations: the run's own, whose
 * hosts are placeholders when the run starts the embedded reference (module code must not send).
 */
export function planSuiteConfig(config: RunConfig): SuiteConfig {
  const placeholder = 'http://127.0.0.1:9';
  // The embedded reference always has its control origin; a configured host has none.
  return {
    target: config.target ?? { baseUrl: placeholder, tokenUrl: `${placeholder}/oauth2/token`, audience: 'service-external-api', embedded: true, controlUrl: placeholder },
    // The embedded reference, started by the run, seeds every fixture and both applications: the
    // plan must not count their checks as skipped for a missing one (certify caps the run at it).
    apps: config.target ? config.apps : { primary: PLACEHOLDER_APP, limited: PLACEHOLDER_APP, other: PLACEHOLDER_APP },
    fixtures: config.target ? config.fixtures : embeddedFixturePlaceholders(),
    params: config.params,
    settings: { ...config.settings, exchangeLogPath: '' },
    secrets: [],
    ...(config.target && config.usedUp ? { usedUp: config.usedUp } : {}),
  };
}

/**
 * The topic files of one shard (`--shard i/n`), chosen as the run chooses them: by vitest's own
 * sequencer, loaded only then.
 */
async function shardOf(files: string[], shard: string | undefined): Promise<string[]> {
  const m = shard === undefined ? null : /^(\d+)\/(\d+)$/.exec(shard);
  if (!m) return files;
  let BaseSequencer: typeof import('vitest/node').BaseSequencer;
  try {
    ({ BaseSequencer } = await import('vitest/node'));
  } catch (error) {
    throw new HarnessError('CONF_INVALID_VALUE', `--shard needs vitest to choose the files of a shard, and it did not load: ${(error as Error).message.split('\n')[0]}`);
  }
  // vitest's root carries no trailing separator, and each file's hash is of its path under it.
  const sequencer = new BaseSequencer({ config: { root: resolve(PACKAGE_ROOT), shard: { index: Number(m[1]), count: Number(m[2]) } } } as never);
  const specs = await sequencer.shard(files.map((moduleId) => ({ moduleId })) as never);
  return (specs as unknown as Array<{ moduleId: string }>).map((s) => s.moduleId);
}

/**
 * Collects the checks a run of `config` would execute, without sending anything. The suites get a
 * configuration whose hosts are placeholders: module code must not send, and collect mode runs no
 * check body.
 */
export async function collectPlan(config: RunConfig, options: PlanOptions = {}): Promise<RequestPlan> {
  const suitesDir = options.suitesDir ?? SUITES_DIR;
  const problems: string[] = [];
  const files: string[] = [];
  for (const topic of config.topics) {
    const file = join(suitesDir, suiteFileName(topic));
    if (existsSync(file)) files.push(file);
    else problems.push(`no suite for topic ${topic} (${suiteFileName(topic)})`);
  }
  const suiteConfig = planSuiteConfig(config);
  const checks: PlannedCheck[] = [];
  const shared = new Map<Topic, number>();
  for (const suite of await collectDeclarations(orderTopics(await shardOf(files, config.shard), topicOfFile), suiteConfig, PACKAGE_ROOT)) {
    if (suite.error !== undefined) problems.push(suite.error);
    for (const { name, meta } of suite.declared) {
      if (meta.maxRequests === undefined) {
        problems.push(`${meta.checkId} declares no request budget (maxRequests)`);
        continue;
      }
      checks.push({
        id: meta.checkId,
        title: name,
        topic: meta.topic,
        maxRequests: meta.maxRequests,
        requirements: meta.requirements,
        ...(meta.plannedSkip !== undefined ? { skip: meta.plannedSkip, skipKind: meta.plannedSkipKind ?? 'precondition' } : {}),
        ...(meta.writes !== undefined ? { writes: meta.writes } : {}),
      });
      // The allowance is drawn on only by checks that run: none of a topic skipped whole.
      if (meta.plannedSkip === undefined) shared.set(meta.topic, Math.max(shared.get(meta.topic) ?? 0, meta.sharedRequests ?? 0));
    }
  }
  const topics: TopicPlan[] = [];
  for (const topic of TOPICS) {
    const own = checks.filter((c) => c.topic === topic);
    const allowance = shared.get(topic) ?? 0;
    if (own.length > 0) topics.push({ topic, checks: own.length, shared: allowance, maxRequests: own.reduce((n, c) => n + c.maxRequests, allowance) });
  }
  return {
    target: config.target?.baseUrl ?? 'embedded reference',
    profile: config.settings.profile,
    runs: config.settings.runs,
    checks,
    topics: orderTopics(topics, (t) => t.topic),
    totalRequests: topics.reduce((n, t) => n + t.maxRequests, 0),
    problems,
  };
}

/** The precondition skips of a plan, one entry per reason ("needs CONFORMANCE_SENDER_ID"). */
export function missingPreconditions(plan: RequestPlan, keep: (check: PlannedCheck) => boolean = () => true): Array<{ reason: string; checks: string[] }> {
  const byReason = new Map<string, string[]>();
  for (const check of plan.checks) {
    if (check.skip === undefined || check.skipKind !== 'precondition' || !keep(check)) continue;
    byReason.set(check.skip, [...(byReason.get(check.skip) ?? []), check.id]);
  }
  return [...byReason].map(([reason, checks]) => ({ reason, checks }));
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
      const why = check.skip !== undefined ? ` (skipped: ${check.skip})` : check.writes !== undefined ? ` (writes: ${check.writes})` : '';
      lines.push(`  ${String(check.maxRequests).padStart(5)}  ${check.id}${why}`);
    }
    if (topic.shared > 0) lines.push(`  ${String(topic.shared).padStart(5)}  shared by the topic's checks: token requests, reads several checks judge, a spare for retries`);
  }
  lines.push('');
  lines.push(`total: ${plan.checks.length} checks in ${plan.topics.length} topics, at most ${plan.totalRequests} requests (token requests included)`);
  const skipped = plan.checks.filter((c) => c.skip !== undefined).length;
  if (skipped > 0) lines.push(`${skipped} checks are skipped before they send anything (profile, missing fixtures, or a target without the embedded reference's control origin), so they count 0`);
  const missing = missingPreconditions(plan);
  if (missing.length > 0) {
    lines.push('missing preconditions (supply them and these checks run):');
    for (const { reason, checks } of missing) lines.push(`  ${reason}: ${checks.length} check${checks.length === 1 ? '' : 's'} (${checks.join(', ')})`);
  }
  // Only declarations are known before the run; what the target answers may still skip a check.
  lines.push('a check that may skip once it sees what the target answers counts its whole budget: the plan is an upper bound');
  if (rate) {
    // The plan is an upper bound, so this is the least time a run needs at that rate to be safe.
    lines.push(`least wall time at ${rate} requests/s: ${duration(plan.totalRequests / rate)}`);
  }
  for (const problem of plan.problems) lines.push(`not planned: ${problem}`);
  return lines;
}
