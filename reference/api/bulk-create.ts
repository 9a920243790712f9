// 4.1 createSmsBulkMessage: POST /v1/businesses/{businessId}/sms/bulk-messages
import type { BulkRecord, Business, IdempotencyRecord } from '../store.ts';
import { uuidv4, uuidv7 } from '../ids.ts';
import { assignFates } from '../lifecycle.ts';
import { authorize } from './authorize.ts';
import { MAX_RECIPIENTS, checkVariables, placeholdersOf, validateBulkBody, type BulkBody } from './bulk-body.ts';
import type { Call } from './call.ts';
import { renderBulk } from './render.ts';

const OPERATION = 'createSmsBulkMessage';
const DAY = 24 * 60 * 60 * 1000;
/** 4.1 rule 3 and 8: equivalent repeats replay for seven days. */
export const REPLAY_WINDOW_MS = 7 * DAY;

/** Equivalence of payloads: same JSON value, whatever the key order or whitespace. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

export function bulkLocation(businessId: string, bulkId: string): string {
  return `/v1/businesses/${businessId}/sms/bulk-messages/${bulkId}`;
}

export function createBulk(call: Call, businessId: string, rawBody: string): void {
  const { store, clock } = call.deps;
  const d = call.defects;
  // 5.6 steps 2-3 come before any look at the body (reference choice: grant before validation).
  if (!authorize(call, businessId, 'sms.bulk.send')) return;

  // 4.1: the body is application/json; any other media type is refused.
  const mediaType = (call.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json' && !d.has('content-type-not-checked')) {
    return call.validationFailed('The request body must be sent as application/json.', [{ pointer: 'Content-Type', code: 'field_invalid' }]);
  }

  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return call.validationFailed('The request body is not valid JSON.', [{ pointer: '', code: 'field_invalid' }]);
  }

  // 4.1 rule 1: count every submitted entry (duplicates and invalid numbers included) before
  // anything else about the entries, and create nothing when the count is above the maximum.
  const recipients = isRecord(body) && Array.isArray(body.recipients) ? (body.recipients as unknown[]) : undefined;
  if (recipients) {
    const max = d.has('recipient-limit-1001-accepted') ? MAX_RECIPIENTS + 1 : d.has('recipient-limit-999') ? MAX_RECIPIENTS - 1 : MAX_RECIPIENTS;
    const count = d.has('recipient-limit-counts-unique') ? new Set(recipients.map((r) => JSON.stringify(r))).size : recipients.length;
    if (d.has('recipient-limit-after-entry-validation') && count > max) {
      const errors = validateBulkBody(body, d);
      if (errors.length > 0) return call.validationFailed('The request body is invalid.', errors);
    }
    if (count > max) {
      if (d.has('recipient-limit-creates-bulk')) store.saveBulk(orphanBulk(call, businessId));
      // 4.1 rule 1: refused before billing (the defect debits the wallet all the same).
      if (d.has('recipient-limit-billed')) debit(store.business(businessId)!, 0.04 * recipients.length);
      if (d.has('recipient-limit-status-400')) {
        return call.validationFailed('Too many recipients.', [{ pointer: '/recipients', code: 'field_invalid' }]);
      }
      return call.problem('recipient_limit_exceeded', `The submission has ${recipients.length} recipient entries; at most ${MAX_RECIPIENTS} are accepted.`);
    }
  }

  // 4.0: Idempotency-Key is required on bulk submission, 1 to 256 characters.
  const keyHeader = call.req.headers['idempotency-key'];
  const key = typeof keyHeader === 'string' ? keyHeader : undefined;
  const keyMissing = key === undefined || key.length === 0;
  const maxKeyLength = d.has('idempotency-key-max-255') ? 255 : 256;
  if ((keyMissing && !d.has('idempotency-key-optional')) || (key !== undefined && key.length > maxKeyLength)) {
    return call.validationFailed('The Idempotency-Key header is required and must be 1 to 256 characters.', [
      { pointer: 'Idempotency-Key', code: 'field_invalid' },
    ]);
  }

  const errors = validateBulkBody(body, d);
  if (errors.length > 0) return call.validationFailed('The request body is invalid.', errors);
  const valid = body as BulkBody;
  const now = clock.now();

  // 4.1 rule 2: scope is (application, business, operation, key).
  const appPart = d.has('idempotency-scope-ignores-application') ? '*' : call.app!.clientId;
  const scope = keyMissing ? undefined : [appPart, businessId, OPERATION, key].join('\u0000');
  const fingerprint = canonicalJson(valid);
  const previous = scope ? store.idempotency(scope) : undefined;
  if (previous) {
    const window = d.has('replay-window-one-day') ? DAY : REPLAY_WINDOW_MS;
    const expired = now - previous.createdAt >= window;
    const equivalent = previous.fingerprint === fingerprint;
    const reordered = equivalent && previous.rawBody !== JSON.stringify(valid);
    const createAnew =
      (d.has('replay-new-id-on-reordered-keys') && reordered && !expired) ||
      (d.has('idempotency-conflict-ignored') && !equivalent && !expired) ||
      (d.has('expired-key-creates-new') && now - previous.createdAt >= REPLAY_WINDOW_MS);
    if (!createAnew) {
      if (expired) {
        // 4.1 rule 5: a key is never reusable, even after its replay window (reference: 409).
        return call.problem('idempotency_conflict', 'This Idempotency-Key was used more than seven days ago and cannot be reused.');
      }
      if (!equivalent) {
        // 4.1 rule 4.
        return call.problem('idempotency_conflict', 'This Idempotency-Key was already used with a different payload.');
      }
      // 4.1 rule 3: replay the original response (status, body, Location).
      const r = previous.response;
      return call.raw(r.status, r.body, r.location && !d.has('replay-without-location') ? { Location: r.location } : {});
    }
  }

  // 5.8: the sender identity must be authorized for the business.
  const sender = store.sender(businessId, valid.from);
  if (!sender?.authorized && !d.has('unauthorized-sender-accepted')) {
    return call.problem('sender_not_authorized', 'The sender identity is not authorized for this business.');
  }

  // 4.1: resolve the active template revision and pin it; rule 7 for the variables.
  let pin: BulkRecord['template'] = null;
  let placeholders: readonly string[];
  if (valid.template_id !== undefined && !(valid.message !== undefined && d.has('both-message-and-template-accepted'))) {
    const template = store.template(valid.template_id);
    if (!template || template.businessId !== businessId) {
      return call.validationFailed('The template does not exist for this business.', [{ pointer: '/template_id', code: 'field_invalid' }]);
    }
    if (template.status !== 'active' && !d.has('archived-template-accepted')) {
      return call.problem('template_not_active', 'The template is not active for new submissions.');
    }
    // 2.1: the pin names the revision active now (the defect makes a new id for the pin instead).
    pin = { template_id: template.id, revision_id: d.has('bulk-pin-revision-new-id') ? uuidv7(now) : template.revisionId };
    placeholders = template.placeholders;
  } else {
    placeholders = placeholdersOf(valid.message ?? '');
  }
  const variableErrors = checkVariables(valid, placeholders, pin !== null, d);
  if (variableErrors.length > 0) {
    return call.validationFailed('Template variables must match the placeholders of the template.', variableErrors);
  }

  const accept = () => {
    const bulk = acceptBulk(call, businessId, valid, pin, now);
    store.saveBulk(bulk);
    const location = acceptedLocation(call, businessId, bulk.id);
    // 4.1: a JSON bulk SMS resource (the defect answers with the Location header alone).
    const text = d.has('acceptance-empty-body') ? '' : JSON.stringify(renderBulk(call, bulk, { acceptance: true }));
    // 4.1: 202, durable acceptance; the defects answer 201 Created, or 200 for a message-based bulk as if sent.
    const status = d.has('bulk-accepted-201') ? 201 : d.has('message-bulk-answered-200') && pin === null ? 200 : 202;
    if (scope) {
      const record: IdempotencyRecord = { fingerprint, rawBody: JSON.stringify(valid), createdAt: now, response: { status, location, body: text } };
      store.saveIdempotency(scope, record);
    }
    // 4.1: Location of the created resource.
    call.raw(status, text, d.has('location-missing') ? {} : { Location: location });
  };
  // 4.1 rule 2: the key is looked up and recorded in one step; the defect puts a slow acceptance
  // between the two, so a concurrent same-key submission finds no record and creates its own bulk.
  if (d.has('idempotency-key-recorded-late')) return void setTimeout(accept, LATE_RECORD_MS);
  accept();
}

/**
 * 4.1: the Location of the 202 refers to the created bulk. The defects point it at a status monitor
 * on another host, at the collection, or at the bulk's recipient rows.
 */
function acceptedLocation(call: Call, businessId: string, bulkId: string): string {
  const d = call.defects;
  if (d.has('location-status-monitor')) return `https://status.example.invalid/requests/${encodeURIComponent(call.requestId)}`;
  if (d.has('location-collection-path')) return `/v1/businesses/${businessId}/sms/bulk-messages`;
  if (d.has('location-points-to-rows')) return `${bulkLocation(businessId, bulkId)}/messages`;
  return bulkLocation(businessId, bulkId);
}

/** How long the `idempotency-key-recorded-late` defect's acceptance step takes. */
const LATE_RECORD_MS = 50;

/** What the `recipient-limit-billed` defect takes from the business's wallet. */
function debit(business: Business, amount: number): void {
  business.currentBalance = (Number(business.currentBalance) - amount).toFixed(2);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Durable acceptance. Intake (reference choice): distinct numbers are `good` and become recipient
 * rows; repeated numbers are `bad`; `empty` stays 0 because the schema admits no empty entry.
 */
function acceptBulk(call: Call, businessId: string, body: BulkBody, pin: BulkRecord['template'], now: number): BulkRecord {
  const seen = new Set<string>();
  const unique: string[] = [];
  for (const r of body.recipients) {
    if (seen.has(r.to)) continue;
    seen.add(r.to);
    unique.push(r.to);
  }
  const fates = assignFates(unique.length);
  return {
    id: call.defects.has('ids-not-uuidv7') ? uuidv4() : uuidv7(now),
    businessId,
    clientId: call.app!.clientId,
    from: body.from,
    classification: body.classification,
    message: pin ? null : (body.message ?? null),
    template: pin,
    acceptedAt: now,
    intake: { good: unique.length, bad: body.recipients.length - unique.length, empty: 0 },
    rows: unique.map((to, position) => ({ id: uuidv7(now), position, to, fate: fates[position]! })),
    finished: false,
  };
}

/** What the `recipient-limit-creates-bulk` defect leaves behind. */
function orphanBulk(call: Call, businessId: string): BulkRecord {
  const now = call.deps.clock.now();
  return {
    id: uuidv7(now),
    businessId,
    clientId: call.app!.clientId,
    from: 'unknown',
    classification: 'transactional',
    message: null,
    template: null,
    acceptedAt: now,
    intake: { good: 0, bad: 0, empty: 0 },
    rows: [],
    finished: false,
  };
}
