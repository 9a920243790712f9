// 4.0 and 4.1 rules 2-6: Idempotency-Key, scope, replay, conflict, window, no reuse.
import { describe, expect, it } from 'vitest';
import { freshKey, messageBody, useReference } from './helpers.ts';

const DAY = 24 * 3600 * 1000;
const h = useReference();

const counts = () => h.control('GET', '/state/counts');

describe('Idempotency-Key header', () => {
  it('refuses a submission without the key with 400 validation_failed and creates nothing [IDEM-KEY-REQUIRED]', async () => {
    const before = (await counts()).bulkMessages;
    const r = await h.call('POST', h.paths.bulks(h.b), { json: messageBody(h) });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('validation_failed');
    expect((await counts()).bulkMessages).toBe(before);
  });

  it('accepts a key of 256 characters and refuses an empty one or one of 257 [IDEM-KEY-LENGTH]', async () => {
    expect((await h.submit(messageBody(h), { key: 'k'.repeat(256) })).status).toBe(202);
    for (const key of ['', 'k'.repeat(257)]) {
      const r = await h.submit(messageBody(h), { key });
      expect(r.status).toBe(400);
      expect(r.json.code).toBe('validation_failed');
    }
  });
});

describe('replay and conflict', () => {
  it('replays the original 202 (status, body, Location) for a byte-identical repeat [IDEM-REPLAY, IDEM-REPLAY-REQUEST-ID]', async () => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    const again = await h.submit(messageBody(h), { key, headers: { 'x-request-id': 'replay-probe' } });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    // Reference reading: the replay carries the repeated call's own request id.
    expect(again.headers.get('x-request-id')).toBe('replay-probe');
  });

  it('treats key order and whitespace as equivalent and replays [IDEM-EQUIVALENCE, IDEM-KEY-PERMANENT, IDEM-EQUIVALENT-REPLAYED]', async () => {
    const key = freshKey();
    const body = messageBody(h);
    const first = await h.submit(body, { key });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await h.call('POST', h.paths.bulks(h.b), {
      body: JSON.stringify(reordered, null, 2),
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    expect(again.status).toBe(202);
    expect(again.json.id).toBe(first.json.id);
  });

  it('answers a different payload under a used key with 409 idempotency_conflict and creates nothing [IDEM-CONFLICT]', async () => {
    const key = freshKey();
    await h.submit(messageBody(h), { key });
    const before = (await counts()).bulkMessages;
    const r = await h.submit(messageBody(h, { message: 'Something else' }), { key });
    expect(r.status).toBe(409);
    expect(r.json.code).toBe('idempotency_conflict');
    expect((await counts()).bulkMessages).toBe(before);
  });

  it('scopes keys by application and business [IDEM-SCOPE]', async () => {
    const key = freshKey();
    const primary = await h.submit(messageBody(h), { key });
    const limited = await h.submit(messageBody(h, { message: 'Another text' }), { key, as: 'limited' });
    expect(limited.status).toBe(202);
    expect(limited.json.id).not.toBe(primary.json.id);
  });

  it('serialises concurrent same-key submissions onto one bulk [IDEM-CONCURRENT]', async () => {
    const key = freshKey();
    const replies = await Promise.all(Array.from({ length: 5 }, () => h.submit(messageBody(h), { key })));
    expect(new Set(replies.map((r) => r.status))).toEqual(new Set([202]));
    expect(new Set(replies.map((r) => r.json.id)).size).toBe(1);
  });

  it('does not consume a key on a refused submission [IDEM-FAILED-BEFORE-ACCEPTANCE]', async () => {
    const key = freshKey();
    const refused = await h.submit(messageBody(h, { recipients: [] }), { key });
    expect(refused.status).toBe(400);
    expect((await h.submit(messageBody(h), { key })).status).toBe(202);
  });
});

describe('window', () => {
  it('replays within seven days and never creates a new bulk after them [IDEM-WINDOW, IDEM-NO-REUSE-AFTER-EXPIRY]', async () => {
    const key = freshKey();
    const first = await h.submit(messageBody(h), { key });
    await h.control('POST', '/clock/advance', { ms: 6 * DAY });
    const within = await h.submit(messageBody(h), { key });
    expect(within.status).toBe(202);
    expect(within.json.id).toBe(first.json.id);
    await h.control('POST', '/clock/advance', { ms: 1 * DAY + 1000 });
    const before = (await counts()).bulkMessages;
    const after = await h.submit(messageBody(h), { key });
    expect(after.status).toBe(409);
    expect(after.json.code).toBe('idempotency_conflict');
    expect((await counts()).bulkMessages).toBe(before);
  });
});
