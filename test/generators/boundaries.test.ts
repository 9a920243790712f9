import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateRequestBody } from '../../spec/validators.ts';
import { requirementById } from '../../spec/requirements.ts';
import { boundsOf, bulkBoundaryCaseArbs, headerBoundaryCaseArbs, listingBoundaryCaseArbs, type BoundaryCase } from '../../generators/boundaries.ts';
import { parameterFailures } from '../../generators/parameters.ts';
import { codePointLength } from '../../generators/from-schema.ts';
import { expectDeterministic, pointersOf, SEED } from './helpers.ts';

const OPTIONS = { senderId: 'ACME-SMS', pool: ['+15550100001', '+447700900123'] };
const NAMES = { limit: 'page_size', cursor: 'after', status: 'state', to: 'msisdn' };

function sizeAt(body: unknown, pointer: string): number {
  const value = pointer.split('/').slice(1).reduce<unknown>((node, seg) => (node as Record<string, unknown>)[seg], body);
  return Array.isArray(value) ? value.length : codePointLength(value as string);
}

function checkBodyCase(c: BoundaryCase): void {
  const failures = validateRequestBody('createSmsBulkMessage', c.request.body);
  expect(sizeAt(c.request.body, c.pointer)).toBe(c.size);
  expect(requirementById(c.requirement)).toBeDefined();
  if (c.valid || c.semantic) {
    expect(failures).toEqual([]);
  } else {
    expect(pointersOf(failures)).toEqual([c.pointer]);
    expect(failures.map((f) => f.keyword)).toContain(c.keyword);
  }
  if (c.valid) expect(c.size).toBe(c.limit);
  else expect(Math.abs(c.size - c.limit)).toBe(1);
  expect(c.expectation === 'accept').toBe(c.outcomes.length === 0);
}

describe('boundsOf', () => {
  it('finds every bounded field of the submission body, quotas included', () => {
    const found = boundsOf('CreateSmsBulkMessageRequest').map((b) => `${b.pointer} ${b.keyword}${b.semantic ? ' (semantic)' : ''}`);
    expect(found).toEqual(
      expect.arrayContaining([
        '/from minLength', '/from maxLength', '/message minLength', '/message maxLength',
        '/recipients minItems', '/recipients maxItems (semantic)',
        '/recipients/*/to minLength', '/recipients/*/to maxLength',
        '/recipients/*/template_variables/* maxLength', '/recipients/*/template_variables/* minLength',
      ]),
    );
  });
});

describe('bulk body boundaries', () => {
  const arbs = bulkBoundaryCaseArbs(OPTIONS);
  it('has a valid case at every bound and an invalid one past it', () => {
    const names = Object.keys(arbs);
    expect(names.length).toBeGreaterThanOrEqual(16);
  });
  for (const [name, arb] of Object.entries(arbs)) {
    it(name, () => {
      expectDeterministic(arb, 2);
      fc.assert(fc.property(arb, (c) => checkBodyCase(c)), { seed: SEED, numRuns: name.includes('/recipients ') ? 3 : 25 });
    });
  }
});

describe('header and query boundaries', () => {
  it('header values sit at and one past the bounds of IdempotencyKey and RequestId', () => {
    const arbs = headerBoundaryCaseArbs('run-1234');
    expect(Object.keys(arbs)).toHaveLength(8);
    for (const arb of Object.values(arbs)) {
      expectDeterministic(arb, 2);
      fc.assert(
        fc.property(arb, (c) => {
          const value = c.request.headers![c.pointer]!;
          expect(value.length).toBe(c.size);
          const failures = parameterFailures('createSmsBulkMessage', c.pointer, 'header', value);
          expect(failures.length === 0).toBe(c.valid);
          if (!c.valid) expect(failures.map((f) => f.keyword)).toContain(c.keyword);
          if (c.pointer === 'X-Request-Id' && !c.valid) expect(c.expectation).toBe('replace');
          if (c.size >= 8 && c.valid) expect(value.startsWith('run-1234')).toBe(true);
        }),
        { seed: SEED, numRuns: 20 },
      );
    }
  });

  it('page sizes sit at and one past the limits, under the configured name', () => {
    const cases = Object.values(listingBoundaryCaseArbs(NAMES)).map((a) => fc.sample(a, { seed: SEED, numRuns: 1 })[0]!);
    expect(cases.map((c) => c.request.query![0])).toEqual([
      ['page_size', '1'], ['page_size', '0'], ['page_size', '1000'], ['page_size', '1001'],
    ]);
    for (const c of cases) {
      const failures = parameterFailures('listSmsBulkMessageRecipients', 'limit', 'query', c.request.query![0]![1]);
      expect(failures.length === 0).toBe(c.valid);
    }
  });
});
