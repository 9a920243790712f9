// "Bulk lifecycle waits on a host" (issue 20): how long after the host's own timeline settled a bulk
// the checker first read it settled, for the bulks of `every-observation-consistent` in a run against
// the reference served as a distant host. Goal: polls follow the host's timeline within 0.5 s.
//
// Every moment is the host's own clock, read from the answers (the exchange log keeps no time of
// day): a bulk's acceptance is its `accepted_at` (202 body); the host settles it COMPLETED_AT after
// acceptance when it carries no retries, RETRIES_SETTLE_AT after when it does (reference/lifecycle.ts:
// bulks of two or more rows); the poll waits for `completed` with `settled` not false (`untilSettled`,
// suites/support/bulk.ts). A read's moment is its `delivery_summary.as_of` (the host's "now");
// a read before delivery reporting began has none, and is taken at the latest moment it can have
// been, DELIVERY_REPORTING_AT after acceptance, so its lag is an upper bound (`bound`).
import type { Exchange } from '../core/model.ts';
import type { RunResult } from '../harness/result.ts';
import { COMPLETED_AT, DELIVERY_REPORTING_AT, RETRIES_SETTLE_AT, assignFates } from '../reference/lifecycle.ts';

/** The check whose bulks the figure follows. */
export const LAG_CHECK = 'bulk-invariants/every-observation-consistent';
/** Issue 20's goal for the lag. */
export const LAG_GOAL_MS = 500;

export interface BulkLag {
  bulkId: string;
  lagMs: number;
  /** The settled read carried no `as_of`: the lag is at most `lagMs`. */
  bound: boolean;
}

export interface SettleLags {
  lags: BulkLag[];
  /** Bulks accepted but never read settled. */
  unsettled: string[];
}

const object = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function bodyOf(exchange: Exchange): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(exchange.response?.body ?? '');
    return object(json) ? json : undefined;
  } catch {
    return undefined;
  }
}

const pathOf = (url: string) => new URL(url).pathname.replace(/\/+$/, '');

/** Lags of every bulk the exchanges accept and read, in the order they were accepted. */
export function settleLags(exchanges: readonly Exchange[]): SettleLags {
  const bulks = new Map<string, { settleAt: number; acceptedAt: number; lag?: BulkLag }>();
  for (const exchange of exchanges) {
    const path = pathOf(exchange.request.url);
    const body = bodyOf(exchange);
    if (!body) continue;
    if (exchange.request.method === 'POST' && path.endsWith('/bulk-messages') && exchange.response?.status === 202) {
      const acceptedAt = Date.parse(String(body.accepted_at));
      const rows = object(body.intake) && typeof body.intake.good === 'number' ? body.intake.good : Number.NaN;
      if (typeof body.id !== 'string' || Number.isNaN(acceptedAt) || Number.isNaN(rows)) continue;
      const retries = assignFates(rows).some((fate) => fate.startsWith('retry'));
      bulks.set(body.id, { acceptedAt, settleAt: acceptedAt + (retries ? RETRIES_SETTLE_AT : COMPLETED_AT) });
      continue;
    }
    const bulk = exchange.request.method === 'GET' && exchange.response?.status === 200 ? bulks.get(path.slice(path.lastIndexOf('/') + 1)) : undefined;
    if (!bulk || bulk.lag || body.status !== 'completed' || body.settled === false) continue;
    const asOf = object(body.delivery_summary) ? Date.parse(String(body.delivery_summary.as_of)) : Number.NaN;
    const readAt = Number.isNaN(asOf) ? bulk.acceptedAt + DELIVERY_REPORTING_AT : asOf;
    bulk.lag = { bulkId: path.slice(path.lastIndexOf('/') + 1), lagMs: Math.max(0, readAt - bulk.settleAt), bound: Number.isNaN(asOf) };
  }
  const lags: BulkLag[] = [];
  const unsettled: string[] = [];
  for (const [id, bulk] of bulks) {
    if (bulk.lag) lags.push(bulk.lag);
    else unsettled.push(id);
  }
  return { lags, unsettled };
}

/**
 * The log lines of one check: the log holds the requests made outside checks first (the tokens the
 * lanes obtain before any check), then each check's in report order, as many as its `requestsSent`.
 * Undefined when the check is not in the report, or the lines do not add up (a 429 the client waited
 * out is logged without being counted as sent).
 */
export function checkLines<T>(report: RunResult, lines: readonly T[], checkId: string): T[] | undefined {
  const checks = report.topics.flatMap((t) => t.checks);
  const at = checks.findIndex((c) => c.id === checkId);
  if (at < 0) return undefined;
  const sent = (c: (typeof checks)[number]) => c.requestsSent ?? 0;
  const outside = lines.length - checks.reduce((sum, c) => sum + sent(c), 0);
  if (outside < 0) return undefined;
  const start = outside + checks.slice(0, at).reduce((sum, c) => sum + sent(c), 0);
  return lines.slice(start, start + sent(checks[at]!));
}

/** The figure of one run: the lags of LAG_CHECK's bulks, or undefined when its lines are not found. */
export function runSettleLags(report: RunResult, lines: readonly string[]): SettleLags | undefined {
  const own = checkLines(report, lines, LAG_CHECK);
  if (!own || own.length === 0) return undefined;
  const exchanges = own.map((line) => JSON.parse(line) as Exchange);
  // Every line of the check submits or reads a bulk, its first a submission and its last a read
  // (the check submits its batch, then reads each bulk to its end): anything else means the slice is off.
  if (!exchanges.every((x) => /\/bulk-messages(\/[^/]+)?$/.test(pathOf(x.request.url)))) return undefined;
  if (exchanges[0]!.request.method !== 'POST' || exchanges[exchanges.length - 1]!.request.method !== 'GET') return undefined;
  return settleLags(exchanges);
}
