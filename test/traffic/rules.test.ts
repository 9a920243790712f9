// The judge on small hand-made traffic: the client-side findings, readings accepted both ways, the
// time-aware idempotency rule, and the helpers that read what the run's log cut short.
import { describe, expect, it } from 'vitest';
import { readTrafficEnv } from '../../traffic/env.ts';
import { judgeTraffic } from '../../traffic/judge.ts';
import { leadingItems, type TrafficExchange } from '../../traffic/model.ts';
import { alteredFrom } from '../../traffic/rules/cursors.ts';

const BUSINESS = '019a0000-0000-7000-8000-000000000001';
const API = `http://127.0.0.1:9/v1/businesses/${BUSINESS}`;
const BULK = '019a0000-0000-7000-8000-0000000000b1';
let index = 0;

function ex(method: string, url: string, headers: Record<string, string>, status: number, body?: unknown, requestBody?: unknown, responseHeaders: Record<string, string> = {}): TrafficExchange {
  index += 1;
  return {
    index,
    source: `test ${index}`,
    request: { method, url, headers: { authorization: 'Bearer tok-aaaaaaaaaaaa', ...headers }, ...(requestBody !== undefined ? { body: JSON.stringify(requestBody) } : {}) },
    response: { status, headers: { 'x-request-id': `r${index}`, 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...responseHeaders }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
  };
}

const submission = { from: 'Acme', classification: 'transactional', message: 'hi', recipients: [{ to: '+447700900001' }] };
const accepted = (id = BULK, acceptedAt = '2026-01-01T00:00:00Z') => ({ id, business_id: BUSINESS, from: 'Acme', classification: 'transactional', status: 'queued', settled: false, message: 'hi', template: null, accepted_at: acceptedAt, intake: { good: 1, bad: 0, empty: 0 }, submission: null, delivery_summary: null, warnings: [] });
const page = (next: string | null) => ({ data: [], pagination: { limit: 2, has_more: next !== null, next_cursor: next } });
const judge = (traffic: TrafficExchange[]) => judgeTraffic(traffic, { env: readTrafficEnv(undefined) });
const clientIds = (traffic: TrafficExchange[]) => judge(traffic).result.advisories.map((a) => a.check);
const statusOf = (traffic: TrafficExchange[], id: string) => judge(traffic).result.topics.flatMap((t) => t.checks).find((c) => c.id === id);

describe('client-side findings', () => {
  it('a submission without Idempotency-Key, and the same one again under a new key', () => {
    const traffic = [
      ex('POST', `${API}/sms/bulk-messages`, { 'content-type': 'application/json' }, 400, undefined, submission),
      ex('POST', `${API}/sms/bulk-messages`, { 'content-type': 'application/json', 'idempotency-key': 'k1' }, 202, accepted(), submission, { location: `${API}/sms/bulk-messages/${BULK}` }),
      ex('POST', `${API}/sms/bulk-messages`, { 'content-type': 'application/json', 'idempotency-key': 'k2' }, 202, accepted('019a0000-0000-7000-8000-0000000000b2'), { ...submission }, { location: `${API}/sms/bulk-messages/019a0000-0000-7000-8000-0000000000b2` }),
    ];
    expect(clientIds(traffic)).toEqual(expect.arrayContaining(['client/submission-without-idempotency-key', 'client/retry-under-new-key']));
  });

  it('an edited cursor, not one used as given', () => {
    const cursor = 'eyJidWxrIjoiYWJjIn0.c2lnbmF0dXJlMTIzNDU2';
    const list = `${API}/sms/bulk-messages/${BULK}/messages`;
    const given = [ex('GET', `${list}?limit=2`, {}, 200, page(cursor)), ex('GET', `${list}?limit=2&cursor=${cursor}`, {}, 200, page(null))];
    expect(clientIds(given)).toEqual([]);
    const edited = [...given, ex('GET', `${list}?limit=2&cursor=${cursor.slice(0, -1)}X`, {}, 400, { type: 'https://p.test/validation_failed', title: 'Invalid', status: 400, detail: 'bad cursor', code: 'validation_failed', request_id: `r${index + 1}` })];
    expect(clientIds(edited)).toContain('client/edited-cursor');
    expect(alteredFrom('abcdefghij', ['abcdefghiX'])).toBe('abcdefghiX');
    expect(alteredFrom('totally-different-value', ['abcdefghij'])).toBeUndefined();
  });
});

describe('idempotency by the server clock', () => {
  const repeat = (when: string) => [
    ex('POST', `${API}/sms/bulk-messages`, { 'content-type': 'application/json', 'idempotency-key': 'k' }, 202, accepted(), submission, { location: `${API}/sms/bulk-messages/${BULK}` }),
    ex('POST', `${API}/sms/bulk-messages`, { 'content-type': 'application/json', 'idempotency-key': 'k' }, 409, { type: 'https://p.test/idempotency_conflict', title: 'Conflict', status: 409, detail: 'used', code: 'idempotency_conflict', request_id: `r${index + 2}`, instance: '/x' }, submission),
    // A later acceptance stamps the server's time after the repeat.
    ex('POST', `${API}/sms/bulk-messages`, { 'content-type': 'application/json', 'idempotency-key': 'other' }, 202, accepted('019a0000-0000-7000-8000-0000000000c3', when), { ...submission, message: 'later' }, { location: `${API}/sms/bulk-messages/019a0000-0000-7000-8000-0000000000c3` }),
  ];
  it('fails a refused identical repeat within seven days', () => {
    const check = statusOf(repeat('2026-01-02T00:00:00Z'), 'traffic/idempotency/replay');
    expect(check?.status).toBe('fail');
    expect(check?.failure?.requirement).toBe('IDEM-REPLAY');
  });
  it('accepts the refusal once seven days have passed (a reading the document allows)', () => {
    expect(statusOf(repeat('2026-01-09T00:00:00Z'), 'traffic/idempotency/replay')?.status).not.toBe('fail');
  });
  it('does not take a stamp from a clock gone back (files out of time order) for the refusal’s time, and says so', () => {
    // Eight days on by a wallet read before the repeat, then a stamp one day after acceptance: the
    // clock went back, so the second stamp says nothing of when the repeat was refused.
    const wallet = (asOf: string) => ex('GET', `${API}/wallet/balance`, {}, 200, { business_id: BUSINESS, currency: 'GBP', balance: '1.00', as_of: asOf });
    const [acceptance, refusal, later] = repeat('2026-01-02T00:00:00Z');
    const check = statusOf([acceptance!, wallet('2026-01-09T00:00:00Z'), refusal!, later!], 'traffic/idempotency/replay');
    expect(check?.status).not.toBe('fail');
    expect(check?.notes.join('\n')).toMatch(/server clock went back/);
    // The same stamps in time order still fail it.
    expect(statusOf([acceptance!, refusal!, later!, wallet('2026-01-09T00:00:00Z')], 'traffic/idempotency/replay')?.status).toBe('fail');
    // Gone back after the refusal (eight days on, then one day after acceptance: a log repeated): unplaced too.
    const after = statusOf([acceptance!, refusal!, wallet('2026-01-09T00:00:00Z'), later!], 'traffic/idempotency/replay');
    expect(after?.status).not.toBe('fail');
    expect(after?.notes.join('\n')).toMatch(/server clock went back/);
  });
  it('still fails it on a stamp a little behind the latest (overlapping calls answer out of order by milliseconds)', () => {
    const wallet = (asOf: string) => ex('GET', `${API}/wallet/balance`, {}, 200, { business_id: BUSINESS, currency: 'GBP', balance: '1.00', as_of: asOf });
    const [acceptance, refusal, later] = repeat('2026-01-01T00:00:04.990Z');
    const check = statusOf([acceptance!, wallet('2026-01-01T00:00:05Z'), refusal!, later!], 'traffic/idempotency/replay');
    expect(check?.status).toBe('fail');
    expect(check?.failure?.requirement).toBe('IDEM-REPLAY');
  });
});

describe('what the run log cut short', () => {
  it('reads the complete leading rows of a cut listing', () => {
    const body = `{"data":[{"id":"a","to":"+1"},{"id":"b","note":"}{\\"x"},{"id":"c","to":"+3"`;
    expect(leadingItems(body, 'data')).toEqual([{ id: 'a', to: '+1' }, { id: 'b', note: '}{"x' }]);
    expect(leadingItems('{"other":[]}', 'data')).toEqual([]);
  });
});

describe('HAR as exporters write it', () => {
  it('judges entries in the order they started, and skips bodies the exporter left out', async () => {
    const { readTraffic } = await import('../../traffic/read.ts');
    const { writeJson, tempDir } = await import('./support.ts');
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const entry = (second: number, path: string, content: Record<string, unknown>) => ({ startedDateTime: at(second), request: { method: 'GET', url: `${API}${path}`, headers: [] }, response: { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }], content } });
    const file = writeJson(tempDir(), 'out-of-order.har', { log: { version: '1.2', entries: [entry(5, '/wallet/balance', { size: 120, mimeType: 'application/json' }), entry(1, '/sms/messages/019a0000-0000-7000-8000-0000000000d1', { size: 2, text: '{}' })] } });
    const { exchanges } = await readTraffic([file]);
    expect(exchanges.map((e) => new URL(e.request.url).pathname.split('/').at(-1))).toEqual(['019a0000-0000-7000-8000-0000000000d1', 'balance']);
    expect(exchanges.map((e) => e.index)).toEqual([0, 1]);
    expect(exchanges[1]!.response.bodyNotRecorded).toBe(true);
    // The wallet answer without its body is not judged on its body (no schema failure for it).
    const wallet = judge(exchanges).result.topics.flatMap((t) => t.checks).find((c) => c.id === 'traffic/schemas/getWalletBalance');
    expect(wallet?.status).not.toBe('fail');
  });
});

describe('a conflict under a used key', () => {
  it('fails idempotency_conflict given with another status than 409 (blind3-conflict-status-422), and records a refusal for another fault as a reading', () => {
    const conflict = (status: number, code: string) => [
      ex('POST', `${API}/sms/bulk-messages`, { 'content-type': 'application/json', 'idempotency-key': `c${status}` }, 202, accepted(), submission, { location: `${API}/sms/bulk-messages/${BULK}` }),
      ex('POST', `${API}/sms/bulk-messages`, { 'content-type': 'application/json', 'idempotency-key': `c${status}` }, status, { type: `https://p.test/${code}`, title: code, status, detail: 'refused', code, request_id: `r${index + 2}`, instance: '/x' }, { ...submission, message: 'other' }),
    ];
    const wrong = statusOf(conflict(422, 'idempotency_conflict'), 'traffic/idempotency/conflict');
    expect(wrong?.status).toBe('fail');
    expect(wrong?.failure?.requirement).toBe('IDEM-CONFLICT');
    const other = judge(conflict(403, 'permission_denied')).result;
    const judgedConflict = other.topics.flatMap((t) => t.checks).find((c) => c.id === 'traffic/idempotency/conflict');
    expect(judgedConflict).toBeDefined();
    expect(judgedConflict!.status).not.toBe('fail');
    expect(other.readings.map((r) => `${r.point} ${r.choice}`)).toContain('other-fault-first other-fault');
  });
});

describe('one problem type base across the traffic', () => {
  const problem = (base: string) => {
    const next = index + 1;
    return ex('GET', `${API}/wallet/balance`, {}, 409, { type: `${base}/idempotency_conflict`, title: 'Conflict', status: 409, detail: 'x', code: 'idempotency_conflict', request_id: `r${next}`, instance: '/x' });
  };
  const typeCheck = (bases: string[]) => statusOf(bases.map(problem), 'traffic/problem-details/type-form');
  it('passes one base, and fails each answer once two are seen, whichever came first', () => {
    expect(typeCheck(['https://a.test', 'https://a.test'])?.status).toBe('pass');
    const two = typeCheck(['https://a.test', 'https://b.test', 'https://a.test', 'https://c.test']);
    expect(two?.status).toBe('fail');
    // The second, third (the first base again, against the second) and fourth answers broke it.
    expect(two?.failure?.message).toMatch(/3 of 4 judged broke a rule/);
  });
});
