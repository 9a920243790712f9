// problem-details: every error response of the whole run against section 7. The runner runs this
// topic last, so the exchange log holds what every other topic met; a small sweep of its own adds
// the statuses the log lacks, so the topic also stands alone. On the embedded reference, faults
// force the 429, 500 and 503 that a real host only shows when they happen.
import * as fc from 'fast-check';
import type { ApiRequest, ApiResponse } from '../harness/client.ts';
import type { Exchange } from '../core/model.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';
import { describe } from './support/declare.ts';
import { checksFor, type CheckContext } from './support/check.ts';
import { advanceClock, hasControl, withFaults } from './support/control.ts';
import { apiExchanges, isDocumentedOperation } from './support/exchanges.ts';
import { paths } from './support/paths.ts';
import {
  codeOf,
  describeResponse,
  expectNoServerFault,
  problemViolations,
  typeBase,
  viewOfApiResponse,
  viewOfRecorded,
  type ProblemBody,
  type ProblemViolation,
  type ResponseView,
} from './support/problem.ts';
import { randomUuidV7 } from './support/random-ids.ts';
import { pathIdFormCount, pathIdFormRequests, undeclaredMethodCount, undeclaredMethodRequests, unusualRequestCount, unusualRequests } from './support/unusual.ts';
import { OTHER_ID_FORMS } from '../generators/id-forms.ts';
import { generate } from './support/property.ts';
import { inWaves } from './support/waves.ts';
import { isSandbox } from './support/bulk.ts';
import { isKnownProblemCode } from '../spec/problem-codes.ts';

// The sweep is shared: at most the 401, 403 and 404 reads, a page size too large, the 503, 500
// and up to three reads for a 429 on the embedded reference and one once the clock moved past a
// thousandth of its Retry-After, and four submissions (400, 422, 409). When checks overlap (never
// with a control origin) it is sent early, in a lane, whatever the log holds (`earlySweep`), with
// refused-key-corrected's two retries: at most ten requests then.
const check = checksFor('problem-details', { shared: 14, readsRun: true, sweep: (t) => earlySweep(t) });

/** Every check may be the one that sends the sweep, whose submissions profile safe leaves out. */
const SWEEP = { writes: 'submits invalid bulk SMS bodies and one valid bulk SMS (the sweep)', readsInSafe: true };

interface ErrorResponse {
  view: ResponseView;
  exchange: Exchange;
  /** Set for the sweep's own responses (full evidence, and what the request was for). */
  live?: ApiResponse;
  /** A 400 for invalid body fields or query parameters: `errors` is required. */
  fieldErrorsExpected?: boolean;
  violations: ProblemViolation[];
}

const where = (x: Exchange, view: ResponseView) => `${x.request.method} ${x.request.url} -> ${view.status}`;

// ---- the sweep ---------------------------------------------------------------------------------

interface SweepItem {
  res: ApiResponse;
  fieldErrorsExpected?: boolean;
}

/** A submission of the sweep refused for its body under a key, and the body that corrects it. */
interface KeyedRefusal {
  what: string;
  key: string;
  res: ApiResponse;
  corrected: Record<string, unknown>;
}

/** The sweep's submissions refused under a key (filled by `sweep`, read by refused-key-corrected). */
const keyedRefusals: KeyedRefusal[] = [];

/** The sweep sent early (checks overlap): every request, whatever the log holds. */
let sentEarly: Promise<SweepItem[]> | undefined;

/**
 * The sweep before any log is read, when the checks overlap (suites/support/lanes.ts): what the log
 * holds then depends on the lanes' timing, so it sends every request of the sweep. Never with a
 * control origin (such runs do not overlap): its faults must not be switched while other checks run.
 */
function earlySweep(t: CheckContext): Promise<unknown> {
  if (hasControl(t)) return Promise.resolve();
  sentEarly ??= (async () => {
    const out = await sweep(t, undefined);
    // refused-key-corrected's retries go with it (counted to the sweep's check), so that nothing
    // but judging is left for the run's end; only when that check runs (selected, its needs met:
    // its declaration says so). Otherwise, or declared later, the check sends them itself.
    for (const r of correctsRefusedKeys ? refusedUnderKey() : []) {
      // Its needs (businessId among them) are met, or it would not run.
      const res = t.api.send(correctedRetry(t.config.fixtures.businessId!, r));
      correctedEarly.set(r.key, res);
      await res.catch(() => undefined);
    }
    return out;
  })();
  return sentEarly;
}

/** Whether refused-key-corrected runs in this run, as its declaration returned. */
let correctsRefusedKeys = false;

/** The corrected retries sent with the early sweep, by the refused key (read by refused-key-corrected). */
const correctedEarly = new Map<string, Promise<ApiResponse>>();

/** The sweep's submissions refused under a key for their body (not paced): each is retried corrected. */
const refusedUnderKey = () => keyedRefusals.filter((r) => r.res.status >= 400 && r.res.status < 500 && r.res.status !== 429);

/** A refused submission sent again under its key, corrected. */
const correctedRetry = (businessId: string, r: KeyedRefusal): ApiRequest => ({
  method: 'POST',
  path: paths.bulkMessages(businessId),
  headers: { 'Idempotency-Key': r.key },
  json: r.corrected,
});

/**
 * Sends one request per error the run has not met yet (and always the field-level 400s); every
 * request when `logged` is undefined (the sweep sent early).
 */
async function sweep(t: CheckContext, logged: ResponseView[] | undefined): Promise<SweepItem[]> {
  const f = t.config.fixtures;
  const out: SweepItem[] = [];
  const seen = (status: number, code?: string) => logged?.some((v) => v.status === status && (code === undefined || codeOf(v.json) === code)) ?? false;
  const send = async (request: ApiRequest, fieldErrorsExpected = false) => {
    out.push({ res: await t.api.send(request), fieldErrorsExpected });
  };
  // The 429 and 503 forced below are the answers this sweep wants to see, not pacing.
  const sendForced = async (request: ApiRequest) => {
    out.push({ res: await t.api.send({ ...request, seePacing: true }) });
  };
  const business = f.businessId ?? randomUuidV7(t, 'problem/business');

  if (!seen(401)) await send({ method: 'GET', path: paths.walletBalance(business), as: 'none' });
  if (!seen(403)) await send({ method: 'GET', path: paths.walletBalance(f.otherBusinessId ?? randomUuidV7(t, 'problem/other')) });
  if (!seen(404)) await send({ method: 'GET', path: paths.message(business, randomUuidV7(t, 'problem/message')) });
  // A page size above the maximum: a query-parameter failure, so errors[] is required.
  if (f.businessId && f.expiredCursorBulkId) {
    await send({ method: 'GET', path: paths.bulkRecipients(f.businessId, f.expiredCursorBulkId), query: [[t.config.params.limit, '1001']] }, true);
  }
  // Faults of the embedded reference are switched on its control origin and read with GETs, so
  // they belong to the safe profile too.
  if (hasControl(t)) {
    const wallet: ApiRequest = { method: 'GET', path: paths.walletBalance(business) };
    if (!seen(503, 'service_unavailable')) {
      await withFaults(t, { serviceUnavailable: true }, 'a 503 service_unavailable', () => sendForced(wallet));
    }
    if (!seen(500)) await withFaults(t, { internalError: true }, 'a 500 internal_error', () => sendForced(wallet));
    if (!seen(429)) {
      // One request a minute, then two more: the third at the latest is over the limit.
      await withFaults(t, { rateLimitPerMinute: 1 }, 'a 429 rate_limit_exceeded', async () => {
        for (let i = 0; i < 3; i++) {
          await sendForced(wallet);
          if (out.at(-1)!.res.status === 429) break;
        }
        const limited = out.at(-1)!.res;
        if (limited.status === 429) retryAfterLift = await liftBeforeRetryAfter(t, limited, wallet);
      });
    }
  }
  const pool = f.recipients ?? [];
  // Submissions only go to numbers the run may send to (harness/safety.ts).
  if (t.config.settings.profile === 'safe' || !f.businessId || pool.length === 0) return out;

  const body = (extra: Record<string, unknown> = {}) => ({
    from: f.senderId ?? 'Conformance',
    classification: 'transactional',
    message: 'conformance problem-details sweep',
    recipients: [{ to: pool[0]! }],
    ...extra,
  });
  // An invalid body field (the classification), everything else valid: errors[] is required.
  const key400 = t.api.idempotencyKey('problem-400');
  await send({ method: 'POST', path: paths.bulkMessages(f.businessId), headers: { 'Idempotency-Key': key400 }, json: body({ classification: 'conformance-invalid' }) }, true);
  keyedRefusals.push({ what: 'a submission refused for an invalid classification', key: key400, res: out.at(-1)!.res, corrected: body() });
  if (!seen(422)) {
    const recipients = Array.from({ length: 1001 }, (_, i) => ({ to: pool[i % pool.length]! }));
    const key422 = t.api.idempotencyKey('problem-422');
    await send({ method: 'POST', path: paths.bulkMessages(f.businessId), headers: { 'Idempotency-Key': key422 }, json: body({ recipients }) });
    keyedRefusals.push({ what: 'a submission refused for 1001 recipients', key: key422, res: out.at(-1)!.res, corrected: body() });
  }
  if (f.senderId && !seen(409)) {
    const key = t.api.idempotencyKey('problem-409');
    const first = await t.api.send({ method: 'POST', path: paths.bulkMessages(f.businessId), headers: { 'Idempotency-Key': key }, json: body() });
    if (first.status === 202) {
      await send({ method: 'POST', path: paths.bulkMessages(f.businessId), headers: { 'Idempotency-Key': key }, json: body({ message: 'conformance problem-details sweep, changed' }) });
    }
  }
  return out;
}

/** A forced 429's Retry-After read as seconds, and the read sent once the business clock moved a thousandth of it on. */
interface RetryAfterLift {
  limited: ApiResponse;
  seconds: number;
  movedMs: number;
  after: ApiResponse;
}

/** What the sweep's forced 429 showed of its Retry-After's unit (read by retry-after). */
let retryAfterLift: RetryAfterLift | undefined;

/**
 * 7: Retry-After is a number of seconds. A value a thousand times the wait the limit needs (its
 * milliseconds) shows once the business clock moves on by a thousandth of it, plus one second:
 * the limit has lifted long before the wait the header asks for. Only for a value at least ten
 * times that move, so a rounded-up count of seconds is never taken for milliseconds.
 */
async function liftBeforeRetryAfter(t: CheckContext, limited: ApiResponse, request: ApiRequest): Promise<RetryAfterLift | undefined> {
  const value = limited.headers['retry-after']?.trim();
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  const seconds = Number(value);
  const movedMs = (Math.floor(seconds / 1000) + 1) * 1000;
  if (seconds < (10 * movedMs) / 1000) return undefined;
  await advanceClock(t, movedMs);
  const after = await t.api.send({ ...request, seePacing: true });
  return { limited, seconds, movedMs, after };
}

// ---- every error response of the run ----------------------------------------------------------

let collected: Promise<ErrorResponse[]> | undefined;

function errorResponses(t: CheckContext): Promise<ErrorResponse[]> {
  collected ??= (async () => {
    const logged = apiExchanges(t.config).map((x) => ({ x, view: viewOfRecorded(x.response) }));
    // Sent early, its exchanges are in the log already (left out of `logged` below, as its own).
    const swept = await (sentEarly ??
      sweep(
        t,
        logged.map((l) => l.view),
      ));
    const sweptCurls = new Set(swept.map((s) => s.res.exchange.curl));
    const all: ErrorResponse[] = [];
    for (const { x, view } of logged) {
      // Paths that are no operation: what they answer is not shown (AUTH-UNKNOWN-PATH).
      if (view.status < 400 || sweptCurls.has(x.curl) || !isDocumentedOperation(t.config, x)) continue;
      all.push({ view, exchange: x, violations: problemViolations(view, { secrets: t.config.secrets }) });
    }
    for (const { res, fieldErrorsExpected } of swept) {
      if (res.status < 400) continue;
      const view = viewOfApiResponse(res);
      all.push({ view, exchange: res.exchange, live: res, fieldErrorsExpected, violations: problemViolations(view, { secrets: t.config.secrets, fieldErrorsExpected }) });
    }
    return all;
  })();
  return collected;
}

/** Fails on the first response that breaks one of `requirements`; notes how many were judged. */
async function judge(t: CheckContext, requirements: RequirementId[]): Promise<ErrorResponse[]> {
  const all = await errorResponses(t);
  if (all.length === 0) t.skip('no error response was met in the run');
  for (const item of all) {
    const broken = item.violations.find((v) => requirements.includes(v.requirement));
    if (broken) {
      t.evidence(item.exchange);
      t.fail(broken.requirement, broken.expected, `${broken.actual} on ${where(item.exchange, item.view)}`, ...(item.live ? [item.live] : []));
    }
  }
  const statuses = [...new Set(all.map((i) => i.view.status))].sort((a, b) => a - b);
  t.note(`${all.length} error responses judged (statuses ${statuses.join(', ')})`);
  return all;
}

const bodyOf = (item: ErrorResponse) => (item.view.json !== null && typeof item.view.json === 'object' ? (item.view.json as ProblemBody) : undefined);

describe('problem-details (7)', () => {
  check(
    {
      id: 'media-type',
      title: 'Every error response of the run (and of a sweep over 400, 401, 403, 404, 409, 422, 429, 500, 503): Content-Type application/problem+json',
      requirements: ['PROB-MEDIA-TYPE'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      await judge(t, ['PROB-MEDIA-TYPE']);
    },
  );

  check(
    {
      id: 'schema',
      title: 'Every error response of the run: a problem with type, title, status, detail, code and request_id of their section 7 types',
      requirements: ['PROB-SCHEMA'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      await judge(t, ['PROB-SCHEMA']);
    },
  );

  check(
    {
      id: 'status-member',
      title: 'Every problem of the run: its status member equals the HTTP status',
      requirements: ['PROB-STATUS-MATCH'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      await judge(t, ['PROB-STATUS-MATCH']);
    },
  );

  check(
    {
      id: 'code-and-status',
      title: 'Every problem of the run: code is a section 7 code and travels with the status of the error table',
      requirements: ['PROB-CODE-KNOWN', 'PROB-CODE-STATUS', 'PROB-OTP-CODES'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      const all = await judge(t, ['PROB-CODE-KNOWN', 'PROB-CODE-STATUS']);
      const pairs = [...new Set(all.map((i) => describeResponse(i.view)))].sort();
      t.note(`status and code pairs met: ${pairs.join(', ')}`);
    },
  );

  check(
    {
      id: 'type-form',
      title: 'Every problem of the run: type ends in /{code}, and every type shares one namespace base',
      requirements: ['PROB-TYPE-FORM'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      const all = await judge(t, ['PROB-TYPE-FORM']);
      const bases = new Map<string, ErrorResponse>();
      for (const item of all) {
        const body = bodyOf(item);
        if (typeof body?.type !== 'string' || !isKnownProblemCode(body.code)) continue;
        const base = typeBase(body.type, body.code);
        if (base !== undefined && !bases.has(base)) bases.set(base, item);
      }
      if (bases.size > 1) {
        const [[firstBase, first], [otherBase, other]] = [...bases.entries()] as [[string, ErrorResponse], [string, ErrorResponse]];
        t.evidence(first.exchange, other.exchange);
        t.fail(
          'PROB-TYPE-FORM',
          `one problem namespace base for every code (${firstBase}/{code} for ${codeOf(first.view.json)})`,
          `${otherBase}/${codeOf(other.view.json)} on ${where(other.exchange, other.view)}`,
          ...[first.live, other.live].filter((r): r is ApiResponse => r !== undefined),
        );
      }
      if (bases.size === 1) t.note(`problem namespace base ${[...bases.keys()][0]}`);
    },
  );

  check(
    {
      id: 'title-stable',
      title: 'Every problem of the run: one title per code',
      requirements: ['PROB-TITLE-STABLE'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      const all = await errorResponses(t);
      if (all.length === 0) t.skip('no error response was met in the run');
      const titles = new Map<string, { title: string; item: ErrorResponse }>();
      for (const item of all) {
        const body = bodyOf(item);
        if (typeof body?.code !== 'string' || typeof body.title !== 'string') continue;
        const known = titles.get(body.code);
        if (!known) titles.set(body.code, { title: body.title, item });
        else if (known.title !== body.title) {
          t.evidence(known.item.exchange, item.exchange);
          t.fail(
            'PROB-TITLE-STABLE',
            `title ${JSON.stringify(known.title)} for every ${body.code}`,
            `title ${JSON.stringify(body.title)} on ${where(item.exchange, item.view)}`,
            ...[known.item.live, item.live].filter((r): r is ApiResponse => r !== undefined),
          );
        }
      }
      t.note(`${titles.size} codes met, each with one title`);
    },
  );

  check(
    {
      id: 'detail-no-secrets',
      title: 'Every problem of the run: detail holds no client secret, credential, token or stack trace',
      requirements: ['PROB-DETAIL-NO-SECRETS'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      await judge(t, ['PROB-DETAIL-NO-SECRETS']);
    },
  );

  check(
    {
      id: 'validation-errors',
      title: 'A 400 for an invalid body field and for a page size above 1000: validation_failed with errors[] naming the field; every errors[] of the run has items of exactly pointer and code',
      requirements: ['PROB-VALIDATION-ERRORS', 'PROB-FIELD-CODES'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      const all = await judge(t, ['PROB-VALIDATION-ERRORS']);
      const fieldLevel = all.filter((i) => i.fieldErrorsExpected);
      for (const item of fieldLevel) {
        const errors = bodyOf(item)?.errors;
        if (item.view.status === 400 && codeOf(item.view.json) === 'validation_failed' && Array.isArray(errors)) {
          t.note(`${item.exchange.request.method} ${new URL(item.exchange.request.url).pathname}: errors ${JSON.stringify(errors).slice(0, 200)}`);
        } else {
          t.note(`${item.exchange.request.method} ${new URL(item.exchange.request.url).pathname}: ${describeResponse(item.view)} (not a validation failure here)`);
        }
      }
      if (fieldLevel.length === 0) t.note('no field-level 400 could be provoked here (safe profile or fixtures missing); errors[] shape judged where present');
    },
  );

  check(
    {
      id: 'retry-after',
      title: 'Every Retry-After of the run is delay-seconds or an HTTP-date, and every 429 rate_limit_exceeded and 503 service_unavailable carries one (forced on the embedded reference, where the forced 429 still holds once the clock moved a thousandth of its Retry-After on: the wait is counted in seconds)',
      requirements: ['PROB-RETRY-AFTER', 'PROB-RATE-LIMIT'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      const all = await judge(t, ['PROB-RETRY-AFTER']);
      // Blind defect blind9-retry-after-milliseconds: the limiter wrote the time left in milliseconds.
      const lift = retryAfterLift;
      if (lift && lift.after.status >= 200 && lift.after.status < 300) {
        t.fail(
          'PROB-RETRY-AFTER',
          `Retry-After in seconds: a wait of about ${lift.seconds} s before the limit lifts`,
          `Retry-After ${lift.seconds}, yet the same read passed ${lift.movedMs / 1000} s later (a value in milliseconds)`,
          lift.limited,
          lift.after,
        );
      }
      const relevant = all.filter((i) => i.view.status === 429 || i.view.status === 503);
      if (relevant.length === 0) t.skip('no 429 or 503 was met, and none can be forced on this target', hasControl(t) ? 'precondition' : 'not-observable');
      t.note(relevant.map((i) => `${describeResponse(i.view)} Retry-After ${i.view.headers['retry-after'] ?? '(none)'}`).join('; '));
    },
  );

  check(
    {
      id: 'instance',
      title: 'Every problem of the run: an instance member, a URI reference (recommended)',
      requirements: ['PROB-INSTANCE'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      const all = await errorResponses(t);
      const bodies = all.filter((i) => bodyOf(i) !== undefined);
      if (bodies.length === 0) t.skip('no problem body was met in the run');
      const without = bodies.find((i) => typeof bodyOf(i)!.instance !== 'string' || bodyOf(i)!.instance === '');
      if (without) {
        t.evidence(without.exchange);
        t.fail('PROB-INSTANCE', 'an instance member (recommended)', `no instance on ${where(without.exchange, without.view)}`, ...(without.live ? [without.live] : []));
      }
      // Blind defect blind-problem-instance-with-space: present, it is a URI reference (RFC 3986
      // leaves no room for a space, a quote or angle brackets in one).
      const notUri = bodies.find((i) => /[\s"<>{}|\\^`]/.test(String(bodyOf(i)!.instance)));
      if (notUri) {
        t.evidence(notUri.exchange);
        // waiver: proven by blind-problem-instance-with-space in both modes (npm run matrix -- --blind), which stays blind: a space in instance also breaks PROB-SCHEMA's must, so no one-rule defect of the main registry can reach this line alone
        t.fail('PROB-INSTANCE', 'instance a URI reference', `instance ${JSON.stringify(bodyOf(notUri)!.instance)} on ${where(notUri.exchange, notUri.view)}`, ...(notUri.live ? [notUri.live] : []));
      }
    },
  );

  check(
    {
      id: 'internal-error',
      title: 'A 500 met in the run (forced on the embedded reference) is a problem with code internal_error',
      requirements: ['PROB-INTERNAL-ERROR', 'PROB-CODE-STATUS'],
      maxRequests: 0,
      ...SWEEP,
    },
    async (t) => {
      const all = await errorResponses(t);
      const fiveHundreds = all.filter((i) => i.view.status === 500);
      if (fiveHundreds.length === 0) t.skip('no 500 was met, and none can be forced on this target', hasControl(t) ? 'precondition' : 'not-observable');
      for (const item of fiveHundreds) {
        const code = codeOf(item.view.json);
        if (code !== 'internal_error') {
          t.evidence(item.exchange);
          t.fail('PROB-CODE-STATUS', '500 internal_error', `${describeResponse(item.view)} on ${where(item.exchange, item.view)}`, ...(item.live ? [item.live] : []));
        }
      }
    },
  );

  correctsRefusedKeys = check(
    {
      id: 'refused-key-corrected',
      title:
        "The sweep's submissions refused under a key (400 validation_failed for a field, and 422 recipient_limit_exceeded for 1001 recipients when the run met none), each sent again corrected under its key: a new bulk, the refusal again or 409 (4.1 rule 6 leaves it open), never a 5xx",
      requirements: ['PROB-NO-5XX-FOR-CLIENT-FAULT'],
      needs: ['businessId', 'senderId'],
      needsOnHost: ['recipients'],
      maxRequests: 2,
      writes: 'submits invalid bulk SMS bodies (the sweep), then each corrected under its key',
    },
    async (t) => {
      // Blind defect blind9-key-reserved-by-refusal-500: a key reserved before the body was read
      // and never released by its refusal; the corrected retry under it met a reservation without
      // a response (500). What a refusal leaves of its key is not shown (4.1 rule 6), so any answer
      // of the client-error range is taken; a server error for a correct request is not.
      await errorResponses(t);
      const refused = refusedUnderKey();
      if (refused.length === 0) t.skip('the sweep sent no submission that was refused under a key (profile safe, fixtures missing, or none refused)');
      const answers: string[] = [];
      for (const r of refused) {
        // Sent with the early sweep when the checks overlap, else now.
        const res = await (correctedEarly.get(r.key) ?? t.api.send(correctedRetry(t.fixture('businessId'), r)));
        if (!expectNoServerFault(t, res, `the corrected retry under the key of ${r.what} (${describeResponse(r.res)})`)) continue;
        answers.push(`${r.what}, corrected under its key: ${describeResponse(res)}`);
      }
      t.note(answers.join('; '));
    },
  );

  check(
    {
      id: 'unusual-requests-no-5xx',
      title:
        'Every operation of the spec sent with one unusual but well-formed change (Accept of another type or with q-values, an unknown or a repeated query parameter, a trailing slash, an extra header, an empty body where none is taken), every path id of every operation in upper case and in one other form (braces, no hyphens, a urn:uuid: prefix, white space around it, a UUIDv4, one character), and every path with a method the spec does not declare on it: never a 5xx',
      requirements: ['PROB-NO-5XX-FOR-CLIENT-FAULT'],
      uses: ['businessId', 'expiredCursorBulkId', 'messageId', 'recipients'],
      maxRequests: () => unusualRequestCount() + pathIdFormCount() + undeclaredMethodCount(),
      // Writes go only where a refusal follows (an unknown endpoint, an invalid body): nothing changes.
      writes: 'sends a DELETE of a random endpoint id, an invalid bulk SMS body and methods no path declares without a body, each refused',
      readsInSafe: true,
      // Judges its own answers only: against a host it runs beside the other lanes.
      readsNoLog: true,
    },
    async (t) => {
      // Blind defects blind-accept-xml-500 and blind-repeated-query-param-500: what the document
      // does not describe is still no server fault, on every operation.
      const unknownId = randomUuidV7(t, 'problem/unusual-endpoint');
      const key = (label: string) => t.api.idempotencyKey(`unusual-${label}`);
      const all = [
        ...unusualRequests(t.config.fixtures, t.config.params, unknownId, key, isSandbox(t.config)),
        // Blind defect blind6-upper-case-bulk-id-500: a path id in a form a parser trips on.
        ...pathIdFormRequests(t.config.fixtures, unknownId, key, generate(t, fc.nat({ max: OTHER_ID_FORMS.length - 1 }), 'path id form start')),
        ...undeclaredMethodRequests(t.config.fixtures, unknownId, key, t.config.target.embedded),
      ];
      const cases = all.filter((c) => !c.writes || t.config.settings.profile !== 'safe');
      if (cases.length === 0) t.skip('the fixtures name no business, so no operation can be called');
      const answers: string[] = [];
      // Independent requests, each refused or read: sent a wave at a time.
      const idForms: string[] = [];
      await inWaves(t, cases, (c) => t.api.send(c.request), (c, res) => {
        if (!expectNoServerFault(t, res, c.name)) return;
        // How the target reads an id in another form (upper case is a UUID too): recorded, not judged.
        if (c.idForm) idForms.push(`${c.name}: ${res.status}`);
        else answers.push(`${c.name}: ${describeResponse(res)}`);
      });
      if (idForms.length > 0) t.note(`path ids in other forms: ${idForms.join('; ')}`);
      t.note(`${cases.length} unusual requests, none answered 5xx${all.length > cases.length ? ` (${all.length - cases.length} writes left out in profile safe)` : ''}`);
      t.note(answers.slice(0, 12).join('; '));
    },
  );
});
