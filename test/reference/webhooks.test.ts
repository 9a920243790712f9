// 3.4 and 4.6: webhook endpoint deactivation.
import { describe, expect, it } from 'vitest';
import { RANDOM_V7, useReference } from './helpers.ts';

const h = useReference();
const state = (id: string) => h.control('GET', `/state/webhook-endpoints/${id}`);

describe('webhook endpoint deactivation', () => {
  it('answers 204 with no body and deactivates the endpoint [HOOK-DEACTIVATE-204, HOOK-DEACTIVATE-EFFECT]', async () => {
    const id = h.f.webhookEndpointId;
    expect((await state(id)).active).toBe(true);
    const r = await h.call('DELETE', h.paths.webhook(h.b, id));
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(r.headers.get('content-type')).toBeNull();
    expect((await state(id)).active).toBe(false);
  });

  it('answers a repeat with 204 again (reference choice) [HOOK-REPEAT]', async () => {
    const id = h.ref.extras.webhookEndpointIds[1]!;
    expect((await h.call('DELETE', h.paths.webhook(h.b, id))).status).toBe(204);
    expect((await h.call('DELETE', h.paths.webhook(h.b, id))).status).toBe(204);
  });

  it('answers an id that does not exist with 404 resource_not_found [HOOK-NOT-FOUND]', async () => {
    const r = await h.call('DELETE', h.paths.webhook(h.b, RANDOM_V7));
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('resource_not_found');
  });

  it("keeps another business's endpoint out of reach through one's own path [HOOK-OWNERSHIP]", async () => {
    const foreign = h.ref.extras.otherBusinessWebhookEndpointId;
    const r = await h.call('DELETE', h.paths.webhook(h.b, foreign));
    expect(r.status).toBe(404);
    expect((await state(foreign)).active).toBe(true);
  });

  it('refuses deactivation under a business without a grant [HOOK-FORBIDDEN]', async () => {
    const foreign = h.ref.extras.otherBusinessWebhookEndpointId;
    const r = await h.call('DELETE', h.paths.webhook(h.f.otherBusinessId, foreign));
    expect(r.status).toBe(403);
    expect(r.json.code).toBe('permission_denied');
    expect((await state(foreign)).active).toBe(true);
  });
});
