// 4.4 retrieve an individual SMS: another business's message is concealed (404 as for a random id).
import { UUID_V7 } from '../ids.ts';
import { authorize } from './authorize.ts';
import type { Call } from './call.ts';
import type { IndividualMessage, Store } from '../store.ts';
import { latestSubmissionAt, numbersSentTo, renderMessage } from './render.ts';
import type { BulkRecord } from '../store.ts';
import { listedRows } from './bulk-read.ts';
import { rowStateAt } from '../lifecycle.ts';

/** What the `blind-message-lookup-finds-bulk` defect answers: a bulk SMS read as one message. */
function renderBulkAsMessage(call: Call, bulk: BulkRecord): Record<string, unknown> {
  return renderMessage(call, {
    id: bulk.id,
    business_id: bulk.businessId,
    from: bulk.from,
    to: bulk.rows[0]?.to ?? '',
    classification: bulk.classification,
    message: bulk.message ?? '',
    status: 'sent',
    status_reason: null,
    template: bulk.template,
    accepted_at: bulk.acceptedAt,
    submitted_at: null,
    delivered_at: null,
    failed_at: null,
  });
}

const NOT_FOUND_DETAIL = 'No SMS message with this id exists for this business.';
const DAY_MS = 24 * 3600 * 1000;
/** The `not-found-detail-names-owner` defect's detail: alike for every 404 once ids are set aside. */
const ownerDetail = (businessId: string) => `No SMS message with this id exists for business ${businessId}.`;
/** Message ids looked up once, per reference (the `blind4-foreign-message-second-lookup-cached` defect). */
const idCache = new WeakMap<Store, Set<string>>();
/** The message last read per business, per reference (the `blind4-message-cache-keyed-by-business` defect). */
const lastRead = new WeakMap<Store, Map<string, IndividualMessage>>();
function businessCache(store: Store): Map<string, IndividualMessage> {
  const perStore = lastRead.get(store) ?? new Map<string, IndividualMessage>();
  lastRead.set(store, perStore);
  return perStore;
}

/** Messages each application has read, per reference (the `blind5-message-repeat-read-304` defect). */
const servedReads = new WeakMap<Store, Set<string>>();

/** Applications and businesses a lookup answered 404 for, per reference (the `blind7-message-negative-cache-by-business` defect). */
const notFoundCache = new WeakMap<Store, Set<string>>();

/** Lookups of another business's message already refused, per reference (the `foreign-message-repeat-403` defect). */
const refusedLookups = new WeakMap<Store, Set<string>>();

export function getMessage(call: Call, businessId: string, messageId: string): void {
  const d = call.defects;
  if (d.has('message-read-before-grant')) {
    // Defect: 5 refuses a business without grant; this returns the path business's message before asking.
    const early = call.deps.store.message(messageId);
    if (early && early.business_id === businessId) return call.json(200, renderMessage(call, early));
  }
  if (d.has('message-ownership-before-grant') && !call.deps.store.message(messageId)) {
    // Defect: 5.6 checks the grant before ownership; this looks the message up first.
    return call.problem('resource_not_found', NOT_FOUND_DETAIL);
  }
  if (d.has('message-lookup-conceals-grant') && !call.app?.grants.some((g) => g.businessId === businessId && g.active)) {
    // Defect: one grant decision answered 404 here and 403 on every other read.
    return call.problem('resource_not_found', NOT_FOUND_DETAIL);
  }
  if (!authorize(call, businessId, 'sms.message.read')) return;
  // 4.4: each id is looked up (the blind7 defect's not-found cache is keyed by application and business).
  const negativeKey = `${call.app?.clientId ?? ''}\u0000${businessId}`;
  if (d.has('blind7-message-negative-cache-by-business') && notFoundCache.get(call.deps.store)?.has(negativeKey)) return call.problem('resource_not_found', NOT_FOUND_DETAIL);
  // 4.0: a message id of another shape is simply not found (4xx); the defect reads the UUIDv7's
  // time field to pick the store's partition, which throws on any other shape.
  const wellFormed = UUID_V7.test(messageId);
  if (!wellFormed && d.has('message-id-parse-500')) throw new Error(`cannot read a UUIDv7 time from ${messageId}`);
  // 5.6 step 4: ownership for every id form (the blind defect's lookup folds case, as a database
  // collation would, while the ownership check below is skipped for an id not written as stored).
  const folded = d.has('blind3-message-id-case-folded-lookup') && messageId !== messageId.toLowerCase() ? call.deps.store.message(messageId.toLowerCase()) : undefined;
  if (folded) return call.json(200, renderMessage(call, folded));
  let stored = call.deps.store.message(messageId);
  // 4.4: every message of the business (the blind6 defect's index holds only the latest submission's).
  const replacedAt = d.has('blind6-message-index-replaced-by-submission') ? latestSubmissionAt.get(call.deps.store)?.get(businessId) : undefined;
  if (stored && replacedAt !== undefined && stored.business_id === businessId && stored.accepted_at < replacedAt) stored = undefined;
  // 4.4: the message of that id, and only of the caller's business. Blind defects: a cache keyed
  // by the business alone answers any id with the message last read there; a cache keyed by id,
  // filled by every lookup, is read before the ownership check.
  const byBusiness = d.has('blind4-message-cache-keyed-by-business') ? businessCache(call.deps.store) : undefined;
  const cachedForBusiness = byBusiness?.get(businessId);
  if (cachedForBusiness) return call.json(200, renderMessage(call, cachedForBusiness));
  if (stored && d.has('blind4-foreign-message-second-lookup-cached')) {
    const seen = idCache.get(call.deps.store) ?? new Set<string>();
    idCache.set(call.deps.store, seen);
    if (seen.has(stored.id)) return call.json(200, renderMessage(call, stored));
    seen.add(stored.id);
  }
  if (byBusiness && stored && stored.business_id === businessId) byBusiness.set(businessId, stored);
  // 4.4: every message of the business is retrieved (the defect searches only the last 24 hours).
  const recent = !stored || call.deps.clock.now() - stored.accepted_at <= DAY_MS;
  const message = recent || !d.has('message-lookup-last-day-only') ? stored : undefined;
  // 4.4: another business's message is concealed (the blind10 defect shares messages per conversation, by number).
  if (message && message.business_id !== businessId && d.has('blind10-message-visible-through-shared-number') && numbersSentTo.get(call.deps.store)?.get(businessId)?.has(message.to)) {
    return call.json(200, renderMessage(call, message));
  }
  if (message && message.business_id === businessId) {
    // 4.4: every read is a 200 with the message (the blind5 defect's response cache answers a repeat 304).
    if (d.has('blind5-message-repeat-read-304') && call.app) {
      const served = servedReads.get(call.deps.store) ?? new Set<string>();
      servedReads.set(call.deps.store, served);
      const key = `${call.app.clientId}\u0000${message.id}`;
      if (served.has(key)) return call.empty(304);
      served.add(key);
    }
    // 4.4: that message (the blind8 defect joins the latest SMS sent to its number and shows it under the id).
    const latest = d.has('blind8-message-shows-latest-to-number') ? latestSentTo(call, message) : undefined;
    if (latest) return call.json(200, renderMessage(call, latest));
    // 4.4: the message is the body (the blind6 defect wraps it in a data envelope).
    if (d.has('blind6-message-enveloped-in-data')) return call.json(200, { data: renderMessage(call, message) });
    // (The blind8 defect answers the collection query's one-element array.)
    if (d.has('blind8-message-read-as-array')) return call.json(200, [renderMessage(call, message)]);
    return call.json(200, renderMessage(call, message));
  }
  // 4.4: individual SMS only, of the caller's business (the blind5 defect's SMS cache holds listed rows of any business).
  const listed = !message && d.has('blind5-message-lookup-finds-listed-row') ? listedRows.get(call.deps.store)?.get(messageId) : undefined;
  if (listed) {
    const s = rowStateAt(listed.row, listed.bulk, call.deps.clock.now());
    return call.json(200, renderMessage(call, {
      id: listed.row.id,
      business_id: listed.bulk.businessId,
      from: listed.bulk.from,
      to: listed.row.to,
      classification: listed.bulk.classification,
      message: listed.bulk.message ?? '',
      status: s.delivery_status,
      status_reason: s.status_reason,
      template: listed.bulk.template,
      accepted_at: listed.bulk.acceptedAt,
      submitted_at: s.submitted_at,
      delivered_at: s.delivered_at,
      failed_at: s.failed_at,
    }));
  }
  // 5.6 step 4: ownership holds for every message (the defect checks it only for messages sent without a template).
  if (message?.template && d.has('templated-message-any-business')) return call.json(200, renderMessage(call, message));
  if (message) {
    // 4.4 / 5.8: existence across businesses is not disclosed; the answer equals a random id's.
    if (d.has('foreign-message-disclosed')) return call.json(200, renderMessage(call, message));
    if (d.has('foreign-message-403')) return call.problem('permission_denied', 'This message belongs to another business.');
    if (d.has('foreign-message-404-extra-property')) {
      return call.problem('resource_not_found', NOT_FOUND_DETAIL, { extra: { business_id: message.business_id } });
    }
    // The blind defect builds the 404's instance from the message's own path, under its owner.
    if (d.has('blind-foreign-message-404-owner-instance')) {
      return call.problem('resource_not_found', NOT_FOUND_DETAIL, { extra: { instance: `/v1/businesses/${message.business_id}/sms/messages/${message.id}` } });
    }
    if (d.has('foreign-message-404-own-detail')) return call.problem('resource_not_found', 'This SMS message is not accessible to this business.');
    // (The defect's ownership guard titles its 404 itself.)
    if (d.has('foreign-message-404-own-title')) return call.problem('resource_not_found', NOT_FOUND_DETAIL, { extra: { title: 'Message not accessible' } });
    // (The blind6 defect's ownership guard writes its 404 without an instance member.)
    if (d.has('blind6-foreign-message-404-without-instance')) return call.problem('resource_not_found', NOT_FOUND_DETAIL, { extra: { instance: undefined } });
    // The blind defect's 404 keeps the caching header the message's row provides (its acceptance time).
    if (d.has('blind-foreign-message-404-last-modified')) {
      return call.problem('resource_not_found', NOT_FOUND_DETAIL, { headers: { 'Last-Modified': new Date(message.accepted_at).toUTCString() } });
    }
    // The defect names the owning business in the detail: the other one here, the caller's below.
    if (d.has('not-found-detail-names-owner')) return call.problem('resource_not_found', ownerDetail(message.business_id));
    // The defect remembers a refused lookup and answers the next ones as an ownership denial.
    if (d.has('foreign-message-repeat-403')) {
      const seen = refusedLookups.get(call.deps.store) ?? new Set<string>();
      refusedLookups.set(call.deps.store, seen);
      const key = `${businessId}/${message.id}`;
      if (seen.has(key)) return call.problem('permission_denied', 'This message belongs to another business.');
      seen.add(key);
    }
  } else if (d.has('message-not-found-200')) {
    return call.json(200, {});
  } else if (d.has('blind-message-lookup-finds-bulk')) {
    // 4.4: only individual messages are retrieved here (the blind defect's lookup falls through to
    // the bulk SMS of the business, as with one table for every SMS).
    const bulk = call.deps.store.bulk(messageId);
    if (bulk && bulk.businessId === businessId) return call.json(200, renderBulkAsMessage(call, bulk));
  }
  if (d.has('not-found-detail-names-owner')) return call.problem('resource_not_found', ownerDetail(businessId));
  if (d.has('blind7-message-negative-cache-by-business')) (notFoundCache.get(call.deps.store) ?? notFoundCache.set(call.deps.store, new Set()).get(call.deps.store)!).add(negativeKey);
  // 7: the status member equals the HTTP status; the defect builds the body of a malformed id as
  // for a validation failure (status 400) while answering 404.
  call.problem('resource_not_found', NOT_FOUND_DETAIL, !wellFormed && d.has('path-id-problem-status-400') ? { extra: { status: 400 } } : {});
}

/** The message as the latest bulk sent to its number shows it, under its own id (the `blind8-message-shows-latest-to-number` defect). */
function latestSentTo(call: Call, message: IndividualMessage): IndividualMessage | undefined {
  const bulk = call.deps.store
    .allBulks()
    .filter((b) => b.businessId === message.business_id && b.acceptedAt > message.accepted_at && b.rows.some((r) => r.to === message.to))
    .sort((a, b) => b.acceptedAt - a.acceptedAt)[0];
  const row = bulk?.rows.find((r) => r.to === message.to);
  if (!bulk || !row) return undefined;
  const s = rowStateAt(row, bulk, call.deps.clock.now());
  return {
    ...message,
    from: bulk.from,
    classification: bulk.classification,
    message: bulk.message ?? message.message,
    status: s.delivery_status,
    status_reason: s.status_reason,
    template: bulk.template,
    accepted_at: bulk.acceptedAt,
    submitted_at: s.submitted_at,
    delivered_at: s.delivered_at,
    failed_at: s.failed_at,
  };
}
