// The generators' public surface: suites import from here.
export { arbitraryFromSchema, codePointLength, rfc3339Arb, UnsupportedSchemaError, type ConvertOptions, type JsonSchema } from './from-schema.ts';
export { schemaArb, domainRefinements, type SchemaArbOptions } from './schemas.ts';
export {
  GeneratorError,
  uuidV7Arb,
  uuidV7Time,
  e164Arb,
  e164Lengths,
  e164OfLength,
  utcTimestampArb,
  clientTimestampArb,
  templateVariablesFor,
  templateValueArb,
  recipientsFrom,
  plainText,
} from './domain.ts';
export {
  bulkRequestArb,
  bulkBodyWithRecipientCount,
  recipientCountBounds,
  type BulkRequestBody,
  type BulkRecipientBody,
  type BulkRequestOptions,
} from './bulk-request.ts';
export { boundsOf, bulkBoundaryCaseArbs, headerBoundaryCaseArbs, listingBoundaryCaseArbs, stringOfLength, type BoundaryCase, type FieldBound } from './boundaries.ts';
export {
  invalidBulkCaseArbs,
  invalidBulkCaseArb,
  invalidListingCaseArbs,
  invalidListingCaseArb,
  notE164,
  requestIdReplacementArb,
  type InvalidCase,
  type RequestIdCase,
} from './invalid.ts';
export { canonicalJson, spellJson, equalVariantsArb, differentVariantsArb, type DifferentVariant, type Spelling } from './equivalence.ts';
export { parameterSchema, parameterFailures, parameterRequired } from './parameters.ts';
export { sample, sampleEach, runParams } from './seed.ts';
export type { Outcome, RequestParts, Location } from './cases.ts';
