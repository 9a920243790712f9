// Overlapping checks against a distant host. A run against a host is a chain of round trips, so
// its checks run several at once (CONFORMANCE_CONCURRENCY lanes), in the one worker that holds the
// run's one client: the pacer (CONFORMANCE_RATE, 429s) and the request budget stay run-wide. vitest
// still runs the checks one after another in their declared order (suites/support/overlap.entry.ts
// loads every topic into one file); each check's test only waits here for its outcome, so reports
// list the checks in the same order as a sequential run.
//
// What must stay ordered stays ordered:
// - a topic's checks run one after another in one lane (they share reads and a request allowance,
//   and some follow one another: deactivate, then deactivate again); topics overlap;
// - a check that declares `alone` (it reads a wallet balance around a submission) runs before the
//   lanes start, by itself (there, no lane has to drain and wait for it);
// - the checks that read the whole run's exchange log (`readsRun`: request-id, problem-details,
//   schemas) run last, one after another, once every other check has ended.
// Each check's exchanges are held back while it runs and written to the log in check order when it
// ends (harness/exchange-log.ts scopes), so for a seed the log is in the same order however the
// checks overlapped, and a reader of the log sees the same exchanges as in a sequential run.
import type { CheckMeta } from '../../core/model.ts';
import { flushExchangeLog, writeExchangeLines, type ExchangeScope } from '../../harness/exchange-log.ts';

/** How a check ended: passed (nothing), skipped (the reason), or the error its test throws. */
export interface Outcome {
  skip?: string;
  error?: unknown;
}

export interface Runnable {
  /** Reads the whole run's exchange log: runs after every other check. */
  readsRun: boolean;
  /** Why it must run with no other check running, if it must. */
  alone?: string;
  /** Its own timeout (spec.timeout), else the run's check timeout. */
  timeoutMs?: number;
  execute(live: CheckMeta, scope: ExchangeScope): Promise<Outcome>;
}

/** Every check declared in this worker, by check id (suites/support/check.ts registers them). */
const declared = new Map<string, Runnable>();
/** Outcomes of the checks the lanes run, by check id; absent when checks run one by one. */
const outcomes = new Map<string, Promise<Outcome>>();

export function declareRunnable(checkId: string, runnable: Runnable): void {
  declared.set(checkId, runnable);
}

/** The outcome of a check the lanes run, or undefined when its test runs it itself. */
export function laneOutcome(checkId: string): Promise<Outcome> | undefined {
  return outcomes.get(checkId);
}

interface Planned {
  live: CheckMeta;
  runnable: Runnable;
  /** Position in the run's order (the order of a sequential run), where its log lines go. */
  index: number;
  resolve(outcome: Outcome): void;
  resolved?: boolean;
}

const timedOut = (ms: number) => new Error(`the check did not end within ${ms} ms (its timeout); the run went on without it`);

/** Runs one check with its timeout; the outcome and the log lines it held back. */
async function runOne(plan: Planned, checkTimeoutMs: number, hold: boolean): Promise<{ outcome: Outcome; lines: string[] }> {
  const scope: ExchangeScope = { sent: 0, ...(hold ? { held: [] } : {}) };
  const started = performance.now();
  const ms = plan.runnable.timeoutMs ?? checkTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ error: timedOut(ms) }), ms);
  });
  let outcome: Outcome;
  try {
    outcome = await Promise.race([plan.runnable.execute(plan.live, scope).catch((error: unknown) => ({ error })), limit]);
  } finally {
    clearTimeout(timer);
  }
  plan.live.durationMs = Math.round(performance.now() - started);
  const lines = scope.held ?? [];
  // A check that outlived its timeout writes what it still sends straight to the log.
  delete scope.held;
  return { outcome, lines };
}

/**
 * Starts running `checks` (the tests vitest will run, in its order) in `lanes` lanes. Each check's
 * test then awaits `laneOutcome(checkId)`. `before` runs first (the shared token requests).
 */
export function startLanes(checks: CheckMeta[], options: { lanes: number; checkTimeoutMs: number; logPath: string; before?: () => Promise<void> }): void {
  const planned: Planned[] = [];
  for (const live of checks) {
    const runnable = declared.get(live.checkId);
    if (!runnable || outcomes.has(live.checkId)) continue;
    let settle!: (outcome: Outcome) => void;
    outcomes.set(live.checkId, new Promise<Outcome>((r) => (settle = r)));
    const plan: Planned = {
      live,
      runnable,
      index: -1,
      resolve: (outcome) => {
        if (plan.resolved) return;
        plan.resolved = true;
        settle(outcome);
      },
    };
    planned.push(plan);
  }
  // The order of a sequential run: every check that reads no log, then the readers.
  const early = planned.filter((p) => !p.runnable.readsRun);
  const readers = planned.filter((p) => p.runnable.readsRun);
  [...early, ...readers].forEach((p, i) => (p.index = i));
  const alone = early.filter((p) => p.runnable.alone !== undefined);

  // Lines are written in run order: a check's lines wait for those of every check before it.
  const finished = new Map<number, string[]>();
  let nextToWrite = 0;
  const commit = (index: number, lines: string[]) => {
    finished.set(index, lines);
    while (finished.has(nextToWrite)) {
      writeExchangeLines(options.logPath, finished.get(nextToWrite)!);
      finished.delete(nextToWrite);
      nextToWrite++;
    }
  };

  // One queue per topic, in run order; the topics that plan the most requests start first, so the
  // longest chains of round trips do not start last.
  const topics = new Map<string, Planned[]>();
  for (const p of early) if (p.runnable.alone === undefined) topics.set(p.live.topic, [...(topics.get(p.live.topic) ?? []), p]);
  const weight = (queue: Planned[]) => queue.reduce((sum, p) => sum + (p.live.maxRequests ?? 0), queue[0]?.live.sharedRequests ?? 0);
  const queues = [...topics.values()].map((queue, order) => ({ queue, order, weight: weight(queue) }));
  queues.sort((a, b) => b.weight - a.weight || a.order - b.order);

  const runHeld = async (plan: Planned) => {
    const { outcome, lines } = await runOne(plan, options.checkTimeoutMs, true);
    commit(plan.index, lines);
    plan.resolve(outcome);
  };
  const lane = async () => {
    for (let next = queues.shift(); next; next = queues.shift()) {
      for (const plan of next.queue) await runHeld(plan);
    }
  };

  void (async () => {
    try {
      await options.before?.();
    } catch {
      // The checks meet the same failure themselves and report it.
    }
    try {
      for (const plan of alone) await runHeld(plan);
      await Promise.all(Array.from({ length: Math.max(1, options.lanes) }, lane));
      flushExchangeLog();
      for (const plan of readers) {
        // Alone and in order, writing straight to the log: a reader reads its own requests back.
        const { outcome } = await runOne(plan, options.checkTimeoutMs, false);
        commit(plan.index, []);
        plan.resolve(outcome);
      }
    } catch (error) {
      // A fault of the lanes themselves: every check not yet ended errs with it, none waits forever.
      for (const plan of planned) plan.resolve({ error });
    }
  })();
}
