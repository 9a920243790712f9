// Converts the JSON Schema subset used in spec/ into fast-check arbitraries, so requests are
// derived from the same schemas the validators compile (a change to spec/ flows to both).
//
// Supported: type (also type arrays and OpenAPI 3.0 `nullable`), enum, const, pattern,
// minLength/maxLength, minimum/maximum (also exclusive), multipleOf, items/minItems/maxItems/
// uniqueItems, properties/required, additionalProperties (false, true or a schema),
// propertyNames, min/maxProperties, allOf, anyOf, oneOf (exactly one branch matches), not,
// $ref (local JSON pointers) and the formats date-time, date, uri, uri-reference and uuid.
// Anything else throws UnsupportedSchemaError: a generator that silently ignored a keyword
// would produce values the validator rejects.
import fc from 'fast-check';
import type { ValidateFunction } from 'ajv';
import { fullFormats, newAjv } from '../spec/ajv.ts';
import { isObject as isJsonObject } from '../core/json.ts';

export type JsonSchema = boolean | SchemaObject;
export interface SchemaObject {
  [keyword: string]: unknown;
}

export class UnsupportedSchemaError extends Error {
  override readonly name = 'UnsupportedSchemaError';
  readonly code = 'GEN_UNSUPPORTED_SCHEMA';
  constructor(
    readonly schemaPath: string,
    message: string,
  ) {
    super(`${message} (at ${schemaPath || '#'})`);
  }
}

/**
 * Instance paths are JSON pointers into the generated value; `*` matches any one segment
 * (array index or dictionary key): `/recipients/*\/to`.
 */
export type InstancePath = string;

export interface ConvertOptions {
  /** Bounds used only where the schema leaves a size unbounded. */
  caps?: { items?: number; length?: number; keys?: number };
  /** fast-check size for every collection and string (default fast-check's own). */
  size?: fc.SizeForArbitrary;
  /** Replaces the arbitrary at an instance path (a narrowing: its values must still be valid). */
  overrides?: Record<InstancePath, fc.Arbitrary<unknown>>;
  /** Replaces every `$ref` to a named component (last pointer segment) by a refined arbitrary. */
  refinements?: Record<string, fc.Arbitrary<unknown>>;
  /** Optional properties that are always generated, by instance path of the property. */
  require?: InstancePath[];
  /** Optional properties that are never generated, by instance path of the property. */
  omit?: InstancePath[];
  /**
   * Which oneOf/anyOf branch to generate at an instance path: its index, or the name of a
   * property the branch requires (e.g. `{ '': 'template_id' }`).
   */
  branch?: Record<InstancePath, number | string>;
  /**
   * Extra schema keywords merged (as a conjunction) into the schema at an instance path, e.g.
   * `{ '/recipients': { maxItems: 5 } }`: a narrowing that keeps every other rule of the schema.
   */
  constrain?: Record<InstancePath, SchemaObject>;
  /** Narrows the schema-derived arbitrary at an instance path (filter or map to a subset). */
  narrow?: Record<InstancePath, (arb: fc.Arbitrary<unknown>) => fc.Arbitrary<unknown>>;
  /** Unit of generated free strings (default printable ASCII, one code point per unit). */
  stringUnit?: 'grapheme-ascii' | 'binary' | 'grapheme-composite';
}

const DEFAULT_CAPS = { items: 8, length: 32, keys: 4 };

// The converter's own Ajv (oneOf exclusivity, `not`); the spec validators live in spec/.
type AjvLike = { compile(schema: object): ValidateFunction };

type Formats = Record<string, RegExp | ((s: string) => boolean) | { validate: unknown }>;
function formatCheck(name: string): ((s: string) => boolean) | undefined {
  const f = (fullFormats() as Formats)[name];
  if (f === undefined) return undefined;
  if (f instanceof RegExp) return (s) => f.test(s);
  if (typeof f === 'function') return f;
  const v = (f as { validate: unknown }).validate;
  if (v instanceof RegExp) return (s) => v.test(s);
  if (typeof v === 'function') return v as (s: string) => boolean;
  return undefined;
}

/** Code points, as JSON Schema (and Ajv) count string length. */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}


/** A schema (or sub-schema) given as an object. */
export const isSchemaObject = (x: unknown): x is SchemaObject => isJsonObject(x);

function escapeSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
function unescapeSegment(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Resolves a local JSON pointer `#/a/b` inside the root schema. */
export function resolvePointer(root: JsonSchema, ref: string): { schema: JsonSchema; path: string } {
  if (!ref.startsWith('#')) throw new UnsupportedSchemaError(ref, 'only local $ref (#/...) is supported');
  const pointer = decodeURIComponent(ref.slice(1));
  let node: unknown = root;
  if (pointer !== '') {
    for (const raw of pointer.split('/').slice(1)) {
      const seg = unescapeSegment(raw);
      if (!isSchemaObject(node) && !Array.isArray(node)) throw new UnsupportedSchemaError(ref, 'unresolvable $ref');
      node = (node as Record<string, unknown>)[seg];
      if (node === undefined) throw new UnsupportedSchemaError(ref, 'unresolvable $ref');
    }
  }
  return { schema: node as JsonSchema, path: pointer };
}

function refName(ref: string): string {
  const parts = ref.split('/');
  return unescapeSegment(parts[parts.length - 1] ?? '');
}

function pathMatches(pattern: string, segments: string[]): boolean {
  const want = pattern === '' ? [] : pattern.split('/').slice(1).map(unescapeSegment);
  if (want.length !== segments.length) return false;
  return want.every((w, i) => w === '*' || w === segments[i]);
}

const KNOWN_KEYWORDS = new Set([
  // validation keywords the converter honours
  'type', 'enum', 'const', 'pattern', 'minLength', 'maxLength', 'format',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'items', 'minItems', 'maxItems', 'uniqueItems',
  'properties', 'required', 'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties',
  'allOf', 'anyOf', 'oneOf', 'not', '$ref', 'nullable',
  // annotations and containers that do not constrain values
  '$schema', '$id', '$defs', 'definitions', 'components', 'title', 'description', 'examples', 'example',
  'default', 'deprecated', 'readOnly', 'writeOnly', '$comment', 'discriminator', 'xml', 'externalDocs',
]);

/**
 * The bounds of an `x-semantic-limit` (a quota the service enforces with a problem response)
 * as schema keywords: `maxEntries`/`minEntries` count array entries, like maxItems/minItems.
 */
export function semanticLimitKeywords(schema: SchemaObject): SchemaObject {
  const limit = schema['x-semantic-limit'];
  if (!isSchemaObject(limit)) return {};
  const out: SchemaObject = {};
  for (const [k, v] of Object.entries(limit)) {
    if (typeof v !== 'number') continue;
    if (k === 'maxEntries') out.maxItems = v;
    else if (k === 'minEntries') out.minItems = v;
    else if (['maxItems', 'minItems', 'maxLength', 'minLength', 'maximum', 'minimum', 'maxProperties', 'minProperties'].includes(k)) out[k] = v;
  }
  return out;
}

/** Merges `allOf` parts (and a chosen branch) into one schema: conjunction of their keywords. */
export function mergeSchemas(a: SchemaObject, b: SchemaObject, at: string): SchemaObject {
  const out: SchemaObject = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    if (prev === undefined) {
      out[k] = v;
      continue;
    }
    switch (k) {
      case 'required':
        out[k] = [...new Set([...(prev as string[]), ...(v as string[])])];
        break;
      case 'properties': {
        const merged: SchemaObject = { ...(prev as SchemaObject) };
        for (const [p, s] of Object.entries(v as SchemaObject)) {
          const old = merged[p];
          merged[p] = old === undefined ? s : { allOf: [old, s] };
        }
        out[k] = merged;
        break;
      }
      case 'minLength': case 'minItems': case 'minimum': case 'minProperties': case 'exclusiveMinimum':
        out[k] = Math.max(prev as number, v as number);
        break;
      case 'maxLength': case 'maxItems': case 'maximum': case 'maxProperties': case 'exclusiveMaximum':
        out[k] = Math.min(prev as number, v as number);
        break;
      case 'type': {
        const A = Array.isArray(prev) ? prev : [prev];
        const B = Array.isArray(v) ? v : [v];
        const both = A.filter((t) => B.includes(t) || (t === 'integer' && B.includes('number')));
        for (const t of B) if (t === 'integer' && A.includes('number') && !both.includes(t)) both.push(t);
        out[k] = both.length === 1 ? both[0] : both;
        break;
      }
      case 'enum':
        out[k] = (prev as unknown[]).filter((x) => (v as unknown[]).some((y) => JSON.stringify(y) === JSON.stringify(x)));
        break;
      case 'allOf':
        out[k] = [...(prev as unknown[]), ...(v as unknown[])];
        break;
      case 'additionalProperties':
        if (prev === false || v === false) out[k] = false;
        else if (prev === true) out[k] = v;
        else if (v !== true) out[k] = { allOf: [prev, v] };
        break;
      default:
        if (JSON.stringify(prev) !== JSON.stringify(v)) {
          // Two different patterns, items, oneOf ...: keep both as a conjunction.
          out.allOf = [...((out.allOf as unknown[]) ?? []), { [k]: v }];
        }
    }
  }
  void at;
  return out;
}

interface Ctx {
  root: JsonSchema;
  options: ConvertOptions;
  caps: typeof DEFAULT_CAPS;
  /** The converter's ajv, created at its first use (building an arbitrary needs none). */
  ajv: () => AjvLike;
  validators: Map<string, ValidateFunction>;
  refStack: string[];
  narrowing: Set<string>;
}

/**
 * A validator for the sub-schema at `schemaPath` of the root (for exclusivity and `not`), compiled
 * at its first use: building an arbitrary stays cheap (`plan` loads suites that build some).
 */
function validatorAt(ctx: Ctx, schema: JsonSchema, schemaPath: string): (v: unknown) => boolean {
  const compile = (): ValidateFunction => {
    let fn = ctx.validators.get(schemaPath);
    if (!fn) {
      // The sub-schema with the root's reference containers beside it, so its local $refs resolve.
      const host: SchemaObject = isSchemaObject(ctx.root) ? pick(ctx.root, ['components', '$defs', 'definitions']) : {};
      const compiled = isSchemaObject(schema) ? { ...stripContainers(schema), ...host } : schema;
      fn = ctx.ajv().compile(compiled as object);
      ctx.validators.set(schemaPath, fn);
    }
    return fn;
  };
  let fn: ValidateFunction | undefined;
  return (v) => (fn ??= compile())(v) as boolean;
}

function stripContainers(s: SchemaObject): SchemaObject {
  const { components: _c, $defs: _d, definitions: _e, $id: _i, $schema: _s, ...rest } = s;
  void _c; void _d; void _e; void _i; void _s;
  return rest;
}

function pick(o: SchemaObject, keys: string[]): SchemaObject {
  const out: SchemaObject = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

function typesOf(s: SchemaObject): string[] | undefined {
  let types: string[] | undefined;
  if (typeof s.type === 'string') types = [s.type];
  else if (Array.isArray(s.type)) types = [...(s.type as string[])];
  if (s.nullable === true && types && !types.includes('null')) types.push('null');
  return types;
}

function inferTypes(s: SchemaObject): string[] {
  if (s.properties || s.additionalProperties !== undefined || s.required || s.propertyNames) return ['object'];
  if (s.items || s.minItems !== undefined || s.maxItems !== undefined) return ['array'];
  if (s.pattern || s.minLength !== undefined || s.maxLength !== undefined || s.format) return ['string'];
  if (s.minimum !== undefined || s.maximum !== undefined || s.multipleOf !== undefined) return ['number'];
  return ['null', 'boolean', 'integer', 'string'];
}

// Compiled once per process and per root schema: conversions are frequent, compiling is not cheap.
let ajvInstance: AjvLike | undefined;
function sharedAjv(): AjvLike {
  if (!ajvInstance) {
    ajvInstance = newAjv({ strict: false, allErrors: false, validateFormats: true });
  }
  return ajvInstance;
}
const validatorsByRoot = new WeakMap<object, Map<string, ValidateFunction>>();
const validatorsByText = new Map<string, Map<string, ValidateFunction>>();
function validatorsFor(root: JsonSchema): Map<string, ValidateFunction> {
  if (typeof root === 'boolean') return new Map();
  let m = validatorsByRoot.get(root);
  if (!m) {
    // Equal roots (jsonSchemaFor builds a fresh object per call) share their validators.
    const text = JSON.stringify(root);
    m = validatorsByText.get(text) ?? new Map();
    validatorsByText.set(text, m);
    validatorsByRoot.set(root, m);
  }
  return m;
}

/** Converts `root` (or the sub-schema at `schemaPath` of it) into an arbitrary. */
export function arbitraryFromSchema(root: JsonSchema, options: ConvertOptions = {}, schemaPath = ''): fc.Arbitrary<unknown> {
  const ctx: Ctx = {
    root,
    options,
    caps: { ...DEFAULT_CAPS, ...options.caps },
    ajv: sharedAjv,
    validators: validatorsFor(root),
    refStack: [],
    narrowing: new Set(),
  };
  const start = schemaPath === '' ? root : resolvePointer(root, '#' + schemaPath).schema;
  return convert(ctx, start, schemaPath, []);
}

function convert(ctx: Ctx, schema: JsonSchema, at: string, path: string[]): fc.Arbitrary<unknown> {
  const override = Object.entries(ctx.options.overrides ?? {}).find(([p]) => pathMatches(p, path));
  if (override) return override[1];
  const key = path.join('\u0000') + '\u0001' + path.length;
  const narrow = Object.entries(ctx.options.narrow ?? {}).find(([p]) => pathMatches(p, path))?.[1];
  if (narrow && !ctx.narrowing.has(key)) {
    // Narrow once, at the outermost conversion of this path ($ref and allOf recurse on it).
    ctx.narrowing.add(key);
    try {
      return narrow(convert(ctx, schema, at, path));
    } finally {
      ctx.narrowing.delete(key);
    }
  }
  const extra = Object.entries(ctx.options.constrain ?? {}).filter(([p]) => pathMatches(p, path));
  if (extra.length > 0) {
    let base: SchemaObject = schema === true ? {} : schema === false ? { not: {} } : schema;
    for (const [, more] of extra) base = mergeSchemas(base, more, at);
    schema = base;
  }
  if (isSchemaObject(schema) && isSchemaObject(schema['x-semantic-limit'])) {
    // A bound the service enforces with a problem response rather than the schema (quotas):
    // valid values stay inside it.
    const { 'x-semantic-limit': _limit, ...rest } = schema;
    void _limit;
    schema = mergeSchemas(rest, semanticLimitKeywords(schema), at);
  }
  return convertSchema(ctx, schema, at, path);
}

function convertSchema(ctx: Ctx, schema: JsonSchema, at: string, path: string[]): fc.Arbitrary<unknown> {
  if (schema === true) return convert(ctx, {}, at, path);
  if (schema === false) throw new UnsupportedSchemaError(at, 'schema `false` admits no value');
  for (const k of Object.keys(schema)) {
    if (!KNOWN_KEYWORDS.has(k) && !k.startsWith('x-')) throw new UnsupportedSchemaError(at, `keyword "${k}" is not supported`);
  }

  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    const name = refName(ref);
    const refined = ctx.options.refinements?.[name];
    const { $ref: _r, ...siblings } = schema;
    void _r;
    const hasSiblings = Object.keys(siblings).some((k) => KNOWN_KEYWORDS.has(k) && !isAnnotation(k));
    if (refined && !hasSiblings) return refined;
    if (ctx.refStack.includes(ref)) throw new UnsupportedSchemaError(at, `recursive $ref ${ref}`);
    const target = resolvePointer(ctx.root, ref);
    ctx.refStack.push(ref);
    try {
      const resolved = target.schema;
      if (!hasSiblings) return convert(ctx, resolved, target.path, path);
      if (!isSchemaObject(resolved)) return convert(ctx, resolved, target.path, path);
      return convert(ctx, mergeSchemas(resolved, siblings, at), at, path);
    } finally {
      ctx.refStack.pop();
    }
  }

  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    let merged: SchemaObject = rest;
    (allOf as JsonSchema[]).forEach((part, i) => {
      const resolved = derefShallow(ctx, part, `${at}/allOf/${i}`);
      if (resolved === false) throw new UnsupportedSchemaError(at, 'allOf with `false`');
      if (resolved !== true) merged = mergeSchemas(merged, resolved, at);
    });
    return convert(ctx, merged, at, path);
  }

  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    return convertAlternatives(ctx, schema, at, path);
  }

  if (schema.not !== undefined) {
    const { not, ...rest } = schema;
    const forbidden = validatorAt(ctx, not as JsonSchema, `${at}/not`);
    return convert(ctx, rest, at, path).filter((v) => !forbidden(v));
  }

  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) {
    const types = typesOf(schema);
    const values = (schema.enum as unknown[]).filter((v) => !types || types.some((t) => hasType(v, t)));
    if (values.length === 0) throw new UnsupportedSchemaError(at, 'enum admits no value of the declared type');
    return fc.constantFrom(...values);
  }

  const types = typesOf(schema) ?? inferTypes(schema);
  const arbs = types.map((t) => convertTyped(ctx, schema, t, at, path));
  return arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
}

function isAnnotation(k: string): boolean {
  return ['title', 'description', 'examples', 'example', 'default', 'deprecated', 'readOnly', 'writeOnly', '$comment'].includes(k);
}

/** Follows `$ref` chains so allOf parts and branches can be merged. */
function derefShallow(ctx: Ctx, s: JsonSchema, at: string): JsonSchema {
  let cur = s;
  const seen: string[] = [];
  while (isSchemaObject(cur) && typeof cur.$ref === 'string') {
    if (seen.includes(cur.$ref)) throw new UnsupportedSchemaError(at, 'recursive $ref');
    seen.push(cur.$ref);
    const { $ref, ...siblings } = cur;
    const target = resolvePointer(ctx.root, $ref).schema;
    cur = isSchemaObject(target) && Object.keys(siblings).length > 0 ? mergeSchemas(target, siblings, at) : target;
  }
  return cur;
}

function hasType(v: unknown, t: string): boolean {
  switch (t) {
    case 'null': return v === null;
    case 'boolean': return typeof v === 'boolean';
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'number': return typeof v === 'number';
    case 'string': return typeof v === 'string';
    case 'array': return Array.isArray(v);
    case 'object': return isSchemaObject(v);
    default: return false;
  }
}

function requiredOf(s: JsonSchema): string[] {
  return isSchemaObject(s) && Array.isArray(s.required) ? (s.required as string[]) : [];
}

/**
 * oneOf: generate one branch merged with its siblings, leave out properties only the other
 * branches require, and keep only values no other branch accepts (the exactly-one rule).
 * anyOf: one branch merged with its siblings.
 */
function convertAlternatives(ctx: Ctx, schema: SchemaObject, at: string, path: string[]): fc.Arbitrary<unknown> {
  const exclusive = Array.isArray(schema.oneOf);
  const keyword = exclusive ? 'oneOf' : 'anyOf';
  const { [keyword]: listRaw, ...base } = schema;
  const list = (listRaw as JsonSchema[]).map((b, i) => derefShallow(ctx, b, `${at}/${keyword}/${i}`));
  const chosen = Object.entries(ctx.options.branch ?? {}).find(([p]) => pathMatches(p, path))?.[1];
  let indexes = list.map((_, i) => i);
  if (chosen !== undefined) {
    const idx = typeof chosen === 'number' ? chosen : list.findIndex((b) => requiredOf(b).includes(chosen));
    if (idx < 0 || idx >= list.length) throw new UnsupportedSchemaError(at, `no ${keyword} branch "${String(chosen)}"`);
    indexes = [idx];
  }
  const others = (i: number) =>
    list.map((b, j) => ({ b, j })).filter(({ j }) => j !== i).map(({ b, j }) => validatorAt(ctx, b, `${at}/${keyword}/${j}`));
  const arbs = indexes.map((i) => {
    const branch = list[i]!;
    if (branch === false) return undefined;
    let merged: SchemaObject = branch === true ? { ...base } : mergeSchemas(base, branch, at);
    if (exclusive) {
      // Properties another branch requires and this one does not: generating them could make
      // the value match two branches.
      const mine = new Set(requiredOf(merged));
      const foreign = list.flatMap((b, j) => (j === i ? [] : requiredOf(b))).filter((p) => !mine.has(p));
      if (foreign.length > 0 && isSchemaObject(merged.properties)) {
        const props = { ...(merged.properties as SchemaObject) };
        for (const p of foreign) delete props[p];
        merged = { ...merged, properties: props };
      }
    }
    const arb = convert(ctx, merged, `${at}/${keyword}/${i}`, path);
    if (!exclusive) return arb;
    const rivals = others(i);
    return arb.filter((v) => !rivals.some((accepts) => accepts(v)));
  }).filter((a): a is fc.Arbitrary<unknown> => a !== undefined);
  if (arbs.length === 0) throw new UnsupportedSchemaError(at, `${keyword} admits no value`);
  return arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
}

function convertTyped(ctx: Ctx, s: SchemaObject, type: string, at: string, path: string[]): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return convertNumber(s, type, at);
    case 'string':
      return convertString(ctx, s, at);
    case 'array':
      return convertArray(ctx, s, at, path);
    case 'object':
      return convertObject(ctx, s, at, path);
    default:
      throw new UnsupportedSchemaError(at, `type "${type}" is not supported`);
  }
}

function convertNumber(s: SchemaObject, type: string, at: string): fc.Arbitrary<number> {
  let min = typeof s.minimum === 'number' ? s.minimum : undefined;
  let max = typeof s.maximum === 'number' ? s.maximum : undefined;
  const exMin = typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : undefined;
  const exMax = typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : undefined;
  if (type === 'integer') {
    if (exMin !== undefined) min = Math.max(min ?? -Infinity, Math.floor(exMin) + 1);
    if (exMax !== undefined) max = Math.min(max ?? Infinity, Math.ceil(exMax) - 1);
    const lo = min === undefined ? -(2 ** 31) : Math.ceil(min);
    const hi = max === undefined ? 2 ** 31 - 1 : Math.floor(max);
    if (lo > hi) throw new UnsupportedSchemaError(at, 'empty integer range');
    const m = typeof s.multipleOf === 'number' ? s.multipleOf : undefined;
    if (m !== undefined && Number.isInteger(m)) {
      const a = Math.ceil(lo / m);
      const b = Math.floor(hi / m);
      return fc.integer({ min: a, max: b }).map((k) => k * m);
    }
    return fc.integer({ min: lo, max: hi });
  }
  const arb = fc.double({
    min: min ?? exMin ?? -1e9,
    max: max ?? exMax ?? 1e9,
    noNaN: true,
    noDefaultInfinity: true,
    minExcluded: min === undefined && exMin !== undefined,
    maxExcluded: max === undefined && exMax !== undefined,
  }).map((x) => (Object.is(x, -0) ? 0 : x));
  const m = typeof s.multipleOf === 'number' ? s.multipleOf : undefined;
  return m === undefined ? arb : arb.map((x) => Math.round(x / m) * m).filter((x) => (min === undefined || x >= min) && (max === undefined || x <= max));
}

function convertString(ctx: Ctx, s: SchemaObject, at: string): fc.Arbitrary<string> {
  const minLength = typeof s.minLength === 'number' ? s.minLength : 0;
  const maxLength = typeof s.maxLength === 'number' ? s.maxLength : undefined;
  const format = typeof s.format === 'string' ? s.format : undefined;
  const pattern = typeof s.pattern === 'string' ? new RegExp(s.pattern, 'u') : undefined;
  const fits = (x: string) => {
    const n = codePointLength(x);
    return n >= minLength && (maxLength === undefined || n <= maxLength);
  };
  const formatOk = format ? formatCheck(format) : undefined;
  let arb: fc.Arbitrary<string>;
  if (format && FORMAT_GENERATORS[format] && !pattern) {
    arb = FORMAT_GENERATORS[format]();
  } else if (format === 'date-time' && pattern) {
    // A pattern rarely encodes calendar validity: generate real date-times, keep the matching.
    arb = dateTimeArb(pattern);
  } else if (pattern) {
    arb = fc.stringMatching(pattern, maxLength !== undefined ? { maxLength, size: ctx.options.size } : { size: ctx.options.size });
  } else if (format && !formatOk) {
    throw new UnsupportedSchemaError(at, `format "${format}" is not supported`);
  } else {
    arb = fc.string({
      minLength,
      maxLength: maxLength ?? Math.max(minLength, ctx.caps.length),
      unit: ctx.options.stringUnit ?? 'grapheme-ascii',
      size: ctx.options.size,
    });
  }
  if (pattern) {
    const re = pattern;
    arb = arb.filter((x) => re.test(x));
  }
  if (formatOk) arb = arb.filter(formatOk);
  return arb.filter(fits);
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** RFC 3339 date-times, half with `Z`, half with a numeric offset (never `-00:00`). */
export function rfc3339Arb(offsets: 'utc' | 'offset' | 'any' = 'any'): fc.Arbitrary<string> {
  const base = fc.record({
    ms: fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }),
    frac: fc.constantFrom('', '.5', '.123', '.000001'),
  });
  const utc = base.map(({ ms, frac }) => new Date(ms).toISOString().slice(0, 19) + frac + 'Z');
  const offset = fc
    .record({ b: base, minutes: fc.integer({ min: -14 * 60, max: 14 * 60 }).filter((m) => m !== 0) })
    .map(({ b, minutes }) => {
      const local = new Date(b.ms + minutes * 60_000).toISOString().slice(0, 19);
      const sign = minutes < 0 ? '-' : '+';
      const abs = Math.abs(minutes);
      return `${local}${b.frac}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
    });
  if (offsets === 'utc') return utc;
  if (offsets === 'offset') return offset;
  return fc.oneof(utc, offset);
}

function dateTimeArb(pattern: RegExp): fc.Arbitrary<string> {
  const zOk = pattern.test('2024-05-01T10:20:30Z') || pattern.test('2024-05-01T10:20:30.123Z');
  const offOk = pattern.test('2024-05-01T10:20:30+02:00') || pattern.test('2024-05-01T10:20:30.123+02:00');
  if (zOk && !offOk) return rfc3339Arb('utc');
  if (offOk && !zOk) return rfc3339Arb('offset');
  return rfc3339Arb('any');
}

// Light URI generators (fc.webUrl is thorough but slow); the format check still filters them.
const segment = fc.stringMatching(/^[a-z0-9_-]{1,12}$/);
const absoluteUri = fc
  .tuple(fc.constantFrom('https', 'http', 'urn'), fc.array(segment, { minLength: 1, maxLength: 3 }), fc.array(segment, { maxLength: 3 }))
  .map(([scheme, host, path]) => (scheme === 'urn' ? `urn:${host.join(':')}` : `${scheme}://${host.join('.')}.example/${path.join('/')}`));
const relativeUri = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segs) => '/' + segs.join('/'));

const FORMAT_GENERATORS: Record<string, () => fc.Arbitrary<string>> = {
  'date-time': () => rfc3339Arb('any'),
  date: () => rfc3339Arb('utc').map((s) => s.slice(0, 10)),
  uuid: () => fc.uuid(),
  uri: () => absoluteUri,
  'uri-reference': () => fc.oneof(absoluteUri, relativeUri),
};

function convertArray(ctx: Ctx, s: SchemaObject, at: string, path: string[]): fc.Arbitrary<unknown[]> {
  const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
  const maxLength = typeof s.maxItems === 'number' ? s.maxItems : Math.max(minLength, ctx.caps.items);
  if (Array.isArray(s.items)) throw new UnsupportedSchemaError(at, 'tuple `items` is not supported');
  const item = convert(ctx, (s.items as JsonSchema | undefined) ?? {}, `${at}/items`, [...path, '*']);
  const constraints = { minLength, maxLength, size: ctx.options.size };
  if (s.uniqueItems === true) return fc.uniqueArray(item, { ...constraints, selector: (v) => JSON.stringify(v) });
  return fc.array(item, constraints);
}

function convertObject(ctx: Ctx, s: SchemaObject, at: string, path: string[]): fc.Arbitrary<Record<string, unknown>> {
  const props = (isSchemaObject(s.properties) ? s.properties : {}) as Record<string, JsonSchema>;
  const required = new Set(requiredOf(s));
  const forced = (p: string) => (ctx.options.require ?? []).some((x) => pathMatches(x, [...path, p]));
  const omitted = (p: string) => (ctx.options.omit ?? []).some((x) => pathMatches(x, [...path, p]));
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  const requiredKeys: string[] = [];
  for (const [name, sub] of Object.entries(props)) {
    if (omitted(name)) {
      if (required.has(name)) throw new UnsupportedSchemaError(at, `cannot omit required property "${name}"`);
      continue;
    }
    if (sub === false) continue;
    model[name] = convert(ctx, sub, `${at}/properties/${escapeSegment(name)}`, [...path, name]);
    if (required.has(name) || forced(name)) requiredKeys.push(name);
  }
  for (const name of required) {
    if (!(name in props)) {
      // Required but undeclared: whatever additionalProperties allows.
      const extra = s.additionalProperties;
      if (extra === false) throw new UnsupportedSchemaError(at, `required "${name}" is not allowed by additionalProperties`);
      model[name] = convert(ctx, isSchemaObject(extra) ? extra : {}, `${at}/additionalProperties`, [...path, name]);
      requiredKeys.push(name);
    }
  }
  const fixed = fc.record(model, { requiredKeys, noNullPrototype: true });
  const minProps = typeof s.minProperties === 'number' ? s.minProperties : 0;
  const maxProps = typeof s.maxProperties === 'number' ? s.maxProperties : Infinity;
  const extra = s.additionalProperties;
  let arb: fc.Arbitrary<Record<string, unknown>> = fixed;
  // Free-form keys only where the schema describes them (a schema, not `true`): a dictionary
  // such as TemplateVariables. `true`/absent stays closed so values keep to the declared shape.
  if (isSchemaObject(extra)) {
    const keyArb = isSchemaObject(s.propertyNames)
      ? (convert(ctx, { type: 'string', ...s.propertyNames }, `${at}/propertyNames`, [...path, '*']) as fc.Arbitrary<string>)
      : fc.string({ minLength: 1, maxLength: 16, size: ctx.options.size });
    const valueArb = convert(ctx, extra, `${at}/additionalProperties`, [...path, '*']);
    const dict = fc.dictionary(
      keyArb.filter((k) => !(k in props) && k !== '__proto__'),
      valueArb,
      { minKeys: 0, maxKeys: Number.isFinite(maxProps) ? Math.min(maxProps, ctx.caps.keys) : ctx.caps.keys, noNullPrototype: true, size: ctx.options.size },
    );
    arb = fc.tuple(fixed, dict).map(([a, b]) => ({ ...b, ...a }));
  }
  if (minProps > 0 || Number.isFinite(maxProps)) {
    arb = arb.filter((o) => {
      const n = Object.keys(o).length;
      return n >= minProps && n <= maxProps;
    });
  }
  return arb;
}
