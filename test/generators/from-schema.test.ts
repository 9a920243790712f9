import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { arbitraryFromSchema, UnsupportedSchemaError, type SchemaObject } from '../../generators/from-schema.ts';
import { expectAllValid, expectDeterministic, SEED } from './helpers.ts';
import { sample } from '../../generators/seed.ts';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => void;
const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
addFormats(ajv);
const check = (schema: SchemaObject) => {
  const v = ajv.compile(schema);
  return (x: unknown) => (v(x) ? [] : (v.errors ?? []));
};

// The converter's own fixtures: one schema per supported keyword, independent of spec/.
const fixtures: Record<string, SchemaObject> = {
  'type array with null': { type: ['string', 'null'], maxLength: 3 },
  enum: { enum: ['a', 'b', 3] },
  const: { const: { x: 1 } },
  pattern: { type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' },
  'pattern and lengths': { type: 'string', pattern: '^\\+[1-9]\\d{7,14}$', minLength: 9, maxLength: 16 },
  lengths: { type: 'string', minLength: 3, maxLength: 5 },
  integer: { type: 'integer', minimum: -3, maximum: 7 },
  'exclusive bounds': { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 4 },
  number: { type: 'number', minimum: 0.5, maximum: 2.5 },
  'multipleOf': { type: 'integer', multipleOf: 5, minimum: 0, maximum: 100 },
  array: { type: 'array', items: { type: 'boolean' }, minItems: 2, maxItems: 4 },
  'unique items': { type: 'array', items: { enum: [1, 2, 3] }, uniqueItems: true },
  'closed object': {
    type: 'object',
    additionalProperties: false,
    required: ['a'],
    properties: { a: { type: 'string' }, b: { type: 'integer' } },
  },
  dictionary: { type: 'object', additionalProperties: { type: 'string', maxLength: 4 }, propertyNames: { pattern: '^[a-z]+$' } },
  'oneOf exactly one (required-only branches)': {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: { type: 'integer' }, m: { type: 'string' }, t: { type: 'string' } },
    oneOf: [{ required: ['m'] }, { required: ['t'] }],
  },
  'oneOf overlapping types': { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 0 }] },
  anyOf: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: 'z$' }] },
  allOf: { allOf: [{ type: 'string', minLength: 2 }, { maxLength: 4 }] },
  not: { type: 'integer', minimum: 0, maximum: 5, not: { const: 3 } },
  $ref: { $ref: '#/$defs/X', $defs: { X: { type: 'object', required: ['y'], properties: { y: { $ref: '#/$defs/Y' } } }, Y: { type: 'string', format: 'uuid' } } },
  'date-time': { type: 'string', format: 'date-time' },
  'date-time with a Z pattern': { type: 'string', format: 'date-time', pattern: 'Z$' },
  'uri-reference': { type: 'string', format: 'uri-reference' },
  uuid: { type: 'string', format: 'uuid' },
  'nullable (OpenAPI 3.0)': { type: 'integer', nullable: true, minimum: 1 },
};

describe('arbitraryFromSchema', () => {
  for (const [name, schema] of Object.entries(fixtures)) {
    it(`generates only valid values: ${name}`, () => {
      const arb = arbitraryFromSchema(schema);
      expectDeterministic(arb);
      const { nullable: _n, ...forAjv } = schema;
      const validator = schema.nullable ? check({ anyOf: [forAjv, { type: 'null' }] }) : check(schema);
      expectAllValid(arb, validator, 300);
    });
  }

  it('reaches both oneOf branches and never both members', () => {
    const values = sample(arbitraryFromSchema(fixtures['oneOf exactly one (required-only branches)']!), SEED, 200) as Array<Record<string, unknown>>;
    expect(values.some((v) => 'm' in v)).toBe(true);
    expect(values.some((v) => 't' in v)).toBe(true);
    expect(values.every((v) => ('m' in v) !== ('t' in v))).toBe(true);
  });

  it('reaches optional members present and absent, and null in type arrays', () => {
    const objects = sample(arbitraryFromSchema(fixtures['closed object']!), SEED, 200) as Array<Record<string, unknown>>;
    expect(objects.some((v) => 'b' in v)).toBe(true);
    expect(objects.some((v) => !('b' in v))).toBe(true);
    expect(sample(arbitraryFromSchema(fixtures['type array with null']!), SEED, 100)).toContain(null);
  });

  it('caps unbounded arrays and strings by option', () => {
    const arb = arbitraryFromSchema({ type: 'array', items: { type: 'string' } }, { caps: { items: 2, length: 3 } });
    for (const v of sample(arb, SEED, 200) as string[][]) {
      expect(v.length).toBeLessThanOrEqual(2);
      for (const s of v) expect(s.length).toBeLessThanOrEqual(3);
    }
  });

  it('honours overrides, constrain, omit, require and branch by instance path', () => {
    const schema = fixtures['oneOf exactly one (required-only branches)']!;
    const arb = arbitraryFromSchema(
      { ...schema, properties: { ...(schema.properties as object), list: { type: 'array', items: { type: 'integer' } } } },
      { overrides: { '/id': fc.constant(42) }, branch: { '': 't' }, require: ['/list'], constrain: { '/list': { minItems: 3, maxItems: 3 } } },
    );
    for (const v of sample(arb, SEED, 50) as Array<Record<string, unknown>>) {
      expect(v.id).toBe(42);
      expect('t' in v && !('m' in v)).toBe(true);
      expect((v.list as unknown[]).length).toBe(3);
    }
  });

  it('applies x-semantic-limit bounds to valid values', () => {
    const arb = arbitraryFromSchema({ type: 'array', items: { const: 1 }, minItems: 4, 'x-semantic-limit': { maxItems: 6, status: 422, code: 'x' } });
    for (const v of sample(arb, SEED, 100) as unknown[][]) expect(v.length).toBeGreaterThanOrEqual(4), expect(v.length).toBeLessThanOrEqual(6);
  });

  it('refuses keywords it does not understand instead of ignoring them', () => {
    expect(() => arbitraryFromSchema({ type: 'string', contentEncoding: 'base64' })).toThrow(UnsupportedSchemaError);
    expect(() => arbitraryFromSchema({ $ref: 'http://elsewhere.invalid/x' })).toThrow(UnsupportedSchemaError);
  });
});
