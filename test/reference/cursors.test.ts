// 4.3 and 2.6: the recipient listing, page sizes, filters and signed cursors.
import { describe, expect, it } from 'vitest';
import { RANDOM_V7, messageBody, useReference } from './helpers.ts';

const HOUR = 3600 * 1000;
const h = useReference();
const list = (query: Record<string, string> = {}, bulk = h.f.expiredCursorBulkId) => h.call('GET', h.paths.rows(h.b, bulk), { query });
const invalid = (r: { status: number; json: any }, param: string) => {
  expect(r.status).toBe(400);
  expect(r.json.code).toBe('validation_failed');
  expect(r.json.errors).toContainEqual({ pointer: param, code: 'field_invalid' });
};

describe('page size', () => {
  it('lists rows under /messages (not /recipients) [CUR-PATH]', async () => {
    expect((await list()).status).toBe(200);
    const wrong = await h.call('GET', `/v1/businesses/${h.b}/sms/bulk-messages/${h.f.expiredCursorBulkId}/recipients`);
    expect(wrong.status).toBe(404);
  });

  it('uses 100 rows when no page size is given [CUR-DEFAULT-LIMIT, CUR-LIMIT-APPLIED]', async () => {
    const r = await list();
    expect(r.json.pagination.limit).toBe(100);
    expect(r.json.data).toHaveLength(100);
  });

  it('accepts 1000 and refuses 1001 with 400 naming the parameter [CUR-MAX-LIMIT]', async () => {
    const r = await list({ limit: '1000' });
    expect(r.status).toBe(200);
    expect(r.json.pagination.limit).toBe(1000);
    expect(r.json.data).toHaveLength(250);
    invalid(await list({ limit: '1001' }), 'limit');
  });

  it('refuses zero, negative, fractional and non-numeric page sizes [CUR-LIMIT-INVALID]', async () => {
    for (const limit of ['0', '-1', '2.5', 'ten', '', '1e2']) invalid(await list({ limit }), 'limit');
  });
});

describe('walking pages', () => {
  it('gives a cursor whenever has_more is true and none on the last page [CUR-HAS-MORE, CUR-WALK, CUR-LAST-PAGE-NO-CURSOR]', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await list(cursor ? { limit: '100', cursor } : { limit: '100' });
      expect(r.status).toBe(200);
      ids.push(...r.json.data.map((row: any) => row.id));
      const p = r.json.pagination;
      if (p.has_more) expect(typeof p.next_cursor === 'string' && p.next_cursor.length > 0).toBe(true);
      else expect(p.next_cursor).toBeNull();
      cursor = p.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
  });
});

describe('filters', () => {
  it('returns only rows whose submission or delivery status equals the filter [CUR-FILTER-STATUS]', async () => {
    for (const status of ['queued', 'sent', 'delivered', 'failed']) {
      const r = await list({ status, limit: '1000' });
      expect(r.status).toBe(200);
      for (const row of r.json.data) expect([row.submission_status, row.delivery_status]).toContain(status);
    }
    expect((await list({ status: 'delivered', limit: '1000' })).json.data.length).toBeGreaterThan(0);
    expect((await list({ status: 'failed', limit: '1000' })).json.data.length).toBe(50);
  });

  it('returns only rows sent to the number of the number filter [CUR-FILTER-TO]', async () => {
    const r = await list({ to: '+447700900007' });
    expect(r.json.data).toHaveLength(1);
    expect(r.json.data[0].to).toBe('+447700900007');
  });

  it('refuses an unknown status value and a non-E.164 number with 400 (reference reading) [CUR-FILTER-UNKNOWN-VALUE, CUR-ERRORS-NOT-SHOWN, CUR-FILTER-STATUS-UNKNOWN, CUR-FILTER-TO-INVALID]', async () => {
    const s = await list({ status: 'bounced' });
    invalid(s, 'status');
    expect(s.headers.get('content-type')).toBe('application/problem+json');
    invalid(await list({ to: '447700900007' }), 'to');
  });

  it('keeps the filter on a next page requested without it [CUR-OMIT-FILTERS-NEXT-PAGE]', async () => {
    const first = await list({ status: 'failed', limit: '10' });
    const next = await list({ cursor: first.json.pagination.next_cursor, limit: '10' });
    expect(next.status).toBe(200);
    expect(next.json.data.length).toBeGreaterThan(0);
    for (const row of next.json.data) expect([row.submission_status, row.delivery_status]).toContain('failed');
  });

  it('refuses a cursor presented with different filters [CUR-BOUND-FILTERS]', async () => {
    const first = await list({ status: 'failed', limit: '10' });
    invalid(await list({ status: 'delivered', cursor: first.json.pagination.next_cursor }), 'cursor');
    const byNumber = await list({ to: '+447700900007', limit: '1' });
    expect(byNumber.json.pagination.has_more).toBe(false);
    const unfiltered = await list({ limit: '10' });
    invalid(await list({ to: '+447700900007', cursor: unfiltered.json.pagination.next_cursor }), 'cursor');
  });
});

describe('cursor validity', () => {
  it('refuses random, altered, truncated and empty cursors with 400 [CUR-INVALID, CUR-EMPTY]', async () => {
    const good = (await list({ limit: '10' })).json.pagination.next_cursor as string;
    const flipped = `${good.slice(0, 5)}${good[5] === 'A' ? 'B' : 'A'}${good.slice(6)}`;
    for (const cursor of ['abc', flipped, good.slice(0, -4), `${good}x`, '']) invalid(await list({ cursor }), 'cursor');
  });

  it('refuses a cursor on another bulk of the same business [CUR-BOUND]', async () => {
    const other = await h.submit(messageBody(h));
    const good = (await list({ limit: '10' })).json.pagination.next_cursor as string;
    invalid(await list({ cursor: good }, other.json.id), 'cursor');
    expect((await list({}, RANDOM_V7)).status).toBe(404);
  });

  it('accepts a cursor for 24 hours and refuses it after, and refuses the expired fixture cursor [CUR-LIFETIME, CUR-EXPIRED]', async () => {
    invalid(await list({ cursor: h.f.expiredCursor }), 'cursor');
    const good = (await list({ limit: '10' })).json.pagination.next_cursor as string;
    await h.control('POST', '/clock/advance', { ms: 23 * HOUR });
    expect((await list({ cursor: good })).status).toBe(200);
    await h.control('POST', '/clock/advance', { ms: 1 * HOUR + 1000 });
    invalid(await list({ cursor: good }), 'cursor');
  });
});
