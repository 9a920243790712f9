// Declares one check of a topic: a vitest test whose meta the reporter reads as data.
import { it } from 'vitest';
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { requirementById } from '../../spec/requirements.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { flushExchangeLog } from '../../harness/exchange-log.ts';
import type { CheckMeta, Exchange, RequestBudget, SkipKind, SuiteConfig, Topic } from '../../harness/model.ts';
import { requestLimit } from '../../harness/model.ts';
import { CheckSkipped, ConformanceFailure } from './failure.ts';
import { suiteContext } from './context.ts';

export interface CheckContext {
  config: SuiteConfig;
  api: ApiClient;
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
  /** Keep an exchange as evidence (failures keep the exchanges they name automatically). */
  evidence(...responses: Array<ApiResponse | Exchange>): void;
  /** Throw a ConformanceFailure. */
  fail(requirement: RequirementId, expected: string, actual: string, ...responses: ApiResponse[]): never;
  /** Fail unless `ok`. */
  expect(ok: boolean, requirement: RequirementId, expected: string, actual: string, ...responses: ApiResponse[]): void;
}

export interface CheckSpec {
  /** Stable id within the topic (baselines and replay key on `${topic}/${id}`). */
  id: string;
  /** What is sent and what must happen. */
  title: string;
  requirements: RequirementId[];
  timeout?: number;
  /**
   * The most requests this check sends, token requests included (`conformance plan` prints it;
   * sending more is an ERROR of the check). Default: its topic's budget in harness/gating/plan.ts.
   */
  maxRequests?: RequestBudget;
}

const EVIDENCE_LIMIT = 10;

function exchangeOf(x: ApiResponse | Exchange): Exchange {
  return 'exchange' in x ? x.exchange : x;
}

/** Thrown when a check would send past its request budget: the check errors, it never passes. */
class CheckBudgetExceeded extends Error {
  override readonly name = 'CheckBudgetExceeded';
}

/**
 * The client as one check sees it: it refuses to send once the check has used its budget. Checks
 * of a file run one after another, so the shared client's counter measures this check alone.
 */
function budgeted(api: ApiClient, limit: number, used: () => number, onRefused: () => void): ApiClient {
  const refuse = () => {
    if (used() < limit) return;
    onRefused();
    throw new CheckBudgetExceeded(`the check reached its request budget of ${limit} (maxRequests); nothing more was sent`);
  };
  return {
    send: async (request) => (refuse(), api.send(request)),
    token: async (app) => api.token(app),
    tokenEndpoint: async (request) => (refuse(), api.tokenEndpoint(request)),
    idempotencyKey: (label) => api.idempotencyKey(label),
    get requestCount() {
      return api.requestCount;
    },
    ...(api.redact ? { redact: api.redact.bind(api) } : {}),
  };
}

/** `const check = checksFor('wallet')`, then `check({ id, title, requirements }, async (t) => ...)`. */
export function checksFor(topic: Topic) {
  return function check(spec: CheckSpec, body: (t: CheckContext) => Promise<void>): void {
    const meta: CheckMeta = {
      topic,
      checkId: `${topic}/${spec.id}`,
      requirements: spec.requirements,
      notes: [],
      advisories: [],
      evidence: [],
      ...(spec.maxRequests !== undefined ? { maxRequests: spec.maxRequests } : {}),
    };
    it(`${spec.title} [${spec.requirements.join(', ')}]`, { meta: { conformance: meta } as never, timeout: spec.timeout }, async (ctx) => {
      const live = (ctx.task.meta as unknown as { conformance: CheckMeta }).conformance;
      const { config, api: shared } = await suiteContext();
      live.seed = config.settings.seed;
      const budget = spec.maxRequests ?? config.settings.checkBudgets?.[topic];
      const limit = budget === undefined ? undefined : requestLimit(budget, config.settings.runs);
      const sentBefore = shared.requestCount;
      const sent = () => shared.requestCount - sentBefore;
      let refused = false;
      const api = limit === undefined ? shared : budgeted(shared, limit, sent, () => (refused = true));
      const keep = (x: ApiResponse | Exchange) => {
        if (live.evidence.length < EVIDENCE_LIMIT) live.evidence.push(exchangeOf(x));
      };
      const t: CheckContext = {
        config,
        api,
        skip(reason, kind) {
          throw new CheckSkipped(reason, kind);
        },
        note: (text) => void live.notes.push(text),
        advise: (text) => void live.advisories.push(text),
        evidence: (...xs) => xs.forEach(keep),
        fail(requirement, expected, actual, ...responses) {
          throw new ConformanceFailure({ requirement, expected, actual, exchanges: responses.map(exchangeOf) });
        },
        expect(ok, requirement, expected, actual, ...responses) {
          if (!ok) t.fail(requirement, expected, actual, ...responses);
        },
      };
      // A suite may quote a body that echoes a credential: nothing leaves the worker unredacted.
      const redact = (text: string) => (api.redact ? api.redact(text) : text);
      try {
        await body(t);
        // A token fetch or a Retry-After retry inside one send can pass the budget: still an error.
        if (limit !== undefined && (refused || sent() > limit)) {
          throw new CheckBudgetExceeded(
            refused
              ? `the check wanted to send more than its request budget of ${limit} (maxRequests); it was stopped`
              : `the check sent ${sent()} requests, more than its request budget of ${limit} (maxRequests)`,
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
          ctx.skip(error.message);
          return;
        }
        if (error instanceof ConformanceFailure) {
          error.exchanges.forEach(keep);
          const counterexample = (error as { counterexample?: string }).counterexample;
          if (counterexample) live.counterexample = counterexample;
          live.failure = {
            requirement: error.requirement,
            section: requirementById(error.requirement)?.section ?? '?',
            expected: error.expected,
            actual: error.actual,
            message: error.message,
          };
        }
        throw error;
      } finally {
        // The check's exchanges reach the run's log before the next check (or the end of the run).
        flushExchangeLog();
        if (limit !== undefined) live.requestsSent = sent();
        live.notes = live.notes.map(redact);
        live.advisories = live.advisories.map(redact);
        if (live.skipReason) live.skipReason = redact(live.skipReason);
        if (live.counterexample) live.counterexample = redact(live.counterexample);
        if (live.failure) {
          const f = live.failure;
          live.failure = { ...f, expected: redact(f.expected), actual: redact(f.actual), message: redact(f.message) };
        }
      }
    });
  };
}
