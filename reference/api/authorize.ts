// 5.6 steps 2 and 3: an active grant for the business, then the operation's permission.
// Ownership (step 4) is checked by each handler once the resource is loaded.
import type { Permission } from '../store.ts';
import type { Call } from './call.ts';

/** Answers 403 permission_denied and returns false when the caller may not act on the business. */
export function authorize(call: Call, businessId: string, permission: Permission): boolean {
  const grant = call.app?.grants.find((g) => g.businessId === businessId && g.active);
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
