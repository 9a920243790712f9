// JSON shapes of section 2, rendered from stored records and the lifecycle projection.
import type { BulkRecord, IndividualMessage, RecipientRow } from '../store.ts';
import { projectBulk, rowStateAt } from '../lifecycle.ts';
import type { Call } from './call.ts';

/** 2.2 SmsBulkMessage. `acceptance` renders the 202 of 4.1 (warnings empty, submission null). */
export function renderBulk(call: Call, bulk: BulkRecord, options: { acceptance?: boolean } = {}): Record<string, unknown> {
  const d = call.defects;
  const now = call.deps.clock.now();
  const p = projectBulk(bulk, now, d);
  let status: string = p.status;
  let intake: Record<string, number> | null = bulk.intake;
  let submission: Record<string, number> | null = p.submission;
  let settled: boolean | null = p.settled;
  if (call.deps.faults.countsUnavailable && !options.acceptance) {
    // 2.2: without authoritative totals intake and submission are null, never invented zeros, and
    // settled cannot be computed (null). The defect invents zeros (and derives settled from them).
    const zeros = d.has('invented-zero-counts');
    intake = zeros ? { good: 0, bad: 0, empty: 0 } : null;
    submission = zeros ? { processed: 0, success: 0, failed: 0, retryable_failed_count: 0, exhausted: 0 } : null;
    settled = zeros ? status === 'completed' : null;
  }
  if (options.acceptance) {
    // 4.1: the acceptance response shows queued, submission null, settled false, warnings empty.
    status = d.has('acceptance-status-processing') ? 'processing' : 'queued';
    submission = d.has('acceptance-submission-zeros') ? { processed: 0, success: 0, failed: 0, retryable_failed_count: 0, exhausted: 0 } : null;
    settled = false;
  }
  const warnings: Array<{ code: string; detail: string }> = [];
  let deliverySummary: Record<string, unknown> | null = null;
  if (p.delivery) {
    deliverySummary = { as_of: call.time(p.delivery.asOf), complete: p.delivery.complete, outcomes_resolved: p.delivery.outcomesResolved };
  } else if (!options.acceptance) {
    // 2.2: null delivery_summary comes with a warning; zeros are never invented.
    if (!d.has('missing-unavailable-warning')) {
      warnings.push({ code: 'delivery_summary_unavailable', detail: 'Delivery reporting for this bulk message is not available yet.' });
    }
    if (d.has('invented-zero-delivery-summary')) deliverySummary = { as_of: call.time(now), complete: false, outcomes_resolved: 0 };
  }
  const body: Record<string, unknown> = {
    id: bulk.id,
    business_id: bulk.businessId,
    from: bulk.from,
    // 2.1: transactional or promotional, as written (the defect upper-cases it).
    classification: d.has('classification-upper-case') ? bulk.classification.toUpperCase() : bulk.classification,
    status,
    settled,
    message: bulk.message,
    template: templatePin(call, bulk),
    accepted_at: call.time(bulk.acceptedAt),
    intake,
    submission,
    delivery_summary: deliverySummary,
    warnings,
  };
  if (d.has('bulk-response-extra-property')) body.priority = 'normal';
  return body;
}

/**
 * 2.1 TemplateRevisionPin: the revision recorded at acceptance, on every read. The defects drop it,
 * or show the template's current revision instead.
 */
function templatePin(call: Call, bulk: BulkRecord): BulkRecord['template'] {
  const pin = bulk.template;
  if (!pin) return null;
  if (call.defects.has('bulk-template-pin-dropped')) return null;
  if (call.defects.has('template-pin-follows-active-revision')) {
    const current = call.deps.store.template(pin.template_id);
    if (current) return { template_id: pin.template_id, revision_id: current.revisionId };
  }
  return pin;
}

/** 2.3 recipient row at the current time. */
export function renderRow(call: Call, bulk: BulkRecord, row: RecipientRow, now: number): Record<string, unknown> {
  const s = rowStateAt(row, bulk, now);
  return {
    id: row.id,
    to: row.to,
    submission_status: s.submission_status,
    delivery_status: s.delivery_status,
    status_reason: s.status_reason,
    accepted_at: call.time(bulk.acceptedAt),
    submitted_at: call.time(s.submitted_at),
    delivered_at: call.time(s.delivered_at),
    failed_at: call.time(s.failed_at),
  };
}

/** 2.4 individual message. */
export function renderMessage(call: Call, m: IndividualMessage): Record<string, unknown> {
  const d = call.defects;
  return {
    id: m.id,
    // 2.4: the business of the path (the defect copies the message's own id).
    business_id: d.has('message-business-id-is-message-id') ? m.id : m.business_id,
    from: m.from,
    // 2.1: E.164 with its leading + (the defect drops it).
    to: d.has('message-to-without-plus') ? m.to.replace(/^\+/, '') : m.to,
    classification: m.classification,
    // 2.4: the content after rendering (the defect shows the pinned template's own text).
    message: (d.has('message-unrendered') && m.template && call.deps.store.template(m.template.template_id)?.text) || m.message,
    status: d.has('message-status-provider-code') && m.status === 'delivered' ? 'DELIVRD' : m.status,
    status_reason: m.status_reason,
    template: d.has('message-template-pin-dropped') ? null : m.template,
    accepted_at: call.time(m.accepted_at),
    submitted_at: call.time(m.submitted_at),
    delivered_at: call.time(m.delivered_at),
    failed_at: call.time(m.failed_at),
  };
}
