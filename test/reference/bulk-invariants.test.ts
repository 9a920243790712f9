// 2.2, 3.1, 4.1, 4.2: acceptance shape, Location, template pin, lifecycle, settled, delivery summary.
// Business time is frozen and moved only through the control origin, so every state is exact.
import { describe, expect, it } from 'vitest';
import { UUID_V7, messageBody, templateBody, useReference } from './helpers.ts';

const T0 = Date.now();
const h = useReference({ now: () => T0 });
const advance = (ms: number) => h.control('POST', '/clock/advance', { ms });
const get = async (id: string) => (await h.call('GET', h.paths.bulk(h.b, id))).json;
const STATUSES = ['created', 'scheduled', 'queued', 'processing', 'paused', 'completed', 'failed', 'cancelled'];

describe('acceptance', () => {
  it('answers 202 with the bulk, status queued, empty submission and summary, settled false, no warnings and intake [BULK-ACCEPT-202, BULK-ACCEPT-QUEUED, BULK-ACCEPT-SHAPE, BULK-INTAKE-NOT-ZERO]', async () => {
    const r = await h.submit(messageBody(h, { recipients: [{ to: h.f.recipients[0] }, { to: h.f.recipients[0] }, { to: h.f.recipients[1] }] }));
    expect(r.status).toBe(202);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.json).toMatchObject({ status: 'queued', submission: null, delivery_summary: null, settled: false, warnings: [] });
    expect(r.json.intake).toEqual({ good: 2, bad: 1, empty: 0 });
  });

  it('gives a Location that retrieves the same bulk [BULK-LOCATION, BULK-RETRIEVE]', async () => {
    const r = await h.submit(messageBody(h));
    const location = r.headers.get('location')!;
    expect(location).toBe(h.paths.bulk(h.b, r.json.id));
    const again = await h.call('GET', location);
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(r.json.id);
    expect(again.json).toHaveProperty('settled');
    expect(again.json).toHaveProperty('intake');
  });

  it('reflects the request: business, from, classification, message [BULK-ECHO-REQUEST]', async () => {
    const body = messageBody(h, { classification: 'promotional', message: 'Weekend offer' });
    const r = await h.submit(body);
    expect(r.json).toMatchObject({ business_id: h.b, from: body.from, classification: 'promotional', message: 'Weekend offer', template: null });
    expect(r.json.id).toMatch(UUID_V7);
  });

  it('pins the active template revision at acceptance and keeps it [BULK-TEMPLATE-PIN, BULK-TEMPLATE-PIN-STABLE]', async () => {
    const r = await h.submit(templateBody(h));
    expect(r.status).toBe(202);
    const pin = r.json.template;
    expect(pin.template_id).toBe(h.f.templateId);
    expect(pin.revision_id).toMatch(UUID_V7);
    // A new active revision after acceptance changes nothing for the accepted bulk.
    const revision = await h.control('POST', `/templates/${h.f.templateId}/revise`);
    expect(revision.previous_revision_id).toBe(pin.revision_id);
    expect(revision.revision_id).not.toBe(pin.revision_id);
    await advance(2000);
    expect((await get(r.json.id)).template).toEqual(pin);
    const next = await h.submit(templateBody(h));
    expect(next.json.template.revision_id).toBe(revision.revision_id);
  });
});

describe('lifecycle', () => {
  it('moves queued -> processing -> completed, settled only when completed with no retries, counts never going down [BULK-STATUS-VALUES, BULK-SETTLED-RULE, BULK-SETTLED-NULL, BULK-SETTLED-INDEPENDENT, BULK-COUNTS-ONE-WAY]', async () => {
    const r = await h.submit(messageBody(h, {}, 4));
    const seen: any[] = [await get(r.json.id)];
    for (let i = 0; i < 14; i++) {
      await advance(100);
      seen.push(await get(r.json.id));
    }
    const statuses = seen.map((b) => b.status);
    expect(statuses[0]).toBe('queued');
    expect(statuses).toContain('processing');
    expect(statuses.at(-1)).toBe('completed');
    for (const b of seen) {
      expect(STATUSES).toContain(b.status);
      if (b.submission && typeof b.submission.retryable_failed_count === 'number') {
        expect(b.settled).toBe(b.status === 'completed' && b.submission.retryable_failed_count === 0);
      } else {
        expect(b.settled).not.toBe(true);
      }
    }
    // 2.2: totals of what happened never go down between reads (outstanding retries do).
    for (let i = 1; i < seen.length; i++) {
      for (const field of ['processed', 'success', 'exhausted']) {
        expect(seen[i].submission?.[field] ?? 0).toBeGreaterThanOrEqual(seen[i - 1].submission?.[field] ?? 0);
      }
      expect(seen[i].delivery_summary?.outcomes_resolved ?? 0).toBeGreaterThanOrEqual(seen[i - 1].delivery_summary?.outcomes_resolved ?? 0);
    }
    // Retries outstanding after completion: completed but not settled, then settled.
    expect(seen.some((b) => b.status === 'completed' && b.settled === false && b.submission.retryable_failed_count > 0)).toBe(true);
    expect(seen.at(-1).settled).toBe(true);
    // Settled with the delivery summary still absent or incomplete is allowed.
    expect(seen.some((b) => b.settled === true && b.delivery_summary?.complete === false)).toBe(true);
  });

  it('shows null delivery_summary with a warning until reporting is available, never zeros [BULK-DELIVERY-NO-INVENTED-ZEROS, BULK-DELIVERY-UNAVAILABLE-WARNING, BULK-WARNING-CODES]', async () => {
    const r = await h.submit(messageBody(h, {}, 3));
    await advance(200);
    const processing = await get(r.json.id);
    expect(processing.status).toBe('processing');
    expect(processing.delivery_summary).toBeNull();
    expect(processing.warnings.map((w: any) => w.code)).toContain('delivery_summary_unavailable');
    expect(processing.submission).not.toBeNull();
    expect(processing.intake).toEqual({ good: 3, bad: 0, empty: 0 });
    await advance(500);
    const reporting = await get(r.json.id);
    expect(reporting.delivery_summary).not.toBeNull();
    expect(reporting.warnings).toEqual([]);
  });

  it('shows intake and submission null, never zeros, and settled null while the totals are unavailable (fault countsUnavailable) [BULK-NO-INVENTED-ZEROS, BULK-SETTLED-NULL]', async () => {
    const r = await h.submit(messageBody(h, {}, 3));
    expect(r.json.intake).toEqual({ good: 3, bad: 0, empty: 0 });
    await h.control('POST', '/faults', { countsUnavailable: true });
    try {
      for (const step of [0, 200, 1000]) {
        await advance(step);
        const b = await get(r.json.id);
        expect(b).toMatchObject({ intake: null, submission: null, settled: null });
      }
    } finally {
      await h.control('POST', '/faults', { countsUnavailable: false });
    }
    const back = await get(r.json.id);
    expect(back.intake).toEqual({ good: 3, bad: 0, empty: 0 });
    expect(back.submission).not.toBeNull();
  });

  it('gives a delivery summary of exactly as_of, complete and outcomes_resolved within the recipient count [BULK-DELIVERY-SUMMARY-FIELDS, BULK-OUTCOMES-BOUND]', async () => {
    const r = await h.submit(messageBody(h, {}, 4));
    for (const step of [700, 200, 500]) {
      await advance(step);
      const b = await get(r.json.id);
      expect(Object.keys(b.delivery_summary).sort()).toEqual(['as_of', 'complete', 'outcomes_resolved']);
      expect(b.delivery_summary.as_of).toMatch(/Z$/);
      expect(b.delivery_summary.outcomes_resolved).toBeGreaterThanOrEqual(0);
      expect(b.delivery_summary.outcomes_resolved).toBeLessThanOrEqual(4);
    }
    expect((await get(r.json.id)).delivery_summary.complete).toBe(true);
  });

  it('keeps submission and delivery outcomes in separate row fields [BULK-ROW-STATUSES-SEPARATE]', async () => {
    const rows = (await h.call('GET', h.paths.rows(h.b, h.f.expiredCursorBulkId), { query: { limit: '20' } })).json.data;
    expect(rows.some((row: any) => row.submission_status === 'sent' && row.delivery_status === 'delivered')).toBe(true);
    expect(rows.some((row: any) => row.submission_status === 'sent' && row.delivery_status === 'failed')).toBe(true);
  });
});
