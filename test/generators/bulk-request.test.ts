import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validate, validateRequestBody } from '../../spec/validators.ts';
import { bulkBodyWithRecipientCount, bulkRequestArb, recipientCountBounds } from '../../generators/bulk-request.ts';
import { GeneratorError, plainText, rendererMarkupArb, withRendererMarkup, withoutRendererMarkup } from '../../generators/domain.ts';
import { sample } from '../../generators/seed.ts';
import { expectAllValid, expectDeterministic, SEED } from './helpers.ts';

const SENDER = 'ACME';
const TEMPLATE = '0190f3a2-1c2b-7d4e-8f00-123456789abc';
const POOL = ['+15550100001', '+447700900123', '+4915112345678'];
const body = (v: unknown) => validateRequestBody('createSmsBulkMessage', v);

describe('bulkRequestArb', () => {
  const variants = {
    'message bodies with generated numbers': { senderId: SENDER },
    'message bodies from the pool': { senderId: SENDER, pool: POOL },
    'template bodies with placeholders': { senderId: SENDER, templateId: TEMPLATE, placeholders: ['name', 'amount'], content: 'template' as const },
    'either content': { senderId: SENDER, pool: POOL, templateId: TEMPLATE, placeholders: ['name'] },
  };
  for (const [name, options] of Object.entries(variants)) {
    it(`${name}: deterministic and 1,000 values valid`, () => {
      const arb = bulkRequestArb(options);
      expectDeterministic(arb);
      expectAllValid(arb, body, 1000);
    });
  }

  it('keeps to the run: its sender, its pool, its template and placeholders, the count bounds', () => {
    const options = { senderId: SENDER, pool: POOL, templateId: TEMPLATE, placeholders: ['name'], count: { min: 2, max: 4 } };
    const values = sample(bulkRequestArb(options), SEED, 300);
    expect(values.some((b) => b.message !== undefined)).toBe(true);
    expect(values.some((b) => b.template_id !== undefined)).toBe(true);
    for (const b of values) {
      expect(b.from).toBe(SENDER);
      expect(b.recipients.length).toBeGreaterThanOrEqual(2);
      expect(b.recipients.length).toBeLessThanOrEqual(4);
      for (const r of b.recipients) expect(POOL).toContain(r.to);
      if (b.template_id !== undefined) {
        expect(b.template_id).toBe(TEMPLATE);
        for (const r of b.recipients) expect(Object.keys(r.template_variables ?? {})).toEqual(['name']);
      } else {
        for (const r of b.recipients) expect(r.template_variables).toBeUndefined();
        expect(b.message).not.toMatch(/\{\{|\}\}/);
      }
    }
  });

  it('markup: message bodies, valid, every one holding a double-brace placeholder and no variables; taken out, plain text', () => {
    const arb = bulkRequestArb({ senderId: SENDER, pool: POOL, markup: true, content: 'message' });
    expectDeterministic(arb);
    expectAllValid(arb, body, 500);
    const values = sample(arb, SEED, 300);
    for (const b of values) {
      expect(b.message).toMatch(/\{\{ ?[a-z][a-z0-9_]* ?\}\}/);
      for (const r of b.recipients) expect(r.template_variables).toBeUndefined();
      expect(plainText(withoutRendererMarkup(b.message!))).toBe(true);
    }
    // White space at the ends and escapes written as text turn up too.
    expect(values.some((b) => b.message !== b.message!.trim())).toBe(true);
    expect(values.some((b) => b.message!.includes('\\'))).toBe(true);
  });

  it('markup never pushes a message past the schema maximum', () => {
    const long = 'x'.repeat(4096);
    for (const m of sample(rendererMarkupArb(), SEED, 100)) expect([...withRendererMarkup(long, m, 4096)].length).toBeLessThanOrEqual(4096);
  });

  it('refuses inputs it cannot honour', () => {
    expect(() => bulkRequestArb({ senderId: '' })).toThrow(GeneratorError);
    expect(() => bulkRequestArb({ senderId: SENDER, content: 'template' })).toThrow(GeneratorError);
    expect(() => bulkRequestArb({ senderId: SENDER, count: { min: 0, max: 2 } })).toThrow(GeneratorError);
  });
});

describe('bulkBodyWithRecipientCount', () => {
  const { max } = recipientCountBounds();

  it('gives exactly n recipients, valid at the maximum, for every content kind', () => {
    for (const options of [
      { senderId: SENDER },
      { senderId: SENDER, pool: POOL },
      { senderId: SENDER, templateId: TEMPLATE, placeholders: ['a', 'b'], content: 'template' as const },
    ]) {
      const arb = bulkBodyWithRecipientCount(max, options);
      expectDeterministic(arb, 3);
      fc.assert(
        fc.property(arb, (b) => {
          expect(b.recipients.length).toBe(max);
          expect(body(b)).toEqual([]);
          if (options.pool) for (const r of b.recipients) expect(POOL).toContain(r.to);
        }),
        { seed: SEED, numRuns: 20 },
      );
    }
  });

  it('one past the semantic maximum is still schema-valid (the limit is a 422, not a schema rule)', () => {
    const [b] = sample(bulkBodyWithRecipientCount(max + 1, { senderId: SENDER }), SEED, 1);
    expect(b!.recipients.length).toBe(max + 1);
    expect(validate('CreateSmsBulkMessageRequest', b)).toEqual([]);
  });
});

describe('shrinking', () => {
  it('a false property about recipient counts shrinks to the smallest body that breaks it', () => {
    const details = fc.check(
      fc.property(bulkRequestArb({ senderId: SENDER, count: { min: 1, max: 10 } }), (b) => b.recipients.length < 3),
      { seed: SEED, numRuns: 500 },
    );
    expect(details.failed).toBe(true);
    const [shrunk] = details.counterexample!;
    expect(shrunk.recipients.length).toBe(3);
    // Shrinking also simplified the rest: the shortest message and the shortest numbers.
    expect(shrunk.message?.length ?? 1).toBe(1);
  });

  it('a false property about number lengths shrinks to the shortest number that breaks it', () => {
    const details = fc.check(
      fc.property(bulkRequestArb({ senderId: SENDER }), (b) => b.recipients.every((r) => r.to.length < 12)),
      { seed: SEED, numRuns: 500 },
    );
    expect(details.failed).toBe(true);
    const [shrunk] = details.counterexample!;
    expect(shrunk.recipients).toHaveLength(1);
    expect(shrunk.recipients[0]!.to).toHaveLength(12);
  });
});
