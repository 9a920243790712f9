// 4.1 rule 1 and section 8: 1 to 1000 entries, counting every entry, nothing created above.
import { describe, expect, it } from 'vitest';
import { messageBody, useReference } from './helpers.ts';

const h = useReference();
const counts = () => h.control('GET', '/state/counts');
const entries = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));

describe('recipient limits', () => {
  it('refuses an empty recipients array with 400 validation_failed [RLIM-MIN-1]', async () => {
    const r = await h.submit(messageBody(h, { recipients: [] }));
    expect(r.status).toBe(400);
    expect(r.json.errors).toContainEqual({ pointer: '/recipients', code: 'field_invalid' });
  });

  it('accepts exactly 1000 entries [RLIM-AT-MAX-ACCEPTED]', async () => {
    const r = await h.submit(messageBody(h, { recipients: entries(1000, (i) => ({ to: `+44770090${String(i).padStart(4, '0')}` })) }));
    expect(r.status).toBe(202);
    expect(r.json.intake).toEqual({ good: 1000, bad: 0, empty: 0 });
  });

  it('refuses 1001 entries with 422 recipient_limit_exceeded [RLIM-MAX-1000]', async () => {
    const r = await h.submit(messageBody(h, { recipients: entries(1001, (i) => ({ to: `+44770090${String(i).padStart(4, '0')}` })) }));
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('recipient_limit_exceeded');
  });

  it('counts duplicates: 1001 entries of the same few numbers give 422 [RLIM-COUNT-ALL-ENTRIES]', async () => {
    const r = await h.submit(messageBody(h, { recipients: entries(1001, (i) => ({ to: h.f.recipients[i % 2]! })) }));
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('recipient_limit_exceeded');
  });

  it('counts invalid entries too, checking the count before the entries [RLIM-COUNT-INVALID-ENTRIES]', async () => {
    const garbage = entries(1001, (i) => (i % 3 === 0 ? { to: 'not-a-number' } : i % 3 === 1 ? 42 : { phone: '+447700900123' }));
    const r = await h.submit({ recipients: garbage });
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('recipient_limit_exceeded');
  });

  it('creates and bills nothing for an over-limit submission [RLIM-NO-PARTIAL, RLIM-NO-BILLING]', async () => {
    const before = await counts();
    const wallet = (await h.call('GET', h.paths.wallet(h.b))).json;
    const r = await h.submit(messageBody(h, { recipients: entries(1500, () => ({ to: h.f.recipients[0]! })) }));
    expect(r.status).toBe(422);
    const after = await counts();
    expect(after.bulkMessages).toBe(before.bulkMessages);
    expect(after.recipientRows).toBe(before.recipientRows);
    expect(after.idempotencyKeys).toBe(before.idempotencyKeys);
    expect((await h.call('GET', h.paths.wallet(h.b))).json.current_balance).toBe(wallet.current_balance);
  });
});
