// 4.1 createSmsBulkMessage: POST /v1/businesses/{businessId}/sms/bulk-messages
import type { BulkRecord, Business, IdempotencyRecord } from '../store.ts';
import { UUID_V7, generateRequestId, uuidv4, uuidv7 } from '../ids.ts';
import { assignFates } from '../lifecycle.ts';
import { authorize } from './authorize.ts';
import type { FieldError } from '../problems.ts';
import { MAX_RECIPIENTS, checkVariables, isE164, placeholdersOf, validateBulkBody, type BulkBody } from './bulk-body.ts';
import type { Call } from './call.ts';
import { readByOwner } from './bulk-read.ts';
import { acceptanceTimes, latestPins, numbersSentTo } from './render.ts';
import { acceptedHere, bulkResponseCache, collectedJobs, firstRecipientVariables, inFlight, latestAccepted, latestClassification, latestSubmissionAt, latestTemplateVariables, renderBulk, replaysOf } from './render.ts';
import { refusalHolds } from './wallet.ts';
import type { StoredResponse } from '../store.ts';

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

/** The bulk id at the end of a Location this module wrote. */
function bulkIdOfLocation(location: string): string {
  return location.split('/').pop() ?? '';
}

export function bulkLocation(businessId: string, bulkId: string): string {
  return `/v1/businesses/${businessId}/sms/bulk-messages/${bulkId}`;
}

export function createBulk(call: Call, businessId: string, rawBody: string): void {
  const { store, clock } = call.deps;
  const d = call.defects;
  // 4.1 rule 2: one record per key whichever process answers (the blind9 defect's records live in the
  // memory of one of two workers, and submissions alternate between them).
  const worker = d.has('blind9-keys-per-worker') ? `worker${(submissionTurns.set(store, (submissionTurns.get(store) ?? 0) + 1).get(store)!) % 2}\u0000` : '';
  // 5.6 steps 2-3 come before any look at the body (reference choice: grant before validation;
  // the blind defect validates the body first, so a business without grant learns of its faults).
  if (d.has('blind-validation-before-grant') && !call.app?.grants.some((g) => g.businessId === businessId && g.active)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawBody);
    } catch {
      parsed = undefined;
    }
    const early = validateBulkBody(parsed, d);
    if (early.length > 0) return call.validationFailed('The request body is invalid.', early);
  }
  // 5.6: the grant comes first (the blind defect checks the body's sender against the path's business
  // before it asks for the grant).
  if (d.has('blind3-sender-before-grant') && !call.app?.grants.some((g) => g.businessId === businessId && g.active)) {
    let from: unknown;
    try {
      from = (JSON.parse(rawBody) as { from?: unknown }).from;
    } catch {
      from = undefined;
    }
    if (typeof from === 'string' && !store.sender(businessId, from)?.authorized) {
      return call.problem('sender_not_authorized', 'The sender identity is not authorized for this business.');
    }
  }
  // The defect checks the grant and the sender on the application's own business, not the path's.
  // 4.1 rule 2 / 5.6: the key's scope includes the business, and the grant comes first (the blind8
  // defect's idempotency middleware, mounted before it, finds a key by application and key alone).
  const sentKey = call.req.headers['idempotency-key'];
  const crossBusiness = typeof sentKey === 'string' && call.app && d.has('blind8-replay-lookup-ignores-business') ? keyReplays.get(store)?.get(`${call.app.clientId}\u0000${sentKey}`) : undefined;
  if (crossBusiness) return call.raw(crossBusiness.status, crossBusiness.body, { Location: crossBusiness.location });
  // A key store scoped by application and key alone, whose record of another business trips a check of its own (500).
  const keyBusiness = typeof sentKey === 'string' && call.app && d.has('key-on-other-business-500') ? keyBusinesses.get(store)?.get(`${call.app.clientId}\u0000${sentKey}`) : undefined;
  if (keyBusiness !== undefined && keyBusiness !== businessId) return call.problem('internal_error', 'An unexpected error occurred.');
  const grantedOn = d.has('submission-grant-of-own-business') ? (call.app?.grants.find((g) => g.active)?.businessId ?? businessId) : businessId;
  if (!authorize(call, grantedOn, 'sms.bulk.send')) return;
  // What the defects that create a bulk before a refusal leave behind.
  const saveOrphan = () => store.saveBulk(orphanBulk(call, businessId));
  // 4.1: a refused body creates nothing and names no bulk (one defect saves a bulk first, another
  // answers with the Location of the id drafted for it).
  const refuse = (detail: string, errors: FieldError[], options: { status?: number } = {}) => {
    if (d.has('validation-refusal-after-save')) saveOrphan();
    // 4.1 / 7: a refusal holds nothing of its key (the blind9 defect reserved the key before validating and leaves the reservation).
    if (typeof sentKey === 'string' && sentKey !== '' && call.app && d.has('blind9-key-reserved-by-refusal-500') && !store.idempotency([call.app.clientId, businessId, OPERATION, sentKey].join('\u0000'))) {
      (reservedKeys.get(store) ?? reservedKeys.set(store, new Set()).get(store)!).add(`${call.app.clientId}\u0000${businessId}\u0000${sentKey}`);
    }
    const headers: Record<string, string> = d.has('refusal-with-location') ? { Location: bulkLocation(businessId, uuidv7(clock.now())) } : {};
    return call.problem('validation_failed', detail, { errors, headers, ...options });
  };

  // 4.1: the body is application/json; any other media type is refused (one defect hands a
  // text/plain body to a parser that is not there and throws, another refuses it with 415).
  const contentType = call.req.headers['content-type'] ?? '';
  // Media type parameters such as charset are allowed (the blind defect compares the whole header).
  // (Another blind defect compares the type case-sensitively.)
  const mediaType = d.has('blind-json-charset-refused')
    ? contentType.trim().toLowerCase()
    : d.has('blind5-media-type-case-sensitive')
      ? contentType.split(';')[0]!.trim()
      : contentType.split(';')[0]!.trim().toLowerCase();
  if (mediaType === 'text/plain' && d.has('text-plain-body-500')) throw new Error('no body parser registered for text/plain');
  if (mediaType !== 'application/json' && !d.has('content-type-not-checked')) {
    const errors = [{ pointer: 'Content-Type', code: 'field_invalid' }];
    return refuse('The request body must be sent as application/json.', errors, d.has('content-type-415') ? { status: 415 } : {});
  }

  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    // 4.1: the body is JSON (the blind7 defect's lenient parser drops trailing commas and tries again).
    const lenient = d.has('blind7-json-trailing-comma-accepted') ? tryParse(rawBody.replace(/,\s*([}\]])/g, '$1')) : undefined;
    if (lenient === undefined) return refuse('The request body is not valid JSON.', [{ pointer: '', code: 'field_invalid' }]);
    body = lenient.value;
  }
  // 7: a body that is no object is the caller's fault (the blind5 defect reads null as an object, which throws).
  if (body === null && d.has('blind5-null-body-500')) throw new TypeError("Cannot read properties of null (reading 'recipients')");

  // 4.1 rule 1: count every submitted entry (duplicates and invalid numbers included) before
  // anything else about the entries, and create nothing when the count is above the maximum.
  const recipients = isRecord(body) && Array.isArray(body.recipients) ? (body.recipients as unknown[]) : undefined;
  // 2.5: no reservations in v1 (the blind6 defect holds the cost of the entries as soon as the body is
  // read and releases it only on acceptance, so a refused submission leaves its hold).
  const holds = d.has('blind6-reserved-hold-left-by-refusal') ? (refusalHolds.get(store) ?? refusalHolds.set(store, new Map()).get(store)!) : undefined;
  if (holds && recipients) holds.set(businessId, (holds.get(businessId) ?? 0) + 0.04 * recipients.length);
  if (recipients) {
    let max = d.has('recipient-limit-1001-accepted') ? MAX_RECIPIENTS + 1 : d.has('recipient-limit-999') ? MAX_RECIPIENTS - 1 : MAX_RECIPIENTS;
    // 8: one maximum for every submission (the blind defect halves it for template-based ones).
    if (d.has('blind-template-limit-500') && isRecord(body) && 'template_id' in body) max = 500;
    // 8: one maximum whatever the classification (the blind defect throttles promotional ones to 500).
    if (d.has('blind4-promotional-limit-500') && isRecord(body) && body.classification === 'promotional') max = 500;
    // 8: the maximum is per submission (the blind defect counts the business's last hour of submissions).
    if (d.has('blind-limit-rolling-window')) max -= recentEntries(call, businessId);
    // 8: higher quotas are not available (the blind6 defect promotes a business after an at-max acceptance).
    if (d.has('blind6-limit-raised-after-at-max') && raisedQuota.get(store)?.has(businessId)) max = 2 * MAX_RECIPIENTS;
    // (The blind7 defect halves it for a business flagged by an over-limit submission.)
    if (d.has('blind7-limit-halved-after-over-limit-refusal') && flaggedBusinesses.get(store)?.has(businessId)) max = MAX_RECIPIENTS / 2;
    // (The blind8 defect checks the count on the message path only.)
    if (d.has('blind8-template-submission-limit-unchecked') && isRecord(body) && 'template_id' in body) max = Number.POSITIVE_INFINITY;
    // (The blind9 defect checks the count only for a key it has not seen, and an over-limit refusal marks its key as seen.)
    const seenKey = typeof sentKey === 'string' && call.app ? `${call.app.clientId}\u0000${businessId}\u0000${sentKey}` : undefined;
    if (seenKey && d.has('blind9-over-limit-retry-accepted') && overLimitKeys.get(store)?.has(seenKey)) max = Number.POSITIVE_INFINITY;
    let count = d.has('recipient-limit-counts-unique') ? new Set(recipients.map((r) => JSON.stringify(r))).size : recipients.length;
    // 4.1 rule 1: every entry counts (blind10 defects leave out numbers on the business's suppression list,
    // and numbers it sent to in the last ten minutes, taken for duplicates already counted).
    const suppressed = d.has('blind10-known-bad-numbers-left-out-of-count') ? knownBadNumbers.get(store)?.get(businessId) : undefined;
    if (suppressed) count = recipients.filter((r) => !(isRecord(r) && typeof r.to === 'string' && suppressed.has(r.to))).length;
    const sentTo = d.has('blind10-count-excludes-recently-sent-numbers') ? recentlySent.get(store)?.get(businessId) : undefined;
    if (sentTo) count = recipients.filter((r) => !(isRecord(r) && typeof r.to === 'string' && clock.now() - (sentTo.get(r.to) ?? Number.NEGATIVE_INFINITY) < 10 * 60_000)).length;
    // 4.1 rule 1: the entries of this request (the blind8 defect adds those of every earlier request under its key).
    const entryKey = typeof sentKey === 'string' && call.app ? `${call.app.clientId}\u0000${businessId}\u0000${sentKey}` : undefined;
    const keyEntries = entryKey && d.has('blind8-repeat-counts-key-entries') ? (entriesPerKey.get(store) ?? entriesPerKey.set(store, new Map()).get(store)!) : undefined;
    if (keyEntries && entryKey) count += keyEntries.get(entryKey) ?? 0;
    // 4.1 rule 1: invalid numbers count too (the blind defect counts well-formed numbers only).
    if (d.has('blind3-limit-skips-invalid-numbers')) count = recipients.filter((r) => isRecord(r) && isE164(r.to)).length;
    // (The blind defect leaves entries without a number, to missing or empty, out of the count.)
    if (d.has('blind4-limit-skips-empty-entries')) count = recipients.filter((r) => !(isRecord(r) && (r.to === undefined || r.to === ''))).length;
    // 8 / 7: an empty list is a validation failure (the blind defect's range check answers it as the limit's).
    if (count === 0 && d.has('blind3-empty-recipients-limit-code')) return call.problem('recipient_limit_exceeded', 'The submission must have 1 to 1000 recipient entries.');
    // 8: entries are counted, not SMS segments (the blind defect multiplies by the message's 160-character segments).
    if (d.has('blind-limit-counts-segments') && isRecord(body) && typeof body.message === 'string') count *= Math.max(1, Math.ceil(body.message.length / 160));
    if (d.has('recipient-limit-after-entry-validation') && count > max) {
      const errors = validateBulkBody(body, d);
      if (errors.length > 0) return call.validationFailed('The request body is invalid.', errors);
    }
    // 4.1 rule 1: no partial acceptance (the blind defect keeps the first 1000 entries and goes on).
    if (count > max && d.has('blind-over-limit-truncated')) (body as Record<string, unknown>).recipients = recipients.slice(0, max);
    else if (count > max) {
      // 4.1 rule 2: a refusal leaves the key bound to its first body (the blind10 defect releases it as failed).
      if (d.has('blind10-key-released-by-over-limit-repeat') && typeof sentKey === 'string' && call.app) (released.get(store) ?? released.set(store, new Set()).get(store)!).add([call.app.clientId, businessId, OPERATION, sentKey].join('\u0000'));
      if (seenKey && d.has('blind9-over-limit-retry-accepted')) (overLimitKeys.get(store) ?? overLimitKeys.set(store, new Set()).get(store)!).add(seenKey);
      // 4.1 rule 1: refused before billing (the blind9 defect queues the refused entries' charge for the business's next acceptance).
      if (d.has('blind9-over-limit-charge-deferred')) {
        const queued = pendingCharges.get(store) ?? pendingCharges.set(store, new Map()).get(store)!;
        queued.set(businessId, (queued.get(businessId) ?? 0) + 0.04 * recipients.length);
      }
      // 7: 422 recipient_limit_exceeded (the blind8 defect's rate limiter answers it as a spent budget).
      if (d.has('blind8-over-limit-429-rate-limited')) return call.problem('rate_limit_exceeded', 'The submission exceeds the entry budget of one request.', { headers: { 'Retry-After': '1' } });
      if (d.has('recipient-limit-creates-bulk')) store.saveBulk(orphanBulk(call, businessId));
      if (d.has('blind7-limit-halved-after-over-limit-refusal')) (flaggedBusinesses.get(store) ?? flaggedBusinesses.set(store, new Set()).get(store)!).add(businessId);
      // 4.1 rule 1: refused before billing (the defect debits the wallet all the same).
      if (d.has('recipient-limit-billed')) debit(store.business(businessId)!, 0.04 * recipients.length);
      // 4.1 rule 1 / 7: 422 recipient_limit_exceeded (the blind6 defect refuses it as a plan quota, 403).
      if (d.has('blind6-over-limit-403-quota')) return call.problem('permission_denied', 'The business plan allows at most 1000 recipient entries per submission.');
      if (d.has('recipient-limit-status-400')) {
        return call.validationFailed('Too many recipients.', [{ pointer: '/recipients', code: 'field_invalid' }]);
      }
      // 4.1 rule 1: nothing of the refused submission is named in the answer (the defects give the
      // id allocated before the count was checked, as a Location header or as a member).
      const allocated = bulkLocation(businessId, uuidv7(call.deps.clock.now()));
      // 7: the code is recipient_limit_exceeded (the blind defect reports invalid_recipient).
      return call.problem(d.has('blind-over-limit-invalid-recipient-code') ? 'invalid_recipient' : 'recipient_limit_exceeded', `The submission has ${recipients.length} recipient entries; at most ${MAX_RECIPIENTS} are accepted.`, {
        ...(d.has('recipient-limit-location') ? { headers: { Location: allocated } } : {}),
        // 7: 422 (blind defects: 413, as for a payload too large; 400, from the schema's maxItems).
        ...(d.has('blind3-over-limit-status-413') ? { status: 413 } : d.has('blind5-over-limit-status-400') ? { status: 400 } : {}),
        ...(d.has('recipient-limit-id-in-problem') ? { extra: { id: allocated.split('/').pop() } } : {}),
      });
    }
  }

  if (recipients && d.has('blind8-repeat-counts-key-entries') && typeof sentKey === 'string' && call.app) {
    const perKey = entriesPerKey.get(store) ?? entriesPerKey.set(store, new Map()).get(store)!;
    const entryKey = `${call.app.clientId}\u0000${businessId}\u0000${sentKey}`;
    perKey.set(entryKey, (perKey.get(entryKey) ?? 0) + recipients.length);
  }
  // 4.1 rule 1: duplicates are entries like any other (the blind7 defect's flood guard refuses a number repeated over 100 times).
  if (recipients && d.has('blind7-repeated-numbers-refused')) {
    const perNumber = new Map<string, number>();
    for (const r of recipients) if (isRecord(r) && typeof r.to === 'string') perNumber.set(r.to, (perNumber.get(r.to) ?? 0) + 1);
    if ([...perNumber.values()].some((n) => n > 100)) return call.problem('invalid_recipient', 'A recipient number is repeated too often in this submission.');
  }
  // 4.0: Idempotency-Key is required on bulk submission, 1 to 256 characters.
  const keyHeader = call.req.headers['idempotency-key'];
  const key = typeof keyHeader === 'string' ? keyHeader : undefined;
  const keyMissing = key === undefined || key.length === 0;
  const maxKeyLength = d.has('idempotency-key-max-255') ? 255 : d.has('idempotency-key-257-accepted') ? 257 : 256;
  const minKeyLength = d.has('idempotency-key-min-2') ? 2 : 1;
  const keyRefused = () =>
    call.validationFailed('The Idempotency-Key header is required and must be 1 to 256 characters.', [{ pointer: 'Idempotency-Key', code: 'field_invalid' }]);
  // 4.0: a refused key creates nothing (the defects save the bulk before the header is checked).
  // (The blind7 defect takes an empty header for a submission without idempotency.)
  if (keyMissing && !d.has('idempotency-key-optional') && !(key === '' && d.has('blind7-empty-key-taken-as-none'))) {
    if (d.has('key-missing-refused-after-save')) saveOrphan();
    return keyRefused();
  }
  if (key !== undefined && !keyMissing && (key.length > maxKeyLength || key.length < minKeyLength)) {
    if (d.has('key-too-long-refused-after-save') && key.length > maxKeyLength) saveOrphan();
    return keyRefused();
  }

  // 4.1: an empty recipients array is refused and creates nothing (the defect records the bulk first).
  if (recipients?.length === 0 && d.has('zero-recipients-creates-bulk')) store.saveBulk(orphanBulk(call, businessId));
  // 4.1: a template_id that is no UUIDv7 is a validation failure (the blind8 defect looks it up first
  // and answers a lookup that finds nothing as a template not active).
  const templateText = isRecord(body) ? body.template_id : undefined;
  if (typeof templateText === 'string' && !UUID_V7.test(templateText) && !store.template(templateText) && d.has('blind8-template-id-looked-up-unvalidated')) {
    return call.problem('template_not_active', 'The template is not active for new submissions.');
  }
  // 4.1: exactly one content member, and no member the body does not define, on every submission (blind10 defects:
  // a form object reused per application fills in the previous accepted content; strict checking ends after a first acceptance).
  const submitter = `${call.app!.clientId}\u0000${businessId}`;
  const reusedContent = d.has('blind10-content-defaulted-from-previous-submission') && isRecord(body) && !('message' in body) && !('template_id' in body) ? previousContent.get(store)?.get(submitter) : undefined;
  if (reusedContent && isRecord(body)) Object.assign(body, reusedContent);
  if (d.has('blind10-extra-members-tolerated-after-acceptance') && isRecord(body) && lenientSubmitters.get(store)?.has(submitter)) {
    for (const member of Object.keys(body)) if (!['from', 'classification', 'message', 'template_id', 'recipients'].includes(member)) delete body[member];
  }
  const errors = validateBulkBody(body, d);
  // (The blind10 defect puts the numbers a refusal named on the business's suppression list.)
  if (errors.length > 0 && recipients && d.has('blind10-known-bad-numbers-left-out-of-count')) {
    const list = knownBadNumbers.get(store) ?? knownBadNumbers.set(store, new Map()).get(store)!;
    for (const e of errors) {
      const at = /^\/recipients\/(\d+)\/to$/.exec(e.pointer);
      const to = at ? (recipients[Number(at[1])] as { to?: unknown } | undefined)?.to : undefined;
      if (typeof to === 'string') list.set(businessId, (list.get(businessId) ?? new Set<string>()).add(to));
    }
  }
  // 4.1 rule 2: a refused request leaves the key's record alone (the blind6 defect writes its own fingerprint into it).
  if (errors.length > 0 && key && d.has('blind6-invalid-repeat-rebinds-key')) {
    const bound = [call.app!.clientId, businessId, OPERATION, key].join('\u0000');
    const record = store.idempotency(bound);
    if (record) store.saveIdempotency(bound, { ...record, fingerprint: `refused:${rawBody}` });
  }
  // 4.1 rules 2-4: a body refused under a used key is refused (the sequence defect's error path falls back to the key's replay).
  if (errors.length > 0 && key && d.has('faulty-repeat-replayed')) {
    const used = store.idempotency([call.app!.clientId, businessId, OPERATION, key].join('\u0000'));
    if (used) return call.raw(used.response.status, used.response.body, used.response.location ? { Location: used.response.location } : {});
  }
  if (errors.length > 0) return refuse('The request body is invalid.', errors);
  const valid = body as BulkBody;
  const now = clock.now();

  // 4.1 rule 2: scope is (application, business, operation, key).
  const appPart = d.has('idempotency-scope-ignores-application') ? '*' : call.app!.clientId;
  // 4.1 rule 2: the key as sent (the blind defect lower-cases it).
  // 4.1 rule 2: the whole key (the blind defect's index keeps its first 64 characters).
  const scopedKey = d.has('blind-key-case-insensitive') ? key?.toLowerCase() : d.has('blind-key-compared-64') ? key?.slice(0, 64) : key;
  // (Blind9 defects: the scope is prefixed with the worker that holds it; records are saved by business and key, the application compared after.)
  const sharedByBusiness = d.has('blind9-key-record-overwritten-by-other-application');
  const scope = keyMissing ? undefined : worker + [sharedByBusiness ? 'any-application' : appPart, businessId, OPERATION, scopedKey].join('\u0000');
  // 4.1 rules 3-4: the whole payload is compared (the blind defect leaves template_variables out).
  // Equivalence is of JSON values (blind defects: the raw text is compared; the recipients are
  // compared as a set, sorted by number).
  // (Two more blind defects: classification left out; the recipients taken as distinct numbers.)
  // (The blind6 defect normalises the message's white space first.)
  // (The blind7 defect takes the recipients as their count.)
  // (The blind9 defect keeps the first 1024 characters of the canonical payload, the width of its column.)
  const fullFingerprint = d.has('blind10-fingerprint-ignores-message')
    ? canonicalJson({ ...valid, message: undefined })
    : d.has('blind9-fingerprint-first-kilobyte')
    ? canonicalJson(valid).slice(0, 1024)
    : d.has('blind7-fingerprint-counts-recipients')
    ? canonicalJson({ ...valid, recipients: valid.recipients.length })
    : d.has('blind6-fingerprint-normalizes-message-whitespace')
    ? canonicalJson({ ...valid, ...(typeof valid.message === 'string' ? { message: valid.message.trim().replace(/\s+/g, ' ') } : {}) })
    : d.has('blind3-fingerprint-ignores-classification')
    ? canonicalJson({ ...valid, classification: undefined })
    : d.has('blind3-fingerprint-dedupes-recipients')
      ? canonicalJson({ ...valid, recipients: valid.recipients.filter((r, i, all) => all.findIndex((o) => o.to === r.to) === i) })
      : d.has('blind-fingerprint-ignores-variables')
    ? canonicalJson({ ...valid, recipients: valid.recipients.map((r) => ({ to: r.to })) })
    : d.has('blind-fingerprint-raw-text')
      ? rawBody
      : d.has('blind-fingerprint-sorts-recipients')
        ? canonicalJson({ ...valid, recipients: [...valid.recipients].sort((a, b) => a.to.localeCompare(b.to)) })
        : canonicalJson(valid);
  // (Blind defects: from left out of the fingerprint; the X-Request-Id header taken into it.)
  const fingerprint =
    (d.has('blind4-fingerprint-ignores-from') ? canonicalJson({ ...valid, from: undefined }) : fullFingerprint) +
    (d.has('blind4-fingerprint-includes-request-id') ? `\u0000${String(call.req.headers['x-request-id'] ?? '')}` : '') +
    // (The blind10 defect hashes the Content-Type header with the body.)
    (d.has('blind10-fingerprint-includes-content-type') ? `\u0000${contentType}` : '');
  // 7: a retry after a refusal is no server fault (the blind9 defect finds the refusal's reservation, without a response, and throws).
  if (scope && key && call.app && !store.idempotency(scope) && reservedKeys.get(store)?.has(`${call.app.clientId}\u0000${businessId}\u0000${key}`)) {
    throw new TypeError("Cannot read properties of undefined (reading 'location')");
  }
  let previous = scope ? store.idempotency(scope) : undefined;
  // 4.1 rule 2: the application is part of the scope (the blind9 defect saves by business and key, then compares the application).
  if (previous && sharedByBusiness && recordOwners.get(previous) !== call.app!.clientId) previous = undefined;
  // 4.1 rule 2 / 5.6 step 4: the key's scope is this application and business (the blind9 defect looks keys up in one table by key alone).
  if (!previous && key && d.has('blind9-key-table-global')) previous = globalKeys.get(store)?.get(key);
  // 4.1 rule 2: the key stays bound (the blind6 defect keeps records with the in-flight job, collected once a read saw the bulk completed).
  const boundBulk = previous && d.has('blind6-key-freed-when-bulk-completes') ? store.bulk(bulkIdOfLocation(previous.response.location)) : undefined;
  if (boundBulk && collectedJobs.has(boundBulk)) previous = undefined;
  // 4.1 rule 2: a key, once bound, stays bound (the blind5 defect drops a key's record after a conflict).
  if (scope && released.get(store)?.has(scope)) previous = undefined;
  // 4.1 rule 2: a new key is a new operation (the blind5 defect deduplicates equal payloads of the last ten minutes).
  const dedupeKey = [call.app!.clientId, businessId, fingerprint].join('\u0000');
  if (!previous && scope && d.has('blind5-content-dedupe-across-keys')) {
    const recent = recentPayloads.get(store)?.get(dedupeKey);
    if (recent && now - recent.createdAt < 10 * 60_000) previous = recent;
  }
  // A slow acceptance under the same key (the two race defects below) ends once this submission has
  // looked its key up: the race is met however far apart a loaded machine sends concurrent requests.
  if (scope) slowAcceptances.get(store)?.get(scope)?.();
  // 4.1 rule 2: a key is bound for good (the blind defect keeps records in an LRU of the
  // application's last keys, so an older key is forgotten and starts a new operation).
  if (previous && scope && d.has('blind4-key-lru-eviction') && !recentKeys(call).includes(scope)) previous = undefined;
  // 4.1 rule 2: another application's use of a key is another scope (the defect also keeps a
  // business-wide mark of used keys and refuses a key another application took).
  const businessWide = [ANY_APPLICATION, businessId, OPERATION, key].join('\u0000');
  if (!previous && scope && d.has('idempotency-key-taken-by-other-application') && store.idempotency(businessWide)) {
    return call.problem('idempotency_conflict', 'This Idempotency-Key was already used with a different payload.');
  }
  if (previous) {
    const window = d.has('replay-window-one-day') ? DAY : REPLAY_WINDOW_MS;
    const expired = now - previous.createdAt >= window;
    // (The blind7 defect compares a version a read of the bulk bumps as part of the fingerprint.)
    const readSince = d.has('blind7-replay-conflict-after-read') && readByOwner.has(store.bulk(bulkIdOfLocation(previous.response.location))!);
    // (The blind8 defect compares with the application's latest accepted payload, not the key's.)
    const compared = d.has('blind8-fingerprint-compared-to-latest-submission') ? (latestFingerprint.get(store)?.get(call.app!.clientId) ?? previous.fingerprint) : previous.fingerprint;
    const equivalent = compared === fingerprint && !readSince;
    const reordered = equivalent && previous.rawBody !== JSON.stringify(valid);
    // Equal JSON in other bytes (key order, whitespace, escapes), unlike a byte-identical repeat.
    const rewritten = equivalent && previous.requestText !== undefined && previous.requestText !== rawBody;
    const createAnew =
      (d.has('replay-new-id-on-reordered-keys') && reordered && !expired) ||
      (d.has('idempotency-conflict-ignored') && !equivalent && !expired) ||
      // 4.1 rules 3-4: canonically equal text is one payload or another, never a second bulk (the defect's fingerprint tells them apart, its lookup does not).
      (d.has('nfd-repeat-creates-bulk') && !equivalent && !expired && previous.rawBody?.normalize('NFC') === JSON.stringify(valid).normalize('NFC')) ||
      (d.has('expired-key-creates-new') && now - previous.createdAt >= REPLAY_WINDOW_MS);
    if (!createAnew) {
      if (expired) {
        // 4.1 rule 5: a key is never reusable, even after its replay window (reference: 409). One
        // defect reads the record it has just purged and throws; another saves a bulk first.
        if (d.has('expired-key-500')) throw new Error('idempotency record purged on expiry');
        if (d.has('expired-key-refused-after-save')) saveOrphan();
        return call.problem('idempotency_conflict', 'This Idempotency-Key was used more than seven days ago and cannot be reused.');
      }
      // 4.1 rule 3: equal JSON in other bytes is equivalent (the defect takes only identical bytes as such).
      if (!equivalent || (rewritten && d.has('equivalent-json-conflict'))) {
        // 4.1 rule 4: 409, nothing created, no Location, and the key keeps its first payload.
        if (d.has('conflict-creates-bulk')) saveOrphan();
        // 7: every conflicting repeat is a 409 (the blind7 defect asserts a key conflicts once).
        if (d.has('blind7-second-conflict-500')) {
          const conflicted = conflictedKeys.get(store) ?? conflictedKeys.set(store, new Set()).get(store)!;
          if (conflicted.has(scope!)) throw new Error(`assertion failed: key already marked conflicted`);
          conflicted.add(scope!);
        }
        // The defect counts the refused repeat's entries into the original bulk as bad entries.
        const original = d.has('conflict-counts-entries-as-bad') ? store.bulk(bulkIdOfLocation(previous.response.location)) : undefined;
        if (original) original.intake = { ...original.intake, bad: original.intake.bad + valid.recipients.length };
        if (d.has('conflict-rebinds-key')) store.saveIdempotency(scope!, { ...previous, fingerprint });
        // 4.1 rule 4: nothing of the original changes (the blind5 defect upserts the repeat's message first).
        const upserted = d.has('blind5-conflict-overwrites-message') ? store.bulk(bulkIdOfLocation(previous.response.location)) : undefined;
        if (upserted && typeof valid.message === 'string') upserted.message = valid.message;
        // (Another blind5 defect releases the key, as poisoned.)
        if (d.has('blind5-key-released-after-conflict')) (released.get(store) ?? released.set(store, new Set()).get(store)!).add(scope!);
        const headers: Record<string, string> = d.has('conflict-with-location') ? { Location: previous.response.location } : {};
        // 4.1 rule 4: 409 (the blind defect answers 422).
        return call.problem('idempotency_conflict', 'This Idempotency-Key was already used with a different payload.', { headers, ...(d.has('blind3-conflict-status-422') ? { status: 422 } : {}), ...(d.has('blind10-conflict-request-id-of-original') && previous.response.requestId ? { extra: { request_id: previous.response.requestId } } : {}) });
      }
      // 4.1 rule 3: a byte-identical repeat is replayed (the defect refuses it as duplicate numbers).
      if (d.has('identical-repeat-refused-422') && !rewritten) return call.problem('invalid_recipient', 'These recipients were already submitted.');
      // 4.1 rule 3: replay the original response (status, body, Location) and create nothing (the
      // defects run the acceptance again underneath: for a byte-identical repeat, or one rewritten).
      if ((d.has('replay-creates-bulk') && !rewritten) || (d.has('equivalent-repeat-creates-bulk') && rewritten)) saveOrphan();
      // 4.1 rule 3: that key's own response (the blind defect reads a single per-application slot).
      const r = (d.has('blind4-replay-serves-latest-response') && latestResponse.get(store)?.get(call.app!.clientId)) || previous.response;
      const replayed = store.bulk(bulkIdOfLocation(r.location));
      if (replayed) {
        // Defects of the sequences topic: the repeat changes the original bulk underneath (its intake
        // counts the entries again; a rewritten repeat appends its numbers as rows), or rebinds the key
        // to the rewritten bytes, or the replay shows the bulk as it is now once it was read.
        // (The blind9 defect counts the replay on the bulk's record, which reads then serialise.)
        if (d.has('blind9-read-shows-replay-count')) replaysOf.set(replayed, (replaysOf.get(replayed) ?? 0) + 1);
        if (d.has('replay-adds-intake')) replayed.intake = { ...replayed.intake, good: replayed.intake.good + valid.recipients.length };
        // (The blind6 defect enqueues the bulk again, stamped with the repeat's time.)
        if (d.has('blind6-replay-requeues-bulk')) replayed.acceptedAt = now;
        // (The blind7 defect upserts the rows again, under new ids.)
        if (d.has('blind7-row-ids-regenerated-on-replay')) replayed.rows = replayed.rows.map((row) => ({ ...row, id: uuidv7(now) }));
        if (d.has('equivalent-repeat-appends-rows') && rewritten) {
          const extra = valid.recipients.map((x, i) => ({ id: uuidv7(now), position: replayed.rows.length + i, to: x.to, fate: 'delivered' as const }));
          replayed.rows = [...replayed.rows, ...extra];
        }
        if (d.has('rewritten-repeat-rebinds-key') && rewritten) store.saveIdempotency(scope!, { ...previous, fingerprint: `bytes:${rawBody}` });
        if (d.has('replay-after-read-shows-current') && readByOwner.has(replayed)) return call.raw(r.status, JSON.stringify(renderBulk(call, replayed)), r.location ? { Location: r.location } : {});
      }
      const replayHeaders: Record<string, string> = r.location && !d.has('replay-without-location') ? { Location: r.location } : {};
      // 4.1 rule 3: the key's own Location (the blind7 defect rebuilds it from the business's latest bulk).
      const latestLocation = d.has('blind7-replay-location-of-latest-bulk') ? latestLocationOf.get(store)?.get(businessId) : undefined;
      if (latestLocation && replayHeaders.Location) replayHeaders.Location = latestLocation;
      // 4.1 rule 3: the original body (the blind7 defect's content members are shared with the application's latest acceptance).
      const shared = d.has('blind7-replay-body-shared-object') ? sharedContent.get(store)?.get(call.app!.clientId) : undefined;
      if (shared && r.body) return call.raw(r.status, JSON.stringify({ ...(JSON.parse(r.body) as Record<string, unknown>), ...shared }), replayHeaders);
      // 4.0: the repeat's own request id (the blind defect replays the original one with the rest).
      if (d.has('blind-replay-stale-request-id') && r.requestId) replayHeaders['X-Request-Id'] = r.requestId;
      // 4.1 rule 3: the original response (blind defects: status 200, or the bulk as it is now).
      const current = d.has('blind-replay-current-state') ? store.bulk(r.location.split('/').pop() ?? '') : undefined;
      if (current) return call.raw(r.status, JSON.stringify(renderBulk(call, current)), replayHeaders);
      // 4: every response has X-Request-Id (the blind defect's replay cache writes the stored answer alone).
      if (d.has('blind-replay-without-request-id')) {
        call.res.writeHead(r.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(r.body), ...replayHeaders });
        return void call.res.end(r.body);
      }
      // 4.1 rule 3: every repeat replays the body (the blind5 defect's cache hands it out once).
      const replays = (replayCounts.get(store) ?? replayCounts.set(store, new Map()).get(store)!);
      replays.set(scope!, (replays.get(scope!) ?? 0) + 1);
      const replayedBody = d.has('blind5-replay-body-empty-after-first') && replays.get(scope!)! > 1 ? '' : r.body;
      // 4.1 rule 3: the original response (blind6 defects: labelled as a problem by the shared writer;
      // read from a per-bulk response cache the listing also writes).
      if (d.has('blind6-replay-labelled-problem-json')) replayHeaders['Content-Type'] = 'application/problem+json';
      const cachedPage = replayed && d.has('blind6-replay-from-bulk-response-cache') ? bulkResponseCache.get(replayed) : undefined;
      if (cachedPage !== undefined) return call.raw(r.status, cachedPage, replayHeaders);
      return call.raw(d.has('blind-replay-status-200') ? 200 : r.status, replayedBody, replayHeaders);
    }
  }

  // 4.1 rule 2: a new key is a new operation (the blind8 defect's duplicate-send guard refuses a new
  // key sent to the same audience, from the same sender, within ten minutes).
  const audience = d.has('blind8-duplicate-send-guard-409') ? canonicalJson({ businessId, from: valid.from, classification: valid.classification, to: [...new Set(valid.recipients.map((r) => r.to))].sort() }) : '';
  const sentBefore = d.has('blind8-duplicate-send-guard-409') ? recentAudiences.get(store)?.get(`${call.app!.clientId}\u0000${audience}`) : undefined;
  if (sentBefore !== undefined && now - sentBefore < 10 * 60_000) return call.problem('idempotency_conflict', 'The same recipients were sent to from this sender a short while ago.');
  // 5.8: the sender identity must be authorized for the business.
  // (The blind defect trims the sender before the lookup.)
  // (The blind9 defect looks it up case-insensitively, as a case-insensitive collation compares.)
  const sender =
    store.sender(grantedOn, d.has('blind3-sender-trimmed') ? valid.from.trim() : valid.from) ??
    (d.has('blind9-sender-lookup-case-insensitive') ? store.sendersOf(grantedOn).find((s) => s.authorized && s.senderId.toLowerCase() === valid.from.toLowerCase()) : undefined);
  // (Another blind9 defect caches authorized senders by name alone, whatever their business.)
  const senderNames = d.has('blind9-sender-verdict-cached-by-name') ? (authorizedSenderNames.get(store) ?? authorizedSenderNames.set(store, new Set()).get(store)!) : undefined;
  // (The blind6 defect skips the check once the application had a submission accepted on the business.)
  const senderTrusted = d.has('blind6-sender-check-skipped-after-acceptance') && (trustedSubmitters.get(store)?.has(`${call.app!.clientId}\u0000${businessId}`) ?? false);
  if (!sender?.authorized && !d.has('unauthorized-sender-accepted') && !senderTrusted && !senderNames?.has(valid.from)) {
    // Nothing is accepted (one defect saves the bulk first; another names the id drafted for it).
    if (d.has('unauthorized-sender-refused-after-save')) saveOrphan();
    stageRefused(call, businessId, valid);
    const extra = d.has('sender-refusal-carries-bulk-id') ? { id: uuidv7(now) } : undefined;
    // 7: sender_not_authorized travels with 403 (the blind defect answers 422, as a semantic validation failure).
    return call.problem('sender_not_authorized', 'The sender identity is not authorized for this business.', { ...(extra ? { extra } : {}), ...(d.has('blind4-sender-not-authorized-422') ? { status: 422 } : {}) });
  }

  if (sender?.authorized) senderNames?.add(valid.from);

  // 4.1: resolve the active template revision and pin it; rule 7 for the variables.
  let pin: BulkRecord['template'] = null;
  let placeholders: readonly string[];
  if (valid.template_id !== undefined && !(valid.message !== undefined && d.has('both-message-and-template-accepted'))) {
    const template = store.template(valid.template_id);
    if (!template || template.businessId !== businessId) {
      return refuse('The template does not exist for this business.', [{ pointer: '/template_id', code: 'field_invalid' }]);
    }
    // (The blind6 defect caches the active verdict per business, once an active template was used.)
    const verdictCached = d.has('blind6-template-verdict-cached-per-business') && (activeTemplateUsed.get(store)?.has(businessId) ?? false);
    // (The blind8 defect caches a refusal per application: its later templates are refused alike.)
    const refusals = d.has('blind8-template-refusal-cached-per-application') ? (templateRefusals.get(store) ?? templateRefusals.set(store, new Set()).get(store)!) : undefined;
    if ((template.status !== 'active' || refusals?.has(call.app!.clientId)) && !d.has('archived-template-accepted') && !verdictCached) {
      refusals?.add(call.app!.clientId);
      if (d.has('archived-template-refused-after-save')) saveOrphan();
      stageRefused(call, businessId, valid);
      // 4.1 / 7: 422 (the blind defect answers 409, as a state conflict).
      return call.problem('template_not_active', 'The template is not active for new submissions.', d.has('blind4-archived-template-409') ? { status: 409 } : {});
    }
    // 2.1: the pin names the revision active now (the defect makes a new id for the pin instead).
    pin = { template_id: template.id, revision_id: d.has('bulk-pin-revision-new-id') ? uuidv7(now) : template.revisionId };
    placeholders = template.placeholders;
  } else {
    placeholders = placeholdersOf(valid.message ?? '');
  }
  // 4.1 rule 7: the placeholders of this submission's content (the blind7 defect caches them per application).
  if (d.has('blind7-placeholders-cached-per-application')) {
    const cache = placeholderCache.get(store) ?? placeholderCache.set(store, new Map()).get(store)!;
    const cached = cache.get(call.app!.clientId);
    cache.set(call.app!.clientId, placeholders);
    if (cached) placeholders = cached;
  }
  // 4.1 rule 7: every recipient's variables (the blind6 defect checks the first recipient's only).
  const variableErrors = checkVariables(d.has('blind6-variables-checked-first-recipient-only') ? { ...valid, recipients: valid.recipients.slice(0, 1) } : valid, placeholders, pin !== null, d);
  if (variableErrors.length > 0) {
    return refuse('Template variables must match the placeholders of the template.', variableErrors);
  }

  const accept = () => {
    // 7: a correct submission is not a server fault (the defect finds the lock a refusal left held, and clears it).
    if (lockedAfterRefusal.get(store)?.delete(`${call.app!.clientId}\u0000${businessId}`)) throw new Error('staging lock held');
    // 8: 1000 entries are accepted (the blind5 defect's multi-row insert holds 999).
    if (valid.recipients.length > 999 && d.has('blind5-at-max-insert-500')) throw new Error('too many SQL variables');
    // 4.1: this submission's entries only (the blind7 defect takes the staged entries of a refused one along).
    const staged = d.has('blind7-refused-entries-carried-into-next-bulk') || d.has('refused-entries-carried-intake-omitted') ? stagedEntries.get(store)?.get(`${call.app!.clientId}\u0000${businessId}`) : undefined;
    if (staged) stagedEntries.get(store)!.delete(`${call.app!.clientId}\u0000${businessId}`);
    // 2.2: a message-based bulk has no pin (the blind7 defect's per-application pin variable is not reset).
    const carriedPin = pin === null && d.has('blind7-pin-carried-over-to-next-bulk') ? (lastPin.get(store)?.get(call.app!.clientId) ?? null) : null;
    const bulk = acceptBulk(call, businessId, staged ? { ...valid, recipients: [...staged, ...valid.recipients] } : valid, pin, now);
    if (carriedPin) bulk.template = carriedPin;
    store.saveBulk(bulk);
    // 4.1: the Location names the stored bulk (the blind5 defect names an id drafted before the insert).
    const location = acceptedLocation(call, businessId, d.has('blind5-location-id-drafted-apart') ? uuidv7(now) : bulk.id);
    // 4.1: a JSON bulk SMS resource (the defect answers with the Location header alone).
    let text = d.has('acceptance-empty-body') ? '' : JSON.stringify(renderBulk(call, bulk, { acceptance: true }));
    // 4.1: the acceptance shows intake (the defect leaves it out once staged entries were taken along).
    if (staged && text && d.has('refused-entries-carried-intake-omitted')) text = JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), intake: null });
    // 4.1: 202, durable acceptance; the defects answer 201 Created, or 200 for a message-based bulk as if sent.
    const status = d.has('bulk-accepted-201') ? 201 : d.has('message-bulk-answered-200') && pin === null ? 200 : 202;
    if (scope) {
      const record: IdempotencyRecord = {
        fingerprint,
        rawBody: JSON.stringify(valid),
        requestText: rawBody,
        createdAt: now,
        response: { status, location, body: text, requestId: call.requestId },
      };
      store.saveIdempotency(scope, record);
      released.get(store)?.delete(scope);
      if (sharedByBusiness) recordOwners.set(record, call.app!.clientId);
      if (key && d.has('blind9-key-table-global')) (globalKeys.get(store) ?? globalKeys.set(store, new Map()).get(store)!).set(key, record);
      if (d.has('blind5-content-dedupe-across-keys')) (recentPayloads.get(store) ?? recentPayloads.set(store, new Map()).get(store)!).set(dedupeKey, record);
      if (d.has('idempotency-key-taken-by-other-application')) store.saveIdempotency(businessWide, record);
    }
    // 4.1: Location of the created resource.
    const headers: Record<string, string> = d.has('location-missing') ? {} : { Location: location };
    // 4.0: the client's valid id is echoed (the blind defect's acceptance path generates its own).
    if (d.has('blind-request-id-regenerated-on-202')) headers['X-Request-Id'] = generateRequestId();
    // What blind7 defects keep of the acceptance: the bulk as accepted here, the business's latest
    // classification and Location, the application's latest pin and content members.
    if (d.has('blind7-fresh-bulk-readable-without-token')) acceptedHere.add(bulk);
    if (d.has('blind7-read-classification-of-latest-submission')) (latestClassification.get(store) ?? latestClassification.set(store, new Map()).get(store)!).set(businessId, valid.classification);
    if (d.has('blind7-replay-location-of-latest-bulk')) (latestLocationOf.get(store) ?? latestLocationOf.set(store, new Map()).get(store)!).set(businessId, location);
    if (pin && d.has('blind7-pin-carried-over-to-next-bulk')) (lastPin.get(store) ?? lastPin.set(store, new Map()).get(store)!).set(call.app!.clientId, pin);
    if (text && d.has('blind7-replay-body-shared-object')) {
      const accepted = JSON.parse(text) as Record<string, unknown>;
      (sharedContent.get(store) ?? sharedContent.set(store, new Map()).get(store)!).set(call.app!.clientId, { message: accepted.message, classification: accepted.classification, intake: accepted.intake });
    }
    if (d.has('blind-limit-rolling-window')) rememberEntries(call, businessId, valid.recipients.length);
    // What blind10 defects keep of the acceptance: the numbers sent to and when, the content, the lenient
    // mode, the acceptance time, the numbers of the business's conversations, the latest pin.
    if (d.has('blind10-count-excludes-recently-sent-numbers')) {
      const perBusiness = recentlySent.get(store) ?? recentlySent.set(store, new Map()).get(store)!;
      const sent = perBusiness.get(businessId) ?? new Map<string, number>();
      for (const r of valid.recipients) sent.set(r.to, now);
      perBusiness.set(businessId, sent);
    }
    if (d.has('blind10-content-defaulted-from-previous-submission')) (previousContent.get(store) ?? previousContent.set(store, new Map()).get(store)!).set(submitter, valid.template_id !== undefined ? { template_id: valid.template_id } : { message: valid.message! });
    if (d.has('blind10-extra-members-tolerated-after-acceptance')) (lenientSubmitters.get(store) ?? lenientSubmitters.set(store, new Set()).get(store)!).add(submitter);
    if (d.has('blind10-unknown-bulk-shimmed-after-acceptance')) (acceptanceTimes.get(store) ?? acceptanceTimes.set(store, new Map()).get(store)!).set(businessId, now);
    if (d.has('blind10-message-visible-through-shared-number')) {
      const perBusiness = numbersSentTo.get(store) ?? numbersSentTo.set(store, new Map()).get(store)!;
      perBusiness.set(businessId, new Set([...(perBusiness.get(businessId) ?? []), ...valid.recipients.map((r) => r.to)]));
    }
    if (d.has('blind10-message-pin-of-latest-submission')) (latestPins.get(store) ?? latestPins.set(store, new Map()).get(store)!).set(businessId, bulk.template);
    // What blind9 defects keep of the acceptance: the queued charge posted, the variables of a template-based submission.
    const queuedCharge = pendingCharges.get(store)?.get(businessId);
    if (queuedCharge !== undefined) {
      pendingCharges.get(store)!.delete(businessId);
      debit(store.business(businessId)!, queuedCharge);
    }
    if (pin && d.has('blind9-message-rerendered-with-latest-variables')) (latestTemplateVariables.get(store) ?? latestTemplateVariables.set(store, new Map()).get(store)!).set(businessId, valid.recipients[0]?.template_variables ?? {});
    // What blind8 defects keep of the acceptance: the response by application and key, the audience's time, the latest payload.
    if (key && d.has('key-on-other-business-500')) (keyBusinesses.get(store) ?? keyBusinesses.set(store, new Map()).get(store)!).set(`${call.app!.clientId}\u0000${key}`, businessId);
    if (key && d.has('blind8-replay-lookup-ignores-business')) (keyReplays.get(store) ?? keyReplays.set(store, new Map()).get(store)!).set(`${call.app!.clientId}\u0000${key}`, { status, location, body: text });
    if (d.has('blind8-duplicate-send-guard-409')) (recentAudiences.get(store) ?? recentAudiences.set(store, new Map()).get(store)!).set(`${call.app!.clientId}\u0000${audience}`, now);
    if (d.has('blind8-fingerprint-compared-to-latest-submission')) (latestFingerprint.get(store) ?? latestFingerprint.set(store, new Map()).get(store)!).set(call.app!.clientId, fingerprint);
    // What blind6 defects keep of the acceptance: the replay by business and key, the hold released,
    // the quota tier, the sender and template verdicts, the first recipient's variables, the latest submission.
    if (scope && d.has('blind6-replay-served-before-auth')) {
      const perStore = businessKeyReplays.get(store) ?? businessKeyReplays.set(store, new Map()).get(store)!;
      perStore.set(`${businessId}\u0000${key}`, { status, location, body: text });
    }
    if (holds) holds.set(businessId, Math.max(0, (holds.get(businessId) ?? 0) - 0.04 * valid.recipients.length));
    if (d.has('blind6-limit-raised-after-at-max') && valid.recipients.length >= MAX_RECIPIENTS) (raisedQuota.get(store) ?? raisedQuota.set(store, new Set()).get(store)!).add(businessId);
    if (d.has('blind6-sender-check-skipped-after-acceptance')) (trustedSubmitters.get(store) ?? trustedSubmitters.set(store, new Set()).get(store)!).add(`${call.app!.clientId}\u0000${businessId}`);
    if (pin && d.has('blind6-template-verdict-cached-per-business')) (activeTemplateUsed.get(store) ?? activeTemplateUsed.set(store, new Set()).get(store)!).add(businessId);
    if (bulk.message !== null && d.has('blind6-bulk-message-rendered-first-recipient')) firstRecipientVariables.set(bulk, valid.recipients[0]?.template_variables ?? {});
    if (d.has('blind6-message-index-replaced-by-submission')) (latestSubmissionAt.get(store) ?? latestSubmissionAt.set(store, new Map()).get(store)!).set(businessId, now);
    // What blind defects keep of the acceptance: the key's place in an LRU, the latest response
    // per application, the latest bulk per business, and a debit of the wallet.
    if (scope && d.has('blind4-key-lru-eviction')) rememberKey(call, scope);
    if (d.has('blind4-replay-serves-latest-response')) {
      const perStore = latestResponse.get(store) ?? new Map<string, IdempotencyRecord['response']>();
      latestResponse.set(store, perStore.set(call.app!.clientId, { status, location, body: text, requestId: call.requestId }));
    }
    if (d.has('blind4-read-intake-latest-bulk')) (latestAccepted.get(store) ?? latestAccepted.set(store, new Map()).get(store)!).set(businessId, bulk);
    if (d.has('blind4-wallet-available-cached')) debit(store.business(businessId)!, 0.04 * valid.recipients.length);
    // (Blind5 defects of the wallet and the webhooks look at the business's bulks still in flight.)
    if ((['blind5-wallet-reserved-in-flight', 'blind5-wallet-available-excludes-in-flight', 'blind5-webhook-busy-while-bulk-in-flight'] as const).some((id) => d.has(id))) {
      const perStore = inFlight.get(store) ?? inFlight.set(store, new Map()).get(store)!;
      perStore.set(businessId, [...(perStore.get(businessId) ?? []), { bulk, entries: valid.recipients.length }]);
    }
    call.raw(status, text, headers);
  };
  // 4.1 rule 2: the key is looked up and recorded in one step; the defect puts a slow acceptance
  // between the two, so a concurrent same-key submission finds no record and creates its own bulk.
  if (d.has('idempotency-key-recorded-late') && scope) return acceptSlowly(call, scope, accept);
  // The other defect reserves the key first with no response yet: a concurrent same-key
  // submission takes the reservation for a record and throws reading its response (500).
  if (d.has('concurrent-same-key-500') && scope) {
    store.saveIdempotency(scope, { fingerprint, rawBody: JSON.stringify(valid), createdAt: now, response: undefined as unknown as IdempotencyRecord['response'] });
    return acceptSlowly(call, scope, accept);
  }
  accept();
}

/** Slow acceptances waiting per key: each ends after LATE_RECORD_MS, or once the key's next submission has looked it up. */
const slowAcceptances = new WeakMap<object, Map<string, () => void>>();

function acceptSlowly(call: Call, scope: string, accept: () => void): void {
  const waiting = slowAcceptances.get(call.deps.store) ?? new Map<string, () => void>();
  slowAcceptances.set(call.deps.store, waiting);
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    if (waiting.get(scope) === end) waiting.delete(scope);
    accept();
  };
  // After the current handler: the later submission finishes its lookup before this one records.
  const end = () => void setImmediate(finish);
  const timer = setTimeout(finish, LATE_RECORD_MS);
  waiting.set(scope, end);
}

/** Entries accepted per business in the last hour (the `blind-limit-rolling-window` defect). */
const acceptedEntries = new WeakMap<object, Map<string, Array<{ at: number; n: number }>>>();
const HOUR = 60 * 60 * 1000;

function recentEntries(call: Call, businessId: string): number {
  const now = call.deps.clock.now();
  return (acceptedEntries.get(call.deps.store)?.get(businessId) ?? []).filter((e) => now - e.at < HOUR).reduce((sum, e) => sum + e.n, 0);
}

function rememberEntries(call: Call, businessId: string, n: number): void {
  const perStore = acceptedEntries.get(call.deps.store) ?? new Map<string, Array<{ at: number; n: number }>>();
  acceptedEntries.set(call.deps.store, perStore);
  perStore.set(businessId, [...(perStore.get(businessId) ?? []), { at: call.deps.clock.now(), n }]);
}

/** The application's last keys, per reference (the `blind4-key-lru-eviction` defect). */
const keyOrder = new WeakMap<object, Map<string, string[]>>();
const LRU_KEYS = 10;

function recentKeys(call: Call): string[] {
  return keyOrder.get(call.deps.store)?.get(call.app!.clientId) ?? [];
}

function rememberKey(call: Call, scope: string): void {
  const perStore = keyOrder.get(call.deps.store) ?? new Map<string, string[]>();
  keyOrder.set(call.deps.store, perStore);
  perStore.set(call.app!.clientId, [...recentKeys(call).filter((k) => k !== scope), scope].slice(-LRU_KEYS));
}

/** Accepted responses by business and key, per reference (the `blind6-replay-served-before-auth` defect). */
const businessKeyReplays = new WeakMap<object, Map<string, StoredResponse>>();

/** The response a used key replays, found by business and key alone (the `blind6-replay-served-before-auth` defect). */
export function replayByBusinessKey(store: object, businessId: string, key: string): StoredResponse | undefined {
  return businessKeyReplays.get(store)?.get(`${businessId}\u0000${key}`);
}
/** Businesses promoted to a higher quota tier, per reference (the `blind6-limit-raised-after-at-max` defect). */
const raisedQuota = new WeakMap<object, Set<string>>();
/** Applications and businesses whose sender check is skipped, per reference (the `blind6-sender-check-skipped-after-acceptance` defect). */
const trustedSubmitters = new WeakMap<object, Set<string>>();
/** Businesses that used an active template, per reference (the `blind6-template-verdict-cached-per-business` defect). */
const activeTemplateUsed = new WeakMap<object, Set<string>>();

/** Keys released after a conflict, per reference (the `blind5-key-released-after-conflict` defect). */
const released = new WeakMap<object, Set<string>>();
/** Records by application, business and payload, per reference (the `blind5-content-dedupe-across-keys` defect). */
const recentPayloads = new WeakMap<object, Map<string, IdempotencyRecord>>();
/** Replays served per key, per reference (the `blind5-replay-body-empty-after-first` defect). */
const replayCounts = new WeakMap<object, Map<string, number>>();

/** The latest accepted response per application, per reference (the `blind4-replay-serves-latest-response` defect). */
const latestResponse = new WeakMap<object, Map<string, IdempotencyRecord['response']>>();

/** The application part of the business-wide key marks of `idempotency-key-taken-by-other-application`. */
const ANY_APPLICATION = 'any-application';

/**
 * 4.1: the Location of the 202 refers to the created bulk. The defects point it at a status monitor
 * on another host, at the collection, or at the bulk's recipient rows.
 */
function acceptedLocation(call: Call, businessId: string, bulkId: string): string {
  const d = call.defects;
  if (d.has('location-status-monitor')) return `https://status.example.invalid/requests/${encodeURIComponent(call.requestId)}`;
  if (d.has('location-collection-path')) return `/v1/businesses/${businessId}/sms/bulk-messages`;
  if (d.has('location-points-to-rows')) return `${bulkLocation(businessId, bulkId)}/messages`;
  if (d.has('blind-location-without-version-prefix')) return bulkLocation(businessId, bulkId).replace(/^\/v1/, '');
  if (d.has('blind3-location-trailing-slash')) return `${bulkLocation(businessId, bulkId)}/`;
  // (The blind7 defect gives the bare id, a relative reference.)
  if (d.has('blind7-location-bare-id')) return bulkId;
  // (The blind defect formats the business id as an upper-case GUID.)
  if (d.has('blind4-location-business-upper-case')) return bulkLocation(businessId.toUpperCase(), bulkId);
  return bulkLocation(businessId, bulkId);
}

/** How long the acceptance step of `idempotency-key-recorded-late` and `concurrent-same-key-500` takes at most. */
const LATE_RECORD_MS = 250;

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
  // The defect counts numbers that are not E.164 as bad at intake, yet still gives them rows.
  const malformed = call.defects.has('malformed-numbers-get-rows') ? unique.filter((to) => !isE164(to)).length : 0;
  return {
    id: call.defects.has('ids-not-uuidv7') ? uuidv4() : uuidv7(now),
    businessId,
    clientId: call.app!.clientId,
    from: body.from,
    classification: body.classification,
    // 4.1: the message as submitted (the blind defect trims it).
    message: pin ? null : body.message ?? null,
    template: pin,
    acceptedAt: now,
    intake: { good: unique.length - malformed, bad: body.recipients.length - unique.length + malformed, empty: 0 },
    // 2.3: row ids are UUIDv7 (the blind defect draws version 4 ids).
    rows: unique.map((to, position) => ({ id: call.defects.has('blind-row-ids-uuidv4') ? uuidv4() : uuidv7(now), position, to, fate: fates[position]! })),
    finished: false,
  };
}

/** What the `recipient-limit-creates-bulk` and `zero-recipients-creates-bulk` defects leave behind. */
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

/** What blind7 defects keep per reference (faithful code ignores them). */
/** Businesses that sent an over-limit submission (the `blind7-limit-halved-after-over-limit-refusal` defect). */
const flaggedBusinesses = new WeakMap<object, Set<string>>();
/** Keys that met a conflicting repeat (the `blind7-second-conflict-500` defect). */
const conflictedKeys = new WeakMap<object, Set<string>>();
/** The Location of each business's latest acceptance (the `blind7-replay-location-of-latest-bulk` defect). */
const latestLocationOf = new WeakMap<object, Map<string, string>>();
/** Content members of each application's latest acceptance (the `blind7-replay-body-shared-object` defect). */
const sharedContent = new WeakMap<object, Map<string, Record<string, unknown>>>();
/** Each application's latest template pin (the `blind7-pin-carried-over-to-next-bulk` defect). */
const lastPin = new WeakMap<object, Map<string, NonNullable<BulkRecord['template']>>>();
/** Each application's latest placeholders (the `blind7-placeholders-cached-per-application` defect). */
const placeholderCache = new WeakMap<object, Map<string, readonly string[]>>();
/** Entries of refused submissions per application and business (the `blind7-refused-entries-carried-into-next-bulk` defect). */
const stagedEntries = new WeakMap<object, Map<string, BulkBody['recipients']>>();

/** Applications' staging locks a refusal left held, per business (the `refusal-leaves-staging-lock-500` defect). */
const lockedAfterRefusal = new WeakMap<object, Set<string>>();

/** Stages a refused submission's entries, or leaves its lock held (only defects do). */
function stageRefused(call: Call, businessId: string, body: BulkBody): void {
  const d = call.defects;
  const scope = `${call.app!.clientId}\u0000${businessId}`;
  if (d.has('refusal-leaves-staging-lock-500')) (lockedAfterRefusal.get(call.deps.store) ?? lockedAfterRefusal.set(call.deps.store, new Set()).get(call.deps.store)!).add(scope);
  if (!d.has('blind7-refused-entries-carried-into-next-bulk') && !d.has('refused-entries-carried-intake-omitted')) return;
  const perStore = stagedEntries.get(call.deps.store) ?? stagedEntries.set(call.deps.store, new Map()).get(call.deps.store)!;
  perStore.set(scope, body.recipients);
}

/** JSON.parse that answers undefined for text that is not JSON (the `blind7-json-trailing-comma-accepted` defect). */
function tryParse(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** What blind8 defects keep per reference (faithful code ignores them). */
/** The business of each accepted key, by application and key (the `key-on-other-business-500` defect). */
const keyBusinesses = new WeakMap<object, Map<string, string>>();
/** Accepted responses by application and key, whatever the business (the `blind8-replay-lookup-ignores-business` defect). */
const keyReplays = new WeakMap<object, Map<string, StoredResponse>>();
/** Entries sent under each application, business and key (the `blind8-repeat-counts-key-entries` defect). */
const entriesPerKey = new WeakMap<object, Map<string, number>>();
/** When each application last sent to an audience (the `blind8-duplicate-send-guard-409` defect). */
const recentAudiences = new WeakMap<object, Map<string, number>>();
/** Each application's latest accepted fingerprint (the `blind8-fingerprint-compared-to-latest-submission` defect). */
const latestFingerprint = new WeakMap<object, Map<string, string>>();
/** Applications refused a template as not active (the `blind8-template-refusal-cached-per-application` defect). */
const templateRefusals = new WeakMap<object, Set<string>>();

/** What blind9 defects keep per reference (faithful code ignores them). */
/** Submissions seen, to alternate between two workers (the `blind9-keys-per-worker` defect). */
const submissionTurns = new WeakMap<object, number>();
/** Keys a 400 refusal left reserved, by application, business and key (the `blind9-key-reserved-by-refusal-500` defect). */
const reservedKeys = new WeakMap<object, Set<string>>();
/** Keys of over-limit refusals, by application, business and key (the `blind9-over-limit-retry-accepted` defect). */
const overLimitKeys = new WeakMap<object, Set<string>>();
/** Charges of refused over-limit submissions queued per business (the `blind9-over-limit-charge-deferred` defect). */
const pendingCharges = new WeakMap<object, Map<string, number>>();
/** The application that saved each record (the `blind9-key-record-overwritten-by-other-application` defect). */
const recordOwners = new WeakMap<IdempotencyRecord, string>();
/** Records by key alone, whatever the application and business (the `blind9-key-table-global` defect). */
const globalKeys = new WeakMap<object, Map<string, IdempotencyRecord>>();
/** Sender names that passed the check on any business (the `blind9-sender-verdict-cached-by-name` defect). */
const authorizedSenderNames = new WeakMap<object, Set<string>>();

/** What blind10 defects keep per reference (faithful code ignores them). */
/** Numbers a validation refusal named, per business (the `blind10-known-bad-numbers-left-out-of-count` defect). */
const knownBadNumbers = new WeakMap<object, Map<string, Set<string>>>();
/** When each business last sent to each number (the `blind10-count-excludes-recently-sent-numbers` defect). */
const recentlySent = new WeakMap<object, Map<string, Map<string, number>>>();
/** The content of each application's latest acceptance per business (the `blind10-content-defaulted-from-previous-submission` defect). */
const previousContent = new WeakMap<object, Map<string, { message?: string; template_id?: string }>>();
/** Applications past their first acceptance per business (the `blind10-extra-members-tolerated-after-acceptance` defect). */
const lenientSubmitters = new WeakMap<object, Set<string>>();
