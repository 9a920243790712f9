// Sends one column of the authorization matrix (one caller, every row and object of
// suites/support/authorization.ts), judges each cell against its expected class, then compares the
// cells: a resource of another business answered unlike an unknown one discloses its existence,
// and concealment applied by some operations and not others tells a client which rule it met.
import type { ApiRequest, ApiResponse, Caller } from '../../harness/client.ts';
import type { MatrixCell } from '../../core/model.ts';
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { requirementById } from '../../spec/requirements.ts';
import { needsReason } from '../../core/variables.ts';
import type { CheckContext, CheckSpec } from './check.ts';
import type { Need } from '../../core/variables.ts';
import { hasControl, webhookEndpointState } from './control.ts';
import { headerDifferences, headerVariation, shapeDifferences, type Answer, type HeaderVariation } from './answers.ts';
import { submissionBody, tamper } from './credentials.ts';
import { codeOf, describeResponse } from './problem.ts';
import { randomUuidV7 } from './random-ids.ts';
import { spendFixture } from './spend.ts';
import { TITLE_CONFIRMATION_REQUESTS, onlyTitleDiffers, titleSetAside, titlesFollowObjects } from './title-order.ts';
import {
  CALLERS,
  RESOURCE_FIXTURES,
  acceptedAnswer,
  afterWriteExpectation,
  afterWriteObjects,
  createdObjectCells,
  createdObjectRows,
  columnCost,
  expectationOf,
  isolationOf,
  leftOut,
  matrixRows,
  objectLabel,
  objectsFor,
  ownerReadRows,
  pathOf,
  retrievalRequirementOf,
  type CallerKind,
  type Expectation,
  type MatrixObject,
  type MatrixRow,
  type Party,
} from './authorization.ts';

import { OTHER_TENANT_HEADER, listingOf, queryShown, queryValue, sentName } from './listings.ts';

export { OTHER_TENANT_HEADER };

/** A path id of no UUID shape at all. */
const MALFORMED_ID = 'not-a-uuid';

interface Cell {
  row: MatrixRow;
  object: MatrixObject;
  expectation: Expectation;
  /** Ids the path names (an answer may echo them). */
  pathIds: string[];
  request?: ApiRequest;
  res?: ApiResponse;
  out: MatrixCell;
}

function levelVerdict(requirement: RequirementId): 'fail' | 'warn' {
  return requirementById(requirement)?.level === 'should' ? 'warn' : 'fail';
}

function mark(cell: Cell, requirement: RequirementId, reason: string): void {
  cell.out.verdict = levelVerdict(requirement);
  cell.out.requirement = requirement;
  cell.out.reason = reason;
  if (cell.res) cell.out.curl = cell.res.exchange.curl;
}

/** The ids of each party the configuration names, for building paths and spotting foreign data. */
function partyIds(t: CheckContext, row: MatrixRow, listed: Record<'own' | 'other', string | undefined>): { business: (party: Party) => string; resource: (object: MatrixObject) => string | undefined } {
  const f = t.config.fixtures;
  const unknown = randomUuidV7(t, `matrix/${row.operation}/unknown`);
  const unknownBusiness = randomUuidV7(t, 'matrix/business');
  return {
    // The other business is read only for a cell that names it (a check after a write may name none).
    business: (party) => (party === 'own' ? t.fixture('businessId') : party === 'other' ? t.fixture('otherBusinessId') : party === 'unknown' ? unknownBusiness : MALFORMED_ID),
    // The slot holds an id of the row's kind, or of the object's other kind.
    resource: (object) => {
      const fixtures = RESOURCE_FIXTURES[object.idKind ?? row.resourceParam ?? ''];
      if (object.resource === 'unknown') return unknown;
      if (object.resource === 'malformed') return MALFORMED_ID;
      if (object.kind === 'listed') return object.resource === 'own' || object.resource === 'other' ? listed[object.resource] : undefined;
      if (object.resource === undefined || !fixtures) return undefined;
      return f[object.resource === 'own' ? fixtures.own : fixtures.foreign] as string | undefined;
    },
  };
}

/** Why a cell is not sent, or undefined when it is. */
function notSentBecause(t: CheckContext, cell: Omit<Cell, 'out'>, resourceId: string | undefined, caller: CallerKind, listedMissing: string | undefined): string | undefined {
  const { row, object, expectation } = cell;
  if (object.kind === 'listed' && resourceId === undefined) return listedMissing ?? "its owner's listing showed no id";
  if (object.resource !== undefined && resourceId === undefined) {
    const kind = object.idKind ?? row.resourceParam;
    const fixtures = kind ? RESOURCE_FIXTURES[kind] : undefined;
    const key = fixtures ? (object.resource === 'own' ? fixtures.own : fixtures.foreign) : undefined;
    return key ? needsReason([key]) : `no fixture names a resource of ${kind}`;
  }
  if (!row.writes) return undefined;
  if (t.config.settings.profile === 'safe') return 'profile safe sends only GET';
  if (expectation.kind === 'success') return "not sent: the caller's own object, which this write may change (its own topic sends it)";
  const { embedded } = t.config.target;
  const sandbox = t.config.settings.sandbox === true;
  if (row.hasBody && !embedded && !(t.config.fixtures.recipients?.length)) return needsReason(['recipients']);
  // The safety rail's rule (harness/safety.ts): on a host, DELETE names the configured endpoint, or anything on a declared sandbox.
  if (row.method === 'DELETE' && !embedded && resourceId !== t.config.fixtures.webhookEndpointId && !sandbox) {
    return 'sent only to a declared sandbox: set CONFORMANCE_SANDBOX=true (and CONFORMANCE_FOREIGN_WEBHOOK_ENDPOINT_ID) to send it';
  }
  if (row.method === 'DELETE' && caller === 'other-tenant' && resourceId === t.config.fixtures.foreignWebhookEndpointId) return "not sent: the other tenant's own endpoint";
  return undefined;
}

function requestOf(t: CheckContext, row: MatrixRow, path: string, as: Caller): ApiRequest {
  // A judge of the recorded traffic (`check`) sees no token (they are redacted): this header tells it
  // the request came from the other business's application, whose answers it cannot judge as the primary's.
  const headers: Record<string, string> = as === 'other' ? { [OTHER_TENANT_HEADER]: 'other-tenant' } : {};
  for (const name of row.requiredHeaders) headers[name] = /idempotency/i.test(name) ? t.api.idempotencyKey('matrix') : 'conformance';
  return { method: row.method, path, as, headers, ...(row.hasBody ? { json: submissionBody(t) } : {}) };
}

/** Runs `tasks` with at most `limit` in flight (the client paces and caps what reaches the host). */
async function pooled(tasks: Array<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
}

/** The ids of the businesses and resources a caller may not see, as they would show in a body. */
function foreignIds(t: CheckContext, caller: CallerKind): string[] {
  const f = t.config.fixtures;
  const theirs = [f.otherBusinessId, ...Object.values(RESOURCE_FIXTURES).map((k) => f[k.foreign] as string | undefined)];
  const ours = [f.businessId, ...Object.values(RESOURCE_FIXTURES).map((k) => f[k.own] as string | undefined)];
  const granted = CALLERS.find((c) => c.kind === caller)!.granted;
  const ids = granted === 'own' ? theirs : granted === 'other' ? ours : [];
  return ids.filter((id): id is string => typeof id === 'string' && id.length > 0).map((id) => id.toLowerCase());
}

function judge(cell: Cell, foreign: string[]): void {
  const res = cell.res!;
  const { expectation: e, object } = cell;
  const code = codeOf(res.json);
  const answer = describeResponse(res);
  cell.out.answer = answer;
  const accepted = acceptedAnswer(e, res.status, code);
  if (e.kind === 'unauthenticated' && !accepted) {
    if (res.status >= 200 && res.status < 300 && e.servedRequirement) return mark(cell, e.servedRequirement, `${answer} instead of ${e.text}: served without valid authentication`);
    const validationFirst = (res.status === 400 && code === 'validation_failed') || (res.status === 404 && code === 'resource_not_found');
    if (object.business === 'malformed' || object.resource === 'malformed') {
      if (validationFirst) return mark(cell, 'AUTH-401-BEFORE-VALIDATION', `${answer}: input validated before authentication`);
    }
    const refusedLater = (res.status === 403 || res.status === 404) && e.orderRequirement;
    return mark(cell, refusedLater ? e.orderRequirement! : e.requirement, `${answer} instead of ${e.text}`);
  }
  if (e.kind === 'refusal' && !accepted) return mark(cell, e.requirement, `${answer} instead of ${e.text}`);
  // A body of any answer: no id of a business (or its resource) the caller may not see, beyond what the path names.
  let text = res.text.toLowerCase();
  for (const id of cell.pathIds) text = text.split(id.toLowerCase()).join('');
  const leaked = foreign.find((id) => text.includes(id));
  if (leaked) return mark(cell, 'CONC-NO-FOREIGN-DATA', `${answer} naming ${leaked}, an id of a business the caller is not granted on`);
  if (e.kind === 'success' && !accepted) {
    // 5: a caller granted on the business with the permission is refused nothing of it, whoever
    // made the object (blind8-bulk-owned-by-submitting-application); a 5xx or 429 is the host's state.
    if (res.status >= 400 && res.status < 500 && res.status !== 429) return mark(cell, e.requirement, `${answer} instead of ${e.text}: an object of the caller's granted business refused`);
    cell.out.verdict = 'recorded';
    cell.out.reason = `the caller's own object answered ${answer}, not 2xx`;
    return;
  }
  cell.out.verdict = accepted?.reading ? 'recorded' : 'pass';
  if (accepted?.reading) cell.out.reason = accepted.reading;
}

/** A cell's label in a finding: `getSmsMessage × foreign (404 resource_not_found)`. */
const label = (c: Cell) => `${c.row.operation} × ${objectLabel(c.object)} (${c.out.answer ?? 'not sent'})`;
const answerOf = (c: Cell): Answer => ({ res: c.res!, ids: c.pathIds });
const judged = (c: Cell) => c.res !== undefined && (c.out.verdict === 'pass' || c.out.verdict === 'recorded');

/**
 * What varies from one answer to the next on this host, learned from the column's answers to
 * objects that exist nowhere (they can disclose nothing, so what differs among them is per response).
 */
function variationOf(cells: Cell[]): HeaderVariation {
  return headerVariation(cells.filter((c) => c.res && (c.object.resource === 'unknown' || c.object.business === 'unknown')).map(answerOf));
}

/**
 * Within one row, each existing resource refused (of the row's kind or another kind) is compared
 * with the unknown id under the same business: status, code, problem members and every header
 * (blind-foreign-bulk-404-content-location, blind-foreign-message-404-last-modified), but for what
 * `variation` shows to change per response. The caller's own objects of another kind are judged
 * only: their existence is the caller's to know.
 */
function compareCells(cells: Cell[], granted: 'own' | 'other', variation: HeaderVariation, foreign: string[], titleOnly: TitleOnly[]): void {
  for (const business of ['own', 'other'] as const) {
    const group = cells.filter((c) => c.object.business === business);
    const unknown = group.find((c) => c.object.resource === 'unknown' && judged(c));
    if (!unknown) continue;
    // (A query shape or a listed id is judged by its class only: a query may be validated first.)
    const compared = group.filter((c) => (c.object.resource === 'own' || c.object.resource === 'other') && !(c.object.idKind && c.object.resource === 'own') && !c.object.query && c.object.kind !== 'listed' && c.expectation.kind === 'refusal' && judged(c));
    for (const cell of compared) {
      const headers = headerDifferences(answerOf(cell), answerOf(unknown), variation);
      const diffs = [...shapeDifferences(cell.res!, unknown.res!), ...headers];
      if (diffs.length === 0) continue;
      // A header told apart that names the other party (its business, beyond the path) hands the
      // object itself back: the rule of the object's kind is broken, not only its concealment.
      const names = naming(headers, cell.pathIds, foreign);
      const requirement: RequirementId = names
        ? isolationOf(cell.object.idKind ?? cell.row.resourceParam)
        : business !== granted
          ? 'CONC-OTHER-BUSINESS-PATH'
          : cell.row.concealsExistence
            ? 'CONC-SAME-AS-MISSING'
            : 'CONC-FOREIGN-LIKE-UNKNOWN';
      const found = () => mark(cell, requirement, `${label(cell)} told apart from ${label(unknown)}: ${diffs.join('; ')}${names ? ` (naming ${names}, of a business the caller is not granted on)` : ''}`);
      if (onlyTitleDiffers(diffs)) titleOnly.push({ cell, unknown, found });
      else found();
    }
  }
}

/**
 * Within one row, the business without grant that exists (the other party's) and one that exists
 * nowhere, the same resource slot: the grant on the path's business comes first (5, rule 6), and a
 * missing grant is refused (rule 8) whether or not the business exists, so the two answers are
 * alike (status, code, problem members, headers but for `variation`); a difference tells a caller
 * which businesses exist (blind7-unknown-business-404).
 */
function compareBusinesses(cells: Cell[], granted: 'own' | 'other', variation: HeaderVariation, titleOnly: TitleOnly[]): void {
  const plain = cells.filter((c) => !c.object.query && !c.object.idKind && c.object.kind !== 'listed' && judged(c));
  const unknown = plain.find((c) => c.object.business === 'unknown');
  const existing = unknown && plain.find((c) => c.object.business !== granted && c.object.business !== 'unknown' && c.object.business !== 'malformed' && c.object.resource === unknown.object.resource);
  if (!unknown || !existing) return;
  const diffs = [...shapeDifferences(existing.res!, unknown.res!), ...headerDifferences(answerOf(existing), answerOf(unknown), variation)];
  if (diffs.length === 0) return;
  const found = () => mark(existing, 'CONC-OTHER-BUSINESS-PATH', `${label(existing)} told apart from ${label(unknown)}, a business that exists nowhere: ${diffs.join('; ')}`);
  if (onlyTitleDiffers(diffs)) titleOnly.push({ cell: existing, unknown, found });
  else found();
}

/** A pair of cells told apart by their title alone, and how to mark it once confirmed. */
interface TitleOnly {
  cell: Cell;
  unknown: Cell;
  found: () => void;
}

/**
 * Pairs told apart by their title alone are marked only if, asked again in both orders, the
 * first pair's titles stay with their objects (title-order.ts); one pair answers for the column.
 */
async function settleTitleOnly(t: CheckContext, pending: TitleOnly[]): Promise<void> {
  const first = pending[0];
  if (!first) return;
  const asked = (c: Cell) => ({ request: c.request!, res: c.res! });
  const { follows, seen } = await titlesFollowObjects(t, asked(first.cell), asked(first.unknown));
  if (follows) for (const p of pending) p.found();
  else t.note(titleSetAside(pending.map((p) => `${label(p.cell)} and ${label(p.unknown)}`).join('; '), seen));
}

/** The first id of `foreign` some difference names, beyond the ids the path named. */
function naming(diffs: string[], pathIds: string[], foreign: string[]): string | undefined {
  let text = diffs.join(' ').toLowerCase();
  for (const id of pathIds) text = text.split(id.toLowerCase()).join('');
  return foreign.find((id) => text.includes(id));
}

/** Another business's resources under the caller's granted business, answered alike by every operation. */
function uniformity(cells: Cell[], granted: 'own' | 'other'): string | undefined {
  const foreign = cells.filter((c) => c.object.business === granted && !c.object.idKind && !c.object.query && c.object.kind !== 'listed' && c.object.resource !== undefined && c.object.resource !== granted && (c.object.resource === 'own' || c.object.resource === 'other') && c.res);
  const byAnswer = new Map<string, string[]>();
  for (const c of foreign) byAnswer.set(c.out.answer!, [...(byAnswer.get(c.out.answer!) ?? []), c.row.operation]);
  if (byAnswer.size < 2) return undefined;
  return [...byAnswer].map(([answer, ops]) => `${answer}: ${ops.join(', ')}`).join('; ');
}

/** How a column's caller sends: an application, no Authorization header, or the primary's token with a signature character changed. */
async function callerAs(t: CheckContext, caller: CallerKind): Promise<Caller> {
  return caller === 'primary' ? 'primary' : caller === 'limited' ? 'limited' : caller === 'other-tenant' ? 'other' : caller === 'no-token' ? 'none' : { bearer: tamper(await t.api.token('primary')).token };
}

/**
 * The primary application's reads of its own objects (`ownerReadRows`), sent by the column itself
 * before its cells: on a host's schedule, or the column run alone, no other check may have read
 * them first. Their answers are noted only (the primary column judges them).
 */
async function ownerReadsFirst(t: CheckContext, caller: CallerKind, rows: MatrixRow[]): Promise<void> {
  const f = t.config.fixtures;
  const answers: string[] = [];
  for (const row of ownerReadRows(caller, rows)) {
    const key = row.resourceParam ? RESOURCE_FIXTURES[row.resourceParam]?.own : undefined;
    const resourceId = key ? (f[key] as string | undefined) : undefined;
    if (row.resourceParam && resourceId === undefined) continue;
    const res = await t.api.send(requestOf(t, row, pathOf(row, t.fixture('businessId'), resourceId), 'primary'));
    answers.push(`${row.operation} ${describeResponse(res)}`);
  }
  if (answers.length > 0) t.note(`the primary application's reads of its own objects first: ${answers.join('; ')}`);
}

/** Sends and judges the column of `caller`; fails on its first broken must, then its first should. */
export async function runMatrixColumn(t: CheckContext, caller: CallerKind, rows: MatrixRow[] = matrixRows()): Promise<void> {
  const column = CALLERS.find((c) => c.kind === caller)!;
  const as = await callerAs(t, caller);
  const foreign = foreignIds(t, caller);
  // An id the other party's listing showed (each tenant lists as its owner, once per run).
  const listings = rows.filter((r) => r.lists);
  const opposite = column.granted === 'own' ? 'other' : 'own';
  const seen = column.granted && caller !== 'limited' && listings[0] ? await listingOf(t, listings[0], opposite) : undefined;
  const listed = { own: undefined as string | undefined, other: undefined as string | undefined };
  listed[opposite] = seen?.ids[0];
  await ownerReadsFirst(t, caller, rows);
  const cells: Cell[] = [];
  for (const row of rows) {
    const ids = partyIds(t, row, listed);
    for (const object of objectsFor(row, rows)) {
      const expectation = expectationOf(row, caller, object);
      const businessId = ids.business(object.business);
      const resourceId = object.resource === undefined ? undefined : ids.resource(object);
      const base = { row, object, expectation, pathIds: [businessId, ...(resourceId ? [resourceId] : [])] };
      const out: MatrixCell = { operation: row.operation, caller, object: objectLabel(object), expected: expectation.text, verdict: 'skip' };
      const left = leftOut(caller, object);
      // A query shape or a listed id is a cell only in the columns that send it (not one per object, mostly empty).
      if (left && (object.query !== undefined || object.kind === 'listed')) continue;
      let why = left ?? notSentBecause(t, base, resourceId, caller, seen?.missing);
      const shape = object.query && !why ? await queryValue(t, row, object.query) : undefined;
      why ??= shape?.missing;
      if (why) {
        out.reason = why;
        cells.push({ ...base, out });
        continue;
      }
      const request = requestOf(t, row, pathOf(row, businessId, resourceId), as);
      if (object.query && shape?.value !== undefined) request.query = [[sentName(t, object.query), shape.value]];
      const shown = shape?.value === undefined || !object.query ? '' : queryShown(object.query, shape.value);
      out.request = `${request.method} ${request.path}${shown}`;
      cells.push({ ...base, request, out });
    }
  }
  const observe = hasControl(t);
  await pooled(
    cells.filter((c) => c.request).map((cell) => async () => {
      const endpointId = cell.row.method === 'DELETE' && cell.object.resource !== undefined ? cell.pathIds[1] : undefined;
      const before = observe && endpointId ? await webhookEndpointState(t, endpointId) : undefined;
      cell.res = await t.api.send(cell.request!);
      // A refusal answered 2xx deactivated the configured endpoint: the next run on this host takes another.
      if (endpointId !== undefined && endpointId === t.config.fixtures.webhookEndpointId && cell.res.status >= 200 && cell.res.status < 300) spendFixture(t, 'webhookEndpointId', endpointId);
      judge(cell, foreign);
      // A refused write changes nothing (3.4): the embedded reference shows the endpoint's state.
      if (before?.active && cell.expectation.kind !== 'success' && cell.out.verdict !== 'fail') {
        const after = await webhookEndpointState(t, endpointId!);
        const requirement: RequirementId = cell.expectation.kind === 'unauthenticated' ? cell.expectation.requirement : cell.object.business === column.granted ? 'HOOK-OWNERSHIP' : 'HOOK-FORBIDDEN';
        if (after && !after.active) mark(cell, requirement, `${cell.out.answer} but the endpoint was deactivated`);
      }
    }),
    t.config.settings.concurrency,
  );
  const warnings: Array<{ requirement: RequirementId; actual: string; responses: ApiResponse[] }> = [];
  if (column.granted) {
    const variation = variationOf(cells);
    const titleOnly: TitleOnly[] = [];
    for (const row of rows) compareCells(cells.filter((c) => c.row === row), column.granted, variation, foreign, titleOnly);
    for (const row of rows) compareBusinesses(cells.filter((c) => c.row === row), column.granted, variation, titleOnly);
    await settleTitleOnly(t, titleOnly);
    const mixed = caller === 'limited' ? undefined : uniformity(cells, column.granted);
    if (mixed) warnings.push({ requirement: 'CONC-UNIFORM', actual: `another business's resources answered differently by operation: ${mixed}`, responses: [] });
  }
  t.matrix(cells.map((c) => c.out));
  const sent = cells.filter((c) => c.res);
  const skipped = cells.length - sent.length;
  t.note(`authorization matrix as ${column.title}: ${sent.length} cells sent${skipped ? `, ${skipped} not sent (see the matrix)` : ''}; answers: ${[...new Set(sent.map((c) => c.out.answer))].join(', ')}`);
  for (const c of cells.filter((x) => x.out.verdict === 'recorded')) t.note(`${label(c)}: ${c.out.reason}`);
  const broken = cells.filter((c) => c.out.verdict === 'fail' || c.out.verdict === 'warn');
  t.evidence(...broken.slice(0, 6).map((c) => c.res!).filter(Boolean));
  // Fails before warnings; among fails, the caller's own object of another kind answered comes after
  // any other breach (blind-bulk-read-finds-foreign-message: its foreign message is the graver finding).
  // A refused read of the caller's own business comes last among fails (another column or topic names most of them first).
  const order = (c: Cell) => (c.out.verdict === 'fail' ? (c.expectation.kind === 'success' ? 2 : c.object.kind === 'own-other-kind' ? 1 : 0) : 3);
  const first = [...broken].sort((a, b) => order(a) - order(b))[0];
  if (first && first.out.verdict === 'fail') {
    t.fail(first.out.requirement as RequirementId, first.expectation.text, `${label(first)}: ${first.out.reason}${broken.length > 1 ? ` (and ${broken.length - 1} more cells, see the matrix)` : ''}`, first.res!);
  }
  if (first) warnings.unshift({ requirement: first.out.requirement as RequirementId, actual: `${label(first)}: ${first.out.reason}`, responses: [first.res!] });
  const warning = warnings[0];
  if (warning) t.fail(warning.requirement, 'every cell answered as the document expects, alike where it conceals', warning.actual, ...warning.responses);
}

/**
 * The row's own successful write, as the primary application on its business and own object (a
 * submission under a fresh Idempotency-Key): the state `runMatrixAfterWrite` sends the row's
 * refusals against, with the key it used.
 */
export async function sendOwnWrite(t: CheckContext, row: MatrixRow): Promise<{ res: ApiResponse; key?: string; created?: string }> {
  const object: MatrixObject = row.resourceParam ? { kind: 'own', business: 'own', resource: 'own' } : { kind: 'own', business: 'own' };
  const request = requestOf(t, row, pathOf(row, t.fixture('businessId'), partyIds(t, row, NOT_LISTED).resource(object)), 'primary');
  const res = await t.api.send(request);
  const created = row.resourceParam ? undefined : createdIdOf(res);
  return { res, ...withKeyOf(request), ...(created ? { created } : {}) };
}

/** The id of the object a creation made: the last segment of its Location (4.1), or the body's `id`. */
function createdIdOf(res: ApiResponse): string | undefined {
  const location = res.headers['location'];
  const segment = location ? decodeURIComponent(new URL(location, 'http://relative.invalid').pathname.split('/').filter(Boolean).at(-1) ?? '') : '';
  if (segment) return segment;
  const id = (res.json as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

const NOT_LISTED = { own: undefined, other: undefined };

/** The Idempotency-Key a request carries, if any. */
function withKeyOf(request: ApiRequest): { key?: string } {
  const name = Object.keys(request.headers ?? {}).find((h) => /idempotency/i.test(h));
  const key = name ? request.headers![name] : undefined;
  return key ? { key } : {};
}

/**
 * After the run's own successful write of `row` (`key`: the Idempotency-Key it used), every
 * caller's refusal cells of the row whose answer that state could change (authorization.ts
 * `afterWriteObjects`), the used key as their Idempotency-Key: judged as on a fresh target, the
 * kind's own rules named (an endpoint's, 3.4 / 4.6). For a creation, `created` (the new object's
 * id) also fills every read that names it (`createdObjectRows`): its refusal cells, sent now it
 * exists. Fails on the first broken must, then should.
 */
export async function runMatrixAfterWrite(t: CheckContext, row: MatrixRow, key: string | undefined, rows: MatrixRow[] = matrixRows(), created?: string): Promise<void> {
  const cells: Array<{ cell: Cell; caller: CallerKind }> = [];
  const reads = createdObjectRows(row, rows);
  for (const { kind: caller } of CALLERS) {
    const app = caller === 'other-tenant' ? 'other' : caller === 'limited' ? 'limited' : undefined;
    const planned = [
      ...afterWriteObjects(row, caller, rows).map((object) => ({ row, object })),
      ...reads.flatMap((read) => createdObjectCells(read, caller, rows).map((object) => ({ row: read, object }))),
    ];
    const as = planned.length > 0 && !(app && !t.config.apps[app]) ? await callerAs(t, caller) : undefined;
    for (const { row: r, object } of planned) {
      const ids = partyIds(t, r, NOT_LISTED);
      const expectation = afterWriteExpectation(r, caller, object);
      const out: MatrixCell = { operation: r.operation, caller, object: r === row ? objectLabel(object) : `${objectLabel(object)} (the run's new object)`, expected: expectation.text, verdict: 'skip' };
      const otherMissing = object.business === 'other' && !t.config.fixtures.otherBusinessId;
      const businessId = otherMissing ? '' : ids.business(object.business);
      const resourceId = r === row ? (object.resource === undefined ? undefined : ids.resource(object)) : created;
      const base = { row: r, object, expectation, pathIds: [businessId, ...(resourceId ? [resourceId] : [])] };
      const why = !as
        ? needsReason([app === 'other' ? 'otherApp' : 'limitedApp'])
        : otherMissing
          ? needsReason(['otherBusinessId'])
          : r !== row && !created
            ? "the write's answer named no created object (no Location, no id)"
            : notSentBecause(t, base, resourceId, caller, undefined);
      if (why || !as) {
        out.reason = why;
        cells.push({ caller, cell: { ...base, out } });
        continue;
      }
      const request = requestOf(t, r, pathOf(r, businessId, resourceId), as);
      // The key the write used, where the row takes one: a replay of it is no answer to these callers.
      for (const name of r.requiredHeaders) if (key && /idempotency/i.test(name)) request.headers![name] = key;
      out.request = `${request.method} ${request.path}`;
      cells.push({ caller, cell: { ...base, request, out } });
    }
  }
  await sendAndJudge(t, cells);
  // (Not cells of the report's matrix, whose columns are the fresh target's: the notes list them.)
  const sent = cells.filter((c) => c.cell.res).map((c) => c.cell);
  const named = (c: Cell) => `${c.out.caller}: ${label(c)}`;
  const unsent = cells.filter((c) => !c.cell.res).map((c) => `${named(c.cell)}: ${c.cell.out.reason}`);
  t.note(`after the run's own ${row.operation}${key ? ' (its Idempotency-Key again)' : ''}: ${sent.length} cells sent; answers: ${[...new Set(sent.map((c) => c.out.answer))].join(', ') || 'none'}`);
  if (unsent.length > 0) t.note(`not sent after the run's own ${row.operation}: ${unsent.join('; ')}`);
  failOnFirst(t, sent, `after the run's own ${row.operation}`);
}

/** Sends the cells that hold a request (at most the run's concurrency at once), each judged as its caller's. */
async function sendAndJudge(t: CheckContext, cells: Array<{ caller: CallerKind; cell: Cell }>): Promise<void> {
  await pooled(
    cells.filter((c) => c.cell.request).map(({ cell, caller }) => async () => {
      cell.res = await t.api.send(cell.request!);
      judge(cell, foreignIds(t, caller));
    }),
    t.config.settings.concurrency,
  );
}

/** Fails on the first broken must of `sent`, then should, naming the others (`context`: what they followed). */
function failOnFirst(t: CheckContext, sent: Cell[], context: string): void {
  const named = (c: Cell) => `${c.out.caller}: ${label(c)}`;
  const broken = sent.filter((c) => c.out.verdict === 'fail' || c.out.verdict === 'warn').sort((a, b) => (a.out.verdict === 'fail' ? 0 : 1) - (b.out.verdict === 'fail' ? 0 : 1));
  t.evidence(...broken.slice(0, 6).map((c) => c.res!));
  const first = broken[0];
  if (first) {
    const more = broken.length > 1 ? ` (and ${broken.slice(1).map(named).join(', ')})` : '';
    t.fail(first.out.requirement as RequirementId, first.expectation.text, `${named(first)} ${context}: ${first.out.reason}${more}`, first.res!);
  }
}

/** The object of the caller's granted business a row names: the business alone, or its resource of the row's kind. */
const ownObject = (row: MatrixRow): MatrixObject => (row.resourceParam ? { kind: 'own', business: 'own', resource: 'own' } : { kind: 'own', business: 'own' });

/** The app a caller sends as, or undefined when the configuration names none (the reason in `needsReason`). */
async function configuredAs(t: CheckContext, caller: CallerKind): Promise<Caller | undefined> {
  const app = caller === 'other-tenant' ? 'other' : caller === 'limited' ? 'limited' : 'primary';
  return t.config.apps[app] ? callerAs(t, caller) : undefined;
}

/** One planned read of a row's own object by a caller (`resourceId`: the row's slot, a fixture's or a created object's). */
interface PlannedRead {
  caller: CallerKind;
  row: MatrixRow;
  resourceId: string | undefined;
  /** Why it is not sent, when it is not. */
  why?: string;
}

/** Sends `planned` (at most the run's concurrency at once), judges each by section 5's class of the cell. */
async function sendReads(t: CheckContext, businessId: string, planned: PlannedRead[], label: string): Promise<Array<{ caller: CallerKind; cell: Cell }>> {
  const cells: Array<{ caller: CallerKind; cell: Cell }> = [];
  for (const { caller, row, resourceId, why } of planned) {
    const object = ownObject(row);
    const expectation = expectationOf(row, caller, object);
    const base = { row, object, expectation, pathIds: [businessId, ...(resourceId ? [resourceId] : [])] };
    const out: MatrixCell = { operation: row.operation, caller, object: label, expected: expectation.text, verdict: 'skip' };
    const as = why ? undefined : await configuredAs(t, caller);
    if (!as) {
      out.reason = why ?? needsReason([caller === 'other-tenant' ? 'otherApp' : caller === 'limited' ? 'limitedApp' : 'primaryApp']);
      cells.push({ caller, cell: { ...base, out } });
      continue;
    }
    const request = requestOf(t, row, pathOf(row, businessId, resourceId), as);
    out.request = `${request.method} ${request.path}`;
    cells.push({ caller, cell: { ...base, request, out } });
  }
  await sendAndJudge(t, cells);
  return cells;
}

/** Notes what `cells` answered after `context`, and fails on the first broken must, then should. */
function settleReads(t: CheckContext, cells: Array<{ caller: CallerKind; cell: Cell }>, context: string): void {
  const named = (c: Cell) => `${c.out.caller}: ${label(c)}`;
  const sent = cells.filter((c) => c.cell.res).map((c) => c.cell);
  const unsent = cells.filter((c) => !c.cell.res).map((c) => `${named(c.cell)}: ${c.cell.out.reason}`);
  t.note(`${context}: ${sent.map(named).join('; ') || 'nothing sent'}`);
  if (unsent.length > 0) t.note(`not sent ${context}: ${unsent.join('; ')}`);
  for (const c of sent.filter((x) => x.out.verdict === 'recorded')) t.note(`${named(c)}: ${c.out.reason}`);
  failOnFirst(t, sent, context);
}

/** The callers granted on the business, besides `creator`: the configured columns whose own-object cell of `row` is a 2xx. */
function grantedReaders(row: MatrixRow, creator?: CallerKind): CallerKind[] {
  return CALLERS.filter((c) => c.kind !== creator && expectationOf(row, c.kind, ownObject(row)).kind === 'success').map((c) => c.kind);
}

/**
 * Every read of the object the run's own creation made as `creator` (`createdObjectRows`: the bulk,
 * its listing), by every other caller granted on the business that may hold the read's permission
 * (the limited application: 5.9 shows no permission for these reads, so its 403 permission_denied is
 * a recorded reading): the object is the business's, not its creator's (4.2, 5), so each answers its
 * 2xx, a refusal failing under the read's own retrieval rule (blind8-bulk-owned-by-submitting-application).
 * Without such a caller configured, each cell is skipped with the reason.
 */
export async function runPeerReads(t: CheckContext, businessId: string, write: MatrixRow, created: string, creator: CallerKind = 'primary', rows: MatrixRow[] = matrixRows()): Promise<void> {
  const planned = createdObjectRows(write, rows).flatMap((row) => {
    const readers = grantedReaders(row, creator);
    if (readers.length === 0) return [{ caller: creator, row, resourceId: created, why: `no configured caller other than its creator (${creator}) is granted on the business` }];
    return readers.map((caller) => ({ caller, row, resourceId: created }));
  });
  settleReads(t, await sendReads(t, businessId, planned, `made by ${creator}`), `reading the object the ${creator} application made`);
}

/** Requests `runPeerReads` sends at most. */
export function peerReadsCost(write: MatrixRow, creator: CallerKind = 'primary', rows: MatrixRow[] = matrixRows()): number {
  return createdObjectRows(write, rows).reduce((n, row) => n + grantedReaders(row, creator).length, 0);
}

/**
 * The order opposite to auth-ordering/grant-before-resource's: for every read row of the spec, each
 * configured caller refused on the business first (the other tenant: no grant; the limited
 * application where the row names the permission it lacks), then the primary application's read of
 * the same row (its own object: the business, or a fixture of the row's kind). Each call is decided
 * on its own caller (5, rule 6): a refusal changes no other caller's answer, so the read still gives
 * its 2xx, failing under the row's own retrieval rule (blind8-wallet-refusal-cached-per-business).
 */
export async function runGrantedAfterRefusals(t: CheckContext, rows: MatrixRow[] = matrixRows()): Promise<void> {
  const reads = rows.filter((r) => !r.writes);
  const resourceOf = (row: MatrixRow) => (row.resourceParam ? partyIds(t, row, NOT_LISTED).resource(ownObject(row)) : undefined);
  const missing = (row: MatrixRow) => {
    const key = row.resourceParam ? RESOURCE_FIXTURES[row.resourceParam]?.own : undefined;
    return row.resourceParam && resourceOf(row) === undefined ? (key ? needsReason([key]) : `no fixture names a ${row.resourceParam}`) : undefined;
  };
  const refusals: PlannedRead[] = reads.flatMap((row) => refusedCallers(row).map((caller) => ({ caller, row, resourceId: resourceOf(row), ...withWhy(missing(row)) })));
  const businessId = t.fixture('businessId');
  const refused = await sendReads(t, businessId, refusals, 'own');
  const after = reads.filter((row) => refused.some((c) => c.cell.row === row && c.cell.res));
  const granted = await sendReads(t, businessId, after.map((row) => ({ caller: 'primary' as CallerKind, row, resourceId: resourceOf(row) })), 'own, after refusals');
  if (refused.every((c) => !c.cell.res)) t.skip(`no refusal was sent on the business: ${refused.map((c) => `${c.caller} ${c.cell.row.operation}: ${c.cell.out.reason}`).join('; ')}`);
  settleReads(t, [...refused, ...granted], 'after the refused callers on the business');
}

const withWhy = (why: string | undefined): { why?: string } => (why ? { why } : {});

/** The configured columns refused on the business's own object of `row` after a valid token: no grant, or the permission. */
function refusedCallers(row: MatrixRow): CallerKind[] {
  return CALLERS.filter((c) => c.granted !== undefined && expectationOf(row, c.kind, ownObject(row)).kind === 'refusal').map((c) => c.kind);
}

/** Requests `runGrantedAfterRefusals` sends at most. */
export function grantedAfterRefusalsCost(rows: MatrixRow[] = matrixRows()): number {
  return rows.filter((r) => !r.writes).reduce((n, row) => n + refusedCallers(row).length + 1, 0);
}

/** The rules a granted column's refused read of its own business breaks: each read row's own retrieval. */
const RETRIEVALS: RequirementId[] = [...new Set(matrixRows().filter((r) => !r.writes).map(retrievalRequirementOf))];

/** What each column needs and which rules its cells and comparisons can break. */
const COLUMNS: Record<CallerKind, { needs: Need[]; expects: string; requirements: RequirementId[] }> = {
  primary: {
    needs: ['primaryApp'],
    expects: "2xx on its own objects; 403 or 404 on another business's, never 2xx; 404 for an unknown id",
    requirements: ['CONC-FOREIGN-OBJECT', 'CONC-UNKNOWN-OBJECT', 'CONC-OTHER-BUSINESS-PATH', 'CONC-SAME-AS-MISSING', 'CONC-NO-FOREIGN-DATA', 'VAL-PATH-UUIDV7', 'HOOK-OWNERSHIP', 'HOOK-FORBIDDEN', 'CONC-FOREIGN-LIKE-UNKNOWN', 'CONC-UNIFORM', 'CONC-CROSS-BUSINESS-BULK', 'CONC-CROSS-BUSINESS-MESSAGE', 'HOOK-NOT-FOUND', 'MSG-NOT-FOUND', ...RETRIEVALS],
  },
  limited: {
    needs: ['limitedApp'],
    expects: '403 permission_denied where the permission it lacks is named; otherwise as the primary application',
    requirements: ['AUTH-PERMISSION', 'CONC-FOREIGN-OBJECT', 'CONC-UNKNOWN-OBJECT', 'CONC-SAME-AS-MISSING', 'CONC-NO-FOREIGN-DATA', 'HOOK-OWNERSHIP', 'CONC-FOREIGN-LIKE-UNKNOWN', 'CONC-CROSS-BUSINESS-BULK', 'CONC-CROSS-BUSINESS-MESSAGE', ...RETRIEVALS],
  },
  'other-tenant': {
    needs: ['otherApp'],
    expects: "403 or 404 on this business's objects and on this business's resources under its own business, never 2xx",
    requirements: ['CONC-OTHER-BUSINESS-PATH', 'CONC-FOREIGN-OBJECT', 'CONC-UNKNOWN-OBJECT', 'CONC-SAME-AS-MISSING', 'CONC-NO-FOREIGN-DATA', 'HOOK-OWNERSHIP', 'HOOK-FORBIDDEN', 'CONC-FOREIGN-LIKE-UNKNOWN', 'CONC-UNIFORM', 'CONC-CROSS-BUSINESS-BULK', 'CONC-CROSS-BUSINESS-MESSAGE', ...RETRIEVALS],
  },
  'no-token': {
    needs: [],
    expects: '401 authentication_required on every object, before anything else',
    requirements: ['AUTH-401-MISSING', 'AUTH-401-FIRST', 'AUTH-ALL-OPERATIONS', 'AUTH-401-BEFORE-VALIDATION'],
  },
  'invalid-token': {
    needs: ['primaryApp'],
    expects: '401 authentication_required on every object, before anything else',
    requirements: ['AUTH-401-INVALID', 'AUTH-401-FIRST', 'AUTH-ALL-OPERATIONS', 'AUTH-401-BEFORE-VALIDATION'],
  },
};

/** Declares one check per column of `kinds` with the topic's `check` (a column's cost is its cells). */
export function declareMatrixColumns(check: (spec: CheckSpec, body: (t: CheckContext) => Promise<void>) => void, kinds: CallerKind[]): void {
  for (const kind of kinds) {
    const column = COLUMNS[kind];
    const { title } = CALLERS.find((c) => c.kind === kind)!;
    check(
      {
        id: `matrix-${kind}`,
        title: `Authorization matrix as ${title}${ownerReadRows(kind).length > 0 ? " (after the primary application's reads of its own objects)" : ''}: every operation of the spec naming a business or resource, on this business's own objects, the other business's (its ids under this business, and its business in the path), unknown and malformed ids: each answer of the class section 5 gives (${column.expects}); a resource of another business answered like an unknown one, no body naming a business the caller may not see`,
        requirements: column.requirements,
        needs: ['businessId', 'otherBusinessId', ...column.needs],
        uses: ['messageId', 'foreignMessageId', 'expiredCursorBulkId', 'foreignBulkId', 'webhookEndpointId', 'foreignWebhookEndpointId', 'recipients'],
        maxRequests: columnCost(kind) + TITLE_CONFIRMATION_REQUESTS,
        writes: 'submits bulk SMS and sends DELETE to webhook endpoints where only a refusal is right (another business, no grant, no valid token); on a host, a DELETE of an endpoint other than the configured one only to a declared sandbox',
        readsInSafe: true,
        timeout: 60_000,
      },
      (t) => runMatrixColumn(t, kind),
    );
  }
}
