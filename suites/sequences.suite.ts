// sequences: random sequences of operations held to a model of one business (4.1, 4.2, 4.3, 5),
// shrunk to the shortest sequence that still contradicts the model.
import * as fc from 'fast-check';
import type { ApiResponse } from '../harness/client.ts';
import { differentVariantsArb, spellJson, spellingArb, type Spelling } from '../generators/equivalence.ts';
import { jsonSchemaFor } from '../spec/validators.ts';
import { isObject } from '../core/json.ts';
import type { CheckContext } from './support/check.ts';
import { checksFor } from './support/check.ts';
import { describe, providedConfig } from './support/declare.ts';
import { bodyOptions, bulkIdOf, submitBulk, validBodies, type BulkRequestBody } from './support/bulk.ts';
import { paths } from './support/paths.ts';
import { codeOf, describeResponse, isProblem } from './support/problem.ts';
import { sameId } from './support/ids.ts';
import { differences, sameResponse } from './support/replay.ts';
import { CheckSkipped, ConformanceFailure } from './support/failure.ts';
import { MAX_STEP_REQUESTS, describeSteps, sequenceBudget, sequencePlan, type Step } from './support/sequence.ts';

const check = checksFor('sequences', {
  needs: ['businessId'],
  uses: ['senderId', 'recipients', 'expiredCursorBulkId', 'otherBusinessId', 'foreignBulkId', 'messageId', 'templateId'],
});

const STATUS_VALUES = (jsonSchemaFor('RecipientStatusFilter') as { enum: string[] }).enum;

// ---- the model of one business ----------------------------------------------------------------

/** A bulk SMS of the business as the model knows it. */
interface KnownBulk {
  id: string;
  /** Submitted in this sequence (with its key and first answer), or the fixture bulk (read only). */
  key?: string;
  body?: BulkRequestBody;
  first?: ApiResponse;
  /** Distinct numbers submitted (the sequences submit no number twice), so rows are at most these. */
  numbers?: string[];
  /** The intake counts first seen (at acceptance, or the first read of the fixture bulk). */
  intake?: string;
  /** Row ids in the default order, as the longest listing so far showed them, and each row's number. */
  rows: string[];
  rowTo: Map<string, string>;
}

/** A cursor the target issued, with what it was issued for and the rows it gave. */
interface IssuedCursor {
  bulk: KnownBulk;
  cursor: string;
  /** Filters and page size sent with it. */
  query: Array<[string, string]>;
  ids: string[];
  /** How many rows the model knew of the bulk when the cursor was followed. */
  rowsKnown: number;
  statusFiltered: boolean;
}

interface Model {
  bulks: KnownBulk[];
  cursors: IssuedCursor[];
  steps: Step[];
}

/** What the commands act through: the check (client, fixtures, configuration). */
interface Real {
  t: CheckContext;
  /** Requests the check may still send before a step may no longer start. */
  limit: number;
}

/** Readings of the document the target chose, over the whole check (noted once at the end). */
const readings = new Set<string>();

const submitted = (m: Readonly<Model>) => m.bulks.filter((b) => b.key !== undefined);
/** The `n`th item counted from the latest: steps act mostly on what the sequence touched last. */
const pick = <T>(items: readonly T[], n: number): T => items[items.length - 1 - (n % items.length)]!;
const canonical = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (isObject(x) && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));

/** Runs one step: its requests are recorded as the step, and a failure names the model's expectation. */
async function step(m: Model, operation: string, body: (record: (res: ApiResponse) => ApiResponse, expect: Expect) => Promise<void>): Promise<void> {
  const current: Step = { operation, responses: [] };
  m.steps.push(current);
  const record = (res: ApiResponse) => (current.responses.push(res), res);
  const expect: Expect = (ok, expected) => {
    if (!ok) current.expected = expected;
    return ok;
  };
  await body(record, expect);
}

/** Marks the step's expectation (for the story) and says whether it held; the suite line then fails. */
type Expect = (ok: boolean, expected: string) => boolean;

const room = (r: Real) => r.t.api.requestCount + MAX_STEP_REQUESTS <= r.limit;

// ---- commands -----------------------------------------------------------------------------------

class Submit implements fc.AsyncCommand<Model, Real> {
  constructor(readonly body: BulkRequestBody) {}
  check = () => true;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    await step(m, `submit a bulk to ${this.body.recipients.length} number(s) under a new key`, async (record, expect) => {
      const { response, key } = await submitBulk(t, this.body);
      record(response);
      const id = bulkIdOf(response);
      if (!expect(response.status === 202 && id !== undefined, '202 with the accepted bulk SMS')) {
        // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
        t.fail('BULK-ACCEPT-202', '202 with the accepted bulk SMS for a valid body', describeResponse(response), response);
      }
      const intake = isObject(response.json) && isObject(response.json.intake) ? canonical(response.json.intake) : undefined;
      m.bulks.push({ id: id!, key: key!, body: this.body, first: response, numbers: this.body.recipients.map((x) => x.to), ...(intake ? { intake } : {}), rows: [], rowTo: new Map() });
    });
  }
  toString = () => `submit(${this.body.recipients.length})`;
}

type RepeatKind = 'same' | 'rewritten' | 'changed';

class Repeat implements fc.AsyncCommand<Model, Real> {
  constructor(readonly kind: RepeatKind, readonly which: number, readonly spelling: Spelling, readonly seed: number) {}
  check = (m: Readonly<Model>) => submitted(m).length > 0;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const bulk = pick(submitted(m), this.which);
    const key = bulk.key!;
    const first = bulk.first!;
    await step(m, `repeat key ${key} of bulk ${bulk.id} with ${this.kind === 'same' ? 'the same bytes' : this.kind === 'rewritten' ? 'the same JSON written otherwise' : 'a changed body'}`, async (record, expect) => {
      if (this.kind === 'same') {
        const res = record((await submitBulk(t, bulk.body, { key })).response);
        // A conflict for the very first bytes: the key was bound to something else meanwhile.
        if (!expect(!isProblem(res, 409, 'idempotency_conflict'), `the original ${first.status} of bulk ${bulk.id} replayed`)) {
          // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
          t.fail('SEQ-KEY-BOUND-TO-FIRST', `the original ${first.status} of bulk ${bulk.id} replayed: key ${key} is bound to that body`, describeResponse(res), first, res);
        }
        if (!expect(sameResponse(first, res), `the original ${first.status} of bulk ${bulk.id} replayed`)) {
          // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
          t.fail('SEQ-REPLAY-AFTER-ANY', `the original ${first.status} of bulk ${bulk.id} replayed`, differences(first, res), first, res);
        }
      } else if (this.kind === 'rewritten') {
        let text = spellJson(bulk.body, this.spelling);
        if (text === JSON.stringify(bulk.body)) text = ` ${text}`;
        const res = record((await submitBulk(t, undefined, { key, rawBody: text })).response);
        if (isProblem(res, 409, 'idempotency_conflict')) {
          readings.add('equal JSON written otherwise under a used key: 409 idempotency_conflict (byte identity)');
          return;
        }
        const newId = res.status >= 200 && res.status < 300 ? bulkIdOf(res) : undefined;
        if (!expect(newId === undefined || sameId(newId, bulk.id), `bulk ${bulk.id} replayed, or 409 idempotency_conflict`)) {
          // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
          t.fail('SEQ-KEY-BOUND-TO-FIRST', `bulk ${bulk.id} replayed, or 409 idempotency_conflict`, `a new bulk ${newId} (${res.status})`, first, res);
        }
        if (!expect(sameResponse(first, res), `the original ${first.status} of bulk ${bulk.id} replayed, or 409 idempotency_conflict`)) {
          // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
          t.fail('SEQ-REPLAY-AFTER-ANY', `the original ${first.status} of bulk ${bulk.id} replayed, or 409 idempotency_conflict`, differences(first, res), first, res);
        }
        readings.add('equal JSON written otherwise under a used key: replayed (equal JSON values)');
      } else {
        const [changed] = fc.sample(differentVariantsArb(bulk.body!, bodyOptions(t)), { seed: this.seed, numRuns: 1 });
        const res = record((await submitBulk(t, changed!.body, { key })).response);
        if (!expect(isProblem(res, 409, 'idempotency_conflict'), `409 idempotency_conflict (${changed!.pointer} changed)`)) {
          // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
          t.fail('SEQ-KEY-BOUND-TO-FIRST', `409 idempotency_conflict: key ${key} is bound to the body of bulk ${bulk.id} (${changed!.pointer} changed)`, describeResponse(res), first, res);
        }
      }
    });
  }
  toString = () => `repeat(${this.kind}, ${this.which})`;
}

class ReadBulk implements fc.AsyncCommand<Model, Real> {
  constructor(readonly which: number) {}
  check = (m: Readonly<Model>) => m.bulks.length > 0;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const bulk = pick(m.bulks, this.which);
    const businessId = t.fixture('businessId');
    await step(m, `read bulk ${bulk.id}`, async (record, expect) => {
      const res = record(await t.api.send({ method: 'GET', path: paths.bulkMessage(businessId, bulk.id) }));
      if (!expect(res.status === 200 && isObject(res.json), `200 with bulk ${bulk.id}`)) {
        // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
        t.fail('BULK-RETRIEVE', `200 with bulk ${bulk.id}`, describeResponse(res), res);
      }
      const body = res.json as Record<string, unknown>;
      if (!expect(sameId(body.id, bulk.id) && sameId(body.business_id, businessId), `bulk ${bulk.id} of business ${businessId}`)) {
        // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
        t.fail('SEQ-OWNERSHIP-AFTER-ANY', `bulk ${bulk.id} of business ${businessId}`, `id ${String(body.id)}, business_id ${String(body.business_id)}`, res);
      }
      if (!isObject(body.intake)) {
        readings.add('intake null or omitted on a read');
        return;
      }
      const intake = canonical(body.intake);
      if (bulk.intake === undefined) bulk.intake = intake;
      if (!expect(intake === bulk.intake, `intake ${bulk.intake}, as first shown`)) {
        t.fail('SEQ-REPEAT-CHANGES-NOTHING', `intake ${bulk.intake}, as ${bulk.first ? 'at acceptance' : 'first read'}`, `intake ${intake}`, ...(bulk.first ? [bulk.first] : []), res);
      }
    });
  }
  toString = () => `read(${this.which})`;
}

type Filter = { kind: 'none' } | { kind: 'to'; which: number } | { kind: 'status'; value: string };

/** Page sizes that split what the bulk holds (a listing of five rows is walked at sizes 1 to 5 or 6). */
function pageSize(bulk: KnownBulk, fraction: number | undefined): number | undefined {
  const known = Math.max(bulk.rows.length, bulk.numbers?.length ?? 0);
  if (fraction === undefined || known === 0) return undefined;
  const least = Math.max(1, Math.ceil(known / (MAX_STEP_REQUESTS - 2)));
  return Math.min(1000, least + Math.floor(fraction * (known + 2 - least)));
}

class List implements fc.AsyncCommand<Model, Real> {
  constructor(readonly which: number, readonly fraction: number | undefined, readonly filter: Filter) {}
  check = (m: Readonly<Model>) => m.bulks.length > 0;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const { params } = t.config;
    const bulk = pick(m.bulks, this.which);
    const numbers = bulk.numbers ?? [...new Set(bulk.rowTo.values())];
    const to = this.filter.kind === 'to' && numbers.length > 0 ? pick(numbers, this.filter.which) : undefined;
    const status = this.filter.kind === 'status' ? this.filter.value : undefined;
    const size = pageSize(bulk, this.fraction);
    const filters: Array<[string, string]> = [...(to ? [[params.to, to] as [string, string]] : []), ...(status ? [[params.status, status] as [string, string]] : [])];
    const query: Array<[string, string]> = [...filters, ...(size !== undefined ? [[params.limit, String(size)] as [string, string]] : [])];
    const what = `${to ? ` to ${to}` : ''}${status ? ` status ${status}` : ''}`;
    await step(m, `list the rows of bulk ${bulk.id} at page size ${size ?? 'default'}${what}, following next_cursor`, async (record, expect) => {
      const ids: string[] = [];
      const tos = new Map<string, string>();
      let cursor: string | undefined;
      let previous: IssuedCursor | undefined;
      let complete = false;
      for (let pages = 0; pages < MAX_STEP_REQUESTS; pages++) {
        const res = record(
          await t.api.send({ method: 'GET', path: paths.bulkRecipients(t.fixture('businessId'), bulk.id), query: [...query, ...(cursor ? [[params.cursor, cursor] as [string, string]] : [])] }),
        );
        const body = res.json;
        const pagination = isObject(body) ? body.pagination : undefined;
        if (!expect(res.status === 200 && isObject(body) && Array.isArray(body.data) && isObject(pagination), 'a page (200 with data and pagination)')) {
          // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
          t.fail('SEQ-LISTING-CONSISTENT', `a page of bulk ${bulk.id}${what}`, describeResponse(res), res);
        }
        const rows = (body as { data: unknown[] }).data;
        const pageIds: string[] = [];
        for (const row of rows) {
          if (!isObject(row) || typeof row.id !== 'string') {
            readings.add('rows without an id: listings compared by count only');
            return;
          }
          pageIds.push(row.id);
          if (typeof row.to === 'string') tos.set(row.id, row.to);
          const owned = bulk.numbers === undefined || (typeof row.to === 'string' && bulk.numbers.includes(row.to));
          if (!expect(owned && (to === undefined || row.to === to), `rows of bulk ${bulk.id}${to ? ` to ${to}` : ''} only`)) {
            // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
            t.fail('SEQ-LISTING-CONSISTENT', `rows of bulk ${bulk.id}${to ? ` sent to ${to}` : ` sent to ${bulk.numbers!.join(', ')}`} only`, `row ${row.id} to ${String(row.to)}`, ...(bulk.first ? [bulk.first] : []), res);
          }
        }
        // A cursor joins the model once the page it gave is known.
        if (previous) m.cursors.push({ ...previous, ids: pageIds });
        ids.push(...pageIds);
        const p = pagination as Record<string, unknown>;
        if (p.has_more !== true || typeof p.next_cursor !== 'string' || p.next_cursor === '') {
          complete = true;
          break;
        }
        cursor = p.next_cursor;
        previous = { bulk, cursor, query, ids: [], rowsKnown: 0, statusFiltered: status !== undefined };
      }
      if (new Set(ids).size !== ids.length) {
        // A row twice in one walk is the cursors topic's finding (CUR-WALK); the model cannot order it.
        readings.add('a walk met a row twice (judged by cursors/walk-visits-every-row-once)');
        return;
      }
      judgeWalk(t, bulk, ids, tos, to, status !== undefined || !complete, expect, m.steps.at(-1)!.responses);
      for (const c of m.cursors) if (c.bulk === bulk && c.rowsKnown === 0) c.rowsKnown = bulk.rows.length;
    });
  }
  toString = () => `list(${this.which}, ${this.fraction ?? 'default'}, ${this.filter.kind === 'status' ? this.filter.value : this.filter.kind})`;
}

/**
 * A walk held to what the model knows of the bulk: never more rows than entries; the rows seen
 * before keep their order, and a whole unfiltered or number-filtered walk shows every one of them
 * again (`partial`: a status filter, whose rows change as the bulk advances, or a walk cut short).
 */
function judgeWalk(t: CheckContext, bulk: KnownBulk, ids: string[], tos: Map<string, string>, to: string | undefined, partial: boolean, expect: Expect, evidence: ApiResponse[]): void {
  const last = evidence.slice(-2);
  if (bulk.numbers && !to && !partial) {
    if (!expect(ids.length <= bulk.numbers.length, `at most ${bulk.numbers.length} rows (one per entry)`)) {
      // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
      t.fail('SEQ-REPEAT-CHANGES-NOTHING', `at most ${bulk.numbers.length} rows for bulk ${bulk.id}: its ${bulk.numbers.length} entries`, `${ids.length} rows`, ...(bulk.first ? [bulk.first] : []), ...last);
    }
  }
  const known = bulk.rows.filter((id) => (to ? bulk.rowTo.get(id) === to : true));
  const seen = new Set(ids);
  const order = ids.filter((id) => bulk.rowTo.has(id));
  const expectedOrder = known.filter((id) => seen.has(id));
  if (!expect(order.join() === expectedOrder.join(), `the rows seen before in their order: ${expectedOrder.join(', ')}`)) {
    // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
    t.fail('SEQ-LISTING-CONSISTENT', `rows of bulk ${bulk.id} in the order listed before: ${expectedOrder.join(', ')}`, `in this order: ${order.join(', ')}`, ...last);
  }
  if (!partial) {
    const missing = known.filter((id) => !seen.has(id));
    if (!expect(missing.length === 0, `every row listed before${to ? ` to ${to}` : ''} again`)) {
      // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
      t.fail('SEQ-LISTING-CONSISTENT', `every row of bulk ${bulk.id}${to ? ` to ${to}` : ''} listed before, again (${known.length})`, `missing: ${missing.join(', ')}`, ...last);
    }
    if (!to && ids.length > bulk.rows.length) {
      bulk.rows = ids;
      for (const [id, number] of tos) bulk.rowTo.set(id, number);
    }
  }
}

class ReuseCursor implements fc.AsyncCommand<Model, Real> {
  constructor(readonly which: number) {}
  check = (m: Readonly<Model>) => m.cursors.some((c) => c.rowsKnown > 0);
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const c = pick(m.cursors.filter((x) => x.rowsKnown > 0), this.which);
    await step(m, `present again a cursor of bulk ${c.bulk.id} (it gave ${c.ids.length} row(s))`, async (record, expect) => {
      const res = record(
        await t.api.send({ method: 'GET', path: paths.bulkRecipients(t.fixture('businessId'), c.bulk.id), query: [...c.query, [t.config.params.cursor, c.cursor]] }),
      );
      if (isProblem(res, 400, 'validation_failed')) {
        readings.add('a cursor presented again: 400 validation_failed (used once)');
        return;
      }
      const data = isObject(res.json) && Array.isArray(res.json.data) ? (res.json.data as unknown[]) : undefined;
      if (!expect(res.status === 200 && data !== undefined, 'the page again, or 400 validation_failed')) {
        // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
        t.fail('SEQ-CURSOR-REPLAYS-PAGE', 'the page the cursor gave before, or 400 validation_failed', describeResponse(res), res);
      }
      readings.add('a cursor presented again: the page again (reusable within its lifetime)');
      const ids = data!.map((row) => (isObject(row) ? row.id : undefined));
      const stable = c.bulk.rows.length === c.rowsKnown && !c.statusFiltered;
      const foreign = ids.filter((id) => typeof id === 'string' && c.bulk.rowTo.size > 0 && !c.bulk.rowTo.has(id) && stable);
      const same = ids.join() === c.ids.join();
      if (!expect(foreign.length === 0 && (!stable || same), `rows ${c.ids.join(', ')} again`)) {
        // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
        t.fail('SEQ-CURSOR-REPLAYS-PAGE', `the rows the cursor gave before: ${c.ids.join(', ') || 'none'}`, `rows ${ids.join(', ') || 'none'}`, res);
      }
    });
  }
  toString = () => `reuse-cursor(${this.which})`;
}

type ForeignKind = 'bulk-under-other' | 'rows-under-other' | 'foreign-under-own';

class Foreign implements fc.AsyncCommand<Model, Real> {
  constructor(readonly kind: ForeignKind, readonly which: number) {}
  check = (m: Readonly<Model>) => this.kind === 'foreign-under-own' || m.bulks.length > 0;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const { otherBusinessId, foreignBulkId } = t.config.fixtures;
    const businessId = t.fixture('businessId');
    let path: string;
    let what: string;
    if (this.kind === 'foreign-under-own') {
      if (!foreignBulkId) return;
      path = paths.bulkMessage(businessId, foreignBulkId);
      what = `read another business's bulk ${foreignBulkId} under business ${businessId}`;
    } else {
      if (!otherBusinessId) return;
      const bulk = pick(m.bulks, this.which);
      path = this.kind === 'bulk-under-other' ? paths.bulkMessage(otherBusinessId, bulk.id) : paths.bulkRecipients(otherBusinessId, bulk.id);
      what = `${this.kind === 'bulk-under-other' ? 'read bulk' : 'list the rows of bulk'} ${bulk.id} under business ${otherBusinessId} (no grant)`;
    }
    await step(m, what, async (record, expect) => {
      const res = record(await t.api.send({ method: 'GET', path }));
      if (!expect(res.status === 403 || res.status === 404, '403 or 404, nothing shown')) {
        // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
        t.fail('SEQ-OWNERSHIP-AFTER-ANY', '403 permission_denied or 404 resource_not_found, nothing shown', describeResponse(res), res);
      }
      readings.add(`${this.kind === 'foreign-under-own' ? "another business's bulk" : 'a bulk under a business without grant'}: ${res.status} ${codeOf(res.json) ?? ''}`.trim());
    });
  }
  toString = () => `foreign(${this.kind}, ${this.which})`;
}

class ReadWallet implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const businessId = t.fixture('businessId');
    await step(m, 'read the wallet balance', async (record, expect) => {
      const res = record(await t.api.send({ method: 'GET', path: paths.walletBalance(businessId) }));
      // Its other answers are the wallet topic's to judge; the model only asks whose wallet it is.
      if (res.status !== 200 || !isObject(res.json)) return;
      if (!expect(sameId(res.json.business_id, businessId), `the wallet of business ${businessId}`)) {
        // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
        t.fail('SEQ-OWNERSHIP-AFTER-ANY', `the wallet of business ${businessId}`, `business_id ${String(res.json.business_id)}`, res);
      }
    });
  }
  toString = () => 'wallet';
}

class ReadMessage implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const messageId = t.config.fixtures.messageId;
    if (!messageId) return;
    const businessId = t.fixture('businessId');
    await step(m, `read message ${messageId}`, async (record, expect) => {
      const res = record(await t.api.send({ method: 'GET', path: paths.message(businessId, messageId) }));
      if (res.status !== 200 || !isObject(res.json)) return;
      if (!expect(sameId(res.json.id, messageId) && sameId(res.json.business_id, businessId), `message ${messageId} of business ${businessId}`)) {
        // waiver: not proven yet: the sequence-only defects that reached this line were removed as unreliable on 2026-11-26 (issue 30 stays open for them)
        t.fail('SEQ-OWNERSHIP-AFTER-ANY', `message ${messageId} of business ${businessId}`, `id ${String(res.json.id)}, business_id ${String(res.json.business_id)}`, res);
      }
    });
  }
  toString = () => 'message';
}

// ---- generation -----------------------------------------------------------------------------------

/** Bodies to distinct numbers (rows are then at most the entries, whatever a target does with duplicates). */
function distinctBodies(t: CheckContext): fc.Arbitrary<BulkRequestBody> {
  return validBodies(t).map((body) => {
    const seen = new Set<string>();
    return { ...body, recipients: body.recipients.filter((x) => (seen.has(x.to) ? false : (seen.add(x.to), true))) };
  });
}

function commandArbs(t: CheckContext, submits: boolean): fc.Arbitrary<fc.AsyncCommand<Model, Real>> {
  // Mostly the latest bulk, key or cursor, so that steps meet one another on the same one.
  const index = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: 7 }) });
  const filter: fc.Arbitrary<Filter> = fc.oneof(
    { weight: 3, arbitrary: fc.constant<Filter>({ kind: 'none' }) },
    { weight: 2, arbitrary: index.map((which): Filter => ({ kind: 'to', which })) },
    { weight: 1, arbitrary: fc.constantFrom(...STATUS_VALUES).map((value): Filter => ({ kind: 'status', value })) },
  );
  const reads: Array<fc.WeightedArbitrary<fc.AsyncCommand<Model, Real>>> = [
    { weight: 4, arbitrary: index.map((i) => new ReadBulk(i)) },
    { weight: 4, arbitrary: fc.tuple(index, fc.option(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { nil: undefined }), filter).map(([i, f, x]) => new List(i, f, x)) },
    { weight: 2, arbitrary: index.map((i) => new ReuseCursor(i)) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom<ForeignKind>('bulk-under-other', 'rows-under-other', 'foreign-under-own'), index).map(([k, i]) => new Foreign(k, i)) },
    { weight: 1, arbitrary: fc.constant(new ReadWallet()) },
    { weight: 1, arbitrary: fc.constant(new ReadMessage()) },
  ];
  const writes: Array<fc.WeightedArbitrary<fc.AsyncCommand<Model, Real>>> = submits
    ? [
        { weight: 1, arbitrary: distinctBodies(t).map((b) => new Submit(b)) },
        {
          weight: 5,
          arbitrary: fc
            .tuple(fc.constantFrom<RepeatKind>('same', 'rewritten', 'changed'), index, spellingArb(), fc.integer())
            .map(([k, i, s, seed]) => new Repeat(k, i, s, seed)),
        },
      ]
    : [];
  return fc.oneof(...writes, ...reads);
}

// ---- the check ----------------------------------------------------------------------------------

describe('sequences (4.1, 4.2, 4.3, 5: a model of one business)', () => {
  // The size of the sequences follows --runs and is in the title, so `plan` says it before anything is sent.
  const planned = sequencePlan(providedConfig().settings.runs);
  check(
    {
      id: 'business-model',
      title:
        `${planned.sequences} random sequences of at most ${planned.maxSteps} steps: submissions, repeats (same bytes, equal JSON written otherwise, a changed body), reads, listings at any page size and filter, cursors presented again, reads under another business, wallet and message reads: every answer agrees with the model; a failure is shrunk to its shortest sequence`,
      requirements: ['SEQ-REPLAY-AFTER-ANY', 'SEQ-KEY-BOUND-TO-FIRST', 'SEQ-REPEAT-CHANGES-NOTHING', 'SEQ-LISTING-CONSISTENT', 'SEQ-CURSOR-REPLAYS-PAGE', 'SEQ-OWNERSHIP-AFTER-ANY'],
      maxRequests: (run) => sequenceBudget(run.runs),
      writes: 'creates bulk SMS (profile safe: the sequences only read the fixtures)',
      readsInSafe: true,
    },
    async (t) => {
      const { settings, fixtures } = t.config;
      const { sequences, maxSteps } = sequencePlan(settings.runs);
      const submits = settings.profile === 'full' && Boolean(fixtures.senderId) && (t.config.target.embedded || (fixtures.recipients ?? []).length > 0);
      const fixtureBulk = fixtures.expiredCursorBulkId;
      if (!submits && !fixtureBulk) {
        t.skip(
          settings.profile === 'safe'
            ? 'profile safe submits nothing and no fixture bulk is configured (CONFORMANCE_EXPIRED_CURSOR_BULK_ID) for the read-only sequences'
            : 'needs CONFORMANCE_SENDER_ID and CONFORMANCE_RECIPIENTS to submit, or CONFORMANCE_EXPIRED_CURSOR_BULK_ID to read',
        );
      }
      t.note(`${sequences} sequence(s) of at most ${maxSteps} steps (--runs ${settings.runs}); ${submits ? 'submissions to allowlisted numbers and reads' : 'read-only, over the fixtures'}; webhook deactivation is left to the webhooks topic`);
      readings.clear();
      const real: Real = { t, limit: sequenceBudget(settings.runs) };
      let failing: { steps: Step[]; error: unknown } | undefined;
      let ran = 0;
      const details = await fc.check(
        // A sequence that may submit opens with a submission: its other steps then act on a bulk of its own.
        fc.asyncProperty(submits ? fc.option(distinctBodies(t), { nil: undefined, freq: 1_000_000 }) : fc.constant(undefined), fc.commands([commandArbs(t, submits)], { maxCommands: maxSteps - 1, size: 'max' }), async (opening, cmds) => {
          const model: Model = { bulks: fixtureBulk ? [{ id: fixtureBulk, rows: [], rowTo: new Map() }] : [], cursors: [], steps: [] };
          ran++;
          try {
            await fc.asyncModelRun(() => ({ model, real }), opening ? [new Submit(opening), ...cmds] : cmds);
          } catch (error) {
            if (!(error instanceof CheckSkipped)) failing = { steps: model.steps, error };
            throw error;
          }
        }),
        { seed: settings.seed, numRuns: sequences },
      );
      for (const reading of readings) t.note(`reading: ${reading}`);
      t.note(`${ran} sequence run(s), shrinking included`);
      if (!details.failed) return;
      const cause = details.errorInstance;
      if (cause instanceof CheckSkipped) throw cause;
      if (!(cause instanceof ConformanceFailure) || !failing) throw cause instanceof Error ? cause : new Error(String(cause));
      const steps = failing.steps;
      const replay = `seed ${details.seed}, path "${details.counterexamplePath}"`;
      const story = describeSteps(steps);
      const failure = new ConformanceFailure({
        requirement: cause.requirement,
        expected: cause.expected,
        actual: cause.actual,
        exchanges: steps.flatMap((s) => s.responses).slice(-10).map((res) => res.exchange),
        ...(cause.site ? { site: cause.site } : {}),
        counterexample: `${steps.length} step(s), ${replay}:\n${story}`,
      });
      failure.message = `${cause.message} — shortest sequence found: ${steps.length} step(s) (replay with ${replay})\n${story}`;
      throw failure;
    },
  );
});
