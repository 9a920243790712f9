import { describe, expect, it } from 'vitest';
import { schemaNames, type SchemaName } from '../../spec/contract.ts';
import { validate } from '../../spec/validators.ts';
import { schemaArb } from '../../generators/schemas.ts';
import {
  clientTimestampArb,
  e164Arb,
  e164Lengths,
  recipientsFrom,
  templateVariablesFor,
  utcTimestampArb,
  uuidV7Arb,
  uuidV7Time,
  GeneratorError,
} from '../../generators/domain.ts';
import { sample } from '../../generators/seed.ts';
import { expectAllValid, expectDeterministic, SEED } from './helpers.ts';

describe('one arbitrary per component schema', () => {
  for (const name of schemaNames) {
    it(`${name}: deterministic, and 1,000 refined and 1,000 bare values pass validate()`, () => {
      const refined = schemaArb(name);
      const bare = schemaArb(name, { refine: false });
      expectDeterministic(refined);
      expectDeterministic(bare);
      expectAllValid(refined, (v) => validate(name, v), 1000);
      expectAllValid(bare, (v) => validate(name, v), 1000);
    });
  }
});

describe('domain refinements', () => {
  const check = (name: SchemaName) => (v: unknown) => validate(name, v);

  it('UuidV7 carries a real millisecond timestamp inside the requested window', () => {
    const min = new Date('2024-01-01T00:00:00Z');
    const max = new Date('2024-12-31T00:00:00Z');
    const arb = uuidV7Arb({ min, max });
    expectDeterministic(arb);
    expectAllValid(arb, check('UuidV7'), 1000);
    for (const id of sample(arb, SEED, 200)) {
      const t = uuidV7Time(id);
      expect(t).toBeGreaterThanOrEqual(min.getTime());
      expect(t).toBeLessThanOrEqual(max.getTime());
    }
  });

  it('E.164 numbers come in every length the schema allows', () => {
    const lengths = e164Lengths();
    expect(lengths.length).toBeGreaterThan(1);
    const arb = e164Arb();
    expectDeterministic(arb);
    expectAllValid(arb, check('E164PhoneNumber'), 1000);
    const seen = new Set(sample(arb, SEED, 1000).map((n) => n.length));
    expect([...seen].sort((a, b) => a - b)).toEqual(lengths);
  });

  it('client timestamps carry a numeric offset other than Z; response timestamps are UTC Z', () => {
    const client = clientTimestampArb();
    expectDeterministic(client);
    expectAllValid(client, check('ClientTimestamp'), 1000);
    for (const t of sample(client, SEED, 300)) expect(t).toMatch(/[+-]\d{2}:\d{2}$/);
    const utc = utcTimestampArb();
    expectAllValid(utc, check('Timestamp'), 1000);
    // The offset is real: the instant parses, and equals the local time minus the offset.
    for (const t of sample(client, SEED, 50)) expect(Number.isNaN(Date.parse(t))).toBe(false);
  });

  it('template variables have exactly the placeholder keys and schema-bounded values', () => {
    const arb = templateVariablesFor(['first_name', 'code']);
    expectDeterministic(arb);
    expectAllValid(arb, check('TemplateVariables'), 1000);
    for (const v of sample(arb, SEED, 100)) expect(Object.keys(v).sort()).toEqual(['code', 'first_name']);
  });

  it('recipients come only from the pool, and a bad pool is refused', () => {
    const pool = ['+15550100001', '+447700900123'];
    const arb = recipientsFrom(pool);
    expectDeterministic(arb);
    for (const n of sample(arb, SEED, 100)) expect(pool).toContain(n);
    expect(() => recipientsFrom([])).toThrow(GeneratorError);
    expect(() => recipientsFrom(['5550100'])).toThrow(GeneratorError);
  });
});
