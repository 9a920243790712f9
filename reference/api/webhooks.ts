// 4.6 deactivate a webhook endpoint (3.4: soft delete, 204 with an empty body).
import { authorize } from './authorize.ts';
import type { Call } from './call.ts';

export function deactivateWebhookEndpoint(call: Call, businessId: string, endpointId: string): void {
  const d = call.defects;
  const { store, clock } = call.deps;
  if (!authorize(call, businessId, 'webhook.endpoints.manage')) return;
  const endpoint = store.webhookEndpoint(endpointId);
  const owned = endpoint && (endpoint.businessId === businessId || d.has('webhook-delete-foreign-endpoint'));
  if (!endpoint || !owned) {
    if (!endpoint && d.has('webhook-delete-random-204')) return call.empty(204);
    // 5.6 step 4: another business's endpoint is not found here, like a random id.
    return call.problem('resource_not_found', 'No webhook endpoint with this id exists for this business.');
  }
  // 3.4: active -> deactivated. Reference choice: deactivating again is also 204 (idempotent DELETE).
  if (endpoint.active && !d.has('webhook-delete-not-deactivated')) {
    store.saveWebhookEndpoint({ ...endpoint, active: false, deactivatedAt: clock.now() });
  }
  if (d.has('webhook-delete-200-with-body')) return call.json(200, { id: endpoint.id, active: false });
  call.empty(204);
}
