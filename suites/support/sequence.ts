// Model-based sequences (the sequences topic): how many sequences a run makes and how long they
// are (from --runs, so `plan` can say it before anything is sent), the request budget that follows,
// and the numbered steps a failing sequence is reported as.
import type { ApiResponse } from '../../harness/client.ts';

export interface SequencePlan {
  /** Sequences generated (fast-check cases). */
  sequences: number;
  /** Steps of one sequence at most. */
  maxSteps: number;
}

const clamp = (n: number, min: number, max: number) => Math.max(min, Math.min(max, n));

/**
 * Five sequences for the default 25 runs, each an opening and one step of every kind
 * (OPENING_STEPS + KIND_STEPS); more sequences as --runs grows.
 */
export function sequencePlan(runs: number): SequencePlan {
  return { sequences: clamp(Math.ceil(runs / 5), 2, 24), maxSteps: SEQUENCE_STEPS };
}

/**
 * Steps of a sequence's opening (a bulk of its own, the fixture walked, its bulk listed whole, a
 * second bulk, the first read, listed under a number filter, listed whole at the largest page size, and under a status filter).
 */
export const OPENING_STEPS = 8;
/** Steps after it: one of every kind of operation, in a random order. */
export const KIND_STEPS = 9;
const SEQUENCE_STEPS = OPENING_STEPS + KIND_STEPS;

/** The most requests one step sends: a listing walk of at most this many pages. */
export const MAX_STEP_REQUESTS = 6;

/**
 * Requests the sequences may send, shrinking included: about one and a half a step on average for
 * the sequences themselves, and the rest for shrinking a failure (each attempt replays a sequence up
 * to its failing step). A step starts only while a whole walk still fits, so a run never passes it:
 * late steps, then shrinking, end when the allowance does. A passing run spends the first part only.
 */
export function sequenceBudget(runs: number): number {
  const { sequences, maxSteps } = sequencePlan(runs);
  return Math.ceil(sequences * maxSteps * 1.5) + 20 * maxSteps;
}

/** One step of a sequence as the report tells it. */
export interface Step {
  operation: string;
  responses: ApiResponse[];
  /** What the model predicted, when the step failed. */
  expected?: string;
}

function requestLine(res: ApiResponse): string {
  const { method, url } = res.exchange.request;
  let path = url;
  try {
    const u = new URL(url);
    path = u.pathname + u.search;
  } catch {
    // keep the URL as recorded
  }
  return `${method} ${path} → ${res.status}`;
}

/** The numbered steps, each with its requests, answers and curl lines; the failing step says what the model expected. */
export function describeSteps(steps: readonly Step[]): string {
  return steps
    .map((step, i) => {
      const lines = [`${i + 1}. ${step.operation}`];
      for (const res of step.responses) lines.push(`   ${requestLine(res)}`, `   ${res.exchange.curl}`);
      if (step.expected !== undefined) lines.push(`   the model expected: ${step.expected}`);
      return lines.join('\n');
    })
    .join('\n');
}
