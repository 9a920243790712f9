import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validate, validateRequestBody } from '../../spec/validators.ts';
import { requirementById } from '../../spec/requirements.ts';
import { INVALID_BULK_KINDS, invalidBulkCaseArbs, invalidListingCaseArbs, requestIdReplacementArb, wrongTypeCases, type InvalidCase } from '../../generators/invalid.ts';
import { parameterFailures } from '../../generators/parameters.ts';
import { expectDeterministic, pointersOf, SEED } from './helpers.ts';

const OPTIONS = { senderId: 'ACME', pool: ['+15550100001', '+447700900123', '+4915112345678'] };
const NAMES = { limit: 'page_size', cursor: 'after', status: 'state', to: 'msisdn' };

/** Every body failure sits at exactly the case's pointers; headers and query fail on their own value. */
function checkCase(c: InvalidCase, operation: 'createSmsBulkMessage' | 'listSmsBulkMessageRecipients'): void {
  expect(requirementById(c.requirement), c.requirement).toBeDefined();
  expect(c.outcomes[0]).toEqual({ status: c.status, code: c.code || null });
  expect(c.pointers).toContain(c.pointer);
  if (c.in === 'body') {
    if (c.kind === 'malformed') {
      expect(() => JSON.parse(c.request.rawBody!)).toThrow();
      return;
    }
    const failures = validateRequestBody('createSmsBulkMessage', c.request.body);
    if (c.kind === 'semantic') {
      expect(failures).toEqual([]);
      return;
    }
    expect(pointersOf(failures)).toEqual([...c.pointers].sort());
    expect(failures.map((f) => f.keyword)).toContain(c.keyword);
    if (c.keyword === 'additionalProperties' || c.keyword === 'required') {
      const f = failures.find((x) => x.keyword === c.keyword)!;
      expect(`${c.objectPointer}/${c.property!.replace(/~/g, '~0').replace(/\//g, '~1')}`).toBe(c.pointer);
      expect(f.params.additionalProperty ?? f.params.missingProperty).toBe(c.property);
    }
    return;
  }
  // Header and query cases: the rest of the request is valid, the one value is not.
  if (c.request.body !== undefined) expect(validateRequestBody('createSmsBulkMessage', c.request.body)).toEqual([]);
  const value = c.in === 'header' ? c.request.headers![c.pointer]! : c.request.query!.find(([n]) => n === c.pointer)![1];
  const docName = c.in === 'header' ? c.pointer : Object.entries(NAMES).find(([, v]) => v === c.pointer)![0];
  const failures = parameterFailures(operation, docName, c.in, value);
  if (c.kind === 'semantic') expect(failures).toEqual([]);
  else expect(failures.map((f) => f.keyword)).toContain(c.keyword);
}

describe('invalid bulk submissions: one violation each', () => {
  for (const [name, arb] of Object.entries(invalidBulkCaseArbs(OPTIONS))) {
    it(name, () => {
      expectDeterministic(arb, 2);
      fc.assert(fc.property(arb, (c) => checkCase(c, 'createSmsBulkMessage')), { seed: SEED, numRuns: name.startsWith('recipients: one past') ? 3 : 100 });
    });
  }

  it('come in the kinds the list names, in its order (a budget counts the list; each-kind sends in this order)', () => {
    expect(Object.keys(invalidBulkCaseArbs(OPTIONS))).toEqual([...INVALID_BULK_KINDS]);
  });

  it('carries every outcome the catalogue reads for an invalid number', () => {
    const [c] = fc.sample(invalidBulkCaseArbs(OPTIONS)['recipient: to not E.164']!, { seed: SEED, numRuns: 1 });
    expect(c!.outcomes).toEqual([
      { status: 400, code: 'validation_failed' },
      { status: 422, code: 'invalid_recipient' },
      { status: 202, code: null },
    ]);
  });

  it('a recipient-limit case has one entry more than the quota and expects its 422', () => {
    const [c] = fc.sample(invalidBulkCaseArbs(OPTIONS)['recipients: one past the maximum count']!, { seed: SEED, numRuns: 1 });
    expect((c!.request.body as { recipients: unknown[] }).recipients).toHaveLength(1001);
    expect([c!.status, c!.code]).toEqual([422, 'recipient_limit_exceeded']);
  });
});

describe('invalid listing queries under the configured names', () => {
  for (const [name, arb] of Object.entries(invalidListingCaseArbs(NAMES))) {
    it(name, () => {
      expectDeterministic(arb, 2);
      fc.assert(fc.property(arb, (c) => checkCase(c, 'listSmsBulkMessageRecipients')), { seed: SEED, numRuns: 100 });
    });
  }
});

describe('invalid X-Request-Id', () => {
  it('is never valid, and is to be replaced rather than rejected', () => {
    const arb = requestIdReplacementArb();
    expectDeterministic(arb);
    fc.assert(
      fc.property(arb, (c) => {
        expect(validate('RequestId', c.value).length).toBeGreaterThan(0);
        expect(c.expectation).toBe('replace');
        expect(/^[\x20-\x7e]*$/.test(c.value)).toBe(true);
        for (const r of c.requirements) expect(requirementById(r)).toBeDefined();
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('every body position given every other JSON type', () => {
  const templateId = '01900000-0000-7000-8000-000000000000';
  const bodies = {
    message: { from: 'ACME', classification: 'transactional', message: 'hi', recipients: [{ to: '+447700900123' }] },
    template: { from: 'ACME', classification: 'transactional', template_id: templateId, recipients: [{ to: '+447700900123', template_variables: { name: 'x' } }] },
  };
  for (const [content, body] of Object.entries(bodies)) {
    it(`${content} body: each case breaks the type at its position only, within the check's budget of 45`, () => {
      expect(validateRequestBody('createSmsBulkMessage', body)).toEqual([]);
      const cases = wrongTypeCases(body as never);
      expect(cases.length).toBeLessThanOrEqual(45);
      for (const c of cases) {
        const failures = validateRequestBody('createSmsBulkMessage', c.request.body);
        expect(failures.some((f) => f.keyword === 'type'), c.name).toBe(true);
        expect(pointersOf(failures), c.name).toContain(c.pointer);
      }
      // The optional template_variables of a message body is a position too.
      expect(cases.some((c) => c.pointer === '/recipients/0/template_variables' && Array.isArray((c.request.body as typeof bodies.template).recipients[0]!.template_variables))).toBe(true);
    });
  }
});
