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
});
