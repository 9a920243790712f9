// The authorization matrix (5, rules 6 to 8; 4.4; 7): every operation of spec/openapi.yaml whose
// path names a business or a resource, called as every caller the configuration gives, on every
// kind of object. Rows, objects and each cell's expected class are derived here from the spec and
// the order of section 5 (token, grant, permission, ownership), so an operation added to the spec
// gets its row with no new code. Sending and judging the cells is suites/support/matrix-run.ts's.
import type { ApiRequest } from '../../harness/client.ts';
import type { Fixtures } from '../../core/model.ts';
import { openapi, type HttpMethod, type JsonSchema, type OpenApiDocument, type ParameterObject, type Ref } from '../../spec/contract.ts';
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { requirements } from '../../spec/requirements.ts';

/** One row: an operation of the spec. */
export interface MatrixRow {
  operation: string;
  method: ApiRequest['method'];
  /** Path template of the spec (`/v1/businesses/{businessId}/...`). */
  template: string;
  section: string;
  /** Anything but GET changes the target: sent only where a refusal is the only right answer. */
  writes: boolean;
  /** The path parameter naming the business (`businessId`), if the path names one. */
  businessParam?: string;
  /** The path parameter naming the resource, if the path names one besides the business. */
  resourceParam?: string;
  /** `x-required-permission`: the permission the document names for the operation. */
  permission?: string;
  /** `x-conceals-existence`: another business's resource must be answered exactly as an unknown one. */
  concealsExistence: boolean;
  /** Required request headers other than X-Request-Id (Idempotency-Key). */
  requiredHeaders: string[];
  hasBody: boolean;
  /** The query parameters of the spec (names as the document writes them, schemas resolved one `$ref` deep). */
  query: Array<{ name: string; schema: JsonSchema }>;
  /** A GET whose 2xx body holds a collection of items with ids (a listing): its owner's answer shows ids of objects besides the path's. */
  lists: boolean;
  /** A GET's item fields: the properties of the items of the arrays its 2xx body holds (a listing's `to`, `delivery_status`). */
  itemFields: string[];
}

/** The row's path with the business and the resource (empty when absent) filled in. */
export function pathOf(row: MatrixRow, businessId: string, resourceId: string | undefined): string {
  return row.template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(name === row.businessParam ? businessId : (resourceId ?? '')));
}

const METHODS: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

function resolveParameter(doc: OpenApiDocument, p: ParameterObject | Ref): ParameterObject | undefined {
  if (!('$ref' in p)) return p;
  const name = /^#\/components\/parameters\/(.+)$/.exec(p.$ref)?.[1];
  return name ? doc.components.parameters[name] : undefined;
}

/** A schema with one `#/components/schemas/...` reference followed. */
function schemaOf(doc: OpenApiDocument, schema: unknown): JsonSchema | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref !== 'string') return schema as JsonSchema;
  const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
  return name ? (doc.components.schemas as Record<string, JsonSchema>)[name] : undefined;
}

/** The fields of the items of every array a 2xx JSON body of the operation holds (a listing's rows). */
function listedItemFields(doc: OpenApiDocument, responses: Record<string, unknown>): string[] {
  return Object.entries(responses).flatMap(([status, response]) => {
    if (!/^2/.test(status) || response === null || typeof response !== 'object') return [];
    const body = schemaOf(doc, (response as { content?: Record<string, { schema?: unknown }> }).content?.['application/json']?.schema);
    return Object.values((body?.properties ?? {}) as Record<string, JsonSchema>).flatMap((p) => {
      const property = schemaOf(doc, p);
      const items = property?.type === 'array' ? schemaOf(doc, property.items) : undefined;
      return items && typeof items.properties === 'object' && items.properties !== null ? Object.keys(items.properties) : [];
    });
  });
}

/** Every operation whose path names a business and/or a resource, in the spec's order. */
export function matrixRows(doc: OpenApiDocument = openapi): MatrixRow[] {
  const rows: MatrixRow[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const pathParams = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    if (pathParams.length === 0) continue;
    const businessParam = pathParams.find((p) => /business/i.test(p));
    const resourceParam = pathParams.filter((p) => p !== businessParam).at(-1);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolveParameter(doc, p)).filter((p): p is ParameterObject => p !== undefined);
      const permission = op['x-required-permission'];
      const itemFields = method === 'get' ? listedItemFields(doc, op.responses) : [];
      rows.push({
        operation: op.operationId,
        method: method.toUpperCase() as ApiRequest['method'],
        template,
        section: op['x-section'],
        writes: method !== 'get',
        ...(businessParam ? { businessParam } : {}),
        ...(resourceParam ? { resourceParam } : {}),
        ...(typeof permission === 'string' ? { permission } : {}),
        concealsExistence: op['x-conceals-existence'] === true,
        requiredHeaders: params.filter((p) => p.in === 'header' && p.required === true && p.name.toLowerCase() !== 'x-request-id').map((p) => p.name),
        hasBody: op.requestBody !== undefined,
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: schemaOf(doc, p.schema) ?? {} })),
        itemFields,
        lists: itemFields.includes('id'),
      });
    }
  }
  return rows;
}

/**
 * The fixtures that name a resource of each kind: this business's own and the other business's.
 * A path parameter not listed here still gets its unknown and malformed cells; its own and
 * foreign cells say which variable would name one.
 */
export const RESOURCE_FIXTURES: Record<string, { own: keyof Fixtures; foreign: keyof Fixtures; isolation?: RequirementId; notFound?: RequirementId }> = {
  bulkMessageId: { own: 'expiredCursorBulkId', foreign: 'foreignBulkId', isolation: 'CONC-CROSS-BUSINESS-BULK' },
  messageId: { own: 'messageId', foreign: 'foreignMessageId', isolation: 'CONC-CROSS-BUSINESS-MESSAGE', notFound: 'MSG-NOT-FOUND' },
  endpointId: { own: 'webhookEndpointId', foreign: 'foreignWebhookEndpointId', notFound: 'HOOK-NOT-FOUND' },
};

/**
 * The rule that keeps another business's object of a kind (a path parameter) from a caller: the
 * catalogue's own rule for messages (4.4) and bulks (5), the general one for any other kind.
 */
export function isolationOf(kind: string | undefined): RequirementId {
  return (kind ? RESOURCE_FIXTURES[kind]?.isolation : undefined) ?? 'CONC-FOREIGN-OBJECT';
}

/**
 * The rule an id that names no object of a kind breaks when it is served: the kind's own not-found
 * rule (4.4 a message, 4.6 an endpoint's deactivation), the general one (7) for any other kind.
 */
export function notFoundOf(kind: string | undefined): RequirementId {
  return (kind ? RESOURCE_FIXTURES[kind]?.notFound : undefined) ?? 'CONC-UNKNOWN-OBJECT';
}

/** Every kind of resource id the spec's paths name (their path parameters besides the business), in the spec's order. */
export function resourceKinds(rows: MatrixRow[] = matrixRows()): string[] {
  return [...new Set(rows.map((r) => r.resourceParam).filter((k): k is string => k !== undefined))];
}

/**
 * The rule a granted caller's read of the row breaks when it is refused (4.2 to 4.5): the must of
 * the row's section that names the operation's 200 answer (BULK-RETRIEVE, SCH-LISTING-ENVELOPE,
 * MSG-RETRIEVE, WAL-RETRIEVE), derived from the catalogue; the general rule where none does.
 */
export function retrievalRequirementOf(row: MatrixRow): RequirementId {
  const own = requirements.find((r) => r.section === row.section && r.level === 'must' && /\b(gives|answers) 200\b/.test(r.text));
  return (own?.id as RequirementId | undefined) ?? 'CONC-FOREIGN-OBJECT';
}

/** What the limited application lacks (CONFORMANCE_LIMITED_CLIENT_ID is configured without it). */
export const LIMITED_LACKS = 'wallet.balance.read';

export type CallerKind = 'primary' | 'limited' | 'other-tenant' | 'no-token' | 'invalid-token';

/** The columns' callers: which business each is granted on, and who it is to a reader. */
export const CALLERS: Array<{ kind: CallerKind; title: string; granted?: 'own' | 'other' }> = [
  { kind: 'primary', title: 'the primary application (granted on the business, every permission)', granted: 'own' },
  { kind: 'limited', title: `the limited application (granted on the business, without ${LIMITED_LACKS})`, granted: 'own' },
  { kind: 'other-tenant', title: "the other business's application (granted there only)", granted: 'other' },
  { kind: 'no-token', title: 'no Authorization header' },
  { kind: 'invalid-token', title: "the primary application's token with one signature character changed" },
];

/** Whose business the path names, and whose resource. */
export type Party = 'own' | 'other' | 'unknown' | 'malformed';

export interface MatrixObject {
  /** `listed`: an id its owner's listing showed (a row of a bulk), named under the business of the other party. */
  kind: 'own' | 'foreign' | 'other-business' | 'own-under-other' | 'other-unknown' | 'unknown-business' | 'unknown' | 'malformed' | 'own-other-kind' | 'foreign-other-kind' | 'listed';
  business: Party;
  /** Absent on an operation whose path names only the business. */
  resource?: Party;
  /**
   * For the other-kind objects: the kind (path parameter) whose id fills the row's slot, a message id
   * where a bulk id goes (blind-bulk-read-finds-foreign-message: a lookup falling through to another table).
   */
  idKind?: string;
  /**
   * A query parameter of the row sent with the value a granted caller uses (`cursor`: one the run
   * was issued; a filter: a value of its schema or of the run's own listing): access does not
   * depend on what else the request carries (5).
   */
  query?: string;
}

/** A column's name in the matrix: the kind, or for an id of another kind its owner and kind (`foreign messageId`). */
export function objectLabel(object: MatrixObject): string {
  const base = object.kind === 'listed' ? `${object.resource === 'own' ? 'own' : 'foreign'} id listed by its owner` : object.idKind ? `${object.resource === 'own' ? 'own' : 'foreign'} ${object.idKind}` : object.kind;
  return object.query ? `${base} ?${object.query}` : base;
}

/** The objects a column refuses whatever the query carries, sent once more per query parameter of the row. */
const SHAPED: Array<MatrixObject['kind']> = ['own', 'foreign', 'own-under-other', 'other-business'];

/**
 * Every kind of object of a row: under this business and under the other one, existing, unknown,
 * malformed; and in its resource slot, the ids of every other kind of resource `rows` name (this
 * business's and the other's), each to be answered as an unknown id.
 */
export function objectsFor(row: MatrixRow, rows: MatrixRow[] = matrixRows()): MatrixObject[] {
  const base = baseObjects(row, rows);
  // Each query parameter once on the objects whose answer it must not change (leftOut keeps one per column).
  const shaped = row.query.flatMap((q) => base.filter((o) => SHAPED.includes(o.kind)).map((o) => ({ ...o, query: q.name })));
  // An id another business's listing showed, in this row's slot under the caller's business (either tenant).
  const listed: MatrixObject[] = row.resourceParam && rows.some((r) => r.lists)
    ? [
        { kind: 'listed', business: 'own', resource: 'other' },
        { kind: 'listed', business: 'other', resource: 'own' },
      ]
    : [];
  return [...base, ...listed, ...shaped];
}

function baseObjects(row: MatrixRow, rows: MatrixRow[]): MatrixObject[] {
  if (!row.resourceParam) {
    return [
      { kind: 'own', business: 'own' },
      { kind: 'other-business', business: 'other' },
      { kind: 'unknown', business: 'unknown' },
      { kind: 'malformed', business: 'malformed' },
    ];
  }
  return [
    { kind: 'own', business: 'own', resource: 'own' },
    { kind: 'foreign', business: 'own', resource: 'other' },
    { kind: 'other-business', business: 'other', resource: 'other' },
    { kind: 'own-under-other', business: 'other', resource: 'own' },
    { kind: 'other-unknown', business: 'other', resource: 'unknown' },
    // A business that exists nowhere, the same unknown id: compared with the other business's (5: the grant decides both).
    { kind: 'unknown-business', business: 'unknown', resource: 'unknown' },
    { kind: 'unknown', business: 'own', resource: 'unknown' },
    { kind: 'malformed', business: 'own', resource: 'malformed' },
    ...resourceKinds(rows)
      .filter((kind) => kind !== row.resourceParam)
      .flatMap((idKind): MatrixObject[] => [
        { kind: 'own-other-kind', business: 'own', resource: 'own', idKind },
        { kind: 'foreign-other-kind', business: 'own', resource: 'other', idKind },
      ]),
  ];
}

/**
 * Why a column leaves a cell out (its answer follows from another column's), or undefined when it
 * sends it. Each left-out cell is a request a distant, rate-limited host need not answer: the
 * primary application's column sends every object; the limited application differs from it only
 * in a permission, which section 5 decides after the grant, so it sends the objects under its
 * granted business; the other tenant needs no malformed ids or unknown businesses (no grant either
 * way, as for the primary application); a caller without a valid token is refused before anything,
 * so it needs one existing and one unknown object under each business, no more.
 */
export function leftOut(caller: CallerKind, object: MatrixObject): string | undefined {
  const granted = CALLERS.find((c) => c.kind === caller)!.granted;
  if (object.kind === 'listed') {
    // The other party's listing shows the ids: each tenant names the other's under its own business.
    return granted !== undefined && caller !== 'limited' && object.business === granted ? undefined : "left out: sent by each tenant's application for the other tenant's listed ids";
  }
  if (object.query !== undefined) {
    // Without a token: the caller's own object (the one a token would open); with one, the other
    // party's resource under the granted business (or, without a resource, the business without grant).
    if (caller === 'limited') return 'left out: the query shapes are sent as the primary application, which differs only in a permission';
    const headline = granted === undefined ? object.kind === 'own' : object.business === granted ? object.resource !== undefined && object.resource !== granted : object.resource === undefined;
    return headline ? undefined : 'left out: each query parameter is sent on the one object of the column whose refusal it must not change';
  }
  // Which table a lookup reads does not depend on the caller: the primary application's column asks it.
  if (object.idKind && caller !== 'primary') return 'left out: an id of another kind is looked up alike for every caller, as for the primary application';
  if (caller === 'limited' && (object.business !== 'own' || object.resource === 'malformed')) return 'left out: decided before the permission, as for the primary application';
  if (caller === 'other-tenant' && (object.business === 'unknown' || object.business === 'malformed' || object.resource === 'malformed')) return 'left out: no grant either way, as for the primary application';
  if (granted === undefined && (object.kind === 'foreign' || object.kind === 'own-under-other' || object.kind === 'other-unknown' || object.kind === 'unknown-business')) return 'left out: refused before anything, as the other objects of its business';
  return undefined;
}

/**
 * Requests one column sends at most: one per cell it does not leave out, and the listings the run's
 * observations take (`suites/support/matrix-run.ts`: the run's own listing, for a cursor and filter
 * values; the other tenant's, for its listed ids), where the column may be the first to ask.
 */
export function columnCost(caller: CallerKind, rows: MatrixRow[] = matrixRows()): number {
  const cells = rows.reduce((sum, row) => sum + objectsFor(row, rows).filter((o) => leftOut(caller, o) === undefined).length, 0);
  const listings = caller === 'limited' || !rows.some((r) => r.lists) ? 0 : caller === 'primary' ? 2 : 1;
  return cells + listings + ownerReadRows(caller, rows).length;
}

/**
 * The reads the primary application sends of its own objects before the other tenant's column:
 * every read row of the spec but the listings (the column lists this business's bulk already). A
 * read answers the path's business whoever read another before, so a cache not keyed by business
 * (blind6-wallet-cache-single-slot: one slot) shows in the other tenant's reads of its own objects.
 * One order is enough for a shared slot: the primary column sends none.
 */
export function ownerReadRows(caller: CallerKind, rows: MatrixRow[] = matrixRows()): MatrixRow[] {
  return caller === 'other-tenant' ? rows.filter((r) => !r.writes && !r.lists) : [];
}

/**
 * The objects of a write row that a caller sends again once the run's own successful write of the
 * row (the primary application's, on its own business and object: the key a submission used, the
 * endpoint a DELETE deactivated) has changed the target, since a refusal holds in every state the
 * run leaves, not only on a fresh target (5, 7). Only the cells whose answer that state could
 * change: their path names the written business (an unknown or foreign id under it, or for a row
 * without a resource, the business that holds the key) or the written object (under another
 * business too); never a malformed id, an id of another kind or a query shape. Without a valid
 * token, the written object alone (refused before anything else, whatever else the path names).
 * The limited application only on a row whose permission is the one it lacks: elsewhere it
 * differs from the primary application only after the grant, which the primary's cells meet.
 */
export function afterWriteObjects(row: MatrixRow, caller: CallerKind, rows: MatrixRow[] = matrixRows()): MatrixObject[] {
  if (!row.writes || (caller === 'limited' && row.permission !== LIMITED_LACKS)) return [];
  const granted = CALLERS.find((c) => c.kind === caller)!.granted;
  return baseObjects(row, rows).filter((o) => {
    if (o.idKind || o.business === 'malformed' || o.resource === 'malformed') return false;
    const namesWritten = row.resourceParam ? o.resource === 'own' : o.business === 'own';
    if (!namesWritten && (granted === undefined || o.business !== 'own')) return false;
    return leftOut(caller, o) === undefined && expectationOf(row, caller, o).kind !== 'success';
  });
}

/**
 * The rules of a kind's own life that a refusal of its write breaks, in place of the general rule
 * the matrix names (3.4, 4.6: deactivation under a business without grant, of an unknown id, of
 * another business's endpoint). Named on the cells sent after the run's own write of the kind.
 */
const LIFECYCLE_RULES: Record<string, Partial<Record<RequirementId, RequirementId>>> = {
  endpointId: { 'CONC-OTHER-BUSINESS-PATH': 'HOOK-FORBIDDEN', 'CONC-UNKNOWN-OBJECT': 'HOOK-NOT-FOUND', 'CONC-FOREIGN-OBJECT': 'HOOK-OWNERSHIP' },
};

/** A cell's expectation once the run's own write of the row has changed the target (`afterWriteObjects`). */
export function afterWriteExpectation(row: MatrixRow, caller: CallerKind, object: MatrixObject): Expectation {
  const e = expectationOf(row, caller, object);
  const own = row.resourceParam ? LIFECYCLE_RULES[row.resourceParam]?.[e.requirement] : undefined;
  return own ? { ...e, requirement: own } : e;
}

/**
 * The write row whose own object `fixture` names (the configured webhook endpoint: its
 * deactivation), or without one the write row that names no resource (the submission, a creation).
 */
export function writeRowOn(fixture: keyof Fixtures | undefined, rows: MatrixRow[] = matrixRows()): MatrixRow {
  const row = rows.find((r) => r.writes && (fixture === undefined ? r.resourceParam === undefined : r.resourceParam !== undefined && RESOURCE_FIXTURES[r.resourceParam]?.own === fixture));
  if (!row) throw new Error(`no write row of the spec on ${fixture ?? 'a business alone'}`);
  return row;
}

/**
 * The reads whose path names the object a creation makes (a write row naming no resource, the
 * submission): the spec's paths one id deeper than the creation's (the bulk, its listing). The run's
 * own created object is one a fixture never names: its refusals are sent only after it exists (4, 5).
 */
export function createdObjectRows(write: MatrixRow, rows: MatrixRow[] = matrixRows()): MatrixRow[] {
  if (!write.writes || write.resourceParam !== undefined) return [];
  return rows.filter((r) => !r.writes && r.resourceParam !== undefined && r.template.startsWith(`${write.template}/{${r.resourceParam}}`));
}

/**
 * The refusal cells of a read on the run's own created object (`createdObjectRows`): every caller's
 * objects whose resource slot holds it (under this business and under the other), as the matrix
 * sends them (`leftOut`); the limited application only where the permission it lacks is named.
 */
export function createdObjectCells(row: MatrixRow, caller: CallerKind, rows: MatrixRow[] = matrixRows()): MatrixObject[] {
  if (row.writes || !row.resourceParam || (caller === 'limited' && row.permission !== LIMITED_LACKS)) return [];
  return baseObjects(row, rows).filter((o) => !o.idKind && o.resource === 'own' && leftOut(caller, o) === undefined && expectationOf(row, caller, o).kind !== 'success');
}

/** Requests the cells of `afterWriteObjects` (and, for a creation, `createdObjectCells`) send at most, over every caller. */
export function afterWriteCost(row: MatrixRow, rows: MatrixRow[] = matrixRows()): number {
  const reads = createdObjectRows(row, rows);
  return CALLERS.reduce((sum, c) => sum + afterWriteObjects(row, c.kind, rows).length + reads.reduce((n, r) => n + createdObjectCells(r, c.kind, rows).length, 0), 0);
}

/** An answer a cell accepts: a status and, for a problem, its codes. */
export interface Accepted {
  status: number | '2xx';
  codes?: string[];
  /** A reading the document leaves open: the cell is recorded, not passed silently. */
  reading?: string;
}

/** What the document expects of one cell, and what a wrong answer breaks. */
export interface Expectation {
  /** `success`: the caller's own object with the grant and permission; never sent when it writes. */
  kind: 'success' | 'refusal' | 'unauthenticated';
  accepted: Accepted[];
  requirement: RequirementId;
  /** For unauthenticated callers: what a refusal other than 401 breaks (the order of section 5). */
  orderRequirement?: RequirementId;
  /** For unauthenticated callers: what a 2xx breaks (served without a token at all, or with a wrong one). */
  servedRequirement?: RequirementId;
  text: string;
}

const NOT_FOUND: Accepted = { status: 404, codes: ['resource_not_found'] };
const DENIED: Accepted = { status: 403, codes: ['permission_denied'] };
/** Section 5 names both codes for a grant, permission or sender refusal (a submission may meet its sender first). */
const NO_GRANT: Accepted = { status: 403, codes: ['permission_denied', 'sender_not_authorized'] };
const INVALID: Accepted = { status: 400, codes: ['validation_failed'] };

/**
 * The expected class of a cell, from the document's order: token, grant, permission, ownership. A
 * query parameter changes nothing of it, but that a refusal may come from the query's validation
 * first (a cursor issued for another bulk; the order is open, AUTH-VALIDATION-ORDER).
 */
export function expectationOf(row: MatrixRow, caller: CallerKind, object: MatrixObject): Expectation {
  const e = unshapedExpectation(row, caller, object);
  if (object.query === undefined || e.kind !== 'refusal' || e.accepted.includes(INVALID)) return e;
  return { ...e, accepted: [...e.accepted, { ...INVALID, reading: `?${object.query} validated before the ownership (either may come first)` }], text: `${e.text}; 400 validation_failed for the query` };
}

function unshapedExpectation(row: MatrixRow, caller: CallerKind, object: MatrixObject): Expectation {
  const granted = CALLERS.find((c) => c.kind === caller)!.granted;
  if (granted === undefined) {
    const requirement: RequirementId = caller === 'no-token' ? 'AUTH-401-MISSING' : 'AUTH-401-INVALID';
    return {
      kind: 'unauthenticated',
      accepted: [{ status: 401, codes: ['authentication_required'] }],
      requirement,
      // 4: no operation answers 2xx without a token; a wrong one is no token either (5.8).
      servedRequirement: caller === 'no-token' ? 'AUTH-ALL-OPERATIONS' : 'AUTH-401-INVALID',
      ...(object.kind === 'own' ? {} : { orderRequirement: 'AUTH-401-FIRST' as RequirementId }),
      text: '401 authentication_required',
    };
  }
  if (object.business !== granted) {
    if (object.business === 'malformed') {
      return { kind: 'refusal', accepted: [INVALID, DENIED, NOT_FOUND], requirement: 'VAL-PATH-UUIDV7', text: '400, 403 or 404, never 2xx or 5xx' };
    }
    return { kind: 'refusal', accepted: [NO_GRANT, NOT_FOUND], requirement: 'CONC-OTHER-BUSINESS-PATH', text: '403 permission_denied or 404 resource_not_found (no grant), never 2xx' };
  }
  if (caller === 'limited' && row.permission === LIMITED_LACKS) {
    return { kind: 'refusal', accepted: [DENIED], requirement: 'AUTH-PERMISSION', text: `403 permission_denied (${LIMITED_LACKS} missing)` };
  }
  // The permissions of the other operations are not shown (5.9): a 403 for the limited application is
  // one reading; the other tenant's permissions are not configured at all (only its grant).
  const open: Accepted[] =
    caller === 'limited' && !row.permission
      ? [{ ...DENIED, reading: 'a permission of the limited application missing (not shown, 5.9)' }]
      : caller === 'other-tenant'
        ? [{ ...DENIED, reading: "a permission of the other business's application missing (its permissions are not configured)" }]
        : [];
  if (object.kind === 'listed') {
    // 5: a listing's item is its owner's object; its id, named under another business, is refused there (whatever table a lookup reads).
    return { kind: 'refusal', accepted: [NOT_FOUND, DENIED], requirement: 'CONC-FOREIGN-OBJECT', text: `404 resource_not_found or 403: an id another business's listing showed is no ${row.resourceParam} of this business, never 2xx` };
  }
  if (object.idKind) {
    // Another kind's id names no object of this one: an unknown id's answer, under the row's own
    // not-found rule (blind8-webhook-any-resource-id-204: a message id deactivated as an endpoint);
    // another business's, under its rule.
    return {
      kind: 'refusal',
      accepted: [NOT_FOUND, DENIED],
      requirement: object.resource === 'own' ? notFoundOf(row.resourceParam) : isolationOf(object.idKind),
      text: `404 resource_not_found (or 403) as for an unknown id: a ${object.idKind} is no ${row.resourceParam}, never 2xx`,
    };
  }
  if (object.resource === undefined || object.resource === granted) {
    // 5: granted with the permission, the business's object is the caller's whoever made it; a refusal breaks the row's own retrieval.
    return { kind: 'success', accepted: [{ status: '2xx' }, ...open], requirement: retrievalRequirementOf(row), text: open.length > 0 ? '2xx, or 403 permission_denied' : "2xx (an object of the caller's granted business)" };
  }
  if (object.resource === 'unknown') {
    return { kind: 'refusal', accepted: [NOT_FOUND, DENIED], requirement: 'CONC-UNKNOWN-OBJECT', text: '404 resource_not_found (or 403), never 2xx or 5xx' };
  }
  if (object.resource === 'malformed') {
    return { kind: 'refusal', accepted: [INVALID, NOT_FOUND, DENIED], requirement: 'VAL-PATH-UUIDV7', text: '400, 404 or 403, never 2xx or 5xx' };
  }
  return { kind: 'refusal', accepted: [NOT_FOUND, DENIED], requirement: 'CONC-FOREIGN-OBJECT', text: "404 resource_not_found or 403 (another business's resource), never 2xx" };
}

/** The accepted answer a response matches, if any. */
export function acceptedAnswer(expectation: Expectation, status: number, code: string | undefined): Accepted | undefined {
  return expectation.accepted.find((a) => (a.status === '2xx' ? status >= 200 && status < 300 : a.status === status && (a.codes === undefined || (code !== undefined && a.codes.includes(code)))));
}
