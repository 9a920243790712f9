// 4.2 retrieve a bulk SMS and 4.3 list its recipient rows.
import type { BulkRecord, RecipientRow } from '../store.ts';
import { CURSOR_LIFETIME_MS, type CursorFilters } from '../cursors.ts';
import { rowStateAt } from '../lifecycle.ts';
import { authorize } from './authorize.ts';
import { isE164 } from './bulk-body.ts';
import type { Call } from './call.ts';
import { renderBulk, renderRow } from './render.ts';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
const STATUS_FILTERS = new Set(['queued', 'sent', 'delivered', 'failed']);
/** Literal query parameter names (the document does not name them; reference choice). */
export const PARAMS = { limit: 'limit', cursor: 'cursor', status: 'status', to: 'to' } as const;

/** 5.6 step 4: a bulk of another business looks exactly like one that does not exist. */
function ownedBulk(call: Call, businessId: string, bulkId: string): BulkRecord | undefined {
  const bulk = call.deps.store.bulk(bulkId);
  if (bulk && (bulk.businessId === businessId || call.defects.has('foreign-bulk-disclosed'))) return bulk;
  call.problem('resource_not_found', 'No bulk SMS message with this id exists for this business.');
  return undefined;
}

export function getBulk(call: Call, businessId: string, bulkId: string): void {
  // 5: a bulk is shown under its own business only.
  if (!authorize(call, businessId, 'sms.bulk.read')) return;
  const bulk = ownedBulk(call, businessId, bulkId);
  if (!bulk) return;
  bulk.readByOwner = true;
  call.json(200, renderBulk(call, bulk));
}

/**
 * What the cursor defect of the sequences topic keeps per bulk: the position of the cursor issued
 * last and the cursors already presented.
 */
const cursorMemory = new WeakMap<BulkRecord, { latestNext: number; presented: Set<string> }>();

export function listRecipients(call: Call, businessId: string, bulkId: string): void {
  const d = call.defects;
  // 5.6: the grant is decided before the bulk is looked at. The defect first reads the bulk's owner
  // to word the refusal on a business without grant, unguarded, so an unknown id throws (500).
  if (d.has('ungranted-listing-lookup-500') && !call.app?.grants.some((g) => g.businessId === businessId && g.active)) {
    const owner = call.deps.store.bulk(bulkId)!.businessId;
    call.problem('permission_denied', `The application has no active grant for this business (bulk of ${owner === businessId ? 'this' : 'another'} business).`);
    return;
  }
  if (!authorize(call, businessId, 'sms.bulk.read')) return;
  const bulk = ownedBulk(call, businessId, bulkId);
  if (!bulk) return;
  const now = call.deps.clock.now();
  const q = call.query;
  const invalid = (param: string, detail: string) => call.validationFailed(detail, [{ pointer: param, code: 'field_invalid' }]);

  for (const name of Object.values(PARAMS)) {
    if (q.getAll(name).length > 1) return invalid(name, `The query parameter ${name} may be given once.`);
  }

  // 4.3: page size is an integer 1 to 1000, default 100; above the maximum gives 400.
  let limit = d.has('page-size-default-50') ? 50 : DEFAULT_PAGE_SIZE;
  // 4.3: pagination.limit is the size applied; the defects report another one.
  let reportedLimit: number | undefined;
  const limitText = q.get(PARAMS.limit);
  if (limitText === null && d.has('default-page-uncut')) {
    // The default is only written into pagination.limit; the rows are not cut below the maximum.
    reportedLimit = limit;
    limit = MAX_PAGE_SIZE;
  }
  if (limitText !== null) {
    // 7: a malformed size is the caller's fault; the defect's strict integer parser throws on it.
    if (d.has('page-size-parse-500') && !/^\d+$/.test(limitText)) throw new Error(`limit: not an integer: ${limitText}`);
    const max = d.has('limit-1001-accepted') ? MAX_PAGE_SIZE + 1 : d.has('page-size-max-999') ? MAX_PAGE_SIZE - 1 : MAX_PAGE_SIZE;
    // 4.3 / 7: zero is below the minimum; the defects take it as a size, as no limit, or as none given.
    const zero = /^0+$/.test(limitText);
    if (zero && d.has('page-size-zero-served')) limit = 0;
    else if (zero && d.has('page-size-zero-unlimited')) [reportedLimit, limit] = [limit, MAX_PAGE_SIZE];
    else if (zero && d.has('page-size-zero-default')) limit = DEFAULT_PAGE_SIZE;
    else if (!/^\d{1,7}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > max) {
      // 7: a query parameter's error names the parameter (the defect writes a body JSON Pointer).
      const pointer = d.has('page-size-error-body-pointer') ? `/${PARAMS.limit}` : PARAMS.limit;
      return invalid(pointer, `${PARAMS.limit} must be an integer from 1 to ${MAX_PAGE_SIZE}.`);
    } else limit = Number(limitText);
  }
  if (d.has('page-limit-reports-default')) reportedLimit = DEFAULT_PAGE_SIZE;

  // 4.3: status filter is one of queued, sent, delivered, failed; number filter is E.164. A value
  // outside that shape is the caller's fault, never a 5xx (7); the defect lets it throw.
  const invalidFilter = (param: string, detail: string) => {
    if (d.has('filter-shape-500')) throw new Error(`unexpected ${param} filter value`);
    return invalid(param, detail);
  };
  let statusText = q.get(PARAMS.status);
  if (statusText !== null && !STATUS_FILTERS.has(statusText)) {
    // The defect drops a value it does not know and lists every row.
    if (d.has('unknown-status-filter-ignored')) statusText = null;
    else return invalidFilter(PARAMS.status, `${PARAMS.status} must be one of queued, sent, delivered, failed.`);
  }
  const toText = q.get(PARAMS.to);
  if (toText !== null && !isE164(toText)) return invalidFilter(PARAMS.to, `${PARAMS.to} must be an E.164 number.`);

  let filters: CursorFilters = { status: statusText, to: toText };
  let start = 0;
  const cursorText = q.get(PARAMS.cursor);
  const bad = () => invalid(PARAMS.cursor, 'The cursor is invalid or expired.');
  // 4.3: a cursor is at least one character; the defect hands the empty value to a decoder that throws.
  if (cursorText === '') {
    if (d.has('empty-cursor-500')) throw new Error('cursor: unexpected end of input');
    return bad();
  }
  const reading = cursorText === null ? undefined : call.deps.cursors.decode(cursorText);
  // 4.3: a cursor the server did not issue gives 400; the defect takes a bad signature for an access attempt.
  if (reading?.ok === false && reading.reason === 'signature' && d.has('tampered-cursor-403')) {
    return call.problem('permission_denied', 'The cursor was not issued to this caller.');
  }
  // 4.3: an invalid cursor gives 400; the defect reads one that does not decode as no cursor.
  const undecodableAsNone = reading?.ok === false && reading.reason === 'malformed' && d.has('undecodable-cursor-first-page');
  if (reading && !reading.ok && !undecodableAsNone) return bad();
  if (reading?.ok) {
    const c = reading.payload;
    // 4.3: 24-hour lifetime.
    if (now - c.issuedAt >= CURSOR_LIFETIME_MS && !d.has('expired-cursor-accepted')) return bad();
    // 4.3: bound to business, resource, filters and ordering.
    if (c.business !== businessId) return bad();
    if (c.bulk !== bulk.id && !d.has('cursor-not-bound-to-bulk')) return bad();
    if (c.ordering !== 'position') return bad();
    // Reference choice: a later page may omit the filters (the cursor's own apply); filters that
    // are given must equal the cursor's.
    const statusBound = !d.has('cursor-not-bound-to-status-filter');
    if (statusText !== null && statusText !== c.filters.status && statusBound) return bad();
    if (toText !== null && toText !== c.filters.to) return bad();
    // 4.3: a later page may leave the filters out; the defect looks the page up under none and finds nothing.
    const filtered = c.filters.status !== null || c.filters.to !== null;
    if (filtered && statusText === null && toText === null && d.has('omitted-filters-not-found')) {
      return call.problem('resource_not_found', 'No page matches this cursor.');
    }
    filters = d.has('omitted-filters-dropped')
      ? { status: statusText, to: toText }
      : { status: statusText !== null && !statusBound ? statusText : c.filters.status, to: c.filters.to };
    if (!Number.isInteger(c.next) || c.next < 0) return bad();
    start = c.next;
    // 4.3: a cursor gives its own page each time.
    const memory = cursorMemory.get(bulk);
    if (memory) memory.presented.add(cursorText!);
  }

  // 4.3: the number filter keeps only rows sent to that number (one defect compares it without its +).
  const toFilter = filters.to !== null && d.has('number-filter-without-plus') ? filters.to.replace(/^\+/, '') : filters.to;
  const matches = (row: RecipientRow): boolean => {
    if (toFilter !== null && row.to !== toFilter && !d.has('number-filter-ignored')) return false;
    if (filters.status !== null) {
      const s = rowStateAt(row, bulk, now);
      // 4.3: the status filter matches submission or delivery status. One defect compares with
      // the statuses in upper case; another reads queued as "not final yet" (delivery status sent).
      const [sub, del] = d.has('status-filter-upper-case') ? [s.submission_status.toUpperCase(), s.delivery_status.toUpperCase()] : [s.submission_status, s.delivery_status];
      const pending = filters.status === 'queued' && del === 'sent' && d.has('status-queued-includes-sent');
      if (sub !== filters.status && del !== filters.status && !pending) return false;
    }
    return true;
  };
  const page: Record<string, unknown>[] = [];
  let hasMore = false;
  let lastPosition = -1;
  // 4.3: a page holds at most the size applied (the defect serves one row more).
  const room = d.has('page-one-row-over') ? limit + 1 : limit;
  // 4.3: one default ordering.
  const ordered = bulk.rows;
  for (const row of ordered) {
    if (row.position < start) continue;
    if (!matches(row)) continue;
    if (page.length === room) {
      hasMore = true;
      break;
    }
    page.push(renderRow(call, bulk, row, now));
    lastPosition = row.position;
  }
  // 4.3: the next page starts right after this one. Defects: the cursor of a page read with a
  // cursor repeats that page's start; the next page starts one row too far.
  const next = reading?.ok && d.has('cursor-not-advanced') ? start : d.has('cursor-skips-row') ? lastPosition + 2 : lastPosition + 1;
  const nextCursor = hasMore ? call.deps.cursors.encode({ business: businessId, bulk: bulk.id, filters, next, issuedAt: now }) : null;
  if (nextCursor !== null) {
    const memory = cursorMemory.get(bulk) ?? { latestNext: next, presented: new Set<string>() };
    memory.latestNext = next;
    cursorMemory.set(bulk, memory);
  }
  // 2.6: has_more tells whether another page follows; the defect asks whether the whole listing exceeds one page.
  if (d.has('has-more-counts-whole-listing')) hasMore = bulk.rows.filter(matches).length > limit;
  const applied = reportedLimit ?? limit;
  // 2.6: has_more is always given (the defect leaves it and next_cursor out on the last page).
  const pagination = !hasMore && d.has('has-more-omitted-on-last-page') ? { limit: applied } : { limit: applied, has_more: hasMore, next_cursor: nextCursor };
  call.json(200, { data: page, pagination });
}
