// Well-formed but unusual requests (7): for every operation of spec/openapi.yaml, the request a
// client would send, varied in one way the document does not forbid and does not describe (an
// Accept of another type or with q-values, a query parameter repeated or unknown, a trailing
// slash, an extra header, an empty body where none is taken). The document does not say what each
// gets; it says what none of them may get: a server error (PROB-NO-5XX-FOR-CLIENT-FAULT). Derived
// from the spec, so an operation or query parameter added to it gets its variants with no new code.
import type { ApiRequest } from '../../harness/client.ts';
import type { Fixtures, ListingParamNames } from '../../core/model.ts';
import { parameterSchema } from '../../generators/parameters.ts';
import { operation } from '../../spec/validators.ts';
import type { OperationId } from '../../spec/contract.ts';
import { matrixRows, RESOURCE_FIXTURES, type MatrixRow } from './authorization.ts';
import { OTHER_ID_FORMS, upperCaseForm } from '../../generators/id-forms.ts';

export interface UnusualRequest {
  /** What is unusual, and on which operation (a line of the report). */
  name: string;
  request: ApiRequest;
  writes: boolean;
  /** The form a path id is sent in (generators/id-forms.ts), for the requests of pathIdFormRequests. */
  idForm?: string;
}

const TRAILING_SLASH = 'a trailing slash';

/** The one-way variations every operation gets (a request with `base` changed in that way). */
const VARIATIONS: Array<{ what: string; vary: (base: ApiRequest) => ApiRequest }> = [
  // Blind defect blind-accept-xml-500: a serialiser picker that throws for a type it lacks.
  { what: 'Accept: application/xml', vary: (b) => ({ ...b, headers: { ...b.headers, Accept: 'application/xml' } }) },
  { what: 'Accept with q-values', vary: (b) => ({ ...b, headers: { ...b.headers, Accept: 'text/html;q=0.9, application/json;q=0.8, */*;q=0.1' } }) },
  { what: 'an unknown query parameter', vary: (b) => ({ ...b, query: [...queryOf(b), ['conformance_unknown', '1']] }) },
  { what: TRAILING_SLASH, vary: (b) => ({ ...b, path: `${b.path}/` }) },
  { what: 'an extra header', vary: (b) => ({ ...b, headers: { ...b.headers, 'X-Conformance-Extra': 'unusual' } }) },
];

function queryOf(b: ApiRequest): Array<[string, string]> {
  return Array.isArray(b.query) ? b.query : Object.entries(b.query ?? {});
}

/** Two values of a query parameter, each valid for its schema alone (so only the repetition is unusual). */
function twoValues(operationId: OperationId, name: string, pool: readonly string[]): [string, string] {
  const schema = parameterSchema(operationId, name, 'query');
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return [String(schema.enum[0]), String(schema.enum.at(-1))];
  if (schema.type === 'integer') {
    const min = typeof schema.minimum === 'number' ? schema.minimum : 1;
    const max = typeof schema.maximum === 'number' ? schema.maximum : min + 1;
    return [String(min), String(max)];
  }
  if (typeof schema.pattern === 'string' && pool.length > 0) return [pool[0]!, pool.at(-1)!];
  // An opaque string (a cursor): any text is of its type, and neither was issued.
  return ['conformance-a', 'conformance-b'];
}

/**
 * The plain request of an operation for this run, or undefined when the fixtures name no object
 * for it. A read goes to the business's own object; a write goes where only a refusal can follow
 * (an unknown endpoint, a body refused as invalid), so no variant changes anything.
 */
function plainRequest(row: MatrixRow, f: Fixtures, unknownId: string, key: string, values = pathValues(row, f, unknownId)): ApiRequest | undefined {
  if (!values) return undefined;
  const path = row.template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? '');
  const headers: Record<string, string> = {};
  for (const h of row.requiredHeaders) headers[h] = key;
  return { method: row.method, path, headers, ...(row.hasBody ? { json: {} } : {}) };
}

/** The plain request's path ids, each percent-encoded, or undefined when the fixtures name no object for it. */
function pathValues(row: MatrixRow, f: Fixtures, unknownId: string): Record<string, string> | undefined {
  if (!f.businessId) return undefined;
  const values: Record<string, string> = { [row.businessParam!]: encodeURIComponent(f.businessId) };
  if (row.resourceParam) {
    const own = RESOURCE_FIXTURES[row.resourceParam]?.own;
    const id = row.writes ? unknownId : own ? (f[own] as string | undefined) : undefined;
    if (!id) return undefined;
    values[row.resourceParam] = encodeURIComponent(id);
  }
  return values;
}

/** Every operation's unusual requests: the common variations, each query parameter repeated, an empty body where none is taken. */
export function unusualRequests(
  f: Fixtures,
  params: ListingParamNames,
  unknownId: string,
  key: (label: string) => string,
  /** A DELETE of a random id: only the embedded reference or a declared sandbox takes one (harness/safety.ts). */
  randomDeletes: boolean,
): UnusualRequest[] {
  const out: UnusualRequest[] = [];
  for (const row of matrixRows()) {
    if (row.method === 'DELETE' && !randomDeletes) continue;
    const base = plainRequest(row, f, unknownId, key(row.operation));
    if (!base) continue;
    const on = `${row.method} ${row.template}`;
    for (const { what, vary } of VARIATIONS) {
      // The safety rails read a DELETE's path to know the endpoint: one they cannot read is never sent.
      if (row.method === 'DELETE' && what === TRAILING_SLASH) continue;
      out.push({ name: `${what} on ${on}`, request: vary(base), writes: row.writes });
    }
    // Blind defect blind-repeated-query-param-500: a parser that throws on an array value.
    for (const p of operation(row.operation as OperationId).parameters.filter((p) => p.in === 'query')) {
      const name = params[p.name as keyof ListingParamNames] ?? p.name;
      const [a, b] = twoValues(row.operation as OperationId, p.name, f.recipients ?? []);
      out.push({ name: `query parameter ${name} given twice on ${on}`, request: { ...base, query: [...queryOf(base), [name, a], [name, b]] }, writes: row.writes });
    }
    if (!row.hasBody) {
      out.push({ name: `an empty JSON-labelled body on ${on}`, request: { ...base, headers: { ...base.headers, 'Content-Type': 'application/json' }, rawBody: '' }, writes: row.writes });
    }
  }
  return out;
}

/** How many requests unusualRequests gives at most (every operation with its object), for a budget. */
export function unusualRequestCount(): number {
  return matrixRows().reduce((n, row) => {
    const query = operation(row.operation as OperationId).parameters.filter((p) => p.in === 'query').length;
    return n + VARIATIONS.length + query + (row.hasBody ? 0 : 1);
  }, 0);
}

/**
 * A method a path of the spec does not take (blind defect blind4-other-method-500: DELETE on the
 * wallet path thrown in the router, 500). Derived: on every path, every method the spec takes on
 * some other path, and PATCH for the methods no path takes. No body is sent; a DELETE only where
 * any DELETE may go (the embedded reference: the safety rails let a host's DELETE name only the
 * configured webhook endpoint).
 */
export function undeclaredMethodRequests(f: Fixtures, unknownId: string, key: (label: string) => string, anyDelete: boolean): UnusualRequest[] {
  const rows = matrixRows();
  const used = new Set(rows.map((r) => r.method));
  const tried: Array<ApiRequest['method']> = [...used, 'PATCH'];
  const out: UnusualRequest[] = [];
  for (const template of new Set(rows.map((r) => r.template))) {
    const here = rows.filter((r) => r.template === template);
    // A read's own object, or an unknown one for a write: the path a client would call.
    const base = plainRequest(here[0]!, f, unknownId, key(here[0]!.operation));
    if (!base) continue;
    for (const method of tried) {
      if (here.some((r) => r.method === method) || (method === 'DELETE' && !anyDelete)) continue;
      out.push({ name: `${method}, which the spec does not declare, on ${template}`, request: { method, path: base.path }, writes: method !== 'GET' });
    }
  }
  return out;
}

/** How many requests undeclaredMethodRequests gives at most, for a budget. */
export function undeclaredMethodCount(): number {
  const rows = matrixRows();
  const tried = new Set([...rows.map((r) => r.method), 'PATCH']);
  return [...new Set(rows.map((r) => r.template))].reduce((n, template) => n + [...tried].filter((m) => !rows.some((r) => r.template === template && r.method === m)).length, 0);
}

/** The operations whose path ids are sent in other forms: all but a DELETE, whose path the safety rails must read. */
const idFormRows = () => matrixRows().filter((row) => row.method !== 'DELETE');

const pathParamsOf = (row: MatrixRow) => [row.businessParam, row.resourceParam].filter((p): p is string => p !== undefined);

/**
 * Every operation's plain request with one path id in another form (generators/id-forms.ts;
 * blind defect blind6-upper-case-bulk-id-500): each path id of each operation in upper case, and
 * in one of the other forms, dealt in turn from `start` (a seeded index), so a run with fixtures
 * sends every form, two requests per path id.
 */
export function pathIdFormRequests(f: Fixtures, unknownId: string, key: (label: string) => string, start: number): UnusualRequest[] {
  const out: UnusualRequest[] = [];
  let dealt = start;
  for (const row of idFormRows()) {
    const values = pathValues(row, f, unknownId);
    if (!values) continue;
    for (const param of pathParamsOf(row)) {
      const id = decodeURIComponent(values[param]!);
      const other = OTHER_ID_FORMS[dealt++ % OTHER_ID_FORMS.length]!(id);
      for (const form of [upperCaseForm(id), other]) {
        if (form.value === id) continue;
        const request = plainRequest(row, f, unknownId, key(row.operation), { ...values, [param]: encodeURIComponent(form.value) })!;
        out.push({ name: `${param} ${form.what} on ${row.method} ${row.template}`, request, writes: row.writes, idForm: form.what });
      }
    }
  }
  return out;
}

/** How many requests pathIdFormRequests gives at most, for a budget. */
export const pathIdFormCount = (): number => idFormRows().reduce((n, row) => n + 2 * pathParamsOf(row).length, 0);
