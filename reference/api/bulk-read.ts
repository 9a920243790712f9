// 4.2 retrieve a bulk SMS and 4.3 list its recipient rows.
import type { BulkRecord, RecipientRow } from '../store.ts';
import { CURSOR_LIFETIME_MS, type CursorFilters } from '../cursors.ts';
import { projectBulk, rowStateAt } from '../lifecycle.ts';
import { authorize } from './authorize.ts';
import { isE164 } from './bulk-body.ts';
import type { Call } from './call.ts';
import { acceptanceTimes } from './render.ts';
import { bulkResponseCache, collectedJobs, listedBulks, renderBulk, renderRow, rowsLoaded } from './render.ts';

import { UUID_V7 } from '../ids.ts';

/** Bulks whose rows were listed (the `bulk-unreadable-after-listing` defect). */
const listedForDefect = new WeakSet<object>();

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
const STATUS_FILTERS = new Set(['queued', 'sent', 'delivered', 'failed']);
/** Cursors already presented, per reference (the `blind-cursor-single-use` defect). */
const spentCursors = new WeakMap<object, Set<string>>();
/** Bulks their business has read (what defects of the sequences topic key on; faithful code ignores it). */
export const readByOwner = new WeakSet<BulkRecord>();
/**
 * What the cursor defect of the sequences topic keeps per bulk: the position of the cursor issued
 * last and the cursors already presented.
 */
const cursorMemory = new WeakMap<BulkRecord, { latestNext: number; presented: Set<string> }>();
/** Bulks whose listing already answered the empty page of defect page-size-change-empty-page (once per bulk). */
const resizedOnce = new WeakSet<BulkRecord>();
/** What blind6 defects keep per bulk: the page size given last, the time of the latest listing, the walk's cursors. */
const stickyLimit = new WeakMap<BulkRecord, number>();
const lastListedAt = new WeakMap<BulkRecord, number>();
const walkSessions = new WeakMap<BulkRecord, { presented: Set<string>; spent: Set<string> }>();
/** Listing pages by bulk id and query string, per reference (the `blind6-listing-cache-by-bulk-and-query` defect). */
const pageCache = new WeakMap<object, Map<string, unknown>>();

/** What blind7 defects keep: the latest query's filters per bulk; listing pages by application, bulk and query. */
const latestResultSet = new WeakMap<BulkRecord, CursorFilters>();
const appPageCache = new WeakMap<object, Map<string, unknown>>();

/** Literal query parameter names (the document does not name them; reference choice). */
export const PARAMS = { limit: 'limit', cursor: 'cursor', status: 'status', to: 'to' } as const;

const BULK_NOT_FOUND = 'No bulk SMS message with this id exists for this business.';
/** Applications that have read a bulk of their business, per reference (the `blind5-bulk-ownership-skipped-after-own-read` defect). */
const verifiedReaders = new WeakMap<object, Set<string>>();
/** Rows the listing served, by id, per reference (the `blind5-message-lookup-finds-listed-row` defect). */
export const listedRows = new WeakMap<object, Map<string, { bulk: BulkRecord; row: RecipientRow }>>();

/** 5.6 step 4: a bulk of another business looks exactly like one that does not exist. */
function ownedBulk(call: Call, businessId: string, bulkId: string, listing = false): BulkRecord | undefined {
  const d = call.defects;
  const bulk = call.deps.store.bulk(bulkId);
  // The defects disclose it: on every bulk read, or on the row listing only.
  if (bulk && (bulk.businessId === businessId || d.has('foreign-bulk-disclosed') || (listing && d.has('recipients-listing-foreign-bulk')))) return bulk;
  // 5 / 7: refused like an unknown id; the defects refuse it otherwise (403), or name its owner.
  if (bulk && !listing && d.has('foreign-bulk-403')) call.problem('permission_denied', 'This bulk SMS message belongs to another business.');
  else if (bulk && !listing && d.has('bulk-404-names-owner')) call.problem('resource_not_found', `${BULK_NOT_FOUND} (it belongs to business ${bulk.businessId}).`);
  // 5.6 step 4: the listing refuses another business's bulk as unknown (the blind defect says it is forbidden).
  else if (bulk && listing && d.has('blind3-foreign-bulk-rows-403')) call.problem('permission_denied', 'This bulk SMS message belongs to another business.');
  // 4.3: an unknown bulk has no rows to list (the defect answers an empty page).
  // 5.6 step 4: the listing's refusal of another business's bulk reads like an unknown one's (the blind defect words its own detail).
  else if (bulk && listing && d.has('blind4-foreign-rows-404-own-detail')) call.problem('resource_not_found', 'This bulk SMS message is not accessible to this business.');
  else if (!bulk && listing && d.has('recipients-unknown-bulk-empty-page')) call.json(200, { data: [], pagination: { limit: DEFAULT_PAGE_SIZE, has_more: false, next_cursor: null } });
  else {
    // 5.6 step 4: nothing about the other business's bulk (the blind defect's 404 names its home in Content-Location).
    const headers: Record<string, string> = bulk && d.has('blind-foreign-bulk-404-content-location') ? { 'Content-Location': `/v1/businesses/${bulk.businessId}/sms/bulk-messages/${bulk.id}` } : {};
    call.problem('resource_not_found', BULK_NOT_FOUND, { headers });
  }
  return undefined;
}

/**
 * 5.7: the path's business selects; the defect takes the business of the bulk itself when it
 * exists, so the grant and ownership are both checked against the bulk's own business.
 */
function selectedBusiness(call: Call, businessId: string, bulkId: string): string {
  return call.defects.has('bulk-business-from-resource') ? (call.deps.store.bulk(bulkId)?.businessId ?? businessId) : businessId;
}

export function getBulk(call: Call, pathBusinessId: string, bulkId: string): void {
  // 4.0 / 7: a UUIDv7 in upper-case hex is a well-formed id, never a server fault (the blind6 defect's
  // partition key parser expects lower case and throws).
  if (call.defects.has('blind6-upper-case-bulk-id-500') && UUID_V7.test(bulkId) && /[A-F]/.test(bulkId)) throw new Error(`partition key not lower-case hex: ${bulkId}`);
  // 5.6: the grant and ownership on every read (the blind9 defect's two-second response cache, keyed by
  // the request path alone, answers any authenticated caller first).
  const pathCache = call.defects.has('blind9-bulk-read-cached-by-url') ? (pathResponses.get(call.deps.store) ?? pathResponses.set(call.deps.store, new Map()).get(call.deps.store)!) : undefined;
  const hit = pathCache?.get(call.path);
  if (hit && call.deps.clock.now() - hit.at < PATH_CACHE_MS) return call.json(200, hit.body);
  const businessId = selectedBusiness(call, pathBusinessId, bulkId);
  // 5.6: the grant before the resource (the blind defect looks the bulk up first).
  if (call.defects.has('blind-bulk-lookup-before-grant') && !call.deps.store.bulk(bulkId)) {
    return call.problem('resource_not_found', 'No bulk SMS message with this id exists for this business.');
  }
  // 5: a bulk is shown under its own business only (the sequences defect serves a bulk its owner has
  // read from a cache keyed by id alone, before the grant is looked at).
  const cached = call.deps.store.bulk(bulkId);
  if (cached && readByOwner.has(cached) && call.defects.has('read-bulk-served-under-any-business')) return call.json(200, renderBulk(call, cached));
  if (!authorize(call, businessId, 'sms.bulk.read')) return;
  // 4.2: bulk SMS only (the blind defect's lookup falls through to individual messages of any business,
  // as with one table for every SMS, and shows the message as a bulk).
  const single = call.defects.has('blind-bulk-read-finds-foreign-message') && !call.deps.store.bulk(bulkId) ? call.deps.store.message(bulkId) : undefined;
  // 5 / 4.2: an id that exists nowhere is not found (the blind10 defect's read-your-writes shim answers it as a
  // bulk still being written for ten seconds after the business's latest acceptance).
  const acceptedAt = call.defects.has('blind10-unknown-bulk-shimmed-after-acceptance') && !call.deps.store.bulk(bulkId) && UUID_V7.test(bulkId) ? acceptanceTimes.get(call.deps.store)?.get(businessId) : undefined;
  if (acceptedAt !== undefined && call.deps.clock.now() - acceptedAt < 10_000) {
    return call.json(200, { id: bulkId, business_id: businessId, from: '', classification: 'transactional', status: 'queued', settled: false, message: null, template: null, accepted_at: call.time(acceptedAt), intake: null, submission: null, delivery_summary: null, warnings: [] });
  }
  if (single) {
    return call.json(200, {
      id: single.id,
      business_id: businessId,
      from: single.from,
      classification: single.classification,
      status: 'completed',
      settled: null,
      message: single.message,
      template: single.template,
      accepted_at: call.time(single.accepted_at),
      intake: null,
      submission: null,
      delivery_summary: null,
      warnings: [{ code: 'delivery_summary_unavailable', detail: 'Delivery reporting for this bulk message is not available yet.' }],
    });
  }
  // 5.6 step 4: ownership on every read (the blind5 defect skips it for an application that has
  // read one of its business's bulks before).
  const anyBulk = call.deps.store.bulk(bulkId);
  const readers = verifiedReaders.get(call.deps.store) ?? new Set<string>();
  if (call.defects.has('blind5-bulk-ownership-skipped-after-own-read')) verifiedReaders.set(call.deps.store, readers);
  if (anyBulk && call.app && readers.has(call.app.clientId)) return call.json(200, renderBulk(call, anyBulk));
  const bulk = ownedBulk(call, businessId, bulkId);
  if (bulk && call.app && call.defects.has('blind5-bulk-ownership-skipped-after-own-read')) readers.add(call.app.clientId);
  // 4.2 / 5.6 step 4: a bulk belongs to its business (the blind8 defect owns it by the submitting application).
  if (bulk && call.defects.has('blind8-bulk-owned-by-submitting-application') && bulk.clientId !== call.app?.clientId) return call.problem('resource_not_found', BULK_NOT_FOUND);
  // 4.2: an accepted bulk is readable at once (the defect's read side is fed by the processor, so
  // a bulk still queued is not found).
  if (bulk && call.defects.has('bulk-unreadable-while-queued') && projectBulk(bulk, call.deps.clock.now(), call.defects).status === 'queued') {
    return call.problem('resource_not_found', 'No bulk SMS message with this id exists for this business.');
  }
  // 4.2: listing a bulk's rows changes nothing of the bulk (the defect's listing moves the bulk to
  // an archive its read path does not search).
  if (bulk && call.defects.has('bulk-unreadable-after-listing') && listedForDefect.has(bulk)) {
    return call.problem('resource_not_found', 'No bulk SMS message with this id exists for this business.');
  }
  if (!bulk) return;
  readByOwner.add(bulk);
  // (The blind6 defect's read path collects the in-flight job, idempotency record included, of a bulk it sees completed.)
  if (call.defects.has('blind6-key-freed-when-bulk-completes') && projectBulk(bulk, call.deps.clock.now(), call.defects).status === 'completed') collectedJobs.add(bulk);
  const body = renderBulk(call, bulk);
  pathCache?.set(call.path, { at: call.deps.clock.now(), body });
  call.json(200, body);
}

export function listRecipients(call: Call, businessId: string, bulkId: string): void {
  const d = call.defects;
  // 5.6: the grant is decided before the bulk is looked at. The defect first reads the bulk's owner
  // to word the refusal on a business without grant, unguarded, so an unknown id throws (500).
  if (d.has('ungranted-listing-lookup-500') && !call.app?.grants.some((g) => g.businessId === businessId && g.active)) {
    const owner = call.deps.store.bulk(bulkId)!.businessId;
    call.problem('permission_denied', `The application has no active grant for this business (bulk of ${owner === businessId ? 'this' : 'another'} business).`);
    return;
  }
  // 5.6: the grant before the query is judged (the blind7 defect validates the page size first).
  const sizeGiven = call.query.get(PARAMS.limit);
  if (d.has('blind7-listing-query-validated-before-grant') && sizeGiven !== null && !call.app?.grants.some((g) => g.businessId === businessId && g.active) && !(/^\d{1,7}$/.test(sizeGiven) && Number(sizeGiven) >= 1 && Number(sizeGiven) <= MAX_PAGE_SIZE)) {
    return call.validationFailed(`${PARAMS.limit} must be an integer from 1 to ${MAX_PAGE_SIZE}.`, [{ pointer: PARAMS.limit, code: 'field_invalid' }]);
  }
  // 5.6: the grant on every listing (the blind7 defect's page cache, keyed by application, bulk and query, answers first).
  const appPageKey = `${call.app?.clientId ?? ''}\u0000${bulkId}?${call.query.toString()}`;
  const appCached = d.has('blind7-own-rows-cached-under-any-business') ? appPageCache.get(call.deps.store)?.get(appPageKey) : undefined;
  if (appCached !== undefined) return call.json(200, appCached);
  // 5.6 / 4.3: grant, then ownership (blind defects: the listing skips the grant, or the owner).
  // (The blind5 defect reaches here without a token, on a signed cursor alone.)
  const cursorAsProof = call.app === undefined && d.has('blind5-listing-cursor-skips-auth');
  // (The blind10 defect checks the grant on the business a presented cursor was issued for.)
  const cursorGiven = d.has('blind10-listing-grant-from-cursor') ? call.query.get(PARAMS.cursor) : null;
  const cursorScope = cursorGiven ? call.deps.cursors.decode(cursorGiven) : undefined;
  const grantBusiness = cursorScope?.ok ? cursorScope.payload.business : businessId;
  if (!d.has('blind-rows-listing-skips-grant') && !cursorAsProof && !authorize(call, grantBusiness, 'sms.bulk.read')) return;
  // 5.6 step 4: ownership before any page is served (the blind6 defect's page cache, keyed by bulk and
  // query alone, answers first).
  const pageKey = `${bulkId}?${call.query.toString()}`;
  const cachedPage = d.has('blind6-listing-cache-by-bulk-and-query') ? pageCache.get(call.deps.store)?.get(pageKey) : undefined;
  if (cachedPage !== undefined) return call.json(200, cachedPage);
  // 5.6 step 4: the bulk's owner is checked (blind5 defect: not for a filtered listing, served from a search index).
  const filteredQuery = call.query.get(PARAMS.status) !== null || call.query.get(PARAMS.to) !== null;
  // (The blind7 defect's export path, for page sizes above 500, checks the grant only.)
  const exportPage = d.has('blind7-foreign-rows-large-page-export') && /^\d{1,7}$/.test(sizeGiven ?? '') && Number(sizeGiven) > 500;
  const foreign = d.has('blind-foreign-bulk-rows-listed') || (d.has('blind5-filtered-rows-skip-ownership') && filteredQuery) || exportPage ? call.deps.store.bulk(bulkId) : undefined;
  // 4.3: rows of a bulk SMS only (the blind5 defect's one SMS table lists an individual message of any business as a row).
  const single = d.has('blind5-rows-of-message-id') && !call.deps.store.bulk(bulkId) ? call.deps.store.message(bulkId) : undefined;
  if (single) {
    const row = {
      id: single.id,
      to: single.to,
      submission_status: single.status === 'queued' ? 'queued' : single.status === 'failed' ? 'failed' : 'sent',
      delivery_status: single.status,
      status_reason: single.status_reason,
      accepted_at: call.time(single.accepted_at),
      submitted_at: call.time(single.submitted_at),
      delivered_at: call.time(single.delivered_at),
      failed_at: call.time(single.failed_at),
    };
    return call.json(200, { data: [row], pagination: { limit: DEFAULT_PAGE_SIZE, has_more: false, next_cursor: null } });
  }
  // 5.6 step 4: another business's bulk is refused like an unknown one, whatever the query (the blind8
  // defect validates the page size between loading the bulk and checking its owner).
  if (d.has('blind8-foreign-rows-query-validated-before-ownership') && call.deps.store.bulk(bulkId) && sizeGiven !== null && !(/^\d{1,7}$/.test(sizeGiven) && Number(sizeGiven) >= 1 && Number(sizeGiven) <= MAX_PAGE_SIZE)) {
    return call.validationFailed(`${PARAMS.limit} must be an integer from 1 to ${MAX_PAGE_SIZE}.`, [{ pointer: PARAMS.limit, code: 'field_invalid' }]);
  }
  // (The defect's query check runs before the owner's and answers an empty page for a page size out of range.)
  const other = d.has('foreign-rows-invalid-query-empty-page') ? call.deps.store.bulk(bulkId) : undefined;
  if (other && other.businessId !== businessId && sizeGiven !== null && !(/^\d{1,7}$/.test(sizeGiven) && Number(sizeGiven) >= 1 && Number(sizeGiven) <= MAX_PAGE_SIZE)) {
    return call.json(200, { data: [], pagination: { limit: DEFAULT_PAGE_SIZE, has_more: false, next_cursor: null } });
  }
  const bulk = foreign ?? ownedBulk(call, businessId, bulkId, true);
  if (!bulk) return;
  const now = call.deps.clock.now();
  const q = call.query;
  const invalid = (param: string, detail: string) => call.validationFailed(detail, [{ pointer: param, code: 'field_invalid' }]);

  for (const name of Object.values(PARAMS)) {
    if (q.getAll(name).length > 1) {
      // 7: a repeated parameter is the caller's fault (the blind defect's parser throws on an array value).
      if (d.has('blind-repeated-query-param-500')) throw new Error(`${name}: expected a string, got an array`);
      return invalid(name, `The query parameter ${name} may be given once.`);
    }
  }

  // 4.3: page size is an integer 1 to 1000, default 100; above the maximum gives 400.
  let limit = d.has('page-size-default-50') ? 50 : DEFAULT_PAGE_SIZE;
  // 4.3: pagination.limit is the size applied; the defects report another one.
  let reportedLimit: number | undefined;
  // 4.3: an integer (the blind defect reads the size with parseInt, so 10.5 is 10).
  // (The blind6 defect reads a size given earlier to the bulk's listing when none is given now.)
  const remembered = d.has('blind6-page-size-sticky-per-bulk') ? stickyLimit.get(bulk) : undefined;
  const givenLimit = q.get(PARAMS.limit) ?? (remembered !== undefined ? String(remembered) : null);
  const limitText = givenLimit !== null && d.has('blind3-limit-decimal-truncated') && /^\d+\.\d+$/.test(givenLimit) ? String(Number.parseInt(givenLimit, 10)) : givenLimit;
  if (limitText === null && d.has('default-page-uncut')) {
    // The default is only written into pagination.limit; the rows are not cut below the maximum.
    reportedLimit = limit;
    limit = MAX_PAGE_SIZE;
  }
  if (limitText !== null) {
    // 7: a malformed size is the caller's fault; the defect's strict integer parser throws on it.
    if (d.has('page-size-parse-500') && !/^\d+$/.test(limitText)) throw new Error(`limit: not an integer: ${limitText}`);
    // (The blind5 defect's search index caps filtered listings at 500.)
    const max = d.has('blind5-filtered-limit-max-500') && filteredQuery ? 500 : d.has('limit-1001-accepted') ? MAX_PAGE_SIZE + 1 : d.has('page-size-max-999') ? MAX_PAGE_SIZE - 1 : MAX_PAGE_SIZE;
    // 4.3 / 7: zero is below the minimum; the defects take it as a size, as no limit, or as none given.
    const zero = /^0+$/.test(limitText);
    if (zero && d.has('page-size-zero-served')) limit = 0;
    else if (zero && d.has('page-size-zero-unlimited')) [reportedLimit, limit] = [limit, MAX_PAGE_SIZE];
    else if (zero && d.has('page-size-zero-default')) limit = DEFAULT_PAGE_SIZE;
    // 4.3: above 1000 is refused (the blind defect clamps it to the maximum and serves the page).
    else if (d.has('blind-limit-above-max-clamped') && /^\d{1,7}$/.test(limitText) && Number(limitText) > max) limit = max;
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
  // 4.3: the four values as written (the blind defect lower-cases the value first).
  if (statusText !== null && d.has('blind3-status-filter-case-insensitive')) statusText = statusText.toLowerCase();
  if (statusText !== null && !STATUS_FILTERS.has(statusText)) {
    // The defect drops a value it does not know and lists every row; another keeps it as a
    // filter no row matches (200 with no rows).
    if (d.has('unknown-status-filter-ignored')) statusText = null;
    else if (!d.has('unknown-status-matches-nothing')) return invalidFilter(PARAMS.status, `${PARAMS.status} must be one of queued, sent, delivered, failed.`);
  }
  let toText = q.get(PARAMS.to);
  // 4.3: percent-encoding's hex is case-insensitive (RFC 3986 2.1), so %2b447… is the number. The
  // defects' decoder knows upper-case hex only: the value stays undecoded and is dropped as
  // unreadable (every row), or, passed by a pattern on the raw text, compared as written (no row).
  const decoded = d.has('number-filter-lower-hex-dropped') || d.has('number-filter-lower-hex-literal') ? upperHexOnly(rawQueryValue(call, PARAMS.to)) : undefined;
  const lowerHex = decoded?.includes('%') ? decoded : undefined;
  if (lowerHex !== undefined) toText = d.has('number-filter-lower-hex-dropped') ? null : lowerHex;
  // 4.3: the query is decoded once (the blind7 defect form-decodes it again, so a + becomes a space).
  if (toText !== null && d.has('blind7-number-filter-decoded-twice')) toText = new URLSearchParams(`v=${toText}`).get('v');
  // 4.3: E.164 with its + (the blind defect takes a leading space for a + lost to form encoding).
  if (toText !== null && d.has('blind3-number-filter-space-as-plus') && /^ \d/.test(toText)) toText = `+${toText.slice(1)}`;
  // Defects: a number that is not E.164 is dropped (every row), or kept as a filter no row matches.
  if (toText !== null && !isE164(toText) && d.has('invalid-number-filter-ignored')) toText = null;
  if (toText !== null && !isE164(toText) && toText !== lowerHex && !d.has('invalid-number-matches-nothing')) return invalidFilter(PARAMS.to, `${PARAMS.to} must be an E.164 number.`);

  // 4.3: the number filter selects that number's rows (the blind10 defect caches the first number's selection per bulk).
  if (toText !== null && d.has('blind10-number-filter-results-cached-per-bulk')) {
    const first = numberSelections.get(bulk);
    if (first === undefined) numberSelections.set(bulk, toText);
    else toText = first;
  }
  // 4.3: each query's own filters (the blind10 defect's listing session merges a new query with the previous one's).
  if (d.has('blind10-filters-merged-with-previous-listing') && q.get(PARAMS.cursor) === null) {
    const previous = previousFilters.get(bulk);
    statusText ??= previous?.status ?? null;
    toText ??= previous?.to ?? null;
    previousFilters.set(bulk, { status: statusText, to: toText });
  }
  let filters: CursorFilters = { status: statusText, to: toText };
  let start = 0;
  // 4.3: the cursor as the client sent it, percent-decoded (the blind8 defect reads the raw query text
  // of its padded base64 cursors).
  const cursorText = d.has('blind8-cursor-padded-base64-read-raw') ? fromPaddedBase64(rawQueryValue(call, PARAMS.cursor)) : q.get(PARAMS.cursor);
  const bad = () => invalid(PARAMS.cursor, 'The cursor is invalid or expired.');
  // 4.3: a cursor is at least one character; the defect hands the empty value to a decoder that throws.
  if (cursorText === '') {
    if (d.has('empty-cursor-500')) throw new Error('cursor: unexpected end of input');
    return bad();
  }
  // 4.3: a cursor with its filters repeated opens its page (the blind5 defect takes the request for a new query).
  const cursorIgnored = d.has('blind5-cursor-ignored-with-filters') && cursorText !== null && (statusText !== null || toText !== null);
  let reading = cursorText === null || cursorIgnored ? undefined : call.deps.cursors.decode(cursorText);
  // 4.3: a cursor the server did not issue is invalid (the blind6 defect compares the signature's first 43 characters only).
  if (reading?.ok === false && reading.reason === 'signature' && d.has('blind6-cursor-signature-prefix-compared')) reading = call.deps.cursors.decode(cursorText!.slice(0, cursorText!.indexOf('.') + 44));
  /** Matching rows to pass over (the blind5 defect's cursor holds a page number, times this request's page size). */
  let pageSkip = 0;
  let pageNumber = 0;
  // 4.3: a cursor the server did not issue gives 400; the defect takes a bad signature for an access attempt.
  if (reading?.ok === false && reading.reason === 'signature' && d.has('tampered-cursor-403')) {
    return call.problem('permission_denied', 'The cursor was not issued to this caller.');
  }
  // 4.3: an invalid cursor gives 400; the defect reads one that does not decode as no cursor.
  // (The blind defect ignores a cursor whose signature does not verify, as if none was given.)
  const undecodableAsNone =
    (reading?.ok === false && reading.reason === 'malformed' && d.has('undecodable-cursor-first-page')) ||
    (reading?.ok === false && reading.reason === 'signature' && d.has('blind4-bad-signature-cursor-first-page'));
  if (reading && !reading.ok && !undecodableAsNone) return bad();
  if (reading?.ok) {
    const c = reading.payload;
    // 4.3: 24-hour lifetime.
    // (The blind defect reads the lifetime as seconds where the clock counts milliseconds: 86.4 s.)
    const lifetime = d.has('blind-cursor-lifetime-seconds') ? CURSOR_LIFETIME_MS / 1000 : CURSOR_LIFETIME_MS;
    // (The blind6 defect counts the lifetime from the bulk's latest listing, a sliding session.)
    const since = d.has('blind6-cursor-lifetime-slides-with-listing') ? Math.max(c.issuedAt, lastListedAt.get(bulk) ?? c.issuedAt) : c.issuedAt;
    if (now - since >= lifetime && !d.has('expired-cursor-accepted')) return bad();
    // (The blind9 defect keeps one live cursor per bulk: a cursor issued before the bulk's latest one is refused.)
    const live = d.has('blind9-cursor-superseded-by-newer') ? liveCursor.get(bulk) : undefined;
    if (live !== undefined && live !== cursorText) return bad();
    // 4.3: bound to business, resource, filters and ordering.
    if (c.business !== businessId) return bad();
    if (c.bulk !== bulk.id && !d.has('cursor-not-bound-to-bulk')) return bad();
    if (c.ordering !== 'position') return bad();
    // Reference choice: a later page may omit the filters (the cursor's own apply); filters that
    // are given must equal the cursor's.
    const statusBound = !d.has('cursor-not-bound-to-status-filter');
    if (statusText !== null && statusText !== c.filters.status && statusBound) return bad();
    // The blind defect binds the number filter only when the cursor was issued with one.
    const toBound = !(d.has('blind-cursor-number-filter-not-bound') && c.filters.to === null);
    if (toText !== null && toText !== c.filters.to && toBound) return bad();
    // 4.3: a later page may leave the filters out; the defect looks the page up under none and finds nothing.
    const filtered = c.filters.status !== null || c.filters.to !== null;
    if (filtered && statusText === null && toText === null && d.has('omitted-filters-not-found')) {
      return call.problem('resource_not_found', 'No page matches this cursor.');
    }
    filters = d.has('omitted-filters-dropped')
      ? { status: statusText, to: toText }
      : { status: statusText !== null && !statusBound ? statusText : c.filters.status, to: toText !== null && !toBound ? toText : c.filters.to };
    // 4.3: the cursor's own filters (the blind7 defect walks the bulk's latest query's result set).
    const latestQuery = d.has('blind7-cursor-indexes-last-result-set') ? latestResultSet.get(bulk) : undefined;
    if (latestQuery) filters = latestQuery;
    if (!Number.isInteger(c.next) || c.next < 0) return bad();
    // 4.3: usable for its whole lifetime (the blind defect spends a cursor on its first use).
    if (d.has('blind-cursor-single-use')) {
      const spent = spentCursors.get(call.deps.store) ?? new Set<string>();
      spentCursors.set(call.deps.store, spent);
      if (spent.has(cursorText!)) return bad();
      spent.add(cursorText!);
    }
    start = c.next;
    // 4.3: a cursor opens its page all its life (the blind6 defect spends the walk's cursors once its last page was served).
    if (d.has('blind6-cursors-spent-after-last-page')) {
      const walk = walkSessions.get(bulk) ?? walkSessions.set(bulk, { presented: new Set(), spent: new Set() }).get(bulk)!;
      if (walk.spent.has(cursorText!)) return call.json(200, { data: [], pagination: { limit, has_more: false, next_cursor: null } });
      walk.presented.add(cursorText!);
    }
    // 4.3 binds a cursor to business, bulk, filters and ordering, not to a page size. Defects: a
    // cursor presented at another size than it was issued at is refused, or (the first time for a
    // bulk, as a page cache rebuilt for the new size) answers an empty page that offers its place
    // again with has_more true.
    const resized = c.limit !== undefined && c.limit !== limit;
    if (resized && d.has('page-size-change-refused')) return bad();
    if (resized && d.has('page-size-change-empty-page') && !resizedOnce.has(bulk)) {
      resizedOnce.add(bulk);
      const again = call.deps.cursors.encode({ business: businessId, bulk: bulk.id, filters, next: c.next, issuedAt: now });
      return call.json(200, { data: [], pagination: { limit, has_more: true, next_cursor: again } });
    }
    if (d.has('blind5-cursor-page-number')) [pageNumber, pageSkip, start] = [c.next, c.next * limit, 0];
    // 4.3: a cursor gives its own page each time (the sequences defect serves a cursor presented again
    // from the position of the bulk's latest issued cursor, as a server-side session would).
    const memory = cursorMemory.get(bulk);
    if (memory && d.has('reused-cursor-follows-latest') && memory.presented.has(cursorText!)) start = memory.latestNext;
    if (memory) memory.presented.add(cursorText!);
    // 4.3: the same cursor gives the same page all its life (the defect remembers the cursors it
    // served and starts a repeat one row later, as a server-side read position would).
    if (d.has('cursor-repeat-starts-later')) {
      const served = spentCursors.get(call.deps.store) ?? new Set<string>();
      spentCursors.set(call.deps.store, served);
      if (served.has(cursorText!)) start += 1;
      served.add(cursorText!);
    }
  }

  // 4.3: the rows of the path's bulk (the blind8 defect takes a cursor's rows from the application's walk
  // session, the bulk it listed last).
  const walks = d.has('blind8-walk-session-per-application') ? (walkSessionBulk.get(call.deps.store) ?? walkSessionBulk.set(call.deps.store, new Map()).get(call.deps.store)!) : undefined;
  const source = (reading?.ok && walks?.get(call.app?.clientId ?? '')) || bulk;
  walks?.set(call.app?.clientId ?? '', bulk);
  // 4.3: the number filter keeps only rows sent to that number (one defect compares it without its +).
  const toFilter = filters.to !== null && d.has('number-filter-without-plus') ? filters.to.replace(/^\+/, '') : filters.to;
  // 4.3: every page of a filtered listing is filtered (the defect applies the filters of the
  // cursor's binding to the first page only, so a page read with a cursor lists every row).
  const unfiltered = reading?.ok === true && d.has('filtered-later-pages-unfiltered');
  const matchesNow = (row: RecipientRow): boolean => {
    if (unfiltered) return true;
    // (The blind defect matches the filter as a prefix of the number, as a search box would.)
    const toDiffers = d.has('blind-number-filter-prefix') && toFilter !== null ? !row.to.startsWith(toFilter) : row.to !== toFilter;
    // (The blind defect applies the number filter only when no status filter is given: if / else if.)
    const toSkipped = d.has('blind4-number-filter-dropped-with-status') && filters.status !== null;
    if (toFilter !== null && toDiffers && !d.has('number-filter-ignored') && !toSkipped) return false;
    if (filters.status !== null) {
      const s = rowStateAt(row, source, now);
      // 4.3: the status filter matches submission or delivery status. One defect compares with
      // the statuses in upper case; another reads queued as "not final yet" (delivery status sent).
      const [sub, del] = d.has('status-filter-upper-case') ? [s.submission_status.toUpperCase(), s.delivery_status.toUpperCase()] : [s.submission_status, s.delivery_status];
      const pending = filters.status === 'queued' && del === 'sent' && d.has('status-queued-includes-sent');
      // (The blind defect compares the submission status alone.)
      const delMatches = del === filters.status && !d.has('blind-status-filter-submission-only');
      // (Another blind defect compares the delivery status alone.)
      const subMatches = sub === filters.status && !d.has('blind4-status-filter-delivery-only');
      if (!subMatches && !delMatches && !pending) return false;
    }
    return true;
  };
  // 4.3: the status filter judges each row as it is now (the blind9 defect caches the rows a status
  // filter selected at the bulk's first listing under those filters).
  const selectionKey = `${filters.status ?? ''}\u0000${filters.to ?? ''}`;
  const selections = filters.status !== null && d.has('blind9-status-filter-results-cached') ? (statusSelections.get(bulk) ?? statusSelections.set(bulk, new Map()).get(bulk)!) : undefined;
  const selected = selections ? (selections.get(selectionKey) ?? selections.set(selectionKey, new Set(source.rows.filter(matchesNow).map((r) => r.id))).get(selectionKey)!) : undefined;
  const matches = selected ? (row: RecipientRow) => selected.has(row.id) : matchesNow;
  const page: Record<string, unknown>[] = [];
  let hasMore = false;
  let lastPosition = -1;
  // 4.3: a page holds at most the size applied (the defect serves one row more).
  const room = d.has('page-one-row-over') ? limit + 1 : limit;
  // 4.3: one default ordering (the sequences defect serves a listing that fits on one page, once its
  // bulk was read, from the read's cached rows, newest first).
  const onePage = cursorText === null && source.rows.filter(matches).length <= limit;
  const reversed = d.has('rows-reversed-after-read') && onePage && readByOwner.has(bulk);
  // 4.3: one default order whatever was listed before (the blind8 defect's most-recently-used cache puts
  // the rows a filtered listing served first in an unfiltered one).
  const touched = d.has('blind8-rows-touched-by-filter-first') ? (touchedRows.get(bulk) ?? touchedRows.set(bulk, new Set()).get(bulk)!) : undefined;
  const touchedFirst = touched && touched.size > 0 && filters.status === null && filters.to === null;
  const ordered = reversed
    ? [...source.rows].reverse().map((row, position) => ({ ...row, position }))
    : touchedFirst
      ? [...source.rows.filter((r) => touched.has(r.id)), ...source.rows.filter((r) => !touched.has(r.id))].map((row, position) => ({ ...row, position }))
      : source.rows;
  // 4.3: one default order whatever the filters (the blind5 defect's filtered listings come by recipient number).
  // (The blind9 defect's export path, for page sizes above 500, orders by number too.)
  const byNumber =
    (d.has('blind5-filtered-listing-sorted-by-number') && (filters.status !== null || filters.to !== null)) || (d.has('blind9-large-page-sorted-by-number') && limit > 500)
      ? [...ordered].sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : a.position - b.position))
      : undefined;
  const placeOf = byNumber ? new Map(byNumber.map((row, i) => [row.id, i])) : undefined;
  const place = (row: RecipientRow) => placeOf?.get(row.id) ?? row.position;
  let passedOver = 0;
  for (const row of byNumber ?? ordered) {
    if (place(row) < start) continue;
    if (!matches(row)) continue;
    if (passedOver < pageSkip) {
      passedOver++;
      continue;
    }
    if (page.length === room) {
      hasMore = true;
      break;
    }
    const rendered = renderRow(call, source, row, now);
    if (touched && (filters.status !== null || filters.to !== null)) touched.add(row.id);
    // 2.3 / 4.3: a row keeps its id in every listing (the blind defect's filtered listings come from
    // a view whose ids end in the row's place in the result).
    if (d.has('blind4-filtered-rows-other-ids') && (filters.status !== null || filters.to !== null)) {
      rendered.id = `${row.id.slice(0, 24)}${(start + page.length).toString(16).padStart(12, '0')}`;
    }
    page.push(rendered);
    if (d.has('blind5-message-lookup-finds-listed-row')) {
      const cache = listedRows.get(call.deps.store) ?? new Map<string, { bulk: BulkRecord; row: RecipientRow }>();
      listedRows.set(call.deps.store, cache.set(row.id, { bulk, row }));
    }
    lastPosition = place(row);
  }
  // 4.3: the rows of this bulk only (the blind7 defect's number filter runs over every bulk's rows).
  if (filters.to !== null && d.has('blind7-number-filter-searches-all-bulks')) {
    for (const other of call.deps.store.allBulks()) {
      if (other === bulk) continue;
      for (const row of other.rows) if (row.to === filters.to && page.length < room) page.push(renderRow(call, other, row, now));
    }
  }
  // 4.3: the next page starts right after this one. Defects: the cursor of a page read with a
  // cursor repeats that page's start; the next page starts one row too far.
  let next = reading?.ok && d.has('cursor-not-advanced') ? start : d.has('cursor-skips-row') ? lastPosition + 2 : lastPosition + 1;
  // Blind defects: the next page starts at this page's last row, or (filtered) a page size of
  // positions after this page's start, however many rows the filter passed over.
  if (d.has('blind-cursor-overlaps-one-row')) next = lastPosition;
  if (d.has('blind-filtered-walk-repeats') && (filters.status !== null || filters.to !== null)) next = start + limit;
  if (d.has('blind5-cursor-page-number')) next = pageNumber + 1;
  // 2.6: has_more says whether another page follows (the blind9 defect compares the rows served so far
  // with the count taken at the bulk's first listing, under whatever filters that listing had).
  if (d.has('blind9-row-count-cached-across-filters')) {
    const sequence = byNumber ?? ordered;
    const counted = rowCounts.get(bulk) ?? rowCounts.set(bulk, sequence.filter(matches).length).get(bulk)!;
    hasMore = page.length > 0 && sequence.filter((row) => place(row) <= lastPosition && matches(row)).length < counted;
  }
  // 2.6: has_more says whether another page follows (the blind defect: whether this page is full).
  if (d.has('blind-has-more-by-full-page')) hasMore = page.length === limit;
  // (Another blind defect asks whether any row at all, matching or not, lies after the page.)
  if (d.has('blind4-has-more-counts-unfiltered-rows') && !hasMore && (filters.status !== null || filters.to !== null) && page.length > 0) hasMore = bulk.rows.some((r) => r.position > lastPosition);
  // 2.6: no cursor once no page follows (the defect still offers one, to an empty page after the last).
  const offered = hasMore || d.has('last-page-offers-cursor');
  // (The blind defect writes no cursor as an empty string.)
  const noCursor: string | null = d.has('blind3-last-page-cursor-empty-string') ? '' : null;
  const sized = d.has('page-size-change-refused') || d.has('page-size-change-empty-page') ? { limit } : {};
  const issued = offered ? call.deps.cursors.encode({ business: businessId, bulk: bulk.id, filters, next: lastPosition < 0 && !d.has('blind5-cursor-page-number') ? start : next, issuedAt: now, ...sized }) : undefined;
  if (issued !== undefined && d.has('blind9-cursor-superseded-by-newer')) liveCursor.set(bulk, issued);
  // 4.3: an opaque cursor the client hands back as the cursor parameter (blind8 defects: padded
  // standard base64; the relative URL of the next page).
  const nextCursor = issued === undefined
    ? // (The blind10 defect gives a last page read with a cursor that cursor back.)
      reading?.ok && d.has('blind10-last-page-echoes-presented-cursor') ? cursorText : noCursor
    : d.has('blind8-cursor-padded-base64-read-raw')
      ? `${issued.replace(/-/g, '+').replace(/_/g, '/')}=`
      : d.has('blind8-cursor-next-link-url')
        ? `${call.path}?${PARAMS.cursor}=${encodeURIComponent(issued)}`
        : issued;
  if (offered) {
    const memory = cursorMemory.get(bulk) ?? { latestNext: next, presented: new Set<string>() };
    memory.latestNext = lastPosition < 0 ? start : next;
    cursorMemory.set(bulk, memory);
  }
  // 2.6: has_more tells whether another page follows; the defect asks whether the whole listing exceeds one page.
  if (d.has('has-more-counts-whole-listing')) hasMore = bulk.rows.filter(matches).length > limit;
  // 2.6: limit is an integer (the blind defect echoes the query parameter's text).
  // (Another blind defect reports the rows on the page.)
  // (Another echoes the parameter as given, null when none was.)
  // (The blind8 defect reports null on a page read with a cursor, whose size travels inside it.)
  const applied = reading?.ok && d.has('blind8-later-page-limit-null') ? (null as unknown as number) : d.has('blind4-pagination-limit-null-by-default') && limitText === null ? (null as unknown as number) : d.has('blind-pagination-limit-string') && limitText !== null ? (limitText as unknown as number) : d.has('blind3-limit-reports-rows-returned') ? page.length : (reportedLimit ?? limit);
  // 2.6: has_more is always given (the defect leaves it and next_cursor out on the last page).
  // 2.6: has_more and next_cursor (the blind defect's pages that have more name them in camel case).
  const pagination =
    !hasMore && d.has('has-more-omitted-on-last-page')
      ? { limit: applied }
      : hasMore && d.has('blind3-pagination-camel-case')
        ? { limit: applied, hasMore, nextCursor }
        : // (The blind10 defect writes has_more as a TINYINT, 1 or 0.)
          { limit: applied, has_more: d.has('blind10-pagination-has-more-numeric') ? Number(hasMore) : hasMore, next_cursor: nextCursor };
  // 4.3: every page is { data, pagination } (the blind defect's later pages, from another
  // serialiser, name the rows items); 2: application/json (the blind defect gives a vendor type).
  // (The blind5 defect serialises an empty page's rows as null.)
  const data = page.length === 0 && d.has('blind5-empty-page-data-null') ? null : page;
  const envelope = reading?.ok && d.has('blind-later-pages-items') ? { items: page, pagination } : { data, pagination };
  // What blind6 defects keep of a listing: the size given, its time, the walk closed on its last page,
  // the bulk listed, the page for the bulk's response cache, the page by bulk and query.
  if (d.has('blind6-page-size-sticky-per-bulk') && q.get(PARAMS.limit) !== null) stickyLimit.set(bulk, limit);
  if (d.has('blind6-cursor-lifetime-slides-with-listing')) lastListedAt.set(bulk, now);
  const walk = walkSessions.get(bulk);
  if (walk && reading?.ok && !hasMore) for (const presented of walk.presented) walk.spent.add(presented);
  if (d.has('blind6-intake-from-rows-after-listing')) listedBulks.add(bulk);
  // What blind7 defects keep of a listing: the rows relation loaded, the latest query's filters, the page per application.
  if (d.has('blind7-bulk-read-carries-rows-after-listing')) rowsLoaded.add(bulk);
  if (d.has('blind7-cursor-indexes-last-result-set') && cursorText === null) latestResultSet.set(bulk, filters);
  if (d.has('blind7-own-rows-cached-under-any-business')) (appPageCache.get(call.deps.store) ?? appPageCache.set(call.deps.store, new Map()).get(call.deps.store)!).set(appPageKey, envelope);
  if (d.has('bulk-unreadable-after-listing')) listedForDefect.add(bulk);
  if (d.has('blind6-replay-from-bulk-response-cache')) bulkResponseCache.set(bulk, JSON.stringify(envelope));
  if (d.has('blind6-listing-cache-by-bulk-and-query')) (pageCache.get(call.deps.store) ?? pageCache.set(call.deps.store, new Map()).get(call.deps.store)!).set(pageKey, envelope);
  // 4.3: an empty page is a 200 with its envelope too (the blind8 defect answers 204 No Content).
  if (page.length === 0 && d.has('blind8-empty-listing-204')) return call.empty(204);
  // 4.3 / 2.6: the page and its pagination object in the body (the blind6 defect pages by RFC 8288 Link header).
  if (d.has('blind6-pagination-in-link-header')) {
    const next = new URLSearchParams({ ...(q.get(PARAMS.limit) !== null ? { [PARAMS.limit]: String(limit) } : {}), ...(typeof nextCursor === 'string' && hasMore ? { [PARAMS.cursor]: nextCursor } : {}) });
    return call.json(200, { data }, hasMore ? { Link: `<${call.path}?${next.toString()}>; rel="next"` } : {});
  }
  // 2: application/json (the blind10 defect's byte cache writes a repeated query's page as application/octet-stream).
  const repeatKey = `${call.app?.clientId ?? ''}\u0000${bulk.id}?${q.toString()}`;
  const served = d.has('blind10-cached-listing-page-octet-stream') ? (servedQueries.get(call.deps.store) ?? servedQueries.set(call.deps.store, new Set()).get(call.deps.store)!) : undefined;
  const repeated = served?.has(repeatKey) ?? false;
  served?.add(repeatKey);
  call.json(200, envelope, {}, repeated ? 'application/octet-stream' : d.has('blind-listing-media-type-vendor') ? 'application/vnd.api+json' : undefined);
}

/** A query parameter's raw text, as sent (the request line, before any decoding). */
function rawQueryValue(call: Call, name: string): string | undefined {
  const url = call.req.url ?? '';
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  return query.split('&').find((pair) => pair.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** Percent-decoding of upper-case hex only (the number-filter-lower-hex defects' decoder). */
const upperHexOnly = (raw: string | undefined): string | undefined => raw?.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/** The bulk each application listed last, per reference (the `blind8-walk-session-per-application` defect). */
const walkSessionBulk = new WeakMap<object, Map<string, BulkRecord>>();
/** Rows filtered listings served, per bulk (the `blind8-rows-touched-by-filter-first` defect). */
const touchedRows = new WeakMap<BulkRecord, Set<string>>();

/** A padded standard base64 cursor read from the raw query text back to its issued form (the `blind8-cursor-padded-base64-read-raw` defect). */
function fromPaddedBase64(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  return raw.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** What blind9 defects keep (faithful code ignores them). */
/** Bulk read bodies by request path (the `blind9-bulk-read-cached-by-url` defect). */
const pathResponses = new WeakMap<object, Map<string, { at: number; body: Record<string, unknown> }>>();
const PATH_CACHE_MS = 2000;
/** The latest cursor issued per bulk (the `blind9-cursor-superseded-by-newer` defect). */
const liveCursor = new WeakMap<BulkRecord, string>();
/** The rows counted at each bulk's first listing (the `blind9-row-count-cached-across-filters` defect). */
const rowCounts = new WeakMap<BulkRecord, number>();
/** Row ids each status filter selected at its first listing, per bulk (the `blind9-status-filter-results-cached` defect). */
const statusSelections = new WeakMap<BulkRecord, Map<string, Set<string>>>();

/** What blind10 defects keep (faithful code ignores them). */
/** The first number filter of each bulk's listings (the `blind10-number-filter-results-cached-per-bulk` defect). */
const numberSelections = new WeakMap<BulkRecord, string>();
/** The filters of each bulk's previous listing (the `blind10-filters-merged-with-previous-listing` defect). */
const previousFilters = new WeakMap<BulkRecord, CursorFilters>();
/** Listing queries already served, by application, bulk and query (the `blind10-cached-listing-page-octet-stream` defect). */
const servedQueries = new WeakMap<object, Set<string>>();
