// The blind defect registry (reference/blind-defects.ts): at least 40 defects per round (30 in rounds 8 to 10) over all 13 topics,
// apart from the main registry, each accepted by the reference's defect machinery and each one
// observable: its probe finds the rule intact on the faithful reference and broken with that
// defect alone switched on.
import { describe, expect, it } from 'vitest';
import { BLIND_DEFECTS, type BlindDefectId } from '../../reference/blind-defects.ts';
import { DEFECTS, activeDefects, isDefectId, type Defect } from '../../reference/defects.ts';
import { TOPICS } from '../../core/model.ts';
import { requirementById } from '../../spec/requirements.ts';
import { RANDOM_V7, UTC_Z, UUID_V7, freshKey, holdsProbesBothWays, messageBody, sleep, templateBody, type Harness, type Reply } from './helpers.ts';

const advance = (h: Harness, ms: number) => h.control('POST', '/clock/advance', { ms });
const wallet = (h: Harness, as: 'primary' | 'limited' = 'primary', headers: Record<string, string> = {}) => h.call('GET', h.paths.wallet(h.b), { as, headers });
const rows = (h: Harness, query: Record<string, string>, bulk = h.f.expiredCursorBulkId, business = h.b) => h.call('GET', h.paths.rows(business, bulk), { query });
const many = (h: Harness, n: number) => Array.from({ length: n }, (_, i) => ({ to: h.f.recipients[i % h.f.recipients.length]! }));
const vars = (h: Harness, value: (p: string) => unknown) => Object.fromEntries(h.f.templatePlaceholders.map((p) => [p, value(p)]));
/** A body refused with 400 validation_failed for its first recipient's number. */
const badNumber = (h: Harness) => h.submit(messageBody(h, { recipients: [{ to: 'not-a-number' }] }));
const errorsOf = (r: Reply): Array<Record<string, unknown>> => (Array.isArray(r.json?.errors) ? r.json.errors : []);

/** Each probe answers: is the rule this blind defect targets broken on this reference? */
const probes: Record<BlindDefectId, (h: Harness) => Promise<boolean>> = {
  // auth-ordering
  // recipient-limits
  'blind-body-limit-100kb': async (h) => {
    const long = vars(h, (p) => `${p}:${'x'.repeat(200)}`);
    const body = templateBody(h, { recipients: many(h, 1000).map((r) => ({ ...r, template_variables: long })) });
    return (await h.submit(body)).status !== 202;
  },
  'blind-over-limit-truncated': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).status < 300,
  // bulk-invariants
  'blind-settled-requires-no-failures': async (h) => {
    const accepted = await h.submit(messageBody(h));
    await advance(h, 2000);
    const bulk = (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json;
    return bulk.status === 'completed' && bulk.submission.retryable_failed_count === 0 && bulk.settled !== true;
  },
  // concealment
  // problem-details
  'blind-pointer-one-based': async (h) => !errorsOf(await badNumber(h)).some((e) => e.pointer === '/recipients/0/to'),
  // schemas
  'blind-intake-total-member': async (h) => Object.keys((await h.submit(messageBody(h))).json.intake ?? {}).some((k) => !['good', 'bad', 'empty'].includes(k)),
  // webhooks
  'blind-webhook-skips-grant': async (h) => (await h.call('DELETE', h.paths.webhook(h.f.otherBusinessId, h.f.foreignWebhookEndpointId))).status < 300,
  // auth-ordering
  'blind-validation-before-grant': async (h) => (await h.submit(messageBody(h, { recipients: [{ to: 'not-a-number' }] }), { business: h.f.otherBusinessId })).status !== 403,
  // idempotency
  'blind-fingerprint-raw-text': async (h) => {
    const key = freshKey();
    const post = (text: string) => h.call('POST', h.paths.bulks(h.b), { body: text, headers: { 'content-type': 'application/json', 'idempotency-key': key } });
    await post(JSON.stringify(messageBody(h)));
    return (await post(JSON.stringify(messageBody(h), null, 2))).status !== 202;
  },
  // cursors
  'blind-cursor-lifetime-seconds': async (h) => {
    const cursor = (await rows(h, { limit: '10' })).json.pagination.next_cursor;
    await advance(h, 120_000);
    return (await rows(h, { cursor })).status !== 200;
  },
  // bulk-invariants
  // wallet
  // concealment
  // request-id
  // concealment
  // problem-details
  'blind-problem-instance-with-space': async (h) => /\s/.test(String((await badNumber(h)).json.instance)),
  // schemas
  'blind-warning-severity': async (h) => {
    const accepted = await h.submit(messageBody(h));
    const warnings = (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.warnings as Array<Record<string, unknown>>;
    return warnings.some((w) => Object.keys(w).sort().join(',') !== 'code,detail');
  },
  'blind-pin-revision-number': async (h) => {
    const accepted = await h.submit(templateBody(h));
    const pin = (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.template ?? {};
    return Object.keys(pin).sort().join(',') !== 'revision_id,template_id';
  },
  // webhooks
  'blind-webhook-malformed-id-204': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, 'not-an-endpoint-id'))).status < 300,
  'blind-webhook-wallet-permission': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId), { as: 'limited' })).status !== 204,
  // messages
  // round 3
  // auth-ordering
  'blind3-sender-before-grant': async (h) => (await h.submit(messageBody(h), { business: h.f.otherBusinessId })).json?.code !== 'permission_denied',
  // idempotency
  // recipient-limits
  // cursors
  // bulk-invariants
  // wallet
  // concealment
  'blind3-foreign-bulk-rows-403': async (h) => (await rows(h, {}, h.f.foreignBulkId)).status !== (await rows(h, {}, RANDOM_V7)).status,
  // request-id
  // problem-details
  'blind3-pointer-slash-unescaped': async (h) => !errorsOf(await h.submit(messageBody(h, { 'a/b': 'x' }))).some((e) => e.pointer === '/a~1b'),
  'blind3-null-recipient-500': async (h) => (await h.submit(messageBody(h, { recipients: [null] }))).status >= 500,
  // validation
  'blind3-blank-message-refused': async (h) => (await h.submit(messageBody(h, { message: '   ' }))).status !== 202,
  // schemas
  'blind3-row-times-empty-string': async (h) =>
    (await rows(h, { limit: '1000' })).json.data.some((r: Record<string, unknown>) => ['submitted_at', 'delivered_at', 'failed_at'].some((k) => r[k] === '')),
  // webhooks
  'blind3-webhook-foreign-204-noop': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.foreignWebhookEndpointId))).status < 300,
  // messages
  // round 4
  // auth-ordering
  'blind4-grant-cached-per-application': async (h) => {
    await wallet(h);
    return (await h.call('GET', h.paths.wallet(h.f.otherBusinessId))).status === 200;
  },
  'blind4-delete-token-decoded-unverified': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId), { as: { bearer: h.f.expiredToken } })).status < 300,
  'blind4-listing-query-validated-before-auth': async (h) => (await h.call('GET', h.paths.rows(h.b, h.f.expiredCursorBulkId), { as: 'none', query: { limit: '5000' } })).status !== 401,
  // idempotency
  'blind4-fingerprint-includes-request-id': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key, headers: { 'x-request-id': 'probe-first' } });
    return (await h.submit(messageBody(h), { key, headers: { 'x-request-id': 'probe-repeat' } })).status !== 202;
  },
  // recipient-limits
  'blind4-promotional-limit-500': async (h) => (await h.submit(messageBody(h, { classification: 'promotional', recipients: many(h, 1000) }))).status !== 202,
  // cursors
  'blind4-has-more-counts-unfiltered-rows': async (h) => (await rows(h, { to: '+447700900000' })).json.pagination.has_more !== false,
  // bulk-invariants
  'blind4-read-accepted-at-seconds': async (h) => {
    // A time on a whole second reads alike either way: step off it first.
    if ((await h.control('GET', '/clock')).now % 1000 === 0) await advance(h, 1);
    const accepted = await h.submit(messageBody(h));
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.accepted_at !== accepted.json.accepted_at;
  },
  'blind4-location-business-upper-case': async (h) => {
    const accepted = await h.submit(messageBody(h));
    const read = await h.call('GET', new URL(accepted.headers.get('location')!, h.ref.baseUrl).pathname);
    return read.status !== 200 || read.json.id !== accepted.json.id;
  },
  'blind4-acceptance-warnings-omitted': async (h) => !Array.isArray((await h.submit(messageBody(h))).json.warnings),
  'blind4-read-intake-latest-bulk': async (h) => {
    const three = await h.submit(messageBody(h, {}, 3));
    await h.submit(messageBody(h, {}, 1));
    return (await h.call('GET', h.paths.bulk(h.b, three.json.id))).json.intake?.good !== 3;
  },
  // wallet
  'blind4-wallet-available-cached': async (h) => {
    await wallet(h);
    await h.submit(messageBody(h));
    const w = (await wallet(h)).json;
    return w.available_balance !== w.current_balance;
  },
  // concealment
  'blind4-foreign-message-second-lookup-cached': async (h) => {
    await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId));
    return (await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId))).status === 200;
  },
  'blind4-foreign-webhook-404-names-owner': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.foreignWebhookEndpointId))).text.includes(h.f.otherBusinessId),
  'blind4-unknown-webhook-403': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, RANDOM_V7))).status !== 404,
  // request-id
  'blind4-request-id-leading-punctuation-replaced': async (h) => (await wallet(h, 'primary', { 'x-request-id': '-probe.1' })).headers.get('x-request-id') !== '-probe.1',
  'blind4-request-id-regenerated-on-400': async (h) =>
    (await h.submit(messageBody(h, { recipients: [{ to: 'not-a-number' }] }), { headers: { 'x-request-id': 'probe-400' } })).headers.get('x-request-id') !== 'probe-400',
  // problem-details
  'blind4-sender-not-authorized-422': async (h) => (await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }))).status !== 403,
  // validation
  'blind4-from-max-19': async (h) => (await h.submit(messageBody(h, { from: 'A'.repeat(20) }))).json?.code !== 'sender_not_authorized',
  'blind4-e164-sixteen-digits': async (h) => (await h.submit(messageBody(h, { recipients: [{ to: `+1${'2'.repeat(15)}` }] }))).status < 300,
  'blind4-archived-template-409': async (h) => (await h.submit(templateBody(h, { template_id: h.f.inactiveTemplateId }))).status !== 422,
  // schemas
  'blind4-summary-total-member': async (h) =>
    Object.keys((await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId))).json.delivery_summary ?? {}).sort().join(',') !== 'as_of,complete,outcomes_resolved',
  'blind4-submission-pending-member': async (h) =>
    Object.keys((await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId))).json.submission ?? {}).some((k) => !['processed', 'success', 'failed', 'retryable_failed_count', 'exhausted'].includes(k)),
  'blind4-warning-detail-null': async (h) => {
    const accepted = await h.submit(messageBody(h));
    const warnings = (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.warnings as Array<Record<string, unknown>>;
    return warnings.some((w) => typeof w.detail !== 'string');
  },
  'blind4-pagination-limit-null-by-default': async (h) => (await rows(h, {})).json.pagination.limit !== 100,
  // webhooks
  // messages
  'blind4-message-cache-keyed-by-business': async (h) => {
    await h.call('GET', h.paths.message(h.b, h.f.messageId));
    return (await h.call('GET', h.paths.message(h.b, RANDOM_V7))).status === 200;
  },
  'blind4-message-submitted-at-date-only': async (h) => !UTC_Z.test((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.submitted_at),
  'blind4-message-to-masked': async (h) => !/^\+[1-9]\d{7,14}$/.test((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.to),
  // sequences
  // round 5
  // auth-ordering
  'blind5-expired-token-leeway': async (h) => (await h.call('GET', h.paths.wallet(h.b), { as: { bearer: h.f.expiredToken } })).status < 300,
  // idempotency
  'blind5-content-dedupe-across-keys': async (h) => (await h.submit(messageBody(h))).json.id === (await h.submit(messageBody(h))).json.id,
  'blind5-replay-body-empty-after-first': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h), { key });
    return (await h.submit(messageBody(h), { key })).json?.id !== first.json.id;
  },
  // recipient-limits
  'blind5-over-limit-status-400': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).status !== 422,
  'blind5-at-max-insert-500': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1000) }))).status !== 202,
  // cursors
  'blind5-cursor-ignored-with-filters': async (h) => {
    const first = (await rows(h, { status: 'delivered', limit: '10' })).json;
    const second = (await rows(h, { status: 'delivered', limit: '10', cursor: first.pagination.next_cursor })).json;
    return second.data[0]?.id === first.data[0].id;
  },
  'blind5-filtered-limit-max-500': async (h) => (await rows(h, { status: 'delivered', limit: '1000' })).status !== 200,
  // bulk-invariants
  'blind5-settled-cached-at-first-read': async (h) => {
    const accepted = await h.submit(messageBody(h));
    await h.call('GET', h.paths.bulk(h.b, accepted.json.id));
    await advance(h, 2000);
    const bulk = (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json;
    return bulk.status === 'completed' && bulk.submission.retryable_failed_count === 0 && bulk.settled !== true;
  },
  'blind5-intake-good-counts-queue': async (h) => {
    const accepted = await h.submit(messageBody(h));
    const before = (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.intake.good;
    await advance(h, 2000);
    return (await h.call('GET', h.paths.bulk(h.b, accepted.json.id))).json.intake.good < before;
  },
  'blind5-location-id-drafted-apart': async (h) => {
    const accepted = await h.submit(messageBody(h));
    const read = await h.call('GET', new URL(accepted.headers.get('location')!, h.ref.baseUrl).pathname);
    return read.status !== 200 || read.json.id !== accepted.json.id;
  },
  // wallet
  'blind5-wallet-balance-plus-sign': async (h) => !/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test((await wallet(h)).json.current_balance),
  // concealment
  'blind5-rows-of-message-id': async (h) => (await rows(h, {}, h.f.foreignMessageId)).status === 200,
  // request-id
  'blind5-wallet-correlation-id-header': async (h) => (await wallet(h)).headers.get('x-request-id') === null,
  // problem-details
  'blind5-retry-after-fractional': async (h) => {
    await h.control('POST', '/faults', { rateLimitPerMinute: 1 });
    await wallet(h);
    const limited = await wallet(h);
    const retry = limited.headers.get('retry-after') ?? '';
    return limited.status === 429 && !/^\d+$/.test(retry) && Number.isNaN(Date.parse(retry));
  },
  'blind5-missing-member-error-code-null': async (h) => {
    const { from: _from, ...withoutFrom } = messageBody(h);
    return errorsOf(await h.submit(withoutFrom)).some((e) => typeof e.code !== 'string');
  },
  // validation
  'blind5-recipient-null-to-dropped': async (h) => (await h.submit(messageBody(h, { recipients: [{ to: h.f.recipients[0] }, { to: null }] }))).status < 300,
  // schemas
  'blind5-empty-page-data-null': async (h) => !Array.isArray((await rows(h, { to: '+447700900999' })).json.data),
  'blind5-submission-zero-counts-null': async (h) =>
    Object.values((await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId))).json.submission ?? {}).some((v) => typeof v !== 'number'),
  'blind5-acceptance-pin-revision-null': async (h) => !UUID_V7.test(String((await h.submit(templateBody(h))).json.template?.revision_id)),
  // webhooks
  'blind5-webhook-idempotency-key-required': async (h) => (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).status !== 204,
  'blind5-webhook-busy-while-bulk-in-flight': async (h) => {
    await h.submit(messageBody(h));
    return (await h.call('DELETE', h.paths.webhook(h.b, h.f.webhookEndpointId))).status !== 204;
  },
  // messages
  'blind5-message-repeat-read-304': async (h) => {
    await h.call('GET', h.paths.message(h.b, h.f.messageId));
    return (await h.call('GET', h.paths.message(h.b, h.f.messageId))).status !== 200;
  },
  'blind5-message-classification-ordinal': async (h) => typeof (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.classification !== 'string',
  'blind5-message-status-bulk-vocabulary': async (h) =>
    !['queued', 'sent', 'delivered', 'failed'].includes((await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.status),
  // sequences
  'blind5-bulk-ownership-skipped-after-own-read': async (h) => {
    await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId));
    return (await h.call('GET', h.paths.bulk(h.b, h.f.foreignBulkId))).status === 200;
  },
  'blind5-key-released-after-conflict': async (h) => {
    const key = freshKey();
    const accepted = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, { message: 'Another text entirely.' }), { key });
    return (await h.submit(messageBody(h), { key })).json?.id !== accepted.json.id;
  },
  // round 6
  // auth-ordering
  // idempotency
  // recipient-limits
  // cursors
  // bulk-invariants
  // wallet
  // concealment
  'blind6-listing-cache-by-bulk-and-query': async (h) => {
    await h.call('GET', h.paths.rows(h.f.otherBusinessId, h.f.foreignBulkId), { as: 'other', query: { limit: '10' } });
    return (await rows(h, { limit: '10' }, h.f.foreignBulkId)).status === 200;
  },
  // request-id
  // problem-details
  // problem-details
  // validation
  // schemas
  // webhooks
  // messages
  // sequences
  // round 7
  // auth-ordering
  'blind7-listing-query-validated-before-grant': async (h) => (await rows(h, { limit: '5000' }, h.f.foreignBulkId, h.f.otherBusinessId)).status !== 403,
  // idempotency
  // recipient-limits
  // cursors
  // bulk-invariants
  // wallet
  // concealment
  // request-id
  // problem-details
  // validation
  // schemas
  // webhooks
  // messages
  // sequences
  'blind7-cursor-indexes-last-result-set': async (h) => {
    const all = (await rows(h, { limit: '20' })).json.data.map((r: { id: string }) => r.id);
    const first = (await rows(h, { limit: '10' })).json;
    await rows(h, { status: 'failed', limit: '10' });
    const second = (await rows(h, { limit: '10', cursor: first.pagination.next_cursor })).json;
    return second.data.map((r: { id: string }) => r.id).join() !== all.slice(10, 20).join();
  },
  'blind7-status-completed-with-errors': async (h) =>
    !['created', 'scheduled', 'queued', 'processing', 'paused', 'completed', 'failed', 'cancelled'].includes((await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId))).json.status),
  // round 8
  // auth-ordering
  'blind8-permission-cached-per-business': async (h) => {
    await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId), { as: 'limited' });
    return (await wallet(h, 'limited')).status === 200;
  },
  // idempotency
  // recipient-limits
  'blind8-over-limit-429-rate-limited': async (h) => (await h.submit(messageBody(h, { recipients: many(h, 1001) }))).json?.code !== 'recipient_limit_exceeded',
  // cursors
  'blind8-cursor-next-link-url': async (h) => {
    const first = (await rows(h, { limit: '10' })).json;
    return (await rows(h, { limit: '10', cursor: first.pagination.next_cursor })).status !== 200;
  },
  // bulk-invariants
  // wallet
  // wallet
  // concealment
  // request-id
  // problem-details
  // validation
  // schemas
  // schemas
  // webhooks
  // messages
  // sequences
  'blind8-rows-touched-by-filter-first': async (h) => {
    const ids = (r: Reply) => (r.json?.data ?? []).map((row: { id: string }) => row.id).join();
    const before = ids(await rows(h, { limit: '10' }));
    await rows(h, { status: 'failed', limit: '5' });
    return ids(await rows(h, { limit: '10' })) !== before;
  },
  // round 9
  // auth-ordering
  'blind9-auth-remembered-on-connection': async (h) => {
    await wallet(h);
    // Back-to-back requests may each open a connection: let the first one's go idle for reuse.
    await sleep(100);
    return (await h.call('GET', h.paths.wallet(h.b), { as: 'none' })).status !== 401;
  },
  'blind9-client-blocked-after-invalid-token': async (h) => {
    await h.call('GET', h.paths.wallet(h.b), { as: { bearer: h.f.expiredToken } });
    return (await wallet(h)).status !== 200;
  },
  // idempotency
  // recipient-limits
  // cursors
  // bulk-invariants
  'blind9-outcomes-accumulated-per-read': async (h) => {
    await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId));
    const bulk = (await h.call('GET', h.paths.bulk(h.b, h.f.expiredCursorBulkId))).json;
    return bulk.delivery_summary.outcomes_resolved > bulk.intake.good + bulk.intake.bad + bulk.intake.empty;
  },
  // wallet
  'blind9-wallet-as-of-first-load': async (h) => {
    const first = (await wallet(h)).json.as_of;
    await advance(h, 5000);
    return (await wallet(h)).json.as_of === first;
  },
  // concealment
  'blind9-key-table-global': async (h) => {
    const key = freshKey();
    const accepted = await h.submit(messageBody(h), { key });
    const other = await h.submit(messageBody(h), { key, as: 'other', business: h.f.otherBusinessId });
    return other.status < 300 || other.text.includes(accepted.json.id) || other.text.includes(h.b);
  },
  // request-id
  'blind9-request-id-overridden-by-idempotency-key': async (h) =>
    (await h.submit(messageBody(h), { headers: { 'x-request-id': 'probe-submission' } })).headers.get('x-request-id') !== 'probe-submission',
  // problem-details
  // validation
  'blind9-sender-lookup-case-insensitive': async (h) => (await h.submit(messageBody(h, { from: h.f.senderId.toLowerCase() }))).status < 300,
  // schemas
  // webhooks
  'blind9-webhook-404-leaves-tombstone': async (h) => {
    await h.call('DELETE', h.paths.webhook(h.b, RANDOM_V7));
    return (await h.call('DELETE', h.paths.webhook(h.b, RANDOM_V7))).status !== 404;
  },
  // messages
  'blind9-message-rerendered-with-latest-variables': async (h) => {
    const before = (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.message;
    await h.submit(templateBody(h));
    return (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json.message !== before;
  },
  // sequences
  // Round 10 (blind10-).
  // auth-ordering
  // idempotency
  'blind10-fingerprint-includes-content-type': async (h) => {
    const key = freshKey();
    const post = (type: string) => h.call('POST', h.paths.bulks(h.b), { body: JSON.stringify(messageBody(h)), headers: { 'content-type': type, 'idempotency-key': key } });
    const first = await post('application/json');
    const again = await post('application/json; charset=utf-8');
    return again.status !== 202 || again.json?.id !== first.json.id;
  },
  // recipient-limits
  // cursors
  // bulk-invariants
  'blind10-warnings-list-shared-across-responses': async (h) => {
    const first = await h.submit(messageBody(h));
    await h.call('GET', h.paths.bulk(h.b, first.json.id));
    const warnings = (await h.submit(messageBody(h))).json.warnings;
    return !Array.isArray(warnings) || warnings.length !== 0;
  },
  // wallet
  // concealment
  // request-id
  // problem-details
  'blind10-retry-after-iso-timestamp': async (h) => {
    await h.control('POST', '/faults', { rateLimitPerMinute: 1 });
    await wallet(h);
    const limited = await wallet(h);
    const retryAfter = limited.headers.get('retry-after') ?? '';
    return limited.status !== 429 || !(/^\d+$/.test(retryAfter) || /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(retryAfter));
  },
  // validation
  // schemas
  // webhooks
  // messages
  // sequences
  'blind10-key-released-by-over-limit-repeat': async (h) => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.submit(messageBody(h, { recipients: many(h, 1001) }), { key });
    return (await h.submit(messageBody(h), { key })).json?.id !== first.json.id;
  },
  'blind10-unknown-bulk-shimmed-after-acceptance': async (h) => {
    await h.submit(messageBody(h));
    return (await h.call('GET', h.paths.bulk(h.b, RANDOM_V7))).status !== 404;
  },
  'blind10-conflict-request-id-of-original': async (h) => {
    const key = freshKey();
    await h.submit(messageBody(h), { key, headers: { 'x-request-id': 'original-submission' } });
    const conflict = await h.submit(messageBody(h, { classification: 'promotional' }), { key, headers: { 'x-request-id': 'conflicting-repeat' } });
    return conflict.json?.request_id !== conflict.headers.get('x-request-id');
  },
};

/** The authoring rounds so far. */
const ROUNDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

/** Compile-time: a blind defect has the main registry's shape (a scorer may list both alike). */
const asDefects: readonly Defect[] = BLIND_DEFECTS;

describe('blind defect registry', () => {
  it('has the shape of the main registry', () => {
    expect(asDefects.length).toBe(BLIND_DEFECTS.length);
  });

  // A blind defect caught once its misses were closed moves to the main registry with its id
  // (issue 29): what was written blind in round 1 is the two together.
  // Round 3's to 9's ids say their round (blind3- to blind9-), moved or not.
  const roundOf = (d: { id: string }) => ('round' in d ? (d.round as number) : d.id.startsWith('blind10-') ? 10 : d.id.startsWith('blind9-') ? 9 : d.id.startsWith('blind8-') ? 8 : d.id.startsWith('blind7-') ? 7 : d.id.startsWith('blind6-') ? 6 : d.id.startsWith('blind5-') ? 5 : d.id.startsWith('blind4-') ? 4 : d.id.startsWith('blind3-') ? 3 : 1);
  const writtenBlind = [...BLIND_DEFECTS, ...DEFECTS.filter((d) => /^blind(?:[3456789]|10)?-/.test(d.id))];
  /** Rounds 1 to 7 wrote at least 40 defects each; rounds 8 to 10 were asked for 30. */
  const atLeast = (round: number) => (round === 8 || round === 9 || round === 10 ? 30 : 40);

  it('holds at least 40 defects per round (30 in rounds 8 to 10) with unique kebab-case ids prefixed blind- (blind3- to blind10- in rounds 3 to 10), apart from the main registry', () => {
    for (const round of ROUNDS) expect(writtenBlind.filter((d) => roundOf(d) === round).length, `round ${round}`).toBeGreaterThanOrEqual(atLeast(round));
    const ids = BLIND_DEFECTS.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    const main = new Set(DEFECTS.map((d) => d.id));
    for (const id of ids) {
      expect(id).toMatch(/^blind(?:[3456789]|10)?-[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(main.has(id), id).toBe(false);
    }
  });

  /** Moved by the lead to the topic whose check sees it, after the round was scored: the topic it was written under. */
  const WRITTEN_UNDER: Record<string, string> = { 'blind8-object-variable-value-500': 'problem-details' };
  const writtenTopic = (d: { id: string; topic: string }) => WRITTEN_UNDER[d.id] ?? d.topic;

  it('covers every topic with at least two defects in each round, rounds 1 to 10 only', () => {
    for (const d of BLIND_DEFECTS) expect(ROUNDS, d.id).toContain(d.round);
    for (const round of ROUNDS) {
      for (const topic of TOPICS.filter((t) => t !== 'sequences')) expect(writtenBlind.filter((d) => roundOf(d) === round && writtenTopic(d) === topic).length, `${topic} round ${round}`).toBeGreaterThanOrEqual(2);
    }
  });

  it('names a must or should requirement of its own topic for each defect', () => {
    for (const d of BLIND_DEFECTS) {
      const r = requirementById(d.requirement);
      expect(r, d.id).toBeDefined();
      expect(['must', 'should'], d.id).toContain(r!.level);
      expect(r!.topic, d.id).toBe(d.topic);
      expect(d.description.length, d.id).toBeGreaterThan(20);
    }
  });

  it('has a probe for every defect', () => {
    expect(Object.keys(probes).sort()).toEqual(BLIND_DEFECTS.map((d) => d.id).sort());
  });

  it('is accepted by the defect machinery alongside the main registry', () => {
    for (const d of BLIND_DEFECTS) expect(isDefectId(d.id), d.id).toBe(true);
    expect([...activeDefects([BLIND_DEFECTS[0]!.id, DEFECTS[0]!.id])].sort()).toEqual([BLIND_DEFECTS[0]!.id, DEFECTS[0]!.id].sort());
    expect(() => activeDefects(['blind-no-such-defect'])).toThrow(/unknown defect/);
  });
});

describe('each blind defect breaks its rule, and only with the defect on', () => {
  holdsProbesBothWays(BLIND_DEFECTS, probes);
});
