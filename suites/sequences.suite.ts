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
import { bodyOptions, bulkIdOf, maySubmit, submitBulk, type BulkRequestBody } from './support/bulk.ts';
import { bulkRequestArb } from '../generators/bulk-request.ts';
import { parameterSchema } from '../generators/parameters.ts';
import { paths } from './support/paths.ts';
import { codeOf, describeResponse, isProblem } from './support/problem.ts';
import { sameId } from './support/ids.ts';
import { differences, sameResponse } from './support/replay.ts';
import { CheckSkipped, ConformanceFailure } from './support/failure.ts';
import { OTHER_TENANT_HEADER } from './support/matrix-run.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';
import { MAX_STEP_REQUESTS, describeSteps, sequenceBudget, sequencePlan, type Step } from './support/sequence.ts';

const check = checksFor('sequences', {
  needs: ['businessId'],
  uses: ['senderId', 'recipients', 'expiredCursorBulkId', 'otherBusinessId', 'foreignBulkId', 'messageId', 'templateId', 'otherApp', 'limitedApp'],
});

const STATUS_VALUES = (jsonSchemaFor('RecipientStatusFilter') as { enum: string[] }).enum;
const CLASSIFICATIONS = (jsonSchemaFor('MessageClassification') as { enum: string[] }).enum;

/**
 * Members of a bulk the document fixes at its durable acceptance (2.2: sender, classification,
 * content, the revision pinned at acceptance, the acceptance time): every later read shows them again.
 */
const FIXED_MEMBERS = ['from', 'classification', 'message', 'template', 'accepted_at'] as const;
type FixedMember = (typeof FIXED_MEMBERS)[number];

/**
 * A fixed member's value in a comparable form, undefined when absent or null: the acceptance time
 * as written (sameFixed compares its instant at its precision), a message trimmed and normalised
 * (the readings of message-echo), else canonical JSON.
 */
function fixedValue(member: FixedMember, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (member === 'accepted_at') return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? v : undefined;
  if (member === 'message' && typeof v === 'string') return JSON.stringify(v.trim().normalize('NFC'));
  return canonical(v);
}

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
  /** Each row's statuses as the latest listing showed them (submission and delivery). */
  rowStatus?: Map<string, unknown[]>;
  /** The fixed members as the acceptance (or, of the fixture bulk, the first read) showed them. */
  fixed?: Map<FixedMember, string>;
  /** Values of fixed members that only a refused request carried, with its answer. */
  refused?: { values: Map<FixedMember, Set<string>>; response: ApiResponse };
  /** The processing status the latest read showed. */
  status?: string;
  /** When its owner last read or listed it (a step count): what a cache keyed by id holds. */
  observed?: number;
  /** The query (filters, page size) of its owner's latest listing of its rows: what a page cache keyed by bulk and query holds. */
  listedWith?: Array<[string, string]>;
  /** The latest repeat of its key with other bytes (rewritten, changed, faulty), if any: what could have rebound the key. */
  repeatedOtherwise?: string;
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

/**
 * Whether the check's other application already used a key of a sequence: once per check (one
 * request, not one per sequence: the sequences are the run's longest chain of round trips).
 */
let otherApplicationUsedKey = false;

const submitted = (m: Readonly<Model>) => m.bulks.filter((b) => b.key !== undefined);
/** The `n`th item counted from the latest: steps act mostly on what the sequence touched last. */
const pick = <T>(items: readonly T[], n: number): T => items[items.length - 1 - (n % items.length)]!;
/** The bulks, the one its owner read or listed last at the end (`pick`'s favourite), then the others in order. */
const byObservation = (m: Readonly<Model>) => [...m.bulks].sort((a, b) => (a.observed ?? -1) - (b.observed ?? -1));
const observe = (m: Model, bulk: KnownBulk) => void (bulk.observed = m.steps.length);
const canonical = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (isObject(x) && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));

/** A broken expectation of a step: the step ends there, and its command's one assertion site reports it. */
class Broken {
  constructor(
    readonly requirement: RequirementId,
    readonly expected: string,
    readonly actual: string,
    readonly evidence: ApiResponse[],
  ) {}
}

/** Ends the step when `ok` is false: the model expected `expected`, the target answered `actual`. */
type Require = (ok: boolean, requirement: RequirementId, expected: string, actual: string, ...evidence: ApiResponse[]) => void;

/**
 * Section 7: a conflicting or faulty repeat, the first on its key or any later one, is the
 * caller's fault: never a server error (a 503 is the host's pacing). Blind defect
 * blind7-second-conflict-500 answered a key's second conflict with 500.
 */
function noServerFault(res: ApiResponse, what: string, ...evidence: ApiResponse[]): void {
  require(res.status < 500 || res.status === 503, 'PROB-NO-5XX-FOR-CLIENT-FAULT', `a 4xx for ${what}`, describeResponse(res), ...evidence, res);
}

const require: Require = (ok, requirement, expected, actual, ...evidence) => {
  if (!ok) throw new Broken(requirement, expected, actual, evidence);
};

/** The step, in milliseconds, a timestamp is written to: 1000 without fraction, 100 with one digit, ... 1 from three on. */
function precisionMs(timestamp: string): number {
  const digits = /\.(\d+)/.exec(timestamp)?.[1]?.length ?? 0;
  return 10 ** Math.max(0, 3 - digits);
}

/**
 * Whether a fixed member shows its value again. The acceptance time is the same instant at the
 * coarser of the two precisions: a store may keep it coarser than the acceptance answer showed (2.1
 * fixes no precision), truncated or rounded to it, but two values written at one precision are
 * equal (blind defect blind6-replay-requeues-bulk restamped the bulk with a repeat's time, < 1 s
 * later in a fast run).
 */
function sameFixed(member: FixedMember, before: string, value: string): boolean {
  if (member !== 'accepted_at') return before === value;
  const step = Math.max(precisionMs(before), precisionMs(value));
  const [coarse, fine] = precisionMs(before) >= precisionMs(value) ? [before, value] : [value, before];
  const at = Date.parse(coarse);
  const instant = Date.parse(fine);
  return at === Math.floor(instant / step) * step || at === Math.round(instant / step) * step;
}

/** Takes the fixed members a bulk shows that the model does not hold yet (a member null at acceptance may be set later). */
function fixMembers(bulk: KnownBulk, shown: Record<string, unknown>): void {
  const fixed = (bulk.fixed ??= new Map());
  for (const member of FIXED_MEMBERS) {
    const value = fixedValue(member, shown[member]);
    if (value !== undefined && !fixed.has(member)) fixed.set(member, value);
  }
}

/**
 * A read of a bulk held to what its acceptance showed, member by member: a fixed member keeps its
 * value, and none shows a value that only a refused request carried (4.1 rule 4: nothing changes).
 */
function judgeFixedMembers(bulk: KnownBulk, shown: Record<string, unknown>, res: ApiResponse): void {
  const since = bulk.first ? 'at acceptance' : 'at its first read';
  for (const member of FIXED_MEMBERS) {
    const value = fixedValue(member, shown[member]);
    if (value === undefined) continue;
    const refused = bulk.refused?.values.get(member);
    const before = bulk.fixed?.get(member);
    const evidence = [...(bulk.first ? [bulk.first] : []), ...(bulk.refused ? [bulk.refused.response] : []), res];
    const was = before ?? 'unset';
    require(!refused?.has(value), 'SEQ-REPEAT-CHANGES-NOTHING', `bulk ${bulk.id}: ${member} ${was}, as ${since}; never the value of a refused request`, `${member} ${JSON.stringify(shown[member])}, the refused request's`, ...evidence);
    require(before === undefined || sameFixed(member, before, value), 'SEQ-REPEAT-CHANGES-NOTHING', `bulk ${bulk.id}: ${member} ${was}, as ${since}`, `${member} ${JSON.stringify(shown[member])}`, ...evidence);
  }
  fixMembers(bulk, shown);
}

/**
 * Runs one step: its requests are recorded as the step, and the first broken expectation ends it,
 * named in the story and returned for the command to report at its own assertion site.
 */
async function step(m: Model, operation: string, body: (record: (res: ApiResponse) => ApiResponse) => Promise<void>): Promise<Broken | undefined> {
  const current: Step = { operation, responses: [] };
  m.steps.push(current);
  const record = (res: ApiResponse) => (current.responses.push(res), res);
  try {
    await body(record);
    return undefined;
  } catch (error) {
    if (!(error instanceof Broken)) throw error;
    current.expected = error.expected;
    return error;
  }
}

const room = (r: Real) => r.t.api.requestCount + MAX_STEP_REQUESTS <= r.limit;

// ---- commands -----------------------------------------------------------------------------------

class Submit implements fc.AsyncCommand<Model, Real> {
  constructor(readonly body: BulkRequestBody) {}
  check = () => true;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    // Acceptance of a fresh valid body is bulk-invariants' rule (no sequence breaks it alone): a
    // refusal only leaves the bulk out of the model.
    await step(m, `submit a bulk to ${this.body.recipients.length} number(s) under a new key`, async (record) => {
      const { response, key } = await submitBulk(t, this.body);
      record(response);
      const id = bulkIdOf(response);
      if (response.status !== 202 || id === undefined) {
        readings.add(`a valid submission answered ${response.status} (judged by bulk-invariants; left out of the model)`);
        return;
      }
      const intake = isObject(response.json) && isObject(response.json.intake) ? canonical(response.json.intake) : undefined;
      const bulk: KnownBulk = { id, key: key!, body: this.body, first: response, numbers: this.body.recipients.map((x) => x.to), ...(intake ? { intake } : {}), rows: [], rowTo: new Map() };
      if (isObject(response.json)) fixMembers(bulk, response.json);
      m.bulks.push(bulk);
    });
  }
  toString = () => `submit(${this.body.recipients.length})`;
}

type RepeatKind = 'same' | 'rewritten' | 'changed' | 'faulty';

/**
 * The body of a conflicting repeat: a one-field change of any field, and besides it every member a
 * read of the bulk shows back made to differ (the other classification, another message, a message
 * in place of a template), so that whatever a refused repeat writes into the original shows on a
 * later read (blind defect blind5-conflict-overwrites-message upserted the message before the
 * fingerprint check). Still a valid body, so the answer is the conflict (4.1 rule 4).
 */
function conflictingBody(t: CheckContext, body: BulkRequestBody, seed: number): { pointer: string; body: BulkRequestBody } {
  const [variant] = fc.sample(differentVariantsArb(body, bodyOptions(t)), { seed, numRuns: 1 });
  const [message] = fc.sample(bulkRequestArb(bodyOptions(t, { content: 'message' })).map((b) => b.message!).filter((x) => x !== body.message), { seed, numRuns: 1 });
  const classification = CLASSIFICATIONS.find((c) => c !== body.classification) ?? body.classification;
  const { template_id: _template, ...rest } = variant!.body;
  // Without a template, no template variables (4.1 rule 7).
  const recipients = body.template_id === undefined ? rest.recipients : rest.recipients.map(({ to }) => ({ to }));
  return { pointer: `${variant!.pointer}, /classification, /message`, body: { ...rest, classification, message: message!, recipients } };
}

/** `which` of every key: the byte-identical repeat goes to each key of the sequence, earliest first. */
const EVERY_KEY = -1;

class Repeat implements fc.AsyncCommand<Model, Real> {
  constructor(readonly kind: RepeatKind, readonly which: number, readonly spelling: Spelling, readonly seed: number) {}
  check = (m: Readonly<Model>) => submitted(m).length > 0;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const every = this.which === EVERY_KEY;
    const bulks = every ? submitted(m) : [pick(submitted(m), this.which)];
    const how = { same: 'the same bytes', rewritten: 'the same JSON written otherwise', changed: 'a changed body', faulty: 'a changed body with a fault of its own' }[this.kind];
    const what = every ? `every key of the sequence (${bulks.length}), each with ${how}` : `key ${bulks[0]!.key} of bulk ${bulks[0]!.id} with ${how}`;
    const relist = this.kind === 'same' || this.kind === 'rewritten' ? '; a replayed bulk whose rows were listed before, listed again' : '';
    // Once per check, before every key is repeated, the other application granted on the business
    // (the limited one) submits under the earliest key: its own scope (4.1 rule 2), whose new bulk is
    // idempotency's to judge; the key's owner still gets its own original replayed (blind defect
    // blind9-key-record-overwritten-by-other-application saved records by business and key, so the
    // other application's overwrote the owner's, and the owner's repeat made a third bulk).
    const other = every && !otherApplicationUsedKey && t.config.apps.limited !== undefined && r.t.api.requestCount + 1 + MAX_STEP_REQUESTS <= r.limit ? bulks[0] : undefined;
    if (other) otherApplicationUsedKey = true;
    const before = other ? `the other application granted on the business submits under key ${other.key} of bulk ${other.id}, then ` : '';
    const broken = await step(m, `${before}repeat ${what}${relist}`, async (record) => {
      if (other) {
        const used = record((await submitBulk(t, other.body, { key: other.key!, as: 'limited' })).response);
        readings.add(`the other application's submission under a key of the primary's: ${used.status} ${codeOf(used.json) ?? ''}`.trim() + ' (judged by idempotency/scope-per-application)');
      }
      for (const bulk of bulks) {
        const replayed = await this.repeatKeyOf(bulk, t, record);
        // 4.3: a replay creates nothing and changes nothing, so the rows listed before keep their ids
        // and order on the next listing (blind defect blind7-row-ids-regenerated-on-replay upserted
        // them again under new ids): every replay of a listed bulk is followed by a listing, one page
        // that holds every row, whatever the random steps after it list.
        if (replayed && bulk.rows.length > 0 && room(r)) {
          observe(m, bulk);
          const size = pageSize(bulk, AT_ONCE);
          await walkRows(m, t, { bulk, ...(size !== undefined ? { size } : {}) }, record);
        }
      }
    });
    if (broken) t.fail(broken.requirement, broken.expected, broken.actual, ...broken.evidence);
  }
  /** One repeat of the key of `bulk`, held to the model: whether it was replayed. */
  private async repeatKeyOf(bulk: KnownBulk, t: CheckContext, record: (res: ApiResponse) => ApiResponse): Promise<boolean> {
    const key = bulk.key!;
    const first = bulk.first!;
    const replayed = `the original ${first.status} of bulk ${bulk.id} replayed`;
    if (this.kind === 'same') {
      const res = record((await submitBulk(t, bulk.body, { key })).response);
      // A conflict for the very first bytes: after a repeat of the key with other bytes, the key
      // was bound to those (SEQ-KEY-BOUND-TO-FIRST); with none, what came between was only reads,
      // listings or other keys, after which the replay is owed all the same (blind defect
      // blind7-replay-conflict-after-read took a read of the bulk into the key's fingerprint).
      const conflict = isProblem(res, 409, 'idempotency_conflict');
      if (bulk.repeatedOtherwise) require(!conflict, 'SEQ-KEY-BOUND-TO-FIRST', `${replayed}: key ${key} is bound to that body (after ${bulk.repeatedOtherwise})`, describeResponse(res), first, res);
      require(!conflict, 'SEQ-REPLAY-AFTER-ANY', `${replayed}: only reads, listings and other keys came between`, describeResponse(res), first, res);
      require(sameResponse(first, res), 'SEQ-REPLAY-AFTER-ANY', replayed, differences(first, res), first, res);
      return true;
    }
    bulk.repeatedOtherwise = { rewritten: 'a repeat of equal JSON written otherwise', changed: 'a repeat with a changed body', faulty: 'a repeat with a faulty body' }[this.kind];
    if (this.kind === 'rewritten') {
      let text = spellJson(bulk.body, this.spelling);
      if (text === JSON.stringify(bulk.body)) text = ` ${text}`;
      const res = record((await submitBulk(t, undefined, { key, rawBody: text })).response);
      if (isProblem(res, 409, 'idempotency_conflict')) {
        readings.add('equal JSON written otherwise under a used key: 409 idempotency_conflict (byte identity)');
        return false;
      }
      const newId = res.status >= 200 && res.status < 300 ? bulkIdOf(res) : undefined;
      require(newId === undefined || sameId(newId, bulk.id), 'SEQ-KEY-BOUND-TO-FIRST', `bulk ${bulk.id} replayed, or 409 idempotency_conflict`, `a new bulk ${newId} (${res.status})`, first, res);
      require(sameResponse(first, res), 'SEQ-REPLAY-AFTER-ANY', `${replayed}, or 409 idempotency_conflict`, differences(first, res), first, res);
      readings.add('equal JSON written otherwise under a used key: replayed (equal JSON values)');
      return true;
    } else {
      const changed = conflictingBody(t, bulk.body!, this.seed);
      let res: ApiResponse;
      if (this.kind === 'faulty') {
        // A member the schema does not allow (4.1): refused whichever rule the target applies first,
        // the key's (409) or the body's (400); never accepted, and (below) nothing of it written.
        const text = JSON.stringify({ ...changed.body, unexpected_member: true });
        res = record((await submitBulk(t, undefined, { key, rawBody: text })).response);
        noServerFault(res, `a changed body with a fault of its own under key ${key}`, first);
        const refusal = isProblem(res, 409, 'idempotency_conflict') || isProblem(res, 400, 'validation_failed');
        require(refusal, 'SEQ-KEY-BOUND-TO-FIRST', `409 idempotency_conflict or 400 validation_failed: key ${key} is bound to the body of bulk ${bulk.id}, and this body has a member 4.1 does not allow`, describeResponse(res), first, res);
        readings.add(`a changed body with a fault of its own under a used key: ${res.status} ${codeOf(res.json) ?? ''}`.trim());
      } else {
        res = record((await submitBulk(t, changed.body, { key })).response);
        noServerFault(res, `a conflicting repeat under key ${key} (${changed.pointer} changed)`, first);
        require(isProblem(res, 409, 'idempotency_conflict'), 'SEQ-KEY-BOUND-TO-FIRST', `409 idempotency_conflict: key ${key} is bound to the body of bulk ${bulk.id} (${changed.pointer} changed)`, describeResponse(res), first, res);
      }
      // What the refused body carried and the original did not must never show on the original.
      const values = bulk.refused?.values ?? new Map<FixedMember, Set<string>>();
      for (const member of ['from', 'classification', 'message'] as const) {
        const value = fixedValue(member, changed.body[member]);
        if (value !== undefined && value !== fixedValue(member, bulk.body![member])) values.set(member, (values.get(member) ?? new Set()).add(value));
      }
      bulk.refused = { values, response: res };
      return false;
    }
  }
  toString = () => `repeat(${this.kind}, ${this.which === EVERY_KEY ? 'every key' : this.which})`;
}

class ReadBulk implements fc.AsyncCommand<Model, Real> {
  constructor(readonly which: number) {}
  check = (m: Readonly<Model>) => m.bulks.length > 0;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const bulk = pick(m.bulks, this.which);
    const businessId = t.fixture('businessId');
    observe(m, bulk);
    const broken = await step(m, `read bulk ${bulk.id}`, async (record) => {
      const res = record(await t.api.send({ method: 'GET', path: paths.bulkMessage(businessId, bulk.id) }));
      require(res.status === 200 && isObject(res.json), 'BULK-RETRIEVE', `200 with bulk ${bulk.id}`, describeResponse(res), res);
      const body = res.json as Record<string, unknown>;
      require(sameId(body.id, bulk.id) && sameId(body.business_id, businessId), 'SEQ-OWNERSHIP-AFTER-ANY', `bulk ${bulk.id} of business ${businessId}`, `id ${String(body.id)}, business_id ${String(body.business_id)}`, res);
      judgeFixedMembers(bulk, body, res);
      // 3.1: queued is the acceptance's state; back to it after processing or completed is what a
      // repeat that enqueued the bulk again shows (blind6-replay-requeues-bulk). Transitions are not
      // shown, so a warning of the advisory kind, not a failure.
      if (body.status === 'queued' && (bulk.status === 'processing' || bulk.status === 'completed')) {
        t.advise(`bulk ${bulk.id}: status back to queued after ${bulk.status} (steps: ${m.steps.map((s) => s.operation).slice(-4).join('; ')})`);
      }
      if (typeof body.status === 'string') bulk.status = body.status;
      if (!isObject(body.intake)) {
        readings.add('intake null or omitted on a read');
        return;
      }
      const intake = canonical(body.intake);
      if (bulk.intake === undefined) bulk.intake = intake;
      require(intake === bulk.intake, 'SEQ-REPEAT-CHANGES-NOTHING', `intake ${bulk.intake}, as ${bulk.first ? 'at acceptance' : 'first read'}`, `intake ${intake}`, ...(bulk.first ? [bulk.first] : []), res);
    });
    if (broken) t.fail(broken.requirement, broken.expected, broken.actual, ...broken.evidence);
  }
  toString = () => `read(${this.which})`;
}

/** A listing's filter; a status filter without a value takes the one the most rows of the bulk showed last (`bestStatus`). */
type Filter = { kind: 'none' } | { kind: 'to'; which: number } | { kind: 'status'; value?: string };

/**
 * The status value that selects the most rows of the bulk as its latest listings showed them (a
 * filter that selects several rows has an order to keep), the first value when none is known.
 */
function bestStatus(bulk: KnownBulk): string {
  const statuses = [...(bulk.rowStatus?.values() ?? [])];
  const count = (value: string) => statuses.filter((s) => s.includes(value)).length;
  return STATUS_VALUES.reduce((best, value) => (count(value) > count(best) ? value : best), STATUS_VALUES[0]!);
}

/** The fraction of a page size with room for every row at once (one page, the listing whole). */
const AT_ONCE = 0.999;

/** The largest page size the document allows (4.3, 8). */
const PAGE_MAX = (parameterSchema('listSmsBulkMessageRecipients', 'limit', 'query') as { maximum: number }).maximum;

/** The page size of a listing: the largest allowed (a listing may come another way at large sizes). */
const LARGEST = 'largest';

/** Page sizes that split what the bulk holds (a listing of five rows is walked at sizes 1 to 5 or 6), or the largest. */
function pageSize(bulk: KnownBulk, fraction: number | typeof LARGEST | undefined): number | undefined {
  if (fraction === LARGEST) return PAGE_MAX;
  const known = Math.max(bulk.rows.length, bulk.numbers?.length ?? 0);
  if (fraction === undefined || known === 0) return undefined;
  const least = Math.max(1, Math.ceil(known / (MAX_STEP_REQUESTS - 2)));
  return Math.min(1000, least + Math.floor(fraction * (known + 2 - least)));
}

/** A walk of a bulk's rows: an optional number or status filter and page size (none: the target's default). */
interface Walk {
  bulk: KnownBulk;
  to?: string;
  status?: string;
  size?: number;
}

const describeWalk = (w: Walk) => `${w.to ? ` to ${w.to}` : ''}${w.status ? ` status ${w.status}` : ''}`;

/**
 * Lists the rows of a bulk, following next_cursor, each page and the walk held to the model (4.3:
 * ids, order, number filter; 2.3: rows of the bulk's entries only), inside the current step.
 */
async function walkRows(m: Model, t: CheckContext, walk: Walk, record: (res: ApiResponse) => ApiResponse): Promise<void> {
  const { params } = t.config;
  const { bulk, to, status, size } = walk;
  const filters: Array<[string, string]> = [...(to ? [[params.to, to] as [string, string]] : []), ...(status ? [[params.status, status] as [string, string]] : [])];
  const query: Array<[string, string]> = [...filters, ...(size !== undefined ? [[params.limit, String(size)] as [string, string]] : [])];
  const what = describeWalk(walk);
  bulk.listedWith = query;
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
    require(res.status === 200 && isObject(body) && Array.isArray(body.data) && isObject(pagination), 'SEQ-LISTING-CONSISTENT', `a page of bulk ${bulk.id}${what}`, describeResponse(res), res);
    const rows = (body as { data: unknown[] }).data;
    const pageIds: string[] = [];
    for (const row of rows) {
      if (!isObject(row) || typeof row.id !== 'string') {
        readings.add('rows without an id: listings compared by count only');
        return;
      }
      pageIds.push(row.id);
      if (typeof row.to === 'string') tos.set(row.id, row.to);
      (bulk.rowStatus ??= new Map()).set(row.id, [row.submission_status, row.delivery_status]);
      // Every entry of the bulk has shown its row: a row under an id no listing gave before is
      // one more than the entries, or a row that changed its id (2.3, 4.3), whatever the filter.
      const allKnown = bulk.numbers !== undefined && bulk.rows.length >= bulk.numbers.length;
      require(!allKnown || bulk.rows.includes(row.id), 'SEQ-LISTING-CONSISTENT', `rows of bulk ${bulk.id} under the ids its ${bulk.rows.length} entries' rows showed: ${bulk.rows.join(', ')}`, `row ${row.id} to ${String(row.to)}`, ...(bulk.first ? [bulk.first] : []), res);
      // 2.4 does not say which members a row carries: a row without its number is judged by its id only.
      const owned = bulk.numbers === undefined || typeof row.to !== 'string' || bulk.numbers.includes(row.to);
      const expected = `rows of bulk ${bulk.id}${to ? ` sent to ${to}` : bulk.numbers ? ` sent to ${bulk.numbers.join(', ')}` : ''} only`;
      require(owned && (to === undefined || row.to === to), 'SEQ-LISTING-CONSISTENT', expected, `row ${row.id} to ${String(row.to)}`, ...(bulk.first ? [bulk.first] : []), res);
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
  judgeWalk(bulk, ids, tos, to, status !== undefined || !complete, m.steps.at(-1)!.responses);
  for (const c of m.cursors) if (c.bulk === bulk && c.rowsKnown === 0) c.rowsKnown = bulk.rows.length;
}

class List implements fc.AsyncCommand<Model, Real> {
  constructor(readonly which: number, readonly fraction: number | typeof LARGEST | undefined, readonly filter: Filter, readonly fixture = false) {}
  check = (m: Readonly<Model>) => m.bulks.length > 0;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const bulk = this.fixture ? m.bulks[0]! : pick(m.bulks, this.which);
    observe(m, bulk);
    const numbers = bulk.numbers ?? [...new Set(bulk.rowTo.values())];
    const to = this.filter.kind === 'to' && numbers.length > 0 ? pick(numbers, this.filter.which) : undefined;
    const status = this.filter.kind === 'status' ? (this.filter.value ?? bestStatus(bulk)) : undefined;
    const size = pageSize(bulk, this.fraction);
    const walk: Walk = { bulk, ...(to ? { to } : {}), ...(status ? { status } : {}), ...(size !== undefined ? { size } : {}) };
    const broken = await step(m, `list the rows of bulk ${bulk.id} at page size ${size ?? 'default'}${describeWalk(walk)}, following next_cursor`, (record) => walkRows(m, t, walk, record));
    if (broken) t.fail(broken.requirement, broken.expected, broken.actual, ...broken.evidence);
  }
  toString = () => `list(${this.fixture ? 'fixture' : this.which}, ${this.fraction ?? 'default'}, ${this.filter.kind === 'status' ? (this.filter.value ?? 'best status') : this.filter.kind})`;
}

/**
 * A walk held to what the model knows of the bulk: never more rows than entries (whatever the
 * filter, however far the walk went); the rows seen
 * before keep their order, and a whole unfiltered or number-filtered walk shows every one of them
 * again (`partial`: a status filter, whose rows change as the bulk advances, or a walk cut short).
 */
function judgeWalk(bulk: KnownBulk, ids: string[], tos: Map<string, string>, to: string | undefined, partial: boolean, evidence: ApiResponse[]): void {
  const last = evidence.slice(-2);
  const first = bulk.first ? [bulk.first] : [];
  // Any walk, filtered or cut short, shows a subset of the bulk's rows: never more than its entries.
  if (bulk.numbers) {
    require(ids.length <= bulk.numbers.length, 'SEQ-REPEAT-CHANGES-NOTHING', `at most ${bulk.numbers.length} rows for bulk ${bulk.id}: its ${bulk.numbers.length} entries`, `${ids.length} rows`, ...first, ...last);
  }
  const known = bulk.rows.filter((id) => (to ? bulk.rowTo.get(id) === to : true));
  const seen = new Set(ids);
  const order = ids.filter((id) => bulk.rowTo.has(id));
  const expectedOrder = known.filter((id) => seen.has(id));
  require(order.join() === expectedOrder.join(), 'SEQ-LISTING-CONSISTENT', `rows of bulk ${bulk.id} in the order listed before: ${expectedOrder.join(', ')}`, `in this order: ${order.join(', ')}`, ...last);
  if (partial) return;
  const missing = known.filter((id) => !seen.has(id));
  require(missing.length === 0, 'SEQ-LISTING-CONSISTENT', `every row of bulk ${bulk.id}${to ? ` to ${to}` : ''} listed before, again (${known.length})`, `missing: ${missing.join(', ')}`, ...last);
  if (!to && ids.length > bulk.rows.length) {
    bulk.rows = ids;
    for (const [id, number] of tos) bulk.rowTo.set(id, number);
  }
}

/** Cursors worth presenting again: those of a bulk that issued a later one (the latest is only followed again). */
function reusable(m: Readonly<Model>): IssuedCursor[] {
  const known = m.cursors.filter((c) => c.rowsKnown > 0);
  const older = known.filter((c, i) => known.slice(i + 1).some((later) => later.bulk === c.bulk));
  return older.length > 0 ? older : known;
}

class ReuseCursor implements fc.AsyncCommand<Model, Real> {
  constructor(readonly which: number) {}
  check = (m: Readonly<Model>) => reusable(m).length > 0;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const c = pick(reusable(m), this.which);
    const broken = await step(m, `present again a cursor of bulk ${c.bulk.id} (it gave ${c.ids.length} row(s))`, async (record) => {
      const res = record(
        await t.api.send({ method: 'GET', path: paths.bulkRecipients(t.fixture('businessId'), c.bulk.id), query: [...c.query, [t.config.params.cursor, c.cursor]] }),
      );
      if (isProblem(res, 400, 'validation_failed')) {
        readings.add('a cursor presented again: 400 validation_failed (used once)');
        return;
      }
      const data = isObject(res.json) && Array.isArray(res.json.data) ? (res.json.data as unknown[]) : undefined;
      require(res.status === 200 && data !== undefined, 'SEQ-CURSOR-REPLAYS-PAGE', 'the page the cursor gave before, or 400 validation_failed', describeResponse(res), res);
      readings.add('a cursor presented again: the page again (reusable within its lifetime)');
      const ids = data!.map((row) => (isObject(row) ? row.id : undefined));
      const stable = c.bulk.rows.length === c.rowsKnown && !c.statusFiltered;
      const foreign = ids.filter((id) => typeof id === 'string' && c.bulk.rowTo.size > 0 && !c.bulk.rowTo.has(id) && stable);
      const same = ids.join() === c.ids.join();
      require(foreign.length === 0 && (!stable || same), 'SEQ-CURSOR-REPLAYS-PAGE', `the rows the cursor gave before: ${c.ids.join(', ') || 'none'}`, `rows ${ids.join(', ') || 'none'}`, res);
    });
    if (broken) t.fail(broken.requirement, broken.expected, broken.actual, ...broken.evidence);
  }
  toString = () => `reuse-cursor(${this.which})`;
}

/** A request of an ownership step, and the step's plan: concealed answers (403/404), or the business's own. */
interface OwnershipRequest {
  path: string;
  query?: Array<[string, string]>;
}
interface OwnershipPlan {
  requests: OwnershipRequest[];
  what: string;
  concealed: boolean;
  expected: string;
  asOther?: boolean;
}

type OwnershipKind = 'bulk-under-other' | 'rows-under-other' | 'foreign-under-own' | 'wallet' | 'message' | 'bulk-as-other-tenant' | 'rows-as-other-tenant';

/** What an answer must say about whose it is: another business's objects stay concealed, this one's answers are its own. */
class Ownership implements fc.AsyncCommand<Model, Real> {
  constructor(readonly kind: OwnershipKind, readonly which: number) {}
  check = (m: Readonly<Model>) => !(this.kind.endsWith('-under-other') || this.kind.endsWith('-as-other-tenant')) || m.bulks.length > 0;
  async run(m: Model, r: Real) {
    if (!room(r)) return;
    const { t } = r;
    const { otherBusinessId, foreignBulkId, messageId } = t.config.fixtures;
    const businessId = t.fixture('businessId');
    const plan = this.plan(m, businessId, t.config.apps.other !== undefined, otherBusinessId, foreignBulkId, messageId);
    if (!plan) return;
    const broken = await step(m, plan.what, async (record) => {
      let res: ApiResponse | undefined;
      for (const { path, query } of plan.requests) {
        // The other business's application says so in a header, for a judge of the recorded traffic (tokens are redacted).
        res = record(await t.api.send({ method: 'GET', path, ...(query ? { query } : {}), ...(plan.asOther ? { as: 'other' as const, headers: { [OTHER_TENANT_HEADER]: 'other-tenant' } } : {}) }));
        if (!plan.concealed) break;
        require(res.status === 403 || res.status === 404, 'SEQ-OWNERSHIP-AFTER-ANY', '403 permission_denied or 404 resource_not_found, nothing shown', describeResponse(res), res);
        const whose = this.kind === 'foreign-under-own' ? "another business's bulk" : plan.asOther ? "this business's bulk to the other business's application" : 'a bulk under a business without grant';
        readings.add(`${whose}: ${res.status} ${codeOf(res.json) ?? ''}`.trim());
      }
      // Its other answers are the wallet's and messages' topics to judge; the model only asks whose it is.
      if (plan.concealed || !res || res.status !== 200 || !isObject(res.json)) return;
      const ok = sameId(res.json.business_id, businessId) && (this.kind !== 'message' || sameId(res.json.id, messageId));
      require(ok, 'SEQ-OWNERSHIP-AFTER-ANY', plan.expected, `id ${String(res.json.id)}, business_id ${String(res.json.business_id)}`, res);
    });
    if (broken) t.fail(broken.requirement, broken.expected, broken.actual, ...broken.evidence);
  }

  /**
   * The requests of the step. A listing of rows repeats the query of its owner's latest listing of
   * that bulk (what a page cache keyed by bulk and query, not business, holds: blind defect
   * blind7-own-rows-cached-under-any-business answered it under a business without grant), and a
   * read of a listed bulk under another business lists its rows there too.
   */
  private plan(m: Model, businessId: string, otherTenant: boolean, otherBusinessId?: string, foreignBulkId?: string, messageId?: string): OwnershipPlan | undefined {
    const rowsOf = (business: string, bulk: KnownBulk): OwnershipRequest => ({ path: paths.bulkRecipients(business, bulk.id), ...(bulk.listedWith ? { query: bulk.listedWith } : {}) });
    const how = (bulk: KnownBulk) => (bulk.listedWith?.length ? ` (${bulk.listedWith.map(([k, v]) => `${k}=${v}`).join('&')}, as its owner listed it last)` : '');
    switch (this.kind) {
      case 'bulk-as-other-tenant':
      case 'rows-as-other-tenant': {
        // The other business's application (CONFORMANCE_OTHER_CLIENT_ID) reaching this business's bulk.
        if (!otherTenant) return undefined;
        const bulk = pick(byObservation(m), this.which);
        const rows = this.kind === 'rows-as-other-tenant';
        const request = rows ? rowsOf(businessId, bulk) : { path: paths.bulkMessage(businessId, bulk.id) };
        return { requests: [request], what: `${rows ? 'list the rows of bulk' : 'read bulk'} ${bulk.id}${rows ? how(bulk) : ''} of business ${businessId} as the other business's application`, concealed: true, expected: '', asOther: true };
      }
      case 'foreign-under-own':
        return foreignBulkId ? { requests: [{ path: paths.bulkMessage(businessId, foreignBulkId) }], what: `read another business's bulk ${foreignBulkId} under business ${businessId}`, concealed: true, expected: '' } : undefined;
      case 'wallet':
        return { requests: [{ path: paths.walletBalance(businessId) }], what: 'read the wallet balance', concealed: false, expected: `the wallet of business ${businessId}` };
      case 'message':
        return messageId ? { requests: [{ path: paths.message(businessId, messageId) }], what: `read message ${messageId}`, concealed: false, expected: `message ${messageId} of business ${businessId}` } : undefined;
      default: {
        if (!otherBusinessId) return undefined;
        const bulk = pick(byObservation(m), this.which);
        const rows = this.kind === 'rows-under-other';
        const read = { path: paths.bulkMessage(otherBusinessId, bulk.id) };
        const requests = rows ? [rowsOf(otherBusinessId, bulk)] : [read, ...(bulk.listedWith ? [rowsOf(otherBusinessId, bulk)] : [])];
        const what = rows ? `list the rows of bulk ${bulk.id}${how(bulk)}` : `read bulk ${bulk.id}${bulk.listedWith ? `, then list its rows${how(bulk)},` : ''}`;
        return { requests, what: `${what} under business ${otherBusinessId} (no grant)`, concealed: true, expected: '' };
      }
    }
  }
  toString = () => `ownership(${this.kind}, ${this.which})`;
}

// ---- generation -----------------------------------------------------------------------------------

/**
 * Bodies to at least two distinct numbers where the allowlist has two (rows are then at most the
 * entries, whatever a target does with duplicates, and a listing has an order to keep).
 */
function distinctBodies(t: CheckContext): fc.Arbitrary<BulkRequestBody> {
  const options = bodyOptions(t, { count: { min: 2, max: 5 } });
  return bulkRequestArb(options).map((body) => {
    const seen = new Set<string>();
    const recipients = body.recipients.filter((x) => (seen.has(x.to) ? false : (seen.add(x.to), true)));
    const other = options.pool?.find((n) => !seen.has(n));
    if (recipients.length < 2 && other !== undefined) recipients.push({ ...recipients[0]!, to: other });
    // Entries by number from the highest down: the default order (4.3) is then unlike the order of
    // an index by number on any two rows, so a listing that came in number order shows it (blind
    // defect blind5-filtered-listing-sorted-by-number listed filtered rows by number).
    recipients.sort((a, b) => (a.to < b.to ? 1 : a.to > b.to ? -1 : 0));
    return { ...body, recipients };
  });
}

/**
 * A fraction of what a bulk holds, for a page size (none: the target's default): a third of the
 * listings ask for room for every row at once (one page, the listing whole), the rest split it.
 */
const fractionArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant(AT_ONCE) },
  { weight: 3, arbitrary: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }) },
);

/** Present almost always; shrinking may drop it (and only that: each shrinking attempt costs a sequence's requests). */
const usually = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 1_000_000 });

/**
 * One step of every kind: the repeats of the sequence's key (the other three in a random order, then
 * the byte-identical one), then the observations in a random order. Every repeat is thus observed afterwards (a read, a listing) and
 * the exact repeat follows the other two; the opening's listing and read come
 * before all of them (independent draws meet a given pair in a few sequences of a run only). Targets
 * favour the latest bulk, key or cursor; shrinking drops steps one by one.
 */
function kindsArb(submits: boolean): fc.Arbitrary<Array<fc.AsyncCommand<Model, Real>>> {
  // Mostly the latest bulk, key or cursor, so that steps meet one another on the same one.
  const index = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: 7 }) });
  const filter: fc.Arbitrary<Filter> = fc.oneof(
    { weight: 4, arbitrary: fc.constant<Filter>({ kind: 'none' }) },
    { weight: 1, arbitrary: index.map((which): Filter => ({ kind: 'to', which })) },
    // Any status value, or (as often) the one selecting the most rows: a filtered listing's order shows only on several rows.
    { weight: 2, arbitrary: fc.oneof(fc.constant(undefined), fc.constantFrom(...STATUS_VALUES)).map((value): Filter => ({ kind: 'status', ...(value ? { value } : {}) })) },
  );
  // Reads under another business mostly of a bulk the sequence holds, the one its owner read or
  // listed last first (what a cache keyed by id meets: read-bulk-served-under-any-business was
  // missed on draws that asked for the latest bulk, never read).
  const ownership = fc.oneof(
    { weight: 5, arbitrary: fc.constant<OwnershipKind>('bulk-under-other') },
    { weight: 1, arbitrary: fc.constantFrom<OwnershipKind>('rows-under-other', 'foreign-under-own', 'wallet', 'message') },
    { weight: 2, arbitrary: fc.constantFrom<OwnershipKind>('bulk-as-other-tenant', 'rows-as-other-tenant') },
  );
  const repeat = (kind: RepeatKind) => fc.tuple(index, spellingArb(), fc.integer()).map(([i, s, seed]) => new Repeat(kind, i, s, seed));
  // The byte-identical repeat last: it asks whether the key still holds its first payload after the others.
  const writes = submits ? [repeat('rewritten'), repeat('changed'), repeat('faulty')] : [];
  const observations: Array<fc.Arbitrary<fc.AsyncCommand<Model, Real>>> = [
    index.map((i) => new ReadBulk(i)),
    fc.tuple(index, fractionArb, filter).map(([i, f, x]) => new List(i, f, x)),
    fc.tuple(index, fractionArb, filter).map(([i, f, x]) => new List(i, f, x)),
    index.map((i) => new ReuseCursor(i)),
    fc.tuple(ownership, index).map(([k, i]) => new Ownership(k, i)),
  ];
  // Every key of the sequence, earliest first: whichever key the other repeats used still holds its
  // first bytes (rewritten-repeat-rebinds-key was missed on seeds where they went to the other bulk),
  // and the first key's replay is its own answer, not the latest (blind4-replay-serves-latest-response).
  const everyKey = fc.tuple(spellingArb(), fc.integer()).map(([s, seed]) => new Repeat('same', EVERY_KEY, s, seed));
  const control = submits ? usually(fc.noShrink(everyKey)).map((c) => (c ? [c] : [])) : fc.constant([]);
  return fc.tuple(shuffled(writes), control, shuffled(observations)).map(([w, c, o]) => [...w, ...c, ...o]);
}

/** One of each, in a random order; shrinking drops them one by one (and only that). */
function shuffled<T>(arbs: Array<fc.Arbitrary<T>>): fc.Arbitrary<T[]> {
  const n = arbs.length;
  if (n === 0) return fc.constant([]);
  return fc
    .tuple(fc.tuple(...arbs.map((arb) => usually(fc.noShrink(arb)))), fc.noShrink(fc.uniqueArray(fc.nat({ max: n - 1 }), { minLength: n, maxLength: n })))
    .map(([items, order]) => order.map((k) => items[k]).filter((x): x is T => x !== undefined));
}

/**
 * The opening of every sequence, before its random steps: state the random steps then meet again
 * (a bulk of its own, the fixture bulk walked at the default page size so that it holds several
 * cursors, the own bulk listed at the default page size, a second bulk, the first read, listed
 * under the number of its last row, whole again at the largest page size, then under a status filter). Each part may be shrunk away like any step.
 */
function openingArb(t: CheckContext, submits: boolean, fixture: boolean): fc.Arbitrary<Array<fc.AsyncCommand<Model, Real>>> {
  return fc
    .tuple(
      submits ? usually(fc.noShrink(distinctBodies(t))) : fc.constant(undefined),
      fixture ? usually(fc.constant(true)) : fc.constant(undefined),
      usually(fc.constant(true)),
      usually(fc.constant(true)),
      usually(fc.constant(true)),
      usually(fc.constant(true)),
      usually(fc.constant(true)),
    )
    .map(([body, walkFixture, list, byStatus, second, read, filtered]) => {
      const twoBulks = Boolean(body && second && body.recipients.length > 1);
      return [
        ...(body ? [new Submit(body)] : []),
        ...(walkFixture ? [new List(0, undefined, { kind: 'none' }, true)] : []),
        ...(list ? [new List(0, undefined, { kind: 'none' })] : []),
        // A second bulk of another size under a new key, then the first one read and listed under a
        // number filter after it, in every sequence, whatever the seed: state one bulk leaves behind
        // meets the other (blind defects blind4-read-intake-latest-bulk, a read showing the latest
        // bulk's intake, and blind4-filtered-rows-other-ids, filtered rows under other ids, were
        // met only by a host run's interleaving).
        ...(twoBulks ? [new Submit({ ...body!, recipients: body!.recipients.slice(0, 1) })] : []),
        ...(read ? [new ReadBulk(1)] : []),
        ...(filtered ? [new List(1, undefined, { kind: 'to', which: 0 })] : []),
        // The first bulk listed whole again after its read, beside the listing made before it: the
        // second bulk (one row) took its place as the latest, so the later steps seldom list it
        // (defect rows-reversed-after-read was lost that way once).
        // It follows the number filter of its last row directly: the order is the same after any
        // filtered listing, of rows that do not start it too (blind8-rows-touched-by-filter-first put
        // a filter's rows first; a status filter before it, of every row, would have hidden that).
        // At the largest page size the document allows, beside the default of the listing before:
        // one order whatever the page size (blind defect blind9-large-page-sorted-by-number served
        // pages above 500 rows from an export path ordered by number; its entries go by number from
        // the highest down, so that order shows on any two rows).
        ...(list && read ? [new List(1, LARGEST, { kind: 'none' })] : []),
        // The first bulk under the status filter its listings showed on the most rows: a filtered
        // listing holds the rows of the whole listing that match, in its order (4.3), and its entries
        // go by number from the highest down, so an order of its own shows on any two rows
        // (blind5-filtered-listing-sorted-by-number was missed where only the one-row bulk met a filter).
        ...(body && list && byStatus ? [new List(twoBulks ? 1 : 0, undefined, { kind: 'status' })] : []),
      ];
    });
}

// ---- the check ----------------------------------------------------------------------------------

describe('sequences (4.1, 4.2, 4.3, 5: a model of one business)', () => {
  // The size of the sequences follows --runs and is in the title, so `plan` says it before anything is sent.
  const planned = sequencePlan(providedConfig().settings.runs);
  check(
    {
      id: 'business-model',
      title:
        `${planned.sequences} random sequences of at most ${planned.maxSteps} steps: submissions, repeats (same bytes, equal JSON written otherwise, a changed body, a changed body with a fault of its own), reads, listings at any page size and filter, cursors presented again, reads under another business, wallet and message reads: every answer agrees with the model; a failure is shrunk to its shortest sequence`,
      requirements: ['SEQ-REPLAY-AFTER-ANY', 'SEQ-KEY-BOUND-TO-FIRST', 'SEQ-REPEAT-CHANGES-NOTHING', 'SEQ-LISTING-CONSISTENT', 'SEQ-CURSOR-REPLAYS-PAGE', 'SEQ-OWNERSHIP-AFTER-ANY', 'PROB-NO-5XX-FOR-CLIENT-FAULT'],
      maxRequests: (run) => sequenceBudget(run.runs),
      writes: 'creates bulk SMS (profile safe: the sequences only read the fixtures)',
      readsInSafe: true,
    },
    async (t) => {
      const { settings, fixtures } = t.config;
      const { sequences, maxSteps } = sequencePlan(settings.runs);
      const submits = maySubmit(t);
      const fixtureBulk = fixtures.expiredCursorBulkId;
      if (!submits && !fixtureBulk) {
        t.skip(
          settings.profile === 'safe'
            ? 'profile safe submits nothing and no fixture bulk is configured (CONFORMANCE_EXPIRED_CURSOR_BULK_ID) for the read-only sequences'
            : 'needs CONFORMANCE_SENDER_ID and CONFORMANCE_RECIPIENTS to submit, or CONFORMANCE_EXPIRED_CURSOR_BULK_ID to read',
        );
      }
      if (settings.replayPath) t.note(`replaying the sequence of path "${settings.replayPath}" under seed ${settings.seed} alone`);
      t.note(`${sequences} sequence(s) of at most ${maxSteps} steps (--runs ${settings.runs}); ${submits ? 'submissions to allowlisted numbers and reads' : 'read-only, over the fixtures'}; webhook deactivation is left to the webhooks topic`);
      readings.clear();
      otherApplicationUsedKey = false;
      const real: Real = { t, limit: sequenceBudget(settings.runs) };
      let failing: { steps: Step[]; error: unknown } | undefined;
      let ran = 0;
      const details = await fc.check(
        fc.asyncProperty(openingArb(t, submits, Boolean(fixtureBulk)), kindsArb(submits), async (opening, cmds) => {
          const model: Model = { bulks: fixtureBulk ? [{ id: fixtureBulk, rows: [], rowTo: new Map() }] : [], cursors: [], steps: [] };
          ran++;
          try {
            await fc.asyncModelRun(() => ({ model, real }), [...opening, ...cmds]);
          } catch (error) {
            if (!(error instanceof CheckSkipped)) failing = { steps: model.steps, error };
            throw error;
          }
        }),
        // `replay` of a report: the shrunk sequence alone (its path under the seed), not a new search.
        settings.replayPath ? { seed: settings.seed, numRuns: sequences, path: settings.replayPath, endOnFailure: true } : { seed: settings.seed, numRuns: sequences },
      );
      for (const reading of readings) t.note(`reading: ${reading}`);
      t.note(`${ran} sequence run(s), shrinking included; ${t.api.requestCount} request(s)`);
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
