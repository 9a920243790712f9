// 4.4 and 5.6 step 4: resources of another business are concealed or refused, never shown.
import { describe, expect, it } from 'vitest';
import { RANDOM_V7, useReference } from './helpers.ts';

const h = useReference();
/** A problem body without its per-occurrence members. */
const stable = (p: Record<string, unknown>) => {
  const { request_id: _r, instance: _i, ...rest } = p;
  return rest;
};

describe('concealment', () => {
  it("answers another business's message with 404 resource_not_found [CONC-CROSS-BUSINESS-MESSAGE]", async () => {
    const r = await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId));
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('resource_not_found');
  });

  it("makes another business's message indistinguishable from an id that exists nowhere [CONC-SAME-AS-MISSING, CONC-MAY-CONCEAL]", async () => {
    const foreign = await h.call('GET', h.paths.message(h.b, h.f.foreignMessageId));
    const random = await h.call('GET', h.paths.message(h.b, RANDOM_V7));
    expect(foreign.status).toBe(random.status);
    expect(stable(foreign.json)).toEqual(stable(random.json));
    expect(Object.keys(foreign.json).sort()).toEqual(Object.keys(random.json).sort());
    expect(foreign.text).not.toContain(h.f.otherBusinessId);
    expect(foreign.text).not.toContain(h.f.foreignMessageId);
  });

  it("never returns another business's bulk under one's own business [CONC-CROSS-BUSINESS-BULK]", async () => {
    const bulk = await h.call('GET', h.paths.bulk(h.b, h.ref.extras.otherBusinessBulkId));
    const random = await h.call('GET', h.paths.bulk(h.b, RANDOM_V7));
    expect(bulk.status).toBe(404);
    expect(stable(bulk.json)).toEqual(stable(random.json));
    expect((await h.call('GET', h.paths.rows(h.b, h.ref.extras.otherBusinessBulkId))).status).toBe(404);
  });

  it('refuses every resource path of a business without a grant [CONC-OTHER-BUSINESS-PATH]', async () => {
    const o = h.f.otherBusinessId;
    for (const path of [h.paths.message(o, h.f.foreignMessageId), h.paths.bulk(o, h.ref.extras.otherBusinessBulkId), h.paths.wallet(o)]) {
      const r = await h.call('GET', path);
      expect(r.status).toBe(403);
      expect(r.text).not.toContain('Other Trading');
    }
  });

  it("refuses, on every resource read and the deactivation, another business's resource under one's own business and an unknown id alike, as the other business's application too [CONC-FOREIGN-OBJECT, CONC-UNKNOWN-OBJECT, CONC-FOREIGN-LIKE-UNKNOWN, CONC-UNIFORM]", async () => {
    const foreign = { bulk: h.ref.extras.otherBusinessBulkId, message: h.f.foreignMessageId, endpoint: h.f.foreignWebhookEndpointId };
    const own = { bulk: h.f.expiredCursorBulkId, message: h.f.messageId, endpoint: h.f.webhookEndpointId };
    const cases: Array<{ as: 'primary' | 'other'; business: string; ids: typeof own }> = [
      { as: 'primary', business: h.b, ids: foreign },
      { as: 'other', business: h.f.otherBusinessId, ids: own },
    ];
    for (const { as, business, ids } of cases) {
      const answers: string[] = [];
      for (const [path, unknown] of [
        [h.paths.bulk(business, ids.bulk), h.paths.bulk(business, RANDOM_V7)],
        [h.paths.rows(business, ids.bulk), h.paths.rows(business, RANDOM_V7)],
        [h.paths.message(business, ids.message), h.paths.message(business, RANDOM_V7)],
      ] as const) {
        const r = await h.call('GET', path, { as });
        const u = await h.call('GET', unknown, { as });
        expect(r.status, path).toBe(404);
        expect(Object.keys(r.json).sort()).toEqual(Object.keys(u.json).sort());
        expect(u.status).toBe(404);
        answers.push(`${r.status} ${r.json.code}`);
      }
      const deactivate = await h.call('DELETE', h.paths.webhook(business, ids.endpoint), { as });
      answers.push(`${deactivate.status} ${deactivate.json.code}`);
      expect(new Set(answers).size).toBe(1);
    }
  });

  it('names no business but the caller\'s in any answer about another business\'s resources [CONC-NO-FOREIGN-DATA]', async () => {
    for (const path of [h.paths.bulk(h.b, h.ref.extras.otherBusinessBulkId), h.paths.rows(h.b, h.ref.extras.otherBusinessBulkId), h.paths.message(h.b, h.f.foreignMessageId)]) {
      const r = await h.call('GET', path);
      expect(r.text).not.toContain(h.f.otherBusinessId);
    }
  });
});
