// The reference's notion of "now". Business time (acceptance, lifecycle, cursors, idempotency
// windows) reads this clock so tests can jump days ahead without waiting; the control origin
// advances it. Token expiry deliberately does not (see tokens.ts).

export interface Clock {
  /** Milliseconds since the epoch, as the reference sees it. */
  now(): number;
  /** Moves business time forward by `ms` (never backwards). */
  advance(ms: number): void;
}

export function createClock(source: () => number = Date.now): Clock {
  let offset = 0;
  return {
    now: () => source() + offset,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('clock advance must be a non-negative number of ms');
      offset += ms;
    },
  };
}

/** RFC 3339 in UTC with a `Z` offset (2.1 Timestamp: responses use UTC with `Z`). */
export function utc(ms: number): string {
  return new Date(ms).toISOString();
}
