// Two answers compared for what tells them apart beyond request-specific values (ids, times,
// request ids): the concealment checks and the authorization matrix judge existence leaks with it.
import type { ApiResponse } from '../../harness/client.ts';
import { jsonSchemaFor } from '../../spec/validators.ts';
import { codeOf } from './problem.ts';

const UUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
/** Trace or occurrence ids written as long hex runs (per request, like the request id). */
const HEX_TOKEN = /\b[0-9a-fA-F]{16,}\b/g;
const TIMESTAMP = /\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:?\d{2})?/g;

/** Problem members whose values belong to the occurrence, compared by presence only. */
const OCCURRENCE_MEMBERS = new Set(['request_id', 'instance']);
/**
 * Members section 7 defines: their values must match. Extra members are allowed on a problem and
 * may carry per-occurrence values the checker cannot recognise (a trace id, a time in ms): their
 * presence must match, and a difference in value is advisory when the member also varies between
 * two nonexistent ids (a per-response value), a leak when it does not.
 */
const DOCUMENTED_MEMBERS = new Set(Object.keys((jsonSchemaFor('Problem') as { properties: object }).properties));

/** Headers that never take part in the comparison (connection management). */
const TRANSPORT_HEADERS = new Set(['connection', 'keep-alive']);
/** Headers whose values are naturally per response; their presence is compared, not their values. */
const PER_RESPONSE_VALUES = new Set([
  'date',
  'x-request-id',
  'content-length',
  'etag',
  'last-modified',
  'age',
  'expires',
  'traceparent',
  'tracestate',
  'server-timing',
  'x-response-time',
  'x-correlation-id',
  'x-trace-id',
]);
/** Header values that must be the same for both answers (a different value tells them apart). */
const COMPARED_VALUES = new Set(['content-type', 'cache-control', 'vary', 'www-authenticate']);

/** Replaces what is specific to one request (its ids, times) so two answers can be compared. */
function normalise(value: unknown, requested: string, requestIds: string[]): unknown {
  if (typeof value === 'string') {
    let s = value;
    for (const id of requestIds) if (id) s = s.split(id).join('{request_id}');
    s = s.split(requested).join('{id}').split(requested.toLowerCase()).join('{id}').split(requested.toUpperCase()).join('{id}');
    return s.replace(UUID, '{uuid}').replace(TIMESTAMP, '{time}').replace(HEX_TOKEN, '{token}');
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, requested, requestIds));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, requested, requestIds)]));
  }
  return value;
}

export interface Difference {
  what: string;
  foreign: string;
  random: string;
}

/** Differences between two answers beyond request-specific values; `soft` ones are advisory. */
export function compareAnswers(
  foreign: ApiResponse,
  foreignId: string,
  random: ApiResponse,
  randomId: string,
  control?: { res: ApiResponse; id: string },
): { hard: Difference[]; soft: Difference[] } {
  const hard: Difference[] = [];
  const soft: Difference[] = [];
  if (foreign.status !== random.status) hard.push({ what: 'status', foreign: String(foreign.status), random: String(random.status) });
  const fc = codeOf(foreign.json);
  const rc = codeOf(random.json);
  if (fc !== rc) hard.push({ what: 'code', foreign: String(fc), random: String(rc) });

  const isObj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
  if (isObj(foreign.json) && isObj(random.json)) {
    const fNames = Object.keys(foreign.json).sort();
    const rNames = Object.keys(random.json).sort();
    if (fNames.join(',') !== rNames.join(',')) hard.push({ what: 'problem members', foreign: fNames.join(', '), random: rNames.join(', ') });
    const ids = (r: ApiResponse) => [r.headers['x-request-id'] ?? '', r.exchange.request.headers['x-request-id'] ?? ''];
    const fNorm = normalise(foreign.json, foreignId, ids(foreign)) as Record<string, unknown>;
    const rNorm = normalise(random.json, randomId, ids(random)) as Record<string, unknown>;
    const cNorm = control && isObj(control.res.json) ? (normalise(control.res.json, control.id, ids(control.res)) as Record<string, unknown>) : undefined;
    for (const name of fNames) {
      if (OCCURRENCE_MEMBERS.has(name) || !(name in rNorm)) continue;
      const a = JSON.stringify(fNorm[name]);
      const b = JSON.stringify(rNorm[name]);
      const perResponse = cNorm !== undefined && JSON.stringify(cNorm[name]) !== b;
      if (a !== b) (DOCUMENTED_MEMBERS.has(name) || !perResponse ? hard : soft).push({ what: `member ${name}`, foreign: a, random: b });
    }
  } else if (normalise(foreign.text, foreignId, []) !== normalise(random.text, randomId, [])) {
    hard.push({ what: 'body', foreign: foreign.text.slice(0, 200), random: random.text.slice(0, 200) });
  }

  const names = (r: ApiResponse) => Object.keys(r.headers).filter((h) => !TRANSPORT_HEADERS.has(h)).sort();
  const fh = names(foreign);
  const rh = names(random);
  if (fh.join(',') !== rh.join(',')) hard.push({ what: 'header names', foreign: fh.join(', '), random: rh.join(', ') });
  for (const name of fh) {
    if (!rh.includes(name) || PER_RESPONSE_VALUES.has(name)) continue;
    const a = foreign.headers[name] ?? '';
    const b = random.headers[name] ?? '';
    if (a === b) continue;
    (COMPARED_VALUES.has(name) ? hard : soft).push({ what: `header ${name}`, foreign: a, random: b });
  }
  return { hard, soft };
}

export const describeDifference = (d: Difference) => `${d.what}: ${d.foreign} (other business's) vs ${d.random} (nonexistent)`;

/**
 * What tells two refusals apart to a client: status, code, the problem's member names (the shape)
 * and the values of the members section 7 defines, with what differs per answer anyway masked
 * (ids, request ids, times: `normalise`), so a detail of its own for an object that exists tells
 * it apart (blind defect blind4-foreign-rows-404-own-detail). Occurrence members (request_id,
 * instance) are compared by presence; headers are `headerDifferences`'s.
 */
export function shapeDifferences(a: ApiResponse, b: ApiResponse): string[] {
  const out: string[] = [];
  if (a.status !== b.status) out.push(`status ${a.status} vs ${b.status}`);
  const ca = codeOf(a.json);
  const cb = codeOf(b.json);
  if (ca !== cb) out.push(`code ${String(ca)} vs ${String(cb)}`);
  const isObj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
  const members = (r: ApiResponse) => (isObj(r.json) ? Object.keys(r.json).sort().join(', ') : '(no JSON object)');
  if (members(a) !== members(b)) out.push(`members ${members(a)} vs ${members(b)}`);
  if (isObj(a.json) && isObj(b.json)) {
    // No id of the path to mask beyond the UUIDs `normalise` masks: a character no id holds stands for it.
    const masked = (r: ApiResponse) => normalise(r.json, '\u0000', [r.headers['x-request-id'] ?? '', r.exchange.request.headers['x-request-id'] ?? '']) as Record<string, unknown>;
    const ma = masked(a);
    const mb = masked(b);
    for (const name of Object.keys(ma).sort()) {
      if (!DOCUMENTED_MEMBERS.has(name) || OCCURRENCE_MEMBERS.has(name) || name === 'code' || name === 'status' || !(name in mb)) continue;
      const va = JSON.stringify(ma[name]);
      const vb = JSON.stringify(mb[name]);
      if (va !== vb) out.push(`${name} ${va} vs ${vb}`);
    }
  }
  return out;
}

/** An answer with the ids its request named (a header may echo them). */
export interface Answer {
  res: ApiResponse;
  ids: string[];
}

/** Headers of connection management, never part of what an answer says. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding']);
const HTTP_DATE = /(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT/g;

/** A header value with what is specific to its request replaced: the ids it named, its request id, uuids, times. */
function headerValue(answer: Answer, name: string): string {
  const r = answer.res;
  const requestIds = [r.headers['x-request-id'] ?? '', r.exchange.request.headers['x-request-id'] ?? ''];
  let s = r.headers[name] ?? '';
  for (const id of [...requestIds, ...answer.ids]) if (id) s = s.split(id).join('{id}');
  return (normalise(s.replace(HTTP_DATE, '{time}'), '\u0000', []) as string);
}

const headerNames = (a: Answer) => Object.keys(a.res.headers).filter((h) => !CONNECTION_HEADERS.has(h));

/** Headers that legitimately differ from one answer to the next, learned from answers that cannot differ in substance. */
export interface HeaderVariation {
  /** Present on some of them, absent on others (a header sent now and then). */
  presence: Set<string>;
  /** Present with different values once their ids and times are set aside (a date, a counter, a length of another detail). */
  value: Set<string>;
}

/**
 * What varies among `samples`: answers of one caller to objects that exist nowhere, which tell
 * nothing apart, so whatever differs among them is per response (rate-limit counters, trace ids,
 * the length of each operation's detail) and is set aside when a foreign object's answer is
 * compared with an unknown one's. Derived from the host's answers, not from a list of names.
 */
export function headerVariation(samples: Answer[]): HeaderVariation {
  const presence = new Set<string>();
  const value = new Set<string>();
  const names = new Set(samples.flatMap(headerNames));
  for (const name of names) {
    const having = samples.filter((a) => name in a.res.headers);
    if (having.length < samples.length) presence.add(name);
    if (new Set(having.map((a) => headerValue(a, name))).size > 1) value.add(name);
  }
  return { presence, value };
}

/**
 * Every response header compared between two answers (names, then values with their own ids and
 * times set aside), but for what `variation` shows to change per response. Content-Length restates
 * the body's size: set aside where the bodies are equal once their ids are (an id's length differs).
 */
export function headerDifferences(a: Answer, b: Answer, variation: HeaderVariation): string[] {
  const out: string[] = [];
  const bodiesAlike = (() => {
    let x = a.res.text;
    let y = b.res.text;
    for (const id of a.ids) x = x.split(id).join('{id}');
    for (const id of b.ids) y = y.split(id).join('{id}');
    const ids = (r: ApiResponse) => [r.headers['x-request-id'] ?? '', r.exchange.request.headers['x-request-id'] ?? ''];
    return JSON.stringify(normalise(x, '\u0000', ids(a.res))) === JSON.stringify(normalise(y, '\u0000', ids(b.res)));
  })();
  const set = (name: string) => variation.presence.has(name) || (name === 'content-length' && bodiesAlike);
  const an = headerNames(a).filter((n) => !set(n));
  const bn = headerNames(b).filter((n) => !set(n));
  const onlyA = an.filter((n) => !bn.includes(n));
  const onlyB = bn.filter((n) => !an.includes(n));
  for (const name of onlyA) out.push(`header ${name} (${a.res.headers[name]}) only on the first`);
  for (const name of onlyB) out.push(`header ${name} (${b.res.headers[name]}) only on the second`);
  for (const name of an.filter((n) => bn.includes(n) && !variation.value.has(n))) {
    if (headerValue(a, name) !== headerValue(b, name)) out.push(`header ${name} ${a.res.headers[name]} vs ${b.res.headers[name]}`);
  }
  return out;
}
