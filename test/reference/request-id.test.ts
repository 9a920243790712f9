// 4.0 and 7: X-Request-Id echoed or generated on every response, equal to the problem's request_id.
import { describe, expect, it } from 'vitest';
import { RANDOM_V7, messageBody, useReference } from './helpers.ts';

const h = useReference();
const PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

describe('X-Request-Id', () => {
  it('is on every response: 200, 202, 204, 400, 401, 403, 404 [RID-EVERY-RESPONSE, RID-FORMAT]', async () => {
    const replies = [
      await h.call('GET', h.paths.wallet(h.b)),
      await h.submit(messageBody(h)),
      await h.call('DELETE', h.paths.webhook(h.b, h.ref.extras.webhookEndpointIds[5]!)),
      await h.submit(messageBody(h, { classification: 'x' })),
      await h.call('GET', h.paths.wallet(h.b), { as: 'none' }),
      await h.call('GET', h.paths.wallet(h.f.otherBusinessId)),
      await h.call('GET', h.paths.message(h.b, RANDOM_V7)),
      await h.call('GET', '/v1/unknown'),
      await h.call('GET', '/'),
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 202, 204, 400, 401, 403, 404, 404, 404]);
    for (const r of replies) expect(r.headers.get('x-request-id')).toMatch(PATTERN);
  });

  it('echoes a valid client value unchanged, at lengths 1 and 128 [RID-ECHO, RID-LENGTH-BOUNDARY]', async () => {
    for (const id of ['a', 'A'.repeat(128), 'trace.id_01-x', `${'x'.repeat(100)}.tail`]) {
      const r = await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': id } });
      expect(r.headers.get('x-request-id')).toBe(id);
    }
  });

  it('replaces an empty, too long or ill-formed value without refusing the request [RID-REPLACE-INVALID, RID-INVALID-NOT-REJECTED]', async () => {
    for (const id of ['', 'B'.repeat(129), 'has space', 'semi;colon', 'ünï']) {
      const r = await h.call('GET', h.paths.wallet(h.b), { headers: { 'x-request-id': id } });
      expect(r.status).toBe(200);
      const got = r.headers.get('x-request-id')!;
      expect(got).toMatch(PATTERN);
      expect(got).not.toBe(id);
    }
  });

  it('generates a value when none is sent, different per response [RID-GENERATE-MISSING]', async () => {
    const a = (await h.call('GET', h.paths.wallet(h.b))).headers.get('x-request-id');
    const b = (await h.call('GET', h.paths.wallet(h.b))).headers.get('x-request-id');
    expect(a).toMatch(PATTERN);
    expect(a).not.toBe(b);
  });

  it("puts the header's value in the problem's request_id [RID-PROBLEM-MATCH]", async () => {
    for (const headers of [{ 'x-request-id': 'client-given' }, {} as Record<string, string>]) {
      const r = await h.call('GET', h.paths.message(h.b, RANDOM_V7), { headers });
      expect(r.json.request_id).toBe(r.headers.get('x-request-id'));
    }
  });
});
