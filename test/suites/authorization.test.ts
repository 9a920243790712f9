// The authorization matrix is derived, not enumerated: its rows come from spec/openapi.yaml (a new
// operation in a fixture spec gets its row, objects and cost with no new code), and each cell's
// expected class follows section 5's order (token, grant, permission, ownership).
import { describe, expect, it } from 'vitest';
import { openapi, operationIds, type OpenApiDocument } from '../../spec/contract.ts';
import { grantedAfterRefusalsCost, peerReadsCost } from '../../suites/support/matrix-run.ts';
import { CALLERS, retrievalRequirementOf, afterWriteCost, afterWriteExpectation, afterWriteObjects, columnCost, createdObjectCells, createdObjectRows, expectationOf, leftOut, matrixRows, objectLabel, objectsFor, resourceKinds, writeRowOn, type CallerKind, type MatrixObject } from '../../suites/support/authorization.ts';

const rowsOf = (doc: OpenApiDocument = openapi) => matrixRows(doc);
const rowNamed = (name: string, doc?: OpenApiDocument) => rowsOf(doc).find((r) => r.operation === name)!;
const object = (kind: MatrixObject['kind'], row = rowNamed('getSmsBulkMessage')) => objectsFor(row).find((o) => o.kind === kind)!;

/** The spec with one more operation: a template read under the business. */
function withTemplateRead(): OpenApiDocument {
  const doc = structuredClone(openapi);
  doc.components.parameters.TemplateId = { name: 'templateId', in: 'path', required: true, schema: { type: 'string' } };
  doc.paths['/v1/businesses/{businessId}/sms/templates/{templateId}'] = {
    parameters: [{ $ref: '#/components/parameters/BusinessId' }, { $ref: '#/components/parameters/TemplateId' }],
    get: { operationId: 'getSmsTemplate', 'x-section': '9.9', responses: {} },
  };
  return doc;
}

describe('rows from spec/openapi.yaml', () => {
  it('every operation naming a business or resource, with what the spec says of it', () => {
    const rows = rowsOf();
    // Every operation of the document names its business: the six, in the spec's order.
    expect(rows.map((r) => r.operation)).toEqual([...operationIds]);
    expect(rowNamed('createSmsBulkMessage')).toMatchObject({ method: 'POST', writes: true, hasBody: true, requiredHeaders: ['Idempotency-Key'], businessParam: 'businessId' });
    expect(rowNamed('createSmsBulkMessage').resourceParam).toBeUndefined();
    expect(rowNamed('getWalletBalance')).toMatchObject({ permission: 'wallet.balance.read', writes: false });
    expect(rowNamed('deactivateWebhookEndpoint')).toMatchObject({ method: 'DELETE', writes: true, resourceParam: 'endpointId' });
    expect(rows.filter((r) => r.concealsExistence).map((r) => r.operation)).toEqual(['getSmsMessage']);
    // validation/every-member-every-json-type gives the body's root every JSON type on the one operation that takes a body.
    expect(rows.filter((r) => r.hasBody).map((r) => r.operation)).toEqual(['createSmsBulkMessage']);
  });

  it('an operation added to a fixture spec gets its row, its objects and its requests with no new code', () => {
    const doc = withTemplateRead();
    const row = rowNamed('getSmsTemplate', doc);
    expect(row).toMatchObject({ method: 'GET', template: '/v1/businesses/{businessId}/sms/templates/{templateId}', resourceParam: 'templateId', writes: false });
    const rows = rowsOf(doc);
    expect(objectsFor(row, rows).map(objectLabel)).toEqual([
      'own', 'foreign', 'other-business', 'own-under-other', 'other-unknown', 'unknown-business', 'unknown', 'malformed',
      'own bulkMessageId', 'foreign bulkMessageId', 'own messageId', 'foreign messageId', 'own endpointId', 'foreign endpointId',
      'foreign id listed by its owner', 'own id listed by its owner',
    ]);
    // Its kind of id also goes into every other row's resource slot (the primary application's column).
    expect(objectsFor(rowNamed('getSmsMessage', doc), rows).map(objectLabel)).toContain('foreign templateId');
    const slots = rows.filter((r) => r.resourceParam !== undefined && r.operation !== row.operation).length;
    for (const { kind } of CALLERS) {
      // The other tenant's column: the primary application's read of its own object of the new row first.
      const added = objectsFor(row, rows).filter((o) => leftOut(kind, o) === undefined).length + (kind === 'primary' ? 2 * slots : 0) + (kind === 'other-tenant' ? 1 : 0);
      expect(columnCost(kind, rows), kind).toBe(columnCost(kind, rowsOf()) + added);
    }
    expect(expectationOf(row, 'primary', object('foreign', row)).requirement).toBe('CONC-FOREIGN-OBJECT');
  });
});

describe('query shapes and listed ids (access does not depend on what else the request carries)', () => {
  const listing = rowNamed('listSmsBulkMessageRecipients');

  it("each query parameter of the spec is a column of its row, sent once per column on the one object whose refusal it must not change", () => {
    expect(listing.query.map((q) => q.name)).toEqual(['limit', 'cursor', 'status', 'to']);
    expect(listing.lists).toBe(true);
    expect(rowsOf().filter((r) => r.lists).map((r) => r.operation)).toEqual(['listSmsBulkMessageRecipients']);
    const shaped = objectsFor(listing).filter((o) => o.query !== undefined);
    const sent = (caller: CallerKind) => shaped.filter((o) => leftOut(caller, o) === undefined);
    // One cell per query parameter and column: no product of parameters and objects.
    expect(sent('no-token').map(objectLabel)).toEqual(['own ?limit', 'own ?cursor', 'own ?status', 'own ?to']);
    expect(sent('invalid-token').map(objectLabel)).toEqual(['own ?limit', 'own ?cursor', 'own ?status', 'own ?to']);
    expect(sent('primary').map(objectLabel)).toEqual(['foreign ?limit', 'foreign ?cursor', 'foreign ?status', 'foreign ?to']);
    expect(sent('other-tenant').map(objectLabel)).toEqual(['own-under-other ?limit', 'own-under-other ?cursor', 'own-under-other ?status', 'own-under-other ?to']);
    expect(sent('limited')).toEqual([]);
    // An operation without query parameters gets no shaped cell.
    expect(objectsFor(rowNamed('getSmsMessage')).some((o) => o.query !== undefined)).toBe(false);
  });

  it('a query shape keeps the class of its object; a refusal may come from the query first (400)', () => {
    const foreign = objectsFor(listing).find((o) => o.kind === 'foreign' && o.query === 'cursor')!;
    const e = expectationOf(listing, 'primary', foreign);
    expect(e).toMatchObject({ kind: 'refusal', requirement: 'CONC-FOREIGN-OBJECT' });
    expect(e.accepted.find((a) => a.status === 400)?.reading).toMatch(/cursor/);
    const own = objectsFor(listing).find((o) => o.kind === 'own' && o.query === 'cursor')!;
    // Without a token, a 2xx is an operation served without one (4); with a wrong token, an invalid token accepted.
    expect(expectationOf(listing, 'no-token', own)).toMatchObject({ kind: 'unauthenticated', requirement: 'AUTH-401-MISSING', servedRequirement: 'AUTH-ALL-OPERATIONS' });
    expect(expectationOf(listing, 'invalid-token', own)).toMatchObject({ servedRequirement: 'AUTH-401-INVALID' });
    expect(expectationOf(listing, 'no-token', own).accepted.some((a) => a.status === 400)).toBe(false);
  });

  it("an id the other tenant's listing showed is named by each tenant under its own business, refused as another business's object", () => {
    const message = rowNamed('getSmsMessage');
    const listed = objectsFor(message).filter((o) => o.kind === 'listed');
    expect(listed.map((o) => [o.business, o.resource])).toEqual([['own', 'other'], ['other', 'own']]);
    expect(listed.filter((o) => leftOut('primary', o) === undefined)).toEqual([listed[0]]);
    expect(listed.filter((o) => leftOut('other-tenant', o) === undefined)).toEqual([listed[1]]);
    for (const caller of ['limited', 'no-token', 'invalid-token'] as const) expect(listed.every((o) => leftOut(caller, o) !== undefined), caller).toBe(true);
    expect(expectationOf(message, 'primary', listed[0]!)).toMatchObject({ kind: 'refusal', requirement: 'CONC-FOREIGN-OBJECT' });
    expect(expectationOf(message, 'other-tenant', listed[1]!)).toMatchObject({ kind: 'refusal', requirement: 'CONC-FOREIGN-OBJECT' });
    // No listing in the spec: no listed ids.
    const doc = structuredClone(openapi);
    delete doc.paths['/v1/businesses/{businessId}/sms/bulk-messages/{bulkMessageId}/messages'];
    expect(objectsFor(rowNamed('getSmsMessage', doc), rowsOf(doc)).some((o) => o.kind === 'listed')).toBe(false);
  });
});

describe('expected class of a cell (section 5: token, grant, permission, ownership)', () => {
  const bulk = rowNamed('getSmsBulkMessage');
  const wallet = rowNamed('getWalletBalance');
  const cases: Array<[CallerKind, string, MatrixObject, string, string]> = [
    ['primary', 'getSmsBulkMessage', object('own'), 'success', 'BULK-RETRIEVE'],
    ['primary', 'getSmsBulkMessage', object('foreign'), 'refusal', 'CONC-FOREIGN-OBJECT'],
    ['primary', 'getSmsBulkMessage', object('other-business'), 'refusal', 'CONC-OTHER-BUSINESS-PATH'],
    ['primary', 'getSmsBulkMessage', object('unknown'), 'refusal', 'CONC-UNKNOWN-OBJECT'],
    ['primary', 'getSmsBulkMessage', object('malformed'), 'refusal', 'VAL-PATH-UUIDV7'],
    ['other-tenant', 'getSmsBulkMessage', object('own'), 'refusal', 'CONC-OTHER-BUSINESS-PATH'],
    ['other-tenant', 'getSmsBulkMessage', object('other-business'), 'success', 'BULK-RETRIEVE'],
    ['other-tenant', 'getSmsBulkMessage', object('own-under-other'), 'refusal', 'CONC-FOREIGN-OBJECT'],
    ['limited', 'getWalletBalance', object('own', wallet), 'refusal', 'AUTH-PERMISSION'],
    ['no-token', 'getSmsBulkMessage', object('own'), 'unauthenticated', 'AUTH-401-MISSING'],
    ['invalid-token', 'getWalletBalance', object('other-business', wallet), 'unauthenticated', 'AUTH-401-INVALID'],
  ];
  it.each(cases)('%s × %s × %o: %s (%s)', (caller, operation, obj, kind, requirement) => {
    const e = expectationOf(operation === 'getWalletBalance' ? wallet : bulk, caller, obj);
    expect(e.kind).toBe(kind);
    expect(e.requirement).toBe(requirement);
  });

  it('a business that exists nowhere, beside the other business: refused as no grant, sent only by the primary application (its answer is compared with the other business\'s)', () => {
    const unknownBusiness = object('unknown-business');
    expect(unknownBusiness).toMatchObject({ business: 'unknown', resource: 'unknown' });
    expect(expectationOf(bulk, 'primary', unknownBusiness)).toMatchObject({ kind: 'refusal', requirement: 'CONC-OTHER-BUSINESS-PATH' });
    for (const { kind } of CALLERS) expect(leftOut(kind, unknownBusiness) === undefined, kind).toBe(kind === 'primary');
    // A row naming only the business has its unknown business already.
    expect(objectsFor(wallet).find((o) => o.kind === 'unknown')).toMatchObject({ business: 'unknown' });
  });

  it('without a valid token, a refusal other than 401 on any object but its own breaks the order (401 first)', () => {
    expect(expectationOf(bulk, 'no-token', object('unknown')).orderRequirement).toBe('AUTH-401-FIRST');
    expect(expectationOf(bulk, 'no-token', object('own')).orderRequirement).toBeUndefined();
  });

  it('an id of another kind in a resource slot is answered as an unknown id; another business\'s under the rule of its kind', () => {
    expect(resourceKinds()).toEqual(['bulkMessageId', 'messageId', 'endpointId']);
    const ofKind = (idKind: string, resource: 'own' | 'other') => objectsFor(bulk).find((o) => o.idKind === idKind && o.resource === resource)!;
    expect(expectationOf(bulk, 'primary', ofKind('messageId', 'other'))).toMatchObject({ kind: 'refusal', requirement: 'CONC-CROSS-BUSINESS-MESSAGE' });
    expect(expectationOf(bulk, 'primary', ofKind('messageId', 'own'))).toMatchObject({ kind: 'refusal', requirement: 'CONC-UNKNOWN-OBJECT' });
    expect(expectationOf(rowNamed('getSmsMessage'), 'primary', objectsFor(rowNamed('getSmsMessage')).find((o) => o.idKind === 'bulkMessageId' && o.resource === 'other')!).requirement).toBe('CONC-CROSS-BUSINESS-BULK');
    expect(expectationOf(bulk, 'primary', ofKind('endpointId', 'other')).requirement).toBe('CONC-FOREIGN-OBJECT');
    // The caller's own id of another kind breaks the row's own not-found rule where its kind has one (4.4, 4.6).
    const ownOfKind = (operation: string, idKind: string) => expectationOf(rowNamed(operation), 'primary', objectsFor(rowNamed(operation)).find((o) => o.idKind === idKind && o.resource === 'own')!).requirement;
    expect(ownOfKind('getSmsMessage', 'bulkMessageId')).toBe('MSG-NOT-FOUND');
    expect(ownOfKind('deactivateWebhookEndpoint', 'messageId')).toBe('HOOK-NOT-FOUND');
    expect(ownOfKind('deactivateWebhookEndpoint', 'bulkMessageId')).toBe('HOOK-NOT-FOUND');
    // Only the primary application's column sends them: which table a lookup reads does not depend on the caller.
    for (const { kind } of CALLERS) expect(leftOut(kind, ofKind('messageId', 'other')) === undefined, kind).toBe(kind === 'primary');
  });

  it("a granted caller's own-object cell names the row's own retrieval rule, derived from the catalogue (the general rule for an operation the catalogue does not name)", () => {
    const byOperation = Object.fromEntries(rowsOf().filter((r) => !r.writes).map((r) => [r.operation, retrievalRequirementOf(r)]));
    expect(byOperation).toEqual({ getSmsBulkMessage: 'BULK-RETRIEVE', listSmsBulkMessageRecipients: 'SCH-LISTING-ENVELOPE', getSmsMessage: 'MSG-RETRIEVE', getWalletBalance: 'WAL-RETRIEVE' });
    expect(retrievalRequirementOf(rowNamed('getSmsTemplate', withTemplateRead()))).toBe('CONC-FOREIGN-OBJECT');
    expect(expectationOf(rowNamed('getSmsMessage'), 'limited', object('own', rowNamed('getSmsMessage')))).toMatchObject({ kind: 'success', requirement: 'MSG-RETRIEVE' });
  });

  it('the limited application may be refused an operation whose permission the document does not name (a recorded reading)', () => {
    const e = expectationOf(bulk, 'limited', object('own'));
    expect(e.accepted.find((a) => a.status === 403)?.reading).toMatch(/not shown/);
  });
});

describe("a write row's refusals once the run's own write changed the target (a used key, a deactivated endpoint)", () => {
  const submission = writeRowOn(undefined);
  const deactivation = writeRowOn('webhookEndpointId');
  const cellsOf = (row: typeof submission) => Object.fromEntries(CALLERS.map(({ kind }) => [kind, afterWriteObjects(row, kind).map(objectLabel)]));

  it('the write rows are found from the spec: the one naming no resource, the one on the configured endpoint\'s kind', () => {
    expect(submission.operation).toBe('createSmsBulkMessage');
    expect(deactivation.operation).toBe('deactivateWebhookEndpoint');
    expect(afterWriteObjects(rowNamed('getSmsBulkMessage'), 'no-token')).toEqual([]);
  });

  it("only the refusal cells whose path names the written business or object; without a token, the written object alone", () => {
    // The used key is held under the caller's business: the callers refused there carry it again.
    expect(cellsOf(submission)).toEqual({ primary: [], limited: [], 'other-tenant': ['own'], 'no-token': ['own'], 'invalid-token': ['own'] });
    expect(cellsOf(deactivation)).toEqual({
      primary: ['foreign', 'own-under-other', 'unknown'],
      limited: [],
      'other-tenant': ['own', 'foreign', 'own-under-other', 'unknown'],
      'no-token': ['own'],
      'invalid-token': ['own'],
    });
    // The submission's own 3, and 5 per read of the bulk it created (below).
    expect(afterWriteCost(submission)).toBe(3 + 2 * 5);
    expect(afterWriteCost(deactivation)).toBe(9);
  });

  it("a creation's new object: every read whose path names it, each caller's refusal cells on it (blind7-fresh-bulk-readable-without-token)", () => {
    expect(createdObjectRows(submission).map((r) => r.operation)).toEqual(['getSmsBulkMessage', 'listSmsBulkMessageRecipients']);
    expect(createdObjectRows(deactivation)).toEqual([]);
    for (const read of createdObjectRows(submission)) {
      expect(Object.fromEntries(CALLERS.map(({ kind }) => [kind, createdObjectCells(read, kind).map(objectLabel)]))).toEqual({
        primary: ['own-under-other'],
        limited: [],
        'other-tenant': ['own', 'own-under-other'],
        'no-token': ['own'],
        'invalid-token': ['own'],
      });
      expect(expectationOf(read, 'no-token', object('own', read)).servedRequirement).toBe('AUTH-ALL-OPERATIONS');
    }
    expect(createdObjectCells(submission, 'no-token')).toEqual([]);
  });

  it("an endpoint's cells name its own rules (3.4, 4.6); unauthenticated cells and a submission's keep the general ones", () => {
    const of = (row: typeof submission, caller: CallerKind, kind: MatrixObject['kind']) => afterWriteExpectation(row, caller, afterWriteObjects(row, caller).find((o) => o.kind === kind)!).requirement;
    expect(of(deactivation, 'primary', 'unknown')).toBe('HOOK-NOT-FOUND');
    expect(of(deactivation, 'primary', 'own-under-other')).toBe('HOOK-FORBIDDEN');
    expect(of(deactivation, 'other-tenant', 'own')).toBe('HOOK-FORBIDDEN');
    expect(of(deactivation, 'primary', 'foreign')).toBe('HOOK-OWNERSHIP');
    expect(afterWriteExpectation(deactivation, 'no-token', object('own', deactivation))).toMatchObject({ requirement: 'AUTH-401-MISSING', servedRequirement: 'AUTH-ALL-OPERATIONS' });
    expect(of(submission, 'other-tenant', 'own')).toBe('CONC-OTHER-BUSINESS-PATH');
    expect(afterWriteExpectation(submission, 'no-token', object('own', submission)).servedRequirement).toBe('AUTH-ALL-OPERATIONS');
  });
});

describe('granted readers, both orders (blind8-bulk-owned-by-submitting-application, blind8-wallet-refusal-cached-per-business)', () => {
  it("the run's new bulk is read by every other caller granted on the business (the limited application), on every read one id deeper than the creation", () => {
    expect(peerReadsCost(writeRowOn(undefined))).toBe(createdObjectRows(writeRowOn(undefined)).length);
    // With the limited application as the creator, the primary is the peer.
    expect(peerReadsCost(writeRowOn(undefined), 'limited')).toBe(2);
  });

  it('every read row: each caller refused on the business (no grant; the permission the limited application lacks), then the primary', () => {
    // other tenant on each of the four reads, the limited application on the wallet, the primary's four reads.
    expect(grantedAfterRefusalsCost()).toBe(4 + 1 + 4);
  });
});
