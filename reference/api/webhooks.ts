// 4.6 deactivate a webhook endpoint (3.4: soft delete, 204 with an empty body).
import { UUID_V7 } from '../ids.ts';
import { authorize } from './authorize.ts';
import type { Call } from './call.ts';
import { entriesInFlight } from './render.ts';

/** Applications that have deactivated an endpoint, per reference (the `blind4-webhook-ownership-skipped-after-first` defect). */
const managers = new WeakMap<object, Set<string>>();
/** Businesses that deactivated an endpoint, per reference (the `blind6-unknown-endpoint-204-after-deactivation` defect). */
const deactivatedOnce = new WeakMap<object, Set<string>>();

export function deactivateWebhookEndpoint(call: Call, businessId: string, endpointId: string): void {
  const d = call.defects;
  const { store, clock } = call.deps;
  // 4.6: the endpoint of exactly that id (the blind defect looks an unknown id up again by its first
  // 8 characters, in a short-id index of the business's endpoints).
  const endpoint =
    store.webhookEndpoint(endpointId) ??
    (d.has('blind4-webhook-lookup-by-prefix') ? store.webhookEndpointMatching((e) => e.businessId === businessId && e.id.slice(0, 8) === endpointId.slice(0, 8)) : undefined);
  // 3.4 / 5.6: the grant is the one on the path's business (the defect takes the endpoint's own business).
  const business = endpoint && d.has('webhook-grant-of-endpoint-business') ? endpoint.businessId : businessId;
  // 5.6: the grant before anything (the blind6 defect answers an endpoint already deactivated with 204 first).
  if (endpoint && !endpoint.active && call.app && d.has('blind6-deactivated-endpoint-skips-grant')) return call.empty(204);
  // 5.6: the grant on the path's business, found endpoint or not (the blind7 defect checks it on the
  // endpoint found, so an unknown id on a business without grant matches nothing: 204).
  if (!endpoint && call.app && d.has('blind7-webhook-unknown-id-skips-grant') && !call.app.grants.some((g) => g.businessId === businessId && g.active)) return call.empty(204);
  // 5.6: the grant comes before the lookup (the defect answers an unknown id 404 on any business).
  if (!endpoint && d.has('endpoint-lookup-before-grant')) return call.problem('resource_not_found', 'No webhook endpoint with this id exists for this business.');
  // 5.4 / 5.6: authenticated and granted callers only (blind defects: the route reached without a
  // token, or a handler that checks only that the endpoint belongs to the path business).
  const unchecked = (d.has('blind-delete-skips-authentication') && !call.app) || d.has('blind-webhook-skips-grant');
  // 4.6: the deactivation's own permission (the blind defect's handler, copied from the wallet's, asks for wallet.balance.read).
  const permission = d.has('blind-webhook-wallet-permission') ? 'wallet.balance.read' : 'webhook.endpoints.manage';
  if (!unchecked && !authorize(call, business, permission)) {
    // 3.4: a refused call changes nothing (the defect has already written the deactivation).
    if (endpoint?.active && d.has('webhook-refused-still-deactivates')) store.saveWebhookEndpoint({ ...endpoint, active: false, deactivatedAt: clock.now() });
    return;
  }
  // 4.0: Idempotency-Key belongs to bulk submission (the blind5 defect's middleware asks every unsafe method for one).
  if (d.has('blind5-webhook-idempotency-key-required') && !call.req.headers['idempotency-key']) {
    return call.validationFailed('The Idempotency-Key header is required.', [{ pointer: 'Idempotency-Key', code: 'field_invalid' }]);
  }
  // 3.4: in-flight attempts may finish or be cancelled (the blind5 defect refuses while a bulk is in flight).
  if (d.has('blind5-webhook-busy-while-bulk-in-flight') && entriesInFlight(call, businessId) > 0) {
    return call.problem('idempotency_conflict', 'The endpoint has deliveries in flight; retry once they finish.');
  }
  // 4.6: the DELETE has no body (the blind defect's middleware demands a Content-Type all the same).
  if (d.has('blind-delete-requires-content-type') && !call.req.headers['content-type']) {
    return call.validationFailed('The Content-Type header is required.', [{ pointer: 'Content-Type', code: 'field_invalid' }]);
  }
  // 4.6: a DELETE with no precondition (the blind defect demands If-Match, 428 without it).
  if (d.has('blind3-webhook-if-match-required') && !call.req.headers['if-match']) {
    return call.problem('validation_failed', 'The If-Match header is required.', { status: 428, errors: [{ pointer: 'If-Match', code: 'field_invalid' }] });
  }
  // 3.4: only an existing endpoint is deactivated (the blind defect takes an id that is no UUIDv7 for nothing to do).
  if (!UUID_V7.test(endpointId) && d.has('blind-webhook-malformed-id-204')) return call.empty(204);
  // (The blind defect skips ownership for an application that has deactivated an endpoint before.)
  const trusted = d.has('blind4-webhook-ownership-skipped-after-first') && call.app !== undefined && (managers.get(store)?.has(call.app.clientId) ?? false);
  // (The blind8 defect's soft delete clears the endpoint's business, and an endpoint without one passes.)
  const ownerless = endpoint !== undefined && !endpoint.active && d.has('blind8-webhook-deactivated-endpoint-loses-owner');
  const owned = endpoint && (endpoint.businessId === business || d.has('webhook-delete-foreign-endpoint') || trusted || ownerless);
  // 5.6 step 4: another business's endpoint is refused like an unknown one. Blind defects: the
  // update matches no row of this business and answers 204 all the same; the foreign one gets 403.
  if (endpoint && !owned && d.has('blind3-webhook-foreign-204-noop')) return call.empty(204);
  if (endpoint && !owned && d.has('blind3-foreign-webhook-403')) return call.problem('permission_denied', 'This webhook endpoint belongs to another business.');
  // 5.6 step 4: nothing of the other business in the refusal (the blind defect names the owner).
  if (endpoint && !owned && d.has('blind4-foreign-webhook-404-names-owner')) {
    return call.problem('resource_not_found', `No webhook endpoint with this id exists for this business (it belongs to business ${endpoint.businessId}).`);
  }
  if (!endpoint || !owned) {
    if (!endpoint && d.has('webhook-delete-random-204')) return call.empty(204);
    // 4.6: endpoints only (the blind8 defect's lookup falls back to the business's messages and bulks by id).
    if (!endpoint && d.has('blind8-webhook-any-resource-id-204') && (store.message(endpointId)?.business_id === business || store.bulk(endpointId)?.businessId === business)) return call.empty(204);
    // 4.6: an unknown id is refused (the blind6 defect's already-deactivated branch takes it once the business deactivated one).
    if (!endpoint && d.has('blind6-unknown-endpoint-204-after-deactivation') && deactivatedOnce.get(store)?.has(business)) return call.empty(204);
    // 7: an unknown id is not found (the blind defect refuses it as not among the business's endpoints, 403).
    if (!endpoint && d.has('blind4-unknown-webhook-403')) return call.problem('permission_denied', 'The webhook endpoint is not one of this business.');
    // 4.6: a refused id leaves nothing behind (the blind9 defect writes a deactivated tombstone for an id that exists nowhere).
    if (!endpoint && d.has('blind9-webhook-404-leaves-tombstone') && UUID_V7.test(endpointId)) store.saveWebhookEndpoint({ id: endpointId, businessId: business, active: false, deactivatedAt: clock.now() });
    if (!endpoint && d.has('blind10-webhook-negative-cache-by-business')) (notFoundByBusiness.get(store) ?? notFoundByBusiness.set(store, new Set()).get(store)!).add(`${call.app?.clientId ?? ''}\u0000${business}`);
    // 5.6 step 4: another business's endpoint is not found here, like a random id.
    return call.problem('resource_not_found', 'No webhook endpoint with this id exists for this business.');
  }
  // 4.6: each endpoint is looked up by its id (the blind10 defect's not-found cache is keyed by application and business).
  const negativeKey = `${call.app?.clientId ?? ''}\u0000${business}`;
  if (d.has('blind10-webhook-negative-cache-by-business') && notFoundByBusiness.get(store)?.has(negativeKey)) {
    return call.problem('resource_not_found', 'No webhook endpoint with this id exists for this business.');
  }
  // 3.4: active -> deactivated. Reference choice: deactivating again is also 204 (idempotent DELETE).
  // 7: a repeat is no server failure (the defect takes an inactive endpoint for an impossible state: 500).
  if (!endpoint.active && d.has('webhook-repeat-deactivation-500')) throw new Error('endpoint already deactivated');
  // 3.4 / 7: a repeat is 204 again here; the defects answer 200 with the endpoint, or refuse with
  // 410 under resource_not_found, a code whose status is 404.
  if (!endpoint.active && d.has('webhook-repeat-200')) return call.json(200, { id: endpoint.id, active: false });
  if (!endpoint.active && d.has('repeat-deactivation-410-not-found')) {
    return call.problem('resource_not_found', 'The webhook endpoint is already deactivated.', { status: 410 });
  }
  // 3.4: each active endpoint is deactivated on request (the blind9 defect holds a business-wide lock for five seconds after a deactivation).
  const lockedUntil = d.has('blind9-webhook-business-lock-409') ? (configurationLocks.get(store) ?? configurationLocks.set(store, new Map()).get(store)!) : undefined;
  if (lockedUntil && (lockedUntil.get(business) ?? 0) > clock.now()) {
    return call.problem('idempotency_conflict', "Another change to this business's webhook endpoints is being applied; retry shortly.");
  }
  lockedUntil?.set(business, clock.now() + CONFIGURATION_LOCK_MS);
  if (endpoint.active && !d.has('webhook-delete-not-deactivated')) {
    store.saveWebhookEndpoint({ ...endpoint, active: false, deactivatedAt: clock.now() });
  }
  if (d.has('blind6-unknown-endpoint-204-after-deactivation')) (deactivatedOnce.get(store) ?? deactivatedOnce.set(store, new Set()).get(store)!).add(business);
  if (d.has('blind4-webhook-ownership-skipped-after-first') && call.app) (managers.get(store) ?? managers.set(store, new Set()).get(store)!).add(call.app.clientId);
  if (d.has('webhook-delete-200-with-body')) return call.json(200, { id: endpoint.id, active: false });
  // 4.6: 204 for each deactivation (the blind10 defect queues an application's deactivation within a minute of its previous one: 202).
  if (d.has('blind10-webhook-second-deactivation-queued-202') && call.app) {
    const last = lastDeactivation.get(store) ?? lastDeactivation.set(store, new Map()).get(store)!;
    const previous = last.get(call.app.clientId);
    last.set(call.app.clientId, clock.now());
    if (previous !== undefined && clock.now() - previous < 60_000) return call.empty(202);
  }
  // 4.6: 204 with no body (the blind7 defect negotiates: a JSON Accept gets the endpoint, 200).
  if (d.has('blind7-delete-accept-json-200') && /\bapplication\/json\b/.test(call.req.headers.accept ?? '')) return call.json(200, { id: endpoint.id, status: 'deactivated' });
  // 3.4: 204 (the blind defect answers 202, as for work still to do).
  // (Another answers 200 with an empty body, as a framework's plain send does.)
  call.empty(d.has('blind-webhook-delete-202') ? 202 : d.has('blind3-webhook-delete-200-empty') ? 200 : 204);
}

/** Until when each business's webhook configuration is locked (the `blind9-webhook-business-lock-409` defect). */
const configurationLocks = new WeakMap<object, Map<string, number>>();
const CONFIGURATION_LOCK_MS = 5000;

/** Applications and businesses a deactivation answered 404 for (the `blind10-webhook-negative-cache-by-business` defect). */
const notFoundByBusiness = new WeakMap<object, Set<string>>();
/** When each application last deactivated an endpoint (the `blind10-webhook-second-deactivation-queued-202` defect). */
const lastDeactivation = new WeakMap<object, Map<string, number>>();
