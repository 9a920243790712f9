// schemas: every response of the run against the document's shapes (2, 4, 9). It reads the
// exchange log of the whole run (harness/runner.ts runs this topic last) and adds a small sweep
// of its own so it also works alone.
import type { Exchange, RecordedResponse } from '../core/model.ts';
import { operationIds, type OperationId } from '../spec/contract.ts';
import { operation, validateResponse, type SchemaFailure } from '../spec/validators.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';
import { COMPONENT_RULES } from '../spec/schema-rules.ts';
import type { CheckContext } from './support/check.ts';
import { describe } from './support/declare.ts';
import { checksFor } from './support/check.ts';
import { businessIdOf, maySubmit, submitBulk, validBodies } from './support/bulk.ts';
import { apiExchanges, jsonBodyOf, type ApiExchange } from './support/exchanges.ts';
import { paths } from './support/paths.ts';
import { generate } from './support/property.ts';
import { randomUuidV7 } from './support/random-ids.ts';
import { allInWaves } from './support/waves.ts';
import type { ApiRequest } from '../harness/client.ts';
import { describeResponse } from './support/problem.ts';
import { CLOCK_TOLERANCE_MS, describeLead, timestampsAfterDate } from './support/timestamps.ts';

// The sweep is shared: at most six reads, a submission and two reads of the bulk it created.
// It reads no log: when checks overlap it is sent early, in a lane (suites/support/lanes.ts).
const check = checksFor('schemas', { shared: 9, readsRun: true, uses: ['businessId', 'senderId', 'recipients'], sweep: (t) => ownSweep(t) });

/** Every check may be the one that sends the sweep, whose submission profile safe leaves out. */
const SWEEP = { writes: 'creates a bulk SMS (the sweep)', readsInSafe: true };

// ---- which operation answered ---------------------------------------------------------------

const matchers = operationIds.map((id) => {
  const op = operation(id);
  const pattern = new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return { id, method: op.method.toUpperCase(), pattern };
});

/** The operation a request addressed, by method and path template; undefined for other paths. */
function operationOf(baseUrl: string, method: string, url: string): OperationId | undefined {
  const base = baseUrl.replace(/\/+$/, '');
  if (!url.startsWith(base)) return undefined;
  const path = url.slice(base.length).split('?')[0]!.split('#')[0]!;
  return matchers.find((m) => m.method === method.toUpperCase() && m.pattern.test(path))?.id;
}

// ---- which rule a schema failure breaks -----------------------------------------------------


/** Failures of problem bodies and their headers are the problem-details and request-id topics' to judge. */
const LEFT_TO_OTHER_TOPICS = /\/components\/schemas\/(Problem|ProblemFieldError|ProblemCode|RetryAfter)\b/;

/**
 * The rule of the envelope an operation's success answer carries: the component rule of the body
 * schema its declared 2xx responses give (the listing's BulkRecipientPage: SCH-LISTING-ENVELOPE), or
 * undefined when that schema has no rule of its own.
 */
function successEnvelopeRule(operationId: OperationId): RequirementId | undefined {
  for (const [code, response] of Object.entries(operation(operationId).responses)) {
    if (!/^2\d\d$/.test(code)) continue;
    const ref = (response as { content?: Record<string, { schema?: { $ref?: unknown } }> }).content?.['application/json']?.schema?.$ref;
    const component = typeof ref === 'string' ? ref.split('/').pop() : undefined;
    const rule = COMPONENT_RULES.find(([c]) => c === component)?.[1];
    if (rule) return rule;
  }
  return undefined;
}

function ruleOf(f: SchemaFailure, status: number): RequirementId | undefined {
  if (f.in === 'header') {
    const header = (f.header ?? '').toLowerCase();
    if (header === 'x-request-id') return f.keyword === 'required' ? 'RID-EVERY-RESPONSE' : 'RID-FORMAT';
    if (header === 'location') return 'BULK-LOCATION';
    if (header === 'content-type') return status < 400 ? 'SCH-JSON-MEDIA-TYPE' : undefined;
    return undefined; // Retry-After: problem-details
  }
  if (LEFT_TO_OTHER_TOPICS.test(f.schemaPath)) return undefined;
  if (status >= 400) return undefined; // problem bodies: problem-details
  if (f.keyword === 'additionalProperties') return 'SCH-NO-EXTRA-PROPERTIES';
  for (const [component, rule] of COMPONENT_RULES) {
    if (f.schemaPath.includes(`/components/schemas/${component}/`)) return rule;
  }
  if (f.schemaPath.includes('/components/schemas/SmsBulkMessage/')) return f.keyword === 'required' ? 'SCH-BULK-REQUIRED' : 'SCH-BULK-FIELD-TYPES';
  return 'SCH-RESPONSE-SCHEMAS';
}

/**
 * A nullable member that fails its object branch also fails the `null` branch and the `oneOf`
 * itself; those two say nothing more, so they are dropped when a more specific failure exists.
 */
function specific(failures: SchemaFailure[]): SchemaFailure[] {
  const noise = (f: SchemaFailure) => f.keyword === 'oneOf' || (f.keyword === 'type' && f.params.type === 'null');
  const rest = failures.filter((f) => !noise(f));
  return rest.length > 0 ? rest : failures;
}

interface Finding {
  exchange: Exchange;
  operationId: OperationId;
  status: number;
  requirement: RequirementId;
  failure: SchemaFailure;
}

interface Audit {
  findings: Finding[];
  inspected: number;
  notInspectable: number;
  byOperation: Map<OperationId, number>;
}

/** Validates every recorded response of an operation of section 4 against the document. */
function audit(baseUrl: string, exchanges: ApiExchange[]): Audit {
  const out: Audit = { findings: [], inspected: 0, notInspectable: 0, byOperation: new Map() };
  for (const x of exchanges) {
    const operationId = operationOf(baseUrl, x.request.method, x.request.url);
    if (!operationId) continue;
    const response: RecordedResponse = x.response;
    const text = response.body ?? '';
    const json = jsonBodyOf(response);
    // The log cuts long bodies; a body that no longer parses is not judged.
    if (text.length > 0 && json === undefined && /… \[cut: \d+ more characters\]$/.test(text)) {
      out.notInspectable++;
      continue;
    }
    out.inspected++;
    out.byOperation.set(operationId, (out.byOperation.get(operationId) ?? 0) + 1);
    // A success status the operation does not declare (a listing's 204 for no rows: blind defect
    // blind8-empty-listing-204) is read against the error response, and leaves out the envelope
    // the declared success carries: that envelope's rule, where it has one of its own.
    const op = operation(operationId);
    const envelope = response.status >= 200 && response.status < 300 && !(String(response.status) in op.responses) ? successEnvelopeRule(operationId) : undefined;
    if (envelope) {
      const declared = Object.keys(op.responses).filter((c) => /^2/.test(c));
      const failure: SchemaFailure = {
        pointer: '', keyword: 'status', schemaPath: `#/paths/${op.path}/responses`, params: { status: response.status, declared }, section: op.section, in: 'response',
        message: `status ${response.status} is not declared for ${operationId} (${declared.join(', ')} with its body is)`,
      };
      out.findings.push({ exchange: x, operationId, status: response.status, requirement: envelope, failure });
    }
    for (const failure of specific(validateResponse(operationId, response.status, response.headers, json, text))) {
      const requirement = ruleOf(failure, response.status);
      if (requirement) out.findings.push({ exchange: x, operationId, status: response.status, requirement, failure });
    }
    // A UTC time says when something happened: never after the answer that shows it (derived for
    // every timestamp of every body; blind defect blind4-wallet-as-of-local-labelled-utc).
    for (const ahead of timestampsAfterDate(json, response.headers['date'])) {
      const failure: SchemaFailure = {
        pointer: ahead.pointer, keyword: 'date', schemaPath: '#/components/schemas/Timestamp', params: {}, section: '2.1', in: 'body',
        message: `${ahead.value} is ${describeLead(ahead.aheadMs)} after the answer's Date header ${response.headers['date']} (tolerance ${CLOCK_TOLERANCE_MS / 60_000} min): a local time labelled UTC`,
      };
      out.findings.push({ exchange: x, operationId, status: response.status, requirement: 'SCH-UTC-TIMESTAMPS', failure });
    }
  }
  return out;
}

// ---- the run's responses, plus a sweep of its own -------------------------------------------

let sweep: Promise<void> | undefined;

/** One response of every operation this target lets the run see, so the topic works alone. */
function ownSweep(t: CheckContext): Promise<void> {
  sweep ??= (async () => {
    const { fixtures } = t.config;
    const businessId = fixtures.businessId;
    if (!businessId) return;
    const gets: string[] = [paths.walletBalance(businessId), paths.bulkMessage(businessId, randomUuidV7(t, 'schemas sweep bulk'))];
    if (fixtures.messageId) gets.push(paths.message(businessId, fixtures.messageId));
    if (fixtures.expiredCursorBulkId) {
      gets.push(paths.bulkMessage(businessId, fixtures.expiredCursorBulkId));
      gets.push(paths.bulkRecipients(businessId, fixtures.expiredCursorBulkId));
    }
    const reads: ApiRequest[] = gets.map((path) => ({ method: 'GET', path, ...(path.endsWith('/messages') ? { query: [[t.config.params.limit, '3']] } : {}) }));
    reads.push({ method: 'GET', path: paths.walletBalance(businessId), as: 'none' });
    // Independent reads: sent a wave at a time.
    await allInWaves(t, reads, (request) => t.api.send(request));
    if (maySubmit(t)) {
      const { response } = await submitBulk(t, generate(t, validBodies(t), 'schemas sweep'));
      const id = (response.json as { id?: unknown } | undefined)?.id;
      if (typeof id === 'string') {
        await allInWaves(t, [{ method: 'GET', path: paths.bulkMessage(businessId, id) }, { method: 'GET', path: paths.bulkRecipients(businessId, id), query: [[t.config.params.limit, '3']] }] satisfies ApiRequest[], (request) => t.api.send(request));
      }
    }
  })();
  return sweep;
}

let audited: Promise<Audit> | undefined;

/**
 * The audit of every response of the run, made once: the topic runs last (harness/package.ts) and
 * its checks send nothing between the sweep and the last audit, so every check would read the same log.
 */
function runAudit(t: CheckContext): Promise<Audit> {
  audited ??= (async () => {
    await ownSweep(t);
    const exchanges = apiExchanges(t.config);
    if (exchanges.length === 0) t.skip('no exchange log of this run to read (CONFORMANCE exchange log unavailable)');
    return audit(t.config.target.baseUrl, exchanges);
  })();
  return audited;
}

/** Fails with the first finding of `rules` (keeping a few exchanges as evidence), or notes what was checked. */
function judge(t: CheckContext, result: Audit, rules: RequirementId[], what: string): void {
  const hits = result.findings.filter((f) => rules.includes(f.requirement));
  t.note(`${result.inspected} responses of section 4 operations checked for ${what}${result.notInspectable ? ` (${result.notInspectable} cut in the log, not judged)` : ''}`);
  const first = hits[0];
  if (!first) return;
  for (const h of hits.slice(0, 5)) t.evidence(h.exchange);
  const where = first.failure.in === 'header' ? `header ${first.failure.header}` : `body ${first.failure.pointer || '(root)'}`;
  const count = hits.length > 1 ? ` (and ${hits.length - 1} more finding(s))` : '';
  t.fail(
    first.requirement,
    `${first.operationId} ${first.status} as the document shapes it (${first.failure.schemaPath})`,
    `${first.failure.message} at ${where} of ${first.exchange.request.method} ${first.exchange.request.url}${count}`,
  );
}

/** Component rules the sweep judges in checks of their own (ids, timestamps). */
const OWN_CHECKS: readonly RequirementId[] = ['SCH-UUIDV7', 'SCH-UTC-TIMESTAMPS'];
/** The rules a response body's schema carries (ruleOf's answers for bodies): judged together. */
const BODY_SHAPE_RULES: RequirementId[] = [
  'SCH-RESPONSE-SCHEMAS',
  'SCH-BULK-REQUIRED',
  'SCH-BULK-FIELD-TYPES',
  ...COMPONENT_RULES.map(([, rule]) => rule).filter((rule) => !OWN_CHECKS.includes(rule)),
];

describe('schemas (2, 4, 9)', () => {
  check(
    {
      id: 'bodies-match-schemas',
      title: 'Every successful response of the run has the body the document gives its operation and status',
      requirements: BODY_SHAPE_RULES,
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      const result = await runAudit(t);
      judge(
        t,
        result,
        BODY_SHAPE_RULES,
        'body shapes',
      );
      t.note(`per operation: ${[...result.byOperation].map(([op, n]) => `${op} ${n}`).join(', ')}`);
    },
  );

  check(
    {
      id: 'closed-objects',
      title: 'No response of the run carries members beyond those listed where the document closes an object (and only there)',
      requirements: ['SCH-NO-EXTRA-PROPERTIES', 'SCH-OPEN-OBJECTS'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => judge(t, await runAudit(t), ['SCH-NO-EXTRA-PROPERTIES'], 'closed objects'),
  );

  check(
    {
      id: 'ids-uuidv7',
      title: 'Every id in a response of the run is a UUID version 7',
      requirements: ['SCH-UUIDV7'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => judge(t, await runAudit(t), ['SCH-UUIDV7'], 'UUIDv7 ids'),
  );

  check(
    {
      id: 'timestamps-utc',
      title: "Every timestamp in a response of the run is RFC 3339 in UTC with a Z offset, and none is after the answer's Date header",
      requirements: ['SCH-UTC-TIMESTAMPS'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => judge(t, await runAudit(t), ['SCH-UTC-TIMESTAMPS'], 'UTC timestamps'),
  );

  check(
    {
      id: 'media-types-and-headers',
      title: 'Every successful response of the run is application/json where it has a body, every response has X-Request-Id, every 202 has Location',
      requirements: ['SCH-JSON-MEDIA-TYPE', 'RID-EVERY-RESPONSE', 'RID-FORMAT', 'BULK-LOCATION'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => judge(t, await runAudit(t), ['SCH-JSON-MEDIA-TYPE', 'RID-EVERY-RESPONSE', 'RID-FORMAT', 'BULK-LOCATION'], 'media types and headers'),
  );

  check(
    {
      id: 'no-batches-path',
      title: 'GET (and, in profile full, POST) /sms/batches: never 2xx, never 5xx',
      requirements: ['SCH-NO-BATCHES-PATH'],
      maxRequests: 2,
      writes: 'submits a bulk SMS body to /sms/batches (not an operation)',
      readsInSafe: true,
      readsNoLog: true,
    },
    async (t) => {
      const businessId = businessIdOf(t);
      const batches = `/v1/businesses/${encodeURIComponent(businessId)}/sms/batches`;
      const answers = [await t.api.send({ method: 'GET', path: batches })];
      if (maySubmit(t)) {
        const body = generate(t, validBodies(t), 'batches');
        answers.push(
          await t.api.send({ method: 'POST', path: batches, json: body, headers: { 'Idempotency-Key': t.api.idempotencyKey('batches') } }),
        );
      }
      for (const res of answers) {
        t.expect(res.status >= 400 && res.status < 500, 'SCH-NO-BATCHES-PATH', `a 4xx for ${res.exchange.request.method} /sms/batches`, describeResponse(res), res);
      }
      t.note(`/sms/batches answered ${answers.map((r) => r.status).join(', ')}`);
    },
  );
});
