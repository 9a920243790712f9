// Section 2: every response of the reference against the document's schemas (spec/openapi.yaml),
// plus the rules a schema cannot express alone.
import { describe, expect, it } from 'vitest';
import { validateResponse } from '../../spec/validators.ts';
import type { OperationId } from '../../spec/contract.ts';
import { RANDOM_V7, UTC_Z, UUID_V7, messageBody, templateBody, useReference, type Reply } from './helpers.ts';

const T0 = Date.now();
const h = useReference({ now: () => T0 });
const advance = (ms: number) => h.control('POST', '/clock/advance', { ms });

function conforms(operation: OperationId, r: Reply) {
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => (headers[k] = v));
  const failures = validateResponse(operation, r.status, headers, r.json, r.text);
  expect(failures.map((f) => `${f.in} ${f.pointer} ${f.keyword}: ${f.message}`)).toEqual([]);
}

function timestamps(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => timestamps(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if ((k.endsWith('_at') || k === 'as_of') && typeof v === 'string') out.push(v);
      else timestamps(v, out);
    }
  }
  return out;
}

describe('response schemas', () => {
  it('matches the schema of every operation at every lifecycle stage [SCH-RESPONSE-SCHEMAS, SCH-JSON-MEDIA-TYPE, SCH-BULK-REQUIRED, SCH-BULK-FIELD-TYPES, SCH-INTAKE-FIELDS, SCH-SUBMISSION-FIELDS, SCH-WARNING-SHAPE]', async () => {
    const accepted = await h.submit(messageBody(h, {}, 4));
    conforms('createSmsBulkMessage', accepted);
    const templated = await h.submit(templateBody(h));
    conforms('createSmsBulkMessage', templated);
    for (let i = 0; i < 12; i++) {
      conforms('getSmsBulkMessage', await h.call('GET', h.paths.bulk(h.b, accepted.json.id)));
      conforms('listSmsBulkMessageRecipients', await h.call('GET', h.paths.rows(h.b, accepted.json.id)));
      await advance(100);
    }
    conforms('getSmsBulkMessage', await h.call('GET', h.paths.bulk(h.b, templated.json.id)));
    conforms('listSmsBulkMessageRecipients', await h.call('GET', h.paths.rows(h.b, h.f.expiredCursorBulkId), { query: { limit: '1000' } }));
    conforms('getSmsMessage', await h.call('GET', h.paths.message(h.b, h.f.messageId)));
    conforms('getWalletBalance', await h.call('GET', h.paths.wallet(h.b)));
    conforms('deactivateWebhookEndpoint', await h.call('DELETE', h.paths.webhook(h.b, h.ref.extras.webhookEndpointIds[9]!)));
  });

  it('matches the problem schema on error answers of each operation [SCH-RESPONSE-SCHEMAS]', async () => {
    conforms('createSmsBulkMessage', await h.submit(messageBody(h, { from: '' })));
    conforms('getSmsBulkMessage', await h.call('GET', h.paths.bulk(h.b, RANDOM_V7)));
    conforms('getWalletBalance', await h.call('GET', h.paths.wallet(h.b), { as: 'limited' }));
    conforms('deactivateWebhookEndpoint', await h.call('DELETE', h.paths.webhook(h.b, RANDOM_V7)));
  });

  it('uses UUIDv7 ids, UTC Z timestamps, E.164 numbers, sender ids and classifications [SCH-UUIDV7, SCH-UTC-TIMESTAMPS, SCH-E164, SCH-SENDER-ID, SCH-CLASSIFICATION, SCH-TEMPLATE-PIN]', async () => {
    const bulk = (await h.submit(templateBody(h))).json;
    await advance(2000);
    const again = (await h.call('GET', h.paths.bulk(h.b, bulk.id))).json;
    const rows = (await h.call('GET', h.paths.rows(h.b, bulk.id))).json.data;
    const message = (await h.call('GET', h.paths.message(h.b, h.f.messageId))).json;
    for (const id of [bulk.id, bulk.business_id, again.template.template_id, again.template.revision_id, ...rows.map((r: any) => r.id), message.id]) expect(id).toMatch(UUID_V7);
    for (const t of timestamps([again, rows, message])) expect(t).toMatch(UTC_Z);
    for (const to of [...rows.map((r: any) => r.to), message.to]) expect(to).toMatch(/^\+[1-9]\d{7,14}$/);
    for (const from of [again.from, message.from]) expect(from.length).toBeLessThanOrEqual(20);
    expect(['transactional', 'promotional']).toContain(again.classification);
    expect(Object.keys(again.template).sort()).toEqual(['revision_id', 'template_id']);
  });

  it('closes bulk, intake, submission, summary and warning objects [SCH-NO-EXTRA-PROPERTIES, SCH-OPEN-OBJECTS]', async () => {
    const id = (await h.submit(messageBody(h))).json.id;
    await advance(150);
    const b = (await h.call('GET', h.paths.bulk(h.b, id))).json;
    expect(Object.keys(b).sort()).toEqual(['accepted_at', 'business_id', 'classification', 'delivery_summary', 'from', 'id', 'intake', 'message', 'settled', 'status', 'submission', 'template', 'warnings']);
    expect(Object.keys(b.submission).sort()).toEqual(['exhausted', 'failed', 'processed', 'retryable_failed_count', 'success']);
    expect(Object.keys(b.warnings[0]).sort()).toEqual(['code', 'detail']);
  });

  it('lists data and a full pagination object on every page [SCH-LISTING-ENVELOPE, SCH-PAGINATION, SCH-PAGINATION-PRESENT, SCH-ROW-FIELDS, SCH-ROW-REQUIRED, SCH-ROW-STATUS-VALUES]', async () => {
    const r = await h.call('GET', h.paths.rows(h.b, h.f.expiredCursorBulkId), { query: { limit: '5' } });
    expect(Object.keys(r.json).sort()).toEqual(['data', 'pagination']);
    expect(Object.keys(r.json.pagination).sort()).toEqual(['has_more', 'limit', 'next_cursor']);
    for (const row of r.json.data) {
      expect(Object.keys(row).sort()).toEqual(['accepted_at', 'delivered_at', 'delivery_status', 'failed_at', 'id', 'status_reason', 'submission_status', 'submitted_at', 'to']);
      expect(['queued', 'sent', 'failed']).toContain(row.submission_status);
      expect(['queued', 'sent', 'delivered', 'failed']).toContain(row.delivery_status);
    }
  });

  it('serves every operation under /v1/businesses/{businessId} and has no /sms/batches [SCH-BUSINESS-SCOPED-PATHS, SCH-V1-PREFIX, SCH-NO-BATCHES-PATH]', async () => {
    for (const method of ['GET', 'POST']) {
      const r = await h.call(method, `/v1/businesses/${h.b}/sms/batches`, { json: method === 'POST' ? messageBody(h) : undefined, headers: { 'idempotency-key': 'batches' } });
      expect(r.status).toBe(404);
    }
    expect((await h.call('GET', `/businesses/${h.b}/wallet/balance`)).status).toBe(404);
    expect((await h.call('GET', `/v2/businesses/${h.b}/wallet/balance`)).status).toBe(404);
  });
});
