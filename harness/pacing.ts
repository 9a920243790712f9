// The host's pace. A 429, or a 503, is the host asking the client to slow down: it is waited out
// and the request sent again, never judged as the answer (only the checks about rate limits and
// unavailability ask to see it). A known rate (CONFORMANCE_RATE) spaces the requests from the
// start; Retry-After and the RateLimit / X-RateLimit-* headers teach the pace as the run goes.

/** Longest a single request may wait for the host's pace before its check errors (exit 2). */
export const PACING_BOUND_MS = 120_000;
/** The pace an unknown host's first 429 sets: 20 a second. */
const FIRST_LEARNED_INTERVAL_MS = 50;
/** Slowest pace repeated 429s bring the client to (a known rate slower than it is kept). */
const SLOWEST_INTERVAL_MS = 2_000;

/** Seconds or an HTTP-date (RFC 9110); undefined when neither. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Milliseconds until the window resets when the headers say none is left: the IETF `RateLimit`
 * field (`limit=10, remaining=0, reset=3` or `r=0;t=3`), `RateLimit-Remaining`/`-Reset`, or
 * `X-RateLimit-Remaining`/`-Reset` (seconds, or an epoch time).
 */
export function exhaustedFor(headers: Record<string, string>, now = Date.now()): number | undefined {
  const field = headers['ratelimit'];
  let remaining: string | undefined = headers['ratelimit-remaining'] ?? headers['x-ratelimit-remaining'];
  let reset: string | undefined = headers['ratelimit-reset'] ?? headers['x-ratelimit-reset'];
  if (field !== undefined) {
    remaining ??= /(?:remaining|\br)\s*=\s*(\d+)/.exec(field)?.[1];
    reset ??= /(?:reset|\bt)\s*=\s*(\d+)/.exec(field)?.[1];
  }
  if (remaining === undefined || Number(remaining) > 0 || reset === undefined || !/^\d+$/.test(reset.trim())) return undefined;
  const seconds = Number(reset);
  // Large values are epoch seconds, small ones a delay.
  return seconds > 1e9 ? Math.max(0, seconds * 1000 - now) : seconds * 1000;
}

export class Pacer {
  /**
   * Least time between turns: the known rate's, raised by each 429 and never brought back (the host
   * said faster was too fast).
   */
  private interval: number;
  /** When the last turn was given. */
  private lastAt = Number.NEGATIVE_INFINITY;
  private pausedUntil = 0;
  /** When the interval was last raised for a 429. */
  private raisedAt = Number.NEGATIVE_INFINITY;
  /**
   * Requests waiting for their turn, first come first served. A turn is given at the pace in force
   * when it comes, not the one when it was asked for: slots booked ahead at a pace a 429 has since
   * slowed went out too fast, met 429s of their own and slowed the pace again for the same excess
   * (a 5/s host taught 2.7/s).
   */
  private readonly waiting: Array<(at: number) => void> = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(rate?: number) {
    this.interval = rate ? 1000 / rate : 0;
  }

  /** Waits for this request's turn; resolves to the time it is given (for `observe`). */
  turn(): Promise<number> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (this.timer === undefined) this.dispatch();
    });
  }

  /**
   * Gives the turns that are due. A pause a 429 asked for while a request waited (another request's,
   * in flight) holds it too, read when the timer fires, not when it was set.
   */
  private dispatch(): void {
    this.timer = undefined;
    while (this.waiting.length > 0) {
      const now = Date.now();
      const due = Math.max(this.lastAt + this.interval, this.pausedUntil);
      if (due > now) {
        this.timer = setTimeout(() => this.dispatch(), due - now);
        return;
      }
      this.lastAt = now;
      this.waiting.shift()!(now);
    }
  }

  /**
   * Reads an answer. For a pacing answer (429, 503) returns how long to wait before sending the
   * request again (`attempt` counts the pacing answers this request met); otherwise undefined.
   */
  observe(status: number, headers: Record<string, string>, attempt: number, sentAt?: number): number | undefined {
    const now = Date.now();
    const exhausted = exhaustedFor(headers, now);
    if (status !== 429 && status !== 503) {
      if (exhausted !== undefined) this.pausedUntil = Math.max(this.pausedUntil, now + Math.min(exhausted, PACING_BOUND_MS));
      return undefined;
    }
    const hinted = parseRetryAfter(headers['retry-after'], now) ?? exhausted;
    const wait = hinted ?? 250 * 2 ** Math.min(attempt, 6);
    // A wait longer than any request may make is not taken: the client gives up at once.
    if (wait <= PACING_BOUND_MS) this.pausedUntil = Math.max(this.pausedUntil, now + wait);
    // Requests in flight together (checks overlap) meet one 429 each for the same excess: the pace
    // slows once for all those sent before it was last slowed, not once for each of them.
    if (status === 429 && (sentAt === undefined || sentAt >= this.raisedAt)) {
      // 20 a second at the first 429 of an unknown pace; a known or learned one slows by a tenth
      // each time: a host's window edge meets a known rate with a 429 now and then, and halving for
      // it made a run told the host's exact rate slower than one that learned it (465 s against
      // 283), or, told a rate above 20 a second, dropped it to 20. Never faster than it was.
      const slower = this.interval === 0 ? FIRST_LEARNED_INTERVAL_MS : this.interval * 1.1;
      this.interval = Math.max(this.interval, Math.min(SLOWEST_INTERVAL_MS, slower));
      this.raisedAt = now;
    }
    return wait;
  }
}

/** One pacer per run and origin, shared by every client of the run (one per suite file). */
const pacers = new Map<string, Pacer>();

export function pacerFor(runId: string, origin: string, rate?: number): Pacer {
  const key = `${runId} ${origin}`;
  let pacer = pacers.get(key);
  if (!pacer) {
    pacer = new Pacer(rate);
    pacers.set(key, pacer);
  }
  return pacer;
}
