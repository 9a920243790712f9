// One arbitrary per component schema of spec/openapi.yaml: the converter applied to
// jsonSchemaFor(name), with the domain refinements plugged in where a pattern says too little.
import fc from 'fast-check';
import { schemaNames, type SchemaName } from '../spec/contract.ts';
import { jsonSchemaFor } from '../spec/validators.ts';
import { clientTimestampArb, e164Arb, utcTimestampArb, uuidV7Arb } from './domain.ts';
import { arbitraryFromSchema, type ConvertOptions } from './from-schema.ts';

/** Components replaced by a refined arbitrary wherever they are referenced. */
export function domainRefinements(): Partial<Record<SchemaName, fc.Arbitrary<unknown>>> {
  return {
    UuidV7: uuidV7Arb(),
    E164PhoneNumber: e164Arb(),
    Timestamp: utcTimestampArb(),
    ClientTimestamp: clientTimestampArb({ zulu: true }),
  };
}

export interface SchemaArbOptions extends ConvertOptions {
  /** Use the domain refinements (default true); false gives the bare schema-derived arbitrary. */
  refine?: boolean;
}

/** Values of a component schema. */
export function schemaArb<T = unknown>(name: SchemaName, options: SchemaArbOptions = {}): fc.Arbitrary<T> {
  const { refine = true, ...convert } = options;
  const refinements = refine ? { ...domainRefinements(), ...convert.refinements } : convert.refinements;
  const own = refinements?.[name];
  if (own && !convert.overrides?.[''] && !convert.narrow?.[''] && !convert.constrain?.['']) return own as fc.Arbitrary<T>;
  return arbitraryFromSchema(jsonSchemaFor(name), { ...convert, refinements: refinements as ConvertOptions['refinements'] }) as fc.Arbitrary<T>;
}

export { schemaNames };
