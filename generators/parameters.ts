// Parameters of the operations (headers, query) as schema-derived data: their schemas, and
// how a raw text value fares against them, so header and query cases are checked like bodies.
import { newAjv, type Ajv2020 } from '../spec/ajv.ts';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { OperationId, SchemaName } from '../spec/contract.ts';
import { jsonSchemaFor, operation } from '../spec/validators.ts';
import type { SchemaObject } from './from-schema.ts';

const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;

/** A self-contained schema for a parameter of an operation (by its name in the document). */
export function parameterSchema(operationId: OperationId, name: string, location: 'header' | 'query'): SchemaObject {
  const param = operation(operationId).parameters.find(
    (p) => p.in === location && p.name.toLowerCase() === name.toLowerCase(),
  );
  if (!param) throw new Error(`${operationId} has no ${location} parameter ${name}`);
  const ref = typeof param.schema.$ref === 'string' ? COMPONENT_REF.exec(param.schema.$ref) : null;
  if (ref) return jsonSchemaFor(ref[1] as SchemaName) as SchemaObject;
  if (JSON.stringify(param.schema).includes('"$ref"')) throw new Error(`${name}: nested $ref in an inline parameter schema`);
  return param.schema as SchemaObject;
}

/** Whether the document marks the parameter required. */
export function parameterRequired(operationId: OperationId, name: string, location: 'header' | 'query'): boolean {
  return operation(operationId).parameters.some(
    (p) => p.in === location && p.name.toLowerCase() === name.toLowerCase() && p.required === true,
  );
}

let ajv: Ajv2020 | undefined;
const cache = new Map<string, ValidateFunction>();

function compiled(schema: SchemaObject): ValidateFunction {
  const key = JSON.stringify(schema);
  let fn = cache.get(key);
  if (!fn) {
    if (!ajv) {
      ajv = newAjv({ strict: false, allErrors: true, allowUnionTypes: true });
    }
    const { $schema: _s, ...rest } = schema;
    void _s;
    fn = ajv.compile(rest);
    cache.set(key, fn);
  }
  return fn;
}

/** Query text as the parameter's type reads it (OpenAPI `form` style, one value). */
export function coerceQueryValue(schema: SchemaObject, raw: string): unknown {
  const type = schema.type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(raw)) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

export interface ParameterFailure {
  keyword: string;
  params: Record<string, unknown>;
}

/** Failures of a raw parameter value (header text or query text); empty when valid. */
export function parameterFailures(
  operationId: OperationId,
  name: string,
  location: 'header' | 'query',
  raw: string | null,
): ParameterFailure[] {
  if (raw === null) {
    return parameterRequired(operationId, name, location) ? [{ keyword: 'required', params: { name } }] : [];
  }
  const schema = parameterSchema(operationId, name, location);
  const value = location === 'query' ? coerceQueryValue(schema, raw) : raw;
  const validate = compiled(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e: ErrorObject) => ({ keyword: e.keyword, params: e.params as Record<string, unknown> }));
}
