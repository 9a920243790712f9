// 4.5 retrieve wallet balance: grant plus wallet.balance.read; 503 when the source is off.
import { uuidv7 } from '../ids.ts';
import { authorize } from './authorize.ts';
import type { Call } from './call.ts';
import { entriesInFlight } from './render.ts';

/** Seconds a client should wait when the wallet source is unavailable. */
export const WALLET_RETRY_AFTER_S = 5;

/** The `blind-wallet-cache-skips-permission` defect's cache: the last balance body per business. */
const walletCache = new WeakMap<object, Map<string, Record<string, unknown>>>();
/** available_balance at the first read per business (the `blind4-wallet-available-cached` defect). */
const availableSnapshot = new WeakMap<object, Map<string, string>>();
/** Holds a refused submission left per business (the `blind6-reserved-hold-left-by-refusal` defect, kept by bulk-create). */
export const refusalHolds = new WeakMap<object, Map<string, number>>();
/** The one wallet body cached for every business (the `blind6-wallet-cache-single-slot` defect). */
const singleSlot = new WeakMap<object, Record<string, unknown>>();

/** ISO 4217 numeric codes of the fixture currencies (the `blind-wallet-currency-numeric` defect). */
const NUMERIC_CURRENCY: Record<string, string> = { GBP: '826', EUR: '978', USD: '840' };
/** Display symbols of the fixture currencies (the `blind7-wallet-currency-symbol` defect). */
const CURRENCY_SYMBOL: Record<string, string> = { GBP: '£', EUR: '€', USD: '$' };

export function getWallet(call: Call, businessId: string): void {
  const d = call.defects;
  const { store, clock, faults, counters } = call.deps;
  // 4: every answer carries X-Request-Id (the blind5 defect's wallet service names its header otherwise).
  if (d.has('blind5-wallet-correlation-id-header')) call.requestIdHeader = 'X-Correlation-Id';
  // 4.5: the permission is checked on every read (the blind defect serves a per-business cache to
  // any granted application before the permission is asked for).
  const grant = call.app?.grants.find((g) => g.businessId === businessId && g.active);
  // 4.5: every read is authorized on its own (the blind10 defect's retry cache, keyed by X-Request-Id and path, answers first).
  const sentId = call.req.headers['x-request-id'];
  const retryKey = typeof sentId === 'string' && d.has('blind10-wallet-replay-by-request-id') ? `${sentId}\u0000${call.path}` : undefined;
  const kept = retryKey !== undefined ? retryAnswers.get(store)?.get(retryKey) : undefined;
  if (kept && call.app) return call.json(200, kept);
  const cached = d.has('blind-wallet-cache-skips-permission') ? walletCache.get(store)?.get(businessId) : undefined;
  if (cached && grant) return call.json(200, cached);
  // 4.5 / 5.8: 403 (the blind defect conceals the balance from an application lacking the permission).
  if (d.has('blind-wallet-permission-404') && grant && !grant.permissions.has('wallet.balance.read')) {
    return call.problem('resource_not_found', 'No wallet balance exists for this business.');
  }
  // 4.5 / 7: the missing permission is permission_denied (the blind defect reuses the submission's sender code).
  if (d.has('blind-wallet-permission-wrong-code') && grant && !grant.permissions.has('wallet.balance.read')) {
    return call.problem('sender_not_authorized', 'The application is not authorized to read the wallet balance.');
  }
  if (d.has('grant-not-checked') && store.business(businessId)) {
    // Defect: skips 5.6 step 2 (and so step 3) for this one operation.
  } else if (d.has('wallet-grant-any-business') && store.business(businessId)) {
    // Defect: 4.5 needs the grant on the path's business; this takes the permission from any grant.
    if (!call.app?.grants.some((g) => g.active && g.permissions.has('wallet.balance.read'))) {
      return call.problem('permission_denied', 'The application lacks the permission wallet.balance.read.');
    }
  } else if (d.has('wallet-permission-not-checked')) {
    if (!call.app?.grants.some((g) => g.businessId === businessId && g.active)) {
      return call.problem('permission_denied', 'The application has no active grant for this business.');
    }
  } else if (d.has('blind8-wallet-refusal-cached-per-business') && walletRefusals.get(store)?.has(businessId)) {
    // 4.5: each caller's own grant and permission decide (the blind8 defect serves a refusal cached per business).
    return call.problem('permission_denied', 'The application lacks the permission wallet.balance.read.');
  } else if (!authorize(call, businessId, 'wallet.balance.read')) {
    if (d.has('blind8-wallet-refusal-cached-per-business')) (walletRefusals.get(store) ?? walletRefusals.set(store, new Set()).get(store)!).add(businessId);
    return;
  }
  // 5.6 step 4: the balance of the path's business only (the blind6 defect's cache has one slot, not keyed by business).
  const slot = d.has('blind6-wallet-cache-single-slot') ? singleSlot.get(store) : undefined;
  if (slot) return call.json(200, slot);
  const business = store.business(businessId)!;
  const now = clock.now();
  if (faults.walletUnavailable) {
    if (d.has('wallet-unavailable-invents-zero')) {
      return call.json(200, walletBody(call, business.id, business.name, business.currency, '0.00', now));
    }
    if (d.has('wallet-unavailable-500')) return call.problem('internal_error', 'An unexpected error occurred.');
    // 4.5: never invent a balance; 503 balance_unavailable, with Retry-After as a courtesy (7).
    return call.problem('balance_unavailable', 'The wallet source of record is temporarily unavailable.', {
      headers: { 'Retry-After': String(WALLET_RETRY_AFTER_S) },
    });
  }
  counters.walletReads++;
  // 4.5: every read is a 200 with the balance; the defect answers 204 when the application's
  // previous read saw the same balance (a cache that assumes the client kept the last answer).
  const reader = `${call.app?.clientId ?? ''} ${business.id}`;
  const unchanged = counters.lastWalletBalance.get(reader) === business.currentBalance;
  counters.lastWalletBalance.set(reader, business.currentBalance);
  if (unchanged && d.has('wallet-unchanged-204')) return call.empty(204);
  const body = walletBody(call, business.id, business.name, business.currency, business.currentBalance, now);
  // 2.5: available equals current (the blind defect serves it from the snapshot of the first read).
  if (d.has('blind4-wallet-available-cached')) {
    const perStore = availableSnapshot.get(store) ?? new Map<string, string>();
    availableSnapshot.set(store, perStore);
    if (!perStore.has(business.id)) perStore.set(business.id, business.currentBalance);
    body.available_balance = perStore.get(business.id);
  }
  if (d.has('reserved-nonzero-every-tenth-read') && counters.walletReads % 10 === 0) body.reserved_balance = '0.01';
  // 2.5: no reservations in v1 (blind5 defects: the cost of bulks in flight shown reserved, or taken off available).
  const pending = d.has('blind5-wallet-reserved-in-flight') || d.has('blind5-wallet-available-excludes-in-flight') ? 0.04 * entriesInFlight(call, business.id) : 0;
  if (pending > 0 && d.has('blind5-wallet-reserved-in-flight')) body.reserved_balance = pending.toFixed(2);
  if (pending > 0 && d.has('blind5-wallet-available-excludes-in-flight')) body.available_balance = (Number(business.currentBalance) - pending).toFixed(2);
  // 2.5: reserved is always 0.00 (the blind6 defect shows the holds refused submissions left).
  const held = d.has('blind6-reserved-hold-left-by-refusal') ? (refusalHolds.get(store)?.get(business.id) ?? 0) : 0;
  if (held > 0) body.reserved_balance = held.toFixed(2);
  // 2.5: as_of is the time of this snapshot (the blind9 defect keeps the time the business was first loaded into its cache).
  if (d.has('blind9-wallet-as-of-first-load')) {
    const loaded = firstLoadedAt.get(store) ?? firstLoadedAt.set(store, new Map()).get(store)!;
    if (!loaded.has(business.id)) loaded.set(business.id, now);
    body.as_of = call.time(loaded.get(business.id)!);
  }
  if (d.has('blind6-wallet-cache-single-slot')) singleSlot.set(store, body);
  if (retryKey !== undefined) (retryAnswers.get(store) ?? retryAnswers.set(store, new Map()).get(store)!).set(retryKey, body);
  if (d.has('blind-wallet-cache-skips-permission')) {
    const perStore = walletCache.get(store) ?? new Map<string, Record<string, unknown>>();
    walletCache.set(store, perStore.set(business.id, body));
  }
  call.json(200, body);
}

function walletBody(call: Call, id: string, name: string, currency: string, current: string, now: number): Record<string, unknown> {
  const d = call.defects;
  // 2.1: a plain decimal string (the blind defect formats it with thousands separators).
  // (Another blind defect pads it with zeros to a fixed-width column of 10.)
  const grouped = (amount: string) =>
    d.has('blind-wallet-balance-grouped')
      ? Number(amount).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
      : d.has('blind-wallet-balance-zero-padded')
        ? amount.padStart(10, '0')
        : d.has('blind5-wallet-balance-plus-sign') && !amount.startsWith('-')
          ? `+${amount}`
          : // (The blind7 defect formats it in the business locale, with a decimal comma.)
            d.has('blind7-wallet-balance-comma-decimal')
            ? amount.replace('.', ',')
            : // (The blind9 defect strips trailing zeros and leaves the point.)
              d.has('blind9-wallet-money-trailing-point')
              ? amount.replace(/0+$/, '')
              : amount;
  const body: Record<string, unknown> = {
    // 2.5: the business of the path (the defect writes the snapshot's own new id).
    // (The blind8 defect writes the ledger's compact 32-hex form.)
    // (The blind10 defect writes it in upper-case hex, as the ledger's GUID formatter does.)
    business_id: d.has('wallet-business-id-is-snapshot-id') ? uuidv7(now) : d.has('blind8-wallet-business-id-compact') ? id.replace(/-/g, '') : d.has('blind10-wallet-business-id-upper-case') ? id.toUpperCase() : id,
    // 2.5: 1 to 256 characters (the defect shows an unset trading name: empty).
    // (The blind7 defect reads it from a CHAR(300) column, padded with spaces.)
    business_name: d.has('wallet-business-name-empty') ? '' : d.has('blind7-wallet-business-name-padded') ? name.padEnd(300, ' ') : name,
    // 2.5: ISO 4217 alphabetic, upper case.
    // (The blind7 defect writes the display symbol.)
    currency: d.has('wallet-currency-lower-case')
      ? currency.toLowerCase()
      : d.has('blind-wallet-currency-numeric')
        ? (NUMERIC_CURRENCY[currency] ?? '999')
        : d.has('blind7-wallet-currency-symbol')
          ? (CURRENCY_SYMBOL[currency] ?? '¤')
          : currency,
    current_balance: d.has('wallet-balance-as-number') ? Number(current) : grouped(current),
    // 2.5: available equals current in v1; reserved is always 0.00.
    // (The blind defect rounds available_balance to whole units.)
    // (Another writes it in minor units, as the ledger keeps it.)
    available_balance: d.has('available-differs-from-current')
      ? (Number(current) - 1).toFixed(2)
      : d.has('blind-wallet-available-rounded')
        ? String(Math.round(Number(current)))
        : d.has('blind3-wallet-available-minor-units')
          ? String(Math.round(Number(current) * 100))
          : grouped(current),
    // 2.5: a decimal money string (the blind defect writes the JSON number 0).
    reserved_balance: d.has('blind3-wallet-reserved-number') ? 0 : d.has('blind9-wallet-money-trailing-point') ? grouped('0.00') : '0.00',
    // 2.5: the UTC time of the snapshot (the defect writes it at +01:00).
    // (The blind defect writes a local date-time with no offset.)
    // (Another writes the server's local time, UTC+1, labelled Z.)
    // (The blind6 defect writes an HTTP date, the Date header's form.)
    as_of: d.has('blind6-wallet-as-of-http-date') ? new Date(now).toUTCString() : d.has('blind4-wallet-as-of-local-labelled-utc') ? call.time(now + 3_600_000) : d.has('wallet-as-of-not-utc') ? `${new Date(now + 3_600_000).toISOString().slice(0, -1)}+01:00` : d.has('blind3-wallet-as-of-local') ? call.time(now).replace(/Z$/, '') : call.time(now),
  };
  // 2.5: all seven members (the defect leaves business_name out).
  if (d.has('wallet-business-name-missing')) delete body.business_name;
  return body;
}

/** Businesses whose wallet read was refused, per reference (the `blind8-wallet-refusal-cached-per-business` defect). */
const walletRefusals = new WeakMap<object, Set<string>>();

/** When each business's wallet record was first loaded (the `blind9-wallet-as-of-first-load` defect). */
const firstLoadedAt = new WeakMap<object, Map<string, number>>();

/** Wallet bodies by X-Request-Id and path (the `blind10-wallet-replay-by-request-id` defect). */
const retryAnswers = new WeakMap<object, Map<string, Record<string, unknown>>>();
