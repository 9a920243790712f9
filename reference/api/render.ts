// JSON shapes of section 2, rendered from stored records and the lifecycle projection.
import type { BulkRecord, IndividualMessage, RecipientRow } from '../store.ts';
import { DELIVERY_REPORTING_AT, projectBulk, rowStateAt } from '../lifecycle.ts';
import type { ActiveDefects } from '../defects.ts';
import { uuidv7 } from '../ids.ts';
import type { Call } from './call.ts';

/** 2.1 classification as written; the defect reads it through a list kept in the other order. */
const SWAPPED_CLASSIFICATION: Record<string, string> = { transactional: 'promotional', promotional: 'transactional' };

/** The latest accepted bulk per business, per reference (kept only by the `blind4-read-intake-latest-bulk` defect). */
export const latestAccepted = new WeakMap<object, Map<string, BulkRecord>>();

/** Accepted bulks per business with their entry counts, per reference (kept only by blind5 defects of the wallet and webhooks). */
export const inFlight = new WeakMap<object, Map<string, Array<{ bulk: BulkRecord; entries: number }>>>();

/** Entries of the business's bulks still queued or processing now (what those blind5 defects look at). */
export function entriesInFlight(call: Call, businessId: string): number {
  const now = call.deps.clock.now();
  return (inFlight.get(call.deps.store)?.get(businessId) ?? []).filter((b) => projectBulk(b.bulk, now, call.defects).status !== 'completed').reduce((sum, b) => sum + b.entries, 0);
}

/** What blind6 defects keep per bulk and per business (faithful code ignores them). */
/** The first recipient's variables of a message-based bulk (the `blind6-bulk-message-rendered-first-recipient` defect). */
export const firstRecipientVariables = new WeakMap<BulkRecord, Record<string, string>>();
/** The last listing page served per bulk (the `blind6-replay-from-bulk-response-cache` defect). */
export const bulkResponseCache = new WeakMap<BulkRecord, string>();
/** Bulks whose rows were listed (the `blind6-intake-from-rows-after-listing` defect). */
export const listedBulks = new WeakSet<BulkRecord>();
/** Bulks a read saw completed, their in-flight job collected (the `blind6-key-freed-when-bulk-completes` defect). */
export const collectedJobs = new WeakSet<BulkRecord>();
/** The latest accepted submission per business (the `blind6-message-index-replaced-by-submission` defect). */
export const latestSubmissionAt = new WeakMap<object, Map<string, number>>();

/** What blind7 defects keep (faithful code ignores them). */
/** Bulks accepted through the API (the `blind7-fresh-bulk-readable-without-token` defect). */
export const acceptedHere = new WeakSet<BulkRecord>();
/** The latest submission's classification per business (the `blind7-read-classification-of-latest-submission` defect). */
export const latestClassification = new WeakMap<object, Map<string, string>>();
/** Bulks whose rows were listed (the `blind7-bulk-read-carries-rows-after-listing` defect). */
export const rowsLoaded = new WeakSet<BulkRecord>();

/** What blind9 defects keep (faithful code ignores them). */
/** Replays served per bulk (the `blind9-read-shows-replay-count` defect, counted by bulk-create). */
export const replaysOf = new WeakMap<BulkRecord, number>();
/** The first recipient's variables of each business's latest template-based submission (the `blind9-message-rerendered-with-latest-variables` defect). */
export const latestTemplateVariables = new WeakMap<object, Map<string, Record<string, string>>>();
/** as_of of each bulk's first delivery summary (the `blind9-summary-as-of-frozen-at-first-report` defect). */
const firstReportAt = new WeakMap<BulkRecord, number>();
/** The running total of resolved outcomes per bulk (the `blind9-outcomes-accumulated-per-read` defect). */
const outcomesTotal = new WeakMap<BulkRecord, number>();

/** What blind10 defects keep (faithful code ignores them). */
/** The latest acceptance time per business (the `blind10-unknown-bulk-shimmed-after-acceptance` defect, kept by bulk-create). */
export const acceptanceTimes = new WeakMap<object, Map<string, number>>();
/** Numbers each business sent to (the `blind10-message-visible-through-shared-number` defect, kept by bulk-create). */
export const numbersSentTo = new WeakMap<object, Map<string, Set<string>>>();
/** The template pin of each business's latest submission (the `blind10-message-pin-of-latest-submission` defect, kept by bulk-create). */
export const latestPins = new WeakMap<object, Map<string, BulkRecord['template']>>();
/** The warnings list the blind10 defect shares between responses, per reference. */
const sharedWarnings = new WeakMap<object, Array<{ code: string; detail: string }>>();

/** settled at each bulk's first read (the `blind5-settled-cached-at-first-read` defect). */
const firstSettled = new WeakMap<BulkRecord, boolean | null>();

/** How far behind the lagging replica of one defect is. */
const REPLICA_LAG_MS = 1000;
const readsOfBulk = new WeakMap<BulkRecord, number>();

/**
 * 2.2: as_of is the time of the projection; the defect serves every second read from a replica a
 * second behind (never before reporting began), so as_of goes back between reads.
 */
function asOfShown(bulk: BulkRecord, asOf: number, d: ActiveDefects): number {
  if (!d.has('summary-as-of-lagging-replica') || !laggingRead(bulk)) return asOf;
  return Math.max(bulk.acceptedAt + DELIVERY_REPORTING_AT, asOf - REPLICA_LAG_MS);
}

/** Every second read of a bulk goes to the lagging replica (defect processed-from-lagging-replica). */
function laggingRead(bulk: BulkRecord): boolean {
  const n = (readsOfBulk.get(bulk) ?? 0) + 1;
  readsOfBulk.set(bulk, n);
  return n % 2 === 0;
}

/** 2.2 SmsBulkMessage. `acceptance` renders the 202 of 4.1 (warnings empty, submission null). */
export function renderBulk(call: Call, bulk: BulkRecord, options: { acceptance?: boolean } = {}): Record<string, unknown> {
  const d = call.defects;
  const now = call.deps.clock.now();
  const p = projectBulk(bulk, now, d);
  // 4.2: a read of an accepted bulk is a 200; the defect throws while retries are still outstanding.
  if (d.has('retrying-bulk-read-500') && !options.acceptance && p.status === 'completed' && (p.submission?.retryable_failed_count ?? 0) > 0) {
    throw new Error('retry schedule of the bulk is locked');
  }
  // 3.1: one of the documented statuses (the defect names the processing state its own way).
  let status: string = d.has('bulk-status-in-progress') && p.status === 'processing' ? 'in_progress' : p.status;
  // 3.1: one of the eight states (the blind7 defect names a completed bulk with failures apart).
  if (status === 'completed' && (p.submission?.failed ?? 0) > 0 && d.has('blind7-status-completed-with-errors')) status = 'completed_with_errors';
  // 4.2: the counts of this bulk (the blind defect's reads take them from a per-business cache of the latest bulk).
  const latest = !options.acceptance && d.has('blind4-read-intake-latest-bulk') ? latestAccepted.get(call.deps.store)?.get(bulk.businessId) : undefined;
  let intake: Record<string, number> | null = (latest ?? bulk).intake;
  // 2.2: submission holds its five counts only (the blind defect adds the entries not yet attempted).
  let submission: Record<string, number> | null = p.submission && d.has('blind4-submission-pending-member') ? { ...p.submission, pending: bulk.rows.length - p.submission.processed } : p.submission;
  let settled: boolean | null = p.settled;
  // 2.2: settled needs retryable_failed_count; the defect leaves a zero count out and keeps settled.
  if (submission && submission.retryable_failed_count === 0 && d.has('retryable-count-omitted-when-zero')) {
    const { retryable_failed_count: _omitted, ...rest } = submission;
    submission = rest;
  }
  if (call.deps.faults.countsUnavailable && !options.acceptance) {
    // 4.2: a read without authoritative totals is still a 200; the defect throws on the missing totals.
    if (d.has('counts-unavailable-read-500')) throw new Error('intake totals unavailable');
    // 2.2: without authoritative totals intake and submission are null, never invented zeros, and
    // settled cannot be computed (null). The defect invents zeros (and derives settled from them);
    // the other keeps the settled it computed before the totals were dropped.
    const zeros = d.has('invented-zero-counts');
    intake = zeros ? { good: 0, bad: 0, empty: 0 } : null;
    submission = zeros ? { processed: 0, success: 0, failed: 0, retryable_failed_count: 0, exhausted: 0 } : null;
    settled = zeros ? status === 'completed' : d.has('settled-true-without-counts') ? p.settled : null;
  }
  // 2.2: counts only go up; the defect reads processed from a replica a second behind on every second read.
  if (submission && !options.acceptance && d.has('processed-from-lagging-replica') && laggingRead(bulk)) {
    const behind = projectBulk(bulk, now - REPLICA_LAG_MS, d).submission;
    submission = { ...submission, processed: behind?.processed ?? 0 };
  }
  // 2.2: settled as of this read (the blind5 defect keeps the value of the bulk's first read).
  // 2.2: settled is this bulk's (the blind10 defect reads the business's retry queue).
  if (!options.acceptance && settled === true && d.has('blind10-settled-waits-for-business-retries')) {
    const others = call.deps.store.allBulks().filter((b) => b !== bulk && b.businessId === bulk.businessId);
    if (others.some((b) => (projectBulk(b, now, d).submission?.retryable_failed_count ?? 0) > 0)) settled = false;
  }
  if (!options.acceptance && d.has('blind5-settled-cached-at-first-read')) {
    if (!firstSettled.has(bulk)) firstSettled.set(bulk, settled);
    settled = firstSettled.get(bulk)!;
  }
  // 2.2: intake counts what was taken in (the blind5 defect shows the entries still waiting).
  if (!options.acceptance && intake && p.submission && d.has('blind5-intake-good-counts-queue')) intake = { ...intake, good: Math.max(0, (intake.good ?? 0) - p.submission.processed) };
  // 2.2: counts are integers (the blind5 defect leaves zero failures as null).
  if (!options.acceptance && submission && d.has('blind5-submission-zero-counts-null')) {
    submission = { ...submission, ...(submission.failed === 0 ? { failed: null as unknown as number } : {}), ...(submission.exhausted === 0 ? { exhausted: null as unknown as number } : {}) };
  }
  if (options.acceptance) {
    // 4.1: the acceptance response shows queued, intake counts, submission null, settled false,
    // warnings empty (one defect shows intake counting nothing).
    if (d.has('acceptance-intake-zeros')) intake = { good: 0, bad: 0, empty: 0 };
    // (The blind defect shows the record's initial state, created.)
    status = d.has('acceptance-status-processing') ? 'processing' : d.has('blind3-acceptance-status-created') ? 'created' : d.has('blind10-acceptance-status-upper-case') ? 'QUEUED' : 'queued';
    submission = d.has('acceptance-submission-zeros') ? { processed: 0, success: 0, failed: 0, retryable_failed_count: 0, exhausted: 0 } : null;
    settled = d.has('acceptance-settled-null') ? null : false;
    // 4.1: the acceptance response shows the intake counts (the blind defect leaves them null).
    if (d.has('blind-acceptance-intake-null')) intake = null;
    // 4.1: submission still null (the blind6 defect shows the empty counts record made with the bulk).
    if (d.has('blind6-acceptance-submission-empty-object')) submission = {};
  }
  // 2.2: intake counts what was taken in (the blind6 defect recounts it from the rows once they were listed).
  if (!options.acceptance && intake && listedBulks.has(bulk) && d.has('blind6-intake-from-rows-after-listing')) intake = { good: bulk.rows.length, bad: 0, empty: 0 };
  // 2.2: intake holds good, bad and empty only (the blind defect adds their total).
  if (intake && d.has('blind-intake-total-member')) intake = { ...intake, total: intake.good! + intake.bad! + intake.empty! };
  // 2.2: this response's warnings (the blind10 defect's list is one default array shared by every response).
  const warnings: Array<{ code: string; detail: string }> = d.has('blind10-warnings-list-shared-across-responses') ? (sharedWarnings.get(call.deps.store) ?? sharedWarnings.set(call.deps.store, []).get(call.deps.store)!) : [];
  // 2.2: a warning has code and detail only (the blind defect adds a severity).
  const unavailable = {
    code: 'delivery_summary_unavailable',
    // (The blind defect's lookup table has no text for the code: detail null.)
    detail: d.has('blind4-warning-detail-null') ? (null as unknown as string) : 'Delivery reporting for this bulk message is not available yet.',
    ...(d.has('blind-warning-severity') ? { severity: 'info' } : {}),
  };
  let deliverySummary: Record<string, unknown> | null = null;
  if (p.delivery) {
    // 2.2: as_of a timestamp, complete a boolean, outcomes_resolved an integer (each defect breaks one).
    deliverySummary = {
      // (The blind defect stamps the projection with the bulk's acceptance time.)
      // (The blind7 defect writes it to the minute, without seconds.)
      as_of: d.has('delivery-summary-as-of-epoch')
        ? p.delivery.asOf
        : d.has('blind7-summary-as-of-without-seconds')
          ? `${new Date(p.delivery.asOf).toISOString().slice(0, 16)}Z`
          : // (The blind9 defect keeps the as_of of the bulk's first summary.)
            call.time(d.has('blind-summary-as-of-accepted') ? bulk.acceptedAt : d.has('blind9-summary-as-of-frozen-at-first-report') ? (firstReportAt.get(bulk) ?? firstReportAt.set(bulk, p.delivery.asOf).get(bulk)!) : asOfShown(bulk, p.delivery.asOf, d)),
      complete: p.delivery.complete,
      // (The blind8 defect's query of the delivery store leaves the bulk out: every bulk of the business counts.)
      outcomes_resolved: d.has('outcomes-resolved-as-string')
        ? String(p.delivery.outcomesResolved)
        : d.has('blind8-outcomes-resolved-business-wide')
          ? call.deps.store.allBulks().filter((b) => b.businessId === bulk.businessId).reduce((sum, b) => sum + (projectBulk(b, now, d).delivery?.outcomesResolved ?? 0), 0)
          : // (The blind9 defect adds each read's resolved outcomes to a running total.)
            d.has('blind9-outcomes-accumulated-per-read')
            ? outcomesTotal.set(bulk, (outcomesTotal.get(bulk) ?? 0) + p.delivery.outcomesResolved).get(bulk)!
            : p.delivery.outcomesResolved,
    };
    if (d.has('delivery-summary-without-complete')) delete deliverySummary.complete;
    // 2.2: exactly three members (the blind defect adds the recipient count).
    if (d.has('blind4-summary-total-member')) deliverySummary.outcomes_total = bulk.rows.length;
  } else if (!options.acceptance) {
    // 2.2: null delivery_summary comes with a warning; zeros are never invented.
    if (!d.has('missing-unavailable-warning')) warnings.push(unavailable);
    if (d.has('invented-zero-delivery-summary')) deliverySummary = { as_of: call.time(now), complete: false, outcomes_resolved: 0 };
  } else {
    // 4.1: the acceptance response has no delivery_summary and no warnings (each defect adds one).
    if (d.has('acceptance-unavailable-warning')) warnings.push(unavailable);
    if (d.has('acceptance-delivery-summary-zeros')) deliverySummary = { as_of: call.time(now), complete: false, outcomes_resolved: 0 };
  }
  const body: Record<string, unknown> = {
    // 4.2: the bulk's own id (the defect lets the first recipient row's id win, as a join would).
    id: d.has('bulk-read-id-is-row-id') && !options.acceptance && bulk.rows[0] ? bulk.rows[0].id : bulk.id,
    // 4.1: the business of the path (the defect copies the bulk's own id).
    business_id: d.has('bulk-business-id-is-bulk-id') ? bulk.id : bulk.businessId,
    // 4.1: the sender as submitted (the defect upper-cases it, as some carriers show it).
    // (The blind9 defect's reads take it from a CHAR(20) column, padded with spaces.)
    from: d.has('sender-upper-case') ? bulk.from.toUpperCase() : !options.acceptance && d.has('blind9-read-from-char-padded') ? bulk.from.padEnd(20, ' ') : bulk.from,
    // 2.1: transactional or promotional, as written (the defects upper-case or swap it).
    // (The blind defect's reads fall back to the column default, transactional.)
    classification: d.has('classification-upper-case')
      ? bulk.classification.toUpperCase()
      : d.has('classification-swapped')
        ? SWAPPED_CLASSIFICATION[bulk.classification]
        : d.has('blind-read-classification-default') && !options.acceptance
          ? 'transactional'
          : // (The blind7 defect's reads take the business's latest submission's.)
            (!options.acceptance && d.has('blind7-read-classification-of-latest-submission') && latestClassification.get(call.deps.store)?.get(bulk.businessId)) || bulk.classification,
    status,
    settled,
    // 4.1: the submitted message (the defect keeps the text with the recipient rows only).
    // (The blind defect collapses runs of white space, as its text normaliser does.)
    // (The blind6 defect shows the text rendered for the first recipient.)
    message: d.has('bulk-message-dropped')
      ? null
      : bulk.message !== null && d.has('blind3-message-whitespace-collapsed')
        ? bulk.message.replace(/\s+/g, ' ')
        : bulk.message !== null && d.has('blind6-bulk-message-rendered-first-recipient')
          ? bulk.message.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, name: string) => firstRecipientVariables.get(bulk)?.[name] ?? '')
          : bulk.message,
    template: templatePin(call, bulk, options.acceptance === true),
    // 2.2: the durable acceptance time (the blind defect's reads show the time of the read).
    // (Another blind defect's reads cut it to whole seconds, as a column of second precision keeps it.)
    accepted_at: call.time(d.has('blind-read-accepted-at-now') && !options.acceptance ? now : d.has('blind4-read-accepted-at-seconds') && !options.acceptance ? Math.floor(bulk.acceptedAt / 1000) * 1000 : bulk.acceptedAt),
    intake,
    submission,
    delivery_summary: deliverySummary,
    warnings,
  };
  // 2.2: intake counts are integers (the blind defect's reads give them as strings).
  if (intake && !options.acceptance && d.has('blind3-intake-counts-strings')) body.intake = Object.fromEntries(Object.entries(intake).map(([k, v]) => [k, String(v)]));
  // 2.2: warnings are objects with code and detail (the blind6 defect's reads list the codes alone).
  if (!options.acceptance && d.has('blind6-warnings-as-codes')) body.warnings = warnings.map((w) => w.code);
  // 2.2: warnings is an array (the blind defect's reads give null when there is none).
  if (warnings.length === 0 && !options.acceptance && d.has('blind3-warnings-null-when-none')) body.warnings = null;
  // 4.1: the 202 names the bulk (the defect leaves the id to the Location header).
  if (options.acceptance && d.has('acceptance-id-omitted')) delete body.id;
  // 4.1: the 202 shows an empty warnings list (the blind defect's serializer omits empty arrays).
  if (options.acceptance && warnings.length === 0 && d.has('blind4-acceptance-warnings-omitted')) delete body.warnings;
  if (d.has('bulk-response-extra-property')) body.priority = 'normal';
  // 2.2: no extra properties (the blind9 defect's serialiser writes the replay counter the replay path keeps on the record).
  const replays = d.has('blind9-read-shows-replay-count') && !options.acceptance ? (replaysOf.get(bulk) ?? 0) : 0;
  if (replays > 0) body.replays = replays;
  // 2.2: no extra properties (the blind7 defect serialises the rows relation loaded by a listing).
  if (!options.acceptance && rowsLoaded.has(bulk) && d.has('blind7-bulk-read-carries-rows-after-listing')) body.recipients = bulk.rows.slice(0, 10).map((row) => renderRow(call, bulk, row, now));
  return body;
}

/**
 * 2.1 TemplateRevisionPin: the revision recorded at acceptance, on every read; null for a
 * message-based bulk. The defects drop it, show the template's current revision instead, fail the
 * read once the pinned revision is no longer the active one, or give a message-based bulk an
 * empty pin object (at acceptance, or on reads).
 */
function templatePin(call: Call, bulk: BulkRecord, acceptance: boolean): Record<string, unknown> | null {
  const d = call.defects;
  const pin = bulk.template;
  if (!pin) {
    if (acceptance && d.has('message-bulk-empty-pin')) return {};
    if (!acceptance && d.has('message-bulk-pin-on-read')) return { template_id: null, revision_id: null };
    return null;
  }
  if (d.has('bulk-template-pin-dropped')) return null;
  // 2.1: both members are UUIDv7 (the blind5 defect's 202 is written before the revision is resolved).
  if (acceptance && d.has('blind5-acceptance-pin-revision-null')) return { template_id: pin.template_id, revision_id: null };
  // 4.2: the pin recorded at acceptance on every read (the blind defect's reads lose it; another
  // adds the revision's number to it).
  if (!acceptance && d.has('blind-pin-lost-on-read')) return null;
  if (!acceptance && d.has('blind-pin-revision-number')) return { ...pin, revision: 1 };
  const current = call.deps.store.template(pin.template_id);
  if (d.has('template-pin-follows-active-revision') && current) return { template_id: pin.template_id, revision_id: current.revisionId };
  // 4.2: the pin is stored with the bulk; the defect looks the pinned revision up among active ones.
  if (d.has('template-revised-bulk-read-500') && current && current.revisionId !== pin.revision_id) {
    throw new Error(`revision ${pin.revision_id} is not an active revision of template ${pin.template_id}`);
  }
  return pin;
}

/** 2.3 recipient row at the current time. */
export function renderRow(call: Call, bulk: BulkRecord, row: RecipientRow, now: number): Record<string, unknown> {
  const s = rowStateAt(row, bulk, now);
  // 2.1: UTC with Z (the blind defect's row serialiser drops the offset).
  const time = (ms: number | null) => {
    const t = call.time(ms);
    // 2.3: Timestamp or null (the blind defect writes an unknown time as an empty string).
    if (t === null && call.defects.has('blind3-row-times-empty-string')) return '';
    return t !== null && call.defects.has('blind-row-times-without-offset') ? t.replace(/Z$/, '') : t;
  };
  return {
    id: row.id,
    // 2.1: the bare E.164 number (the blind6 defect writes an RFC 3966 tel: URI).
    to: call.defects.has('blind6-row-to-tel-uri') ? `tel:${row.to}` : row.to,
    submission_status: s.submission_status,
    // 2.3: a status string (the blind9 defect leaves it null while the delivery report is awaited).
    delivery_status: s.submission_status === 'sent' && s.delivery_status === 'sent' && call.defects.has('blind9-row-delivery-status-null-awaiting-report') ? null : s.delivery_status,
    status_reason: s.status_reason,
    accepted_at: time(bulk.acceptedAt),
    submitted_at: time(s.submitted_at),
    delivered_at: time(s.delivered_at),
    failed_at: time(s.failed_at),
  };
}

/** 2.4 individual message. */
export function renderMessage(call: Call, m: IndividualMessage): Record<string, unknown> {
  const d = call.defects;
  // 2.4: timestamps (the blind defect writes epoch milliseconds).
  const time = (ms: number | null) => (d.has('blind-message-times-epoch') ? ms : call.time(ms));
  // 2.4: a template pin object (the blind defect shows the bare template id).
  // (Another blind defect fills the pin's template_id from the message's own id.)
  // (The blind7 defect swaps the pin's two ids.)
  const pin = m.template && d.has('blind-message-template-as-id')
    ? m.template.template_id
    : m.template && d.has('blind-message-pin-template-is-message')
      ? { ...m.template, template_id: m.id }
      : m.template && d.has('blind7-message-pin-ids-swapped')
        ? { template_id: m.template.revision_id, revision_id: m.template.template_id }
        : // (The blind9 defect names the pin's members in camel case.)
          m.template && d.has('blind9-message-pin-camel-case')
          ? { templateId: m.template.template_id, revisionId: m.template.revision_id }
          : m.template;
  return {
    // 4.4: the message requested (the defect writes a new id made for the read).
    id: d.has('message-id-is-read-id') ? uuidv7(call.deps.clock.now()) : m.id,
    // 2.4: the business of the path (the defect copies the message's own id).
    // (The blind defect writes it upper-cased, as a database GUID type hands it out.)
    business_id: d.has('message-business-id-is-message-id') ? m.id : d.has('blind-message-business-id-uppercase') ? m.business_id.toUpperCase() : m.business_id,
    from: m.from,
    // 2.1: E.164 with its leading + (the defect drops it).
    // (The blind defect formats it for display: +44 7700 900123.)
    // (Another masks its last four digits for privacy.)
    // (The blind6 defect gives a one-element list, from a recipients column.)
    to: d.has('blind6-message-to-as-list') ? [m.to] : d.has('message-to-without-plus') ? m.to.replace(/^\+/, '') : d.has('blind4-message-to-masked') ? `${m.to.slice(0, -4)}****` : d.has('blind3-message-to-formatted') ? m.to.replace(/^(\+\d{2})(\d{4})(\d+)$/, '$1 $2 $3') : m.to,
    // 2.1: the word (the blind5 defect writes the enum's ordinal).
    // (The blind10 defect writes the display label, capitalised.)
    classification: d.has('blind5-message-classification-ordinal') ? (m.classification === 'transactional' ? 0 : 1) : d.has('blind10-message-classification-capitalized') ? `${m.classification[0]!.toUpperCase()}${m.classification.slice(1)}` : m.classification,
    // 2.4: the content after rendering (the defect shows the pinned template's own text).
    // (The blind9 defect renders the pinned template again with the business's latest submission's variables.)
    message: (d.has('message-unrendered') && m.template && call.deps.store.template(m.template.template_id)?.text) || rerendered(call, m) || m.message,
    // 3.2: the values as written (the blind defect upper-cases them, as its enum's names).
    // (The blind5 defect maps it through the bulk processing states: delivered as completed.)
    status: d.has('message-status-provider-code') && m.status === 'delivered' ? 'DELIVRD' : d.has('blind3-message-status-upper-case') ? m.status.toUpperCase() : d.has('blind5-message-status-bulk-vocabulary') && m.status === 'delivered' ? 'completed' : m.status,
    status_reason: m.status_reason,
    // 2.4: the message's own pin (the blind10 defect reads the business's latest submission's).
    template: d.has('message-template-pin-dropped') ? null : d.has('blind10-message-pin-of-latest-submission') && latestPins.get(call.deps.store)?.has(m.business_id) ? latestPins.get(call.deps.store)!.get(m.business_id)! : pin,
    // 2.1: UTC with Z (the blind defect writes accepted_at as a local date-time, no offset).
    accepted_at: d.has('blind3-message-accepted-at-local') ? call.time(m.accepted_at).replace(/Z$/, '') : time(m.accepted_at),
    // 2.4: a timestamp (the blind defect writes the date alone, from a DATE column).
    submitted_at: d.has('blind4-message-submitted-at-date-only') ? (time(m.submitted_at) as string | null)?.slice(0, 10) ?? null : time(m.submitted_at),
    delivered_at: time(m.delivered_at),
    failed_at: time(m.failed_at),
  };
}

/**
 * 2.4: the content as rendered at acceptance. What the `blind9-message-rerendered-with-latest-variables`
 * defect shows instead: the pinned template rendered now with the variables of the business's latest
 * template-based submission (undefined when the defect is off or nothing applies).
 */
function rerendered(call: Call, m: IndividualMessage): string | undefined {
  if (!m.template || !call.defects.has('blind9-message-rerendered-with-latest-variables')) return undefined;
  const vars = latestTemplateVariables.get(call.deps.store)?.get(m.business_id);
  const text = call.deps.store.template(m.template.template_id)?.text;
  if (!vars || text === undefined) return undefined;
  return text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, name: string) => vars[name] ?? '');
}
