// cursors: paging through the recipient rows of a bulk SMS (4.3, 2.6, 8).
import * as fc from 'fast-check';
import type { ApiResponse } from '../harness/client.ts';
import { listingBoundaryCaseArbs } from '../generators/boundaries.ts';
import { invalidListingCaseArbs, type InvalidCase } from '../generators/invalid.ts';
import { LAX_FORMS, laxFormsArb, showLax } from '../generators/lax-forms.ts';
import { parameterSchema } from '../generators/parameters.ts';
import { MAX_TAMPERED_CURSORS, tamperedCursors } from '../generators/cursor-forms.ts';
import { e164Arb } from '../generators/domain.ts';
import { isValid, jsonSchemaFor } from '../spec/validators.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';
import type { CheckContext } from './support/check.ts';
import { describe } from './support/declare.ts';
import { checksFor } from './support/check.ts';
import { bodiesWithCount, bulkIdOf, businessIdOf, maxPollReads, maySubmit, pollDelays, requireSubmissions, sendsRealMessages, submitAccepted } from './support/bulk.ts';
import { advanceClock } from './support/control.ts';
import { paths } from './support/paths.ts';
import { describeResponse, expectNoServerFault, expectProblem, isProblem, normalizePointer } from './support/problem.ts';
import { forAll, generate } from './support/property.ts';
import { inWaves } from './support/waves.ts';
import { isObject } from '../core/json.ts';

// The listing bulk, when the run submits it, is shared by the checks that page through it.
// Each check pages through the bulk on its own (the bulk and the second bulk are one promise each,
// sent by whichever check asks first): they may overlap.
const check = checksFor('cursors', { shared: 1, needs: ['businessId'], uses: ['senderId', 'recipients'], independent: true });

const HOUR_MS = 60 * 60 * 1000;
const STATUS_VALUES = (jsonSchemaFor('RecipientStatusFilter') as { enum: string[] }).enum;

type Row = Record<string, unknown>;
interface Page {
  rows: Row[];
  limit: unknown;
  hasMore: unknown;
  nextCursor: unknown;
}

/** How many fractional page sizes page-size-invalid always sends. */
const FRACTIONAL_SIZES = 4;

/**
 * Page sizes that are no integer though their whole part is a valid size, from the parameter's
 * range: n.5 at the minimum, just under the maximum and at a size of the run, and n.5 written as
 * an exponent. Whether integral spellings (010, +10, 1e1, 10.0) are integers in a query the
 * document does not say: they are not sent.
 */
function fractionalSizes(t: CheckContext): string[] {
  const { minimum: min, maximum: max } = parameterSchema('listSmsBulkMessageRecipients', 'limit', 'query') as { minimum: number; maximum: number };
  const n = generate(t, fc.integer({ min, max: max - 1 }), 'fractional page size');
  return [`${min}.5`, `${max - 1}.9`, `${n}.5`, `${n * 10 + 5}e-1`];
}

/** Filter values one slip away from valid ones: each status upper-cased, a number with its + as a space or left out. */
function nearMissFilters(t: CheckContext): Array<{ name: string; request: { query: Array<[string, string]> }; isStatus: boolean }> {
  const { status, to } = t.config.params;
  const number = t.config.fixtures.recipients?.[0] ?? generate(t, e164Arb(), 'near-miss number');
  const out = STATUS_VALUES.map((v) => ({ name: `${status}=${v.toUpperCase()}`, request: { query: [[status, v.toUpperCase()]] as Array<[string, string]> }, isStatus: true }));
  for (const [form, how] of [[` ${number.slice(1)}`, 'its + sent unencoded (a space)'], [number.slice(1), 'without its +']] as const) {
    out.push({ name: `${to}=${JSON.stringify(form)} (${how})`, request: { query: [[to, form]] }, isStatus: false });
  }
  // Blind defects blind5-recipient-*: the number in each form a lax pattern match lets through
  // (full-width digits, a line feed, white space, an invisible character; generators/lax-forms.ts).
  for (const lax of generate(t, laxFormsArb(number), 'near-miss lax number')) {
    out.push({ name: `${to}=${showLax(lax)}`, request: { query: [[to, lax.value]] }, isStatus: false });
  }
  return out;
}

/** A value for a message, cut short (undefined shows as such). */
const show = (v: unknown, max = 200) => (JSON.stringify(v) ?? 'undefined').slice(0, max);


// ---- the bulk to page through ---------------------------------------------------------------

let listingBulk: Promise<string> | undefined;
let otherBulk: Promise<string> | undefined;

/**
 * The bulk every listing check pages through: the fixture bulk of the expired cursor when the run
 * has one (read-only, so it works under profile safe), else one this run submits.
 */
function bulkToList(t: CheckContext): Promise<string> {
  const fixture = t.config.fixtures.expiredCursorBulkId;
  if (fixture) return Promise.resolve(fixture);
  requireSubmissions(t);
  listingBulk ??= (async () => {
    // Enough rows for several pages on the embedded reference; against a real host each entry is an SMS.
    const count = sendsRealMessages(t.config) ? Math.min(10, (t.config.fixtures.recipients ?? []).length * 2) : 150;
    const body = generate(t, bodiesWithCount(t, Math.max(count, 2)), 'listing bulk');
    // waiver: reached only without CONFORMANCE_EXPIRED_CURSOR_BULK_ID (the matrix always names one); the same 202 setup is proven in secondBulk
    const { response } = await submitAccepted(t, body);
    return bulkIdOf(response)!;
  })();
  return listingBulk;
}

/** A second bulk of the business, for the cursor bound to another bulk. */
function secondBulk(t: CheckContext): Promise<string> {
  requireSubmissions(t);
  otherBulk ??= (async () => {
    const body = generate(t, bodiesWithCount(t, 2), 'second bulk');
    // Setup: its 202 is a bulk-invariants rule; the matrix runs bulk-accepted-201 with cursors to prove it.
    const { response } = await submitAccepted(t, body);
    return bulkIdOf(response)!;
  })();
  return otherBulk;
}

/** Checks that list `bulkToList`: they submit it when no fixture bulk is configured, and skip in profile safe then. */
const LISTING_BULK = { writes: 'creates the bulk it lists when no fixture bulk is configured', readsInSafe: true };

/**
 * Pages of one walk at most, for a bulk that fits one read of 1000 rows: its page sizes keep it
 * to 25 pages, and `walk` gives up two pages later.
 */
const WALK_PAGES = 27;

// ---- reading pages --------------------------------------------------------------------------

async function list(t: CheckContext, bulkId: string, query: Array<[string, string]>): Promise<ApiResponse> {
  return t.api.send({ method: 'GET', path: paths.bulkRecipients(businessIdOf(t), bulkId), query });
}

/** The page in a 200, or a failure citing `requirement` when the answer is not one. */
function pageOf(t: CheckContext, res: ApiResponse, requirement: RequirementId, what: string): Page {
  // Another success (a 204 for no rows: blind defect blind8-empty-listing-204) found the listing but not its envelope.
  t.expect(res.status === 200, res.status > 200 && res.status < 300 ? 'SCH-LISTING-ENVELOPE' : requirement, `200 with a page for ${what}`, describeResponse(res), res);
  const body = res.json;
  const pagination = isObject(body) ? body.pagination : undefined;
  t.expect(
    isObject(body) && Array.isArray(body.data) && isObject(pagination),
    requirement,
    `a page (data and pagination) for ${what}`,
    res.text.slice(0, 200),
    res,
  );
  const p = pagination as Record<string, unknown>;
  return { rows: (body as { data: Row[] }).data, limit: p.limit, hasMore: p.has_more, nextCursor: p.next_cursor };
}

/** 2.6: has_more true comes with a non-empty cursor; a cursor with has_more false is a reading (spec/readings.ts). */
function checkPagination(t: CheckContext, page: Page, res: ApiResponse, requestedLimit: number | undefined): void {
  t.expect(typeof page.hasMore === 'boolean', 'CUR-HAS-MORE', 'has_more a boolean', `has_more ${JSON.stringify(page.hasMore)}`, res);
  if (page.hasMore === true) {
    t.expect(
      typeof page.nextCursor === 'string' && page.nextCursor.length > 0,
      'CUR-HAS-MORE',
      'a non-empty next_cursor with has_more true',
      `next_cursor ${JSON.stringify(page.nextCursor)}`,
      res,
    );
  } else if (page.nextCursor !== null && page.nextCursor !== undefined) {
    t.reading('last-page-cursor', 'cursor', `next_cursor ${show(page.nextCursor, 40)}`, res);
  } else {
    t.reading('last-page-cursor', 'null');
  }
  if (requestedLimit !== undefined) {
    t.expect(page.limit === requestedLimit, 'CUR-LIMIT-APPLIED', `pagination.limit ${requestedLimit}`, `pagination.limit ${JSON.stringify(page.limit)}`, res);
  }
  if (typeof page.limit === 'number') {
    t.expect(page.rows.length <= page.limit, 'CUR-LIMIT-APPLIED', `at most ${page.limit} rows`, `${page.rows.length} rows`, res);
  }
}

interface Walk {
  ids: string[];
  rows: Row[];
  pages: number;
  responses: ApiResponse[];
  /** The walk ended early: the target refused a page size changed mid-walk (a reading). */
  cut?: boolean;
  /**
   * An empty page that has_more true announced, met at a page size changed mid-walk, right after
   * the listing `between` sent, or while rows of the expected count were still unseen (judged by
   * the caller: rows the walk then misses are CUR-WALK's, an empty page after every row CUR-HAS-MORE's).
   */
  emptyAnnounced?: ApiResponse[];
}

/**
 * The page size of each request of a walk: one size (the target's default when undefined), or a
 * list cycled page by page, for a walk whose page size changes between pages (4.3 binds a cursor to
 * the business, bulk, filters and ordering, not to the page size).
 */
type PageSizes = number | undefined | readonly (number | undefined)[];

const sizeOfPage = (sizes: PageSizes, page: number): number | undefined => (Array.isArray(sizes) ? sizes[page % sizes.length] : (sizes as number | undefined));

/**
 * Follows next_cursor from the first page until has_more is false. Bounded: more pages than the
 * rows could fill means the cursor does not advance (CUR-WALK).
 */
async function walk(
  t: CheckContext,
  bulkId: string,
  sizes: PageSizes,
  filters: Array<[string, string]>,
  expectedRows?: number,
  between?: () => Promise<ApiResponse[]>,
): Promise<Walk> {
  const { params } = t.config;
  const out: Walk = { ids: [], rows: [], pages: 0, responses: [] };
  let maxPages = 200;
  let cursor: string | undefined;
  let applied: unknown;
  let interleaved = 0;
  for (;;) {
    const limit = sizeOfPage(sizes, out.pages);
    const previous = out.pages === 0 ? undefined : sizeOfPage(sizes, out.pages - 1);
    const changed = cursor !== undefined && limit !== previous;
    const query: Array<[string, string]> = [...filters];
    if (limit !== undefined) query.push([params.limit, String(limit)]);
    if (cursor !== undefined) query.push([params.cursor, cursor]);
    const res = await list(t, bulkId, query);
    out.pages++;
    out.responses.push(res);
    const sizeChange = `page size ${previous ?? 'default'} to ${limit ?? 'default'}`;
    if (changed && isProblem(res, 400, 'validation_failed')) {
      // 4.3 binds a cursor to business, bulk, filters and ordering: a refusal of another page size
      // ends a client's walk (a reading that warns), not a row skipped or repeated.
      t.reading('page-size-mid-walk', 'refused', sizeChange, ...out.responses.slice(-2));
      out.cut = true;
      return out;
    }
    const page = pageOf(t, res, cursor === undefined ? firstPageRequirement(t, filters, res) : 'CUR-WALK', cursor === undefined ? `the first page${filters.length ? ` of ${filters.map(([k, v]) => `${k}=${v}`).join('&')}` : ''}` : `page ${out.pages}${changed ? ` (${sizeChange})` : ''}`);
    // A target may keep the size the cursor was issued at (pagination.limit says which it applied).
    const kept = changed && page.limit !== (limit ?? page.limit) && page.limit === applied;
    if (changed) t.reading('page-size-mid-walk', kept ? 'kept' : 'applied', kept ? sizeChange : undefined);
    checkPagination(t, page, res, kept ? undefined : limit);
    applied = page.limit;
    if (out.pages === 1 && expectedRows !== undefined) {
      // The smallest size the walk asks for (the default when none was asked for, as the first page
      // applied it) bounds the walk: more pages than the rows could fill means the cursor does not advance.
      const asked = (Array.isArray(sizes) ? sizes : [sizes]).map((s: number | undefined) => s ?? (typeof page.limit === 'number' && page.limit >= 1 ? page.limit : undefined));
      const size = asked.some((s) => s === undefined) ? undefined : Math.min(...(asked as number[]));
      if (size !== undefined) maxPages = Math.ceil(expectedRows / size) + 2;
    }
    // has_more true promised another page: the page its cursor leads to holds rows (blind defect
    // blind-has-more-by-full-page said so of every full page, the last one included).
    // At a page size changed mid-walk, after another listing, or with rows still to come, rows the
    // walk then misses are the finding (CUR-WALK), not the has_more that announced them; the caller
    // judges (against a host other checks list the bulk meanwhile, blind defect
    // blind7-cursor-indexes-last-result-set then ends a walk early at any page).
    const rowsLeft = expectedRows !== undefined && new Set(out.ids).size < expectedRows;
    if (cursor !== undefined && (changed || (out.pages === 2 && between) || rowsLeft) && page.rows.length === 0) {
      out.emptyAnnounced ??= out.responses.slice(out.pages === 2 && interleaved > 0 ? -2 - interleaved : -2);
    }
    else if (cursor !== undefined && page.rows.length === 0) {
      t.fail('CUR-HAS-MORE', `rows on page ${out.pages}, which the previous page's has_more true announced`, `an empty page (has_more ${show(page.hasMore)})`, ...out.responses.slice(-2));
    }
    for (const row of page.rows) {
      out.rows.push(row);
      if (typeof row.id === 'string') out.ids.push(row.id);
    }
    if (page.hasMore !== true) return out;
    cursor = page.nextCursor as string;
    if (out.pages === 1 && between) {
      const listed = await between();
      interleaved = listed.length;
      out.responses.push(...listed);
    }
    t.expect(out.pages < maxPages, 'CUR-WALK', `the walk to end within ${maxPages} pages`, `still has_more after ${out.pages} pages`, res);
  }
}

/**
 * The rule a first page breaks when it is no page. A filtered listing refused with 400 (the filters
 * were valid: the checks send only values of their schemas) breaks the filter's rule: a number filter
 * decoded twice reads the `+` of %2B as a space (blind defect blind7-number-filter-decoded-twice).
 * Anything else is the listing's path (CUR-PATH).
 */
function firstPageRequirement(t: CheckContext, filters: Array<[string, string]>, res: ApiResponse): RequirementId {
  if (res.status !== 400) return 'CUR-PATH';
  const names = new Set(filters.map(([k]) => k));
  if (names.has(t.config.params.to)) return 'CUR-FILTER-TO';
  if (names.has(t.config.params.status)) return 'CUR-FILTER-STATUS';
  return 'CUR-PATH';
}

/** Every row of the bulk in one read when it fits a page of the maximum size. */
async function allRows(t: CheckContext, bulkId: string): Promise<{ rows: Row[]; complete: boolean }> {
  const res = await list(t, bulkId, [[t.config.params.limit, '1000']]);
  const page = pageOf(t, res, 'CUR-MAX-LIMIT', `${t.config.params.limit}=1000`);
  return { rows: page.rows, complete: page.hasMore === false };
}

interface IssuedCursor {
  cursor: string;
  first: Page;
  res: ApiResponse;
  /** The page size the cursor was issued at: later pages ask for the same. */
  limit: number;
}

/**
 * A cursor of `bulkId` with `filters`: the first page at the usual size, or, when the listing fits
 * it (a small sandbox), at page size 1, which any listing of two or more rows pages. One request,
 * two when the usual size fits; a skip only when the listing holds fewer than two rows.
 */
async function issuedCursor(t: CheckContext, bulkId: string, usual: number, filters: Array<[string, string]> = []): Promise<IssuedCursor> {
  for (const limit of usual > 1 ? [usual, 1] : [1]) {
    const res = await list(t, bulkId, [...filters, [t.config.params.limit, String(limit)]]);
    const first = pageOf(t, res, 'CUR-PATH', 'the first page');
    if (first.hasMore === true && typeof first.nextCursor === 'string') return { cursor: first.nextCursor, first, res, limit };
    if (first.rows.length < 2) break;
  }
  const what = `the bulk's listing${filters.length ? ' under that filter' : ''} holds fewer than two rows: no cursor to work with`;
  if (t.config.fixtures.expiredCursorBulkId === bulkId) return t.skip(`${what} (CONFORMANCE_EXPIRED_CURSOR_BULK_ID names a bulk of one row; name a larger one)`);
  return smallListing(t, what);
}

/**
 * Skips a check that needs more rows than the run's bulk has. On a host the rows are the host's
 * (one per distinct number is common): with one allowlisted number the user can add another (a
 * precondition); with more the run cannot make the rows it needs (an exclusion, with a hint).
 */
function smallListing(t: CheckContext, what: string): never {
  const numbers = new Set(t.config.fixtures.recipients ?? []).size;
  if (t.config.target.embedded) return t.skip(what);
  if (numbers < 2) return t.skip(`${what} (list two or more numbers in CONFORMANCE_RECIPIENTS)`);
  return t.skip(
    `${what}; the host's rows for a bulk to ${numbers} allowlisted numbers gave none (more numbers in CONFORMANCE_RECIPIENTS, or a larger fixture bulk in CONFORMANCE_EXPIRED_CURSOR_BULK_ID, may show it)`,
    'not-observable',
  );
}

/**
 * A filter of another query shape than an unfiltered walk's, selecting part of `rows` where it can,
 * rows that do not start the listing first (a filter of the first rows leaves them where they were,
 * whatever a cache of filtered rows does to the order): a number of a later row (the last rows
 * first) that the first row does not hold, else a status value the first row lacks, else any
 * number or status value not on every row, else a valid number of no row (a listing of none).
 */
function otherQueryShape(t: CheckContext, rows: Row[]): Array<[string, string]> {
  const { params } = t.config;
  const part = <T>(values: T[], matches: (r: Row, v: T) => boolean, later: boolean) =>
    values.find((v) => {
      const n = rows.filter((r) => matches(r, v)).length;
      return n > 0 && n < rows.length && !(later && matches(rows[0]!, v));
    });
  const numbers = [...new Set(rows.map((r) => r.to).filter((to): to is string => typeof to === 'string'))].reverse();
  for (const later of [true, false]) {
    const number = part(numbers, (r, v) => r.to === v, later);
    if (number !== undefined) return [[params.to, number]];
    const status = part(STATUS_VALUES, rowMatchesStatus, later);
    if (status !== undefined) return [[params.status, status]];
  }
  const none = generate(t, e164Arb().filter((n) => !numbers.includes(n)), 'another query shape');
  return [[params.to, none]];
}

/** Status values that select two or more rows (so a filtered listing issues a cursor), best-filled first. */
function statusesWithPages(rows: Row[]): string[] {
  const count = (s: string) => rows.filter((r) => rowMatchesStatus(r, s)).length;
  return STATUS_VALUES.filter((s) => count(s) >= 2).sort((a, b) => count(b) - count(a));
}

/** How many partial numbers `partialNumbers` derives at most. */
const PARTIAL_NUMBER_KINDS = 3;

/** Valid E.164 numbers that share only part of `to`: its prefix, `to` extended, its tail. */
function partialNumbers(to: string): Array<{ what: string; value: string }> {
  const digits = to.slice(1);
  const candidates = [
    { what: 'a prefix', value: `+${digits.slice(0, -1)}` },
    { what: 'an extension', value: `+${digits}${digits.at(-1) === '1' ? '2' : '1'}` },
    { what: 'the tail', value: `+${digits.slice(1)}` },
  ];
  return candidates.filter((c) => c.value !== to && isValid('E164PhoneNumber', c.value)).slice(0, PARTIAL_NUMBER_KINDS);
}

function rowMatchesStatus(row: Row, status: string): boolean {
  return row.submission_status === status || row.delivery_status === status;
}

/**
 * Whether a row's statuses use only the filter's four words. The rows' own value sets are not
 * shown (3.3), so a row with other words may match a filter by a projection the checker cannot see.
 */
function rowInFilterVocabulary(row: Row): boolean {
  return STATUS_VALUES.includes(String(row.submission_status)) && STATUS_VALUES.includes(String(row.delivery_status));
}

function fieldErrorNames(res: ApiResponse): string[] {
  const errors = isObject(res.json) && Array.isArray(res.json.errors) ? res.json.errors : [];
  return errors.map((e) => (isObject(e) ? normalizePointer(String(e.pointer)) : ''));
}

describe('cursors (4.3, 2.6)', () => {
  check(
    {
      id: 'default-page-size',
      title: 'GET the recipient rows (path ending /messages) without a page size: 200, pagination.limit 100 and at most 100 rows, also right after a listing of the bulk at page size 1',
      requirements: ['CUR-DEFAULT-LIMIT', 'CUR-PATH'],
      maxRequests: 3,
      ...LISTING_BULK,
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      // The default is the document's, not the last size the bulk was listed at (blind6-page-size-sticky-per-bulk).
      for (const after of ['', ' right after a listing at page size 1']) {
        if (after) await list(t, bulkId, [[t.config.params.limit, '1']]);
        const res = await list(t, bulkId, []);
        const page = pageOf(t, res, 'CUR-PATH', `the listing without parameters${after}`);
        t.expect(page.limit === 100, 'CUR-DEFAULT-LIMIT', `pagination.limit 100${after}`, `pagination.limit ${JSON.stringify(page.limit)}`, res);
        t.expect(page.rows.length <= 100, 'CUR-DEFAULT-LIMIT', 'at most 100 rows', `${page.rows.length} rows`, res);
        checkPagination(t, page, res, undefined);
      }
    },
  );

  check(
    {
      id: 'page-size-bounds-accepted',
      title: 'GET the rows with page size 1 and 1000: 200 with pagination.limit equal to it and no more rows',
      requirements: ['CUR-MAX-LIMIT', 'CUR-LIMIT-APPLIED'],
      maxRequests: 2,
      ...LISTING_BULK,
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const cases = listingBoundaryCaseArbs(t.config.params);
      for (const [name, arb] of Object.entries(cases)) {
        const c = generate(t, arb, name);
        if (c.expectation !== 'accept') continue;
        const res = await list(t, bulkId, c.request.query ?? []);
        const page = pageOf(t, res, c.requirement, c.name);
        checkPagination(t, page, res, c.size);
      }
    },
  );

  check(
    {
      id: 'page-size-invalid',
      title:
        'GET the rows with page size 1001: 400 validation_failed naming the parameter; with 0, negative, fractional or not a number: the same (a page of a size from 1 to 1000 instead is a warning), never a 5xx',
      requirements: ['CUR-MAX-LIMIT', 'CUR-LIMIT-INVALID', 'CUR-LIMIT-APPLIED', 'PROB-NO-5XX-FOR-CLIENT-FAULT'],
      // The boundary cases (1001 and 0), the fractional sizes, then up to six cases of each property.
      maxRequests: { fixed: 2 + FRACTIONAL_SIZES, perCase: 2, maxCases: 6 },
      ...LISTING_BULK,
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const { params } = t.config;
      const boundary = Object.values(listingBoundaryCaseArbs(params)).map((arb) => generate(t, arb, 'limit-bound')).filter((c) => c.expectation === 'reject');
      const invalid = invalidListingCaseArbs(params);
      // Must cases (above the maximum) first: a should-level finding ends the check, and must not
      // keep the must cases from being sent.
      const isAboveMaximum = (c: { requirement: RequirementId }) => c.requirement === 'CUR-MAX-LIMIT';
      const limitArbs = Object.entries(invalid).filter(([kind]) => kind.startsWith('limit:')).map(([, arb]) => arb);
      // Each kind cites one requirement: sort the kinds (filtering one that never cites it would never end).
      const citesMaximum = (arb: fc.Arbitrary<InvalidCase>) => isAboveMaximum(fc.sample(arb, { seed: 0, numRuns: 1 })[0]!);
      const aboveMaximum = fc.oneof(...limitArbs.filter(citesMaximum));
      const otherInvalid = fc.oneof(...limitArbs.filter((arb) => !citesMaximum(arb)));
      // Only "above 1000" has its error written out (CUR-MAX-LIMIT); a page served for the other
      // invalid sizes is a should-level deviation (CUR-LIMIT-INVALID), provided its size is valid.
      const send = async (query: Array<[string, string]>, requirement: RequirementId, name: string) => {
        const res = await list(t, bulkId, query);
        if (!expectNoServerFault(t, res, name)) return;
        if (res.status === 200 && requirement === 'CUR-LIMIT-INVALID') {
          const page = pageOf(t, res, 'CUR-LIMIT-APPLIED', name);
          const limit = page.limit;
          t.expect(typeof limit === 'number' && limit >= 1 && limit <= 1000, 'CUR-LIMIT-APPLIED', `pagination.limit from 1 to 1000 for ${name}`, `pagination.limit ${JSON.stringify(limit)}`, res);
          t.expect(page.rows.length <= (limit as number), 'CUR-LIMIT-APPLIED', `at most ${String(limit)} rows`, `${page.rows.length} rows`, res);
          t.reading('page-size-invalid', 'served', `${name}: pagination.limit ${String(limit)}`, res);
          return;
        }
        expectProblem(t, res, { status: 400, codes: ['validation_failed'], requirement, why: name, fieldErrorsExpected: true });
        const pointers = fieldErrorNames(res);
        t.expect(pointers.includes(params.limit), requirement, `errors[].pointer naming ${params.limit}`, `pointers ${JSON.stringify(pointers)}`, res);
        if (requirement === 'CUR-LIMIT-INVALID') t.reading('page-size-invalid', 'refused');
      };
      for (const c of boundary.filter(isAboveMaximum)) await send(c.request.query ?? [], c.requirement, c.name);
      await forAll(t, aboveMaximum, (c: InvalidCase) => send(c.request.query ?? [], c.requirement, c.name), { maxRuns: 6 });
      for (const c of boundary.filter((c) => !isAboveMaximum(c))) await send(c.request.query ?? [], c.requirement, c.name);
      // Blind defect blind3-limit-decimal-truncated: every fractional form of a size inside the
      // range (decimal and exponent notation) is no integer, always sent, not only when sampled.
      for (const v of fractionalSizes(t)) await send([[params.limit, v]], 'CUR-LIMIT-INVALID', `${params.limit}=${v}`);
      await forAll(t, otherInvalid, (c: InvalidCase) => send(c.request.query ?? [], c.requirement, c.name), { maxRuns: 6 });
    },
  );

  check(
    {
      id: 'walk-visits-every-row-once',
      title: 'Follow next_cursor from the first page at generated page sizes, half the walks changing the size from page to page, one walk with listings between its pages (the bulk under a filter of a later row, the bulk at another page size, another bulk of the business): every row of the bulk once, has_more true only with a cursor',
      requirements: ['CUR-WALK', 'CUR-HAS-MORE', 'CUR-LIMIT-APPLIED', 'CUR-LAST-PAGE-NO-CURSOR'],
      // All rows in one read, the two listings inside one walk, a walk at a page size the rows fill
      // exactly and one per case, then the second bulk's submission, its listing and a walk of three pages at most.
      maxRequests: { fixed: 3 + WALK_PAGES + 5, perCase: WALK_PAGES, maxCases: 6 },
      ...LISTING_BULK,
      writes: 'creates the bulk it lists when no fixture bulk is configured, and (profile full) a second bulk to list between pages',
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const truth = await allRows(t, bulkId);
      const total = truth.rows.length;
      if (total === 0) t.skip('the bulk has no recipient rows to page through');
      if (truth.rows.some((r) => typeof r.id !== 'string')) t.skip('rows carry no id (the required members of a row are not shown), so a row seen twice cannot be told apart', 'not-observable');
      const expected = new Set(truth.rows.map((r) => r.id as string));
      // Page sizes that keep a walk to at most about 25 pages, plus the default size; never above the maximum of 1000.
      const size = fc.oneof(fc.constant(undefined), fc.integer({ min: Math.max(1, Math.ceil(total / 25)), max: Math.min(1000, total + 5) }));
      // Half the walks change their page size from page to page (two sizes in turn): 4.3 binds a
      // cursor to business, bulk, filters and ordering, not to the page size, so a client may ask
      // for another size mid-walk and still meets every row once (blind defect
      // blind5-cursor-page-number kept a page number in the cursor: rows skipped or repeated).
      const sizes: fc.Arbitrary<PageSizes> = fc.oneof(size, fc.tuple(size, size).filter(([a, b]) => a !== b));
      let walks = 0;
      const walkFindings: Array<{ actual: string; evidence: ApiResponse[] }> = [];
      // The first walk that follows a cursor lists the bulk, between its first two pages, as the same
      // caller may meanwhile: in another query shape (a filter selecting a later row) and at another
      // page size. A cursor is a place in its own listing, not in the bulk's latest one (blind defect
      // blind7-cursor-indexes-last-result-set), and the default order stays what it was (blind8-rows-touched-by-filter-first
      // put a filter's rows first). A last walk lists another bulk of the business between its pages
      // when the run may submit one: nor is a cursor a place in the caller's latest listing of any bulk
      // (blind8-walk-session-per-application). Last, so that the topic's other checks, which list the
      // bulk too, have mostly ended: against a host they share the caller.
      const other = otherQueryShape(t, truth.rows);
      type Between = { bulk: string; query: Array<[string, string]>; what: string };
      let interleaved = false;
      const sameBulk = (sizes: PageSizes): Between[] => {
        interleaved = true;
        const resized = sizeOfPage(sizes, 0) === 1 ? 2 : 1;
        return [
          { bulk: bulkId, query: other, what: other.map(([k, v]) => `${k}=${v}`).join('&') },
          { bulk: bulkId, query: [[t.config.params.limit, String(resized)]], what: `${t.config.params.limit}=${resized}` },
        ];
      };
      const walkAt = async (sizes: PageSizes, listings?: (sizes: PageSizes) => Between[]) => {
        let between: Between[] = [];
        const interleave = async () => {
          between = (listings ?? sameBulk)(sizes);
          const answers: ApiResponse[] = [];
          for (const l of between) answers.push(await list(t, l.bulk, l.query));
          return answers;
        };
        const limit = `${Array.isArray(sizes) ? sizes.map((s: number | undefined) => s ?? 'default').join(' then ') : (sizes ?? 'default')}`;
        // A bulk with more rows than one read shows has no known total: the walk is then unbounded by it.
        const w = await walk(t, bulkId, sizes, [], truth.complete ? total : undefined, interleaved && !listings ? undefined : interleave);
        const at = `page size ${limit}${between.length ? ` (listings of ${between.map((l) => l.what).join(', then ')} between its first two pages)` : ''}`;
        walks++;
        if (w.cut) return;
        const seen = new Set<string>();
        const repeated = w.ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
        const last = w.responses.at(-1)!;
        if (repeated.length > 0) walkFindings.push({ actual: `${at}: rows seen twice: ${repeated.slice(0, 5).join(', ')}`, evidence: w.responses.slice(-2) });
        if (truth.complete) {
          // Rows that appeared after the first read are allowed (rows may be created as the bulk advances).
          const missing = [...expected].filter((id) => !seen.has(id));
          if (seen.size > expected.size) t.note(`the walk met ${seen.size - expected.size} row(s) created after the first read`);
          if (missing.length > 0) {
            walkFindings.push({ actual: `${at}: ${seen.size} rows, ${missing.length} missing (e.g. ${missing.slice(0, 3).join(', ')})`, evidence: between.length ? w.responses.slice(0, 2 + between.length) : [last] });
            return;
          }
        }
        if (w.emptyAnnounced) t.fail('CUR-HAS-MORE', 'rows on the page that the previous page\'s has_more true announced', `an empty page at ${at}`, ...w.emptyAnnounced);
      };
      // Pages that fill exactly: the last full page is the last page (has_more is held against the
      // rows that follow it, not against the page being full).
      if (truth.complete && total <= 1000) await walkAt(total % 2 === 0 && total >= 2 && total / 2 >= Math.ceil(total / 25) ? total / 2 : total);
      await forAll(t, sizes, (s) => walkAt(s), { maxRuns: 6 });
      // Two or three pages, another bulk listed between the first two (its submission shared with cursor-bound-to-bulk).
      const another = truth.complete && total >= 2 && maySubmit(t) ? await secondBulk(t) : undefined;
      if (another) await walkAt(Math.ceil(total / 2), () => [{ bulk: another, query: [], what: `bulk ${another}` }]);
      t.note(`${walks} walks over ${total} rows`);
      // CUR-WALK is a should: reported after every walk, so the must rules of each page were all judged.
      if (walkFindings.length > 0) {
        t.fail('CUR-WALK', `every one of the ${expected.size} rows of the bulk once`, walkFindings.map((f) => f.actual).join('; '), ...walkFindings[0]!.evidence);
      }
    },
  );

  check(
    {
      id: 'cursor-not-issued',
      title:
        'GET the next page with a random cursor: 400 validation_failed; with characters appended to a real one or percent-encoded twice: 400; altered at its start, middle or end, case-swapped, re-padded, decoded or truncated: 400, or (an unsigned cursor may still decode) a page of this bulk\'s rows',
      requirements: ['CUR-INVALID'],
      maxRequests: 6 + MAX_TAMPERED_CURSORS,
      ...LISTING_BULK,
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const { cursor, limit, first } = await issuedCursor(t, bulkId, 10);
      const firstIds = first.rows.map((r) => r.id).join(',');
      const { params } = t.config;
      const truth = await allRows(t, bulkId);
      const ofBulk = new Set(truth.rows.map((r) => r.id));
      // Random cursors first: a random one refused is judged before an edited one read as none
      // (each has its own defect: undecodable-cursor-first-page, blind4-bad-signature-cursor-first-page).
      const random = invalidListingCaseArbs(params)['cursor: not issued by the server']!;
      for (const c of fc.sample(random, { seed: t.config.settings.seed, numRuns: 3 })) {
        const value = c.request.query?.find(([k]) => k === params.cursor)?.[1] ?? '';
        const res = await list(t, bulkId, [[params.limit, String(limit)], [params.cursor, value]]);
        expectProblem(t, res, { status: 400, codes: ['validation_failed'], requirement: 'CUR-INVALID', why: `a random cursor (${c.name})` });
      }
      // Tampered forms of a real cursor (generators/cursor-forms.ts), a wave at a time: the
      // document does not require cursors to be signed, so an edited one may decode (a reading);
      // one only framed (characters appended, encoded twice) is read as a cursor only by a server
      // that ignores part of what it gets (blind defect blind6-cursor-signature-prefix-compared).
      const query = (value: string): Array<[string, string]> => [[params.limit, String(limit)], [params.cursor, value]];
      await inWaves(t, tamperedCursors(cursor), (f) => list(t, bulkId, query(f.value)), (f, res) => {
        const what = f.what;
        if (res.status === 200) {
          const page = pageOf(t, res, 'CUR-INVALID', `a cursor ${what}`);
          const foreign = truth.complete ? page.rows.filter((r) => !ofBulk.has(r.id)) : [];
          // waiver: an altered cursor decodes only if unsigned, and to another bulk's rows only if the path's bulk is also ignored: two faults
          t.expect(foreign.length === 0, 'CUR-BOUND', `only rows of bulk ${bulkId} for a cursor ${what}`, `${foreign.length} other row(s), e.g. ${show(foreign[0])}`, res);
          // Decoded, it names a place after the first page it came from; the first page again is
          // the edited cursor read as no cursor, an invalid one taken for none (blind defect
          // blind4-bad-signature-cursor-first-page), and a client walking on loops.
          t.expect(
            first.rows.length === 0 || page.rows.map((r) => r.id).join(',') !== firstIds,
            'CUR-INVALID',
            `400, or a page after the first, for a cursor ${what}`,
            `200 with the first page again (${page.rows.length} rows): the cursor read as none`,
            res,
          );
          // After the first-page test, so an invalid cursor read as none fails there whatever its form.
          if (f.kind === 'frame') t.fail('CUR-INVALID', `400 validation_failed for a cursor ${what}`, `${describeResponse(res)}: the text around the issued cursor ignored`, res);
          t.reading('edited-cursor', 'decoded', `a cursor ${what}`);
          return;
        }
        expectProblem(t, res, { status: 400, codes: ['validation_failed'], requirement: 'CUR-INVALID', why: `a cursor ${what}` });
        t.reading('edited-cursor', 'refused');
      });
    },
  );

  check(
    {
      id: 'cursor-empty',
      title: 'GET the rows with an empty cursor value: 400 validation_failed or the first page, never a 5xx',
      requirements: ['CUR-EMPTY'],
      maxRequests: 1,
      ...LISTING_BULK,
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const c = generate(t, invalidListingCaseArbs(t.config.params)['cursor: empty']!, 'cursor-empty');
      const res = await list(t, bulkId, c.request.query ?? []);
      if (res.status === 200) {
        pageOf(t, res, 'CUR-EMPTY', 'an empty cursor read as none');
        t.reading('empty-cursor', 'first-page');
      } else {
        expectProblem(t, res, { status: 400, codes: ['validation_failed'], requirement: 'CUR-EMPTY', why: 'an empty cursor' });
        t.reading('empty-cursor', 'refused');
      }
    },
  );

  check(
    {
      id: 'cursor-bound-to-bulk',
      title: 'GET the rows of another bulk with a cursor issued for the first: 400 validation_failed',
      requirements: ['CUR-BOUND'],
      needs: ['senderId'],
      needsOnHost: ['recipients'],
      maxRequests: 4,
      writes: 'creates a bulk SMS',
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const { cursor, limit } = await issuedCursor(t, bulkId, 10);
      const other = await secondBulk(t);
      const res = await list(t, other, [[t.config.params.limit, String(limit)], [t.config.params.cursor, cursor]]);
      expectProblem(t, res, { status: 400, codes: ['validation_failed'], requirement: 'CUR-BOUND', why: 'a cursor of another bulk' });
    },
  );

  check(
    {
      id: 'cursor-bound-to-filters',
      title: 'GET a next page with the cursor of a status-filtered first page and another status value: 400 validation_failed',
      requirements: ['CUR-BOUND-FILTERS', 'CUR-BOUND'],
      maxRequests: 4,
      ...LISTING_BULK,
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const { rows } = await allRows(t, bulkId);
      const { params } = t.config;
      // The best-filled status, so that even a small bulk pages under it.
      const status = statusesWithPages(rows)[0] ?? smallListing(t, 'no status value selects two or more rows of the bulk, so no filtered cursor can be issued');
      const other = generate(t, fc.constantFrom(...STATUS_VALUES.filter((s) => s !== status)), 'filter-bound other');
      const { cursor, limit } = await issuedCursor(t, bulkId, 5, [[params.status, status]]);
      const res = await list(t, bulkId, [[params.status, other], [params.limit, String(limit)], [params.cursor, cursor]]);
      expectProblem(t, res, {
        status: 400,
        codes: ['validation_failed'],
        requirement: 'CUR-BOUND-FILTERS',
        why: `a cursor issued under ${params.status}=${status}, sent with ${params.status}=${other}`,
      });
    },
  );

  check(
    {
      id: 'cursor-filter-added',
      title: 'GET a next page with the cursor of an unfiltered first page and a filter added (a status value; a number of the bulk): 400 validation_failed',
      requirements: ['CUR-BOUND-FILTERS'],
      maxRequests: 5,
      ...LISTING_BULK,
    },
    async (t) => {
      // Blind defect blind-cursor-number-filter-not-bound: a cursor is bound to the filters it was
      // issued with, none included; every filter parameter of the listing is added in turn.
      const bulkId = await bulkToList(t);
      const { rows } = await allRows(t, bulkId);
      const { params } = t.config;
      const { cursor, limit } = await issuedCursor(t, bulkId, 10);
      const number = rows.map((r) => r.to).find((to): to is string => typeof to === 'string');
      const added: Array<[string, string]> = [[params.status, generate(t, fc.constantFrom(...STATUS_VALUES), 'added status')], ...(number ? [[params.to, number] as [string, string]] : [])];
      for (const filter of added) {
        const res = await list(t, bulkId, [filter, [params.limit, String(limit)], [params.cursor, cursor]]);
        expectProblem(t, res, { status: 400, codes: ['validation_failed'], requirement: 'CUR-BOUND-FILTERS', why: `a cursor issued without filters, sent with ${filter[0]}=${filter[1]}` });
      }
    },
  );

  check(
    {
      id: 'cursor-reusable',
      title: 'GET the same next page twice with one cursor: 200 both times with the same rows (a cursor lives 24 hours, not one use)',
      requirements: ['CUR-LIFETIME'],
      maxRequests: 4,
      ...LISTING_BULK,
    },
    async (t) => {
      // Blind defect blind-cursor-single-use: a client retrying a page after a lost answer presents
      // its cursor again; within its lifetime the answer is the same page.
      const bulkId = await bulkToList(t);
      const { params } = t.config;
      const { cursor, limit } = await issuedCursor(t, bulkId, 10);
      const query: Array<[string, string]> = [[params.limit, String(limit)], [params.cursor, cursor]];
      const first = pageOf(t, await list(t, bulkId, query), 'CUR-LIFETIME', 'the first use of the cursor');
      const again = await list(t, bulkId, query);
      const second = pageOf(t, again, 'CUR-LIFETIME', 'the same cursor presented a second time');
      const ids = (p: Page) => p.rows.map((r) => String(r.id)).join(',');
      // Proven by defect cursor-repeat-starts-later.
      t.expect(ids(first) === ids(second), 'CUR-LIFETIME', `the same rows for the same cursor (${ids(first).slice(0, 120)})`, `rows ${ids(second).slice(0, 120)}`, again);
    },
  );

  check(
    {
      id: 'filtered-walk-visits-every-row-once',
      title: 'Follow next_cursor through a filtered listing (the best-filled status value; a number the bulk repeats) at a small page size: each matching row once, none outside the filter',
      requirements: ['CUR-WALK', 'CUR-HAS-MORE', 'CUR-FILTER-STATUS', 'CUR-FILTER-TO'],
      maxRequests: { fixed: 1, perCase: WALK_PAGES, maxCases: 2 },
      ...LISTING_BULK,
    },
    async (t) => {
      // Blind defect blind-filtered-walk-repeats: the walk rules hold under every filter, whose pages
      // skip the rows outside it.
      const bulkId = await bulkToList(t);
      const { rows } = await allRows(t, bulkId);
      const { params } = t.config;
      const status = statusesWithPages(rows)[0];
      const counts = new Map<string, number>();
      for (const r of rows) if (typeof r.to === 'string') counts.set(r.to, (counts.get(r.to) ?? 0) + 1);
      const number = [...counts].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1])[0]?.[0];
      const filters: Array<{ filter: [string, string]; matching: number; matches: (r: Row) => boolean }> = [
        ...(status ? [{ filter: [params.status, status] as [string, string], matching: rows.filter((r) => rowMatchesStatus(r, status)).length, matches: (r: Row) => !rowInFilterVocabulary(r) || rowMatchesStatus(r, status) }] : []),
        ...(number ? [{ filter: [params.to, number] as [string, string], matching: counts.get(number)!, matches: (r: Row) => r.to === number }] : []),
      ];
      if (filters.length === 0) return smallListing(t, 'no status value or number selects two or more rows of the bulk');
      const findings: string[] = [];
      for (const { filter, matching, matches } of filters) {
        // About five pages of the rows that matched in the unfiltered read.
        const limit = Math.max(1, Math.ceil(matching / 5));
        // Statuses move as the bulk advances, so only the number's rows bound the walk's length.
        const w = await walk(t, bulkId, limit, [filter], filter[0] === params.to ? matching : undefined);
        const seen = new Set<string>();
        const repeated = w.ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
        if (repeated.length > 0) findings.push(`${filter[0]}=${filter[1]} at page size ${limit}: rows seen twice: ${repeated.slice(0, 5).join(', ')}`);
        // An empty page has_more announced while rows were unseen: rows missing are the walk's, else has_more's.
        if (w.emptyAnnounced && seen.size < matching) findings.push(`${filter[0]}=${filter[1]} at page size ${limit}: ${seen.size} of ${matching} rows, then an empty page`);
        // waiver: reached only by the number's walk (the only one bounded by a row count, so the only one an empty page mid-walk marks), which needs a number the listing bulk repeats: the matrix always lists the fixture bulk of CONFORMANCE_EXPIRED_CURSOR_BULK_ID, one number per row; hosts of a few allowlisted numbers reach it
        else if (w.emptyAnnounced) t.fail('CUR-HAS-MORE', "rows on the page that the previous page's has_more true announced", `an empty page after all ${matching} rows of ${filter[0]}=${filter[1]}`, ...w.emptyAnnounced);
        const outside = w.rows.filter((r) => !matches(r));
        // Proven by defect filtered-later-pages-unfiltered.
        t.expect(outside.length === 0, filter[0] === params.to ? 'CUR-FILTER-TO' : 'CUR-FILTER-STATUS', `only rows with ${filter[0]}=${filter[1]}`, `${outside.length} other row(s), e.g. ${show(outside[0])}`, ...w.responses.slice(0, 2));
      }
      // CUR-WALK is a should: reported after every walk.
      if (findings.length > 0) t.fail('CUR-WALK', 'every row of a filtered listing once', findings.join('; '));
    },
  );

  check(
    {
      id: 'cursor-filters-omitted',
      title: 'GET a next page with the cursor of a filtered page but no filter: 400 validation_failed, or rows that still match the filter',
      requirements: ['CUR-OMIT-FILTERS-NEXT-PAGE'],
      maxRequests: 4,
      ...LISTING_BULK,
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const { rows } = await allRows(t, bulkId);
      const { params } = t.config;
      // A filter that selects two or more rows but not all of them, so an unfiltered page would
      // show outsiders: a status value, or else a number (bulks of a short allowlist repeat them).
      const status = statusesWithPages(rows).find((s) => rows.some((r) => !rowMatchesStatus(r, s)));
      const numbers = [...new Set(rows.map((r) => String(r.to)))];
      const number = numbers
        .map((n) => ({ n, count: rows.filter((r) => r.to === n).length }))
        .filter((x) => x.count >= 2 && x.count < rows.length)
        .sort((a, b) => b.count - a.count)[0]?.n;
      const filter: { name: string; value: string; matches: (r: Row) => boolean } | undefined =
        status !== undefined
          ? { name: params.status, value: status, matches: (r) => rowMatchesStatus(r, status) }
          : number !== undefined
            ? { name: params.to, value: number, matches: (r) => r.to === number }
            : undefined;
      if (!filter) return smallListing(t, 'no status value or number selects a strict subset of two or more rows of the bulk');
      const { cursor, limit } = await issuedCursor(t, bulkId, 5, [[filter.name, filter.value]]);
      const res = await list(t, bulkId, [[params.limit, String(limit)], [params.cursor, cursor]]);
      if (res.status !== 200) {
        expectProblem(t, res, { status: 400, codes: ['validation_failed'], requirement: 'CUR-OMIT-FILTERS-NEXT-PAGE', why: 'filters left out with a filtered cursor' });
        t.reading('filters-omitted', 'refused');
        return;
      }
      const page = pageOf(t, res, 'CUR-OMIT-FILTERS-NEXT-PAGE', 'the next page without filters');
      const outsiders = page.rows.filter((r) => !filter.matches(r));
      t.expect(
        outsiders.length === 0,
        'CUR-OMIT-FILTERS-NEXT-PAGE',
        `only rows with ${filter.name}=${filter.value} (the cursor's filter), or 400`,
        `${outsiders.length} row(s) outside the filter, e.g. ${show(outsiders[0])}`,
        res,
      );
      t.reading('filters-omitted', 'kept', filter.name);
    },
  );

  check(
    {
      id: 'expired-cursor-fixture',
      title: "GET the first page of the cursor's bulk, then its rows with the configured cursor issued more than 24 hours ago: 400 validation_failed",
      requirements: ['CUR-EXPIRED'],
      needs: ['expiredCursor', 'expiredCursorBulkId'],
      maxRequests: 2,
    },
    async (t) => {
      const [expiredCursor, expiredCursorBulkId] = [t.fixture('expiredCursor'), t.fixture('expiredCursorBulkId')];
      // 4.3 counts a cursor's 24 hours from its issue, whatever the bulk's listing did since
      // (blind6-cursor-lifetime-slides-with-listing counted them from the bulk's latest listing): the
      // bulk is listed here first, not left to a check that may or may not run before this one.
      const first = await list(t, expiredCursorBulkId, []);
      t.note(`the bulk's first page first: ${describeResponse(first)}`);
      const res = await list(t, expiredCursorBulkId, [[t.config.params.cursor, expiredCursor]]);
      expectProblem(t, res, { status: 400, codes: ['validation_failed'], requirement: 'CUR-EXPIRED', why: 'a cursor older than 24 hours' });
    },
  );

  check(
    {
      id: 'cursor-lifetime',
      title: 'On the embedded reference: a cursor still works 23 hours after it was issued and gives 400 validation_failed after 24 hours',
      requirements: ['CUR-LIFETIME', 'CUR-EXPIRED'],
      maxRequests: 3,
      ...LISTING_BULK,
      embeddedOnly: { needs: 'control', why: 'needs time travel: only the embedded reference offers a clock to advance' },
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const { params } = t.config;
      const { cursor, limit } = await issuedCursor(t, bulkId, 10);
      await advanceClock(t, 23 * HOUR_MS);
      const young = await list(t, bulkId, [[params.limit, String(limit)], [params.cursor, cursor]]);
      pageOf(t, young, 'CUR-LIFETIME', 'a cursor issued 23 hours ago');
      await advanceClock(t, HOUR_MS + 60_000);
      const old = await list(t, bulkId, [[params.limit, String(limit)], [params.cursor, cursor]]);
      expectProblem(t, old, { status: 400, codes: ['validation_failed'], requirement: 'CUR-EXPIRED', why: 'a cursor issued 24 hours and 1 minute ago' });
    },
  );

  check(
    {
      id: 'status-filter',
      title: 'GET the rows with each status filter value: only rows whose submission or delivery status has that value, and not none while a row keeps that value in either field',
      requirements: ['CUR-FILTER-STATUS'],
      // All rows, then per status value a walk of up to two pages of 1000 and all rows again.
      maxRequests: 1 + STATUS_VALUES.length * 3,
      ...LISTING_BULK,
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const truth = await allRows(t, bulkId);
      let unjudged = 0;
      for (const status of STATUS_VALUES) {
        const w = await walk(t, bulkId, 1000, [[t.config.params.status, status]]);
        const judged = w.rows.filter(rowInFilterVocabulary);
        unjudged += w.rows.length - judged.length;
        const wrong = judged.filter((r) => !rowMatchesStatus(r, status));
        t.expect(
          wrong.length === 0,
          'CUR-FILTER-STATUS',
          `only rows with submission or delivery status ${status}`,
          `${wrong.length} other row(s), e.g. ${show(wrong[0])}`,
          ...w.responses.slice(0, 2),
        );
        // Completeness compares with reads of mutable statuses: fewer rows is reported, not judged.
        // None at all, while a row held that status in one of its fields before and after, is a
        // filter that drops rows: the filter selects on submission or delivery status (4.3), so a
        // value one field alone carries (delivered is a delivery word, 3.3) selects by that field
        // (blind defect blind-status-filter-submission-only).
        if (truth.complete) {
          const matching = truth.rows.filter((r) => rowInFilterVocabulary(r) && rowMatchesStatus(r, status));
          if (w.rows.length < matching.length) t.advise(`${t.config.params.status}=${status} returned ${w.rows.length} rows; the unfiltered listing had ${matching.length} matching`);
          // Any matching row left out, not only all of them: a row whose one field holds the value
          // while the other holds another (submission sent, delivery delivered) is selected by the
          // first (blind defect blind4-status-filter-delivery-only compared the delivery status only).
          const listed = new Set(w.ids);
          const missing = matching.filter((r) => typeof r.id === 'string' && !listed.has(r.id));
          if (missing.length > 0) {
            const after = await allRows(t, bulkId);
            const before = new Map(missing.map((r) => [r.id, r]));
            const holds = (r: Row, was: Row) => (was.submission_status === status && r.submission_status === status) || (was.delivery_status === status && r.delivery_status === status);
            const steady = after.rows.filter((r) => before.has(r.id) && holds(r, before.get(r.id)!));
            t.expect(
              steady.length === 0,
              'CUR-FILTER-STATUS',
              `the rows with status ${status}`,
              `${w.rows.length} row(s), leaving out ${steady.length} that had that status before and after (e.g. ${show(steady[0])})`,
              ...w.responses.slice(0, 1),
            );
          }
        }
      }
      if (unjudged > 0) t.reading('row-status-words', 'own-words', `${unjudged} filtered row(s) not judged`);
      else t.reading('row-status-words', 'filter-words');
    },
  );

  check(
    {
      id: 'status-filter-as-rows-move',
      title:
        'POST a bulk, GET its rows under each status filter value right after acceptance and again once a row has moved: each listing holds only rows with that status now, and the later ones leave out no row that had it just before and after',
      requirements: ['CUR-FILTER-STATUS'],
      needs: ['senderId'],
      needsOnHost: ['recipients'],
      // The submission, each status value twice (up to two pages each), a read of the rows, the reads until a row moves, one read after.
      maxRequests: (run) => 1 + STATUS_VALUES.length * 2 * 2 + 1 + maxPollReads(run) + 1,
      writes: 'creates a bulk SMS',
    },
    async (t) => {
      // The filter judges each row as it is when listed, not as it was at an earlier listing
      // (blind defect blind9-status-filter-results-cached kept, per bulk and value, the rows the
      // first filtered listing selected). The run's own bulk, listed under every value of the filter
      // while its rows are fresh and again once one has moved, whatever the pace: the rows of the
      // listing bulk have long stopped moving.
      requireSubmissions(t);
      const { params } = t.config;
      const { response } = await submitAccepted(t, generate(t, bodiesWithCount(t, 3), 'rows that move'));
      const bulkId = bulkIdOf(response)!;
      const statusesOf = (r: Row) => JSON.stringify([r.submission_status, r.delivery_status]);
      const rowsNow = async (what: string) => pageOf(t, await list(t, bulkId, [[params.limit, '1000']]), 'CUR-PATH', `the rows of the new bulk${what}`).rows;
      const listEach = async (when: string): Promise<Map<string, Walk>> => {
        const out = new Map<string, Walk>();
        for (const status of STATUS_VALUES) {
          const w = await walk(t, bulkId, 1000, [[params.status, status]]);
          const wrong = w.rows.filter((r) => rowInFilterVocabulary(r) && !rowMatchesStatus(r, status));
          t.expect(wrong.length === 0, 'CUR-FILTER-STATUS', `only rows with submission or delivery status ${status} ${when}`, `${wrong.length} other row(s), e.g. ${show(wrong[0])}`, ...w.responses.slice(0, 2));
          out.set(status, w);
        }
        return out;
      };
      await listEach('right after acceptance');
      // The rows read as a whole, then again until one shows other statuses than it had then.
      const fresh = new Map((await rowsNow('')).map((r) => [r.id, statusesOf(r)]));
      const { first, max, factor } = pollDelays(t.config.target.embedded);
      const deadline = Date.now() + t.config.settings.settleTimeoutMs;
      let delay = first;
      let before: Row[] | undefined;
      for (let reads = 0; reads < maxPollReads({ settleTimeoutMs: t.config.settings.settleTimeoutMs, embedded: t.config.target.embedded }); reads++) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        const rows = await rowsNow('');
        if (rows.some((r) => fresh.has(r.id) && fresh.get(r.id) !== statusesOf(r))) {
          before = rows;
          break;
        }
        if (Date.now() + delay > deadline) break;
        delay = Math.min(delay * factor, max);
      }
      if (!before) return t.skip(`no row of the new bulk changed status within ${t.config.settings.settleTimeoutMs} ms: nothing to list again`);
      const later = await listEach('once a row moved');
      // A row that had a status value in one field before the listings and after them had it while
      // they were made (a row that went back and forth is not told apart, as in status-filter).
      const after = await rowsNow(', after the listings');
      const was = new Map(before.map((r) => [r.id, r]));
      for (const [status, w] of later) {
        if (w.cut) continue;
        const listed = new Set(w.ids);
        const steady = after.filter((r) => {
          const old = was.get(r.id);
          return old !== undefined && !listed.has(r.id as string) && ((old.submission_status === status && r.submission_status === status) || (old.delivery_status === status && r.delivery_status === status));
        });
        t.expect(steady.length === 0, 'CUR-FILTER-STATUS', `the rows with status ${status} once a row moved`, `${w.rows.length} row(s), leaving out ${steady.length} that had that status before and after (e.g. ${show(steady[0])})`, ...w.responses.slice(0, 1));
      }
    },
  );

  check(
    {
      id: 'number-filter',
      title: 'GET the rows with the number filter set to a recipient of the bulk (its + sent as %2B and as %2b), alone and beside each status filter value, then to valid numbers sharing only part of it (prefix, extension, tail): only rows sent to exactly the number asked for',
      requirements: ['CUR-FILTER-TO'],
      // The number alone (and in lower-case encoding), with each status value (up to two pages each), and each partial number.
      maxRequests: 4 + STATUS_VALUES.length * 2 + PARTIAL_NUMBER_KINDS * 2,
      ...LISTING_BULK,
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const { rows } = await allRows(t, bulkId);
      const numbers = [...new Set(rows.map((r) => r.to).filter((to): to is string => typeof to === 'string'))];
      if (numbers.length === 0) t.skip('the rows show no recipient numbers to filter on');
      const to: string = generate(t, fc.constantFrom(...numbers), 'number-filter');
      const w = await walk(t, bulkId, 1000, [[t.config.params.to, to]]);
      const wrong = w.rows.filter((r) => r.to !== to);
      t.expect(wrong.length === 0, 'CUR-FILTER-TO', `only rows sent to ${to}`, `${wrong.length} other row(s), e.g. to ${JSON.stringify(wrong[0]?.to)}`, ...w.responses.slice(0, 2));
      t.expect(w.rows.length > 0, 'CUR-FILTER-TO', `the row(s) sent to ${to}`, 'no rows', ...w.responses.slice(0, 1));
      // The + in each encoding a client may send: %2B (the walks above, as URLSearchParams and
      // encodeURIComponent write it) and %2b (percent-encoding's hex is case-insensitive, RFC 3986
      // 2.1). Decoded once, both are the number (blind defect blind7-number-filter-decoded-twice
      // decoded the query twice, read a space and refused the valid number). The number's pattern
      // allows no other reserved character, and the status values none at all.
      const lower = `${t.config.params.to}=${to.replace(/^\+/, '%2b')}&${t.config.params.limit}=1000`;
      const res = await t.api.send({ method: 'GET', path: `${paths.bulkRecipients(businessIdOf(t), bulkId)}?${lower}` });
      const page = pageOf(t, res, firstPageRequirement(t, [[t.config.params.to, to]], res), `${lower} (the + percent-encoded in lower case)`);
      const strays = page.rows.filter((r) => r.to !== to);
      t.expect(strays.length === 0, 'CUR-FILTER-TO', `only rows sent to ${to} for ${lower}`, `${strays.length} other row(s), e.g. to ${JSON.stringify(strays[0]?.to)}`, res);
      // Rows may be created as the bulk advances: every row the %2B read listed is listed again.
      const listed = new Set(page.rows.map((r) => r.id));
      const lost = w.rows.filter((r) => !listed.has(r.id));
      if (page.hasMore === false) t.expect(lost.length === 0, 'CUR-FILTER-TO', `the ${w.rows.length} row(s) sent to ${to}, as with %2B`, `${lost.length} of them missing`, res, w.responses[0]!);
      // Filters combine: beside each status value the number still selects (blind defect
      // blind4-number-filter-dropped-with-status applied the number only when no status was given).
      for (const status of STATUS_VALUES) {
        const both = await walk(t, bulkId, 1000, [[t.config.params.status, status], [t.config.params.to, to]]);
        const others = both.rows.filter((r) => r.to !== to);
        t.expect(others.length === 0, 'CUR-FILTER-TO', `only rows sent to ${to} with status ${status} too`, `${others.length} row(s) of other numbers, e.g. to ${JSON.stringify(others[0]?.to)}`, ...both.responses.slice(0, 2));
      }
      // The filter matches a number exactly: valid numbers that share only part of the recipient's
      // (its prefix, an extension, its tail) select no row of another number (blind defect
      // blind-number-filter-prefix).
      for (const { what, value } of partialNumbers(to)) {
        const near = await walk(t, bulkId, 1000, [[t.config.params.to, value]]);
        const other = near.rows.filter((r) => r.to !== value);
        t.expect(other.length === 0, 'CUR-FILTER-TO', `only rows sent to ${value} (${what} of ${to})`, `${other.length} row(s) of other numbers, e.g. to ${JSON.stringify(other[0]?.to)}`, ...near.responses.slice(0, 2));
      }
    },
  );

  check(
    {
      id: 'filter-values-outside-shape',
      title:
        "GET the rows with a status outside its four values or a number that is not E.164 (its near misses and the forms a lax pattern match lets through among them): never a 5xx (the listing's errors are not shown); a 200 instead of a refusal, with rows or with none, is a warning (a client's typo reads as an answer)",
      requirements: ['CUR-FILTER-UNKNOWN-VALUE', 'PROB-NO-5XX-FOR-CLIENT-FAULT', 'CUR-FILTER-STATUS-UNKNOWN', 'CUR-FILTER-TO-INVALID'],
      maxRequests: { fixed: 1 + STATUS_VALUES.length + 2 + LAX_FORMS.length, perCase: 1, maxCases: 6 },
      ...LISTING_BULK,
    },
    async (t) => {
      const bulkId = await bulkToList(t);
      const invalid = invalidListingCaseArbs(t.config.params);
      const statusCases = invalid['status: outside the enum']!;
      type FilterCase = { name: string; request: { query?: Array<[string, string]> } };
      const send = (c: FilterCase) => list(t, bulkId, c.request.query ?? []);
      const judge = async (c: FilterCase, isStatus: boolean) => judgeAnswer(c, isStatus, await send(c));
      const judgeAnswer = (c: FilterCase, isStatus: boolean, res: ApiResponse) => {
        // Any answer but a 5xx is a reading; an error's problem shape is the problem-details topic's to judge.
        if (!expectNoServerFault(t, res, c.name)) return;
        if (res.status !== 200) return t.reading(isStatus ? 'status-filter-unknown' : 'number-filter-invalid', 'refused', `${c.name}: ${describeResponse(res)}`);
        const rows = pageOf(t, res, 'CUR-FILTER-UNKNOWN-VALUE', c.name).rows.length > 0;
        // One line per answer a client breaks on: each is an assertion site the matrix proves.
        if (isStatus && rows) t.reading('status-filter-unknown', 'rows', c.name, res);
        else if (isStatus) t.reading('status-filter-unknown', 'no-rows', c.name, res);
        else if (rows) t.reading('number-filter-invalid', 'rows', c.name, res);
        else t.reading('number-filter-invalid', 'no-rows', c.name, res);
      };
      // One status value outside the four always, so the reading of unknown status values is known.
      // Blind defects blind3-status-filter-case-insensitive and blind3-number-filter-space-as-plus:
      // the near misses a client makes are always sent, derived from the filters' schemas: each
      // status value in upper case (an enum is matched exactly), and a number whose + a client
      // forgot to encode (a form decoder reads it as a space) or left out. Independent reads: a
      // wave at a time.
      const fixed = [{ ...generate(t, statusCases, 'unknown status'), isStatus: true }, ...nearMissFilters(t)];
      await inWaves(t, fixed, send, (c, res) => judgeAnswer(c, c.isStatus, res));
      await forAll(t, fc.oneof(statusCases.map((c) => ({ c, isStatus: true })), invalid['to: not E.164']!.map((c) => ({ c, isStatus: false }))), ({ c, isStatus }) => judge(c, isStatus), {
        maxRuns: 6,
      });
    },
  );
});
