// Single-violation requests: a valid request with exactly one thing wrong, and every answer the
// document allows for it. Bodies start from bulkRequestArb; bounds and enums are read from the
// schemas; statuses and codes come from the catalogue entry each case cites.
//
// Pointer convention (as spec/validators.ts reports failures): a JSON Pointer into the body that
// names the offending member itself. For a forbidden extra member or a missing required one that
// is `<object>/<member>` (ajv's instancePath is the object: kept as `objectPointer`, the member
// name as `property`). A oneOf failure sits at the object. `pointers` lists every pointer the
// validator reports for the case (a body with neither message nor template_id fails the oneOf
// at '' and each branch's `required` at /message and /template_id). Header and query cases
// point at the header or parameter name (as a problem's errors[].pointer does for parameters).
import fc from 'fast-check';
import type { ListingParamNames } from '../core/model.ts';
import { bulkBodyWithRecipientCount, bulkRequestArb, recipientCountBounds, type BulkRequestBody, type BulkRequestOptions } from './bulk-request.ts';
import { componentSchema, e164Arb, e164Lengths, recipientsFrom, templateValueMaxLength, uuidV7Arb } from './domain.ts';
import { ADDRESS_MEMBERS, phoneLikeRuns } from '../spec/phone-numbers.ts';
import { LAX_FORMS, laxFormsArb, showLax, type LaxForm } from './lax-forms.ts';
import { MALFORMED_JSON_FORMS, malformedJsonText } from './malformed-json.ts';
import { codePointLength, type SchemaObject } from './from-schema.ts';
import { parameterSchema } from './parameters.ts';
import { SENDER_REFUSED, VALIDATION_FAILED, type Location, type Outcome, type RequestParts, type RequirementId } from './cases.ts';

export interface InvalidCase {
  name: string;
  /** `schema`: the validator rejects it; `semantic`: schema-valid, refused by a service rule; `malformed`: not JSON at all. */
  kind: 'schema' | 'semantic' | 'malformed';
  request: RequestParts;
  in: Location;
  /** Primary pointer (see the convention above). */
  pointer: string;
  /** Every pointer the validator reports for this case (exactly these). */
  pointers: string[];
  /** For additionalProperties / required: the object ajv reports and the member concerned. */
  objectPointer?: string;
  property?: string;
  /** The violated keyword (`additionalProperties`, `maxLength`, `oneOf`, `x-semantic-limit`, `json`, ...). */
  keyword: string;
  /** Primary expected answer (= outcomes[0]). */
  status: number;
  code: string;
  /** Every answer the document allows (several where the catalogue lists readings). */
  outcomes: Outcome[];
  requirement: RequirementId;
  /** Fixtures the case needs against a real host (a template with placeholders). */
  requires: Array<'template'>;
}

/** An invalid X-Request-Id: it must be replaced by a generated one, never make the request fail. */
export interface RequestIdCase {
  name: string;
  request: RequestParts & { headers: Record<string, string> };
  header: 'X-Request-Id';
  value: string;
  /** The keyword of RequestId the value breaks. */
  keyword: string;
  expectation: 'replace';
  requirements: RequirementId[];
}

const SYNTHETIC_PLACEHOLDER = 'name';

function props(name: 'CreateSmsBulkMessageRequest' | 'BulkRecipient'): Record<string, SchemaObject> {
  return componentSchema(name).properties as Record<string, SchemaObject>;
}

function lengthOf(schema: SchemaObject, keyword: 'minLength' | 'maxLength'): number {
  const v = schema[keyword];
  if (typeof v !== 'number') throw new Error(`schema has no ${keyword}`);
  return v;
}

function make(c: Omit<InvalidCase, 'status' | 'code' | 'pointers' | 'requires'> & { pointers?: string[]; requires?: Array<'template'> }): InvalidCase {
  const first = c.outcomes[0]!;
  return { ...c, status: first.status, code: first.code ?? '', pointers: c.pointers ?? [c.pointer], requires: c.requires ?? [] };
}

function clone<T>(x: T): T {
  return structuredClone(x);
}

/** A member name the schema does not declare, nor one the host rail reads numbers from (a seed drew `to`). */
function extraName(declared: string[]): fc.Arbitrary<string> {
  return fc.stringMatching(/^[a-z][a-z_]{0,11}$/).filter((n) => !declared.includes(n) && !ADDRESS_MEMBERS.includes(n) && n !== '__proto__');
}

/** JSON values of no string or number type (numbers are a kind of their own: the usual coercion). */
const NOT_TEXT = fc.oneof(fc.boolean(), fc.constant(null), fc.constant([] as unknown), fc.constant({} as unknown));

const extraValue = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));

/** Text `length` long from the letters a-z (plain, header-safe). */
function letters(length: number): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), { minLength: length, maxLength: length }).map((cs) => cs.join(''));
}

/**
 * Strings that are not E.164 numbers, each failing its pattern or length in a different way, and
 * each undeliverable by construction: a lenient server that normalised it would reach no one
 * (too few or too many digits, a leading zero) or, for the spellings of a number (no plus, a
 * space), a number of `pool` (the run's allowlist). Without a pool those spell generated numbers.
 */
export function notE164(pool?: readonly string[]): fc.Arbitrary<string> {
  const lengths = e164Lengths();
  const min = Math.min(...lengths);
  const max = Math.max(...lengths);
  const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));
  const numbers = pool && pool.length > 0 ? recipientsFrom(pool) : e164Arb();
  return fc.oneof(
    numbers.map((n) => n.slice(1)), // no leading +
    digits(min - 1).map((d) => '+0' + d.slice(1)), // first digit 0
    digits(min - 3).map((d) => '+1' + d), // one too short
    digits(max - 1).map((d) => '+1' + d), // one too long
    digits(min - 1).map((d) => '+1' + d.slice(0, -2) + 'ab'), // letters, too few digits left
    numbers.map((n) => `${n.slice(0, 3)} ${n.slice(3)}`), // a space
  );
}

function templateOptions(options: BulkRequestOptions): { options: BulkRequestOptions; requires: Array<'template'> } {
  if (options.templateId && options.placeholders && options.placeholders.length > 0) {
    return { options: { ...options, content: 'template' }, requires: [] };
  }
  const templateId = options.templateId ?? fc.sample(uuidV7Arb(), { seed: 11, numRuns: 1 })[0]!;
  return { options: { ...options, templateId, placeholders: [SYNTHETIC_PLACEHOLDER], content: 'template' }, requires: ['template'] };
}

/** Where a JSON text can be cut so that what is left mentions no number (spec/phone-numbers.ts). */
function safeCuts(text: string): number[] {
  const cuts: number[] = [];
  for (let cut = 1; cut < text.length; cut++) if (phoneLikeRuns(text.slice(0, cut)).length === 0) cuts.push(cut);
  return cuts;
}

/** Picks an index into the recipients of a body. */
function withIndex(bodies: fc.Arbitrary<BulkRequestBody>): fc.Arbitrary<[BulkRequestBody, number]> {
  return bodies.chain((b) => fc.tuple(fc.constant(b), fc.integer({ min: 0, max: b.recipients.length - 1 })));
}

/**
 * Every optional member of the body and of a recipient entry sent as JSON null, one kind each: the
 * schema types none of them nullable, so null is an invalid value, never the member left out (blind
 * defect blind-null-message-ignored took `message: null` beside a template_id for no message).
 * Listed, so a budget can count them; invalidBulkCaseArbs derives the members from the schema and
 * refuses a list that drifted from it.
 */
export const OPTIONAL_MEMBER_NULL_KINDS = ['null: /message', 'null: /template_id', 'null: /recipients/*/template_variables'] as const;

/**
 * Every required member of the body left out, one kind each (not one sampled: blind defect
 * blind4-classification-defaulted accepted a body without classification, a schema default).
 * Listed, so a budget can count them; missingMemberCases derives them from the schema and refuses
 * a list that drifted from it.
 */
export const REQUIRED_MEMBER_MISSING_KINDS = ['missing: /from', 'missing: /classification', 'missing: /recipients'] as const;

/** One case per required member of the body left out. */
function missingMemberCases(anyBodies: fc.Arbitrary<BulkRequestBody>): Record<(typeof REQUIRED_MEMBER_MISSING_KINDS)[number], fc.Arbitrary<InvalidCase>> {
  const required = (componentSchema('CreateSmsBulkMessageRequest').required as string[] | undefined) ?? [];
  const listed = REQUIRED_MEMBER_MISSING_KINDS.map((k) => k.slice('missing: /'.length));
  if (required.length !== listed.length || required.some((m) => !listed.includes(m))) {
    throw new Error(`the required members of the body changed in the schema (${required.join(', ')}): update REQUIRED_MEMBER_MISSING_KINDS`);
  }
  const missing = (member: string) =>
    anyBodies.map((b) => {
      const body = clone(b) as unknown as Record<string, unknown>;
      delete body[member];
      return make({
        name: `body without ${member}`,
        kind: 'schema', in: 'body', request: { body },
        pointer: `/${member}`, objectPointer: '', property: member, keyword: 'required',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-BODY-FIELDS',
      });
    });
  return Object.fromEntries(REQUIRED_MEMBER_MISSING_KINDS.map((k) => [k, missing(k.slice('missing: /'.length))])) as Record<
    (typeof REQUIRED_MEMBER_MISSING_KINDS)[number],
    fc.Arbitrary<InvalidCase>
  >;
}

/** The optional members of the body ('/x') and of a recipient entry ('/recipients/*' + '/x'), from the schema. */
function optionalMembers(): string[] {
  const optional = (name: 'CreateSmsBulkMessageRequest' | 'BulkRecipient') => {
    const required = (componentSchema(name).required as string[] | undefined) ?? [];
    return Object.keys(props(name)).filter((m) => !required.includes(m));
  };
  return [...optional('CreateSmsBulkMessageRequest').map((m) => `/${m}`), ...optional('BulkRecipient').map((m) => `/recipients/*/${m}`)];
}

/**
 * Every string of the body a pattern or format constrains, as a position ('/recipients/*' for an
 * entry). Listed, so a budget can count them; laxPatternCases derives them from the schema and
 * refuses a list that drifted from it.
 */
export const LAX_PATTERN_POSITIONS = ['/template_id', '/recipients/*/to'] as const;
type LaxPosition = (typeof LAX_PATTERN_POSITIONS)[number];

/** One kind per pattern-constrained string of the body and lax form of it (generators/lax-forms.ts). */
export const LAX_PATTERN_KINDS = LAX_PATTERN_POSITIONS.flatMap((at) => LAX_FORMS.map((form) => `lax ${at}: ${form}` as const));

/** The submission's request schema, with a resolver of its `#/$defs/` references. */
function bulkRequestSchema(): { root: SchemaObject; resolve: (s: SchemaObject) => SchemaObject } {
  const root = componentSchema('CreateSmsBulkMessageRequest');
  const defs = (root.$defs ?? {}) as Record<string, SchemaObject>;
  const resolve = (s: SchemaObject): SchemaObject => (typeof s.$ref === 'string' ? resolve(defs[s.$ref.replace('#/$defs/', '')]!) : s);
  return { root, resolve };
}

/** The positions of the body's strings that carry a pattern or a format, walked from the schema. */
function patternPositions(): string[] {
  const { root, resolve } = bulkRequestSchema();
  const out: string[] = [];
  const walk = (schema: SchemaObject, at: string): void => {
    const s = resolve(schema);
    if (s.type === 'string' && (typeof s.pattern === 'string' || typeof s.format === 'string')) out.push(at);
    for (const [key, member] of Object.entries((s.properties ?? {}) as Record<string, SchemaObject>)) walk(member, `${at}/${key}`);
    if (s.items && typeof s.items === 'object') walk(s.items as SchemaObject, `${at}/*`);
  };
  walk(root, '');
  return out;
}

/**
 * Each pattern-constrained string of the body given each lax form of a valid value: the answers
 * the same as for any value outside the pattern (a number may also be accepted and counted bad,
 * as 'recipient: to not E.164').
 */
function laxPatternCases(
  anyBodies: fc.Arbitrary<BulkRequestBody>,
  templateBodies: fc.Arbitrary<BulkRequestBody>,
  templateRequires: Array<'template'>,
): Record<(typeof LAX_PATTERN_KINDS)[number], fc.Arbitrary<InvalidCase>> {
  const found = patternPositions();
  if (found.length !== LAX_PATTERN_POSITIONS.length || found.some((p) => !(LAX_PATTERN_POSITIONS as readonly string[]).includes(p))) {
    throw new Error(`the body's pattern-constrained strings changed in the schema (${found.join(', ')}): update LAX_PATTERN_POSITIONS`);
  }
  const pick = (forms: ReturnType<typeof laxFormsArb>, form: LaxForm) => forms.map((all) => all.find((f) => f.form === form)).filter((f): f is NonNullable<typeof f> => f !== undefined);
  const at = (position: LaxPosition, form: LaxForm): fc.Arbitrary<InvalidCase> => {
    if (position === '/template_id') {
      return templateBodies.chain((b) =>
        pick(laxFormsArb(b.template_id!), form).map((lax) =>
          make({
            name: `template_id ${showLax(lax)}`,
            kind: 'schema', in: 'body', request: { body: { ...b, template_id: lax.value } },
            pointer: '/template_id', keyword: 'pattern',
            outcomes: [VALIDATION_FAILED], requirement: 'VAL-TEMPLATE-ID-FORMAT', requires: templateRequires,
          }),
        ),
      );
    }
    return withIndex(anyBodies).chain(([b, i]) =>
      pick(laxFormsArb(b.recipients[i]!.to), form).map((lax) => {
        const body = clone(b);
        body.recipients[i]!.to = lax.value;
        return make({
          name: `recipient ${i} to ${showLax(lax)}`,
          kind: 'schema', in: 'body', request: { body },
          pointer: `/recipients/${i}/to`, keyword: 'pattern',
          outcomes: [VALIDATION_FAILED, { status: 422, code: 'invalid_recipient' }, { status: 202, code: null }],
          requirement: 'VAL-INVALID-RECIPIENT',
        });
      }),
    );
  };
  return Object.fromEntries(
    LAX_PATTERN_POSITIONS.flatMap((position) => LAX_FORMS.map((form) => [`lax ${position}: ${form}`, at(position, form)])),
  ) as Record<(typeof LAX_PATTERN_KINDS)[number], fc.Arbitrary<InvalidCase>>;
}

/** Malformed JSON in each form a lenient parser lets through (generators/malformed-json.ts), one kind each. */
const MALFORMED_JSON_KINDS = MALFORMED_JSON_FORMS.map((form) => `body: malformed JSON, ${form}` as const);

/**
 * The kinds of single-violation submission, in the order each-kind-of-violation sends them: a list
 * rather than the keys of invalidBulkCaseArbs so a budget can count them without building the
 * arbitraries (that checks the run's inputs against the schemas, which loads ajv: `plan` does not).
 */
export const INVALID_BULK_KINDS = [
  'body: unknown member',
  'recipient: unknown member',
  'recipient: to missing',
  ...REQUIRED_MEMBER_MISSING_KINDS,
  'content: both message and template_id',
  'content: neither message nor template_id',
  'message: one past the maximum length',
  'message: one below the minimum length',
  'message: not a string',
  'message: a number',
  'from: one past the maximum length',
  'from: one below the minimum length',
  'classification: outside the enum',
  'classification: an enum value in another letter case',
  'recipients: empty',
  'recipients: not an array',
  'recipient: to not E.164',
  'template variable: one past the maximum length',
  'template variable: not a string',
  'template variable: a number',
  'template_id: not a UUIDv7',
  'body: not an object',
  'body: malformed JSON',
  ...MALFORMED_JSON_KINDS,
  'body: none',
  'recipients: one past the maximum count',
  'Idempotency-Key: one past the maximum length',
  'Idempotency-Key: one below the minimum length',
  'Idempotency-Key: missing',
  ...OPTIONAL_MEMBER_NULL_KINDS,
  'body: unknown member whose name needs escaping',
  'recipient: unknown member whose name needs escaping',
  ...LAX_PATTERN_KINDS,
] as const;
export type InvalidBulkKind = (typeof INVALID_BULK_KINDS)[number];

/** One arbitrary per kind of single-violation submission (body and headers). */
export function invalidBulkCaseArbs(options: BulkRequestOptions): Record<InvalidBulkKind, fc.Arbitrary<InvalidCase>> {
  const messageOpts: BulkRequestOptions = { ...options, content: 'message' };
  const messageBodies = bulkRequestArb({ ...messageOpts, count: options.count ?? { min: 1, max: 3 } });
  const anyBodies = bulkRequestArb({ ...options, count: options.count ?? { min: 1, max: 3 } });
  const tpl = templateOptions(options);
  const templateBodies = bulkRequestArb({ ...tpl.options, count: options.count ?? { min: 1, max: 3 } });
  const top = props('CreateSmsBulkMessageRequest');
  const item = props('BulkRecipient');
  const senderSchema = componentSchema('SenderId');
  const messageSchema = top.message!;
  const valueMax = templateValueMaxLength();
  const classifications = (componentSchema('MessageClassification').enum as string[]) ?? [];
  const { max: recipientMax } = recipientCountBounds();
  /** Bodies with a classification outside the enum (values of it are filtered out). */
  const classificationCases = (pairs: fc.Arbitrary<readonly [BulkRequestBody, string]>) =>
    pairs
      .filter(([, c]) => !classifications.includes(c))
      .map(([b, classification]) =>
        make({
          name: `classification "${classification}"`,
          kind: 'schema', in: 'body', request: { body: { ...b, classification } },
          pointer: '/classification', keyword: 'enum',
          outcomes: [VALIDATION_FAILED], requirement: 'VAL-CLASSIFICATION-ENUM',
        }),
      );
  /** A template-based body whose recipient's first variable is set to a non-string value. */
  const variableOfType = (values: fc.Arbitrary<unknown>) =>
    fc.tuple(withIndex(templateBodies), values).map(([[b, i], v]) => {
      const body = clone(b);
      const vars = body.recipients[i]!.template_variables! as Record<string, unknown>;
      const key = Object.keys(vars)[0]!;
      vars[key] = v;
      return make({
        name: `recipient ${i} template variable "${key}" = ${JSON.stringify(v)}`,
        kind: 'schema', in: 'body', request: { body },
        pointer: `/recipients/${i}/template_variables/${key}`, keyword: 'type',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-TEMPLATE-VARIABLE-LENGTH', requires: tpl.requires,
      });
    });

  const nullCases = nullMemberCases(messageBodies, templateBodies, anyBodies, tpl.requires);

  const keySchema = parameterSchema('createSmsBulkMessage', 'Idempotency-Key', 'header');
  const keyMax = lengthOf(keySchema, 'maxLength');
  const keyMin = lengthOf(keySchema, 'minLength');
  return {
    'body: unknown member': fc.tuple(anyBodies, extraName(Object.keys(top)), extraValue).map(([b, name, value]) =>
      make({
        name: `body with an unknown member "${name}"`,
        kind: 'schema', in: 'body', request: { body: { ...b, [name]: value } },
        pointer: `/${name}`, objectPointer: '', property: name, keyword: 'additionalProperties',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-BODY-FIELDS',
      }),
    ),
    'recipient: unknown member': fc.tuple(withIndex(anyBodies), extraName(Object.keys(item)), extraValue).map(([[b, i], name, value]) => {
      const body = clone(b);
      (body.recipients[i] as unknown as Record<string, unknown>)[name] = value;
      return make({
        name: `recipient ${i} with an unknown member "${name}"`,
        kind: 'schema', in: 'body', request: { body },
        pointer: `/recipients/${i}/${name}`, objectPointer: `/recipients/${i}`, property: name, keyword: 'additionalProperties',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-RECIPIENT-ITEM-FIELDS',
      });
    }),
    'recipient: to missing': withIndex(anyBodies).map(([b, i]) => {
      const body = clone(b);
      delete (body.recipients[i] as Partial<BulkRequestBody['recipients'][number]>).to;
      return make({
        name: `recipient ${i} without to`,
        kind: 'schema', in: 'body', request: { body },
        pointer: `/recipients/${i}/to`, objectPointer: `/recipients/${i}`, property: 'to', keyword: 'required',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-RECIPIENT-ITEM-FIELDS',
      });
    }),
    ...missingMemberCases(anyBodies),
    'content: both message and template_id': fc.tuple(messageBodies, uuidV7Arb()).map(([b, id]) =>
      make({
        name: 'body with both message and template_id',
        kind: 'schema', in: 'body', request: { body: { ...b, template_id: options.templateId ?? id } },
        pointer: '', keyword: 'oneOf',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-EXACTLY-ONE-CONTENT',
      }),
    ),
    'content: neither message nor template_id': messageBodies.map((b) => {
      const body = clone(b);
      delete body.message;
      return make({
        name: 'body with neither message nor template_id',
        kind: 'schema', in: 'body', request: { body },
        pointer: '', pointers: ['', '/message', '/template_id'], keyword: 'oneOf',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-EXACTLY-ONE-CONTENT',
      });
    }),
    'message: one past the maximum length': fc.tuple(messageBodies, letters(lengthOf(messageSchema, 'maxLength') + 1)).map(([b, m]) =>
      make({
        name: `message of ${codePointLength(m)} characters`,
        kind: 'schema', in: 'body', request: { body: { ...b, message: m } },
        pointer: '/message', keyword: 'maxLength',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-MESSAGE-LENGTH',
      }),
    ),
    'message: one below the minimum length': fc.tuple(messageBodies, letters(lengthOf(messageSchema, 'minLength') - 1)).map(([b, m]) =>
      make({
        name: `message of ${codePointLength(m)} characters`,
        kind: 'schema', in: 'body', request: { body: { ...b, message: m } },
        pointer: '/message', keyword: 'minLength',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-MESSAGE-LENGTH',
      }),
    ),
    'message: not a string': fc.tuple(messageBodies, NOT_TEXT).map(([b, m]) =>
      make({
        name: `message ${JSON.stringify(m)}`,
        kind: 'schema', in: 'body', request: { body: { ...b, message: m } },
        // A null message may be read as no message: the server then names the object (exactly one of message / template_id).
        pointer: '/message', ...(m === null ? { objectPointer: '', property: 'message' } : {}), keyword: 'type',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-BODY-FIELDS',
      }),
    ),
    'message: a number': fc.tuple(messageBodies, fc.integer()).map(([b, m]) =>
      make({
        name: `message ${JSON.stringify(m)}`,
        kind: 'schema', in: 'body', request: { body: { ...b, message: m } },
        pointer: '/message', keyword: 'type',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-BODY-FIELDS',
      }),
    ),
    'from: one past the maximum length': fc.tuple(anyBodies, letters(lengthOf(senderSchema, 'maxLength') + 1)).map(([b, from]) =>
      make({
        name: `from of ${from.length} characters`,
        kind: 'schema', in: 'body', request: { body: { ...b, from } },
        pointer: '/from', keyword: 'maxLength',
        outcomes: [VALIDATION_FAILED, ...SENDER_REFUSED], requirement: 'VAL-FROM-LENGTH',
      }),
    ),
    'from: one below the minimum length': fc.tuple(anyBodies, letters(lengthOf(senderSchema, 'minLength') - 1)).map(([b, from]) =>
      make({
        name: `from of ${from.length} characters`,
        kind: 'schema', in: 'body', request: { body: { ...b, from } },
        pointer: '/from', keyword: 'minLength',
        outcomes: [VALIDATION_FAILED, ...SENDER_REFUSED], requirement: 'VAL-FROM-LENGTH',
      }),
    ),
    'classification: outside the enum': classificationCases(
      fc.tuple(anyBodies, fc.oneof(fc.constantFrom(...classifications.map((c) => c.toUpperCase())), fc.stringMatching(/^[a-z]{1,12}$/))),
    ),
    // Blind defect blind-classification-case-insensitive: an enum is matched exactly, so every
    // value of it in another letter case (capitalised, upper, mixed) is outside it, always sent.
    'classification: an enum value in another letter case': classificationCases(
      fc
        .tuple(anyBodies, fc.constantFrom(...classifications), fc.array(fc.boolean(), { minLength: 1, maxLength: 32 }))
        .map(([b, value, flips]) => [b, [...value].map((ch, i) => (flips[i % flips.length] ? ch.toUpperCase() : ch.toLowerCase())).join('')] as [BulkRequestBody, string]),
    ),
    'recipients: empty': anyBodies.map((b) =>
      make({
        name: 'recipients is empty',
        kind: 'schema', in: 'body', request: { body: { ...b, recipients: [] } },
        pointer: '/recipients', keyword: 'minItems',
        outcomes: [VALIDATION_FAILED], requirement: 'RLIM-MIN-1',
      }),
    ),
    'recipients: not an array': fc.tuple(anyBodies, fc.oneof(fc.constant({}), fc.string({ maxLength: 8 }), fc.constant(null))).map(([b, r]) =>
      make({
        name: `recipients ${JSON.stringify(r)}`,
        kind: 'schema', in: 'body', request: { body: { ...b, recipients: r } },
        pointer: '/recipients', keyword: 'type',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-BODY-FIELDS',
      }),
    ),
    'recipient: to not E.164': fc.tuple(withIndex(anyBodies), notE164(options.pool)).map(([[b, i], to]) => {
      const body = clone(b);
      body.recipients[i]!.to = to;
      return make({
        name: `recipient ${i} to ${JSON.stringify(to)}`,
        kind: 'schema', in: 'body', request: { body },
        pointer: `/recipients/${i}/to`, keyword: 'pattern',
        outcomes: [VALIDATION_FAILED, { status: 422, code: 'invalid_recipient' }, { status: 202, code: null }],
        requirement: 'VAL-INVALID-RECIPIENT',
      });
    }),
    'template variable: one past the maximum length': fc.tuple(withIndex(templateBodies), letters(valueMax + 1)).map(([[b, i], v]) => {
      const body = clone(b);
      const key = Object.keys(body.recipients[i]!.template_variables!)[0]!;
      body.recipients[i]!.template_variables![key] = v;
      return make({
        name: `recipient ${i} template variable "${key}" of ${v.length} characters`,
        kind: 'schema', in: 'body', request: { body },
        pointer: `/recipients/${i}/template_variables/${key}`, keyword: 'maxLength',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-TEMPLATE-VARIABLE-LENGTH', requires: tpl.requires,
      });
    }),
    // Each class of non-string JSON value is a kind of its own, so each is always sent (blind
    // defect blind-template-variable-non-string-accepted took numbers as their text).
    'template variable: not a string': variableOfType(NOT_TEXT),
    'template variable: a number': variableOfType(fc.integer()),
    'template_id: not a UUIDv7': fc
      .tuple(templateBodies, fc.oneof(fc.uuid({ version: [1, 4, 6, 8] }), fc.stringMatching(/^[a-z0-9-]{1,36}$/)))
      .filter(([, id]) => !new RegExp(componentSchema('UuidV7').pattern as string, 'u').test(id))
      .map(([b, id]) =>
        make({
          name: `template_id ${JSON.stringify(id)}`,
          kind: 'schema', in: 'body', request: { body: { ...b, template_id: id } },
          pointer: '/template_id', keyword: 'pattern',
          outcomes: [VALIDATION_FAILED], requirement: 'VAL-TEMPLATE-ID-FORMAT', requires: tpl.requires,
        }),
      ),
    // A JSON text that is no object: many parsers refuse it as malformed, so errors[] is not required.
    'body: not an object': fc.oneof(fc.constant([] as unknown), fc.constant('text'), fc.integer(), fc.constant(null)).map((body) =>
      make({
        name: `body ${JSON.stringify(body)}`,
        kind: 'malformed', in: 'body', request: { body },
        pointer: '', keyword: 'type',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-BODY-FIELDS',
      }),
    ),
    // Cut where the text so far names no number at all (nor a piece of one that still reads as a
    // number): a lenient server can deliver nothing from it, so it runs on any host.
    'body: malformed JSON': anyBodies.chain((b) => {
      const text = JSON.stringify(b);
      const cuts = safeCuts(text);
      return fc.constantFrom(...cuts).map((cut) =>
        make({
          name: `body cut after ${cut} of ${text.length} characters`,
          kind: 'malformed', in: 'body', request: { rawBody: text.slice(0, cut) },
          pointer: '', keyword: 'json',
          outcomes: [VALIDATION_FAILED], requirement: 'VAL-MALFORMED-JSON',
        }),
      );
    }),
    // Blind defect blind7-json-trailing-comma-accepted: every form a lenient parser reads, from a valid body.
    ...Object.fromEntries(
      MALFORMED_JSON_FORMS.map((form) => [
        `body: malformed JSON, ${form}`,
        anyBodies.map((b) =>
          make({
            name: `body with ${form}`,
            kind: 'malformed', in: 'body', request: { rawBody: malformedJsonText(b, form) },
            pointer: '', keyword: 'json',
            outcomes: [VALIDATION_FAILED], requirement: 'VAL-MALFORMED-JSON',
          }),
        ),
      ]),
    ) as Record<(typeof MALFORMED_JSON_KINDS)[number], fc.Arbitrary<InvalidCase>>,
    'body: none': fc.constant(
      make({
        name: 'no body',
        kind: 'malformed', in: 'body', request: { rawBody: '' },
        pointer: '', keyword: 'required',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-BODY-REQUIRED',
      }),
    ),
    'recipients: one past the maximum count': bulkBodyWithRecipientCount(recipientMax + 1, options).map((body) =>
      make({
        name: `${body.recipients.length} recipients`,
        kind: 'semantic', in: 'body', request: { body },
        pointer: '/recipients', keyword: 'x-semantic-limit',
        outcomes: [recipientLimitOutcome()], requirement: 'RLIM-MAX-1000',
      }),
    ),
    // Headers: a valid body with one header wrong.
    'Idempotency-Key: one past the maximum length': fc.tuple(anyBodies, letters(keyMax + 1)).map(([body, key]) =>
      make({
        name: `Idempotency-Key of ${key.length} characters`,
        kind: 'schema', in: 'header', request: { body, headers: { 'Idempotency-Key': key } },
        pointer: 'Idempotency-Key', keyword: 'maxLength',
        outcomes: [VALIDATION_FAILED], requirement: 'IDEM-KEY-LENGTH',
      }),
    ),
    'Idempotency-Key: one below the minimum length': fc.tuple(anyBodies, letters(keyMin - 1)).map(([body, key]) =>
      make({
        name: `Idempotency-Key of ${key.length} characters`,
        kind: 'schema', in: 'header', request: { body, headers: { 'Idempotency-Key': key } },
        pointer: 'Idempotency-Key', keyword: 'minLength',
        outcomes: [VALIDATION_FAILED], requirement: 'IDEM-KEY-LENGTH',
      }),
    ),
    'Idempotency-Key: missing': anyBodies.map((body) =>
      make({
        name: 'no Idempotency-Key',
        kind: 'schema', in: 'header', request: { body, headers: { 'Idempotency-Key': null } },
        pointer: 'Idempotency-Key', keyword: 'required',
        outcomes: [VALIDATION_FAILED], requirement: 'IDEM-KEY-REQUIRED',
      }),
    ),
    ...nullCases,
    // Blind defect blind3-pointer-slash-unescaped: errors[].pointer is a JSON Pointer (7), so a
    // member name holding "/" and "~" (and "~1", which must not be read back as "/") is escaped.
    'body: unknown member whose name needs escaping': fc.tuple(anyBodies, escapedName, extraValue).map(([b, name, value]) =>
      make({
        name: `body with an unknown member ${JSON.stringify(name)}`,
        kind: 'schema', in: 'body', request: { body: { ...b, [name]: value } },
        pointer: `/${pointerToken(name)}`, objectPointer: '', property: name, keyword: 'additionalProperties',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-BODY-FIELDS',
      }),
    ),
    'recipient: unknown member whose name needs escaping': fc.tuple(withIndex(anyBodies), escapedName, extraValue).map(([[b, i], name, value]) => {
      const body = clone(b);
      (body.recipients[i] as unknown as Record<string, unknown>)[name] = value;
      return make({
        name: `recipient ${i} with an unknown member ${JSON.stringify(name)}`,
        kind: 'schema', in: 'body', request: { body },
        pointer: `/recipients/${i}/${pointerToken(name)}`, objectPointer: `/recipients/${i}`, property: name, keyword: 'additionalProperties',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-RECIPIENT-ITEM-FIELDS',
      });
    }),
    ...laxPatternCases(anyBodies, templateBodies, tpl.requires),
  };
}

/** A member name holding the two characters RFC 6901 escapes, "~1" among them: `a~1b/c`. */
const escapedName = fc.tuple(letters(2), letters(2), letters(2)).map(([a, b, c]) => `${a}~1${b}/${c}`);

function recipientLimitOutcome(): Outcome {
  const recipients = props('CreateSmsBulkMessageRequest').recipients!;
  const limit = recipients['x-semantic-limit'] as SchemaObject;
  return { status: limit.status as number, code: limit.code as string };
}

/**
 * Any single-violation submission. The lax forms of a pattern (LAX_PATTERN_KINDS) are left out:
 * each-kind-of-violation sends every one of them, and drawing among them too would thin out the
 * draws of the other kinds.
 */
export function invalidBulkCaseArb(options: BulkRequestOptions): fc.Arbitrary<InvalidCase> {
  const lax = new Set<string>(LAX_PATTERN_KINDS);
  return fc.oneof(...Object.entries(invalidBulkCaseArbs(options)).filter(([kind]) => !lax.has(kind)).map(([, arb]) => arb));
}

// ---- the recipient listing's query ----------------------------------------------------------

/** One arbitrary per kind of single-violation listing query, under the run's parameter names. */
export function invalidListingCaseArbs(names: ListingParamNames): Record<string, fc.Arbitrary<InvalidCase>> {
  const op = 'listSmsBulkMessageRecipients' as const;
  const limit = parameterSchema(op, 'limit', 'query');
  const min = limit.minimum as number;
  const max = limit.maximum as number;
  const q = (name: string, value: string): RequestParts => ({ query: [[name, value]] });
  const filterOutcomes: Outcome[] = [VALIDATION_FAILED, { status: 200, code: null }];
  const statusEnum = (parameterSchema(op, 'status', 'query').enum as string[]) ?? [];
  return {
    'limit: one past the maximum': fc.constant(
      make({ name: `${names.limit}=${max + 1}`, kind: 'schema', in: 'query', request: q(names.limit, String(max + 1)), pointer: names.limit, keyword: 'maximum', outcomes: [VALIDATION_FAILED], requirement: 'CUR-MAX-LIMIT' }),
    ),
    'limit: above the maximum': fc.integer({ min: max + 1, max: 1_000_000 }).map((n) =>
      make({ name: `${names.limit}=${n}`, kind: 'schema', in: 'query', request: q(names.limit, String(n)), pointer: names.limit, keyword: 'maximum', outcomes: [VALIDATION_FAILED], requirement: 'CUR-MAX-LIMIT' }),
    ),
    'limit: below the minimum': fc.integer({ min: -1000, max: min - 1 }).map((n) =>
      make({ name: `${names.limit}=${n}`, kind: 'schema', in: 'query', request: q(names.limit, String(n)), pointer: names.limit, keyword: 'minimum', outcomes: [VALIDATION_FAILED], requirement: 'CUR-LIMIT-INVALID' }),
    ),
    'limit: not an integer': fc
      .oneof(fc.constantFrom('1.5', 'abc', 'ten', '1e', '0x10'), fc.stringMatching(/^[a-z]{1,6}$/))
      .map((v) =>
        make({ name: `${names.limit}=${v}`, kind: 'schema', in: 'query', request: q(names.limit, v), pointer: names.limit, keyword: 'type', outcomes: [VALIDATION_FAILED], requirement: 'CUR-LIMIT-INVALID' }),
      ),
    'cursor: empty': fc.constant(
      make({
        name: `${names.cursor}= (empty)`, kind: 'schema', in: 'query', request: q(names.cursor, ''), pointer: names.cursor, keyword: 'minLength',
        outcomes: [VALIDATION_FAILED, { status: 200, code: null }], requirement: 'CUR-EMPTY',
      }),
    ),
    'cursor: not issued by the server': fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/).map((c) =>
      make({
        name: `${names.cursor}=${c}`, kind: 'semantic', in: 'query', request: q(names.cursor, c), pointer: names.cursor, keyword: 'x-cursor',
        outcomes: [VALIDATION_FAILED], requirement: 'CUR-INVALID',
      }),
    ),
    'status: outside the enum': fc
      .oneof(fc.constantFrom(...statusEnum.map((s) => s.toUpperCase()), 'pending', 'all'), fc.stringMatching(/^[a-z]{1,10}$/))
      .filter((s) => !statusEnum.includes(s))
      .map((s) =>
        make({ name: `${names.status}=${s}`, kind: 'schema', in: 'query', request: q(names.status, s), pointer: names.status, keyword: 'enum', outcomes: filterOutcomes, requirement: 'CUR-FILTER-UNKNOWN-VALUE' }),
      ),
    'to: not E.164': notE164().map((to) =>
      make({ name: `${names.to}=${to}`, kind: 'schema', in: 'query', request: q(names.to, to), pointer: names.to, keyword: 'pattern', outcomes: filterOutcomes, requirement: 'CUR-FILTER-UNKNOWN-VALUE' }),
    ),
  };
}

/** Any single-violation listing query. */
export function invalidListingCaseArb(names: ListingParamNames): fc.Arbitrary<InvalidCase> {
  return fc.oneof(...Object.values(invalidListingCaseArbs(names)));
}

// ---- X-Request-Id ---------------------------------------------------------------------------

/** Invalid client request ids (empty, too long, characters outside the pattern): each is replaced. */
export function requestIdReplacementArb(): fc.Arbitrary<RequestIdCase> {
  const schema = parameterSchema('createSmsBulkMessage', 'X-Request-Id', 'header');
  const max = lengthOf(schema, 'maxLength');
  const pattern = new RegExp(schema.pattern as string, 'u');
  // Visible ASCII the pattern refuses (header-safe, so the value reaches the server intact).
  const refused = [...Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i))].filter((c) => !pattern.test(c));
  const ok = fc.stringMatching(pattern, { maxLength: 12 });
  const kinds: Array<fc.Arbitrary<{ value: string; keyword: string }>> = [
    fc.constant({ value: '', keyword: 'minLength' }),
    letters(max + 1).map((value) => ({ value, keyword: 'maxLength' })),
    fc.tuple(ok, fc.constantFrom(...refused), ok).map(([a, c, b]) => ({ value: a + c + b, keyword: 'pattern' })),
    fc.tuple(ok, ok).map(([a, b]) => ({ value: `${a} ${b}`, keyword: 'pattern' })),
  ];
  return fc.oneof(...kinds).map(({ value, keyword }) => ({
    name: `X-Request-Id ${JSON.stringify(value.length > 40 ? value.slice(0, 20) + '...' : value)} (${keyword})`,
    request: { headers: { 'X-Request-Id': value } },
    header: 'X-Request-Id' as const,
    value,
    keyword,
    expectation: 'replace' as const,
    requirements: ['RID-REPLACE-INVALID', 'RID-INVALID-NOT-REJECTED'] as RequirementId[],
  }));
}

/** One case per optional member sent as null, beside what keeps the rest of the body valid. */
function nullMemberCases(
  messageBodies: fc.Arbitrary<BulkRequestBody>,
  templateBodies: fc.Arbitrary<BulkRequestBody>,
  anyBodies: fc.Arbitrary<BulkRequestBody>,
  templateRequires: Array<'template'>,
): Record<(typeof OPTIONAL_MEMBER_NULL_KINDS)[number], fc.Arbitrary<InvalidCase>> {
  const members = optionalMembers();
  const listed = OPTIONAL_MEMBER_NULL_KINDS.map((k) => k.slice('null: '.length));
  if (members.length !== listed.length || members.some((m) => !listed.includes(m))) {
    throw new Error(`the optional members of the body changed in the schema (${members.join(', ')}): update OPTIONAL_MEMBER_NULL_KINDS`);
  }
  /** message and template_id: null beside the other one, which makes the body valid on its own. */
  const contentNull = (member: 'message' | 'template_id', bodies: fc.Arbitrary<BulkRequestBody>, requires: Array<'template'>) =>
    bodies.map((b) =>
      make({
        name: `body with ${member} null beside ${member === 'message' ? 'template_id' : 'message'}`,
        kind: 'schema', in: 'body', request: { body: { ...b, [member]: null } },
        // Both branches of exactly-one hold (a member given as null is given), and null is no string.
        pointer: '', pointers: ['', `/${member}`], keyword: 'oneOf',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-EXACTLY-ONE-CONTENT', requires,
      }),
    );
  return {
    'null: /message': contentNull('message', templateBodies, templateRequires),
    'null: /template_id': contentNull('template_id', messageBodies, []),
    'null: /recipients/*/template_variables': withIndex(anyBodies).map(([b, i]) => {
      const body = clone(b);
      (body.recipients[i] as unknown as Record<string, unknown>).template_variables = null;
      return make({
        name: `recipient ${i} with template_variables null`,
        kind: 'schema', in: 'body', request: { body },
        pointer: `/recipients/${i}/template_variables`, keyword: 'type',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-RECIPIENT-ITEM-FIELDS',
      });
    }),
  };
}

// ---- every member given every other JSON type ------------------------------------------------

/** The JSON types a schema can name (integer is a number to JSON). */
const JSON_TYPES = ['null', 'boolean', 'number', 'string', 'array', 'object'] as const;
type JsonType = (typeof JSON_TYPES)[number];

/**
 * A value of `type` made from the valid `value` it replaces, so a lenient server has something to
 * make of it: an array becomes its first item (which a server could wrap back), any value an array
 * of itself (which it could unwrap) but an object the empty array (which a typeof-object test takes
 * for an empty map), anything not text its JSON text (which it could parse).
 */
function ofType(type: JsonType, value: unknown): unknown {
  switch (type) {
    case 'null': return null;
    case 'boolean': return true;
    case 'number': return 1;
    case 'string': return JSON.stringify(value);
    case 'array': return isPlainObject(value) ? [] : [value];
    case 'object': return Array.isArray(value) && value.length > 0 ? value[0] : {};
  }
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** RFC 6901: `~` as `~0`, `/` as `~1`. */
const pointerToken = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Every position of a valid submission body (the body itself, each member, the first recipient
 * entry, each member of it, each template variable) given each JSON type its schema does not allow, one case each:
 * 400 validation_failed naming that position (or, for null read as absent, the object holding it).
 * Positions and types come from the CreateSmsBulkMessageRequest schema, walked along `body`.
 */
export function wrongTypeCases(body: BulkRequestBody, requires: Array<'template'> = []): InvalidCase[] {
  const { root, resolve } = bulkRequestSchema();
  const cases: InvalidCase[] = [];
  // The body's root given each JSON type but an object (blind defect blind5-null-body-500 read a
  // null body as an object): refused as a malformed request, never a 5xx. A parser may refuse it
  // before any field is read, so errors[] is not required (kind 'malformed').
  const rootType = resolve(root).type === 'integer' ? 'number' : (resolve(root).type as JsonType);
  for (const type of JSON_TYPES) {
    if (type === rootType) continue;
    const wrong = ofType(type, body);
    cases.push(
      make({
        name: `the body given as ${type} ${JSON.stringify(wrong).slice(0, 60)}`,
        kind: 'malformed', in: 'body', request: { body: wrong },
        pointer: '', keyword: 'type',
        outcomes: [VALIDATION_FAILED], requirement: 'VAL-BODY-FIELDS', requires,
      }),
    );
  }
  const walk = (value: unknown, schema: SchemaObject, at: string[], parent: string): void => {
    const s = resolve(schema);
    const pointer = at.map((p) => `/${pointerToken(p)}`).join('');
    if (at.length > 0 && typeof s.type === 'string') {
      const allowed = s.type === 'integer' ? 'number' : (s.type as JsonType);
      const requirement: RequirementId = at[0] !== 'recipients' || at.length === 1 ? 'VAL-BODY-FIELDS' : at[2] === 'template_variables' && at.length === 4 ? 'VAL-TEMPLATE-VARIABLE-LENGTH' : 'VAL-RECIPIENT-ITEM-FIELDS';
      for (const type of JSON_TYPES) {
        if (type === allowed) continue;
        const wrong = ofType(type, value);
        const sent = structuredClone(body) as unknown as Record<string, unknown>;
        let holder: Record<string, unknown> | unknown[] = sent;
        for (const p of at.slice(0, -1)) holder = (holder as Record<string, unknown>)[p] as Record<string, unknown>;
        (holder as Record<string, unknown>)[at[at.length - 1]!] = wrong;
        cases.push(
          make({
            name: `${pointer} given as ${type} ${JSON.stringify(wrong)}`,
            kind: 'schema', in: 'body', request: { body: sent },
            pointer, objectPointer: parent, property: at[at.length - 1]!, keyword: 'type',
            outcomes: [VALIDATION_FAILED], requirement, requires,
          }),
        );
      }
    }
    if (isPlainObject(value)) {
      const props = (s.properties ?? {}) as Record<string, SchemaObject>;
      const extra = isPlainObject(s.additionalProperties) ? (s.additionalProperties as SchemaObject) : undefined;
      for (const [key, member] of Object.entries(value)) {
        const memberSchema = props[key] ?? extra;
        if (memberSchema) walk(member, memberSchema, [...at, key], pointer);
      }
      // An optional member the body leaves out is a position too (template_variables of a
      // message body), walked with the empty object it may be; not where a oneOf makes the
      // members' presence count (the body's message / template_id).
      if (s.oneOf === undefined) {
        for (const [key, member] of Object.entries(props)) {
          if (!(key in value) && resolve(member).type === 'object') walk({}, member, [...at, key], pointer);
        }
      }
    } else if (Array.isArray(value) && value.length > 0 && isPlainObject(s.items)) {
      walk(value[0], s.items as SchemaObject, [...at, '0'], pointer);
    }
  };
  walk(body, root, [], '');
  return cases;
}
