// 2.5 and 4.5: the wallet balance.
import { describe, expect, it } from 'vitest';
import { UTC_Z, UUID_V7, useReference } from './helpers.ts';

const h = useReference();
const MONEY = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

describe('wallet balance', () => {
  it('answers 200 with all seven fields of their types for the granted business [WAL-RETRIEVE, WAL-SCHEMA, WAL-FIELDS-PRESENT, WAL-BUSINESS-ID]', async () => {
    const r = await h.call('GET', h.paths.wallet(h.b));
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(['as_of', 'available_balance', 'business_id', 'business_name', 'currency', 'current_balance', 'reserved_balance']);
    expect(r.json.business_id).toBe(h.b);
    expect(r.json.business_id).toMatch(UUID_V7);
  });

  it('has a name of 1 to 256 characters, an ISO 4217 currency and decimal strings [WAL-BUSINESS-NAME-LENGTH, WAL-CURRENCY-FORMAT, WAL-MONEY-FORMAT]', async () => {
    const w = (await h.call('GET', h.paths.wallet(h.b))).json;
    expect(w.business_name.length).toBeGreaterThanOrEqual(1);
    expect(w.business_name.length).toBeLessThanOrEqual(256);
    expect(w.currency).toMatch(/^[A-Z]{3}$/);
    for (const k of ['current_balance', 'available_balance', 'reserved_balance']) {
      expect(typeof w[k]).toBe('string');
      expect(w[k]).toMatch(MONEY);
    }
  });

  it('gives as_of in UTC with Z [WAL-AS-OF-UTC]', async () => {
    expect((await h.call('GET', h.paths.wallet(h.b))).json.as_of).toMatch(UTC_Z);
  });

  it('keeps available equal to current and reserved at 0.00 over many reads [WAL-AVAILABLE-EQUALS-CURRENT, WAL-RESERVED-ZERO]', async () => {
    for (let i = 0; i < 25; i++) {
      const w = (await h.call('GET', h.paths.wallet(h.b))).json;
      expect(w.available_balance).toBe(w.current_balance);
      expect(w.reserved_balance).toBe('0.00');
    }
  });

  it('refuses a business without a grant [WAL-GRANT]', async () => {
    const r = await h.call('GET', h.paths.wallet(h.f.otherBusinessId));
    expect(r.status).toBe(403);
    expect(r.json.code).toBe('permission_denied');
  });

  it('refuses an application without wallet.balance.read with 403 permission_denied [WAL-PERMISSION]', async () => {
    const r = await h.call('GET', h.paths.wallet(h.b), { as: 'limited' });
    expect(r.status).toBe(403);
    expect(r.json.code).toBe('permission_denied');
  });

  it('answers 503 balance_unavailable, never a zero balance, while the source is off [WAL-UNAVAILABLE, WAL-NO-INVENTED-ZEROS]', async () => {
    await h.control('POST', '/faults', { walletUnavailable: true });
    try {
      const r = await h.call('GET', h.paths.wallet(h.b));
      expect(r.status).toBe(503);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.json.code).toBe('balance_unavailable');
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(r.json).not.toHaveProperty('current_balance');
    } finally {
      await h.control('POST', '/faults', { walletUnavailable: false });
    }
    expect((await h.call('GET', h.paths.wallet(h.b))).status).toBe(200);
  });
});
