// 5.6 steps 2 and 3: an active grant for the business, then the operation's permission.
// Ownership (step 4) is checked by each handler once the resource is loaded.
import type { Permission } from '../store.ts';
import type { Call } from './call.ts';

/** Answers 403 permission_denied and returns false when the caller may not act on the business. */
/** Applications that passed the grant check once, per reference (the `blind4-grant-cached-per-application` defect). */
const granted = new WeakMap<object, Set<string>>();

/** Businesses some application passed the grant check on, per reference (the `blind7-grant-cached-per-business` defect). */
const grantedBusinesses = new WeakMap<object, Set<string>>();

export function authorize(call: Call, businessId: string, permission: Permission): boolean {
  let grant = call.app?.grants.find((g) => g.businessId === businessId && g.active);
  // 5.6 step 2: the grant on the path's business, on every call (the blind defect caches the
  // decision per application and, once passed, judges later calls by its first grant).
  if (call.defects.has('blind4-grant-cached-per-application') && call.app) {
    const seen = granted.get(call.deps.store) ?? new Set<string>();
    granted.set(call.deps.store, seen);
    if (grant) seen.add(call.app.clientId);
    else if (seen.has(call.app.clientId)) grant = call.app.grants.find((g) => g.active);
  }
  // 5.6 step 2: the grant of this application (the blind7 defect caches the decision per business,
  // so once any application passed on a business every other one is let in).
  if (call.defects.has('blind7-grant-cached-per-business')) {
    const passed = grantedBusinesses.get(call.deps.store) ?? grantedBusinesses.set(call.deps.store, new Set()).get(call.deps.store)!;
    if (grant) passed.add(businessId);
    else if (call.app && passed.has(businessId)) return true;
  }
  // 5.8: a business without grant is refused alike whether it exists or not (the blind7 defect looks it up first).
  if (!grant && call.defects.has('blind7-unknown-business-404') && !call.deps.store.business(businessId)) {
    call.problem('resource_not_found', 'No business with this id exists.');
    return false;
  }
  if (!grant) {
    // 5.8: the refusal is alike for every business without grant (the blind8 defect names an existing one).
    const named = call.defects.has('blind8-grant-refusal-names-business') ? call.deps.store.business(businessId) : undefined;
    if (named) {
      call.problem('permission_denied', `The application has no active grant for ${named.name}.`, { extra: { business_name: named.name } });
      return false;
    }
    // 5.6 step 2 (5.7: the path's business is a selector, not proof).
    // (The blind10 defect remembers the refused business in a cache its server reads before authentication.)
    if (call.defects.has('blind10-grant-refusal-cached-before-auth')) (refusedBusinesses.get(call.deps.counters) ?? refusedBusinesses.set(call.deps.counters, new Set()).get(call.deps.counters)!).add(businessId);
    call.problem('permission_denied', 'The application has no active grant for this business.');
    return false;
  }
  // 5.6 step 3: the permission of this operation (the blind8 defect caches a passed decision per
  // application and business, the permission left out of the key).
  const decisionKey = `${call.app?.clientId ?? ''}\u0000${businessId}`;
  if (call.defects.has('blind8-permission-cached-per-business') && passedDecisions.get(call.deps.store)?.has(decisionKey)) return true;
  if (!grant.permissions.has(permission)) {
    // 5.6 step 3 / 5.8: 403 (the blind defect answers as for failed authentication).
    if (call.defects.has('blind-missing-permission-401')) {
      call.problem('authentication_required', `The application lacks the permission ${permission}.`);
      return false;
    }
    // 5.6 step 3 (the defect conceals the wallet from an application without its permission).
    if (permission === 'wallet.balance.read' && call.defects.has('wallet-permission-concealed-404')) {
      call.problem('resource_not_found', 'No wallet exists for this business.');
      return false;
    }
    call.problem('permission_denied', `The application lacks the permission ${permission}.`);
    return false;
  }
  if (call.defects.has('blind8-permission-cached-per-business')) (passedDecisions.get(call.deps.store) ?? passedDecisions.set(call.deps.store, new Set()).get(call.deps.store)!).add(decisionKey);
  return true;
}

/** Businesses some caller was refused on, per reference (the `blind10-grant-refusal-cached-before-auth` defect). */
export const refusedBusinesses = new WeakMap<object, Set<string>>();

/** Applications and businesses that passed a permission check, per reference (the `blind8-permission-cached-per-business` defect). */
const passedDecisions = new WeakMap<object, Set<string>>();
