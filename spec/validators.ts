// Validators compiled from spec/openapi.yaml: the one place shapes are checked. The whole document
// is registered with ajv under one id, so every `#/components/...` reference resolves as written
// and every schemaPath in a failure is a JSON Pointer into the document itself.
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { newAjv, type Ajv2020 } from './ajv.ts';
import {
  isRef,
  openapi,
  resolveRef,
  type HeaderObject,
  type HttpMethod,
  type JsonSchema,
  type OperationId,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
  type SchemaName,
} from './contract.ts';

/** One violation, kept as data: suites copy it into failures and never match on `message`. */
export interface SchemaFailure {
  /**
   * JSON Pointer into the instance. For a missing required member or a forbidden extra member it
   * names that member (`/recipients/0/to`), not its parent. Header failures use `''`.
   */
  pointer: string;
  /** The JSON Schema keyword, or one of `status`, `contentType`, `emptyBody`, `json`, `required` (header). */
  keyword: string;
  message: string;
  /** JSON Pointer into spec/openapi.yaml (`#/components/schemas/SenderId/maxLength`). */
  schemaPath: string;
  params: Record<string, unknown>;
  /** Section of the document (x-section of the nearest schema, header or operation). */
  section: string;
  /** Which part of a response the failure is about. */
  in: 'body' | 'header' | 'response';
  /** The header concerned, when `in` is `header`. */
  header?: string;
}

export interface OperationInfo {
  operationId: OperationId;
  /** Path template as written in the document (`/v1/businesses/{businessId}/...`). */
  path: string;
  method: HttpMethod;
  section: string;
  /** Path-level and operation-level parameters, references resolved (operation level wins). */
  parameters: ParameterObject[];
  requestBody?: OperationObject['requestBody'];
  responses: Record<string, ResponseObject>;
}

/** Headers as the client gives them (any case); arrays are joined as HTTP would. */
export type HeaderBag = Record<string, string | string[] | undefined>;

const DOCUMENT_ID = 'https://conformance.invalid/spec/openapi.json';
const METHODS: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

// ---- compilation (once, on first use) ------------------------------------------------------

/** Every `x-` key used anywhere in the document: annotations ajv must accept in strict mode. */
function extensionKeywords(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => extensionKeywords(item, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      extensionKeywords(value, found);
    }
  }
  return found;
}

let compiledAjv: Ajv2020 | undefined;
const validatorCache = new Map<string, ValidateFunction>();
/** Document pointer of every schema object ajv holds, so a failure can say where its rule is. */
const pointerOfSchema = new WeakMap<object, string>();

function indexSchemas(node: unknown, pointer: string): void {
  if (!node || typeof node !== 'object') return;
  pointerOfSchema.set(node, pointer);
  if (Array.isArray(node)) node.forEach((item, i) => indexSchemas(item, `${pointer}/${i}`));
  else for (const [key, value] of Object.entries(node)) indexSchemas(value, `${pointer}/${escapeToken(key)}`);
}

/**
 * A fresh ajv with the contract's options (2020-12, strict, all errors, formats, the document's
 * `x-` keywords) and no schema registered: for compiling jsonSchemaFor() output elsewhere.
 */
export function createContractAjv(): Ajv2020 {
  return newAjv(contractOptions());
}

function contractOptions(): ConstructorParameters<typeof Ajv2020>[0] & object {
  return {
    strict: true,
    // The document's schemas are checked against the 2020-12 meta-schema by test/spec/schemas.test.ts;
    // checking them again in every run compiled that meta-schema twice (about 0.1 s of CPU).
    validateSchema: false,
    // A oneOf branch `{ required: [message] }` names members defined by its parent schema.
    strictRequired: false,
    // Nullable fields are written as type arrays (["string", "null"]).
    allowUnionTypes: true,
    allErrors: true,
    // Errors then carry the schema object they failed in (mapped back to a document pointer:
    // ajv's own schemaPath is relative to whichever referenced schema it compiled apart).
    verbose: true,
    // The OpenAPI objects around the schemas (openapi, info, paths, components, ...) are
    // annotations to ajv: it compiles the document root once, never traversing them.
    keywords: [...extensionKeywords(openapi), ...Object.keys(openapi).filter((k) => !k.startsWith('x-'))],
  };
}

function ajv(): Ajv2020 {
  if (!compiledAjv) {
    compiledAjv = createContractAjv();
    const registered = structuredClone(openapi) as object;
    indexSchemas(registered, '#');
    compiledAjv.addSchema(registered, DOCUMENT_ID);
  }
  return compiledAjv;
}

/**
 * The same document compiled for the yes/no question only (no `allErrors`, no `verbose`): it stops
 * at the first failure and builds no error objects, several times faster on a valid value. Valid
 * and invalid values are the same for both (same schemas, same formats); the detailed validator
 * runs only on a failure, so what a failure says is unchanged.
 */
let passFailAjv: Ajv2020 | undefined;
const passFailCache = new Map<string, ValidateFunction>();

function passFailAt(documentPointer: string): ValidateFunction {
  const cached = passFailCache.get(documentPointer);
  if (cached) return cached;
  if (!passFailAjv) {
    passFailAjv = newAjv({ ...contractOptions(), allErrors: false, verbose: false });
    passFailAjv.addSchema(structuredClone(openapi) as object, DOCUMENT_ID);
  }
  const validate = passFailAjv.compile({ $ref: `${DOCUMENT_ID}${documentPointer}` });
  passFailCache.set(documentPointer, validate);
  return validate;
}

/** The validator for a JSON Pointer into the document (`#/components/schemas/X`). */
function validatorAt(documentPointer: string): ValidateFunction {
  const cached = validatorCache.get(documentPointer);
  if (cached) return cached;
  const validate = ajv().compile({ $ref: `${DOCUMENT_ID}${documentPointer}` });
  validatorCache.set(documentPointer, validate);
  return validate;
}

/** Compiles every component schema now (start-up cost paid once, and a broken schema shows early). */
export function compileAll(): void {
  for (const name of Object.keys(openapi.components.schemas)) {
    validatorAt(`#/components/schemas/${name}`);
    passFailAt(`#/components/schemas/${name}`);
  }
}

// ---- failures as data ----------------------------------------------------------------------

const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapeToken = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');

/** x-section of the deepest node on a document pointer that carries one. */
function sectionAt(documentPointer: string, fallback = '?'): string {
  let node: unknown = openapi;
  let section = fallback;
  const tokens = documentPointer.replace(/^#\/?/, '').split('/').filter(Boolean).map(unescapeToken);
  for (const token of tokens) {
    if (!node || typeof node !== 'object') break;
    node = (node as Record<string, unknown>)[token];
    const own = node && typeof node === 'object' ? (node as Record<string, unknown>)['x-section'] : undefined;
    if (typeof own === 'string') section = own;
  }
  return section;
}

function documentPointerOf(error: ErrorObject): string {
  const owner = error.parentSchema ? pointerOfSchema.get(error.parentSchema) : undefined;
  if (owner) return `${owner}/${escapeToken(error.keyword)}`;
  return error.schemaPath.startsWith(DOCUMENT_ID) ? error.schemaPath.slice(DOCUMENT_ID.length) : error.schemaPath;
}

function failureOf(error: ErrorObject, inBody: SchemaFailure['in'] = 'body'): SchemaFailure {
  const schemaPath = documentPointerOf(error);
  let pointer = error.instancePath;
  const params = error.params as Record<string, unknown>;
  // Point at the member that is missing or forbidden, so a failure names the field itself.
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    pointer = `${pointer}/${escapeToken(params.missingProperty)}`;
  } else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    pointer = `${pointer}/${escapeToken(params.additionalProperty)}`;
  }
  return {
    pointer,
    keyword: error.keyword,
    message: error.message ?? error.keyword,
    schemaPath,
    params,
    section: sectionAt(schemaPath),
    in: inBody,
  };
}

function run(documentPointer: string, value: unknown, where: SchemaFailure['in'] = 'body'): SchemaFailure[] {
  if (passFailAt(documentPointer)(value)) return [];
  const validate = validatorAt(documentPointer);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => failureOf(e, where));
}

// ---- schemas -------------------------------------------------------------------------------

/** Validates a value against a component schema; empty when valid. */
export function validate(schemaName: SchemaName, value: unknown): SchemaFailure[] {
  if (!(schemaName in openapi.components.schemas)) throw new Error(`unknown schema ${schemaName}`);
  return run(`#/components/schemas/${escapeToken(schemaName)}`, value);
}

/** True when the value matches the component schema. */
export function isValid(schemaName: SchemaName, value: unknown): boolean {
  return validate(schemaName, value).length === 0;
}

const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;

/**
 * A self-contained JSON Schema (2020-12) for one component: the component itself with every
 * component it reaches under `$defs`, references rewritten to `#/$defs/X`. Generators derive
 * their arbitraries from this, so there is one copy of every rule.
 */
export function jsonSchemaFor(schemaName: SchemaName): JsonSchema {
  const all = openapi.components.schemas as Record<string, JsonSchema>;
  if (!(schemaName in all)) throw new Error(`unknown schema ${schemaName}`);
  const reached = new Set<string>();
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const match = key === '$ref' && typeof value === 'string' ? COMPONENT_REF.exec(value) : null;
      if (match) {
        const target = unescapeToken(match[1]!);
        out.$ref = `#/$defs/${escapeToken(target)}`;
        if (!reached.has(target)) {
          reached.add(target);
          defs[target] = rewrite(all[target]) as JsonSchema;
        }
      } else out[key] = rewrite(value);
    }
    return out;
  };
  const defs: Record<string, JsonSchema> = {};
  const root = rewrite(all[schemaName]) as JsonSchema;
  const schema: JsonSchema = { $schema: openapi.jsonSchemaDialect, ...root };
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return schema;
}

// ---- operations ----------------------------------------------------------------------------

const operationCache = new Map<string, OperationInfo & { pointer: string }>();

function findOperation(operationId: string): OperationInfo & { pointer: string } {
  const cached = operationCache.get(operationId);
  if (cached) return cached;
  for (const [path, item] of Object.entries(openapi.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op?.operationId !== operationId) continue;
      const byKey = new Map<string, ParameterObject>();
      for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const param = resolveRef<ParameterObject>(p);
        byKey.set(`${param.in}:${param.name.toLowerCase()}`, param);
      }
      const responses: Record<string, ResponseObject> = {};
      for (const [status, response] of Object.entries(op.responses)) responses[status] = resolveRef<ResponseObject>(response);
      const info = {
        operationId: operationId as OperationId,
        path,
        method,
        section: op['x-section'],
        parameters: [...byKey.values()],
        requestBody: op.requestBody,
        responses,
        pointer: `#/paths/${escapeToken(path)}/${method}`,
      };
      operationCache.set(operationId, info);
      return info;
    }
  }
  throw new Error(`unknown operation ${operationId}`);
}

/** Path, method, section, parameters and responses of an operation of section 4. */
export function operation(operationId: OperationId): OperationInfo {
  const { pointer: _pointer, ...info } = findOperation(operationId);
  return info;
}

/** Document pointer of a schema that is a `$ref` to a component (all bodies in the document are). */
function schemaPointer(schema: JsonSchema, where: string): string {
  if (isRef(schema) && COMPONENT_REF.test(schema.$ref)) return schema.$ref;
  throw new Error(`${where}: body schemas must reference components.schemas`);
}

/** Validates a request body of an operation (used by the generators' own tests). */
export function validateRequestBody(operationId: OperationId, body: unknown): SchemaFailure[] {
  const op = findOperation(operationId);
  const media = op.requestBody?.content['application/json'];
  if (!media) {
    return body === undefined
      ? []
      : [
          {
            pointer: '',
            keyword: 'emptyBody',
            message: 'this operation takes no request body',
            schemaPath: op.pointer,
            params: {},
            section: op.section,
            in: 'body',
          },
        ];
  }
  return run(schemaPointer(media.schema, `${operationId} request`), body);
}

function headerValue(headers: HeaderBag, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

/** Media type without parameters, lower-cased (`application/problem+json; charset=utf-8` -> `application/problem+json`). */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const bare = contentType?.split(';')[0]?.trim().toLowerCase();
  return bare ? bare : undefined;
}

function problemCodeOf(body: unknown): unknown {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).code : undefined;
}

export interface ResponseLike {
  status: number;
  headers: HeaderBag;
  /** Parsed JSON body, undefined when there is none or it is not JSON. */
  json: unknown;
  /** Raw body text, when known: decides emptiness and catches bodies that are not JSON. */
  text?: string;
}

interface DeclaredHeader {
  name: string;
  header: HeaderObject;
  headerPointer: string;
  section: string;
  requiredForCodes: string[] | undefined;
}

/** The declared headers of one response, references resolved once (every answer of the traffic asks). */
const declaredHeadersCache = new Map<string, DeclaredHeader[]>();

function declaredHeaders(op: OperationInfo & { pointer: string }, key: string): DeclaredHeader[] {
  const cacheKey = `${op.operationId} ${key}`;
  const cached = declaredHeadersCache.get(cacheKey);
  if (cached) return cached;
  const responsePointer = `${op.pointer}/responses/${key}`;
  const list = Object.entries(op.responses[key]!.headers ?? {}).map(([name, declared]): DeclaredHeader => {
    const header = resolveRef<HeaderObject>(declared);
    return {
      name,
      header,
      headerPointer: isRef(declared) ? declared.$ref : `${responsePointer}/headers/${escapeToken(name)}`,
      section: header['x-section'] ?? op.section,
      requiredForCodes: header['x-required-for-codes'],
    };
  });
  declaredHeadersCache.set(cacheKey, list);
  return list;
}

const declaredTypesCache = new WeakMap<ResponseObject, string[]>();

function declaredTypesOf(response: ResponseObject): string[] {
  let types = declaredTypesCache.get(response);
  if (!types) declaredTypesCache.set(response, (types = Object.keys(response.content ?? {})));
  return types;
}

/**
 * Validates a response of an operation against the document: declared status (or `default`),
 * media type, required headers and their shapes, and the body (a 204 must have none).
 * `body` is the parsed JSON; pass `text` (the raw body) when known.
 */
export function validateResponse(
  operationId: OperationId,
  status: number,
  headers: HeaderBag,
  body: unknown,
  text?: string,
): SchemaFailure[] {
  const op = findOperation(operationId);
  const key = String(status) in op.responses ? String(status) : 'default' in op.responses ? 'default' : undefined;
  if (!key) {
    return [
      {
        pointer: '',
        keyword: 'status',
        message: `status ${status} is not declared for ${operationId}`,
        schemaPath: `${op.pointer}/responses`,
        params: { status, declared: Object.keys(op.responses) },
        section: op.section,
        in: 'response',
      },
    ];
  }
  const response = op.responses[key]!;
  const responsePointer = `${op.pointer}/responses/${key}`;
  const failures: SchemaFailure[] = [];

  // Headers: required ones present, every present declared one well-formed.
  for (const { name, header, headerPointer, section, requiredForCodes } of declaredHeaders(op, key)) {
    const value = headerValue(headers, name);
    const required =
      header.required === true || (requiredForCodes?.includes(problemCodeOf(body) as string) ?? false);
    if (value === undefined) {
      if (required) {
        failures.push({
          pointer: '',
          keyword: 'required',
          message: `missing response header ${name}`,
          schemaPath: headerPointer,
          params: { header: name, ...(requiredForCodes ? { forCodes: requiredForCodes } : {}) },
          section,
          in: 'header',
          header: name,
        });
      }
      continue;
    }
    for (const f of run(`${headerPointer}/schema`, value, 'header')) failures.push({ ...f, header: name });
  }

  // Body and media type.
  const declaredTypes = declaredTypesOf(response);
  const empty = text !== undefined ? text.length === 0 : body === undefined;
  if (declaredTypes.length === 0) {
    if (!empty) {
      failures.push({
        pointer: '',
        keyword: 'emptyBody',
        message: `status ${status} must have an empty body`,
        schemaPath: responsePointer,
        params: { status },
        section: op.section,
        in: 'body',
      });
    }
    return failures;
  }
  const contentType = headerValue(headers, 'content-type');
  const mediaType = mediaTypeOf(contentType);
  if (!mediaType || !declaredTypes.includes(mediaType)) {
    failures.push({
      pointer: '',
      keyword: 'contentType',
      message: `content type ${contentType ?? '(none)'} is not ${declaredTypes.join(' or ')}`,
      schemaPath: `${responsePointer}/content`,
      params: { contentType: contentType ?? null, expected: [...declaredTypes] },
      section: sectionAt(`${responsePointer}/content`, op.section),
      in: 'header',
      header: 'Content-Type',
    });
  }
  const media = response.content![mediaType && declaredTypes.includes(mediaType) ? mediaType : declaredTypes[0]!]!;
  if (body === undefined) {
    failures.push({
      pointer: '',
      keyword: 'json',
      message: empty ? 'the body is empty' : 'the body is not JSON',
      schemaPath: `${responsePointer}/content`,
      params: {},
      section: op.section,
      in: 'body',
    });
    return failures;
  }
  failures.push(...run(schemaPointer(media.schema, `${operationId} ${key}`), body));
  return failures;
}

/** validateResponse for an object shaped like the harness client's ApiResponse. */
export function validateApiResponse(operationId: OperationId, response: ResponseLike): SchemaFailure[] {
  return validateResponse(operationId, response.status, response.headers, response.json, response.text);
}
