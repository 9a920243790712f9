// Section 7: RFC 9457 problems with every field, code/status pairs, errors[], Retry-After.
import { describe, expect, it } from 'vitest';
import { RANDOM_V7, freshKey, messageBody, useReference, type Reply } from './helpers.ts';

const h = useReference();
const STATUS: Record<string, number> = {
  validation_failed: 400, authentication_required: 401, permission_denied: 403, sender_not_authorized: 403,
  resource_not_found: 404, idempotency_conflict: 409, recipient_limit_exceeded: 422, template_not_active: 422,
  invalid_recipient: 422, rate_limit_exceeded: 429, internal_error: 500, service_unavailable: 503, balance_unavailable: 503,
};

/** One problem of each code the reference can produce without faults. */
async function sampleProblems(): Promise<Reply[]> {
  const key = freshKey();
  await h.submit(messageBody(h), { key });
  return [
    await h.submit(messageBody(h, { from: '' })),
    await h.call('GET', h.paths.wallet(h.b), { as: 'none' }),
    await h.call('GET', h.paths.wallet(h.b), { as: 'limited' }),
    await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId })),
    await h.call('GET', h.paths.message(h.b, RANDOM_V7)),
    await h.submit(messageBody(h, { message: 'different' }), { key }),
    await h.submit(messageBody(h, {}, 1001)),
    await h.submit({ from: h.f.senderId, classification: 'transactional', template_id: h.f.inactiveTemplateId, recipients: [{ to: h.f.recipients[0] }] }),
  ];
}

function base(type: string, code: string): string {
  expect(type.endsWith(`/${code}`)).toBe(true);
  return type.slice(0, -code.length - 1);
}

describe('problem details', () => {
  it('serves problems as application/problem+json with type, title, status, detail, code, request_id and instance [PROB-MEDIA-TYPE, PROB-SCHEMA, PROB-INSTANCE]', async () => {
    for (const r of await sampleProblems()) {
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      for (const k of ['type', 'title', 'detail', 'code', 'request_id', 'instance']) expect(typeof r.json[k]).toBe('string');
      expect(Number.isInteger(r.json.status)).toBe(true);
      expect(() => new URL(r.json.instance)).not.toThrow();
    }
  });

  it('pairs every code with its status, equal to the HTTP status [PROB-STATUS-MATCH, PROB-CODE-KNOWN, PROB-CODE-STATUS]', async () => {
    const seen = new Set<string>();
    for (const r of await sampleProblems()) {
      expect(Object.keys(STATUS)).toContain(r.json.code);
      expect(r.json.status).toBe(r.status);
      expect(r.status).toBe(STATUS[r.json.code]);
      seen.add(r.json.code);
    }
    expect(seen.size).toBe(8);
  });

  it('uses one base for every type and one title per code [PROB-TYPE-FORM, PROB-TITLE-STABLE]', async () => {
    const bases = new Set<string>();
    const titles = new Map<string, string>();
    for (const r of [...(await sampleProblems()), ...(await sampleProblems())]) {
      bases.add(base(r.json.type, r.json.code));
      if (titles.has(r.json.code)) expect(r.json.title).toBe(titles.get(r.json.code));
      titles.set(r.json.code, r.json.title);
    }
    expect(bases.size).toBe(1);
  });

  it('lists field errors with exactly pointer and code [PROB-VALIDATION-ERRORS, PROB-FIELD-CODES]', async () => {
    const r = await h.submit({ from: 'x'.repeat(21), classification: 'bulk', message: '', recipients: [{ to: '123' }], extra: 1 });
    expect(r.status).toBe(400);
    const pointers = r.json.errors.map((e: any) => e.pointer).sort();
    expect(pointers).toEqual(['/classification', '/extra', '/from', '/message', '/recipients/0/to']);
    for (const e of r.json.errors) {
      expect(Object.keys(e).sort()).toEqual(['code', 'pointer']);
      expect(e.code.length).toBeGreaterThan(0);
    }
    const q = await h.call('GET', h.paths.rows(h.b, h.f.expiredCursorBulkId), { query: { limit: '0' } });
    expect(q.json.errors).toEqual([{ pointer: 'limit', code: 'field_invalid' }]);
  });

  it('answers what the caller got wrong with a 4xx, never a server error [PROB-NO-5XX-FOR-CLIENT-FAULT]', async () => {
    const cases = [
      h.call('GET', `/v1/businesses/${h.b}/sms/batches`),
      h.call('GET', h.paths.message(h.b, 'not-a-uuid')),
      h.call('GET', h.paths.rows(h.b, h.f.expiredCursorBulkId), { query: { status: 'nope', to: '12' } }),
      h.call('GET', h.paths.rows(h.b, h.f.expiredCursorBulkId), { query: { cursor: 'not-a-cursor' } }),
      h.call('POST', h.paths.bulks(h.b), { body: '{"from": ', headers: { 'content-type': 'application/json', 'idempotency-key': 'k-5xx' } }),
    ];
    for (const r of await Promise.all(cases)) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
  });

  it('keeps secrets and stack traces out of detail [PROB-DETAIL-NO-SECRETS]', async () => {
    const token = await h.token('primary');
    const tampered = `${token}x`;
    const r = await h.call('GET', h.paths.wallet(h.b), { as: { bearer: tampered } });
    expect(r.text).not.toContain(tampered.slice(20, 60));
    await h.control('POST', '/faults', { internalError: true });
    try {
      const e = await h.call('GET', h.paths.wallet(h.b));
      expect(e.json.detail).not.toMatch(/at .*\.ts|Error:/);
      expect(e.text).not.toContain(token.slice(20, 60));
    } finally {
      await h.control('POST', '/faults', { internalError: false });
    }
  });

  it('answers an unexpected failure with 500 internal_error as a problem [PROB-INTERNAL-ERROR]', async () => {
    await h.control('POST', '/faults', { internalError: true });
    try {
      const r = await h.call('GET', h.paths.message(h.b, h.f.messageId));
      expect(r.status).toBe(500);
      expect(r.json.code).toBe('internal_error');
      expect(r.headers.get('content-type')).toBe('application/problem+json');
    } finally {
      await h.control('POST', '/faults', { internalError: false });
    }
  });

  it('sends Retry-After with 429 rate_limit_exceeded and 503 service_unavailable [PROB-RETRY-AFTER, PROB-RATE-LIMIT]', async () => {
    await h.control('POST', '/faults', { rateLimitPerMinute: 2 });
    try {
      const replies = [];
      for (let i = 0; i < 3; i++) replies.push(await h.call('GET', h.paths.wallet(h.b), { as: 'limited' }));
      const limited = replies[2]!;
      expect(limited.status).toBe(429);
      expect(limited.json.code).toBe('rate_limit_exceeded');
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await h.control('POST', '/faults', { rateLimitPerMinute: null });
    }
    await h.control('POST', '/faults', { serviceUnavailable: true });
    try {
      const r = await h.call('GET', h.paths.wallet(h.b));
      expect(r.status).toBe(503);
      expect(r.json.code).toBe('service_unavailable');
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await h.control('POST', '/faults', { serviceUnavailable: false });
    }
  });
});
