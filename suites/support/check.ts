// Declares one check of a topic: a vitest test whose meta the reporter reads as data.
import { it } from 'vitest';
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { requirementById } from '../../spec/requirements.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import type { CheckMeta, Exchange, SuiteConfig, Topic } from '../../harness/model.ts';
import { CheckSkipped, ConformanceFailure } from './failure.ts';
import { suiteContext } from './context.ts';

export interface CheckContext {
  config: SuiteConfig;
  api: ApiClient;
  /** Skip with a stated reason (profile, missing fixture, fault not observable). */
  skip(reason: string): never;
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
}

const EVIDENCE_LIMIT = 10;

function exchangeOf(x: ApiResponse | Exchange): Exchange {
  return 'exchange' in x ? x.exchange : x;
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
    };
    it(`${spec.title} [${spec.requirements.join(', ')}]`, { meta: { conformance: meta } as never, timeout: spec.timeout }, async (ctx) => {
      const live = (ctx.task.meta as unknown as { conformance: CheckMeta }).conformance;
      const { config, api } = await suiteContext();
      live.seed = config.settings.seed;
      const keep = (x: ApiResponse | Exchange) => {
        if (live.evidence.length < EVIDENCE_LIMIT) live.evidence.push(exchangeOf(x));
      };
      const t: CheckContext = {
        config,
        api,
        skip(reason) {
          throw new CheckSkipped(reason);
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
      } catch (error) {
        if (error instanceof Error) {
          error.message = redact(error.message);
          if (error.stack) error.stack = redact(error.stack);
        }
        if (error instanceof CheckSkipped) {
          live.skipReason = error.message;
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
