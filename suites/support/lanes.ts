// Overlapping checks against a distant host. A run against a host is a chain of round trips, so
// its checks run several at once (CONFORMANCE_CONCURRENCY lanes), in the one worker that holds the
// run's one client: the pacer (CONFORMANCE_RATE, 429s) and the request budget stay run-wide. vitest
// still runs the checks one after another in their declared order (suites/support/overlap.entry.ts
// loads every topic into one file); each check's test only waits here for its outcome, so reports
// list the checks in the same order as a sequential run. The lanes start while vitest still loads
// the later topics' suites (CPU) as the first topics wait on the host (round trips).
//
// What must stay ordered stays ordered:
// - a topic's checks run one after another in one lane (they share reads and a request allowance,
//   and some follow one another: deactivate, then deactivate again); topics overlap; a topic none
//   of whose checks follows another (`independent`: auth-ordering, validation, cursors) lends each
//   check a lane of its own (a shared read, one promise, then counts to whichever check asks first);
// - a check that declares `alone` (it reads a wallet balance around a submission) runs by itself
//   once the lanes have run every other topic (there no lane waits for the others to drain);
// - the checks that read the whole run's exchange log (`readsRun`: request-id, problem-details,
//   schemas) run last, one after another, once every other check has ended; a check of those
//   topics that reads no log (`early`) runs in a lane like the others, and its held lines are
//   written at its place among the readers, so the readers before it do not see them;
// - a reader topic's shared sweep (`sweep`: requests sent unconditionally, reading no log) runs
//   early in a lane too, counted to the topic's first reader check; its exchanges are held and
//   written at that check's place among the readers, just before its judging reads the log. What
//   is left after the `alone` checks is the readers' judging (CPU), not their round trips.
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
  /**
   * No check of its topic follows another or leaves state for the next (a shared read is one
   * promise): each may run in a lane of its own, beside the topic's other checks.
   */
  independent?: boolean;
  /** Why it must run with no other check running, if it must. */
  alone?: string;
  /** Among the readers, it reads no log: it runs early in a lane, its lines written at its place. */
  early?: boolean;
  /** Its own timeout (spec.timeout), else the run's check timeout. */
  timeoutMs?: number;
  /**
   * A reader's share of its topic's shared sweep, sent before its judging: the requests the
   * judging would send first, sent unconditionally and reading no log. When the lanes are open
   * the topic's first reader that has one runs it early in a lane, in `scope` (the scope its
   * judging then goes on in); it never throws (a failure stays with the sweep, which the judging
   * meets again).
   */
  sweep?(live: CheckMeta, scope: ExchangeScope): Promise<void>;
  execute(live: CheckMeta, scope: ExchangeScope): Promise<Outcome>;
}

/** The lanes of this run, open while the entry file collects and runs its checks. */
let open: LaneRun | undefined;
/** Outcomes of the checks the lanes run, by check id; absent when checks run one by one. */
const outcomes = new Map<string, Promise<Outcome>>();

/**
 * A check as it is declared (suites/support/check.ts): when the lanes are open it is queued at
 * once, so the lanes send the first topics' requests while vitest still loads the later suites.
 */
export function declareRunnable(checkId: string, runnable: Runnable, live: CheckMeta): void {
  open?.add(checkId, runnable, live);
}

/** The outcome of a check the lanes run, or undefined when its test runs it itself. */
export function laneOutcome(checkId: string): Promise<Outcome> | undefined {
  return outcomes.get(checkId);
}

interface Planned {
  live: CheckMeta;
  runnable: Runnable;
  /** Position among its topic's checks that read no log, where its log lines go. */
  index: number;
  resolve(outcome: Outcome): void;
  resolved?: boolean;
}

const timedOut = (ms: number) => new Error(`the check sent nothing for ${ms} ms (its timeout); the run went on without it`);

/**
 * Runs one check with its timeout; the outcome and the log lines it held back. The timeout counts
 * the time since the check last sent a request, not since it began: behind a host's rate limit the
 * run's one pace is shared by every lane, and a check of a hundred requests may rightly take minutes
 * (a 429 is the host's pacing, never the check's fault). A check that never ends still does: its
 * requests are bounded by its budget, and one that sends nothing meets the timeout.
 */
async function runOne(
  plan: Planned,
  checkTimeoutMs: number,
  hold: boolean,
  scope: ExchangeScope = { sent: 0, ...(hold ? { held: [] } : {}) },
  execute: () => Promise<Outcome> = () => plan.runnable.execute(plan.live, scope),
): Promise<{ outcome: Outcome; lines: string[] }> {
  const started = performance.now();
  const ms = plan.runnable.timeoutMs ?? checkTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<Outcome>((resolve) => {
    let seen = scope.sent;
    let lastSent = started;
    timer = setInterval(() => {
      const now = performance.now();
      if (scope.sent !== seen) {
        seen = scope.sent;
        lastSent = now;
      }
      if (now - lastSent < ms) return;
      // The run goes on without it: whatever it still tries to send is refused (harness/http-client.ts).
      scope.ended = `the check ended at its timeout of ${ms} ms`;
      resolve({ error: timedOut(ms) });
    }, Math.max(5, Math.min(1000, ms / 4)));
  });
  let outcome: Outcome;
  try {
    outcome = await Promise.race([execute().catch((error: unknown) => ({ error })), limit]);
  } finally {
    clearInterval(timer);
  }
  plan.live.durationMs = Math.round(performance.now() - started);
  const lines = scope.held ?? [];
  delete scope.held;
  return { outcome, lines };
}

export interface LaneOptions {
  lanes: number;
  checkTimeoutMs: number;
  logPath: string;
  /**
   * The topics in the order of a sequential run (harness/package.ts orderTopics): the log is written
   * in it, whatever order the topics are loaded and run in. Topics not named follow as first declared.
   */
  topicOrder?: string[];
  /** Runs before the first check (the applications' tokens). */
  before?: () => Promise<void>;
}

interface TopicQueue {
  queue: Planned[];
  order: number;
  /** Every check of the topic is declared (the next topic began, or all are). */
  sealed: boolean;
  /** The one reader whose topic's shared sweep this unit sends. */
  sweep?: true;
}

/**
 * Opens the lanes: checks declared from now on run in `lanes` lanes, a topic at a time per lane,
 * each topic as soon as all its checks are declared. `sealLanes` says that every check is.
 */
export function openLanes(options: LaneOptions): void {
  open = new LaneRun(options);
}

/** Every check is declared: the lanes finish the queued topics, then the `alone` checks, then the readers. */
export function sealLanes(): void {
  open?.seal();
}

/** A topic's part of the log: the lines of its checks that read no log, written in their order. */
interface LogPart {
  finished: Map<number, string[]>;
  declared: number;
  written: number;
  sealed: boolean;
}

class LaneRun {
  private readonly planned: Planned[] = [];
  private readonly topics = new Map<string, TopicQueue>();
  private readonly alone: Planned[] = [];
  private readonly readers: Planned[] = [];
  /** What the `early` readers left when their lane ran them, for their place among the readers. */
  private readonly ranEarly = new Map<Planned, { outcome: Outcome; lines: string[] }>();
  /** Topics whose shared sweep is planned early (one reader of each carries it). */
  private readonly sweepTopics = new Set<string>();
  /** What a reader's early sweep left: its held lines, its scope (its judging goes on in it), how long it took. */
  private readonly swept = new Map<Planned, { outcome: Outcome; lines: string[]; scope: ExchangeScope; ms: number }>();
  private sealed = false;
  private waiting: Array<() => void> = [];
  /** Lines are written in run order: a check's lines wait for those of every check before it. */
  private readonly parts = new Map<string, LogPart>();
  private readonly logOrder: string[];
  private writing = 0;

  constructor(private readonly options: LaneOptions) {
    this.logOrder = [...(options.topicOrder ?? [])];
    void this.drive();
  }

  add(checkId: string, runnable: Runnable, live: CheckMeta): void {
    if (outcomes.has(checkId)) return;
    let settle!: (outcome: Outcome) => void;
    outcomes.set(checkId, new Promise<Outcome>((r) => (settle = r)));
    let part = this.parts.get(live.topic);
    if (!part) {
      // Topics are declared one after another: a new one means the ones before are complete.
      for (const earlier of this.parts.values()) earlier.sealed = true;
      for (const earlier of this.topics.values()) earlier.sealed = true;
      this.wake();
      part = { finished: new Map(), declared: 0, written: 0, sealed: false };
      this.parts.set(live.topic, part);
      if (!this.logOrder.includes(live.topic)) this.logOrder.push(live.topic);
    }
    const plan: Planned = {
      live,
      runnable,
      // The order of a sequential run: declared order within the topic; the readers, which write
      // straight to the log, run after every other check.
      index: runnable.readsRun ? -1 : part.declared++,
      resolve: (outcome) => {
        if (plan.resolved) return;
        plan.resolved = true;
        settle(outcome);
      },
    };
    this.planned.push(plan);
    if (runnable.readsRun) this.readers.push(plan);
    if (runnable.readsRun && !runnable.early && runnable.sweep && !this.sweepTopics.has(live.topic)) {
      // The topic's shared sweep, early in a lane: a unit of its own, complete at once.
      this.sweepTopics.add(live.topic);
      this.topics.set(`${checkId} (sweep)`, { queue: [plan], order: this.topics.size, sealed: true, sweep: true });
      this.wake();
    }
    if (runnable.readsRun && !runnable.early) return;
    if (runnable.alone !== undefined) this.alone.push(plan);
    else if (runnable.independent || runnable.early) {
      // A unit of its own, complete as soon as it is declared.
      this.topics.set(checkId, { queue: [plan], order: this.topics.size, sealed: true });
      this.wake();
    } else {
      let topic = this.topics.get(live.topic);
      if (!topic) {
        topic = { queue: [], order: this.topics.size, sealed: false };
        this.topics.set(live.topic, topic);
      }
      topic.queue.push(plan);
    }
  }

  seal(): void {
    this.sealed = true;
    for (const topic of this.topics.values()) topic.sealed = true;
    for (const part of this.parts.values()) part.sealed = true;
    this.write();
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const go of waiting) go();
  }

  /** The complete topic not yet taken that plans the most requests (the longest chains first). */
  private take(): TopicQueue | undefined {
    const weight = (t: TopicQueue) => t.queue.reduce((sum, p) => sum + (p.live.maxRequests ?? 0), t.queue[0]?.live.sharedRequests ?? 0);
    let best: TopicQueue | undefined;
    for (const topic of this.topics.values()) {
      if (!topic.sealed || topic.queue.length === 0) continue;
      if (!best || weight(topic) > weight(best) || (weight(topic) === weight(best) && topic.order < best.order)) best = topic;
    }
    if (best) {
      const taken = { ...best, queue: [...best.queue] };
      best.queue.length = 0;
      return taken;
    }
    return undefined;
  }

  /** Writes what can be written: topic by topic in the log's order, each topic's checks in theirs. */
  private write(): void {
    while (this.writing < this.logOrder.length) {
      const part = this.parts.get(this.logOrder[this.writing]!);
      if (part) {
        for (let lines = part.finished.get(part.written); lines; lines = part.finished.get(part.written)) {
          writeExchangeLines(this.options.logPath, lines);
          part.finished.delete(part.written);
          part.written++;
        }
      }
      // A topic not declared (yet) is complete only once every check is declared.
      const complete = part ? part.sealed && part.written === part.declared : this.sealed;
      if (!complete) return;
      this.writing++;
    }
  }

  private async runHeld(plan: Planned): Promise<void> {
    const { outcome, lines } = await runOne(plan, this.options.checkTimeoutMs, true);
    this.parts.get(plan.live.topic)!.finished.set(plan.index, lines);
    this.write();
    plan.resolve(outcome);
  }

  /** An `early` reader: run now, its outcome and lines kept for its place among the readers. */
  private async runEarly(plan: Planned): Promise<void> {
    this.ranEarly.set(plan, await runOne(plan, this.options.checkTimeoutMs, true));
  }

  /** A reader topic's shared sweep: run now, held, its lines and scope kept for the reader's place. */
  private async runSweep(plan: Planned): Promise<void> {
    const scope: ExchangeScope = { sent: 0, held: [] };
    const started = performance.now();
    const { outcome, lines } = await runOne(plan, this.options.checkTimeoutMs, true, scope, async () => {
      await plan.runnable.sweep!(plan.live, scope);
      return {};
    });
    this.swept.set(plan, { outcome, lines, scope, ms: performance.now() - started });
  }

  private async lane(): Promise<void> {
    for (;;) {
      const next = this.take();
      if (next?.sweep) {
        await this.runSweep(next.queue[0]!);
        continue;
      }
      if (next) {
        for (const plan of next.queue) await (plan.runnable.early && plan.runnable.readsRun ? this.runEarly(plan) : this.runHeld(plan));
        continue;
      }
      if (this.sealed) return;
      await new Promise<void>((go) => this.waiting.push(go));
    }
  }

  private async drive(): Promise<void> {
    try {
      await this.options.before?.();
    } catch {
      // The checks meet the same failure themselves and report it.
    }
    try {
      await Promise.all(Array.from({ length: Math.max(1, this.options.lanes) }, () => this.lane()));
      // With no other check running: the `alone` ones, in their order.
      for (const plan of this.alone) await this.runHeld(plan);
      flushExchangeLog();
      for (const plan of this.readers) {
        const early = this.ranEarly.get(plan);
        if (early) {
          writeExchangeLines(this.options.logPath, early.lines);
          plan.resolve(early.outcome);
          continue;
        }
        const swept = this.swept.get(plan);
        if (swept) {
          // Its topic's sweep ran early: its lines go to the log here, before the judging reads it.
          writeExchangeLines(this.options.logPath, swept.lines);
          if (swept.outcome.error !== undefined) {
            // The sweep met its timeout: the run went on without it, and so does its reader.
            plan.live.durationMs = Math.round(swept.ms);
            plan.resolve(swept.outcome);
            continue;
          }
        }
        // Alone and in order, writing straight to the log: a reader reads its own requests back
        // (its sweep's too, sent early, in the same scope: they count to it).
        const { outcome } = await runOne(plan, this.options.checkTimeoutMs, false, swept?.scope);
        if (swept) plan.live.durationMs = Math.round((plan.live.durationMs ?? 0) + swept.ms);
        plan.resolve(outcome);
      }
    } catch (error) {
      // A fault of the lanes themselves: every check not yet ended errs with it, none waits forever.
      for (const plan of this.planned) plan.resolve({ error });
    }
  }
}
