// concealment: existence across businesses (4.4, 5.8), and the authorization matrix (5, rules 6
// to 8): every operation of the spec, as every caller, on every kind of object, cell by cell. Another business's message, asked for
// under one's own business, must look exactly like a message that exists nowhere: same status,
// code, problem members and headers, no trace of the other business. Timing is only advisory.
import type { ApiResponse } from '../harness/client.ts';
import { describe } from './support/declare.ts';
import { checksFor, type CheckContext } from './support/check.ts';
import { paths } from './support/paths.ts';
import { codeOf, describeResponse, expectProblem } from './support/problem.ts';
import { compareAnswers, describeDifference, shapeDifferences } from './support/answers.ts';
import { TITLE_CONFIRMATION_REQUESTS, onlyTitleDiffers, titleSetAside, titlesFollowObjects } from './support/title-order.ts';
import { randomUuidV7 } from './support/random-ids.ts';
import { maySubmit, submitBulk, validBodies } from './support/bulk.ts';
import { generate } from './support/property.ts';
import { mayAddress } from '../spec/phone-numbers.ts';
import { isObject } from '../core/json.ts';
import { declareMatrixColumns } from './support/matrix-run.ts';
import { RESOURCE_FIXTURES, isolationOf, matrixRows, pathOf, type MatrixRow } from './support/authorization.ts';
import { OTHER_TENANT_HEADER, integerEnds, invalidQueryValue, listingOf, pageFollows, queryBoundaries, queryShown, sentName, valueNamed } from './support/listings.ts';
import { allInWaves } from './support/waves.ts';

/** The listing of the spec whose path names a resource (4.3: a bulk's recipient rows). */
const LISTING = matrixRows().find((r) => r.lists && r.resourceParam !== undefined);

/** A listing's filters: the query parameters that name a field of its items (`to`; `status`: `delivery_status`). */
function filtersOf(row: MatrixRow): string[] {
  const fields = row.itemFields;
  return row.query.filter((q) => integerEnds(q.schema).length === 0 && fields.some((f) => f === q.name || f.endsWith(`_${q.name}`))).map((q) => q.name);
}

/**
 * The value a filter is sent with: what another business's listing shows under its name (a leak
 * would surface there), else what the run's own rows show; one of the filter's enum if it has one.
 */
function filterValue(row: MatrixRow, filter: string, theirs: unknown, ours: unknown): string | undefined {
  const allowed = row.query.find((q) => q.name === filter)?.schema.enum;
  const fits = (v: string | undefined) => v !== undefined && (!Array.isArray(allowed) || allowed.includes(v));
  return [valueNamed(theirs, filter), valueNamed(ours, filter)].find(fits) ?? (Array.isArray(allowed) && allowed.length > 0 ? String(allowed[0]) : undefined);
}

/** A listing page's items (its first array of objects with ids, ids in lower case), or undefined when it shows none. */
function rowsOf(body: unknown): Array<Record<string, unknown> & { id: string }> | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  for (const value of Object.values(body)) {
    if (!Array.isArray(value)) continue;
    if (value.every((x) => x !== null && typeof x === 'object' && typeof (x as { id?: unknown }).id === 'string')) {
      return value.map((x: Record<string, unknown> & { id: string }) => ({ ...x, id: x.id.toLowerCase() }));
    }
  }
  return undefined;
}

/** Whether an item holds a filter's value under the filter's field (`to`; `status`: `submission_status` or `delivery_status`). */
const holds = (item: Record<string, unknown>, filter: string, value: string) => Object.entries(item).some(([k, v]) => (k === filter || k.endsWith(`_${filter}`)) && String(v) === value);

/** The reads of the spec whose path names a resource by id and that take query parameters (4.3: a bulk's recipient rows). */
const QUERIED_READS = matrixRows().filter((r) => !r.writes && r.resourceParam !== undefined && RESOURCE_FIXTURES[r.resourceParam] !== undefined && r.query.length > 0);

/** The reads of the spec whose path names a bulk SMS (the bulk's own isolation rule, 5). */
const BULK_READS = matrixRows().filter((r) => !r.writes && r.resourceParam !== undefined && isolationOf(r.resourceParam) === 'CONC-CROSS-BUSINESS-BULK');

// The first reads of the foreign and nonexistent messages are shared by the checks that judge them.
const check = checksFor('concealment', { shared: 3 });

interface Pair {
  businessId: string;
  foreignId: string;
  randomId: string;
  foreign: ApiResponse;
  random: ApiResponse;
  /** A second nonexistent id's answer: shows which values change from one response to the next. */
  control: { res: ApiResponse; id: string };
}

let messagePair: Promise<Pair> | undefined;

/** The other business's message and a nonexistent one, both asked for under the caller's business. */
async function foreignAndRandomMessage(t: CheckContext): Promise<Pair> {
  const businessId = t.fixture('businessId');
  const foreignId = t.fixture('foreignMessageId');
  messagePair ??= (async () => {
    const randomId = randomUuidV7(t, 'concealment/message');
    const foreign = await t.api.send({ method: 'GET', path: paths.message(businessId, foreignId) });
    const random = await t.api.send({ method: 'GET', path: paths.message(businessId, randomId) });
    const controlId = randomUuidV7(t, 'concealment/message-control');
    const control = { res: await t.api.send({ method: 'GET', path: paths.message(businessId, controlId) }), id: controlId };
    return { businessId, foreignId, randomId, foreign, random, control };
  })();
  return messagePair;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

describe('concealment (4.4, 5.8)', () => {
  check(
    {
      id: 'foreign-message-404',
      title: "GET another business's message under the caller's business: 404 resource_not_found, as for a message that does not exist",
      requirements: ['CONC-CROSS-BUSINESS-MESSAGE'],
      needs: ['businessId', 'foreignMessageId'],
      maxRequests: 0,
    },
    async (t) => {
      const { foreign } = await foreignAndRandomMessage(t);
      expectProblem(t, foreign, {
        status: 404,
        codes: ['resource_not_found'],
        requirement: 'CONC-CROSS-BUSINESS-MESSAGE',
        why: "4.4: another business's message is not disclosed",
      });
    },
  );

  check(
    {
      id: 'foreign-message-same-as-nonexistent',
      title: "GET another business's message and a nonexistent one under the caller's business: same status, code, problem members and values (ids normalised), header names; no trace of the other business",
      requirements: ['CONC-SAME-AS-MISSING', 'CONC-CROSS-BUSINESS-MESSAGE'],
      needs: ['businessId', 'foreignMessageId'],
      // The shared reads, and both again where only their titles differ.
      maxRequests: TITLE_CONFIRMATION_REQUESTS,
    },
    async (t) => {
      const { businessId, foreignId, randomId, foreign, random, control } = await foreignAndRandomMessage(t);
      const other = t.config.fixtures.otherBusinessId;
      if (other && foreign.text.toLowerCase().includes(other.toLowerCase())) {
        t.fail('CONC-SAME-AS-MISSING', 'an answer that does not name the business owning the message', `the answer names the other business ${other}`, foreign, random);
      }
      const { hard, soft } = compareAnswers(foreign, foreignId, random, randomId, control);
      if (onlyTitleDiffers(hard.map((d) => d.what))) {
        const get = (id: string, res: ApiResponse) => ({ request: { method: 'GET' as const, path: paths.message(businessId, id) }, res });
        const { follows, seen } = await titlesFollowObjects(t, get(foreignId, foreign), get(randomId, random));
        if (!follows) {
          t.note(titleSetAside("the other business's message and a nonexistent one", seen));
          hard.length = 0;
        }
      }
      const first = hard[0];
      if (first) {
        t.fail(
          'CONC-SAME-AS-MISSING',
          `the same answer as for a nonexistent message (${describeResponse(random)})`,
          hard.map(describeDifference).join('; '),
          foreign,
          random,
        );
      }
      for (const d of soft) t.advise(`values differ, which may tell the two apart: ${describeDifference(d)}`);
      t.note(`both answered ${describeResponse(foreign)}`);
    },
  );

  check(
    {
      id: 'foreign-message-timing',
      title: "GET another business's message and a nonexistent one 8 times each, interleaved: the same answer every time (a difference fails); median times noted, a large gap reported as an advisory",
      requirements: ['CONC-SAME-AS-MISSING'],
      needs: ['businessId', 'foreignMessageId'],
      timeout: 60_000,
      // 16 timed requests; the first three reads (foreign, nonexistent, control) are shared.
      maxRequests: 16,
    },
    async (t) => {
      const { businessId, foreignId, random: firstRandom } = await foreignAndRandomMessage(t);
      const foreignMs: number[] = [];
      const randomMs: number[] = [];
      for (let i = 0; i < 8; i++) {
        const f = await t.api.send({ method: 'GET', path: paths.message(businessId, foreignId) });
        const r = await t.api.send({ method: 'GET', path: paths.message(businessId, randomUuidV7(t, `concealment/timing/${i}`)) });
        t.expect(
          f.status === r.status && codeOf(f.json) === codeOf(r.json),
          'CONC-SAME-AS-MISSING',
          `the same answer as for a nonexistent message (${describeResponse(r)}) on every repeat`,
          `${describeResponse(f)} on repeat ${i + 1}`,
          f,
          r,
        );
        foreignMs.push(f.exchange.durationMs);
        randomMs.push(r.exchange.durationMs);
      }
      const fm = median(foreignMs);
      const rm = median(randomMs);
      t.note(`median response time: ${fm} ms for the other business's message, ${rm} ms for a nonexistent one (${foreignMs.length} each)`);
      // Loopback and a small sample: only a gap both large in absolute and relative terms is reported.
      if (Math.abs(fm - rm) > 10 && Math.abs(fm - rm) > 0.5 * Math.min(fm, rm)) {
        t.advise(`response times differ (median ${fm} ms vs ${rm} ms): existence may be inferable from timing`);
      }
      t.evidence(firstRandom);
    },
  );

  check(
    {
      id: 'foreign-message-under-ungranted-business',
      title: "GET another business's message and a nonexistent one under that business (no grant): both refused (403 or 404), never 2xx; a difference is reported as an existence leak",
      requirements: ['CONC-OTHER-BUSINESS-PATH', 'CONC-MAY-CONCEAL'],
      needs: ['otherBusinessId', 'foreignMessageId'],
      maxRequests: 2,
    },
    async (t) => {
      const other = t.fixture('otherBusinessId');
      const foreignId = t.fixture('foreignMessageId');
      const randomId = randomUuidV7(t, 'concealment/other-business-message');
      const foreign = await t.api.send({ method: 'GET', path: paths.message(other, foreignId) });
      const random = await t.api.send({ method: 'GET', path: paths.message(other, randomId) });
      for (const res of [foreign, random]) {
        expectProblem(t, res, {
          status: [403, 404],
          codes: ['permission_denied', 'resource_not_found'],
          requirement: 'CONC-OTHER-BUSINESS-PATH',
          why: '5: no grant on the business in the path',
        });
      }
      const { hard } = compareAnswers(foreign, foreignId, random, randomId);
      if (hard.length > 0) {
        t.advise(`existence leak: under a business without grant, an existing message and a nonexistent one are answered differently (${hard.map(describeDifference).join('; ')})`);
      }
      t.note(`no grant answered with ${describeResponse(foreign)}`);
    },
  );

  check(
    {
      id: 'foreign-bulk-concealed',
      title:
        "Every read of the spec naming a bulk SMS (the bulk, its recipient listing), by another business's bulk id under the caller's business, plain and with each query parameter a granted caller sends, at its boundaries (a page size of the spec's minimum and of its maximum, a cursor issued to the run, each filter): refused (404 resource_not_found or 403; 400 for the query), never 2xx; the bulk read answered like a nonexistent bulk",
      requirements: ['CONC-CROSS-BUSINESS-BULK'],
      needs: ['businessId', 'foreignBulkId'],
      uses: ['expiredCursorBulkId'],
      // The bulk read and a nonexistent one; each other read plain and once per query parameter
      // value (an integer at both ends); the run's own listing, if first to ask.
      maxRequests: 2 + BULK_READS.filter((r) => r.operation !== 'getSmsBulkMessage').reduce((sum, r) => sum + 1 + r.query.reduce((n, q) => n + Math.max(1, integerEnds(q.schema).length), 0), 0) + (BULK_READS.some((r) => r.lists) ? 1 : 0),
    },
    async (t) => {
      const businessId = t.fixture('businessId');
      const foreignId = t.fixture('foreignBulkId');
      const randomId = randomUuidV7(t, 'concealment/bulk');
      const foreign = await t.api.send({ method: 'GET', path: paths.bulkMessage(businessId, foreignId) });
      const random = await t.api.send({ method: 'GET', path: paths.bulkMessage(businessId, randomId) });
      expectProblem(t, foreign, {
        status: [403, 404],
        codes: ['resource_not_found', 'permission_denied'],
        requirement: 'CONC-CROSS-BUSINESS-BULK',
        why: "5.6: ownership and isolation of another business's bulk",
      });
      // Blind defects blind-foreign-bulk-rows-listed, blind5-filtered-rows-skip-ownership,
      // blind7-foreign-rows-large-page-export: the bulk's other reads hold its ownership too,
      // whatever the query carries (a filtered listing served from an index keyed by bulk only, the
      // largest pages from an export path), so each parameter goes at each of its boundaries. A 400
      // for a query (a cursor issued for another bulk) refuses as well: the order of validation and
      // ownership is open.
      const answers: string[] = [];
      for (const row of BULK_READS.filter((r) => r.operation !== 'getSmsBulkMessage')) {
        const path = pathOf(row, businessId, foreignId);
        const shapes: Array<{ what: string; query: Array<[string, string]> }> = [{ what: 'no query', query: [] }];
        for (const q of row.query) {
          const { values, missing } = await queryBoundaries(t, row, q.name);
          if (values.length === 0) t.note(`${row.operation} ?${q.name} not sent: ${missing}`);
          for (const value of values) shapes.push({ what: queryShown(q.name, value), query: [[sentName(t, q.name), value]] });
        }
        for (const { what, query } of shapes) {
          const res = await t.api.send({ method: 'GET', path, query });
          expectProblem(t, res, {
            status: query.length > 0 ? [400, 403, 404] : [403, 404],
            codes: query.length > 0 ? ['resource_not_found', 'permission_denied', 'validation_failed'] : ['resource_not_found', 'permission_denied'],
            requirement: 'CONC-CROSS-BUSINESS-BULK',
            why: `5: ${row.operation} of another business's bulk under the caller's business, ${what}`,
          });
          answers.push(`${row.operation} ${what}: ${describeResponse(res)}`);
        }
      }
      const { hard } = compareAnswers(foreign, foreignId, random, randomId);
      if (hard.length > 0) {
        t.advise(`an existing bulk of another business and a nonexistent bulk are answered differently: ${hard.map(describeDifference).join('; ')}`);
      }
      t.note(`another business's bulk answered with ${describeResponse(foreign)}${answers.length > 0 ? `; ${answers.join('; ')}` : ''}`);
    },
  );

  check(
    {
      id: 'foreign-like-unknown-invalid-query',
      title:
        "Every read of the spec naming a resource by id and taking query parameters, by another business's id and by an id that exists nowhere under the caller's business, each query parameter at one value its schema refuses (above the maximum, below the minimum, outside the enum or pattern, too short): both refused (400, 403 or 404), never 2xx, and answered alike (status, code, problem members)",
      requirements: ['CONC-FOREIGN-LIKE-UNKNOWN', 'CONC-SAME-AS-MISSING', 'CONC-UNKNOWN-OBJECT', ...new Set(QUERIED_READS.map((r) => isolationOf(r.resourceParam)))],
      needs: ['businessId'],
      uses: [...new Set(QUERIED_READS.map((r) => RESOURCE_FIXTURES[r.resourceParam!]!.foreign))],
      // The foreign id and an unknown one, once per query parameter; both again where only their titles differ.
      maxRequests: QUERIED_READS.reduce((n, r) => n + 2 * r.query.length, 0) + TITLE_CONFIRMATION_REQUESTS,
    },
    async (t) => {
      // Blind defect blind8-foreign-rows-query-validated-before-ownership: a read that loads the
      // object, validates the query, then checks the owner refuses another business's object 400
      // and an unknown one 404, which tells the caller the object exists (5). The order of
      // validation and ownership is open, so each answer may be 400; the two must be alike.
      const businessId = t.fixture('businessId');
      const cases: Array<{ row: MatrixRow; foreignId: string; unknownId: string; name: string; value: string; what: string }> = [];
      for (const row of QUERIED_READS) {
        const kind = row.resourceParam!;
        const foreignId = t.config.fixtures[RESOURCE_FIXTURES[kind]!.foreign] as string | undefined;
        if (!foreignId) {
          t.note(`${row.operation} not sent: no fixture names another business's ${kind}`);
          continue;
        }
        const unknownId = randomUuidV7(t, `concealment/invalid-query/${row.operation}`);
        for (const q of row.query) {
          const invalid = invalidQueryValue(q.schema);
          if (!invalid) {
            t.note(`${row.operation} ?${q.name}: its schema refuses no value`);
            continue;
          }
          cases.push({ row, foreignId, unknownId, name: q.name, value: invalid.value, what: `${queryShown(q.name, invalid.value)} (${invalid.breaks})` });
        }
      }
      if (cases.length === 0) t.skip("no read naming a resource with query parameters could be sent with another business's id", 'not-observable');
      const send = (c: (typeof cases)[number], id: string) => t.api.send({ method: 'GET', path: pathOf(c.row, businessId, id), query: [[sentName(t, c.name), c.value]] });
      const answers = await allInWaves(t, cases.flatMap((c) => [{ c, id: c.foreignId }, { c, id: c.unknownId }]), ({ c, id }) => send(c, id));
      const differences: Array<{ c: (typeof cases)[number]; foreign: ApiResponse; unknown: ApiResponse; diffs: string[] }> = [];
      for (const [i, c] of cases.entries()) {
        const foreign = answers[2 * i]!;
        const unknown = answers[2 * i + 1]!;
        for (const [res, requirement, whose] of [[foreign, isolationOf(c.row.resourceParam), "another business's"], [unknown, 'CONC-UNKNOWN-OBJECT', 'an unknown']] as const) {
          expectProblem(t, res, { status: [400, 403, 404], codes: ['resource_not_found', 'permission_denied', 'validation_failed'], requirement, why: `5, 7: ${c.row.operation} of ${whose} ${c.row.resourceParam}, ${c.what}` });
        }
        const diffs = shapeDifferences(foreign, unknown);
        if (diffs.length > 0) differences.push({ c, foreign, unknown, diffs });
      }
      t.note(cases.map((c, i) => `${c.row.operation} ${c.what}: ${describeResponse(answers[2 * i]!)}${differences.some((d) => d.c === c) ? ` (unknown id: ${describeResponse(answers[2 * i + 1]!)})` : ''}`).join('; '));
      const byTitle = differences.filter((d) => onlyTitleDiffers(d.diffs));
      if (byTitle[0]) {
        const { c, foreign, unknown } = byTitle[0];
        const asked = (id: string, res: ApiResponse) => ({ request: { method: 'GET' as const, path: pathOf(c.row, businessId, id), query: [[sentName(t, c.name), c.value]] as Array<[string, string]> }, res });
        const { follows, seen } = await titlesFollowObjects(t, asked(c.foreignId, foreign), asked(c.unknownId, unknown));
        if (!follows) {
          t.note(titleSetAside(byTitle.map((d) => `${d.c.row.operation} ${d.c.what}`).join('; '), seen));
          differences.splice(0, differences.length, ...differences.filter((d) => !byTitle.includes(d)));
        }
      }
      const first = differences[0];
      if (first) {
        const { c, foreign, unknown, diffs } = first;
        t.fail(
          c.row.concealsExistence ? 'CONC-SAME-AS-MISSING' : 'CONC-FOREIGN-LIKE-UNKNOWN',
          `another business's ${c.row.resourceParam} answered like one that exists nowhere (${describeResponse(unknown)}), ${c.what}`,
          `${c.row.operation} ${c.what}: ${diffs.join('; ')}${differences.length > 1 ? ` (and ${differences.length - 1} more parameters)` : ''}`,
          foreign,
          unknown,
        );
      }
    },
  );

  check(
    {
      id: 'foreign-message-other-letter-case',
      title: "GET another business's message under the caller's business by its id in upper case and in mixed case: concealed (404 resource_not_found, or 400 validation_failed), never 2xx",
      requirements: ['CONC-CROSS-BUSINESS-MESSAGE'],
      needs: ['businessId', 'foreignMessageId'],
      maxRequests: 2,
    },
    async (t) => {
      // Blind defect blind3-message-id-case-folded-lookup: a UUID's hex digits may come in either
      // case (RFC 9562), so a lookup may fold them, but the ownership check must hold for every
      // spelling of the id, not only the one stored.
      const businessId = t.fixture('businessId');
      const id = t.fixture('foreignMessageId');
      const mixed = [...id].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase())).join('');
      const spellings = [...new Set([id.toUpperCase(), mixed])].filter((s) => s !== id);
      if (spellings.length === 0) t.skip('the message id has no letter to spell in another case', 'not-observable');
      for (const spelled of spellings) {
        const res = await t.api.send({ method: 'GET', path: paths.message(businessId, spelled) });
        expectProblem(t, res, {
          status: [400, 404],
          codes: ['resource_not_found', 'validation_failed'],
          requirement: 'CONC-CROSS-BUSINESS-MESSAGE',
          why: `4.4: another business's message, its id spelled ${spelled}`,
        });
      }
    },
  );

  check(
    {
      id: 'foreign-message-after-sending-to-its-number',
      title:
        "POST a bulk SMS of the caller's business to the number of another business's message (read as that business's application, or each allowlisted number), then GET that message under the caller's business: still 404 resource_not_found",
      requirements: ['CONC-CROSS-BUSINESS-MESSAGE'],
      needs: ['businessId', 'foreignMessageId'],
      uses: ['otherBusinessId', 'otherApp', 'senderId', 'recipients'],
      // The other business's read of its message, the submission, the read under the caller's business.
      maxRequests: 3,
      writes: "creates a bulk SMS to the number of another business's message",
    },
    async (t) => {
      // Blind defect blind10-message-visible-through-shared-number: messages shared per conversation
      // (by number), so once the business sent to a number another business's message to it showed.
      // 4.4: a message of another business stays concealed whatever the caller sent, to whatever
      // number: the number is sent to here (never left to another check's schedule or the
      // recipients it happened to draw).
      if (!maySubmit(t)) t.skip('no submission may be made on this target (needs CONFORMANCE_SENDER_ID and, on a host, CONFORMANCE_RECIPIENTS)', 'precondition');
      const businessId = t.fixture('businessId');
      const foreignId = t.fixture('foreignMessageId');
      const f = t.config.fixtures;
      const allowlist = f.recipients ?? [];
      let to: string | undefined;
      if (f.otherBusinessId !== undefined && t.config.apps.other !== undefined) {
        const own = await t.api.send({ method: 'GET', path: paths.message(f.otherBusinessId, foreignId), as: 'other', headers: { [OTHER_TENANT_HEADER]: 'other-tenant' } });
        to = isObject(own.json) && typeof own.json.to === 'string' ? own.json.to : undefined;
      }
      const embedded = t.config.target.embedded;
      const pool = to !== undefined && (embedded || mayAddress(to, allowlist)) ? [to] : embedded ? [] : allowlist;
      if (pool.length === 0) t.skip("the number of another business's message is not shown to this run (CONFORMANCE_OTHER_* application)", 'precondition');
      t.note(to !== undefined && pool.length === 1 && pool[0] === to ? `sent to the message's own number ${to}` : `sent to each allowlisted number (the message's number ${to ?? 'not shown'})`);
      const body = generate(t, validBodies(t, { content: 'message', count: { min: 1, max: 1 }, pool }), 'concealment/sent-to-foreign-number');
      body.recipients = pool.map((number) => ({ to: number }));
      const accepted = (await submitBulk(t, body)).response;
      const foreign = await t.api.send({ method: 'GET', path: paths.message(businessId, foreignId) });
      expectProblem(t, foreign, {
        status: 404,
        codes: ['resource_not_found'],
        requirement: 'CONC-CROSS-BUSINESS-MESSAGE',
        why: `4.4: another business's message is not disclosed, after the caller's business sent to its number (${describeResponse(accepted)})`,
      });
    },
  );

  check(
    {
      id: 'listing-rows-of-named-bulk',
      title:
        "The run's own bulk listed at the spec's largest page, unfiltered, then once per filter of the spec (each filter's value taken from another business's listing where its application is configured, else from the run's own rows): every filtered row is a row of the bulk's own unfiltered listing, none a row another business's listing shows",
      requirements: ['CONC-NO-FOREIGN-DATA'],
      needs: ['businessId', ...(LISTING?.resourceParam ? [RESOURCE_FIXTURES[LISTING.resourceParam]!.own] : [])],
      uses: ['otherBusinessId', 'otherApp', ...(LISTING?.resourceParam ? [RESOURCE_FIXTURES[LISTING.resourceParam]!.foreign] : [])],
      // The unfiltered page, one page per filter, the other tenant's listing if first to ask.
      maxRequests: LISTING ? 2 + filtersOf(LISTING).length : 0,
    },
    async (t) => {
      // Blind defect blind7-number-filter-searches-all-bulks: a filter served from an index of
      // every bulk's rows. 4.3 lists the rows of the bulk the path names; 5: nothing of a business
      // the caller is not granted on. A filter narrows that bulk's rows, so each filtered row is one
      // of them (compared by id with the bulk's own unfiltered page) and none is another business's.
      const row = LISTING;
      if (!row?.resourceParam) return t.skip('the spec has no listing that names a resource', 'not-observable');
      const filters = filtersOf(row);
      if (filters.length === 0) t.skip(`${row.operation} takes no filter (a query parameter naming a field of its items)`, 'not-observable');
      const path = pathOf(row, t.fixture('businessId'), t.fixture(RESOURCE_FIXTURES[row.resourceParam]!.own) as string);
      const size = row.query.map((q) => ({ name: q.name, ends: integerEnds(q.schema) })).find((q) => q.ends.length > 0);
      const largest: Array<[string, string]> = size ? [[sentName(t, size.name), String(Math.max(...size.ends))]] : [];
      const whole = await t.api.send({ method: 'GET', path, query: largest });
      if (whole.status !== 200) t.skip(`the run's own listing answered ${describeResponse(whole)}: its rows cannot be compared`, 'not-observable');
      const own = rowsOf(whole.json);
      if (own === undefined) return t.skip("the run's own listing shows no rows with ids to compare", 'not-observable');
      const ownIds = own.map((r) => r.id);
      // All of the bulk's rows when no page follows; otherwise only another business's rows are known to be foreign.
      const complete = !pageFollows(whole.json);
      const other = await listingOf(t, row, 'other');
      const foreignRows = other.res ? (rowsOf(other.res.json) ?? []).map((r) => r.id) : [];
      if (!other.res) t.note(`another business's rows not observed: ${other.missing ?? 'no listing'}`);
      const answers: string[] = [];
      for (const filter of filters) {
        const value = filterValue(row, filter, other.res?.json, whole.json);
        if (value === undefined) {
          t.note(`?${filter} not sent: neither listing shows a value for it`);
          continue;
        }
        const res = await t.api.send({ method: 'GET', path, query: [[sentName(t, filter), value], ...largest] });
        answers.push(`${queryShown(filter, value)}: ${describeResponse(res)}`);
        if (res.status !== 200) continue;
        // A row another business lists as its own; or, with every row of the bulk known, more rows
        // than the bulk holds with that value, one of them not among its rows (a row shown under
        // another id alone is the listing's consistency, sequences' to judge, not foreign data).
        const shown = (rowsOf(res.json) ?? []).map((r) => r.id);
        const theirs = shown.find((id) => foreignRows.includes(id));
        const beyond = complete && shown.length > own.filter((r) => holds(r, filter, value)).length;
        const stranger = theirs ?? (beyond ? shown.find((id) => !ownIds.includes(id)) : undefined);
        t.expect(
          stranger === undefined,
          'CONC-NO-FOREIGN-DATA',
          `only rows of the bulk named, filtered by ${queryShown(filter, value)}${complete ? ` (the bulk holds ${own.filter((r) => holds(r, filter, value)).length} such rows of the ${own.length} it lists unfiltered)` : ''}`,
          theirs ? `row ${theirs}, which another business's listing shows as its own` : `${shown.length} rows, among them ${stranger}, not one of the bulk's rows`,
          res,
          ...(theirs && other.res ? [other.res] : [whole]),
        );
      }
      t.note(`the bulk's own listing: ${own.length} rows${complete ? '' : ' on its first page (more follow: only rows another business lists were compared)'}; ${answers.join('; ')}`);
    },
  );

  declareMatrixColumns(check, ['primary', 'limited', 'other-tenant']);
});
