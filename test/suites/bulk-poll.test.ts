// Polls of a bulk's lifecycle follow the host's pace: short first reads, a capped backoff, and a
// read's Retry-After (seconds or an HTTP-date) honoured; every read is one request of the check.
// Timers and the clock are vitest's fake ones, so the gaps are the delays the poll asked for, not
// a loaded machine's lateness (a real 100 ms wait once measured 205 ms in CI).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiRequest, ApiResponse } from '../../harness/client.ts';
import type { CheckContext } from '../../suites/support/check.ts';
import { maxPollReads, pollUntilCompleted } from '../../suites/support/bulk.ts';

/** A host whose bulk completes `completesAfterMs` after the first read; `retryAfter` on every read before. */
function hostCheck(completesAfterMs: number, retryAfter?: string): { t: CheckContext; reads: number[] } {
  const reads: number[] = [];
  let first: number | undefined;
  const send = async (request: ApiRequest): Promise<ApiResponse> => {
    const now = Date.now();
    first ??= now;
    reads.push(now - first);
    expect(request.method).toBe('GET');
    const completed = now - first >= completesAfterMs;
    const json = { id: 'b', status: completed ? 'completed' : 'processing', settled: completed };
    const headers: Record<string, string> = completed || retryAfter === undefined ? {} : { 'retry-after': retryAfter };
    return { status: 200, headers, text: JSON.stringify(json), json, exchange: {} as never };
  };
  const t = {
    config: { settings: { settleTimeoutMs: 10_000 }, target: { embedded: false } },
    api: { send },
    fixture: () => 'business',
  } as unknown as CheckContext;
  return { t, reads };
}

/** Runs a poll to its end on the fake clock. */
async function settle<T>(poll: Promise<T>): Promise<T> {
  await vi.runAllTimersAsync();
  return poll;
}

describe('bulk lifecycle polling against a host', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads soon after acceptance, backs off by half up to 0.5 s, and sees completion within 0.5 s of it', async () => {
    const { t, reads } = hostCheck(1_800);
    const result = await settle(pollUntilCompleted(t, 'b', undefined, { untilSettled: true }));
    expect(result.completed).toBe(true);
    const gaps = reads.slice(1).map((at, i) => at - reads[i]!);
    expect(gaps[0]).toBeLessThan(200);
    for (const gap of gaps) expect(gap).toBeLessThan(650);
    expect(reads.at(-1)! - 1_800).toBeLessThanOrEqual(550);
    // The plan's bound holds the reads a run makes.
    expect(reads.length).toBeLessThanOrEqual(maxPollReads({ settleTimeoutMs: 10_000, embedded: false }));
  });

  it("waits as long as a read's Retry-After asks", async () => {
    const { t, reads } = hostCheck(900, '1');
    await settle(pollUntilCompleted(t, 'b'));
    expect(reads).toHaveLength(2);
    expect(reads[1]!).toBeGreaterThanOrEqual(990);
  });
});
