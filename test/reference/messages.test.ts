// 2.4, 3.2 and 4.4: individual SMS retrieval.
import { describe, expect, it } from 'vitest';
import { RANDOM_V7, UTC_Z, UUID_V7, useReference } from './helpers.ts';

const h = useReference();
const get = (id: string) => h.call('GET', h.paths.message(h.b, id));

describe('individual SMS', () => {
  it('returns the message of the business with the requested id [MSG-RETRIEVE, MSG-BUSINESS]', async () => {
    const r = await get(h.f.messageId);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.json.id).toBe(h.f.messageId);
    expect(r.json.business_id).toBe(h.b);
  });

  it('gives every member its stated type [MSG-SCHEMA, MSG-REQUIRED-FIELDS, MSG-STATUS-VALUES]', async () => {
    const m = (await get(h.f.messageId)).json;
    expect(m.id).toMatch(UUID_V7);
    expect(m.from.length).toBeGreaterThanOrEqual(1);
    expect(m.from.length).toBeLessThanOrEqual(20);
    expect(m.to).toMatch(/^\+[1-9]\d{7,14}$/);
    expect(['transactional', 'promotional']).toContain(m.classification);
    expect(typeof m.message).toBe('string');
    expect(['queued', 'sent', 'delivered', 'failed']).toContain(m.status);
    expect(m.status_reason === null || typeof m.status_reason === 'string').toBe(true);
    for (const k of ['accepted_at', 'submitted_at', 'delivered_at']) expect(m[k]).toMatch(UTC_Z);
    expect(m.failed_at).toBeNull();
  });

  it('shows the rendered content of a template-based message, no placeholder left [MSG-RENDERED-CONTENT]', async () => {
    const r = await h.call('GET', h.paths.message(h.b, h.f.messageId));
    expect(r.json.template).not.toBeNull();
    expect(String(r.json.message)).not.toMatch(/\{\{/);
  });

  it('shows the pinned template revision of a template-based message [MSG-TEMPLATE-PIN]', async () => {
    const m = (await get(h.f.messageId)).json;
    expect(m.template.template_id).toBe(h.f.templateId);
    expect(m.template.revision_id).toMatch(UUID_V7);
  });

  it('refuses an id that exists nowhere with 404 resource_not_found as a problem [MSG-NOT-FOUND, MSG-ERRORS-NOT-SHOWN]', async () => {
    const r = await get(RANDOM_V7);
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('resource_not_found');
    expect(r.headers.get('content-type')).toBe('application/problem+json');
  });
});
