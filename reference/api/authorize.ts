// 5.6 steps 2 and 3: an active grant for the business, then the operation's permission.
// Ownership (step 4) is checked by each handler once the resource is loaded.
import type { Permission } from '../store.ts';
import type { Call } from './call.ts';

/** Answers 403 permission_denied and returns false when the caller may not act on the business. */
/** Applications that passed the grant check once, per reference (the `blind4-grant-cached-per-application` defect). */
const granted = new WeakMap<object, Set<string>>();

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
  if (!grant) {
    // 5.6 step 2 (5.7: the path's business is a selector, not proof).
    call.problem('permission_denied', 'The application has no active grant for this business.');
    return false;
  }
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
  return true;
}
