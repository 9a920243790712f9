import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateRequestBody } from '../../spec/validators.ts';
import { bulkRequestArb, type BulkRequestBody } from '../../generators/bulk-request.ts';
import { canonicalJson, differentVariantsArb, equalVariantsArb, spellJson } from '../../generators/equivalence.ts';
import { sample } from '../../generators/seed.ts';
import { expectDeterministic, SEED } from './helpers.ts';

const OPTIONS = { senderId: 'ACME', pool: ['+15550100001', '+447700900123', '+4915112345678'], templateId: '0190f3a2-1c2b-7d4e-8f00-123456789abc', placeholders: ['name', 'city'], count: { min: 1, max: 4 } };
const bodies = bulkRequestArb(OPTIONS);

/** Leaf pointers whose values differ between two JSON values (arrays of other lengths count once). */
function diff(a: unknown, b: unknown, at = ''): string[] {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [at];
    return a.flatMap((x, i) => diff(x, b[i], `${at}/${i}`));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}/${k}`));
  }
  return Object.is(a, b) ? [] : [at];
}

describe('canonicalJson', () => {
  it('ignores key order and spelling, not values', () => {
    expect(canonicalJson({ b: 1, a: [1, { d: 2, c: 'x' }] })).toBe('{"a":[1,{"c":"x","d":2}],"b":1}');
    expect(canonicalJson(JSON.parse('{"n": 5.0e0, "s": "\\u0041\\/"}'))).toBe(canonicalJson({ s: 'A/', n: 5 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});

describe('equal variants', () => {
  it('every variant canonicalises to the original body', () => {
    fc.assert(
      fc.property(bodies.chain((b) => fc.tuple(fc.constant(b), equalVariantsArb(b))), ([body, text]) => {
        expect(canonicalJson(JSON.parse(text))).toBe(canonicalJson(body));
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it('spells numbers, escapes, order and whitespace differently from JSON.stringify', () => {
    const value = { z: 5, a: 'A/b', n: [1.5, -3] };
    const texts = sample(equalVariantsArb(value), SEED, 200);
    expectDeterministic(equalVariantsArb(value));
    expect(texts.some((t) => /5(\.0|e0|E\+0|0e-1)/.test(t))).toBe(true);
    expect(texts.some((t) => t.includes('\\u') || t.includes('\\/'))).toBe(true);
    expect(texts.some((t) => t.indexOf('"a"') < t.indexOf('"z"'))).toBe(true);
    expect(texts.some((t) => /\s/.test(t))).toBe(true);
    for (const t of texts) expect(canonicalJson(JSON.parse(t))).toBe(canonicalJson(value));
    expect(spellJson(value, { orderSeed: 0, space: '', escapes: false, numbers: false })).toBe(JSON.stringify(value));
  });
});

describe('different variants', () => {
  it('differ from the original in exactly one field, stay valid and never canonicalise to it', () => {
    const pairs = bodies.chain((b) => fc.tuple(fc.constant(b), differentVariantsArb(b, { ...OPTIONS, otherSenderIds: ['ACME2'] })));
    expectDeterministic(pairs);
    const seen = new Set<string>();
    fc.assert(
      fc.property(pairs, ([body, variant]) => {
        expect(canonicalJson(variant.body)).not.toBe(canonicalJson(body));
        expect(validateRequestBody('createSmsBulkMessage', variant.body)).toEqual([]);
        const changed = diff(body, variant.body);
        expect(changed).toEqual([variant.pointer]);
        seen.add(variant.pointer.replace(/\/\d+/g, '/i').replace(/template_variables\/\w+/, 'template_variables/k'));
        for (const r of (variant.body as BulkRequestBody).recipients) expect(OPTIONS.pool).toContain(r.to);
      }),
      { seed: SEED, numRuns: 1000 },
    );
    expect([...seen].sort()).toEqual(
      ['/classification', '/from', '/message', '/recipients', '/recipients/i/template_variables/k', '/recipients/i/to'].sort(),
    );
  });
});
