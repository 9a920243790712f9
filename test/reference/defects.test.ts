// The defect registry: at least 40 defects over all 14 topics, each naming a catalogue id, and
// each one observable: its probe finds the rule intact on the faithful reference and broken with
// the defect switched on (and nothing else).
import { describe, expect, it } from 'vitest';
import { DEFECTS, type MainDefectId as DefectId } from '../../reference/defects.ts';
import { startReference } from '../../reference/index.ts';
import { TOPICS } from '../../core/model.ts';
import { requirementById } from '../../spec/requirements.ts';
import { RANDOM_V7, UTC_Z, UUID_V7, basic, freshKey, holdsProbesBothWays, messageBody, sleep, templateBody, type Harness, type Reply } from './helpers.ts';

const DAY = 24 * 3600 * 1000;
const MONEY = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
const advance = (h: Harness, ms: number) => h.control('POST', '/clock/advance', { ms });
/** Template variables filling every placeholder of the fixture template with `value`. */
const vars = (h: Harness, value: (p: string) => unknown) => Object.fromEntries(h.f.templatePlaceholders.map((p) => [p, value(p)]));
const many = (h: Harness, n: number) => Array.from({ length: n }, (_, i) => ({ to: h.f.recipients[i % h.f.recipients.length]! }));
const wallet = (h: Harness, as: 'primary' | 'limited' = 'primary', headers: Record<string, string> = {}) => h.call('GET', h.paths.wallet(h.b), { as, headers });
const rows = (h: Harness, query: Record<string, string>, bulk = h.f.expiredCursorBulkId, business = h.b) => h.call('GET', h.paths.rows(business, bulk), { query });
/** A body refused with 400 validation_failed for its first recipient's number. */
const badNumber = (h: Harness) => h.submit(messageBody(h, { recipients: [{ to: 'not-a-number' }] }));
const errorsOf = (r: Reply): Array<Record<string, unknown>> => (Array.isArray(r.json?.errors) ? r.json.errors : []);
/** Header names of an answer, leaving out those that differ between any two answers (date, length, request id). */
const headerNames = (r: Reply) =>
  [...r.headers.keys()].filter((k) => !['date', 'content-length', 'x-request-id'].includes(k)).sort().join(',');
const typeBase = (r: Reply) => String(r.json.type).slice(0, -String(r.json.code).length - 1);
const BULK_STATUSES = ['created', 'scheduled', 'queued', 'processing', 'paused', 'completed', 'failed', 'cancelled'];
/** A three-recipient bulk read once its delivery reporting is on (2 s after acceptance). */
async function settledBulk(h: Harness): Promise<any> {
  const r = await h.submit(messageBody(h));
  await advance(h, 2000);
  return (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json;
}
async function withFault<T>(h: Harness, fault: Record<string, unknown>, reset: Record<string, unknown>, run: () => Promise<T>): Promise<T> {
  await h.control('POST', '/faults', fault);
  try {
    return await run();
  } finally {
    await h.control('POST', '/faults', reset);
  }
}

/** Whether `run` created a bulk (counted through the control origin). */
async function createdBy(h: Harness, run: () => Promise<unknown>): Promise<boolean> {
  const before = (await h.control('GET', '/state/counts')).bulkMessages;
  await run();
  return (await h.control('GET', '/state/counts')).bulkMessages !== before;
}
/** A client-credentials request of the primary application, straight to the token endpoint. */
async function tokenRequest(h: Harness): Promise<Reply> {
  const { clientId, clientSecret } = h.ref.apps.primary;
  const res = await fetch(h.ref.tokenUrl, {
    method: 'POST',
    headers: { authorization: basic(clientId, clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&audience=service-external-api',
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

/** Each probe answers: is the rule this defect targets broken on this reference? */
const probes: Record<DefectId, (h: Harness) => Promise<boolean>> = {
  // auth-ordering
  'validation-before-auth': async (h) => (await h.call('POST', h.paths.bulks(h.b), { as: 'none', body: '{bad', headers: { 'content-type': 'application/json' } })).status !== 401,
  'not-found-before-auth': async (h) => (await h.call('GET', h.paths.wallet(RANDOM_V7), { as: 'none' })).status !== 401,
  'wrong-audience-accepted': async (h) => {
    const token = (await h.control('POST', '/tokens', { kind: 'wrong-audience' })).access_token;
    return (await h.call('GET', h.paths.wallet(h.b), { as: { bearer: token } })).status !== 401;
  },
  'expired-token-accepted': async (h) => {
    const token = (await h.control('POST', '/tokens', { kind: 'expired' })).access_token;
    return (await h.call('GET', h.paths.wallet(h.b), { as: { bearer: token } })).status !== 401;
  },
  'message-ownership-before-grant': async (h) => {
    const existing = await h.call('GET', h.paths.message(h.f.otherBusinessId, h.f.foreignMessageId));
    const unknown = await h.call('GET', h.paths.message(h.f.otherBusinessId, RANDOM_V7));
    return existing.status !== unknown.status;
  },
  'message-lookup-conceals-grant': async (h) =>
    (await h.call('GET', h.paths.message(h.f.otherBusinessId, RANDOM_V7))).status !== (await h.call('GET', h.paths.wallet(h.f.otherBusinessId))).status,
  'grant-not-checked': async (h) => (await h.call('GET', h.paths.wallet(h.f.otherBusinessId))).status === 200,
  'missing-token-403': async (h) => (await wallet(h, 'primary').then(() => h.call('GET', h.paths.wallet(h.b), { as: 'none' }))).status !== 401,
  'token-secret-prefix-accepted': async (h) => {
    const { clientId, clientSecret } = h.ref.apps.primary;
    const res = await fetch(h.ref.tokenUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}-wrong`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    return res.status === 200;
  },
  'token-audience-url': async (h) => {
    const token = await h.token('primary');
    const aud = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).aud;
    return aud !== 'service-external-api' && (await wallet(h)).status === 200;
  },
  'unknown-path-unauthenticated-500': async (h) => (await h.call('GET', `/v1/businesses/${h.b}/sms/batches`, { as: 'none' })).status >= 500,
  'any-scheme-token-accepted': async (h) => (await h.call('GET', h.paths.wallet(h.b), { as: { authorization: `Token ${await h.token('primary')}` } })).status !== 401,
  'bare-bearer-500': async (h) => (await h.call('GET', h.paths.wallet(h.b), { as: { authorization: 'Bearer' } })).status !== 401,
  'grant-before-signature': async (h) => {
    const token = await h.token('primary');
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    return (await h.call('GET', h.paths.wallet(h.f.otherBusinessId), { as: { bearer: tampered } })).status !== 401;
  },
  'submission-without-token-403': async (h) => (await h.submit(messageBody(h), { as: 'none' })).status !== 401,
  'ungranted-listing-lookup-500': async (h) => (await h.call('GET', h.paths.rows(h.f.otherBusinessId, RANDOM_V7))).status >= 500,
  'token-reissue-refused': async (h) => {
    await h.token('primary');
    return (await tokenRequest(h)).status !== 200;
  },
  'token-reissue-unpublished-key': async (h) => {
    await h.token('primary');
    const second = await tokenRequest(h);
    return (await h.call('GET', h.paths.wallet(h.b), { as: { bearer: second.json.access_token } })).status === 401;
  },
  // idempotency
  'replay-new-id-on-reordered-keys': async (h) => {
    const key = freshKey();
    const body = messageBody(h);
    const first = await h.submit(body, { key });
    const again = await h.submit(Object.fromEntries(Object.entries(body).reverse()), { key });
    return again.status === 202 && again.json.id !== first.json.id;
  },
  'equivalent-json-conflict': async (h) => {
    const key = freshKey();
    const body = messageBody(h);
    await h.submit(body, { key });
    return (await h.submit(Object.fromEntries(Object.entries(body).reverse()), { key })).status === 409;
  },
  'idempotency-conflict-ignored': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h, { message: 'other' }), { key })).status !== 409;
  },
  'idempotency-key-optional': async (h) => (await h.call('POST', h.paths.bulks(h.b), { json: messageBody(h) })).status !== 400,
  'expired-key-creates-new': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await advance(h, 8 * DAY);
    const again = await h.submit(messageBody(h), { key });
    return again.status === 202 && again.json.id !== first.json.id;
  },
  'idempotency-scope-ignores-application': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    const other = await h.submit(messageBody(h), { key, as: 'limited' });
    return other.json?.id === first.json.id;
  },
  'replay-window-one-day': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    await advance(h, 2 * DAY);
    return (await h.submit(messageBody(h), { key })).status !== 202;
  },
  'replay-without-location': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    const again = await h.submit(messageBody(h), { key });
    return again.headers.get('location') !== first.headers.get('location');
  },
  'identical-repeat-refused-422': async (h) => {
    const key = freshKey();
    const body = messageBody(h);
    await h.submit(body, { key });
    return (await h.submit(body, { key })).status === 422;
  },
  'idempotency-key-max-255': async (h) => (await h.submit(messageBody(h), { key: 'k'.repeat(256) })).status !== 202,
  'idempotency-key-recorded-late': async (h) => {
    const key = freshKey();
    const answers = await Promise.all([0, 1, 2, 3].map(() => h.submit(messageBody(h), { key })));
    return new Set(answers.filter((r) => r.status === 202).map((r) => r.json.id)).size > 1;
  },
  'replay-creates-bulk': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return createdBy(h, () => h.submit(messageBody(h), { key }));
  },
  'equivalent-repeat-creates-bulk': async (h) => {
    const key = freshKey();
    const body = messageBody(h);
    await h.submit(body, { key });
    return createdBy(h, () => h.call('POST', h.paths.bulks(h.b), { body: JSON.stringify(body, null, 2), headers: { 'content-type': 'application/json', 'idempotency-key': key } }));
  },
  'conflict-with-location': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h, { message: 'other' }), { key })).headers.get('location') !== null;
  },
  'conflict-creates-bulk': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return createdBy(h, () => h.submit(messageBody(h, { message: 'other' }), { key }));
  },
  'conflict-rebinds-key': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, { message: 'other' }), { key });
    return (await h.submit(messageBody(h), { key })).status !== 202;
  },
  'key-missing-refused-after-save': (h) => createdBy(h, () => h.call('POST', h.paths.bulks(h.b), { json: messageBody(h) })),
  'idempotency-key-min-2': async (h) => (await h.submit(messageBody(h), { key: 'z' })).status === 400,
  'idempotency-key-257-accepted': async (h) => (await h.submit(messageBody(h), { key: 'k'.repeat(257) })).status !== 400,
  'key-too-long-refused-after-save': (h) => createdBy(h, () => h.submit(messageBody(h), { key: 'k'.repeat(300) })),
  'idempotency-key-taken-by-other-application': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h), { key, as: 'limited' })).status !== 202;
  },
  'concurrent-same-key-500': async (h) => {
    const key = freshKey();
    const answers = await Promise.all([0, 1, 2, 3].map(() => h.submit(messageBody(h), { key })));
    return answers.some((r) => r.status >= 500);
  },
  'expired-key-500': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    await advance(h, 8 * DAY);
    return (await h.submit(messageBody(h), { key })).status >= 500;
  },
  'expired-key-refused-after-save': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    await advance(h, 8 * DAY);
    return createdBy(h, () => h.submit(messageBody(h), { key }));
  },
  // recipient-limits
  'recipient-limit-1001-accepted': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).status !== 422,
  'recipient-limit-status-400': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).status !== 422,
  'recipient-limit-counts-unique': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).status !== 422,
  'recipient-limit-after-entry-validation': async (h) =>
    (await h.submit(messageBody(h, { recipients: [...many(h, 1000), { to: 'nope' }] }))).status !== 422,
  'recipient-limit-creates-bulk': async (h) => {
    const before = (await h.control('GET', '/state/counts')).bulkMessages;
    await h.submit(messageBody(h, { recipients: many(h, 1001) }));
    return (await h.control('GET', '/state/counts')).bulkMessages !== before;
  },
  'zero-recipients-accepted': async (h) => (await h.submit(messageBody(h, { recipients: [] }))).status !== 400,
  'recipient-limit-999': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1000) }))).status !== 202,
  'recipient-limit-billed': async (h) => {
    const before = (await wallet(h)).json.current_balance;
    await h.submit(messageBody(h, { recipients: many(h, 1001) }));
    return (await wallet(h)).json.current_balance !== before;
  },
  'recipient-limit-location': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).headers.get('location') !== null,
  'recipient-limit-id-in-problem': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).json.id !== undefined,
  'zero-recipients-creates-bulk': async (h) => {
    const before = (await h.control('GET', '/state/counts')).bulkMessages;
    await h.submit(messageBody(h, { recipients: [] }));
    return (await h.control('GET', '/state/counts')).bulkMessages !== before;
  },
  // cursors
  'cursor-not-bound-to-status-filter': async (h) => {
    const first = await rows(h, { status: 'failed', limit: '5' });
    return (await rows(h, { status: 'delivered', cursor: first.json.pagination.next_cursor })).status !== 400;
  },
  'omitted-filters-dropped': async (h) => {
    const first = await rows(h, { status: 'failed', limit: '5' });
    const next = await rows(h, { cursor: first.json.pagination.next_cursor, limit: '20' });
    return next.json.data.some((row: any) => row.submission_status !== 'failed' && row.delivery_status !== 'failed');
  },
  'cursor-not-bound-to-bulk': async (h) => {
    const other = await h.submit(messageBody(h));
    const cursor = (await rows(h, { limit: '5' })).json.pagination.next_cursor;
    return (await rows(h, { cursor }, other.json.id)).status !== 400;
  },
  'expired-cursor-accepted': async (h) => (await rows(h, { cursor: h.f.expiredCursor })).status !== 400,
  'undecodable-cursor-first-page': async (h) => (await rows(h, { cursor: 'not-a-cursor-at-all' })).status !== 400,
  'page-size-default-50': async (h) => (await rows(h, {})).json.pagination.limit !== 100,
  'limit-1001-accepted': async (h) => (await rows(h, { limit: '1001' })).status !== 400,
  'page-size-max-999': async (h) => (await rows(h, { limit: '1000' })).status !== 200,
  'empty-cursor-500': async (h) => (await rows(h, { cursor: '' })).status >= 500,
  'number-filter-ignored': async (h) => {
    const to = (await rows(h, { limit: '1' })).json.data[0].to;
    return (await rows(h, { to, limit: '1000' })).json.data.some((row: any) => row.to !== to);
  },
  'unknown-status-filter-ignored': async (h) => (await rows(h, { status: 'bounced' })).status === 200,
  'unknown-status-matches-nothing': async (h) => {
    const res = await rows(h, { status: 'bounced' });
    return res.status === 200 && res.json.data.length === 0;
  },
  'invalid-number-filter-ignored': async (h) => {
    const res = await rows(h, { to: '12345' });
    return res.status === 200 && res.json.data.length > 0;
  },
  'invalid-number-matches-nothing': async (h) => {
    const res = await rows(h, { to: '12345' });
    return res.status === 200 && res.json.data.length === 0;
  },
  'filter-shape-500': async (h) => (await rows(h, { status: 'bounced' })).status >= 500 || (await rows(h, { to: '12345' })).status >= 500,
  'rows-path-serves-bulk': async (h) => !Array.isArray((await rows(h, {})).json.data),
  'has-more-omitted-on-last-page': async (h) => typeof (await rows(h, { limit: '1000' })).json.pagination.has_more !== 'boolean',
  'last-page-offers-cursor': async (h) => {
    const last = (await rows(h, { limit: '1000' })).json.pagination;
    return last.has_more === false && typeof last.next_cursor === 'string';
  },
  'has-more-counts-whole-listing': async (h) => {
    const first = await rows(h, { limit: '200' });
    const last = (await rows(h, { limit: '200', cursor: first.json.pagination.next_cursor })).json.pagination;
    return last.has_more === true && !last.next_cursor;
  },
  'page-limit-reports-default': async (h) => (await rows(h, { limit: '5' })).json.pagination.limit !== 5,
  'page-one-row-over': async (h) => {
    const page = (await rows(h, { limit: '5' })).json;
    return page.data.length > page.pagination.limit;
  },
  'default-page-uncut': async (h) => {
    const page = (await rows(h, {})).json;
    return page.data.length > page.pagination.limit;
  },
  'page-size-parse-500': async (h) => (await rows(h, { limit: 'ten' })).status >= 500,
  'page-size-zero-served': async (h) => {
    const r = await rows(h, { limit: '0' });
    return r.status === 200 && !(r.json.pagination.limit >= 1);
  },
  'page-size-zero-unlimited': async (h) => {
    const r = await rows(h, { limit: '0' });
    return r.status === 200 && r.json.data.length > r.json.pagination.limit;
  },
  'page-size-zero-default': async (h) => (await rows(h, { limit: '0' })).status !== 400,
  'page-size-error-body-pointer': async (h) => !(await rows(h, { limit: '1001' })).json.errors.some((e: any) => e.pointer === 'limit'),
  'cursor-not-advanced': async (h) => {
    const first = await rows(h, { limit: '5' });
    const second = await rows(h, { limit: '5', cursor: first.json.pagination.next_cursor });
    const third = await rows(h, { limit: '5', cursor: second.json.pagination.next_cursor });
    return third.json.data[0].id === second.json.data[0].id;
  },
  'cursor-skips-row': async (h) => {
    const first = await rows(h, { limit: '5' });
    const second = await rows(h, { limit: '5', cursor: first.json.pagination.next_cursor });
    const both = (await rows(h, { limit: '10' })).json.data.map((row: any) => row.id);
    return [...first.json.data, ...second.json.data].map((row: any) => row.id).join() !== both.join();
  },
  'tampered-cursor-403': async (h) => {
    const cursor: string = (await rows(h, { limit: '5' })).json.pagination.next_cursor;
    return (await rows(h, { limit: '5', cursor: cursor.slice(0, -1) })).status !== 400;
  },
  'omitted-filters-not-found': async (h) => {
    const first = await rows(h, { status: 'failed', limit: '5' });
    return (await rows(h, { cursor: first.json.pagination.next_cursor, limit: '5' })).status !== 200;
  },
  'status-queued-includes-sent': async (h) =>
    (await rows(h, { status: 'queued', limit: '1000' })).json.data.some((row: any) => row.submission_status !== 'queued' && row.delivery_status !== 'queued'),
  'status-filter-upper-case': async (h) => (await rows(h, { status: 'sent', limit: '1000' })).json.data.length === 0,
  'number-filter-without-plus': async (h) => {
    const to = (await rows(h, { limit: '1' })).json.data[0].to;
    return (await rows(h, { to, limit: '1000' })).json.data.length === 0;
  },
  // bulk-invariants
  'settled-true-with-retries-some-bulks': async (h) => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await h.submit(messageBody(h, {}, 4))).json.id);
    await advance(h, 500);
    for (const id of ids) {
      const b = (await h.call('GET', h.paths.bulk(h.b, id))).json;
      if (b.submission.retryable_failed_count > 0 && b.settled === true) return true;
    }
    return false;
  },
  'settled-ignores-status': async (h) => {
    const r = await h.submit(messageBody(h, {}, 1));
    await advance(h, 350);
    const b = (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json;
    return b.status !== 'completed' && b.settled === true;
  },
  'invented-zero-delivery-summary': async (h) => {
    const r = await h.submit(messageBody(h));
    await advance(h, 200);
    return (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.delivery_summary !== null;
  },
  'missing-unavailable-warning': async (h) => {
    const r = await h.submit(messageBody(h));
    await advance(h, 200);
    const b = (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json;
    return b.delivery_summary === null && b.warnings.length === 0;
  },
  'acceptance-submission-zeros': async (h) => (await h.submit(messageBody(h))).json.submission !== null,
  'acceptance-intake-zeros': async (h) => {
    const intake = (await h.submit(messageBody(h))).json.intake;
    return intake !== null && intake.good + intake.bad + intake.empty === 0;
  },
  'processed-from-lagging-replica': async (h) => {
    // Mid-processing (300 ms after acceptance) two of the three entries are processed.
    const r = await h.submit(messageBody(h));
    await advance(h, 300);
    const first = (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.submission?.processed ?? 0;
    const second = (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.submission?.processed ?? 0;
    return second < first;
  },
  'bulk-unreadable-while-queued': async (h) => (await h.call('GET', h.paths.bulk(h.b, (await h.submit(messageBody(h))).json.id))).status !== 200,
  'message-at-maximum-500': async (h) => (await h.submit(messageBody(h, { message: 'm'.repeat(4096) }))).status >= 500,
  'blank-message-500': async (h) => (await h.submit(messageBody(h, { message: '   ' }))).status >= 500,
  'template-variables-scalar-500': async (h) => (await h.submit(templateBody(h, { recipients: [{ to: h.f.recipients[0]!, template_variables: true as unknown as Record<string, string> }] }))).status >= 500,
  'bearer-scheme-case-500': async (h) => (await h.call('GET', h.paths.wallet(h.b), { as: { authorization: `bearer ${await h.token('primary')}` } })).status >= 500,
  'summary-as-of-lagging-replica': async (h) => {
    // Delivery reporting is on 600 ms after acceptance; the second read goes to the replica.
    const r = await h.submit(messageBody(h));
    await advance(h, 900);
    const first = (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.delivery_summary.as_of;
    const second = (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.delivery_summary.as_of;
    return Date.parse(second) < Date.parse(first);
  },
  'cursor-repeat-starts-later': async (h) => {
    const cursor = (await rows(h, { limit: '10' })).json.pagination.next_cursor;
    const first = (await rows(h, { limit: '10', cursor })).json.data[0].id;
    return (await rows(h, { limit: '10', cursor })).json.data[0].id !== first;
  },
  'filtered-later-pages-unfiltered': async (h) => {
    const cursor = (await rows(h, { status: 'delivered', limit: '2' })).json.pagination.next_cursor;
    const page = (await rows(h, { status: 'delivered', limit: '2', cursor })).json.data as Array<{ submission_status: string; delivery_status: string }>;
    return page.some((r) => r.submission_status !== 'delivered' && r.delivery_status !== 'delivered');
  },
  'acceptance-status-processing': async (h) => (await h.submit(messageBody(h))).json.status !== 'queued',
  'outcomes-exceed-recipients': async (h) => {
    const r = await h.submit(messageBody(h, {}, 3));
    await advance(h, 2000);
    return (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.delivery_summary.outcomes_resolved > 3;
  },
  'location-missing': async (h) => (await h.submit(messageBody(h))).headers.get('location') === null,
  'bulk-template-pin-dropped': async (h) => (await h.submit(templateBody(h))).json.template === null,
  'template-pin-follows-active-revision': async (h) => {
    const r = await h.submit(templateBody(h));
    await h.control('POST', `/templates/${h.f.templateId}/revise`);
    return (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.template.revision_id !== r.json.template.revision_id;
  },
  'invented-zero-counts': async (h) => {
    const r = await h.submit(messageBody(h));
    await advance(h, 500);
    return withFault(h, { countsUnavailable: true }, { countsUnavailable: false }, async () => {
      const b = (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json;
      return b.intake !== null || b.submission !== null;
    });
  },
  'bulk-status-in-progress': async (h) => {
    const r = await h.submit(messageBody(h, {}, 1));
    await advance(h, 200);
    return !BULK_STATUSES.includes((await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.status);
  },
  'retryable-count-omitted-when-zero': async (h) => {
    const r = await h.submit(messageBody(h, {}, 1));
    await advance(h, 1000);
    const b = (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json;
    return b.settled === true && typeof b.submission?.retryable_failed_count !== 'number';
  },
  'delivery-summary-without-complete': async (h) => !('complete' in (await settledBulk(h)).delivery_summary),
  'delivery-summary-as-of-epoch': async (h) => typeof (await settledBulk(h)).delivery_summary.as_of !== 'string',
  'outcomes-resolved-as-string': async (h) => !Number.isInteger((await settledBulk(h)).delivery_summary.outcomes_resolved),
  'bulk-accepted-201': async (h) => (await h.submit(templateBody(h))).status !== 202,
  'message-bulk-answered-200': async (h) => (await h.submit(messageBody(h))).status !== 202,
  'acceptance-empty-body': async (h) => typeof (await h.submit(messageBody(h))).json !== 'object',
  'acceptance-id-omitted': async (h) => typeof (await h.submit(messageBody(h))).json.id !== 'string',
  'acceptance-delivery-summary-zeros': async (h) => (await h.submit(messageBody(h))).json.delivery_summary !== null,
  'acceptance-settled-null': async (h) => (await h.submit(messageBody(h))).json.settled !== false,
  'acceptance-unavailable-warning': async (h) => (await h.submit(messageBody(h))).json.warnings.length > 0,
  'bulk-business-id-is-bulk-id': async (h) => (await h.submit(messageBody(h))).json.business_id !== h.b,
  'sender-upper-case': async (h) => (await h.submit(messageBody(h))).json.from !== h.f.senderId,
  'classification-swapped': async (h) => (await h.submit(messageBody(h))).json.classification !== 'transactional',
  'bulk-message-dropped': async (h) => (await h.submit(messageBody(h))).json.message !== messageBody(h).message,
  'location-status-monitor': async (h) => {
    const r = await h.submit(messageBody(h));
    return r.headers.get('location') !== h.paths.bulk(h.b, r.json.id);
  },
  'location-collection-path': async (h) => {
    const r = await h.submit(messageBody(h));
    return r.headers.get('location') !== h.paths.bulk(h.b, r.json.id);
  },
  'location-points-to-rows': async (h) => {
    const r = await h.submit(messageBody(h));
    return r.headers.get('location') !== h.paths.bulk(h.b, r.json.id);
  },
  'bulk-read-id-is-row-id': async (h) => {
    const r = await h.submit(messageBody(h));
    return (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.id !== r.json.id;
  },
  'template-revised-bulk-read-500': async (h) => {
    const r = await h.submit(templateBody(h));
    await h.control('POST', `/templates/${h.f.templateId}/revise`);
    return (await h.call('GET', h.paths.bulk(h.b, r.json.id))).status !== 200;
  },
  'retrying-bulk-read-500': async (h) => {
    const r = await h.submit(messageBody(h, {}, 3));
    await advance(h, 500);
    return (await h.call('GET', h.paths.bulk(h.b, r.json.id))).status !== 200;
  },
  'counts-unavailable-read-500': async (h) => {
    const r = await h.submit(messageBody(h));
    return withFault(h, { countsUnavailable: true }, { countsUnavailable: false }, async () => (await h.call('GET', h.paths.bulk(h.b, r.json.id))).status !== 200);
  },
  'settled-true-without-counts': async (h) => {
    const r = await h.submit(messageBody(h, {}, 1));
    await advance(h, 1000);
    return withFault(h, { countsUnavailable: true }, { countsUnavailable: false }, async () => (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.settled === true);
  },
  'bulk-pin-revision-new-id': async (h) => {
    const r = await h.submit(templateBody(h));
    const revision = await h.control('POST', `/templates/${h.f.templateId}/revise`);
    return r.json.template.revision_id !== revision.previous_revision_id;
  },
  'message-bulk-empty-pin': async (h) => (await h.submit(messageBody(h))).json.template !== null,
  'message-bulk-pin-on-read': async (h) => {
    const r = await h.submit(messageBody(h));
    return (await h.call('GET', h.paths.bulk(h.b, r.json.id))).json.template !== null;
  },
  // wallet
  'reserved-nonzero-every-tenth-read': async (h) => {
    for (let i = 0; i < 10; i++) if ((await wallet(h)).json.reserved_balance !== '0.00') return true;
    return false;
  },
  'available-differs-from-current': async (h) => {
    const w = (await wallet(h)).json;
    return w.available_balance !== w.current_balance;
  },
  'wallet-unavailable-invents-zero': (h) => withFault(h, { walletUnavailable: true }, { walletUnavailable: false }, async () => (await wallet(h)).status === 200),
  'wallet-unavailable-500': (h) => withFault(h, { walletUnavailable: true }, { walletUnavailable: false }, async () => (await wallet(h)).status !== 503),
  'wallet-permission-not-checked': async (h) => (await wallet(h, 'limited')).status === 200,
  'wallet-balance-as-number': async (h) => typeof (await wallet(h)).json.current_balance !== 'string',
  'wallet-business-name-missing': async (h) => !('business_name' in (await wallet(h)).json),
  'wallet-currency-lower-case': async (h) => !/^[A-Z]{3}$/.test((await wallet(h)).json.currency),
  'wallet-as-of-not-utc': async (h) => !String((await wallet(h)).json.as_of).endsWith('Z'),
  'wallet-business-id-is-snapshot-id': async (h) => (await wallet(h)).json.business_id !== h.b,
  'wallet-grant-any-business': async (h) => (await h.call('GET', h.paths.wallet(h.f.otherBusinessId))).status === 200,
  'wallet-unchanged-204': async (h) => {
    await wallet(h);
    return (await wallet(h)).status !== 200;
  },
  'wallet-business-name-empty': async (h) => String((await wallet(h)).json.business_name).length === 0,
  // concealment
  'foreign-message-404-extra-property': async (h) => {
    const foreign = await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId));
    const random = await h.call('GET', h.paths.message(h.b, RANDOM_V7));
    return Object.keys(foreign.json).sort().join() !== Object.keys(random.json).sort().join();
  },
  'foreign-message-403': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))).status !== 404,
  'foreign-message-disclosed': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))).status === 200,
  'recipients-listing-foreign-bulk': async (h) => (await h.call('GET', h.paths.rows(h.b, h.ref.extras.otherBusinessBulkId))).status === 200,
  'submission-grant-of-own-business': async (h) =>
    (await h.call('POST', h.paths.bulks(h.f.otherBusinessId), { json: messageBody(h), headers: { 'idempotency-key': freshKey() } })).status === 202,
  'unknown-bulk-before-auth': async (h) => (await h.call('GET', h.paths.bulk(h.b, RANDOM_V7), { as: 'none' })).status !== 401,
  'invalid-token-wallet-403': async (h) => (await h.call('GET', h.paths.wallet(h.b), { as: { bearer: 'not-a-token' } })).status !== 401,
  'bulk-business-from-resource': async (h) => (await h.call('GET', h.paths.bulk(h.f.otherBusinessId, h.f.expiredCursorBulkId))).status === 200,
  'wallet-permission-concealed-404': async (h) => (await wallet(h, 'limited')).status !== 403,
  'foreign-bulk-403': async (h) =>
    (await h.call('GET', h.paths.bulk(h.b, h.ref.extras.otherBusinessBulkId))).status !== (await h.call('GET', h.paths.bulk(h.b, RANDOM_V7))).status,
  'bulk-404-names-owner': async (h) => (await h.call('GET', h.paths.bulk(h.b, h.ref.extras.otherBusinessBulkId))).text.includes(h.f.otherBusinessId),
  'recipients-unknown-bulk-empty-page': async (h) => (await h.call('GET', h.paths.rows(h.b, RANDOM_V7))).status === 200,
  'endpoint-lookup-before-grant': async (h) =>
    (await h.call('DELETE', h.paths.webhook(h.f.otherBusinessId, h.f.foreignWebhookEndpointId))).status !== (await h.call('DELETE', h.paths.webhook(h.f.otherBusinessId, RANDOM_V7))).status,
  'templated-message-any-business': async (h) => (await h.call('GET', h.paths.message(h.f.otherBusinessId, h.f.messageId), { as: 'other' })).status === 200,
  'foreign-bulk-disclosed': async (h) => (await h.call('GET', h.paths.bulk(h.b, h.ref.extras.otherBusinessBulkId))).status === 200,
  'message-read-before-grant': async (h) => (await h.call('GET', h.paths.message(h.f.otherBusinessId, h.f.foreignMessageId))).status === 200,
  'foreign-message-404-own-detail': async (h) =>
    (await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))).json.detail !== (await h.call('GET', h.paths.message(h.b, RANDOM_V7))).json.detail,
  'foreign-rows-invalid-query-empty-page': async (h) =>
    (await rows(h, { limit: '1001' }, h.ref.extras.otherBusinessBulkId)).status === 200,
  'foreign-message-404-own-title': async (h) =>
    (await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))).json.title !== (await h.call('GET', h.paths.message(h.b, RANDOM_V7))).json.title,
  'not-found-detail-names-owner': async (h) =>
    String((await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))).json.detail).includes(h.f.otherBusinessId),
  'foreign-message-repeat-403': async (h) => {
    await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId));
    return (await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))).status !== 404;
  },
  // request-id
  'request-id-truncated-64': async (h) => {
    const id = 'r'.repeat(100);
    return (await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': id } })).headers.get('x-request-id') !== id;
  },
  'request-id-ignored': async (h) => (await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': 'abc' } })).headers.get('x-request-id') !== 'abc',
  'request-id-missing-on-401': async (h) => (await h.call('GET', h.paths.wallet(h.b), { as: 'none' })).headers.get('x-request-id') === null,
  'request-id-invalid-echoed': async (h) =>
    (await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': 'a;b' } })).headers.get('x-request-id') === 'a;b',
  'problem-request-id-mismatch': async (h) => {
    const r = await h.call('GET', h.paths.message(h.b, RANDOM_V7));
    return r.json.request_id !== r.headers.get('x-request-id');
  },
  'problem-request-id-regenerated': async (h) => {
    const r = await h.call('GET', h.paths.message(h.b, RANDOM_V7), { headers: { 'x-request-id': 'not/valid' } });
    return r.json.request_id !== r.headers.get('x-request-id');
  },
  'request-id-empty-echoed': async (h) => (await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': '' } })).headers.get('x-request-id') === '',
  'request-id-not-generated': async (h) => (await wallet(h)).headers.get('x-request-id') === null,
  'invalid-request-id-dropped': async (h) => (await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': 'not/valid' } })).headers.get('x-request-id') === null,
  'generated-request-id-prefixed': async (h) => !/^[A-Za-z0-9._-]{1,128}$/.test(String((await wallet(h)).headers.get('x-request-id'))),
  'invalid-request-id-refused': async (h) => (await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': 'not/valid' } })).status !== 200,
  'request-id-max-127': async (h) => {
    const id = 'r'.repeat(128);
    return (await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': id } })).headers.get('x-request-id') !== id;
  },
  // problem-details
  'problem-media-type-json': async (h) => (await h.call('GET', h.paths.message(h.b, RANDOM_V7))).headers.get('content-type') !== 'application/problem+json',
  'problem-type-wrong-base-one-code': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    const conflict = await h.submit(messageBody(h, { message: 'x' }), { key });
    const missing = await h.call('GET', h.paths.message(h.b, RANDOM_V7));
    return typeBase(conflict) !== typeBase(missing);
  },
  'problem-missing-detail': async (h) => typeof (await h.call('GET', h.paths.message(h.b, RANDOM_V7))).json.detail !== 'string',
  'problem-status-mismatch': async (h) => {
    const r = await h.submit(messageBody(h, { recipients: many(h, 1001) }));
    return r.json.status !== r.status;
  },
  'validation-errors-missing': async (h) => !Array.isArray((await h.submit(messageBody(h, { from: '' }))).json.errors),
  'rate-limit-without-retry-after': (h) =>
    withFault(h, { rateLimitPerMinute: 1 }, { rateLimitPerMinute: null }, async () => {
      await wallet(h);
      const r = await wallet(h);
      return r.status === 429 && r.headers.get('retry-after') === null;
    }),
  'not-found-code-unknown': async (h) => (await h.call('GET', h.paths.message(h.b, RANDOM_V7))).json.code !== 'resource_not_found',
  'problem-title-is-detail': async (h) => {
    const missing = await h.call('GET', h.paths.message(h.b, RANDOM_V7));
    const bulk = await h.call('GET', h.paths.bulk(h.b, RANDOM_V7));
    return missing.json.title !== bulk.json.title;
  },
  'internal-error-stack-in-detail': (h) =>
    withFault(h, { internalError: true }, { internalError: false }, async () => /\n\s+at /.test(String((await wallet(h)).json.detail))),
  'problem-instance-missing': async (h) => typeof (await h.call('GET', h.paths.message(h.b, RANDOM_V7))).json.instance !== 'string',
  'path-id-problem-status-400': async (h) => {
    const r = await h.call('GET', h.paths.message(h.b, 'not-a-uuid'));
    return r.json.status !== r.status;
  },
  'internal-error-as-service-unavailable': (h) =>
    withFault(h, { internalError: true }, { internalError: false }, async () => {
      const r = await wallet(h);
      return r.status !== 500 || r.json.code !== 'internal_error';
    }),
  'validation-pointer-dotted': async (h) =>
    !(await h.submit(messageBody(h, { recipients: [{ to: 'nope' }] }))).json.errors.some((e: { pointer: string }) => e.pointer === '/recipients/0/to'),
  'repeat-deactivation-410-not-found': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId));
    const again = await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId));
    return again.status >= 400 && again.json?.code === 'resource_not_found' && again.status !== 404;
  },
  // validation
  'both-message-and-template-accepted': async (h) => (await h.submit(messageBody(h, { template_id: h.f.templateId }))).status === 202,
  'extra-body-property-accepted': async (h) => (await h.submit(messageBody(h, { priority: 'high' }))).status === 202,
  'message-4097-accepted': async (h) => (await h.submit(messageBody(h, { message: 'm'.repeat(4097) }))).status === 202,
  'invalid-e164-accepted': async (h) => (await h.submit(messageBody(h, { recipients: [{ to: '447700900123' }] }))).status === 202,
  'template-variable-513-accepted': async (h) => {
    const body = templateBody(h);
    for (const r of body.recipients as any[]) r.template_variables[h.f.templatePlaceholders[0]!] = 'v'.repeat(513);
    return (await h.submit(body)).status === 202;
  },
  'unauthorized-sender-accepted': async (h) => (await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }))).status === 202,
  'unknown-template-variable-accepted': async (h) => {
    const body = templateBody(h);
    (body.recipients as any[])[0].template_variables.coupon = 'SAVE10';
    return (await h.submit(body)).status === 202;
  },
  'archived-template-accepted': async (h) => (await h.submit(templateBody(h, { template_id: h.f.inactiveTemplateId }))).status === 202,
  'content-type-not-checked': async (h) =>
    (await h.call('POST', h.paths.bulks(h.b), { body: JSON.stringify(messageBody(h)), headers: { 'content-type': 'text/plain', 'idempotency-key': freshKey() } })).status === 202,
  'path-id-shape-500': async (h) => (await h.call('GET', h.paths.message(h.b, 'not-a-uuid'))).status >= 500,
  'refusal-with-location': async (h) => (await h.submit(messageBody(h, { from: '' }))).headers.get('location') !== null,
  'validation-refusal-after-save': (h) => createdBy(h, () => h.submit(messageBody(h, { from: '' }))),
  'malformed-numbers-get-rows': async (h) => {
    const accepted = await h.submit(messageBody(h, { recipients: [{ to: '447700900123' }] }));
    if (accepted.status !== 202) return false;
    const listed = await rows(h, {}, accepted.json.id);
    return listed.json.data.some((r: { to: string }) => r.to === '447700900123');
  },
  'text-plain-body-500': async (h) =>
    (await h.call('POST', h.paths.bulks(h.b), { body: JSON.stringify(messageBody(h)), headers: { 'content-type': 'text/plain', 'idempotency-key': freshKey() } })).status >= 500,
  'content-type-415': async (h) =>
    (await h.call('POST', h.paths.bulks(h.b), { body: JSON.stringify(messageBody(h)), headers: { 'content-type': 'text/plain', 'idempotency-key': freshKey() } })).status !== 400,
  'archived-template-refused-after-save': (h) => createdBy(h, () => h.submit(templateBody(h, { template_id: h.f.inactiveTemplateId }))),
  'sender-refusal-carries-bulk-id': async (h) => 'id' in (await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }))).json,
  'unauthorized-sender-refused-after-save': (h) => createdBy(h, () => h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }))),
  // schemas
  'timestamps-plus-offset': async (h) => !String((await wallet(h)).json.as_of).endsWith('Z'),
  'bulk-response-extra-property': async (h) => 'priority' in (await h.submit(messageBody(h))).json,
  'ids-not-uuidv7': async (h) => !/^[0-9a-f]{8}-[0-9a-f]{4}-7/.test((await h.submit(messageBody(h))).json.id),
  'batches-path-alias': async (h) => (await h.call('GET', `/v1/businesses/${h.b}/sms/batches/${h.f.expiredCursorBulkId}`)).status === 200,
  'classification-upper-case': async (h) => !['transactional', 'promotional'].includes((await h.submit(messageBody(h))).json.classification),
  'success-media-type-text-plain': async (h) => (await wallet(h)).headers.get('content-type') !== 'application/json',
  'batches-path-public': async (h) => (await h.call('GET', `/v1/businesses/${h.b}/sms/batches`, { as: 'none' })).status < 300,
  // webhooks
  'webhook-delete-200-with-body': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).status !== 204,
  'webhook-delete-foreign-endpoint': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.ref.extras.otherBusinessWebhookEndpointId))).status === 204,
  'webhook-delete-not-deactivated': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId));
    return (await h.control('GET', `/state/webhook-endpoints/${h.f.webhookEndpointId}`)).active === true;
  },
  'webhook-delete-random-204': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, RANDOM_V7))).status === 204,
  'webhook-grant-of-endpoint-business': async (h) => (await h.call('DELETE', h.paths.webhook(h.f.otherBusinessId, h.f.webhookEndpointId))).status === 204,
  'webhook-repeat-deactivation-500': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId));
    return (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).status >= 500;
  },
  'request-id-regenerated-on-204': async (h) => {
    const res = await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId), { headers: { 'x-request-id': 'probe-204-echo' } });
    return res.status === 204 && res.headers.get('x-request-id') !== 'probe-204-echo';
  },
  'webhook-refused-still-deactivates': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.f.otherBusinessId, h.f.webhookEndpointId));
    return (await h.control('GET', `/state/webhook-endpoints/${h.f.webhookEndpointId}`)).active === false;
  },
  'webhook-repeat-200': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId));
    return (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).status === 200;
  },
  // messages
  'message-status-provider-code': async (h) => !['queued', 'sent', 'delivered', 'failed'].includes((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.status),
  'message-template-pin-dropped': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.template === null,
  'message-unrendered': async (h) => /\{\{/.test(String((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.message)),
  'message-not-found-200': async (h) => (await h.call('GET', h.paths.message(h.b, RANDOM_V7))).status === 200,
  'message-lookup-last-day-only': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.messageId))).status !== 200,
  'message-to-without-plus': async (h) => !String((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.to).startsWith('+'),
  'message-business-id-is-message-id': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.business_id !== h.b,
  'message-id-is-read-id': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.id !== h.f.messageId,
  'message-id-parse-500': async (h) => (await h.call('GET', h.paths.message(h.b, 'not-a-uuid'))).status >= 500,
  // Moved from the blind registry (issue 29): each probe as its author wrote it.
  'blind-lowercase-bearer-refused': async (h) => (await h.call('GET', h.paths.wallet(h.b), { as: { authorization: `bearer ${await h.token('primary')}` } })).status !== 200,
  'blind-alg-none-token-accepted': async (h) => {
    const payload = (await h.token('primary')).split('.')[1]!;
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    return (await h.call('GET', h.paths.wallet(h.b), { as: { bearer: `${header}.${payload}.` } })).status !== 401;
  },
  'blind-fingerprint-sorts-recipients': async (h) => {
    const key = freshKey();
    const body = messageBody(h);
    await h.submit(body, { key });
    return (await h.submit({ ...body, recipients: [...(body.recipients as unknown[])].reverse() }, { key })).status !== 409;
  },
  'blind-key-compared-64': async (h) => {
    const prefix = freshKey('Prefix').padEnd(64, 'x');
    await h.submit(messageBody(h), { key: `${prefix}-first` });
    return (await h.submit(messageBody(h, { message: 'another text' }), { key: `${prefix}-second` })).status !== 202;
  },
  'blind-template-limit-500': async (h) =>
    (await h.submit(templateBody(h, { recipients: many(h, 1000).map((r) => ({ ...r, template_variables: vars(h, () => 'v') })) }))).status !== 202,
  'blind-limit-rolling-window': async (h) => {
    await h.submit(messageBody(h, { recipients: many(h, 1000) }));
    return (await h.submit(messageBody(h, { recipients: many(h, 1000) }))).status !== 202;
  },
  'blind-limit-counts-segments': async (h) => (await h.submit(messageBody(h, { message: 'm'.repeat(200), recipients: many(h, 1000) }))).status !== 202,
  'blind-status-filter-submission-only': async (h) => (await rows(h, { status: 'delivered', limit: '1000' })).json.data.length === 0,
  'blind-number-filter-prefix': async (h) => (await rows(h, { to: '+44770090012', limit: '1000' })).json.data.some((r: { to: string }) => r.to !== '+44770090012'),
  'blind-read-accepted-at-now': async (h) => {
    const accepted = await h.submit(messageBody(h));
    await advance(h, 1000);
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.accepted_at !== accepted.json.accepted_at;
  },
  'blind-summary-as-of-accepted': async (h) => {
    const bulk = (await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId))).json;
    return bulk.delivery_summary?.as_of === bulk.accepted_at;
  },
  'blind-pin-lost-on-read': async (h) => {
    const accepted = await h.submit(templateBody(h));
    return JSON.stringify((await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.template) !== JSON.stringify(accepted.json.template);
  },
  'blind-read-classification-default': async (h) => {
    const accepted = await h.submit(messageBody(h, { classification: 'promotional' }));
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.classification !== 'promotional';
  },
  'blind-wallet-available-rounded': async (h) => {
    const w = (await wallet(h)).json;
    return w.available_balance !== w.current_balance;
  },
  'blind-wallet-permission-wrong-code': async (h) => (await wallet(h, 'limited')).json?.code !== 'permission_denied',
  'blind-wallet-balance-zero-padded': async (h) => !MONEY.test(String((await wallet(h)).json.current_balance)),
  'blind-message-max-4095': async (h) => (await h.submit(messageBody(h, { message: 'm'.repeat(4096) }))).status !== 202,
  'blind-template-variable-max-511': async (h) => {
    const body = templateBody(h, { recipients: [{ to: h.f.recipients[0], template_variables: vars(h, () => 'v'.repeat(512)) }] });
    return (await h.submit(body)).status !== 202;
  },
  'blind-message-length-in-bytes': async (h) => (await h.submit(messageBody(h, { message: 'é'.repeat(4096) }))).status !== 202,
  // validation
  'blind-classification-case-insensitive': async (h) => (await h.submit(messageBody(h, { classification: 'Transactional' }))).status < 300,
  'blind-template-variable-non-string-accepted': async (h) => {
    const body = templateBody(h, { recipients: [{ to: h.f.recipients[0], template_variables: vars(h, () => 42) }] });
    return (await h.submit(body)).status < 300;
  },
  'blind-acceptance-intake-null': async (h) => (await h.submit(messageBody(h))).json.intake === null,
  'blind-json-charset-refused': async (h) =>
    (await h.call('POST', h.paths.bulks(h.b), { body: JSON.stringify(messageBody(h)), headers: { 'content-type': 'application/json; charset=utf-8', 'idempotency-key': freshKey() } })).status !== 202,
  'blind-delivery-complete-when-completed': async (h) => {
    const bulk = (await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId))).json;
    const all = (await rows(h, { limit: '1000' })).json.data as Array<{ delivery_status: string; submission_status: string }>;
    const pending = all.some((r) => r.submission_status === 'sent' && r.delivery_status === 'sent');
    return bulk.delivery_summary?.complete === true && pending;
  },
  // The fixture bulk's id is no individual message's: the retrieval must refuse it.
  'blind-message-lookup-finds-bulk': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.expiredCursorBulkId))).status === 200,
  'blind-token-in-query-accepted': async (h) =>
    (await h.call('GET', h.paths.wallet(h.b), { as: 'none', query: { access_token: await h.token('primary') } })).status !== 401,
  'blind-unknown-path-no-request-id': async (h) => (await h.call('GET', `/v1/businesses/${h.b}/sms/unknown-collection`)).headers.get('x-request-id') === null,
  // request-id
  'blind-replay-stale-request-id': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key, headers: { 'x-request-id': 'first-attempt' } });
    return (await h.submit(messageBody(h), { key, headers: { 'x-request-id': 'second-attempt' } })).headers.get('x-request-id') !== 'second-attempt';
  },
  'blind-has-more-by-full-page': async (h) => (await rows(h, { limit: '250' })).json.pagination.has_more !== false,
  // cursors
  'blind-cursor-number-filter-not-bound': async (h) => {
    const first = await rows(h, { limit: '10' });
    return (await rows(h, { cursor: first.json.pagination.next_cursor, to: '+447700900150' })).status === 200;
  },
  'blind-cursor-single-use': async (h) => {
    const cursor = (await rows(h, { limit: '10' })).json.pagination.next_cursor;
    await rows(h, { cursor });
    return (await rows(h, { cursor })).status !== 200;
  },
  'blind-filtered-walk-repeats': async (h) => {
    const ids: string[] = [];
    let query: Record<string, string> = { status: 'failed', limit: '10' };
    for (let page = 0; page < 100; page++) {
      const r = await rows(h, query);
      ids.push(...r.json.data.map((row: { id: string }) => row.id));
      if (!r.json.pagination.has_more) break;
      query = { status: 'failed', limit: '10', cursor: r.json.pagination.next_cursor };
    }
    return new Set(ids).size !== ids.length;
  },
  'blind-fingerprint-ignores-variables': async (h) => {
    const key = freshKey();
    await h.submit(templateBody(h), { key });
    const other = templateBody(h, { recipients: h.f.recipients.slice(0, 2).map((to) => ({ to, template_variables: vars(h, (p) => `other ${p}`) })) });
    return (await h.submit(other, { key })).status !== 409;
  },
  'blind-key-case-insensitive': async (h) => {
    const key = freshKey('CaseKey');
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h, { message: 'another text' }), { key: key.toLowerCase() })).status !== 202;
  },
  // Moved from the blind registry (round 2, issue 28).
  'blind-foreign-bulk-404-content-location': async (h) =>
    headerNames(await h.call('GET', h.paths.bulk(h.b, h.f.foreignBulkId))) !== headerNames(await h.call('GET', h.paths.bulk(h.b, RANDOM_V7))),
  'blind-foreign-message-404-last-modified': async (h) =>
    headerNames(await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))) !== headerNames(await h.call('GET', h.paths.message(h.b, RANDOM_V7))),
  'blind-bulk-read-finds-foreign-message': async (h) => (await h.call('GET', h.paths.bulk(h.b, h.f.foreignMessageId))).status === 200,
  // Written blind, round 3 (ids kept).
  'blind3-unknown-path-invalid-token-404': async (h) => (await h.call('GET', `/v1/businesses/${h.b}/no-such-operation`, { as: { bearer: h.f.expiredToken } })).status !== 401,
  'blind3-head-skips-auth': async (h) => (await h.call('HEAD', h.paths.wallet(h.b), { as: 'none' })).status !== 401,
  'blind3-fingerprint-dedupes-recipients': async (h) => {
    const key = freshKey();
    const [a, b] = h.f.recipients;
    await h.submit(messageBody(h, { recipients: [{ to: a }, { to: b }] }), { key });
    return (await h.submit(messageBody(h, { recipients: [{ to: a }, { to: b }, { to: a }] }), { key })).status !== 409;
  },
  'blind3-limit-decimal-truncated': async (h) => (await rows(h, { limit: '10.5' })).status !== 400,
  'blind3-status-filter-case-insensitive': async (h) => (await rows(h, { status: 'DELIVERED' })).status !== 400,
  // An unencoded + arrives as a space (URLSearchParams writes the space as +).
  'blind3-number-filter-space-as-plus': async (h) => (await rows(h, { to: ` ${h.f.recipients[0]!.slice(1)}` })).status !== 400,
  'blind3-message-whitespace-collapsed': async (h) => {
    const message = 'Line one.\n\nLine  two.';
    const accepted = await h.submit(messageBody(h, { message }));
    return accepted.json.message !== message || (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.message !== message;
  },
  'blind3-message-id-case-folded-lookup': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId.toUpperCase()))).status === 200,
  'blind3-request-id-129-truncated': async (h) => (await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': 'r'.repeat(129) } })).headers.get('x-request-id') === 'r'.repeat(128),
  'blind3-request-id-percent-decoded': async (h) => (await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': 'abc%2Ddef' } })).headers.get('x-request-id') === 'abc-def',
  'blind3-recipients-object-wrapped': async (h) => (await h.submit(messageBody(h, { recipients: { to: h.f.recipients[0] } }))).status < 300,
  'blind3-sender-trimmed': async (h) => (await h.submit(messageBody(h, { from: `${h.f.senderId} ` }))).status < 300,
  'blind3-template-variables-array-accepted': async (h) => (await h.submit(messageBody(h, { recipients: [{ to: h.f.recipients[0], template_variables: [] }] }))).status < 300,
  // moved from the blind registry (issue 29, blind round of 2026-11-27)
  'blind3-fingerprint-ignores-classification': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h, { classification: 'promotional' }), { key })).status !== 409;
  },
  'blind3-conflict-status-422': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h, { message: 'Another text.' }), { key })).status !== 409;
  },
  'blind3-limit-skips-invalid-numbers': async (h) =>
    (await h.submit(messageBody(h, { recipients: [...many(h, 1000), { to: 'not-a-number' }] }))).json?.code !== 'recipient_limit_exceeded',
  'blind3-empty-recipients-limit-code': async (h) => (await h.submit(messageBody(h, { recipients: [] }))).json?.code !== 'validation_failed',
  'blind3-over-limit-status-413': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).status !== 422,
  'blind3-last-page-cursor-empty-string': async (h) => {
    const last = (await rows(h, { limit: '1000' })).json.pagination;
    return last.has_more === false && last.next_cursor !== null;
  },
  'blind3-limit-reports-rows-returned': async (h) => (await rows(h, { limit: '1000' })).json.pagination.limit !== 1000,
  'blind3-acceptance-status-created': async (h) => (await h.submit(messageBody(h))).json.status !== 'queued',
  'blind3-location-trailing-slash': async (h) => {
    const accepted = await h.submit(messageBody(h));
    const read = await h.call('GET', new URL(accepted.headers.get('location')!, h.ref.baseUrl).pathname);
    return read.status !== 200 || read.json.id !== accepted.json.id;
  },
  'blind3-wallet-reserved-number': async (h) => typeof (await wallet(h)).json.reserved_balance !== 'string',
  'blind3-wallet-available-minor-units': async (h) => {
    const w = (await wallet(h)).json;
    return w.available_balance !== w.current_balance;
  },
  'blind3-wallet-as-of-local': async (h) => !String((await wallet(h)).json.as_of).endsWith('Z'),
  'blind3-foreign-webhook-403': async (h) =>
    (await h.call('DELETE', h.paths.webhook(h.b, h.f.foreignWebhookEndpointId))).status !== (await h.call('DELETE', h.paths.webhook(h.b, RANDOM_V7))).status,
  'blind3-problem-request-id-raw': async (h) => {
    const r = await wallet(h, 'limited', { 'x-request-id': 'not~valid' });
    return r.json.request_id !== r.headers.get('x-request-id');
  },
  'blind3-request-id-missing-on-204': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).headers.get('x-request-id') === null,
  'blind3-problem-type-trailing-slash': async (h) => !String((await badNumber(h)).json.type).endsWith('/validation_failed'),
  'blind3-401-media-type-json': async (h) => !/^application\/problem\+json\b/.test((await h.call('GET', h.paths.wallet(h.b), { as: 'none' })).headers.get('content-type') ?? ''),
  'blind3-intake-counts-strings': async (h) => {
    const accepted = await h.submit(messageBody(h));
    return typeof (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.intake?.good !== 'number';
  },
  'blind3-warnings-null-when-none': async (h) => !Array.isArray((await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId))).json.warnings),
  'blind3-pagination-camel-case': async (h) => {
    const pagination = (await rows(h, { limit: '10' })).json.pagination;
    return typeof pagination.has_more !== 'boolean' || !('next_cursor' in pagination);
  },
  'blind3-webhook-delete-200-empty': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).status !== 204,
  'blind3-webhook-if-match-required': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).status !== 204,
  'blind3-message-status-upper-case': async (h) =>
    !['queued', 'sent', 'delivered', 'failed'].includes((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.status),
  'blind3-message-accepted-at-local': async (h) => !String((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.accepted_at).endsWith('Z'),
  'blind3-message-to-formatted': async (h) => !/^\+[1-9]\d{7,14}$/.test((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.to),
  // sequences
  'replay-after-read-shows-current': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.call('GET', h.paths.bulk(h.b, first.json.id));
    return (await h.submit(messageBody(h), { key })).text !== first.text;
  },
  'rewritten-repeat-rebinds-key': async (h) => {
    const key = freshKey();
    const body = messageBody(h);
    await h.submit(body, { key });
    await h.submit(Object.fromEntries(Object.entries(body).reverse()), { key });
    return (await h.submit(body, { key })).status !== 202;
  },
  'replay-adds-intake': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h), { key });
    return JSON.stringify((await h.call('GET', h.paths.bulk(h.b, first.json.id))).json.intake) !== JSON.stringify(first.json.intake);
  },
  'equivalent-repeat-appends-rows': async (h) => {
    const key = freshKey();
    const body = messageBody(h);
    const first = await h.submit(body, { key });
    await h.submit(Object.fromEntries(Object.entries(body).reverse()), { key });
    return (await rows(h, {}, first.json.id)).json.data.length > (body.recipients as unknown[]).length;
  },
  'conflict-counts-entries-as-bad': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, { message: 'other' }), { key });
    return JSON.stringify((await h.call('GET', h.paths.bulk(h.b, first.json.id))).json.intake) !== JSON.stringify(first.json.intake);
  },  'reused-cursor-follows-latest': async (h) => {
    const cursor = (await rows(h, { limit: '10' })).json.pagination.next_cursor;
    const page = await rows(h, { limit: '10', cursor });
    await rows(h, { limit: '10', cursor: page.json.pagination.next_cursor });
    return (await rows(h, { limit: '10', cursor })).json.data[0].id !== page.json.data[0].id;
  },
  'rows-reversed-after-read': async (h) => {
    const before = (await rows(h, { limit: '1000' })).json.data[0].id;
    await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId));
    return (await rows(h, { limit: '1000' })).json.data[0].id !== before;
  },
  'bulk-unreadable-after-listing': async (h) => {
    const accepted = await h.submit(messageBody(h));
    await rows(h, {}, accepted.json.id);
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).status !== 200;
  },
  'nfd-repeat-creates-bulk': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h, { message: 'Café' }), { key });
    const again = await h.submit(messageBody(h, { message: 'Café'.normalize('NFD') }), { key });
    return again.status === 202 && again.json?.id !== first.json?.id;
  },
  'faulty-repeat-replayed': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit({ ...messageBody(h, { message: 'other' }), unexpected_member: true }, { key })).status < 300;
  },
  'read-bulk-served-under-any-business': async (h) => {
    const first = await h.submit(messageBody(h));
    await h.call('GET', h.paths.bulk(h.b, first.json.id));
    return (await h.call('GET', h.paths.bulk(h.f.otherBusinessId, first.json.id))).status === 200;
  },

  // Moved from the blind registry (issue 29, both rounds): each probe as its author wrote it.
  'blind-basic-credentials-accepted': async (h) => {
    const { clientId, clientSecret } = h.ref.apps.primary;
    return (await h.call('GET', h.paths.wallet(h.b), { as: { authorization: basic(clientId, clientSecret) } })).status !== 401;
  },
  'blind-bulk-lookup-before-grant': async (h) =>
    (await h.call('GET', h.paths.bulk(h.f.otherBusinessId, RANDOM_V7))).status !== (await h.call('GET', h.paths.bulk(h.f.otherBusinessId, h.f.foreignBulkId))).status,
  'blind-missing-permission-401': async (h) => (await wallet(h, 'limited')).status !== 403,
  'blind-replay-status-200': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h), { key })).status !== first.status;
  },
  'blind-replay-current-state': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await advance(h, 2000);
    return (await h.submit(messageBody(h), { key })).text !== first.text;
  },
  'blind-over-limit-invalid-recipient-code': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).json?.code !== 'recipient_limit_exceeded',
  'blind-cursor-overlaps-one-row': async (h) => {
    const first = await rows(h, { limit: '10' });
    const second = await rows(h, { cursor: first.json.pagination.next_cursor });
    const seen = new Set(first.json.data.map((r: { id: string }) => r.id));
    return second.json.data.some((r: { id: string }) => seen.has(r.id));
  },
  'blind-limit-above-max-clamped': async (h) => (await rows(h, { limit: '5000' })).status !== 400,
  'blind-location-without-version-prefix': async (h) => {
    const accepted = await h.submit(messageBody(h));
    const location = new URL(accepted.headers.get('location')!, h.ref.baseUrl);
    const read = await h.call('GET', location.pathname);
    return read.status !== 200 || read.json.id !== accepted.json.id;
  },
  'blind-wallet-balance-grouped': async (h) => !/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(String((await wallet(h)).json.current_balance)),
  'blind-wallet-currency-numeric': async (h) => !/^[A-Z]{3}$/.test(String((await wallet(h)).json.currency)),
  'blind-wallet-cache-skips-permission': async (h) => {
    await wallet(h, 'primary');
    return (await wallet(h, 'limited')).status !== 403;
  },
  'blind-wallet-permission-404': async (h) => (await wallet(h, 'limited')).status !== 403,
  'blind-rows-listing-skips-grant': async (h) => (await rows(h, {}, h.f.foreignBulkId, h.f.otherBusinessId)).status === 200,
  'blind-foreign-message-404-owner-instance': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))).text.includes(h.f.otherBusinessId),
  'blind-request-id-dots-replaced': async (h) => (await wallet(h, 'primary', { 'x-request-id': 'probe.id_1' })).headers.get('x-request-id') !== 'probe.id_1',
  'blind-request-id-lowercased': async (h) => (await wallet(h, 'primary', { 'x-request-id': 'Probe-ABC' })).headers.get('x-request-id') !== 'Probe-ABC',
  'blind-request-id-min-2': async (h) => (await wallet(h, 'primary', { 'x-request-id': 'Z' })).headers.get('x-request-id') !== 'Z',
  'blind-problem-status-as-string': async (h) => typeof (await badNumber(h)).json.status !== 'number',
  'blind-error-item-message': async (h) => errorsOf(await badNumber(h)).some((e) => Object.keys(e).sort().join(',') !== 'code,pointer'),
  'blind-problem-type-hyphenated': async (h) => {
    const p = (await badNumber(h)).json;
    return !String(p.type).endsWith(`/${p.code}`);
  },
  'blind-recipient-extra-member-accepted': async (h) => (await h.submit(messageBody(h, { recipients: [{ to: h.f.recipients[0], name: 'Ada' }] }))).status < 300,
  'blind-e164-leading-zero-accepted': async (h) => (await h.submit(messageBody(h, { recipients: [{ to: '+0447700900123' }] }))).status < 300,
  'blind-row-times-without-offset': async (h) => (await rows(h, { limit: '5' })).json.data.some((r: { accepted_at: string }) => !r.accepted_at.endsWith('Z')),
  'blind-pagination-limit-string': async (h) => typeof (await rows(h, { limit: '10' })).json.pagination.limit !== 'number',
  'blind-row-ids-uuidv4': async (h) => {
    const accepted = await h.submit(messageBody(h));
    return (await rows(h, {}, accepted.json.id)).json.data.some((r: { id: string }) => !UUID_V7.test(r.id));
  },
  'blind-webhook-delete-202': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).status !== 204,
  'blind-delete-requires-content-type': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).status !== 204,
  'blind-message-times-epoch': async (h) => typeof (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.accepted_at !== 'string',
  'blind-message-template-as-id': async (h) => {
    const template = (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.template;
    return typeof template !== 'object' || template === null;
  },  // ---- round 2 ----
  'blind-replay-without-request-id': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h), { key })).headers.get('x-request-id') === null;
  },
  'blind-request-id-regenerated-on-202': async (h) => (await h.submit(messageBody(h), { headers: { 'x-request-id': 'probe-202' } })).headers.get('x-request-id') !== 'probe-202',
  'blind-generated-request-id-long': async (h) => !/^[A-Za-z0-9._-]{1,128}$/.test((await wallet(h)).headers.get('x-request-id') ?? ''),
  'blind-401-detail-echoes-token': async (h) => String((await h.call('GET', h.paths.wallet(h.b), { as: { bearer: h.f.expiredToken } })).json.detail).includes(h.f.expiredToken),
  'blind-problem-title-names-field': async (h) => (await badNumber(h)).json.title !== (await h.submit(messageBody(h, { classification: 'other' }))).json.title,
  'blind-accept-xml-500': async (h) => (await wallet(h, 'primary', { accept: 'application/xml' })).status >= 500,
  'blind-repeated-query-param-500': async (h) =>
    (await h.call('GET', h.paths.rows(h.b, h.f.expiredCursorBulkId), { query: [['limit', '10'], ['limit', '20']] })).status >= 500,
  'blind-null-message-ignored': async (h) => (await h.submit(templateBody(h, { message: null }))).status < 300,
  'blind-path-id-format-suffix': async (h) => (await h.call('GET', h.paths.message(h.b, `${h.f.messageId}.json`))).status < 300,
  'blind-template-variable-empty-refused': async (h) =>
    (await h.submit(templateBody(h, { recipients: [{ to: h.f.recipients[0], template_variables: vars(h, () => '') }] }))).status !== 202,
  'blind-recipient-spaces-normalized': async (h) => (await h.submit(messageBody(h, { recipients: [{ to: '+44 7700 900123' }] }))).status < 300,
  'blind-later-pages-items': async (h) => {
    const first = await rows(h, { limit: '10' });
    return !Array.isArray((await rows(h, { cursor: first.json.pagination.next_cursor })).json.data);
  },
  'blind-listing-media-type-vendor': async (h) => !/^application\/json\b/.test((await rows(h, { limit: '5' })).headers.get('content-type') ?? ''),
  'blind-message-pin-template-is-message': async (h) =>
    (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.template?.template_id !== h.f.messageTemplateId,
  // Written blind, round 4 (ids kept).
  'blind4-key-lru-eviction': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    for (let i = 0; i < 10; i++) await h.submit(messageBody(h));
    return (await h.submit(messageBody(h), { key })).json?.id !== first.json.id;
  },
  'blind4-fingerprint-ignores-from': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }), { key })).status !== 409;
  },
  'blind4-limit-skips-empty-entries': async (h) =>
    (await h.submit(messageBody(h, { recipients: [...many(h, 1000), { to: '' }] }))).json?.code !== 'recipient_limit_exceeded',
  'blind4-status-filter-delivery-only': async (h) =>
    !(await rows(h, { status: 'sent', limit: '1000' })).json.data.some((r: Record<string, unknown>) => r.delivery_status === 'delivered'),
  'blind4-number-filter-dropped-with-status': async (h) =>
    (await rows(h, { status: 'delivered', to: '+447700900001', limit: '1000' })).json.data.some((r: Record<string, unknown>) => r.to !== '+447700900001'),
  'blind4-bad-signature-cursor-first-page': async (h) => {
    const cursor = String((await rows(h, { limit: '10' })).json.pagination.next_cursor);
    return (await rows(h, { cursor: `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}` })).status === 200;
  },
  'blind4-wallet-as-of-local-labelled-utc': async (h) => {
    const now = (await h.control('GET', '/clock')).now as number;
    return Math.abs(Date.parse((await wallet(h)).json.as_of) - now) > 30 * 60_000;
  },
  'blind4-foreign-rows-404-own-detail': async (h) => (await rows(h, {}, h.f.foreignBulkId)).json?.detail !== (await rows(h, {}, RANDOM_V7)).json?.detail,
  'blind4-request-id-stale-when-missing': async (h) => {
    await wallet(h, 'primary', { 'x-request-id': 'probe-earlier' });
    return (await wallet(h)).headers.get('x-request-id') === 'probe-earlier';
  },
  'blind4-other-method-500': async (h) => (await h.call('DELETE', h.paths.wallet(h.b))).status >= 500,
  'blind4-message-length-utf16': async (h) => (await h.submit(messageBody(h, { message: '\u{1F600}'.repeat(4096) }))).status !== 202,
  'blind4-classification-defaulted': async (h) => {
    const { classification: _left, ...body } = messageBody(h);
    return (await h.submit(body)).status < 300;
  },
  'blind4-webhook-lookup-by-prefix': async (h) => {
    const id = h.f.webhookEndpointId;
    const unknown = `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`;
    return (await h.call('DELETE', h.paths.webhook(h.b, unknown))).status < 300;
  },
  'blind4-webhook-ownership-skipped-after-first': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId));
    return (await h.call('DELETE', h.paths.webhook(h.b, h.f.foreignWebhookEndpointId))).status < 300;
  },
  'blind4-filtered-rows-other-ids': async (h) => {
    const ids = new Set((await rows(h, { limit: '1000' })).json.data.map((r: Record<string, unknown>) => r.id));
    return (await rows(h, { status: 'delivered', limit: '1000' })).json.data.some((r: Record<string, unknown>) => !ids.has(r.id));
  },
  'blind4-replay-serves-latest-response': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, { message: 'Another text.' }));
    return (await h.submit(messageBody(h), { key })).json?.id !== first.json.id;
  },
  'blind5-wallet-reserved-in-flight': async (h) => {
    await h.submit(messageBody(h));
    return (await wallet(h)).json.reserved_balance !== '0.00';
  },
  'blind5-wallet-available-excludes-in-flight': async (h) => {
    await h.submit(messageBody(h));
    const w = (await wallet(h)).json;
    return w.available_balance !== w.current_balance;
  },
  'blind5-cursor-page-number': async (h) => {
    const all = (await rows(h, { limit: '1000' })).json.data as Array<{ id: string }>;
    const cursor = (await rows(h, { limit: '10' })).json.pagination.next_cursor;
    return (await rows(h, { cursor, limit: '25' })).json.data[0]?.id !== all[10]!.id;
  },
  'blind5-conflict-overwrites-message': async (h) => {
    const key = freshKey();
    const accepted = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, { message: 'Another text entirely.' }), { key });
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.message !== messageBody(h).message;
  },
  'blind5-filtered-listing-sorted-by-number': async (h) => {
    const accepted = await h.submit(messageBody(h, {}, 4));
    await advance(h, 2000);
    const ids = (q: Record<string, string>) => rows(h, q, accepted.json.id).then((r) => (r.json.data as Array<{ id: string }>).map((x) => x.id));
    const filtered = await ids({ status: 'delivered' });
    const inOrder = (await ids({})).filter((id) => filtered.includes(id));
    return filtered.join() !== inOrder.join();
  },
  'blind5-media-type-case-sensitive': async (h) => (await h.submit(messageBody(h), { headers: { 'content-type': 'Application/JSON' } })).status !== 202,
  'blind5-request-id-from-idempotency-key': async (h) => !/^[A-Za-z0-9._-]{1,128}$/.test((await h.submit(messageBody(h), { key: `probe key:${freshKey()}` })).headers.get('x-request-id') ?? ''),
  'blind5-null-body-500': async (h) => (await h.call('POST', h.paths.bulks(h.b), { body: 'null', headers: { 'content-type': 'application/json', 'idempotency-key': freshKey() } })).status >= 500,
  'blind5-recipient-fullwidth-digits-accepted': async (h) => (await h.submit(messageBody(h, { recipients: [{ to: '+\uFF14\uFF147700900123' }] }))).status < 300,
  'blind5-recipient-trailing-newline-accepted': async (h) => (await h.submit(messageBody(h, { recipients: [{ to: `${h.f.recipients[0]}\n` }] }))).status < 300,
  // moved from the blind registry (rounds 1 and 5, fix5a)
  'blind-delete-skips-authentication': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId), { as: 'none' })).status < 300,
  'blind-foreign-bulk-rows-listed': async (h) => (await rows(h, {}, h.f.foreignBulkId)).status === 200,
  'blind5-listing-cursor-skips-auth': async (h) => {
    const cursor = (await rows(h, { limit: '10' })).json.pagination.next_cursor;
    return (await h.call('GET', h.paths.rows(h.b, h.f.expiredCursorBulkId), { as: 'none', query: { cursor } })).status < 300;
  },
  'blind5-bearer-extra-parts-accepted': async (h) => (await h.call('GET', h.paths.wallet(h.b), { as: { authorization: `Bearer ${await h.token('primary')} extra` } })).status < 300,
  'blind5-filtered-rows-skip-ownership': async (h) => (await rows(h, { status: 'delivered' }, h.f.foreignBulkId)).status === 200,
  'blind5-message-lookup-finds-listed-row': async (h) => {
    const theirs = (await h.call('GET', h.paths.rows(h.f.otherBusinessId, h.f.foreignBulkId), { as: 'other' })).json.data[0].id;
    return (await h.call('GET', h.paths.message(h.b, theirs))).status === 200;
  },
  'page-size-change-refused': async (h) => {
    const cursor = (await rows(h, { limit: '10' })).json.pagination.next_cursor;
    return (await rows(h, { cursor, limit: '25' })).status === 400;
  },
  'page-size-change-empty-page': async (h) => {
    const cursor = (await rows(h, { limit: '10' })).json.pagination.next_cursor;
    const page = (await rows(h, { cursor, limit: '25' })).json;
    return page.data.length === 0 && page.pagination.has_more === true;
  },
  'blind6-invalid-repeat-rebinds-key': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, { recipients: [{ to: 'not-a-number' }] }), { key });
    return (await h.submit(messageBody(h), { key })).json?.id !== first.json.id;
  },
  'blind6-token-client-auth-cached': async (h) => {
    await h.token('primary');
    const res = await fetch(h.ref.tokenUrl, {
      method: 'POST',
      headers: { authorization: basic(h.ref.apps.primary.clientId, 'not-the-secret'), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    return res.status === 200;
  },
  'blind6-client-session-after-valid-token': async (h) => {
    await wallet(h);
    return (await h.call('GET', h.paths.wallet(h.b), { as: { bearer: h.f.expiredToken } })).status < 300;
  },
  'blind6-over-limit-403-quota': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).status !== 422,
  'blind6-limit-raised-after-at-max': async (h) => {
    await h.submit(messageBody(h, { recipients: many(h, 1000) }));
    return (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).status < 300;
  },
  'blind6-page-size-sticky-per-bulk': async (h) => {
    await rows(h, { limit: '10' });
    return (await rows(h, {})).json.pagination.limit !== 100;
  },
  'blind6-cursor-lifetime-slides-with-listing': async (h) => {
    await rows(h, { limit: '10' });
    return (await rows(h, { cursor: h.f.expiredCursor })).status === 200;
  },
  'blind6-acceptance-submission-empty-object': async (h) => (await h.submit(messageBody(h))).json.submission != null,
  'blind6-reserved-hold-left-by-refusal': async (h) => {
    await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }));
    return (await wallet(h)).json.reserved_balance !== '0.00';
  },
  'blind6-wallet-as-of-http-date': async (h) => !UTC_Z.test(String((await wallet(h)).json.as_of)),
  'blind6-wallet-cache-single-slot': async (h) => {
    await h.call('GET', h.paths.wallet(h.f.otherBusinessId), { as: 'other' });
    return (await wallet(h)).json.business_id !== h.b;
  },
  'blind6-foreign-message-404-without-instance': async (h) => {
    const keys = (r: Reply) => Object.keys(r.json ?? {}).sort().join(',');
    return keys(await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))) !== keys(await h.call('GET', h.paths.message(h.b, RANDOM_V7)));
  },
  'blind6-problem-request-id-of-previous': async (h) => {
    await h.submit(messageBody(h, { recipients: [{ to: 'not-a-number' }] }), { headers: { 'x-request-id': 'probe-first' } });
    const second = await h.submit(messageBody(h, { recipients: [{ to: 'not-a-number' }] }), { headers: { 'x-request-id': 'probe-second' } });
    return second.json.request_id !== second.headers.get('x-request-id');
  },
  'blind6-request-id-missing-on-403': async (h) => (await h.call('GET', h.paths.wallet(h.f.otherBusinessId))).headers.get('x-request-id') === null,
  'blind6-validation-errors-as-map': async (h) => !Array.isArray((await badNumber(h)).json.errors),
  'blind6-problem-code-upper-case': async (h) => (await badNumber(h)).json.code !== 'validation_failed',
  'blind6-sender-check-skipped-after-acceptance': async (h) => {
    await h.submit(messageBody(h));
    return (await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }))).status < 300;
  },
  'blind6-template-verdict-cached-per-business': async (h) => {
    await h.submit(templateBody(h));
    return (await h.submit(templateBody(h, { template_id: h.f.inactiveTemplateId }))).status !== 422;
  },
  'blind6-variables-checked-first-recipient-only': async (h) => {
    const [a, b] = h.f.recipients;
    const given = vars(h, (p) => `value of ${p}`);
    return (await h.submit(templateBody(h, { recipients: [{ to: a, template_variables: given }, { to: b, template_variables: { ...given, coupon: 'TEN' } }] }))).status < 300;
  },
  'blind6-pagination-in-link-header': async (h) => (await rows(h, { limit: '10' })).json.pagination === undefined,
  'blind6-row-to-tel-uri': async (h) => (await rows(h, { limit: '5' })).json.data.some((r: { to: string }) => !/^\+[1-9]\d{7,14}$/.test(r.to)),
  'blind6-warnings-as-codes': async (h) => {
    const accepted = await h.submit(messageBody(h));
    const warnings = (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.warnings as unknown[];
    return warnings.some((w) => typeof w !== 'object' || w === null);
  },
  'blind6-message-to-as-list': async (h) => typeof (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.to !== 'string',
  'blind6-message-index-replaced-by-submission': async (h) => {
    await h.submit(messageBody(h));
    return (await h.call('GET', h.paths.message(h.b, h.f.messageId))).status !== 200;
  },
  'blind6-replay-from-bulk-response-cache': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await rows(h, {}, first.json.id);
    return (await h.submit(messageBody(h), { key })).json?.id !== first.json.id;
  },
  'blind6-cursors-spent-after-last-page': async (h) => {
    const first = (await rows(h, { limit: '100' })).json;
    const second = (await rows(h, { cursor: first.pagination.next_cursor })).json;
    await rows(h, { cursor: second.pagination.next_cursor });
    const again = (await rows(h, { cursor: first.pagination.next_cursor })).json;
    return again.data?.[0]?.id !== second.data[0].id;
  },
  'blind6-replay-labelled-problem-json': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return !/^application\/json\b/.test((await h.submit(messageBody(h), { key })).headers.get('content-type') ?? '');
  },
  'blind6-message-enveloped-in-data': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.id !== h.f.messageId,
  'blind6-cursor-signature-prefix-compared': async (h) => {
    const cursor = (await rows(h, { limit: '10' })).json.pagination.next_cursor;
    return (await rows(h, { cursor: `${cursor}x` })).status === 200;
  },
  'blind6-upper-case-bulk-id-500': async (h) => (await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId.toUpperCase()))).status >= 500,
  'blind6-request-id-reuse-replaced': async (h) => {
    await wallet(h, 'primary', { 'x-request-id': 'probe-same' });
    return (await wallet(h, 'primary', { 'x-request-id': 'probe-same' })).headers.get('x-request-id') !== 'probe-same';
  },
  'blind6-fingerprint-normalizes-message-whitespace': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h, { message: `${String(messageBody(h).message)} ` }), { key })).status !== 409;
  },
  'blind6-key-freed-when-bulk-completes': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await advance(h, 2000);
    await h.call('GET', h.paths.bulk(h.b, first.json.id));
    return (await h.submit(messageBody(h), { key })).json?.id !== first.json.id;
  },
  'blind6-replay-requeues-bulk': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await advance(h, 1000);
    await h.submit(messageBody(h), { key });
    return (await h.call('GET', h.paths.bulk(h.b, first.json.id))).json.accepted_at !== first.json.accepted_at;
  },
  'blind6-bulk-message-rendered-first-recipient': async (h) => {
    const text = 'Hello {{first_name}}, your parcel is on its way.';
    const accepted = await h.submit(messageBody(h, { message: text, recipients: [{ to: h.f.recipients[0], template_variables: { first_name: 'Ada' } }] }));
    return accepted.status !== 202 || accepted.json.message !== text;
  },
  'blind6-intake-from-rows-after-listing': async (h) => {
    const [a, b] = h.f.recipients;
    const accepted = await h.submit(messageBody(h, { recipients: [{ to: a }, { to: a }, { to: b }] }));
    await rows(h, {}, accepted.json.id);
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.intake?.bad !== accepted.json.intake.bad;
  },
  'blind6-replay-served-before-auth': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h), { key, as: 'none' })).status < 300;
  },
  'blind6-unknown-endpoint-204-after-deactivation': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId));
    return (await h.call('DELETE', h.paths.webhook(h.b, RANDOM_V7))).status < 300;
  },
  'blind6-deactivated-endpoint-skips-grant': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId));
    return (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId), { as: 'other' })).status < 300;
  },
  'blind7-fingerprint-counts-recipients': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h, { recipients: [{ to: h.f.recipients[0] }] }), { key });
    return (await h.submit(messageBody(h, { recipients: [{ to: h.f.recipients[1] }] }), { key })).status !== 409;
  },
  'blind7-empty-key-taken-as-none': async (h) => (await h.submit(messageBody(h), { key: '' })).status < 300,
  'blind7-location-bare-id': async (h) => {
    const accepted = await h.submit(messageBody(h));
    // RFC 9110 10.2.2: a relative Location resolves against the request's target URI.
    const target = new URL(accepted.headers.get('location')!, `${h.ref.baseUrl}${h.paths.bulks(h.b)}`);
    const read = await h.call('GET', target.pathname);
    return read.status !== 200 || read.json.id !== accepted.json.id;
  },
  'blind7-pin-carried-over-to-next-bulk': async (h) => {
    await h.submit(templateBody(h));
    return (await h.submit(messageBody(h))).json.template != null;
  },
  'blind7-wallet-currency-symbol': async (h) => !/^[A-Z]{3}$/.test((await wallet(h)).json.currency),
  'blind7-wallet-balance-comma-decimal': async (h) => !/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test((await wallet(h)).json.current_balance),
  'blind7-wallet-business-name-padded': async (h) => (await wallet(h)).json.business_name.length > 256,
  'blind7-request-id-prefixed-on-echo': async (h) => (await wallet(h, 'primary', { 'x-request-id': 'probe.7' })).headers.get('x-request-id') !== 'probe.7',
  'blind7-request-id-missing-on-409': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    const conflict = await h.submit(messageBody(h, { message: 'Another text entirely.' }), { key });
    return conflict.headers.get('x-request-id') === null;
  },
  'blind7-not-found-type-about-blank': async (h) => !String((await h.call('GET', h.paths.message(h.b, RANDOM_V7))).json.type).endsWith('/resource_not_found'),
  'blind7-problem-media-type-reversed': async (h) => (await wallet(h, 'limited')).headers.get('content-type')?.split(';')[0] !== 'application/problem+json',
  'blind7-bulk-read-carries-rows-after-listing': async (h) => {
    await rows(h, { limit: '5' });
    const allowed = ['id', 'business_id', 'from', 'classification', 'status', 'settled', 'message', 'template', 'accepted_at', 'intake', 'submission', 'delivery_summary', 'warnings'];
    return Object.keys((await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId))).json).some((k) => !allowed.includes(k));
  },
  'blind7-summary-as-of-without-seconds': async (h) => !UTC_Z.test((await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId))).json.delivery_summary?.as_of),
  'blind7-delete-accept-json-200': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId), { headers: { accept: 'application/json' } })).status !== 204,
  'blind7-webhook-unknown-id-skips-grant': async (h) => (await h.call('DELETE', h.paths.webhook(h.f.otherBusinessId, RANDOM_V7))).status < 300,
  'blind7-message-negative-cache-by-business': async (h) => {
    await h.call('GET', h.paths.message(h.b, RANDOM_V7));
    return (await h.call('GET', h.paths.message(h.b, h.f.messageId))).status !== 200;
  },
  'blind7-message-pin-ids-swapped': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.template?.template_id !== h.f.messageTemplateId,
  'blind7-replay-location-of-latest-bulk': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, {}, 1));
    return (await h.submit(messageBody(h), { key })).headers.get('location') !== first.headers.get('location');
  },
  'blind7-own-rows-cached-under-any-business': async (h) => {
    await rows(h, { limit: '10' });
    return (await rows(h, { limit: '10' }, h.f.expiredCursorBulkId, h.f.otherBusinessId)).status === 200;
  },
  'blind7-fresh-bulk-readable-without-token': async (h) => {
    const accepted = await h.submit(messageBody(h));
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id), { as: 'none' })).status < 300;
  },
  'blind7-grant-cached-per-business': async (h) => {
    await wallet(h);
    return (await h.call('GET', h.paths.wallet(h.b), { as: 'other' })).status === 200;
  },
  'blind7-row-ids-regenerated-on-replay': async (h) => {
    const key = freshKey();
    const accepted = await h.submit(messageBody(h), { key });
    const ids = async () => (await rows(h, {}, accepted.json.id)).json.data.map((r: { id: string }) => r.id).join();
    const before = await ids();
    await h.submit(messageBody(h), { key });
    return (await ids()) !== before;
  },
  'blind7-replay-conflict-after-read': async (h) => {
    const key = freshKey();
    const accepted = await h.submit(messageBody(h), { key });
    await h.call('GET', h.paths.bulk(h.b, accepted.json.id));
    return (await h.submit(messageBody(h), { key })).status !== 202;
  },
  'blind7-replay-body-shared-object': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, { classification: 'promotional', message: 'Another text entirely.' }, 1));
    const replay = (await h.submit(messageBody(h), { key })).json;
    return replay?.message !== first.json.message || replay?.classification !== first.json.classification || replay?.intake?.good !== first.json.intake.good;
  },
  'blind7-validation-errors-accumulate': async (h) => {
    await badNumber(h);
    return errorsOf(await h.submit(messageBody(h, { classification: 'bulk' }))).some((e) => e.pointer === '/recipients/0/to');
  },
  'blind7-second-conflict-500': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, { message: 'Another text entirely.' }), { key });
    return (await h.submit(messageBody(h, { message: 'Another text entirely.' }), { key })).status >= 500;
  },
  'blind7-refused-entries-carried-into-next-bulk': async (h) => {
    await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }, 3));
    return (await h.submit(messageBody(h, { recipients: [{ to: h.f.recipients[3] }] }))).json.intake?.good !== 1;
  },
  'blind7-json-trailing-comma-accepted': async (h) => {
    const text = JSON.stringify(messageBody(h)).replace(/\]\}$/, '],}');
    return (await h.call('POST', h.paths.bulks(h.b), { body: text, headers: { 'content-type': 'application/json', 'idempotency-key': freshKey() } })).status < 300;
  },
  'blind7-placeholders-cached-per-application': async (h) => {
    await h.submit(messageBody(h));
    return (await h.submit(templateBody(h))).status !== 202;
  },
  'blind7-read-classification-of-latest-submission': async (h) => {
    const accepted = await h.submit(messageBody(h));
    await h.submit(messageBody(h, { classification: 'promotional' }));
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.classification !== 'transactional';
  },
  'blind7-foreign-rows-large-page-export': async (h) => (await rows(h, { limit: '1000' }, h.f.foreignBulkId)).status === 200,
  'blind7-unknown-business-404': async (h) => (await h.call('GET', h.paths.wallet(RANDOM_V7))).status !== (await h.call('GET', h.paths.wallet(h.f.otherBusinessId))).status,
  'blind7-number-filter-searches-all-bulks': async (h) => {
    // The fixture bulk has no row for this number; the other business's bulk has one.
    const listed = (await rows(h, { to: h.f.recipients[1]! })).json;
    return !Array.isArray(listed.data) || listed.data.length > 0;
  },
  'blind7-request-id-uuid-dehyphenated': async (h) => {
    const id = '0d3e5a7c-1b2f-4c6d-8e9f-a1b2c3d4e5f6';
    return (await wallet(h, 'primary', { 'x-request-id': id })).headers.get('x-request-id') !== id;
  },
  'blind7-number-filter-decoded-twice': async (h) => (await rows(h, { to: '+447700900123' })).status !== 200,
  'blind7-repeated-numbers-refused': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1000) }))).status !== 202,
  'number-filter-lower-hex-dropped': async (h) => {
    const listed = await h.call('GET', `${h.paths.rows(h.b, h.f.expiredCursorBulkId)}?to=%2b447700900123&limit=1000`);
    return listed.status !== 200 || listed.json.data.some((row: any) => row.to !== '+447700900123');
  },
  'number-filter-lower-hex-literal': async (h) => {
    const listed = await h.call('GET', `${h.paths.rows(h.b, h.f.expiredCursorBulkId)}?to=%2b447700900123&limit=1000`);
    return listed.status !== 200 || listed.json.data.length !== 1;
  },
  'blind7-limit-halved-after-over-limit-refusal': async (h) => {
    await h.submit(messageBody(h, { recipients: many(h, 1001) }));
    return (await h.submit(messageBody(h, { recipients: many(h, 1000) }))).status !== 202;
  },
  'refusal-leaves-staging-lock-500': async (h) => {
    await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }));
    return (await h.submit(messageBody(h))).status >= 500;
  },
  'refused-entries-carried-intake-omitted': async (h) => {
    await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }, 3));
    const accepted = await h.submit(messageBody(h, { recipients: [{ to: h.f.recipients[3] }] }));
    const listed = (await rows(h, {}, accepted.json.id)).json;
    return accepted.json.intake === null && (!Array.isArray(listed.data) || listed.data.length !== 1);
  },
  'unknown-classification-500': async (h) => (await h.submit(messageBody(h, { classification: 'bulk' }))).status >= 500,
  'blind8-malformed-authorization-400': async (h) => (await h.call('GET', h.paths.wallet(h.b), { as: { authorization: 'Bearer' } })).status !== 401,
  'blind8-cursor-padded-base64-read-raw': async (h) => {
    const first = (await rows(h, { limit: '10' })).json;
    return (await rows(h, { limit: '10', cursor: first.pagination.next_cursor })).status !== 200;
  },
  'blind8-outcomes-resolved-business-wide': async (h) => {
    const accepted = await h.submit(messageBody(h));
    await advance(h, 2000);
    return ((await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.delivery_summary?.outcomes_resolved ?? 0) > 3;
  },
  'blind8-wallet-business-id-compact': async (h) => (await wallet(h)).json.business_id !== h.b,
  'blind8-grant-refusal-names-business': async (h) => {
    const known = (await h.call('GET', h.paths.wallet(h.f.otherBusinessId))).json;
    const unknown = (await h.call('GET', h.paths.wallet(RANDOM_V7))).json;
    return Object.keys(known).sort().join() !== Object.keys(unknown).sort().join() || known.detail !== unknown.detail;
  },
  'blind8-generated-request-id-numeric-in-body': async (h) => typeof (await h.call('GET', h.paths.wallet(h.b), { as: 'none' })).json?.request_id !== 'string',
  'blind8-request-id-distrusted-after-invalid': async (h) => {
    await wallet(h, 'primary', { 'x-request-id': 'not valid!' });
    return (await wallet(h, 'primary', { 'x-request-id': 'probe-after' })).headers.get('x-request-id') !== 'probe-after';
  },
  'blind8-object-variable-value-500': async (h) =>
    (await h.submit(templateBody(h, { recipients: [{ to: h.f.recipients[0], template_variables: vars(h, () => ({ nested: 'x' })) }] }))).status >= 500,
  'blind8-401-oauth-error-body': async (h) => typeof (await h.call('GET', h.paths.wallet(h.b), { as: 'none' })).json?.code !== 'string',
  'blind8-template-id-looked-up-unvalidated': async (h) => (await h.submit(templateBody(h, { template_id: 'not-a-template-id' }))).status !== 400,
  'blind8-later-page-limit-null': async (h) => {
    const first = (await rows(h, { limit: '10' })).json;
    return (await rows(h, { limit: '10', cursor: first.pagination.next_cursor })).json?.pagination?.limit !== 10;
  },
  'blind8-webhook-deactivated-endpoint-loses-owner': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId));
    return (await h.call('DELETE', h.paths.webhook(h.f.otherBusinessId, h.f.webhookEndpointId), { as: 'other' })).status < 300;
  },
  'blind8-message-read-as-array': async (h) => Array.isArray((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json),
  'blind8-fingerprint-compared-to-latest-submission': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, { message: 'Another key, another text.' }));
    const again = await h.submit(messageBody(h), { key });
    return again.status !== 202 || again.json?.id !== first.json.id;
  },
  'blind9-large-page-sorted-by-number': async (h) => {
    const accepted = await h.submit(messageBody(h));
    const ids = (r: Reply) => (r.json?.data ?? []).map((row: { id: string }) => row.id).join();
    return ids(await rows(h, { limit: '10' }, accepted.json.id)) !== ids(await rows(h, { limit: '1000' }, accepted.json.id));
  },
  'blind9-key-record-overwritten-by-other-application': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h), { key, as: 'limited' });
    return (await h.submit(messageBody(h), { key })).json?.id !== first.json.id;
  },
  'key-on-other-business-500': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h), { key, business: h.f.otherBusinessId })).status === 500;
  },
  'blind8-replay-lookup-ignores-business': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h), { key, business: h.f.otherBusinessId })).status !== 403;
  },
  'blind9-fingerprint-first-kilobyte': async (h) => {
    const key = freshKey();
    const recipients = many(h, 100);
    await h.submit(messageBody(h, { recipients }), { key });
    const lastChanged = [...recipients.slice(0, -1), { to: h.f.recipients[0]! }];
    return (await h.submit(messageBody(h, { recipients: lastChanged }), { key })).status !== 409;
  },
  'blind8-repeat-counts-key-entries': async (h) => {
    const key = freshKey();
    const body = messageBody(h, { recipients: many(h, 1000) });
    const first = await h.submit(body, { key });
    const again = await h.submit(body, { key });
    return again.status !== 202 || again.json?.id !== first.json.id;
  },
  'blind8-template-submission-limit-unchecked': async (h) =>
    (await h.submit(templateBody(h, { recipients: many(h, 1001).map((r) => ({ ...r, template_variables: vars(h, (p) => `value of ${p}`) })) }))).status < 300,
  'blind9-over-limit-charge-deferred': async (h) => {
    const before = (await wallet(h)).json.current_balance;
    await h.submit(messageBody(h, { recipients: many(h, 1001) }));
    await h.submit(messageBody(h));
    return (await wallet(h)).json.current_balance !== before;
  },
  'blind9-over-limit-retry-accepted': async (h) => {
    const key = freshKey();
    const body = messageBody(h, { recipients: many(h, 1001) });
    await h.submit(body, { key });
    return (await h.submit(body, { key })).status !== 422;
  },
  'blind8-duplicate-send-guard-409': async (h) => {
    await h.submit(messageBody(h));
    return (await h.submit(messageBody(h, { message: 'A different text to the same numbers.' }))).status !== 202;
  },
  'blind8-foreign-rows-query-validated-before-ownership': async (h) => (await rows(h, { limit: '5000' }, h.f.foreignBulkId)).status !== (await rows(h, { limit: '5000' }, RANDOM_V7)).status,
  'blind8-webhook-any-resource-id-204': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.messageId))).status < 300,
  'blind8-walk-session-per-application': async (h) => {
    const first = (await rows(h, { limit: '10' })).json;
    const own = await h.submit(messageBody(h));
    await rows(h, {}, own.json.id);
    return (await rows(h, { limit: '10', cursor: first.pagination.next_cursor })).json?.data?.length !== 10;
  },
  'blind8-template-refusal-cached-per-application': async (h) => {
    await h.submit(templateBody(h, { template_id: h.f.inactiveTemplateId }));
    return (await h.submit(templateBody(h))).status !== 202;
  },
  'blind8-message-shows-latest-to-number': async (h) => {
    await h.submit(messageBody(h));
    return (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json?.template?.template_id !== h.f.messageTemplateId;
  },
  'blind8-empty-listing-204': async (h) => (await rows(h, { to: '+447700900999' })).status !== 200,
  'blind8-bulk-owned-by-submitting-application': async (h) => {
    const accepted = await h.submit(messageBody(h));
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id), { as: 'limited' })).status !== 200;
  },
  'blind8-wallet-refusal-cached-per-business': async (h) => {
    await wallet(h, 'limited');
    return (await wallet(h)).status !== 200;
  },
  'blind9-keys-per-worker': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h), { key })).json?.id !== first.json.id;
  },
  'blind9-cursor-superseded-by-newer': async (h) => {
    const first = (await rows(h, { limit: '10' })).json;
    await rows(h, { status: 'failed', limit: '10' });
    return (await rows(h, { limit: '10', cursor: first.pagination.next_cursor })).status !== 200;
  },
  'blind9-row-count-cached-across-filters': async (h) => {
    await rows(h, { status: 'failed', limit: '100' });
    return (await rows(h, { limit: '100' })).json.pagination.has_more !== true;
  },
  'blind9-read-from-char-padded': async (h) => {
    const accepted = await h.submit(messageBody(h));
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.from !== accepted.json.from;
  },
  'blind9-wallet-money-trailing-point': async (h) => {
    const w = (await wallet(h)).json;
    return [w.current_balance, w.available_balance, w.reserved_balance].some((v) => !/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(String(v)));
  },
  'blind9-request-id-pinned-to-connection': async (h) => {
    await wallet(h, 'primary', { 'x-request-id': 'probe-first' });
    await sleep(100);
    return (await wallet(h, 'primary', { 'x-request-id': 'probe-second' })).headers.get('x-request-id') !== 'probe-second';
  },
  'blind9-row-delivery-status-null-awaiting-report': async (h) =>
    (await rows(h, { limit: '1000' })).json.data.some((r: Record<string, unknown>) => typeof r.delivery_status !== 'string'),
  'blind9-read-shows-replay-count': async (h) => {
    const key = freshKey();
    const accepted = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h), { key });
    const read = (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json as Record<string, unknown>;
    return Object.keys(read).some((k) => !['id', 'business_id', 'from', 'classification', 'status', 'settled', 'message', 'template', 'accepted_at', 'intake', 'submission', 'delivery_summary', 'warnings'].includes(k));
  },
  'blind9-message-pin-camel-case': async (h) =>
    Object.keys((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.template ?? {}).sort().join(',') !== 'revision_id,template_id',
  'blind9-bulk-read-cached-by-url': async (h) => {
    await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId));
    return (await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId), { as: 'other' })).status < 300;
  },
  'blind9-key-reserved-by-refusal-500': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h, { recipients: [{ to: 'not-a-number' }] }), { key });
    return (await h.submit(messageBody(h), { key })).status >= 500;
  },
  'blind9-sender-verdict-cached-by-name': async (h) => {
    await h.submit(messageBody(h));
    return (await h.submit(messageBody(h), { as: 'other', business: h.f.otherBusinessId })).status < 300;
  },
  'blind9-webhook-business-lock-409': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointIds[0]!));
    return (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointIds[1]!))).status !== 204;
  },
  'blind9-retry-after-milliseconds': async (h) => {
    await h.control('POST', '/faults', { rateLimitPerMinute: 1 });
    await wallet(h);
    const limited = await wallet(h);
    return limited.status === 429 && Number(limited.headers.get('retry-after')) > 60;
  },
  'blind9-status-filter-results-cached': async (h) => {
    const accepted = await h.submit(messageBody(h));
    await rows(h, { status: 'queued' }, accepted.json.id);
    await advance(h, 2000);
    const listed = (await rows(h, { status: 'queued' }, accepted.json.id)).json.data as Array<Record<string, unknown>>;
    return listed.some((r) => r.submission_status !== 'queued' && r.delivery_status !== 'queued');
  },
  'blind9-summary-as-of-frozen-at-first-report': async (h) => {
    const accepted = await h.submit(messageBody(h));
    await advance(h, 650);
    const first = (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.delivery_summary;
    await advance(h, 1000);
    const second = (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.delivery_summary;
    return second.as_of === first.as_of;
  },
  'blind10-fingerprint-ignores-message': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h, { message: 'Another text altogether.' }), { key })).status !== 409;
  },
  'blind10-number-filter-results-cached-per-bulk': async (h) => {
    await rows(h, { to: '+447700900001' });
    const data = (await rows(h, { to: '+447700900002' })).json.data as Array<{ to: string }>;
    return data.length !== 1 || data[0]!.to !== '+447700900002';
  },
  'blind10-last-page-echoes-presented-cursor': async (h) => {
    const cursor = (await rows(h, { limit: '200' })).json.pagination.next_cursor;
    const last = (await rows(h, { limit: '200', cursor })).json.pagination;
    return last.has_more !== false || last.next_cursor !== null;
  },
  'blind10-settled-waits-for-business-retries': async (h) => {
    const single = await h.submit(messageBody(h, {}, 1));
    await advance(h, 500);
    await h.submit(messageBody(h));
    await advance(h, 200);
    const bulk = (await h.call('GET', h.paths.bulk(h.b, single.json.id))).json;
    return bulk.status === 'completed' && bulk.submission.retryable_failed_count === 0 && bulk.settled !== true;
  },
  'blind10-acceptance-status-upper-case': async (h) => (await h.submit(messageBody(h))).json.status !== 'queued',
  'blind10-request-id-header-doubled': async (h) => (await wallet(h, 'primary', { 'x-request-id': 'rid-probe.1' })).headers.get('x-request-id') !== 'rid-probe.1',
  'blind10-problem-title-of-previous-code': async (h) => {
    await badNumber(h);
    const first = await h.call('GET', h.paths.bulk(h.b, RANDOM_V7));
    const second = await h.call('GET', h.paths.bulk(h.b, RANDOM_V7));
    return first.json.title !== second.json.title;
  },
  'blind10-extra-members-tolerated-after-acceptance': async (h) => {
    await h.submit(messageBody(h));
    return (await h.submit(messageBody(h, { priority: 'high' }))).status !== 400;
  },
  'blind10-pagination-has-more-numeric': async (h) => typeof (await rows(h, { limit: '10' })).json.pagination.has_more !== 'boolean',
  'blind10-cached-listing-page-octet-stream': async (h) => {
    await rows(h, { limit: '5' });
    return !/^application\/json/.test((await rows(h, { limit: '5' })).headers.get('content-type') ?? '');
  },
  'blind10-webhook-second-deactivation-queued-202': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointIds[0]!));
    return (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointIds[1]!))).status !== 204;
  },
  'blind10-webhook-negative-cache-by-business': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, RANDOM_V7));
    return (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).status !== 204;
  },
  'blind10-message-classification-capitalized': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.classification !== 'transactional',
  'blind10-filters-merged-with-previous-listing': async (h) => {
    await rows(h, { status: 'failed' });
    const data = (await rows(h, { to: '+447700900000' })).json.data as unknown[];
    return data.length !== 1;
  },
  'blind10-listing-grant-from-cursor': async (h) => {
    const cursor = (await rows(h, { limit: '10' })).json.pagination.next_cursor;
    return (await rows(h, { cursor }, h.f.expiredCursorBulkId, h.f.otherBusinessId)).status !== 403;
  },
  'blind10-grant-refusal-cached-before-auth': async (h) => {
    await h.call('GET', h.paths.wallet(h.f.otherBusinessId));
    return (await h.call('GET', h.paths.wallet(h.f.otherBusinessId), { as: 'none' })).status !== 401;
  },
  'blind10-wallet-replay-by-request-id': async (h) => {
    await wallet(h, 'primary', { 'x-request-id': 'wallet-read-1' });
    return (await wallet(h, 'limited', { 'x-request-id': 'wallet-read-1' })).status === 200;
  },
  'blind10-wallet-business-id-upper-case': async (h) => (await wallet(h)).json.business_id !== h.b,
  'blind-message-business-id-uppercase': async (h) => (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.business_id !== h.b,
  'blind10-known-bad-numbers-left-out-of-count': async (h) => {
    await badNumber(h);
    return (await h.submit(messageBody(h, { recipients: [...many(h, 1000), { to: 'not-a-number' }] }))).status !== 422;
  },
  'blind10-count-excludes-recently-sent-numbers': async (h) => {
    await h.submit(messageBody(h, {}, 4));
    return (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).status !== 422;
  },
  'blind10-generated-request-id-derived-from-previous': async (h) => {
    await wallet(h, 'primary', { 'x-request-id': 'r'.repeat(128) });
    const generated = (await wallet(h)).headers.get('x-request-id') ?? '';
    return !/^[A-Za-z0-9._-]{1,128}$/.test(generated);
  },
  'blind10-content-defaulted-from-previous-submission': async (h) => {
    await h.submit(messageBody(h));
    const { message: _dropped, ...neither } = messageBody(h);
    return (await h.submit(neither)).status !== 400;
  },
  'blind10-message-pin-of-latest-submission': async (h) => {
    await h.submit(messageBody(h));
    const pin = (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.template;
    return pin?.template_id !== h.f.messageTemplateId;
  },
  'blind10-message-visible-through-shared-number': async (h) => {
    await h.submit(messageBody(h));
    return (await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))).status !== 404;
  },
};

describe('defect registry', () => {
  it('holds at least 40 defects with unique kebab-case ids', () => {
    expect(DEFECTS.length).toBeGreaterThanOrEqual(40);
    const ids = DEFECTS.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('covers every topic with at least two defects', () => {
    for (const topic of TOPICS) expect(DEFECTS.filter((d) => d.topic === topic).length, topic).toBeGreaterThanOrEqual(2);
  });

  it('names a catalogue requirement of a must or should level and the same topic for each defect', () => {
    // A should-level break earns a warning, which the matrix accepts for such a defect (judgeDefect).
    // PROB-NO-5XX-FOR-CLIENT-FAULT is judged inside the checks of every topic that sends a client
    // fault (expectNoServerFault), so a defect breaking it belongs to the topic whose check sees it.
    // VAL-PATH-UUIDV7 is judged for message ids inside messages' own check too (a validation
    // defect's run holds the validation topic only, so it cannot prove that check's site).
    // request-id-regenerated-on-204 breaks RID-ECHO on the deactivation's 204 alone, the API's one
    // bodiless answer, which webhooks' own check judges.
    const crossTopic = new Set<string>(['PROB-NO-5XX-FOR-CLIENT-FAULT', 'VAL-PATH-UUIDV7']);
    // blind7-validation-errors-accumulate shows as errors[] naming another request's fault, which
    // validation's single-violation checks judge (they know the one fault each case has).
    const crossTopicDefects = new Set<string>(['request-id-regenerated-on-204', 'blind7-validation-errors-accumulate']);
    for (const d of DEFECTS) {
      const r = requirementById(d.requirement);
      expect(r, d.id).toBeDefined();
      expect(['must', 'should'], d.id).toContain(r!.level);
      if (!crossTopic.has(d.requirement) && !crossTopicDefects.has(d.id)) expect(r!.topic, d.id).toBe(d.topic);
    }
  });

  it('has a probe for every defect', () => {
    expect(Object.keys(probes).sort()).toEqual(DEFECTS.map((d) => d.id).sort());
  });

  it('refuses unknown defect ids at start', async () => {
    await expect(startReference({ defects: ['no-such-defect'] })).rejects.toThrow(/unknown defect/);
  });
});

describe('each defect breaks its rule, and only with the defect on', () => {
  holdsProbesBothWays(DEFECTS, probes);
});
