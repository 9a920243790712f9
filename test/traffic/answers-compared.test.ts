// The rules `check` gained for blind rounds 4 and 5, each on small hand-made traffic both ways (a
// faithful answer passes, the defect's answer fails): owners learned from the traffic, refusals of
// another business's object against an unknown id's, a generated request id, a wallet as_of against
// its answer's Date, listings of one bulk against its complete listing, reads against the 202.
import { describe, expect, it } from 'vitest';
import { readTrafficEnv } from '../../traffic/env.ts';
import { judgeTraffic } from '../../traffic/judge.ts';
import type { TrafficExchange } from '../../traffic/model.ts';

const MINE = '019a0000-0000-7000-8000-000000000001';
const THEIRS = '019a0000-0000-7000-8000-000000000002';
const api = (business: string) => `http://127.0.0.1:9/v1/businesses/${business}`;
const id = (n: number) => `019a0000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const BULK = id(0xb1);
let index = 0;

function ex(method: string, url: string, status: number, body?: unknown, options: { headers?: Record<string, string>; request?: unknown; response?: Record<string, string> } = {}): TrafficExchange {
  index += 1;
  return {
    index,
    source: `test ${index}`,
    request: { method, url, headers: { authorization: 'Bearer tok-aaaaaaaaaaaa', ...options.headers }, ...(options.request !== undefined ? { body: JSON.stringify(options.request) } : {}) },
    response: { status, headers: { 'x-request-id': `r${index}`, 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...options.response }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
  };
}

const problem = (status: number, code: string, detail: string) => ({ type: `https://p.test/${code}`, title: code, status, detail, code, request_id: `r${index + 1}`, instance: '/x' });
const row = (n: number, to = `+4477009000${String(n).padStart(2, '0')}`) => ({ id: id(0x100 + n), to, submission_status: 'sent', delivery_status: 'delivered', status_reason: null });
const listing = (rows: unknown[], next: string | null = null, limit = 100) => ({ data: rows, pagination: { limit, has_more: next !== null, next_cursor: next } });
const other = { headers: { 'x-conformance-caller': 'other-tenant' } };
const list = (business: string, query = '') => `${api(business)}/sms/bulk-messages/${BULK}/messages${query}`;

function check(traffic: TrafficExchange[], checkId: string) {
  const checks = judgeTraffic(traffic, { env: readTrafficEnv(undefined) }).result.topics.flatMap((t) => t.checks);
  const found = checks.find((c) => c.id === checkId);
  if (!found) throw new Error(`no check ${checkId}`);
  return { status: found.status, requirement: found.failure?.requirement };
}

describe('owners learned from the traffic (no env file)', () => {
  const theirs = ex('GET', list(THEIRS, '?limit=1'), 200, listing([row(1)]), other);
  it("fails another business's bulk listed under one's own (blind5-filtered-rows-skip-ownership), passes its refusal", () => {
    expect(check([theirs, ex('GET', list(MINE, '?status=queued'), 200, listing([]))], 'traffic/concealment/foreign-resources')).toEqual({ status: 'fail', requirement: 'CONC-CROSS-BUSINESS-BULK' });
    expect(check([theirs, ex('GET', list(MINE, '?status=queued'), 404, problem(404, 'resource_not_found', 'No bulk'))], 'traffic/concealment/foreign-resources').status).toBe('pass');
  });
  it("fails the order the other way round too: one of two businesses' answers is wrong", () => {
    expect(check([ex('GET', list(MINE, '?status=queued'), 200, listing([])), theirs], 'traffic/concealment/foreign-resources')).toEqual({ status: 'fail', requirement: 'CONC-CROSS-BUSINESS-BULK' });
  });
  it("fails another business's listed row read as a message (blind5-message-lookup-finds-listed-row)", () => {
    const read = (status: number, body: unknown) => ex('GET', `${api(MINE)}/sms/messages/${row(1).id}`, status, body);
    expect(check([theirs, read(200, { id: row(1).id, business_id: MINE })], 'traffic/concealment/foreign-resources')).toEqual({ status: 'fail', requirement: 'CONC-FOREIGN-OBJECT' });
    expect(check([theirs, read(404, problem(404, 'resource_not_found', 'No SMS message'))], 'traffic/concealment/foreign-resources').status).toBe('pass');
  });
  it("warns when another business's bulk is refused otherwise than an unknown one (blind4-foreign-rows-404-own-detail)", () => {
    const unknown = ex('GET', `${api(MINE)}/sms/bulk-messages/${id(0xdead)}/messages`, 404, problem(404, 'resource_not_found', `No bulk SMS message ${id(0xdead)} exists`));
    const foreign = (detail: string) => ex('GET', list(MINE), 404, problem(404, 'resource_not_found', detail));
    expect(check([unknown, theirs, foreign('This bulk SMS message is not accessible to this business.')], 'traffic/concealment/foreign-resources')).toEqual({ status: 'warn', requirement: 'CONC-FOREIGN-LIKE-UNKNOWN' });
    // The id a detail names is left out of the comparison.
    expect(check([unknown, theirs, foreign(`No bulk SMS message ${BULK} exists`)], 'traffic/concealment/foreign-resources').status).toBe('pass');
  });
  it('fails another business\'s bulk served the same once the answer that showed its owner was let go from the evidence held, naming its place', () => {
    // 2,048 answers showing other owners after it: the owners' hold keeps only the latest whole.
    const shownLater = Array.from({ length: 2048 }, (_, n) => ex('GET', `${api(id(0x20000 + n))}/sms/bulk-messages/${id(0x30000 + n)}`, 200, { id: id(0x30000 + n) }));
    const served = ex('GET', list(MINE, '?status=queued'), 200, listing([]));
    const checks = judgeTraffic([theirs, ...shownLater, served], { env: readTrafficEnv(undefined) }).result.topics.flatMap((t) => t.checks);
    const found = checks.find((c) => c.id === 'traffic/concealment/foreign-resources')!;
    expect(found).toMatchObject({ status: 'fail', failure: { requirement: 'CONC-CROSS-BUSINESS-BULK' } });
    expect(found.failure!.expected).toContain(`by ${theirs.source}, an answer no longer held`);
    expect(found.evidence.map((e) => e.request.url)).toEqual([served.request.url]);
  });
  it('judges it the same once the refusal was let go from the evidence held (a day of traffic), naming its place', () => {
    const foreign = ex('GET', list(MINE), 404, problem(404, 'resource_not_found', 'This bulk SMS message is not accessible to this business.'));
    // 2,048 refusals of other businesses after it: the hold keeps only the latest whole.
    const others = Array.from({ length: 2048 }, (_, n) => ex('GET', `${api(id(0x10000 + n))}/sms/bulk-messages/${id(0xdead)}`, 404, problem(404, 'resource_not_found', 'No bulk')));
    const unknown = ex('GET', `${api(MINE)}/sms/bulk-messages/${id(0xdead)}/messages`, 404, problem(404, 'resource_not_found', `No bulk SMS message ${id(0xdead)} exists`));
    const checks = judgeTraffic([theirs, foreign, ...others, unknown], { env: readTrafficEnv(undefined) }).result.topics.flatMap((t) => t.checks);
    const found = checks.find((c) => c.id === 'traffic/concealment/foreign-resources')!;
    expect(found).toMatchObject({ status: 'warn', failure: { requirement: 'CONC-FOREIGN-LIKE-UNKNOWN' } });
    expect(found.failure!.actual).toContain(`${foreign.source}: no longer held`);
    // The evidence still shows the refusal that was held.
    expect(found.evidence.map((e) => e.request.url)).toEqual([unknown.request.url]);
  });
});

describe('a generated request id', () => {
  const sent = ex('GET', `${api(MINE)}/wallet/balance`, 401, problem(401, 'authentication_required', 'x'), { headers: { 'x-request-id': 'client-id-1' }, response: { 'x-request-id': 'client-id-1' } });
  const missing = (returned: string) => ex('GET', `${api(MINE)}/wallet/balance`, 401, { ...problem(401, 'authentication_required', 'x'), request_id: returned }, { response: { 'x-request-id': returned } });
  it('fails the id another request sent (blind4-request-id-stale-when-missing), passes a new one', () => {
    expect(check([sent, missing('client-id-1')], 'traffic/request-id/every-response')).toEqual({ status: 'fail', requirement: 'RID-GENERATE-MISSING' });
    expect(check([sent, missing('gen-7f3a')], 'traffic/request-id/every-response').status).toBe('pass');
  });
});

describe('a wallet as_of against its answer', () => {
  const balance = (asOf: string) => ex('GET', `${api(MINE)}/wallet/balance`, 200, { business_id: MINE, business_name: 'Acme', currency: 'GBP', current_balance: '10.00', reserved_balance: '0.00', available_balance: '10.00', as_of: asOf }, { response: { date: 'Fri, 27 Nov 2026 11:30:34 GMT' } });
  it('fails an as_of an hour after the Date (blind4-wallet-as-of-local-labelled-utc), passes one within it', () => {
    expect(check([balance('2026-11-27T12:30:34.309Z')], 'traffic/wallet/balance-rules')).toEqual({ status: 'fail', requirement: 'WAL-AS-OF-UTC' });
    expect(check([balance('2026-11-27T11:30:34.309Z')], 'traffic/wallet/balance-rules').status).toBe('pass');
    // An older snapshot is the host's to give.
    expect(check([balance('2026-11-27T10:00:00Z')], 'traffic/wallet/balance-rules').status).toBe('pass');
  });
});

describe("listings of one bulk against its complete listing", () => {
  const submission = { from: 'Acme', classification: 'transactional', message: 'hi', recipients: [1, 2, 3, 4].map((n) => ({ to: row(n).to })) };
  const accepted = ex('POST', `${api(MINE)}/sms/bulk-messages`, 202, { id: BULK, business_id: MINE, from: 'Acme', classification: 'transactional', status: 'queued', settled: false, message: 'hi', template: null, accepted_at: '2026-01-01T00:00:00.123Z', intake: { good: 4, bad: 0, empty: 0 }, submission: null, delivery_summary: null, warnings: [] }, { headers: { 'idempotency-key': 'k1', 'content-type': 'application/json' }, request: submission, response: { location: `${api(MINE)}/sms/bulk-messages/${BULK}` } });
  const complete = ex('GET', list(MINE), 200, listing([row(1), row(2), row(3), row(4)]));
  const CONSISTENT = 'traffic/sequences/listing-consistent';
  it('fails a filtered listing with row ids the complete listing of every entry does not hold (blind4-filtered-rows-other-ids)', () => {
    const renamed = ex('GET', list(MINE, '?status=sent'), 200, listing([1, 2, 3, 4].map((n) => ({ ...row(n), id: id(0x900 + n) }))));
    expect(check([accepted, complete, renamed], CONSISTENT)).toEqual({ status: 'fail', requirement: 'SEQ-LISTING-CONSISTENT' });
    expect(check([accepted, complete, ex('GET', list(MINE, '?status=sent'), 200, listing([row(1), row(2), row(3), row(4)]))], CONSISTENT).status).toBe('pass');
    // Without the 202 the bulk may still be growing: a row the listing did not hold is not judged.
    expect(check([complete, renamed], CONSISTENT).status).toBe('pass');
  });
  it('fails a filtered listing in another order (blind5-filtered-listing-sorted-by-number)', () => {
    expect(check([complete, ex('GET', list(MINE, '?status=sent'), 200, listing([row(3), row(1)]))], CONSISTENT)).toEqual({ status: 'fail', requirement: 'SEQ-LISTING-CONSISTENT' });
    expect(check([complete, ex('GET', list(MINE, '?status=sent'), 200, listing([row(1), row(3)]))], CONSISTENT).status).toBe('pass');
  });
  it("warns when a walk's next page passes over rows (blind5-cursor-page-number), whatever page size each page asks", () => {
    const first = ex('GET', list(MINE, '?limit=2'), 200, listing([row(1), row(2)], 'C1', 2));
    const next = (rows: unknown[]) => ex('GET', list(MINE, '?limit=3&cursor=C1'), 200, listing(rows, null, 3));
    expect(check([complete, first, next([row(4)])], 'traffic/cursors/walk-visits-every-row')).toEqual({ status: 'warn', requirement: 'CUR-WALK' });
    expect(check([complete, first, next([row(3), row(4)])], 'traffic/cursors/walk-visits-every-row').status).toBe('pass');
  });
  it('reads keep what the 202 showed; a value only a refused repeat carried is SEQ-REPEAT-CHANGES-NOTHING (blind5-conflict-overwrites-message)', () => {
    const refused = ex('POST', `${api(MINE)}/sms/bulk-messages`, 409, problem(409, 'idempotency_conflict', 'used'), { headers: { 'idempotency-key': 'k1', 'content-type': 'application/json' }, request: { ...submission, message: 'bind' } });
    const read = (changes: Record<string, unknown>) => ex('GET', `${api(MINE)}/sms/bulk-messages/${BULK}`, 200, { ...JSON.parse(accepted.response.body!), ...changes });
    expect(check([accepted, refused, read({ message: 'bind' })], 'traffic/bulk-invariants/reads')).toEqual({ status: 'fail', requirement: 'SEQ-REPEAT-CHANGES-NOTHING' });
    expect(check([accepted, read({ accepted_at: '2026-01-01T00:00:07Z' })], 'traffic/bulk-invariants/reads')).toEqual({ status: 'fail', requirement: 'BULK-RETRIEVE' });
    // A template-based bulk shows no message at acceptance: a text on a read is judged only when a refused submission carried it.
    const templated = ex('POST', `${api(MINE)}/sms/bulk-messages`, 202, { ...JSON.parse(accepted.response.body!), message: null }, { headers: { 'idempotency-key': 'k1', 'content-type': 'application/json' }, request: submission });
    const readTemplated = (message: string) => ex('GET', `${api(MINE)}/sms/bulk-messages/${BULK}`, 200, { ...JSON.parse(templated.response.body!), message });
    expect(check([templated, refused, readTemplated('bind')], 'traffic/bulk-invariants/reads')).toEqual({ status: 'fail', requirement: 'SEQ-REPEAT-CHANGES-NOTHING' });
    expect(check([templated, refused, readTemplated('Your parcel is on its way')], 'traffic/bulk-invariants/reads').status).toBe('pass');
    // The acceptance time within a second (2.1 fixes no precision), intake left out: both faithful.
    expect(check([accepted, refused, read({ accepted_at: '2026-01-01T00:00:00Z', intake: null })], 'traffic/bulk-invariants/reads').status).toBe('pass');
  });
});

describe('a submission answered with another key\'s bulk, and a JSON label in another letter case', () => {
  const body = { from: 'Acme', classification: 'transactional', message: 'hi', recipients: [{ to: '+447700900001' }] };
  const bulk = (n: number) => ({ id: id(0xc00 + n), business_id: MINE, from: 'Acme', classification: 'transactional', status: 'queued', settled: false, message: 'hi', template: null, accepted_at: '2026-01-01T00:00:00Z', intake: { good: 1, bad: 0, empty: 0 }, submission: null, delivery_summary: null, warnings: [] });
  const submit = (key: string, status: number, answer: unknown, type = 'application/json') => ex('POST', `${api(MINE)}/sms/bulk-messages`, status, answer, { headers: { 'idempotency-key': key, 'content-type': type }, request: body, response: status === 202 ? { location: `${api(MINE)}/sms/bulk-messages/${(answer as { id: string }).id}` } : {} });
  it("fails a repeat of key A answered with key B's bulk (blind4-replay-serves-latest-response), whoever called; passes its own replay", () => {
    const traffic = [submit('A', 202, bulk(1)), submit('B', 202, bulk(2))];
    expect(check([...traffic, submit('A', 202, bulk(2))], 'traffic/idempotency/replay')).toEqual({ status: 'fail', requirement: 'SEQ-REPLAY-AFTER-ANY' });
    expect(check([...traffic, submit('A', 202, bulk(1))], 'traffic/idempotency/replay').status).toBe('pass');
  });
  it('fails a second bulk under a key after a conflict under it as SEQ-KEY-BOUND-TO-FIRST (blind5-key-released-after-conflict)', () => {
    const conflict = ex('POST', `${api(MINE)}/sms/bulk-messages`, 409, problem(409, 'idempotency_conflict', 'used'), { headers: { 'idempotency-key': 'A', 'content-type': 'application/json' }, request: { ...body, message: 'other' } });
    expect(check([submit('A', 202, bulk(1)), conflict, submit('A', 202, bulk(7))], 'traffic/idempotency/one-operation-per-key')).toEqual({ status: 'fail', requirement: 'SEQ-KEY-BOUND-TO-FIRST' });
    expect(check([submit('A', 202, bulk(1)), conflict, submit('A', 202, bulk(1))], 'traffic/idempotency/one-operation-per-key').status).toBe('pass');
  });
  it('fails a valid from refused by name (blind4-from-max-19); passes an invalid one refused', () => {
    const refused = { ...problem(400, 'validation_failed', 'from'), errors: [{ pointer: '/from', code: 'field_invalid' }] };
    const send = (from: string) => ex('POST', `${api(MINE)}/sms/bulk-messages`, 400, refused, { headers: { 'idempotency-key': `F${from.length}`, 'content-type': 'application/json' }, request: { ...body, from } });
    expect(check([send('A'.repeat(11))], 'traffic/validation/invalid-request-refused')).toEqual({ status: 'fail', requirement: 'VAL-FROM-LENGTH' });
    expect(check([send('A'.repeat(40))], 'traffic/validation/invalid-request-refused').status).toBe('pass');
  });
  it("fails a new key's first submission answered with an earlier key's bulk (blind5-content-dedupe-across-keys)", () => {
    expect(check([submit('A', 202, bulk(1)), submit('N', 202, bulk(1))], 'traffic/idempotency/one-operation-per-key')).toEqual({ status: 'fail', requirement: 'IDEM-SCOPE' });
    expect(check([submit('A', 202, bulk(1)), submit('N', 202, bulk(3))], 'traffic/idempotency/one-operation-per-key').status).not.toBe('fail');
  });
  it('fails a valid submission labelled Application/JSON refused by its Content-Type (blind5-media-type-case-sensitive); passes its 202', () => {
    const refused = { ...problem(400, 'validation_failed', 'must be application/json'), errors: [{ pointer: 'Content-Type', code: 'field_invalid' }] };
    expect(check([submit('C', 400, refused, 'Application/JSON')], 'traffic/validation/invalid-request-refused')).toEqual({ status: 'fail', requirement: 'BULK-ACCEPT-202' });
    expect(check([submit('D', 415, problem(415, 'validation_failed', 'x'), 'application/JSON; charset=utf-8')], 'traffic/validation/invalid-request-refused')).toEqual({ status: 'fail', requirement: 'BULK-ACCEPT-202' });
    expect(check([submit('E', 202, bulk(5), 'Application/JSON')], 'traffic/validation/invalid-request-refused').status).not.toBe('fail');
    // A body labelled otherwise is refused rightly.
    expect(check([submit('F', 400, refused, 'text/plain')], 'traffic/validation/invalid-request-refused').status).toBe('pass');
  });
});

describe("a 202's Location and a page's has_more", () => {
  const body = { from: 'Acme', classification: 'transactional', message: 'hi', recipients: [{ to: '+447700900001' }] };
  const accepted = { id: BULK, business_id: MINE, from: 'Acme', classification: 'transactional', status: 'queued', settled: false, message: 'hi', template: null, accepted_at: '2026-01-01T00:00:00Z', intake: { good: 1, bad: 0, empty: 0 }, submission: null, delivery_summary: null, warnings: [] };
  const submit = (location: string) => ex('POST', `${api(MINE)}/sms/bulk-messages`, 202, accepted, { headers: { 'idempotency-key': 'L', 'content-type': 'application/json' }, request: body, response: { location } });
  it('fails a Location naming the business in another letter case (blind4-location-business-upper-case); passes it as requested, relative or absolute', () => {
    expect(check([submit(`${api(MINE.toUpperCase())}/sms/bulk-messages/${BULK}`)], 'traffic/bulk-invariants/acceptance')).toEqual({ status: 'fail', requirement: 'BULK-LOCATION' });
    expect(check([submit(`${api(MINE)}/sms/bulk-messages/${BULK}`)], 'traffic/bulk-invariants/acceptance').status).toBe('pass');
    expect(check([submit(`/v1/businesses/${MINE}/sms/bulk-messages/${BULK}`)], 'traffic/bulk-invariants/acceptance').status).toBe('pass');
  });
  it('fails has_more true followed by an empty page of a number-filtered walk (blind4-has-more-counts-unfiltered-rows); a status filter\'s rows may change status', () => {
    const walk = (filter: string, rows: unknown[]) => [ex('GET', list(MINE, `?${filter}&limit=1`), 200, listing([row(1)], 'C9', 1)), ex('GET', list(MINE, `?${filter}&limit=1&cursor=C9`), 200, listing(rows, null, 1))];
    expect(check(walk('to=%2B447700900001', []), 'traffic/cursors/page-truthful')).toEqual({ status: 'fail', requirement: 'CUR-HAS-MORE' });
    expect(check(walk('to=%2B447700900001', [row(1)]), 'traffic/cursors/page-truthful').status).toBe('pass');
    expect(check(walk('status=sent', []), 'traffic/cursors/page-truthful').status).toBe('pass');
  });
});

describe('answers no operation gives to a valid request', () => {
  const VALIDITY = 'traffic/validation/invalid-request-refused';
  const message = `${api(MINE)}/sms/messages/${id(0x5)}`;
  it('fails a 304 to a read that asked no condition (blind5-message-repeat-read-304); passes one to a conditional read', () => {
    expect(check([ex('GET', message, 304)], VALIDITY)).toEqual({ status: 'fail', requirement: 'MSG-RETRIEVE' });
    expect(check([ex('GET', message, 304, undefined, { headers: { 'if-none-match': '"v1"' } })], VALIDITY).status).not.toBe('fail');
  });
  it('fails a deactivation refused over an Idempotency-Key it does not take (blind5-webhook-idempotency-key-required, blind5-webhook-busy-while-bulk-in-flight)', () => {
    const endpoint = `${api(MINE)}/webhook-endpoints/${id(0xe1)}`;
    const named = { ...problem(400, 'validation_failed', 'key required'), errors: [{ pointer: 'Idempotency-Key', code: 'field_invalid' }] };
    expect(check([ex('DELETE', endpoint, 400, named)], VALIDITY)).toEqual({ status: 'fail', requirement: 'HOOK-DEACTIVATE-204' });
    expect(check([ex('DELETE', endpoint, 409, problem(409, 'idempotency_conflict', 'in flight'))], VALIDITY)).toEqual({ status: 'fail', requirement: 'HOOK-DEACTIVATE-204' });
    expect(check([ex('DELETE', endpoint, 204)], VALIDITY).status).not.toBe('fail');
  });
});

describe('a bearer credential of more parts than the token', () => {
  const AUTH = 'traffic/auth-ordering/no-usable-token-401';
  const read = (authorization: string, status: number, body: unknown) => ex('GET', `${api(MINE)}/wallet/balance`, status, body, { headers: { authorization } });
  const balance = { business_id: MINE, business_name: 'Acme', currency: 'GBP', current_balance: '1.00', reserved_balance: '0.00', available_balance: '1.00', as_of: '2026-01-01T00:00:00Z' };
  it('fails a 200 to Bearer <token> <more> (blind5-bearer-extra-parts-accepted), as a recorder that keeps the parts\' count writes it too; passes its 401', () => {
    expect(check([read('Bearer tok-aaaaaaaaaaaa extra', 200, balance)], AUTH)).toEqual({ status: 'fail', requirement: 'AUTH-401-INVALID' });
    expect(check([read('Bearer <redacted> <redacted>', 200, balance)], AUTH)).toEqual({ status: 'fail', requirement: 'AUTH-401-INVALID' });
    expect(check([read('Bearer tok-aaaaaaaaaaaa extra', 401, problem(401, 'authentication_required', 'x'))], AUTH).status).toBe('pass');
    // One token, however many spaces before it (RFC 6750: 1*SP), is no malformed credential.
    expect(check([read('Bearer   tok-aaaaaaaaaaaa', 200, balance)], AUTH).status).not.toBe('fail');
  });
});
