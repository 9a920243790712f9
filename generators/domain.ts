// Domain refinements: arbitraries narrower than their schema where a pattern alone says too
// little (real UUIDv7 timestamps, every E.164 length, RFC 3339 offsets, placeholder-bound
// template variables, recipients from the run's allowlist). Every bound they use is read from
// the schema (spec/validators.ts jsonSchemaFor); the tests check each value against validate().
import fc from 'fast-check';
import { jsonSchemaFor, validate } from '../spec/validators.ts';
import type { SchemaName } from '../spec/contract.ts';
import { arbitraryFromSchema, codePointLength, rfc3339Arb, type SchemaObject } from './from-schema.ts';

/** A generator that cannot be built from what it was given (bad pool, impossible length). */
export class GeneratorError extends Error {
  override readonly name = 'GeneratorError';
  constructor(
    readonly code: 'GEN_INVALID_POOL' | 'GEN_IMPOSSIBLE' | 'GEN_MISSING_INPUT',
    message: string,
  ) {
    super(message);
  }
}

/** The component schema as data (not a `$ref`), for reading its bounds. */
export function componentSchema(name: SchemaName): SchemaObject {
  return jsonSchemaFor(name) as SchemaObject;
}

function patternOf(name: SchemaName): RegExp {
  const p = componentSchema(name).pattern;
  if (typeof p !== 'string') throw new GeneratorError('GEN_IMPOSSIBLE', `${name} has no pattern`);
  return new RegExp(p, 'u');
}

// ---- UuidV7 ---------------------------------------------------------------------------------

export interface UuidV7Constraints {
  /** Earliest embedded time (default 2020-01-01). */
  min?: Date;
  /** Latest embedded time (default 2040-01-01). */
  max?: Date;
}

/**
 * RFC 9562 version 7: a 48-bit Unix millisecond timestamp, version nibble 7, variant 10, the
 * rest random. Lower case, as servers usually emit; the pattern also admits upper case.
 */
export function uuidV7Arb(constraints: UuidV7Constraints = {}): fc.Arbitrary<string> {
  const min = (constraints.min ?? new Date('2020-01-01T00:00:00Z')).getTime();
  const max = (constraints.max ?? new Date('2040-01-01T00:00:00Z')).getTime();
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const pattern = patternOf('UuidV7');
  return fc
    .record({
      ms: fc.integer({ min, max }),
      randA: fc.integer({ min: 0, max: 0xfff }),
      variant: fc.integer({ min: 0x8, max: 0xb }),
      randB1: fc.integer({ min: 0, max: 0xfff }),
      randB2: fc.integer({ min: 0, max: 0xffffff }),
      randB3: fc.integer({ min: 0, max: 0xffffff }),
    })
    .map(({ ms, randA, variant, randB1, randB2, randB3 }) => {
      const t = hex(ms, 12);
      return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${hex(randA, 3)}-${hex(variant, 1)}${hex(randB1, 3)}-${hex(randB2, 6)}${hex(randB3, 6)}`;
    })
    .filter((s) => pattern.test(s));
}

/** The Unix millisecond time embedded in a UUIDv7. */
export function uuidV7Time(id: string): number {
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}

// ---- E.164 ----------------------------------------------------------------------------------

/**
 * Every total length (with the `+`) that both the length bounds and the pattern of
 * E164PhoneNumber admit, found by probing the pattern with a number of each length.
 */
export function e164Lengths(): number[] {
  const schema = componentSchema('E164PhoneNumber');
  const pattern = patternOf('E164PhoneNumber');
  const lo = typeof schema.minLength === 'number' ? schema.minLength : 2;
  const hi = typeof schema.maxLength === 'number' ? schema.maxLength : 32;
  const lengths: number[] = [];
  for (let n = lo; n <= hi; n++) if (pattern.test('+1' + '2'.repeat(n - 2))) lengths.push(n);
  if (lengths.length === 0) throw new GeneratorError('GEN_IMPOSSIBLE', 'E164PhoneNumber admits no length');
  return lengths;
}

/** An E.164 number of exactly `length` characters (leading `+`, first digit 1-9). */
export function e164OfLength(length: number): fc.Arbitrary<string> {
  if (!e164Lengths().includes(length)) throw new GeneratorError('GEN_IMPOSSIBLE', `no E.164 number has ${length} characters`);
  return fc
    .tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length - 2, maxLength: length - 2 }))
    .map(([first, rest]) => `+${first}${rest.join('')}`);
}

/** E.164 numbers, every allowed length equally likely (a pattern alone favours none). */
export function e164Arb(): fc.Arbitrary<string> {
  const lengths = e164Lengths();
  // The length index first, so a counterexample also shrinks towards the shortest length.
  return fc.integer({ min: 0, max: lengths.length - 1 }).chain((i) => e164OfLength(lengths[i]!));
}

// ---- timestamps -----------------------------------------------------------------------------

/** Response timestamps: RFC 3339 in UTC with `Z` (the Timestamp schema). */
export function utcTimestampArb(): fc.Arbitrary<string> {
  const pattern = patternOf('Timestamp');
  return rfc3339Arb('utc').filter((s) => pattern.test(s));
}

/**
 * Client timestamps with an explicit numeric offset other than `Z` (ClientTimestamp admits
 * both; `zulu: true` mixes in `Z` too).
 */
export function clientTimestampArb(options: { zulu?: boolean } = {}): fc.Arbitrary<string> {
  const pattern = patternOf('ClientTimestamp');
  return rfc3339Arb(options.zulu ? 'any' : 'offset').filter((s) => pattern.test(s));
}

// ---- template variables ---------------------------------------------------------------------

/** The schema-derived arbitrary for one template variable value (TemplateVariables' values). */
export function templateValueArb(): fc.Arbitrary<string> {
  return arbitraryFromSchema(jsonSchemaFor('TemplateVariables'), {}, '/additionalProperties') as fc.Arbitrary<string>;
}

/** Upper bound of a template variable value, read from the schema. */
export function templateValueMaxLength(): number {
  const values = componentSchema('TemplateVariables').additionalProperties as SchemaObject;
  if (typeof values?.maxLength !== 'number') throw new GeneratorError('GEN_IMPOSSIBLE', 'TemplateVariables values are unbounded');
  return values.maxLength;
}

/** Whether a text holds the double braces placeholders are written in (4.1 rule 7). */
export function holdsPlaceholderSyntax(s: string): boolean {
  return s.includes('{{') || s.includes('}}');
}

/**
 * A value a renderer takes literally: not blank, no `{{`/`}}` (placeholder syntax), and not a
 * bare run of 4-10 digits (a live OTP code must not travel as a template variable).
 */
export function plainText(s: string): boolean {
  return s.trim().length > 0 && !holdsPlaceholderSyntax(s) && !/^\d{4,10}$/.test(s.trim());
}

// ---- message text a renderer would touch ---------------------------------------------------

/** What is laid into a plain message: markup of the document's placeholders and common escapes. */
export interface RendererMarkup {
  /** At least one double-brace placeholder, then other markup (in order). */
  tokens: string[];
  /** White space before and after the text (part of it, 4.1). */
  lead: string;
  trail: string;
}

/** A placeholder name as a template would write it. */
const placeholderNameArb = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);

/**
 * Markup a message may hold that a renderer or serializer would touch: placeholders in double
 * braces (4.1 rule 7), written tight or with inner spaces, braces left open or empty, and the
 * escapes of JSON, HTML and format strings, written as text. A message shows them as submitted.
 */
export function rendererMarkupArb(): fc.Arbitrary<RendererMarkup> {
  const placeholder = placeholderNameArb.chain((n) => fc.constantFrom(`{{${n}}}`, `{{ ${n} }}`));
  const other = fc.oneof(
    placeholder,
    placeholderNameArb.chain((n) => fc.constantFrom(`{{${n}`, `${n}}}`, '{{}}', `{{{${n}}}}`)),
    fc.constantFrom('\\n', '\\u00e9', '\\"', '"quoted"', '&amp;', '&lt;b&gt;', '<b>bold</b>', '%s', '$1', '${x}'),
  );
  const space = fc.constantFrom('', ' ', '  ', '\t', '\n');
  return fc.record({ tokens: fc.tuple(placeholder, fc.array(other, { maxLength: 3 })).map(([p, o]) => [p, ...o]), lead: space, trail: space });
}

/** `plain` with the markup laid in, cut (the plain part only) to at most `max` characters. */
export function withRendererMarkup(plain: string, markup: RendererMarkup, max: number): string {
  const chars = [...plain];
  const overhead = codePointLength(markup.lead + markup.trail + markup.tokens.join(' ')) + 2;
  const keep = chars.slice(0, Math.max(1, max - overhead));
  const half = Math.ceil(keep.length / 2);
  return `${markup.lead}${keep.slice(0, half).join('')} ${markup.tokens.join(' ')} ${keep.slice(half).join('')}${markup.trail}`;
}

/** The text with its markup characters taken out: what a target that refuses markup takes instead. */
export function withoutRendererMarkup(message: string): string {
  const stripped = message.replace(/[{}\\<>&%$"]/g, '');
  return stripped.trim().length > 0 ? stripped : 'text';
}

/**
 * Template variables whose keys are exactly `placeholders`, each value schema-derived (at most
 * the schema's maximum length) and plain text.
 */
export function templateVariablesFor(placeholders: readonly string[]): fc.Arbitrary<Record<string, string>> {
  const value = templateValueArb().filter(plainText);
  const model: Record<string, fc.Arbitrary<string>> = {};
  for (const p of placeholders) model[p] = value;
  return fc.record(model, { noNullPrototype: true });
}

// ---- recipients -----------------------------------------------------------------------------

/**
 * Recipients drawn only from `pool` (the run's allowlist against a real host). Every entry
 * must itself be a valid E164PhoneNumber: the run never sends to a number it made up.
 */
export function recipientsFrom(pool: readonly string[]): fc.Arbitrary<string> {
  if (pool.length === 0) throw new GeneratorError('GEN_INVALID_POOL', 'the recipient pool is empty');
  for (const n of pool) {
    if (validate('E164PhoneNumber', n).length > 0) {
      throw new GeneratorError('GEN_INVALID_POOL', `recipient pool entry ${JSON.stringify(n)} is not an E.164 number`);
    }
  }
  return fc.constantFrom(...pool);
}

/** Code-point length, as the schemas count it. */
export { codePointLength };
