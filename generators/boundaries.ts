// Boundary values: for every bounded field of a request, the value at each bound (valid) and
// one past it (invalid). Bounds are read from the schemas (minLength, maxLength, minimum,
// maximum, minItems, maxItems and the x-semantic-limit quotas), never restated here.
import fc from 'fast-check';
import type { OperationId, SchemaName } from '../spec/contract.ts';
import type { ListingParamNames } from '../core/model.ts';
import { jsonSchemaFor } from '../spec/validators.ts';
import { bulkBodyWithRecipientCount, bulkRequestArb, type BulkRequestBody, type BulkRequestOptions } from './bulk-request.ts';
import { GeneratorError, plainText, uuidV7Arb } from './domain.ts';
import { arbitraryFromSchema, codePointLength, isSchemaObject, resolvePointer, semanticLimitKeywords, type SchemaObject } from './from-schema.ts';
import { parameterSchema } from './parameters.ts';
import { domainRefinements } from './schemas.ts';
import { SENDER_REFUSED, VALIDATION_FAILED, type Location, type Outcome, type RequestParts, type RequirementId } from './cases.ts';

export type BoundKeyword = 'minLength' | 'maxLength' | 'minimum' | 'maximum' | 'minItems' | 'maxItems';

/** A bounded field found in a schema. */
export interface FieldBound {
  /** Instance pointer; `*` stands for any array index or dictionary key. */
  pointer: string;
  /** JSON pointer of the field's schema inside jsonSchemaFor(root). */
  schemaPath: string;
  keyword: BoundKeyword;
  limit: number;
  /** Set when the bound is a quota the service enforces with a problem, not a schema keyword. */
  semantic?: Outcome;
  /** Set when no keyword writes the bound: a string's minimum 0 when it has no minLength. */
  implicit?: true;
}

const BOUND_KEYWORDS: BoundKeyword[] = ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'];


/** Every bounded field reachable from a component schema (properties, items, dictionary values). */
export function boundsOf(name: SchemaName): FieldBound[] {
  const root = jsonSchemaFor(name) as SchemaObject;
  const out: FieldBound[] = [];
  const walk = (schema: unknown, schemaPath: string, pointer: string, seen: string[]) => {
    if (!isSchemaObject(schema)) return;
    if (typeof schema.$ref === 'string') {
      if (seen.includes(schema.$ref)) return;
      const target = resolvePointer(root, schema.$ref);
      walk(target.schema, target.path, pointer, [...seen, schema.$ref]);
      return;
    }
    for (const keyword of BOUND_KEYWORDS) {
      if (typeof schema[keyword] === 'number') out.push({ pointer, schemaPath, keyword, limit: schema[keyword] as number });
    }
    // A free-text string with no minLength has the minimum 0: the empty string is valid (blind
    // defect blind-template-variable-empty-refused refused an empty template variable).
    if (schema.type === 'string' && schema.minLength === undefined && schema.pattern === undefined && schema.format === undefined && schema.enum === undefined) {
      out.push({ pointer, schemaPath, keyword: 'minLength', limit: 0, implicit: true });
    }
    const semantic = schema['x-semantic-limit'];
    if (isSchemaObject(semantic) && typeof semantic.status === 'number' && typeof semantic.code === 'string') {
      const keywords = semanticLimitKeywords(schema);
      for (const keyword of BOUND_KEYWORDS) {
        if (typeof keywords[keyword] === 'number') {
          out.push({ pointer, schemaPath, keyword, limit: keywords[keyword] as number, semantic: { status: semantic.status, code: semantic.code } });
        }
      }
    }
    if (isSchemaObject(schema.properties)) {
      for (const [prop, sub] of Object.entries(schema.properties)) {
        walk(sub, `${schemaPath}/properties/${prop}`, `${pointer}/${prop}`, seen);
      }
    }
    if (isSchemaObject(schema.items)) walk(schema.items, `${schemaPath}/items`, `${pointer}/*`, seen);
    if (isSchemaObject(schema.additionalProperties)) walk(schema.additionalProperties, `${schemaPath}/additionalProperties`, `${pointer}/*`, seen);
    if (Array.isArray(schema.allOf)) schema.allOf.forEach((s, i) => walk(s, `${schemaPath}/allOf/${i}`, pointer, seen));
  };
  walk(root, '', '', []);
  return out;
}

// ---- values of an exact length --------------------------------------------------------------

/**
 * Strings of exactly `length` code points built from the field's own arbitrary: a generated
 * value, padded by repeating its last character or cut. When the length is inside the bounds
 * the result is kept only if it still matches the field's pattern (and `keep`).
 */
export function stringOfLength(
  root: SchemaObject,
  schemaPath: string,
  length: number,
  keep: (s: string) => boolean = () => true,
): fc.Arbitrary<string> {
  const field = resolvePointer(root, '#' + schemaPath).schema as SchemaObject;
  const resolved = typeof field.$ref === 'string' ? (resolvePointer(root, field.$ref).schema as SchemaObject) : field;
  const pattern = typeof resolved.pattern === 'string' ? new RegExp(resolved.pattern, 'u') : undefined;
  const lo = typeof resolved.minLength === 'number' ? resolved.minLength : 0;
  const hi = typeof resolved.maxLength === 'number' ? resolved.maxLength : Number.POSITIVE_INFINITY;
  const inside = length >= lo && length <= hi;
  const base = arbitraryFromSchema(root, { refinements: domainRefinements() }, schemaPath) as fc.Arbitrary<string>;
  const fill = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz');
  return fc
    .tuple(base, fill)
    .map(([s, filler]) => {
      const chars = [...s];
      if (chars.length === 0) chars.push(filler);
      const last = chars[chars.length - 1]!;
      while (chars.length < length) chars.push(last);
      return chars.slice(0, length).join('');
    })
    .filter((s) => codePointLength(s) === length && (!inside || ((!pattern || pattern.test(s)) && keep(s))));
}

/**
 * Precomposed letters of the Basic Multilingual Plane, two or three bytes each in UTF-8 and one
 * code point and one UTF-16 unit each.
 */
const MULTI_BYTE = [...'éñüßçждлЖ€中文'];

/**
 * Characters outside the Basic Multilingual Plane, each one code point and one grapheme but four
 * UTF-8 bytes and two UTF-16 units (a surrogate pair, which is no character): a length counted in
 * bytes or in UTF-16 units counts them twice or more (blind defect blind4-message-length-utf16).
 */
const ASTRAL = [...'\u{1F600}\u{1F389}\u{1D11E}\u{20000}'];

/**
 * Text of exactly `length` characters, none of them ASCII (no whitespace to trim, no placeholder
 * braces), the first outside the Basic Multilingual Plane: only a count of characters (code
 * points, the document's unit) finds it within a bound it meets exactly.
 */
export function multiByteText(length: number): fc.Arbitrary<string> {
  if (length === 0) return fc.constant('');
  return fc
    .tuple(fc.constantFrom(...ASTRAL), fc.array(fc.constantFrom(...MULTI_BYTE, ...ASTRAL), { minLength: length - 1, maxLength: length - 1 }))
    .map(([first, cs]) => first + cs.join(''));
}

/** A string field with no pattern nor format: any characters count toward its length. */
function isFreeText(root: SchemaObject, schemaPath: string): boolean {
  const field = resolvePointer(root, '#' + schemaPath).schema as SchemaObject;
  const resolved = typeof field.$ref === 'string' ? (resolvePointer(root, field.$ref).schema as SchemaObject) : field;
  return resolved.type === 'string' && resolved.pattern === undefined && resolved.format === undefined;
}

// ---- the bulk submission body ---------------------------------------------------------------

export interface BoundaryCase {
  name: string;
  in: Location;
  /** Instance pointer of the field (body), or the header / query parameter name. */
  pointer: string;
  keyword: BoundKeyword;
  limit: number;
  /** The size or number the case puts at the field (limit, or one past it). */
  size: number;
  /** At the bound (true) or one past it (false). */
  valid: boolean;
  /** What must happen: accepted, rejected (with `outcomes`), or, for X-Request-Id, replaced. */
  expectation: 'accept' | 'reject' | 'replace';
  outcomes: Outcome[];
  /** Set when the bound is a quota, not a schema keyword: the validator accepts the value. */
  semantic: boolean;
  request: RequestParts;
  requirement: RequirementId;
  /** Fixtures the case needs against a real host (a template with placeholders). */
  requires: Array<'template'>;
}


/** Catalogue ids per body field, and extra outcomes where the catalogue lists several readings. */
const BODY_FIELD_RULES: Record<string, { requirement: RequirementId; invalidOutcomes?: Outcome[] }> = {
  '/from': { requirement: 'VAL-FROM-LENGTH', invalidOutcomes: [VALIDATION_FAILED, ...SENDER_REFUSED] },
  '/message': { requirement: 'VAL-MESSAGE-LENGTH' },
  '/recipients': { requirement: 'RLIM-MIN-1' },
  '/recipients/*/to': { requirement: 'VAL-INVALID-RECIPIENT', invalidOutcomes: [VALIDATION_FAILED, { status: 422, code: 'invalid_recipient' }, { status: 202, code: null }] },
  '/recipients/*/template_variables/*': { requirement: 'VAL-TEMPLATE-VARIABLE-LENGTH' },
};
const RECIPIENT_MAX_REQUIREMENT: { valid: RequirementId; invalid: RequirementId } = {
  valid: 'RLIM-AT-MAX-ACCEPTED',
  invalid: 'RLIM-MAX-1000',
};

const SYNTHETIC_PLACEHOLDER = 'name';

/** Options with a template filled in (a synthetic one when the run has none). */
function withTemplate(options: BulkRequestOptions): { options: BulkRequestOptions; synthetic: boolean } {
  if (options.templateId && options.placeholders && options.placeholders.length > 0) return { options, synthetic: false };
  const templateId = options.templateId ?? fc.sample(uuidV7Arb(), { seed: 7, numRuns: 1 })[0]!;
  return { options: { ...options, templateId, placeholders: [SYNTHETIC_PLACEHOLDER] }, synthetic: true };
}

function setAt(body: BulkRequestBody, pointer: string, value: unknown): BulkRequestBody {
  const copy = structuredClone(body) as unknown as Record<string, unknown>;
  const segs = pointer.split('/').slice(1);
  let node: Record<string, unknown> = copy;
  for (const s of segs.slice(0, -1)) node = node[s] as Record<string, unknown>;
  node[segs[segs.length - 1]!] = value;
  return copy as unknown as BulkRequestBody;
}

/**
 * Boundary cases of the bulk submission body, one arbitrary per case (the rest of the body is
 * a generated valid body). Names say the field, the bound and the size.
 */
export function bulkBoundaryCaseArbs(options: BulkRequestOptions): Record<string, fc.Arbitrary<BoundaryCase>> {
  const root = jsonSchemaFor('CreateSmsBulkMessageRequest') as SchemaObject;
  const out: Record<string, fc.Arbitrary<BoundaryCase>> = {};
  for (const bound of boundsOf('CreateSmsBulkMessageRequest')) {
    const rule = BODY_FIELD_RULES[bound.pointer];
    if (!rule) throw new GeneratorError('GEN_IMPOSSIBLE', `no catalogue rule for the bound of ${bound.pointer}`);
    const isMin = bound.keyword.startsWith('min');
    const sides = [
      { size: bound.limit, valid: true },
      { size: isMin ? bound.limit - 1 : bound.limit + 1, valid: false },
    ].filter((s) => s.size >= 0);
    for (const side of sides) {
      const needsTemplate = bound.pointer.includes('template_variables');
      const t = needsTemplate ? withTemplate(options) : { options, synthetic: false };
      const content: BulkRequestOptions['content'] = needsTemplate ? 'template' : bound.pointer === '/message' ? 'message' : undefined;
      const opts = { ...t.options, ...(content ? { content } : {}) };
      const key = opts.placeholders?.[0] ?? SYNTHETIC_PLACEHOLDER;
      const concrete = bound.pointer.replace('/recipients/*/template_variables/*', `/recipients/0/template_variables/${key}`).replace('/*/', '/0/');
      const outcomes = side.valid ? [] : bound.semantic ? [bound.semantic] : (rule.invalidOutcomes ?? [VALIDATION_FAILED]);
      const requirement =
        bound.pointer === '/recipients' && bound.keyword === 'maxItems'
          ? side.valid ? RECIPIENT_MAX_REQUIREMENT.valid : RECIPIENT_MAX_REQUIREMENT.invalid
          : rule.requirement;
      let bodies: fc.Arbitrary<BulkRequestBody>;
      if (bound.keyword === 'minItems' || bound.keyword === 'maxItems') {
        bodies = bulkBodyWithRecipientCount(side.size, opts);
      } else {
        const plain = bound.pointer === '/message' || needsTemplate ? plainText : () => true;
        // Free text is counted in characters: its values are multi-byte characters, so a count of
        // UTF-8 bytes (blind defect blind-message-length-in-bytes) cannot pass for one.
        let values = isFreeText(root, bound.schemaPath) ? multiByteText(side.size) : stringOfLength(root, bound.schemaPath, side.size, plain);
        if (bound.pointer === '/recipients/*/to' && side.valid && opts.pool) {
          // A valid number must come from the allowlist; one past the bound is undeliverable anyway.
          const fitting = opts.pool.filter((n) => codePointLength(n) === side.size);
          if (fitting.length === 0) continue;
          values = fc.constantFrom(...fitting);
        }
        bodies = fc.tuple(bulkRequestArb({ ...opts, count: { min: 1, max: 3 } }), values).map(([body, v]) => setAt(body, concrete, v));
      }
      // A schema-valid sender of another length is still not an authorized one: the run's own
      // sender is used when it has the length, otherwise the answer is 403 (4.1).
      let expectation: BoundaryCase['expectation'] = side.valid ? 'accept' : 'reject';
      let caseOutcomes = outcomes;
      let caseRequirement = requirement;
      if (bound.pointer === '/from' && side.valid) {
        if (codePointLength(options.senderId) === side.size) bodies = bodies.map((b) => ({ ...b, from: options.senderId }));
        else {
          expectation = 'reject';
          caseOutcomes = SENDER_REFUSED;
          caseRequirement = 'VAL-SENDER-AUTHORIZED';
        }
      }
      const name = `${concrete} ${bound.keyword} ${bound.limit}: ${side.size} (${side.valid ? 'at the bound' : 'one past'})`;
      const unit = bound.keyword.endsWith('Items') ? 'items' : 'characters';
      out[name] = bodies.map((body) => ({
        name: `${concrete}: ${side.size} ${unit} (${bound.keyword} ${bound.limit}, ${side.valid ? 'valid' : 'one past'})`,
        in: 'body' as const,
        pointer: concrete,
        keyword: bound.keyword,
        limit: bound.limit,
        size: side.size,
        valid: side.valid,
        expectation,
        outcomes: caseOutcomes,
        semantic: bound.semantic !== undefined,
        request: { body },
        requirement: caseRequirement,
        requires: t.synthetic ? ['template' as const] : [],
      }));
    }
  }
  return out;
}

// ---- headers --------------------------------------------------------------------------------

/** Characters a header value can carry unchanged (visible ASCII: no trimming, no encoding). */
const HEADER_SAFE = /^[\x21-\x7e]*$/;

const HEADER_RULES: Record<string, { requirement: RequirementId; validRequirement: RequirementId; expectation: 'reject' | 'replace' }> = {
  'Idempotency-Key': { requirement: 'IDEM-KEY-LENGTH', validRequirement: 'IDEM-KEY-LENGTH', expectation: 'reject' },
  'X-Request-Id': { requirement: 'RID-REPLACE-INVALID', validRequirement: 'RID-LENGTH-BOUNDARY', expectation: 'replace' },
};

/**
 * Boundary cases of the submission's headers. `unique` (e.g. api.idempotencyKey()) is put at
 * the start of every value long enough to hold it, so valid keys never collide across runs.
 */
export function headerBoundaryCaseArbs(unique = ''): Record<string, fc.Arbitrary<BoundaryCase>> {
  const op: OperationId = 'createSmsBulkMessage';
  const out: Record<string, fc.Arbitrary<BoundaryCase>> = {};
  for (const [header, rule] of Object.entries(HEADER_RULES)) {
    const schema = parameterSchema(op, header, 'header');
    const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
    for (const keyword of ['minLength', 'maxLength'] as const) {
      const limit = schema[keyword];
      if (typeof limit !== 'number') continue;
      const isMin = keyword === 'minLength';
      for (const side of [{ size: limit, valid: true }, { size: isMin ? limit - 1 : limit + 1, valid: false }]) {
        if (side.size < 0) continue;
        const safe = pattern ?? HEADER_SAFE;
        const chars = fc.constantFrom(...[...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.'].filter((c) => safe.test(c)));
        const prefix = HEADER_SAFE.test(unique) && (!pattern || pattern.test(unique)) && unique.length <= side.size ? unique : '';
        const values = fc
          .array(chars, { minLength: side.size - prefix.length, maxLength: side.size - prefix.length })
          .map((cs) => prefix + cs.join(''));
        const name = `${header}: ${side.size} characters (${keyword} ${limit}, ${side.valid ? 'valid' : 'one past'})`;
        out[name] = values.map((value) => ({
          name,
          in: 'header' as const,
          pointer: header,
          keyword,
          limit,
          size: side.size,
          valid: side.valid,
          expectation: side.valid ? ('accept' as const) : rule.expectation,
          outcomes: side.valid || rule.expectation === 'replace' ? [] : [VALIDATION_FAILED],
          semantic: false,
          request: { headers: { [header]: value } },
          requirement: side.valid ? rule.validRequirement : rule.requirement,
          requires: [],
        }));
      }
    }
  }
  return out;
}

// ---- the recipient listing's query ----------------------------------------------------------

/** Boundary cases of the listing's page size (and cursor length), under the run's parameter names. */
export function listingBoundaryCaseArbs(names: ListingParamNames): Record<string, fc.Arbitrary<BoundaryCase>> {
  const op: OperationId = 'listSmsBulkMessageRecipients';
  const out: Record<string, fc.Arbitrary<BoundaryCase>> = {};
  const limit = parameterSchema(op, 'limit', 'query');
  for (const keyword of ['minimum', 'maximum'] as const) {
    const bound = limit[keyword];
    if (typeof bound !== 'number') continue;
    const isMin = keyword === 'minimum';
    for (const side of [{ size: bound, valid: true }, { size: isMin ? bound - 1 : bound + 1, valid: false }]) {
      const name = `${names.limit}=${side.size} (${keyword} ${bound}, ${side.valid ? 'valid' : 'one past'})`;
      out[name] = fc.constant<BoundaryCase>({
        name,
        in: 'query',
        pointer: names.limit,
        keyword,
        limit: bound,
        size: side.size,
        valid: side.valid,
        expectation: side.valid ? 'accept' : 'reject',
        outcomes: side.valid ? [] : [VALIDATION_FAILED],
        semantic: false,
        request: { query: [[names.limit, String(side.size)]] },
        requirement: isMin ? 'CUR-LIMIT-INVALID' : 'CUR-MAX-LIMIT',
        requires: [],
      });
    }
  }
  return out;
}
