// Recipient listing walks (sections 2.6, 4.3): pages tell the truth about has_more/next_cursor and
// their own limit, filters hold on every row, and a cursor issued for one bulk SMS and filter set
// is refused elsewhere. Cursors are matched by value only; they are never decoded.
import { enumOf } from '../../spec/contract.ts';
import { isValidText as isValid } from '../valid.ts';
import { describe, kept, objectOf, type JudgeContext, type Observed } from '../context.ts';
import { leadingItems } from '../model.ts';
import { BoundedMap, type CheckDef, type Reducer, type Verdicts } from '../verdicts.ts';

const PAGE = 'traffic/cursors/page-truthful';
const FILTER = 'traffic/cursors/filters-hold';
const BOUND = 'traffic/cursors/cursor-bound';
const WALK = 'traffic/cursors/walk-no-repeat';

export const checks: CheckDef[] = [
  { id: PAGE, topic: 'cursors', title: 'a page gives a next_cursor whenever has_more is true, holds no more rows than its pagination.limit, and uses 100 when no page size is asked', requirements: ['CUR-HAS-MORE', 'CUR-LIMIT-APPLIED', 'CUR-DEFAULT-LIMIT'] },
  { id: FILTER, topic: 'cursors', title: 'every row of a filtered page matches the status or number filter; an unknown status value lists no rows', requirements: ['CUR-FILTER-STATUS', 'CUR-FILTER-TO', 'CUR-FILTER-STATUS-UNKNOWN', 'CUR-OMIT-FILTERS-NEXT-PAGE'] },
  { id: BOUND, topic: 'cursors', title: 'a cursor presented for another bulk SMS or with other filters is refused', requirements: ['CUR-BOUND', 'CUR-BOUND-FILTERS'] },
  { id: WALK, topic: 'cursors', title: 'following next_cursor never lists a row id twice', requirements: ['CUR-WALK'] },
];

interface Issue {
  business: string;
  bulk: string;
  status: string | null;
  to: string | null;
  seen: Set<string>;
  page: Observed;
  /** The page said has_more true: the cursor's page must hold a row. */
  promised: boolean;
  /** When the page was recorded (epoch ms), if the recording says. */
  issuedAt?: number;
}

/** A cursor's lifetime (section 8): past it the cursor can no longer be honoured, so it is let go. */
export const CURSOR_LIFETIME_MS = 24 * 3600 * 1000;
/**
 * Cursors kept at once: each holds its page and the row ids of its walk so far (up to thousands),
 * so fewer than other keys; a client follows a cursor soon after it gets it.
 */
export const CURSOR_LIMIT = 1024;

const STATUS_VALUES = enumOf('RecipientStatusFilter');

/**
 * `text.startsWith(head)`, compared from the end: two cursors part in their tail at once (and
 * startsWith took microseconds on a cursor read from a query against one read from JSON).
 */
function headOf(head: string, text: string): boolean {
  for (let i = head.length - 1; i >= 0; i--) if (head.charCodeAt(i) !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * A cursor that reads as an edited copy of one issued: same length with a few characters changed,
 * or the issued one cut or extended by a few characters. (Whether the server must refuse it is
 * not judged: an unsigned cursor may still decode to a page of the same bulk.)
 */
export function alteredFrom(cursor: string, issued: Iterable<string>): string | undefined {
  let close: string | undefined;
  for (const original of issued) {
    if (original === cursor) return undefined;
    if (close) continue;
    if (original.length === cursor.length) {
      // Counted from the end: cursors of one API share a long head (version, ordering, business)
      // and differ at once in their tail, so an unrelated cursor is told apart in a few characters.
      let differ = 0;
      for (let i = cursor.length - 1; i >= 0 && differ <= 4; i--) if (cursor.charCodeAt(i) !== original.charCodeAt(i)) differ++;
      if (differ <= 4) close = original;
    } else if (Math.abs(original.length - cursor.length) <= 4 && Math.min(original.length, cursor.length) >= 8 && (original.length > cursor.length ? headOf(cursor, original) : headOf(original, cursor))) {
      close = original;
    }
  }
  return close;
}

function rowsOf(o: Observed): Array<Record<string, unknown>> | undefined {
  const data = objectOf(o.json)?.data;
  return Array.isArray(data) ? data.map((r) => objectOf(r) ?? {}) : undefined;
}

/** The first rows of a page the recorder cut short (its pagination is lost): enough for the filter rules. */
function leadingRows(o: Observed): Array<Record<string, unknown>> {
  return o.responseKnown || o.ex.response.body === undefined ? [] : leadingItems(o.ex.response.body, 'data').map((r) => objectOf(r) ?? {});
}

function rowBreaks(row: Record<string, unknown>, status: string | null, to: string | null): string | undefined {
  if (status !== null && STATUS_VALUES.includes(status)) {
    const a = row.submission_status;
    const b = row.delivery_status;
    // Judged only when both statuses speak the filter's words (CUR-FILTER-STATUS assumption).
    if (STATUS_VALUES.includes(String(a)) && STATUS_VALUES.includes(String(b)) && a !== status && b !== status) return `row ${String(row.id)} with statuses ${String(a)}/${String(b)} under filter ${status}`;
  }
  if (to !== null && isValid('E164PhoneNumber', to) && row.to !== to) return `row ${String(row.id)} to ${String(row.to)} under number filter ${to}`;
  return undefined;
}

/** The filters of the request held on every row listed (all rows, or the first ones of a cut page). */
function judgeFilters(o: Observed, rows: Array<Record<string, unknown>>, status: string | null, to: string | null, v: Verdicts): void {
  if (status !== null && !STATUS_VALUES.includes(status)) {
    v.judge(FILTER, 'CUR-FILTER-STATUS-UNKNOWN', `a refusal or no row for the status value ${JSON.stringify(status)}`, rows.length > 0 ? `rows listed (${rows.length}${o.responseKnown ? '' : ' or more'})` : undefined, [o]);
  } else if (status !== null || (to !== null && isValid('E164PhoneNumber', to))) {
    const broken = rows.map((r) => rowBreaks(r, status, to)).find((x) => x !== undefined);
    v.judge(FILTER, status !== null && broken?.includes('statuses') ? 'CUR-FILTER-STATUS' : 'CUR-FILTER-TO', 'only rows matching the filter', broken, [o]);
  }
}

export function start(v: Verdicts, ctx: JudgeContext): Reducer {
  const names = ctx.params;
  const issued = new BoundedMap<string, Issue>(CURSOR_LIMIT);
  const see = (o: Observed): void => {
    if (o.op?.operationId !== 'listSmsBulkMessageRecipients' || o.pacing) return;
    // Cursors are kept in the order issued: those past their lifetime go first.
    const now = o.ex.startedAt;
    if (now !== undefined) {
      for (const [cursor, issue] of issued) {
        if (issue.issuedAt === undefined || issue.issuedAt >= now - CURSOR_LIFETIME_MS) break;
        issued.delete(cursor);
      }
    }
    const q = o.op.query;
    // A parameter given twice: which value a host reads is not described, so its rows are not judged.
    if (Object.values(names).some((name) => q.getAll(name).length > 1)) return;
    const business = o.op.params.businessId!;
    const bulk = o.op.params.bulkMessageId!;
    const cursor = q.get(names.cursor);
    const status = q.get(names.status);
    const to = q.get(names.to);
    const ok = o.status >= 200 && o.status < 300;
    const rows = ok ? rowsOf(o) : undefined;
    let walk: Issue | undefined;

    if (cursor) {
      const issue = issued.get(cursor);
      if (issue) {
        if (issue.business !== business || issue.bulk !== bulk) {
          v.judge(BOUND, 'CUR-BOUND', 'a refusal (400 validation_failed) of a cursor issued for another bulk SMS', ok ? describe(o) : undefined, [issue.page, o]);
        } else if ((status !== null && status !== issue.status) || (to !== null && to !== issue.to)) {
          v.judge(BOUND, 'CUR-BOUND-FILTERS', 'a refusal (400 validation_failed) of a cursor presented with other filters', ok ? describe(o) : undefined, [issue.page, o]);
        } else {
          walk = issue;
          if (rows && (status === null || to === null) && (issue.status !== null || issue.to !== null)) {
            const broken = rows.map((r) => rowBreaks(r, issue.status, issue.to)).find((x) => x !== undefined);
            v.judge(FILTER, 'CUR-OMIT-FILTERS-NEXT-PAGE', 'the next page still filtered as the cursor was issued (or a refusal)', broken, [issue.page, o]);
          }
        }
      }
    }
    if (!rows) {
      // Only a filtered page's rows are judged here: an unfiltered cut page is not scanned for them.
      const partial = ok && (status !== null || to !== null) ? leadingRows(o) : [];
      if (partial.length > 0) judgeFilters(o, partial, status, to, v);
      return;
    }
    const page = objectOf(o.json)!;
    const pagination = objectOf(page.pagination);
    if (!pagination) return; // the schema rule reports a missing envelope
    const limitAsked = q.get(names.limit);
    if (pagination.has_more === true) {
      v.judge(PAGE, 'CUR-HAS-MORE', 'a non-empty next_cursor when has_more is true', typeof pagination.next_cursor === 'string' && pagination.next_cursor !== '' ? undefined : `next_cursor ${JSON.stringify(pagination.next_cursor)}`, [o]);
    }
    if (typeof pagination.limit === 'number') {
      v.judge(PAGE, 'CUR-LIMIT-APPLIED', `at most pagination.limit (${pagination.limit}) rows`, rows.length > pagination.limit ? `${rows.length} rows` : undefined, [o]);
      if (limitAsked === null && !cursor) v.judge(PAGE, 'CUR-DEFAULT-LIMIT', 'pagination.limit 100 when no page size is asked', pagination.limit === 100 ? undefined : `pagination.limit ${pagination.limit}`, [o]);
    }
    if (limitAsked !== null && /^\d+$/.test(limitAsked) && Number(limitAsked) >= 1 && Number(limitAsked) <= 1000) {
      v.judge(PAGE, 'CUR-LIMIT-APPLIED', `at most the ${limitAsked} rows asked for`, rows.length > Number(limitAsked) ? `${rows.length} rows` : undefined, [o]);
    }
    const effectiveStatus = status ?? walk?.status ?? null;
    const effectiveTo = to ?? walk?.to ?? null;
    judgeFilters(o, rows, status, to, v);
    // The rows before this page in its walk (a cursor used twice starts two walks from there).
    const seen = new Set(walk?.seen ?? []);
    const repeated = rows.map((r) => String(r.id)).find((id) => seen.has(id));
    if (walk) v.judge(WALK, 'CUR-WALK', 'no row id listed twice in one walk', repeated ? `row ${repeated} again` : undefined, [walk.page, o]);
    // has_more true promised a row after the page; rows never vanish, and a number filter's rows stay
    // its rows (a status filter's may change status between two pages: 4.3, no snapshot of outcomes).
    if (walk?.promised && effectiveStatus === null) v.judge(PAGE, 'CUR-HAS-MORE', 'a row on the page after one that said has_more true', rows.length === 0 ? 'no row' : undefined, [walk.page, o]);
    for (const r of rows) seen.add(String(r.id));
    if (typeof pagination.next_cursor === 'string' && pagination.next_cursor !== '') {
      issued.delete(pagination.next_cursor);
      issued.set(pagination.next_cursor, { business, bulk, status: effectiveStatus, to: effectiveTo, seen, page: kept(o), promised: pagination.has_more === true, ...(now !== undefined ? { issuedAt: now } : {}) });
    }
  };
  return { see, forgotten: () => [{ check: BOUND, what: 'cursors issued', limit: CURSOR_LIMIT, count: issued.dropped }] };
}
