import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateRequestBody } from '../../spec/validators.ts';
import { bulkRequestArb, type BulkRequestBody } from '../../generators/bulk-request.ts';
import { canonicalJson, differentVariantsArb, equalVariantsArb, NEAR_EQUAL_CHANGES, nearEqualReady, nearEqualVariants, spellJson } from '../../generators/equivalence.ts';
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

  it('distinct variants are never the plain text, still equal, and deterministic under a seed', () => {
    const pairs = bodies.chain((b) => fc.tuple(fc.constant(b), equalVariantsArb(b, { distinct: true })));
    expectDeterministic(pairs);
    let reordered = 0;
    fc.assert(
      fc.property(pairs, ([body, text]) => {
        expect(text).not.toBe(JSON.stringify(body));
        expect(canonicalJson(JSON.parse(text))).toBe(canonicalJson(body));
        if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(body)) reordered++;
      }),
      { seed: SEED, numRuns: 1000 },
    );
    // The idempotency suite relies on most variants moving keys, not only spaces and escapes.
    expect(reordered).toBeGreaterThan(900);
    // A value with a single spelling-free form still gets other texts.
    expect(sample(equalVariantsArb({}, { distinct: true }), SEED, 20).every((t) => t !== '{}' && JSON.parse(t) !== null)).toBe(true);
  });

  it('texts survive UTF-8 on the wire (lone surrogates escaped, astral characters kept)', () => {
    const value = { s: 'a\ud800b\udc00c😀é' };
    for (const text of sample(equalVariantsArb(value), SEED, 200)) {
      const wire = new TextDecoder().decode(new TextEncoder().encode(text));
      expect(wire).toBe(text); // only well-formed UTF-16 survives the round trip
      expect(canonicalJson(JSON.parse(wire))).toBe(canonicalJson(value));
    }
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
        if (variant.pointer === '/recipients (order)') {
          // The same entries in another order.
          const entries = (b: BulkRequestBody) => b.recipients.map((r) => canonicalJson(r)).sort();
          expect(entries(variant.body)).toEqual(entries(body));
        } else expect(diff(body, variant.body)).toEqual([variant.pointer]);
        seen.add(variant.pointer.replace(/\/\d+/g, '/i').replace(/template_variables\/\w+/, 'template_variables/k'));
        for (const r of (variant.body as BulkRequestBody).recipients) expect(OPTIONS.pool).toContain(r.to);
      }),
      { seed: SEED, numRuns: 1000 },
    );
    expect([...seen].sort()).toEqual(
      ['/classification', '/from', '/message', '/recipients', '/recipients (order)', '/recipients/i/template_variables/k', '/recipients/i/to'].sort(),
    );
  });

  it('change template_id only to a given other template, and template variables of template bodies', () => {
    const otherTemplate = '0190f3a2-1c2b-7d4e-8f00-cba987654321';
    const templateBodies = bulkRequestArb({ ...OPTIONS, content: 'template' });
    const pairs = templateBodies.chain((b) => fc.tuple(fc.constant(b), differentVariantsArb(b, { ...OPTIONS, otherTemplateIds: [otherTemplate] })));
    expectDeterministic(pairs);
    const seen = new Set<string>();
    fc.assert(
      fc.property(pairs, ([body, variant]) => {
        expect(canonicalJson(variant.body)).not.toBe(canonicalJson(body));
        expect(validateRequestBody('createSmsBulkMessage', variant.body)).toEqual([]);
        if (variant.pointer !== '/recipients (order)') expect(diff(body, variant.body)).toEqual([variant.pointer]);
        if (variant.pointer === '/template_id') expect(variant.body.template_id).toBe(otherTemplate);
        // The variables keep the template's placeholders: only a value changes.
        for (const r of variant.body.recipients) expect(Object.keys(r.template_variables ?? {}).sort()).toEqual([...OPTIONS.placeholders].sort());
        seen.add(variant.pointer.replace(/\/\d+/g, '/i').replace(/template_variables\/\w+/, 'template_variables/k'));
      }),
      { seed: SEED, numRuns: 500 },
    );
    expect(seen).toContain('/template_id');
    expect(seen).toContain('/recipients/i/template_variables/k');

    // Without a second template known, template_id never changes (it must name one the target has).
    const without = templateBodies.chain((b) => differentVariantsArb(b, OPTIONS));
    expect(sample(without, SEED, 300).some((v) => v.pointer === '/template_id')).toBe(false);
  });

  it('changes a variable even when every generated value could collide with the old one', () => {
    // Single-character values are what biased generation tries first; the change must still be found.
    const body: BulkRequestBody = { from: 'ACME', classification: 'transactional', template_id: OPTIONS.templateId, recipients: [{ to: OPTIONS.pool[0]!, template_variables: { name: 'a' } }] };
    const variants = sample(differentVariantsArb(body, { senderId: 'ACME', pool: [OPTIONS.pool[0]!] }), SEED, 200);
    const changedVars = variants.filter((v) => v.pointer === '/recipients/0/template_variables/name');
    expect(changedVars.length).toBeGreaterThan(0);
    for (const v of changedVars) expect(v.body.recipients[0]!.template_variables!.name).not.toBe('a');
  });
});

describe('near-equal variants', () => {
  /** The normalisers a fingerprint might apply, each with the change it erases. */
  const NORMALISERS: Record<keyof typeof NEAR_EQUAL_CHANGES, Array<(s: string) => string>> = {
    'a trailing space more': [(s) => s.trim(), (s) => s.replace(/\s+/g, ' '), (s) => s.trim().replace(/\s+/g, ' ')],
    'ASCII letter case swapped': [(s) => s.toLowerCase(), (s) => s.toUpperCase()],
    'decomposed (NFD)': [(s) => s.normalize('NFC'), (s) => s.normalize('NFKC'), (s) => s.normalize('NFD')],
    'full-width forms': [(s) => s.normalize('NFKC')],
  };
  const at = (body: unknown, pointer: string) => pointer.split('/').slice(1).reduce((n: any, k) => n?.[k], body) as string;

  it('change each free-text member (message, from, a template variable) in every way, valid, another JSON value, equal once normalised', () => {
    fc.assert(
      fc.property(bodies, (generated) => {
        const body = nearEqualReady(generated, [OPTIONS.senderId, ...OPTIONS.pool]);
        expect(validateRequestBody('createSmsBulkMessage', body)).toEqual([]);
        const variants = nearEqualVariants(body);
        const locations = new Set(variants.map((v) => v.location));
        expect(locations).toContain('/from');
        expect(locations).toContain(body.message !== undefined ? '/message' : '/recipients/*/template_variables/*');
        // A pattern (E.164) or a format (the template's UUID) keeps its member out.
        expect([...locations].some((l) => l.endsWith('/to') || l === '/template_id')).toBe(false);
        for (const v of variants) {
          expect(validateRequestBody('createSmsBulkMessage', v.body)).toEqual([]);
          expect(canonicalJson(v.body)).not.toBe(canonicalJson(body));
          expect(diff(body, v.body)).toEqual([v.pointer]);
          // Collapsing runs erases the space more only after a space (nearEqualReady's, not the sender's).
          const normalisers = NORMALISERS[v.change].filter((_n, i) => i === 0 || v.change !== 'a trailing space more' || at(body, v.pointer).endsWith(' '));
          for (const normalise of normalisers) expect(normalise(at(v.body, v.pointer))).toBe(normalise(at(body, v.pointer)));
        }
        // The content member the run chose gets all four changes; the sender as given, the ones its characters allow.
        const content = variants.filter((v) => v.location !== '/from').map((v) => v.change);
        expect(content.sort()).toEqual(Object.keys(NEAR_EQUAL_CHANGES).sort());
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('leave out a location already varied', () => {
    const body = nearEqualReady(sample(bodies, SEED, 1)[0]!, [OPTIONS.senderId]);
    expect(nearEqualVariants(body, new Set(['/from'])).some((v) => v.location === '/from')).toBe(false);
  });
});
