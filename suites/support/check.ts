// Declares one check of a topic: a vitest test whose meta the reporter reads as data.
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { requirementById } from '../../spec/requirements.ts';
import { readingPoints, type ReadingChoiceId, type ReadingPointId } from '../../spec/readings.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { flushExchangeLog, inExchangeScope, type ExchangeScope } from '../../harness/exchange-log.ts';
import type { AppCredentials, CheckMeta, Exchange, Fixtures, MatrixCell, RequestBudget, SkipKind, SuiteConfig, Topic } from '../../core/model.ts';
import { checkSelected, requestLimit } from '../../core/model.ts';
import { needsReason, type Need } from '../../core/variables.ts';
import { CheckSkipped, ConformanceFailure } from './failure.ts';
import { suiteContext } from './context.ts';
import { declareTest, providedConfig } from './declare.ts';
import { declareRunnable, laneOutcome, type Outcome } from './lanes.ts';
import { currentSite, isWeakened } from './sites.ts';

export interface CheckContext {
  /** `<topic>/<id>` of the check. */
  checkId: string;
  config: SuiteConfig;
  api: ApiClient;
  /** What the check declared its requests other than GET do (`writes` of its spec), if anything. */
  writes: string | undefined;
  /**
   * Skip with a stated reason. `precondition` (the default): the run lacked a fixture, variable,
   * profile or data that whoever runs it can supply; certification refuses. `not-observable`: this
   * target cannot be made to show it (control origin, a fault that cannot be forced, a request a
   * safety rule forbids on a real host); certification lists it as an exclusion.
   */
  skip(reason: string, kind?: SkipKind): never;
  /** Record which reading of the document the target chose, or another reportable fact. */
  note(text: string): void;
  /** A finding beyond the document: reported, never failing. */
  advise(text: string): void;
  /** Record cells of the authorization matrix (the reports show them in its section). */
  matrix(cells: MatrixCell[]): void;
  /**
   * Record which answer the target gave at a reading point of the catalogue (spec/readings.ts), with
   * the case it was met on. A choice the catalogue says breaks a client makes the check warn under
   * the point's `should` requirement once its body has run (a must failure found later still wins).
   */
  reading<P extends ReadingPointId>(point: P, choice: ReadingChoiceId<P>, detail?: string, ...responses: ApiResponse[]): void;
  /** Keep an exchange as evidence (failures keep the exchanges they name automatically). */
  evidence(...responses: Array<ApiResponse | Exchange>): void;
  /** Throw a ConformanceFailure. */
  fail(requirement: RequirementId, expected: string, actual: string, ...responses: ApiResponse[]): never;
  /** Fail unless `ok`. */
  expect(ok: boolean, requirement: RequirementId, expected: string, actual: string, ...responses: ApiResponse[]): void;
  /** A fixture the check declared in `needs` (or `needsOnHost`); reading an undeclared one is an error. */
  fixture<K extends keyof Fixtures>(key: K): NonNullable<Fixtures[K]>;
  /** An application, declared in `needs` as `primaryApp` / `limitedApp` / `otherApp`. */
  app(which: 'primary' | 'limited' | 'other'): AppCredentials;
}

export interface CheckSpec {
  /** Stable id within the topic (baselines and replay key on `${topic}/${id}`). */
  id: string;
  /** What is sent and what must happen. */
  title: string;
  requirements: RequirementId[];
  timeout?: number;
  /**
   * The most requests this check sends itself (`conformance plan` prints it; sending more is an
   * ERROR of the check). Token requests and what the topic's checks share come out of the topic's
   * shared allowance (`checksFor`). A function when the count follows the run's settings (polling).
   */
  maxRequests: Budget;
  /**
   * What the check's requests other than GET do ('creates a bulk SMS'), when it sends any. Profile
   * safe sends only GET, so the wrapper skips such a check there before it sends anything
   * ("profile safe sends nothing that creates a bulk SMS") and the plan counts 0 for it. A request
   * other than GET from a check that does not declare it is refused: the check ERRORs.
   */
  writes?: string;
  /** With `writes`: in profile safe the check still runs, leaving those requests out itself. */
  readsInSafe?: boolean;
  /**
   * The check runs against the embedded reference only: `control` when it needs the reference's
   * control origin (clock, faults, minted tokens), `embedded` when a safety rule forbids its
   * requests on a real host, `sandbox` when a host declared a sandbox (CONFORMANCE_SANDBOX=true)
   * may take them too. Elsewhere the wrapper skips it as not observable with `why`, before it sends
   * anything, and the plan counts 0 for it.
   */
  embeddedOnly?: { needs: 'control' | 'embedded' | 'sandbox'; why: string };
  /**
   * What the check sends that a host takes only as a declared sandbox: elsewhere it is skipped for
   * a precondition naming CONFORMANCE_SANDBOX=true (whoever runs it can declare one), before it
   * sends anything.
   */
  sandboxOnly?: string;
  /**
   * What the run's configuration must supply (fixtures, applications). Missing, the check is
   * skipped for a precondition before it sends anything, naming the variables; `plan` and
   * `certify` list it. The check reads them with `t.fixture(...)` / `t.app(...)`.
   */
  needs?: Need[];
  /** Needed only on a target without the embedded reference's control origin (which mints the rest). */
  needsOnHost?: Need[];
  /**
   * Read only on some paths (an alternative to another fixture, a part of the check that runs when
   * supplied): missing, the check skips once it takes such a path, naming the variable.
   */
  uses?: Need[];
  /**
   * Why the check must run with no other check running (it reads a wallet balance before and after
   * a submission): when the checks overlap (suites/support/lanes.ts), it runs by itself once the
   * lanes have run every other topic's checks, before the log readers. It must not depend on what
   * its topic's earlier checks did.
   */
  alone?: string;
  /**
   * The check reads the whole run's exchange log (suites/support/exchanges.ts): it runs after every
   * check that does not, in a topic of READS_WHOLE_RUN (harness/package.ts), after its topic's other checks.
   */
  readsRun?: boolean;
  /**
   * In a topic of log readers, the check reads no log, only its own answers. When the checks
   * overlap it runs early, in a lane, and its exchanges are written at its place among the readers
   * (suites/support/lanes.ts): the readers before it see none of them, as in a sequential run.
   */
  readsNoLog?: true;
}

/** What every check of a topic declares besides its own (`checksFor`). */
type TopicNeeds = Pick<CheckSpec, 'needs' | 'needsOnHost' | 'uses'>;

/** What a budget may follow: the same when the plan is made as when the check runs. */
export interface BudgetContext {
  runs: number;
  settleTimeoutMs: number;
  embedded: boolean;
}

export type Budget = RequestBudget | ((run: BudgetContext) => RequestBudget);

/**
 * Added to every topic's shared allowance: the two applications' token requests (a topic run
 * alone, as `replay` runs it, fetches its own) and four more for a token renewal or Retry-After
 * retries.
 */
export const SHARED_SPARE = 6;

interface Planned {
  /** The most requests the check sends itself in this run. */
  limit: number;
  /** Set when the check is skipped before it sends anything. */
  skip?: { reason: string; kind: SkipKind };
  /** What its requests other than GET do, when it sends any in this run. */
  writes?: string;
}

/**
 * What one check will do in a run of `config`, decided from its declarations alone: the plan
 * (harness/gating/plan.ts) reads it from the check's meta, and the wrapper acts on the same value.
 */
function planOf(spec: CheckSpec, config: SuiteConfig): Planned {
  const { settings, target } = config;
  if (spec.writes && !spec.readsInSafe && settings.profile === 'safe') {
    return { limit: 0, skip: { reason: `profile safe sends nothing that ${spec.writes}`, kind: 'precondition' } };
  }
  const only = spec.embeddedOnly;
  const reachable = { control: target.controlUrl !== undefined, embedded: target.embedded, sandbox: target.embedded || settings.sandbox === true };
  if (only && !reachable[only.needs]) {
    const reason = only.needs === 'sandbox' ? `${only.why}; declare CONFORMANCE_SANDBOX=true to check` : only.why;
    return { limit: 0, skip: { reason, kind: 'not-observable' } };
  }
  if (spec.sandboxOnly && !reachable.sandbox) {
    return { limit: 0, skip: { reason: `${spec.sandboxOnly}: declare CONFORMANCE_SANDBOX=true to send it`, kind: 'precondition' } };
  }
  const missing = [...(spec.needs ?? []), ...(target.controlUrl === undefined ? (spec.needsOnHost ?? []) : [])].filter((need) => !supplied(config, need));
  if (missing.length > 0) return { limit: 0, skip: { reason: missingReason(config, missing), kind: 'precondition' } };
  const budget = typeof spec.maxRequests === 'function' ? spec.maxRequests({ runs: settings.runs, settleTimeoutMs: settings.settleTimeoutMs, embedded: target.embedded }) : spec.maxRequests;
  return { limit: requestLimit(budget, settings.runs), ...(spec.writes && settings.profile !== 'safe' ? { writes: spec.writes } : {}) };
}

/** Why the missing needs are missing: spent by earlier runs on this host (harness/ledger.ts), or not set. */
function missingReason(config: SuiteConfig, missing: Need[]): string {
  const usedUp = missing.map((need) => (need === 'primaryApp' || need === 'limitedApp' || need === 'otherApp' ? undefined : config.usedUp?.[need])).find((r) => r !== undefined);
  return usedUp ?? needsReason(missing);
}

function supplied(config: SuiteConfig, need: Need): boolean {
  if (need === 'primaryApp') return config.apps.primary !== undefined;
  if (need === 'limitedApp') return config.apps.limited !== undefined;
  if (need === 'otherApp') return config.apps.other !== undefined;
  const value = config.fixtures[need];
  return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== '';
}

/** Thrown when a check reads a fixture it did not declare: a defect of the check, not of the target. */
class UndeclaredNeed extends Error {
  override readonly name = 'UndeclaredNeed';
}

/**
 * What is left of each topic's shared allowance in this worker. The checks of a topic run one
 * after another (also when topics overlap, suites/support/lanes.ts), so what a check sent beyond
 * its own budget is known before the next one starts.
 */
const sharedLeft = new Map<Topic, number>();

/** Failed checks of the run so far (one worker runs every topic file), for `--max-failures`. */
let failuresSoFar = 0;

const EVIDENCE_LIMIT = 10;

function exchangeOf(x: ApiResponse | Exchange): Exchange {
  return 'exchange' in x ? x.exchange : x;
}

/** Thrown when a check would send past its request budget: the check errors, it never passes. */
class CheckBudgetExceeded extends Error {
  override readonly name = 'CheckBudgetExceeded';
}

/** Thrown when a check sends a request other than GET it did not declare (`writes`). */
class UndeclaredWrite extends Error {
  override readonly name = 'UndeclaredWrite';
}

interface Guard {
  /** Requests the check may send, shared allowance included; none when budgets are off. */
  limit?: number;
  writes?: string;
  used(): number;
  /** Called before the guard throws, so that a check that swallows the error still errs. */
  onRefused(error: Error): void;
}

/**
 * The client as one check sees it: it refuses a request other than GET the check did not declare,
 * and refuses to send once the check has used its budget. The client counts each request in the
 * scope of the check that sends it (harness/exchange-log.ts), so `used` is this check's alone even
 * while other checks send.
 */
function guarded(api: ApiClient, guard: Guard): ApiClient {
  const refuse = (error: Error): never => {
    guard.onRefused(error);
    throw error;
  };
  const overBudget = () => {
    if (guard.limit === undefined || guard.used() < guard.limit) return;
    refuse(new CheckBudgetExceeded(`the check reached its request budget of ${guard.limit} (maxRequests and its topic's shared allowance); nothing more was sent`));
  };
  return {
    send: async (request) => {
      const method = request.method.toUpperCase();
      if (method !== 'GET' && !guard.writes) {
        refuse(new UndeclaredWrite(`the check sent ${method} ${request.path} without declaring what it writes (writes in its spec); nothing was sent`));
      }
      overBudget();
      return api.send(request);
    },
    token: async (app) => api.token(app),
    tokenEndpoint: async (request) => (overBudget(), api.tokenEndpoint(request)),
    idempotencyKey: (label) => api.idempotencyKey(label),
    // This check's own requests: the client's count is the run's, other checks' included when they overlap.
    get requestCount() {
      return guard.used();
    },
    ...(api.redact ? { redact: api.redact.bind(api) } : {}),
  };
}

/**
 * `const check = checksFor('wallet', { shared: 20 })`, then `check({ id, title, requirements,
 * maxRequests }, async (t) => ...)`. `shared`: requests the topic's checks share (reads several
 * checks judge, kept in the suite module), sent by whichever check needs them first; with
 * SHARED_SPARE they are the topic's shared allowance, which any of its checks may draw on once its
 * own budget is used, and which the plan counts once for the topic. `needs`, `needsOnHost` and
 * `uses`: what every check of the topic declares besides its own (each submits a bulk, say).
 * `independent`: no check of the topic follows another or leaves state for the next, so against a
 * host each may run in a lane of its own (suites/support/lanes.ts); shared reads held as one
 * promise still go out once, counted to whichever check asks first. `sweep`: for a topic of log
 * readers, its shared sweep as it may be sent before any log is read (unconditionally, one promise
 * the judging awaits again): when the checks overlap the lanes send it early, counted to the
 * topic's first reader, its exchanges written at that reader's place (suites/support/lanes.ts).
 */
export function checksFor(
  topic: Topic,
  options: { shared?: number; readsRun?: boolean; independent?: boolean; sweep?: (t: CheckContext) => Promise<unknown> } & TopicNeeds = {},
) {
  const sharedRequests = (options.shared ?? 0) + SHARED_SPARE;
  /** Declares the check; true when this run will run it (selected, and its plan skips nothing up front). */
  return function check(own: CheckSpec, body: (t: CheckContext) => Promise<void>): boolean {
    const merge = (key: keyof TopicNeeds): Need[] => [...new Set([...(options[key] ?? []), ...(own[key] ?? [])])];
    const spec: CheckSpec = { ...own, needs: merge('needs'), needsOnHost: merge('needsOnHost'), uses: merge('uses') };
    const declared = new Set<Need>([...spec.needs!, ...spec.needsOnHost!, ...spec.uses!]);
    // The run's configuration is provided before the suites load (also when `plan` only collects).
    const runConfig = providedConfig();
    // --check / --exclude-check: a check left out is not declared at all (not run, not reported).
    if (!checkSelected(runConfig.settings.selection, `${topic}/${spec.id}`, spec.requirements)) return false;
    const planned = planOf(spec, runConfig);
    const meta: CheckMeta = {
      topic,
      checkId: `${topic}/${spec.id}`,
      requirements: spec.requirements,
      notes: [],
      advisories: [],
      evidence: [],
      maxRequests: planned.limit,
      sharedRequests,
      ...(planned.skip ? { plannedSkip: planned.skip.reason, plannedSkipKind: planned.skip.kind } : {}),
      ...(planned.writes ? { writes: planned.writes } : {}),
    };
    /** Runs the check in `scope` and says how it ended; `live` is the meta the reporter reads. */
    const execute = (live: CheckMeta, scope: ExchangeScope): Promise<Outcome> => inExchangeScope(scope, () => run(live, scope));
    /**
     * Only the topic's sweep, in the check's scope and context: whatever it meets (a skip, a
     * refusal, an error) stays with the sweep's promise, which the check's body awaits again.
     */
    const sweepEarly = async (live: CheckMeta, scope: ExchangeScope): Promise<void> => {
      await inExchangeScope(scope, () => run(live, scope, true));
    };
    const run = async (live: CheckMeta, scope: ExchangeScope, sweepOnly = false): Promise<Outcome> => {
      const { config, api: shared } = await suiteContext();
      live.seed = config.settings.seed;
      const budgets = config.settings.checkBudgets === true;
      const sharedBefore = sharedLeft.get(topic) ?? sharedRequests;
      const limit = budgets ? planned.limit + sharedBefore : undefined;
      const sent = () => scope.sent;
      let refused: Error | undefined;
      const api = guarded(shared, { limit, writes: spec.writes, used: sent, onRefused: (error) => (refused ??= error) });
      const keep = (x: ApiResponse | Exchange) => {
        if (live.evidence.length < EVIDENCE_LIMIT) live.evidence.push(exchangeOf(x));
      };
      // The first reading taken that breaks a client: the check warns with it once its body has run.
      let breaking: ConformanceFailure | undefined;
      const t: CheckContext = {
        checkId: meta.checkId,
        config,
        api,
        writes: spec.writes,
        skip(reason, kind) {
          throw new CheckSkipped(reason, kind);
        },
        note: (text) => void live.notes.push(text),
        advise: (text) => void live.advisories.push(text),
        reading(point, choice, detail, ...responses) {
          const taken = (live.readings ??= []);
          if (!taken.some((r) => r.point === point && r.choice === choice && r.detail === detail)) {
            taken.push({ point, choice, ...(detail !== undefined ? { detail } : {}) });
          }
          const p = readingPoints[point];
          const c = p.choices[choice];
          const warns = p.warns;
          const site = currentSite();
          // The check that cites the point's `should` warns; any other that meets it records it.
          if (!c?.breaks || !warns || !spec.requirements.includes(warns) || breaking || isWeakened(site)) return;
          const faithful = Object.values(p.choices).filter((x) => !x.breaks).map((x) => x.text);
          breaking = new ConformanceFailure({
            requirement: warns,
            expected: `${p.title}: ${faithful.join(', or ')}`,
            actual: `${c.text}${detail ? ` (${detail})` : ''}: ${c.breaks}`,
            exchanges: responses.map(exchangeOf),
            ...(site ? { site } : {}),
          });
        },
        evidence: (...xs) => xs.forEach(keep),
        matrix: (cells) => void (live.matrix = [...(live.matrix ?? []), ...cells]),
        fail(requirement, expected, actual, ...responses) {
          const site = currentSite();
          // A weakened site (npm run mutate) cannot fail: the check goes on as if it had held.
          if (isWeakened(site)) return undefined as never;
          throw new ConformanceFailure({ requirement, expected, actual, exchanges: responses.map(exchangeOf), ...(site ? { site } : {}) });
        },
        expect(ok, requirement, expected, actual, ...responses) {
          if (!ok) t.fail(requirement, expected, actual, ...responses);
        },
        fixture(key) {
          if (!declared.has(key)) throw new UndeclaredNeed(`${meta.checkId} reads the fixture ${key} without declaring it in needs`);
          if (!supplied(config, key)) t.skip(missingReason(config, [key]));
          return config.fixtures[key]!;
        },
        app(which) {
          const need: Need = `${which}App`;
          if (!declared.has(need)) throw new UndeclaredNeed(`${meta.checkId} uses the ${which} application without declaring ${need} in needs`);
          return config.apps[which] ?? t.skip(needsReason([need]));
        },
      };
      if (sweepOnly) {
        await options.sweep!(t).catch(() => undefined);
        return {};
      }
      // A suite may quote a body that echoes a credential: nothing leaves the worker unredacted.
      const redact = (text: string) => (api.redact ? api.redact(text) : text);
      try {
        if (planned.skip) t.skip(planned.skip.reason, planned.skip.kind);
        const maxFailures = config.settings.maxFailures;
        if (maxFailures !== undefined && failuresSoFar >= maxFailures) {
          t.skip(`not run: the run stopped after ${maxFailures} failed check${maxFailures > 1 ? 's' : ''} (--max-failures ${maxFailures})`);
        }
        await body(t);
        if (breaking) throw breaking;
        // A refusal the check swallowed still makes it an error.
        if (refused instanceof UndeclaredWrite) throw new UndeclaredWrite(refused.message);
        // A token fetch or a Retry-After retry inside one send can pass the budget: still an error.
        if (limit !== undefined && (refused || sent() > limit)) {
          throw new CheckBudgetExceeded(
            refused
              ? `the check wanted to send more than its request budget of ${limit} (maxRequests and its topic's shared allowance); it was stopped`
              : `the check sent ${sent()} requests, more than its request budget of ${limit} (maxRequests and its topic's shared allowance)`,
          );
        }
      } catch (error) {
        if (error instanceof Error) {
          error.message = redact(error.message);
          if (error.stack) error.stack = redact(error.stack);
        }
        if (error instanceof CheckSkipped) {
          live.skipReason = error.message;
          live.skipKind = error.kind;
          return { skip: error.message };
        }
        if (error instanceof ConformanceFailure) {
          // A broken `should` is a warning, not a failure (harness/reporter.ts checkStatusOf).
          if (requirementById(error.requirement)?.level !== 'should') failuresSoFar++;
          error.exchanges.forEach(keep);
          if (error.counterexample) live.counterexample = error.counterexample;
          live.failure = {
            requirement: error.requirement,
            section: requirementById(error.requirement)?.section ?? '?',
            expected: error.expected,
            actual: error.actual,
            message: error.message,
            ...(error.site ? { site: error.site } : {}),
          };
        }
        return { error };
      } finally {
        // The check's exchanges reach the run's log before the next check (or the end of the run).
        flushExchangeLog();
        if (limit !== undefined) live.requestsSent = sent();
        // What the check sent beyond its own budget came out of the topic's shared allowance.
        sharedLeft.set(topic, Math.max(0, sharedBefore - Math.max(0, sent() - planned.limit)));
        live.notes = live.notes.map(redact);
        live.advisories = live.advisories.map(redact);
        if (live.matrix) live.matrix = live.matrix.map((c) => ({ ...c, ...(c.reason ? { reason: redact(c.reason) } : {}), ...(c.curl ? { curl: redact(c.curl) } : {}) }));
        if (live.readings) live.readings = live.readings.map((r) => (r.detail === undefined ? r : { ...r, detail: redact(r.detail) }));
        if (live.skipReason) live.skipReason = redact(live.skipReason);
        if (live.counterexample) live.counterexample = redact(live.counterexample);
        if (live.failure) {
          const f = live.failure;
          live.failure = { ...f, expected: redact(f.expected), actual: redact(f.actual), message: redact(f.message) };
        }
      }
      return {};
    };
    declareRunnable(meta.checkId, {
      readsRun: options.readsRun === true || spec.readsRun === true,
      ...(options.independent ? { independent: true } : {}),
      ...(spec.alone !== undefined ? { alone: spec.alone } : {}),
      ...(spec.readsNoLog ? { early: true } : {}),
      ...(spec.timeout !== undefined ? { timeoutMs: spec.timeout } : {}),
      // A check skipped before it sends anything sends no sweep either: the next reader does.
      ...(options.sweep && !planned.skip && !spec.readsNoLog ? { sweep: sweepEarly } : {}),
      execute,
    }, meta);
    // Overlapped, the test only waits for its check and the lanes hold the check to its timeout.
    const timeout = runConfig.overlap ? 0 : spec.timeout;
    declareTest(`${spec.title} [${spec.requirements.join(', ')}]`, { meta: { conformance: meta }, timeout }, async (ctx) => {
      const live = ctx.task.meta.conformance ?? meta;
      // When the checks overlap the lanes run it and its test only waits; otherwise it runs here.
      const outcome = await (laneOutcome(meta.checkId) ?? execute(live, { sent: 0 }));
      if (outcome.skip !== undefined) ctx.skip(outcome.skip);
      if (outcome.error !== undefined) throw outcome.error;
    });
    return planned.skip === undefined;
  };
}
