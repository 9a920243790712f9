// bench/bulk-lag.ts: the lag between the host settling a bulk (its own timeline, reference/lifecycle.ts)
// and the first read that showed it settled, on synthetic exchanges with known lags.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../core/model.ts';
import type { RunResult } from '../../harness/result.ts';
import { LAG_CHECK, checkLines, runSettleLags, settleLags } from '../../bench/bulk-lag.ts';
import { COMPLETED_AT, DELIVERY_REPORTING_AT, RETRIES_SETTLE_AT } from '../../reference/lifecycle.ts';

const BASE = 'http://127.0.0.1:8080/v1/businesses/b1/sms/bulk-messages';
const T0 = Date.parse('2026-11-25T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function exchange(method: 'GET' | 'POST', url: string, status: number, body: unknown): Exchange {
  return { request: { method, url, headers: {} }, response: { status, headers: {}, body: JSON.stringify(body) }, durationMs: 50, curl: '' };
}

/** The 202 of a bulk of `rows` distinct numbers accepted at `at`. */
const accepted = (id: string, rows: number, at: number) =>
  exchange('POST', BASE, 202, { id, status: 'queued', settled: false, accepted_at: iso(at), intake: { good: rows, bad: 0, empty: 0 } });

/** A read of it; `asOf` is the host's moment when delivery reporting had begun. */
const read = (id: string, status: string, settled: boolean, asOf?: number) =>
  exchange('GET', `${BASE}/${id}`, 200, { id, status, settled, delivery_summary: asOf === undefined ? null : { as_of: iso(asOf), complete: settled, outcomes_resolved: 0 } });

describe('settleLags', () => {
  it('measures each bulk from its settling on the host to the first read that showed it settled', () => {
    const exchanges = [
      accepted('one', 1, T0),
      accepted('three', 3, T0 + 10),
      accepted('never', 2, T0 + 20),
      read('one', 'processing', false),
      read('three', 'processing', false),
      // One row carries no retries: settled at completion; read before delivery reporting (no as_of).
      read('one', 'completed', true),
      // Completed with retries outstanding is not yet the state the poll waits for.
      read('three', 'completed', false, T0 + 10 + 700),
      read('three', 'completed', true, T0 + 10 + RETRIES_SETTLE_AT + 300),
      // Later reads of a settled bulk do not count.
      read('three', 'completed', true, T0 + 10 + RETRIES_SETTLE_AT + 900),
      read('never', 'completed', false, T0 + 20 + 700),
      // Another path under the bulk (its recipients) is no read of the bulk.
      exchange('GET', `${BASE}/never/recipients`, 200, { data: [] }),
    ];
    const { lags, unsettled } = settleLags(exchanges);
    expect(lags).toEqual([
      { bulkId: 'one', lagMs: DELIVERY_REPORTING_AT - COMPLETED_AT, bound: true },
      { bulkId: 'three', lagMs: 300, bound: false },
    ]);
    expect(unsettled).toEqual(['never']);
  });

  it('takes a read that carries its moment over the bound', () => {
    const { lags } = settleLags([accepted('one', 1, T0), read('one', 'completed', true, T0 + COMPLETED_AT + 40)]);
    expect(lags).toEqual([{ bulkId: 'one', lagMs: 40, bound: false }]);
  });
});

describe('checkLines', () => {
  const report = (checks: Array<[string, number]>) =>
    ({ topics: [{ id: 'bulk-invariants', checks: checks.map(([id, requestsSent]) => ({ id, requestsSent })) }] }) as unknown as RunResult;

  it('finds a check by the requests of the checks before it, after the requests made outside checks', () => {
    const lines = ['token', 'token', 'a1', 'b1', 'b2', 'c1'];
    expect(checkLines(report([['a', 1], ['b', 2], ['c', 1]]), lines, 'b')).toEqual(['b1', 'b2']);
    expect(checkLines(report([['a', 1]]), lines, 'b')).toBeUndefined();
    expect(checkLines(report([['a', 9]]), lines, 'a')).toBeUndefined();
  });

  it('gives no figure when the lines found are not the bulks of the check', () => {
    const lines = [accepted('one', 1, T0), read('one', 'completed', true, T0 + 500)].map((x) => JSON.stringify(x));
    expect(runSettleLags(report([[LAG_CHECK, 2]]), lines)?.lags).toEqual([{ bulkId: 'one', lagMs: 100, bound: false }]);
    // A request made outside checks after them (not at the start) shifts the slice onto it.
    const off = [...lines, JSON.stringify(exchange('GET', 'http://127.0.0.1:8080/v1/businesses/b1/wallet/balance', 200, {}))];
    expect(runSettleLags(report([[LAG_CHECK, 2]]), off)).toBeUndefined();
    // A slice shifted by one onto the previous check's read of a bulk: it starts with no submission.
    const shifted = [JSON.stringify(read('zero', 'completed', true, T0)), lines[0]!];
    expect(runSettleLags(report([[LAG_CHECK, 2]]), shifted)).toBeUndefined();
  });
});
