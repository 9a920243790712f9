// concealment: existence across businesses (4.4, 5.8). Another business's message, asked for
// under one's own business, must look exactly like a message that exists nowhere: same status,
// code, problem members and headers, no trace of the other business. Timing is only advisory.
import type { ApiResponse } from '../harness/client.ts';
import { describe } from './support/declare.ts';
import { checksFor, type CheckContext } from './support/check.ts';
import { paths } from './support/paths.ts';
import { codeOf, describeResponse, expectProblem } from './support/problem.ts';
import { randomUuidV7 } from './support/random-ids.ts';
import { jsonSchemaFor } from '../spec/validators.ts';

// The first reads of the foreign and nonexistent messages are shared by the checks that judge them.
const check = checksFor('concealment', { shared: 3 });

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

interface Difference {
  what: string;
  foreign: string;
  random: string;
}

/** Differences between two answers beyond request-specific values; `soft` ones are advisory. */
function compareAnswers(
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

const describeDifference = (d: Difference) => `${d.what}: ${d.foreign} (other business's) vs ${d.random} (nonexistent)`;

interface Pair {
  businessId: string;
  foreignId: string;
  randomId: string;
  foreign: ApiResponse;
  random: ApiResponse;
  /** A second nonexistent id's answer: shows which values change from one response to the next. */
  control: { res: ApiResponse; id: string };
}

let messagePair: Promise<Pair> | undefined;

/** The other business's message and a nonexistent one, both asked for under the caller's business. */
async function foreignAndRandomMessage(t: CheckContext): Promise<Pair> {
  const businessId = t.fixture('businessId');
  const foreignId = t.fixture('foreignMessageId');
  messagePair ??= (async () => {
    const randomId = randomUuidV7(t, 'concealment/message');
    const foreign = await t.api.send({ method: 'GET', path: paths.message(businessId, foreignId) });
    const random = await t.api.send({ method: 'GET', path: paths.message(businessId, randomId) });
    const controlId = randomUuidV7(t, 'concealment/message-control');
    const control = { res: await t.api.send({ method: 'GET', path: paths.message(businessId, controlId) }), id: controlId };
    return { businessId, foreignId, randomId, foreign, random, control };
  })();
  return messagePair;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

describe('concealment (4.4, 5.8)', () => {
  check(
    {
      id: 'foreign-message-404',
      title: "GET another business's message under the caller's business: 404 resource_not_found, as for a message that does not exist",
      requirements: ['CONC-CROSS-BUSINESS-MESSAGE'],
      needs: ['businessId', 'foreignMessageId'],
      maxRequests: 0,
    },
    async (t) => {
      const { foreign } = await foreignAndRandomMessage(t);
      expectProblem(t, foreign, {
        status: 404,
        codes: ['resource_not_found'],
        requirement: 'CONC-CROSS-BUSINESS-MESSAGE',
        why: "4.4: another business's message is not disclosed",
      });
    },
  );

  check(
    {
      id: 'foreign-message-same-as-nonexistent',
      title: "GET another business's message and a nonexistent one under the caller's business: same status, code, problem members and values (ids normalised), header names; no trace of the other business",
      requirements: ['CONC-SAME-AS-MISSING', 'CONC-CROSS-BUSINESS-MESSAGE'],
      needs: ['businessId', 'foreignMessageId'],
      maxRequests: 0,
    },
    async (t) => {
      const { foreignId, randomId, foreign, random, control } = await foreignAndRandomMessage(t);
      const other = t.config.fixtures.otherBusinessId;
      if (other && foreign.text.toLowerCase().includes(other.toLowerCase())) {
        t.fail('CONC-SAME-AS-MISSING', 'an answer that does not name the business owning the message', `the answer names the other business ${other}`, foreign, random);
      }
      const { hard, soft } = compareAnswers(foreign, foreignId, random, randomId, control);
      const first = hard[0];
      if (first) {
        t.fail(
          'CONC-SAME-AS-MISSING',
          `the same answer as for a nonexistent message (${describeResponse(random)})`,
          hard.map(describeDifference).join('; '),
          foreign,
          random,
        );
      }
      for (const d of soft) t.advise(`values differ, which may tell the two apart: ${describeDifference(d)}`);
      t.note(`both answered ${describeResponse(foreign)}`);
    },
  );

  check(
    {
      id: 'foreign-message-timing',
      title: "GET another business's message and a nonexistent one 8 times each, interleaved: the same answer every time (a difference fails); median times noted, a large gap reported as an advisory",
      requirements: ['CONC-SAME-AS-MISSING'],
      needs: ['businessId', 'foreignMessageId'],
      timeout: 60_000,
      // 16 timed requests; the first three reads (foreign, nonexistent, control) are shared.
      maxRequests: 16,
    },
    async (t) => {
      const { businessId, foreignId, random: firstRandom } = await foreignAndRandomMessage(t);
      const foreignMs: number[] = [];
      const randomMs: number[] = [];
      for (let i = 0; i < 8; i++) {
        const f = await t.api.send({ method: 'GET', path: paths.message(businessId, foreignId) });
        const r = await t.api.send({ method: 'GET', path: paths.message(businessId, randomUuidV7(t, `concealment/timing/${i}`)) });
        t.expect(
          f.status === r.status && codeOf(f.json) === codeOf(r.json),
          'CONC-SAME-AS-MISSING',
          `the same answer as for a nonexistent message (${describeResponse(r)}) on every repeat`,
          `${describeResponse(f)} on repeat ${i + 1}`,
          f,
          r,
        );
        foreignMs.push(f.exchange.durationMs);
        randomMs.push(r.exchange.durationMs);
      }
      const fm = median(foreignMs);
      const rm = median(randomMs);
      t.note(`median response time: ${fm} ms for the other business's message, ${rm} ms for a nonexistent one (${foreignMs.length} each)`);
      // Loopback and a small sample: only a gap both large in absolute and relative terms is reported.
      if (Math.abs(fm - rm) > 10 && Math.abs(fm - rm) > 0.5 * Math.min(fm, rm)) {
        t.advise(`response times differ (median ${fm} ms vs ${rm} ms): existence may be inferable from timing`);
      }
      t.evidence(firstRandom);
    },
  );

  check(
    {
      id: 'foreign-message-under-ungranted-business',
      title: "GET another business's message and a nonexistent one under that business (no grant): both refused (403 or 404), never 2xx; a difference is reported as an existence leak",
      requirements: ['CONC-OTHER-BUSINESS-PATH', 'CONC-MAY-CONCEAL'],
      needs: ['otherBusinessId', 'foreignMessageId'],
      maxRequests: 2,
    },
    async (t) => {
      const other = t.fixture('otherBusinessId');
      const foreignId = t.fixture('foreignMessageId');
      const randomId = randomUuidV7(t, 'concealment/other-business-message');
      const foreign = await t.api.send({ method: 'GET', path: paths.message(other, foreignId) });
      const random = await t.api.send({ method: 'GET', path: paths.message(other, randomId) });
      for (const res of [foreign, random]) {
        expectProblem(t, res, {
          status: [403, 404],
          codes: ['permission_denied', 'resource_not_found'],
          requirement: 'CONC-OTHER-BUSINESS-PATH',
          why: '5: no grant on the business in the path',
        });
      }
      const { hard } = compareAnswers(foreign, foreignId, random, randomId);
      if (hard.length > 0) {
        t.advise(`existence leak: under a business without grant, an existing message and a nonexistent one are answered differently (${hard.map(describeDifference).join('; ')})`);
      }
      t.note(`no grant answered with ${describeResponse(foreign)}`);
    },
  );

  check(
    {
      id: 'foreign-bulk-concealed',
      title: "GET another business's bulk SMS under the caller's business: refused like a nonexistent bulk (404 resource_not_found or 403), never 200",
      requirements: ['CONC-CROSS-BUSINESS-BULK'],
      needs: ['businessId', 'foreignBulkId'],
      maxRequests: 2,
    },
    async (t) => {
      const businessId = t.fixture('businessId');
      const foreignId = t.fixture('foreignBulkId');
      const randomId = randomUuidV7(t, 'concealment/bulk');
      const foreign = await t.api.send({ method: 'GET', path: paths.bulkMessage(businessId, foreignId) });
      const random = await t.api.send({ method: 'GET', path: paths.bulkMessage(businessId, randomId) });
      expectProblem(t, foreign, {
        status: [403, 404],
        codes: ['resource_not_found', 'permission_denied'],
        requirement: 'CONC-CROSS-BUSINESS-BULK',
        why: "5.6: ownership and isolation of another business's bulk",
      });
      const { hard } = compareAnswers(foreign, foreignId, random, randomId);
      if (hard.length > 0) {
        t.advise(`an existing bulk of another business and a nonexistent bulk are answered differently: ${hard.map(describeDifference).join('; ')}`);
      }
      t.note(`another business's bulk answered with ${describeResponse(foreign)}`);
    },
  );
});
