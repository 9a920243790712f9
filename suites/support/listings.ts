// What the run can observe of a listing (4.3) by its owner, for the authorization matrix: the run's
// own listing gives a cursor issued to the run and the values a granted caller filters by; the
// other tenant's listing (CONFORMANCE_OTHER_CLIENT_ID) shows ids of the other business's objects
// that no fixture names (its bulk's rows). Each owner lists once per run, shared by every check.
import type { ApiResponse } from '../../harness/client.ts';
import type { SuiteConfig } from '../../core/model.ts';
import type { JsonSchema } from '../../spec/contract.ts';
import type { CheckContext } from './check.ts';
import { describeResponse } from './problem.ts';
import { RESOURCE_FIXTURES, pathOf, type MatrixRow } from './authorization.ts';

/** Marks the other tenant's requests (read by traffic/judge.ts, which leaves them out). */
export const OTHER_TENANT_HEADER = 'x-conformance-caller';

/** One owner's first listing page, or why there is none. */
export interface Listing {
  res?: ApiResponse;
  /** Ids of items the page shows, beyond the ids its path named (first one per JSON path). */
  ids: string[];
  /** Why nothing was listed, or the listing answered no page. */
  missing?: string;
}

const cache = new WeakMap<SuiteConfig, Map<string, Promise<Listing>>>();

/** The smallest page the row's query allows (its integer parameter's minimum), so a second page follows. */
function smallestPage(t: CheckContext, row: MatrixRow): Array<[string, string]> {
  const size = row.query.find((q) => q.schema.type === 'integer' && typeof q.schema.minimum === 'number');
  return size ? [[sentName(t, size.name), String(size.schema.minimum)]] : [];
}

/** The name a query parameter is sent under (the document's names are assumed; CONFORMANCE_PARAM_* rename them). */
export function sentName(t: CheckContext, name: string): string {
  return (t.config.params as unknown as Record<string, string | undefined>)[name] ?? name;
}

/** `?name=value` as a report shows it, a long value (a cursor) cut to its first 24 characters. */
export function queryShown(name: string, value: string): string {
  return `?${name}=${value.length > 24 ? `${value.slice(0, 24)}…` : value}`;
}

/** Item ids in a body: values of `id` inside arrays, one per JSON path, not among `known`. */
function itemIds(body: unknown, known: string[]): string[] {
  const seen = new Map<string, string>();
  const walk = (v: unknown, at: string, inArray: boolean) => {
    if (Array.isArray(v)) v.forEach((x) => walk(x, `${at}[]`, true));
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'id' && inArray && typeof x === 'string' && !known.includes(x.toLowerCase()) && !seen.has(at)) seen.set(at, x);
        else walk(x, `${at}.${k}`, inArray);
      }
    }
  };
  walk(body, '$', false);
  return [...seen.values()];
}

/**
 * The first page of the listing `row` of `owner`'s own resource (the primary application on this
 * business, or the other tenant on the other business), listed as its owner.
 */
export function listingOf(t: CheckContext, row: MatrixRow, owner: 'own' | 'other'): Promise<Listing> {
  const perRun = cache.get(t.config) ?? new Map<string, Promise<Listing>>();
  cache.set(t.config, perRun);
  const key = `${row.operation}/${owner}`;
  let listing = perRun.get(key);
  if (!listing) {
    listing = list(t, row, owner);
    perRun.set(key, listing);
  }
  return listing;
}

async function list(t: CheckContext, row: MatrixRow, owner: 'own' | 'other'): Promise<Listing> {
  const f = t.config.fixtures;
  const business = owner === 'own' ? f.businessId : f.otherBusinessId;
  const fixtures = row.resourceParam ? RESOURCE_FIXTURES[row.resourceParam] : undefined;
  const resource = fixtures ? (f[owner === 'own' ? fixtures.own : fixtures.foreign] as string | undefined) : undefined;
  if (!business || (row.resourceParam && !resource)) return { ids: [], missing: `no fixture names ${owner === 'own' ? "this business's" : "the other business's"} ${row.resourceParam ?? 'business'}` };
  if (owner === 'other' && !t.config.apps.other) return { ids: [], missing: "the other business's application is not configured (CONFORMANCE_OTHER_CLIENT_ID): its listing cannot be observed" };
  const res = await t.api.send({
    method: 'GET',
    path: pathOf(row, business, resource),
    query: smallestPage(t, row),
    ...(owner === 'other' ? { as: 'other' as const, headers: { [OTHER_TENANT_HEADER]: 'other-tenant' } } : {}),
  });
  if (res.status !== 200) return { res, ids: [], missing: `its owner's listing answered ${describeResponse(res)}` };
  const known = [f.businessId, f.otherBusinessId, resource].filter((x): x is string => typeof x === 'string').map((x) => x.toLowerCase());
  return { res, ids: itemIds(res.json, known) };
}

/** The first value in a body under a key named `name` or ending in `_name` (`cursor`: `next_cursor`; `to`: a row's `to`). */
export function valueNamed(body: unknown, name: string): string | undefined {
  if (Array.isArray(body)) {
    for (const x of body) {
      const found = valueNamed(x, name);
      if (found !== undefined) return found;
    }
  } else if (body !== null && typeof body === 'object') {
    for (const [k, x] of Object.entries(body)) {
      if ((k === name || k.endsWith(`_${name}`)) && (typeof x === 'string' || typeof x === 'number') && String(x).length > 0) return String(x);
    }
    for (const x of Object.values(body)) {
      const found = valueNamed(x, name);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * The value a granted caller sends for a query parameter: from its schema (the first value of an
 * enum, an integer's minimum), or else what the run's own listing shows under that name (a cursor
 * issued to the run, a number its rows were sent to). Undefined, with why, when neither gives one.
 */
export async function queryValue(t: CheckContext, row: MatrixRow, name: string): Promise<{ value?: string; missing?: string }> {
  const schema = row.query.find((q) => q.name === name)?.schema ?? {};
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { value: String(schema.enum[0]) };
  if (schema.type === 'integer') return { value: String(typeof schema.minimum === 'number' ? schema.minimum : (schema.default ?? 1)) };
  if (!row.lists) return { missing: `no value for ?${name}: its schema gives none and the operation lists nothing` };
  const own = await listingOf(t, row, 'own');
  const value = own.res ? valueNamed(own.res.json, name) : undefined;
  return value === undefined ? { missing: own.missing ?? `no value for ?${name}: the run's own listing shows none (a single page has no cursor)` } : { value };
}

/** An integer parameter's ends (its schema's minimum and maximum), each once; none for any other parameter. */
export function integerEnds(schema: { type?: unknown; minimum?: unknown; maximum?: unknown }): number[] {
  if (schema.type !== 'integer') return [];
  return [...new Set([schema.minimum, schema.maximum].filter((x): x is number => typeof x === 'number'))];
}

/**
 * The values a granted caller sends for a query parameter, at each of its boundaries: an integer
 * at its minimum and its maximum (a page size of 1 and the largest page, which an implementation
 * may serve by another path), any other parameter with the one value of `queryValue`.
 */
export async function queryBoundaries(t: CheckContext, row: MatrixRow, name: string): Promise<{ values: string[]; missing?: string }> {
  const ends = integerEnds(row.query.find((q) => q.name === name)?.schema ?? {});
  if (ends.length > 0) return { values: ends.map(String) };
  const { value, missing } = await queryValue(t, row, name);
  return value === undefined ? { values: [], ...(missing ? { missing } : {}) } : { values: [value] };
}

/**
 * One value a query parameter's schema refuses, with what it breaks: an integer one past its maximum
 * (else one under its minimum, else no number at all); a string outside its enum or pattern, else
 * shorter than its minimum length or longer than its maximum. Undefined when the schema refuses nothing.
 */
export function invalidQueryValue(schema: JsonSchema): { value: string; breaks: string } | undefined {
  if (schema.type === 'integer' || schema.type === 'number') {
    if (typeof schema.maximum === 'number') return { value: String(schema.maximum + 1), breaks: 'above the maximum' };
    if (typeof schema.minimum === 'number') return { value: String(schema.minimum - 1), breaks: 'below the minimum' };
    return { value: 'not-a-number', breaks: 'not a number' };
  }
  if (schema.type !== 'string') return undefined;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  if (Array.isArray(schema.enum) || pattern) {
    const value = ['not-a-value', 'x'].find((v) => !(Array.isArray(schema.enum) && schema.enum.includes(v)) && !pattern?.test(v));
    if (value !== undefined) return { value, breaks: Array.isArray(schema.enum) ? 'outside the enum' : 'outside the pattern' };
  }
  if (typeof schema.minLength === 'number' && schema.minLength > 0) return { value: '', breaks: 'shorter than the minimum length' };
  if (typeof schema.maxLength === 'number') return { value: 'x'.repeat(schema.maxLength + 1), breaks: 'longer than the maximum length' };
  return undefined;
}

/** Whether a listing page says another page follows (2.6: `has_more` true, or a next cursor offered), wherever it sits. */
export function pageFollows(body: unknown): boolean {
  if (Array.isArray(body)) return false;
  if (body === null || typeof body !== 'object') return false;
  for (const [k, v] of Object.entries(body)) {
    if ((k === 'has_more' && v === true) || (k === 'next_cursor' && typeof v === 'string' && v.length > 0)) return true;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && pageFollows(v)) return true;
  }
  return false;
}
