import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validate } from '../../spec/validators.ts';
import { LAX_FORMS, laxFormsArb } from '../../generators/lax-forms.ts';
import { SEED } from './helpers.ts';

/** How common engines read `^\+[1-9]\d{7,14}$` laxly: a Unicode \d, a $ before a final line feed, line anchors, trimming, invisible characters dropped. */
const laxE164 = (v: string): boolean => {
  const digits = v.normalize('NFKC');
  return (
    /^\+[1-9]\d{7,14}\n?$/.test(digits) ||
    /^\+[1-9]\d{7,14}$/m.test(v) ||
    /^\+[1-9]\d{7,14}$/.test(v.trim()) ||
    /^\+[1-9]\d{7,14}$/.test(v.replace(/[\u200b-\u200d\u2060\ufeff]/g, ''))
  );
};

describe('lax forms of a pattern-constrained value', () => {
  it('every form, of a number and of a UUIDv7, is refused by the schema and taken by some lax reading of it', () => {
    fc.assert(
      fc.property(fc.constantFrom('+447700900123', '+15550100001'), fc.integer(), (number, seed) => {
        const forms = fc.sample(laxFormsArb(number), { seed, numRuns: 1 })[0]!;
        expect(forms.map((f) => f.form)).toEqual([...LAX_FORMS]);
        for (const f of forms) {
          expect(validate('E164PhoneNumber', f.value).length, f.how).toBeGreaterThan(0);
          expect(laxE164(f.value), f.how).toBe(true);
        }
      }),
      { seed: SEED, numRuns: 30 },
    );
    const id = '01890a5d-ac96-774b-bcce-b302099a8057';
    for (const f of fc.sample(laxFormsArb(id), { seed: SEED, numRuns: 1 })[0]!) expect(validate('UuidV7', f.value).length, f.how).toBeGreaterThan(0);
  });

  it('a value without a digit gets no digit form (it would be the value itself)', () => {
    const forms = fc.sample(laxFormsArb('ACME'), { seed: SEED, numRuns: 1 })[0]!;
    expect(forms.map((f) => f.form)).not.toContain('unicode digits');
    for (const f of forms) expect(f.value).not.toBe('ACME');
  });
});
