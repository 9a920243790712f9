// bulk-invariants: what a bulk SMS says about itself, at acceptance and on every later read
// (2.2 settled / intake / submission / delivery_summary, 3.1 statuses, 4.1 acceptance, 4.2).
import * as fc from 'fast-check';
import type { ApiResponse } from '../harness/client.ts';
import type { CheckContext } from './support/check.ts';
import { describe } from './support/declare.ts';
import { checksFor } from './support/check.ts';
import {
  bulkIdOf,
  businessIdOf,
  getBulk,
  maxPollReads,
  pollUntilCompleted,
  submitAccepted,
  submitForEcho,
  submitBulk,
  validBodies,
  type BulkRequestBody,
  type Observation,
} from './support/bulk.ts';
import type { BulkRequestOptions } from '../generators/bulk-request.ts';
import { forAll, generate } from './support/property.ts';
import { hasControl, reviseTemplate, withFaults } from './support/control.ts';
import { enumOf } from '../spec/contract.ts';
import { sameId } from './support/ids.ts';
import { isValid } from '../spec/validators.ts';
import { boundsOf } from '../generators/boundaries.ts';
import { paths } from './support/paths.ts';
import { describeResponse } from './support/problem.ts';
import { isObject } from '../core/json.ts';
import { writeRowOn } from './support/authorization.ts';
import { peerReadsCost, runPeerReads } from './support/matrix-run.ts';

const check = checksFor('bulk-invariants', { needs: ['businessId', 'senderId'], needsOnHost: ['recipients'] });

/** What every check here sends: submissions (profile safe skips them all). */
const CREATES = 'creates a bulk SMS';
/** The authorization matrix's creation row (the submission): the reads one id deeper name its bulk. */
const SUBMISSION = writeRowOn(undefined);

const STATUSES = enumOf('BulkProcessingStatus');
const CLASSIFICATIONS = enumOf('MessageClassification');
/** Statuses in which nothing has been dispatched, so there is no delivery to report on yet. */
const NOT_YET_DISPATCHED = ['created', 'scheduled', 'queued'];
const COUNT_FIELDS = {
  intake: ['good', 'bad', 'empty'],
  submission: ['processed', 'success', 'failed', 'retryable_failed_count', 'exhausted'],
} as const;

type Json = Record<string, unknown>;

/** Null and omitted are the same thing for the optional objects of 2.2. */
const isAbsent = (v: unknown) => v === null || v === undefined;

/** The earlier read of a bulk whose delivery_summary said complete. */
interface CompleteRead {
  outcomesResolved: unknown;
  response: ApiResponse;
}

/**
 * The rules every observation of a bulk must satisfy, whatever its state. `entries` is the
 * number of submitted recipient entries (an upper bound for resolved outcomes).
 */
function checkObservation(t: CheckContext, body: Json, response: ApiResponse, entries: number, done?: CompleteRead): void {
  const status = body.status;
  t.expect(
    isValid('BulkProcessingStatus', status),
    'BULK-STATUS-VALUES',
    `status one of ${STATUSES.join(', ')}`,
    `status ${JSON.stringify(status)}`,
    response,
  );

  // 2.2 settled: computed from status and retryable_failed_count when that count is known.
  const submission = body.submission;
  const retryable = isObject(submission) ? submission.retryable_failed_count : undefined;
  const settled = body.settled;
  if (typeof retryable === 'number') {
    const want = status === 'completed' && retryable === 0;
    t.expect(
      settled === want,
      'BULK-SETTLED-RULE',
      `settled ${want} (status ${String(status)}, retryable_failed_count ${retryable})`,
      `settled ${JSON.stringify(settled)}`,
      response,
    );
  } else {
    // Unknown count: settled cannot be computed, so it is null (or false, as at acceptance).
    t.expect(
      settled !== true,
      'BULK-SETTLED-NULL',
      'settled null or false while retryable_failed_count is not available',
      `settled true with ${isObject(submission) ? 'no retryable_failed_count in submission' : `submission ${JSON.stringify(submission ?? null)}`}`,
      response,
    );
    t.reading('settled-without-count', settled === false ? 'false' : 'null');
  }

  // 2.2 delivery_summary: null/omitted comes with a warning once the bulk is dispatched. The states
  // before dispatch show the acceptance shape (null summary, no warnings); their order is not shown.
  const summary = body.delivery_summary;
  const warnings = Array.isArray(body.warnings) ? body.warnings : [];
  if (isAbsent(summary)) {
    if (!NOT_YET_DISPATCHED.includes(String(status))) {
      t.expect(
        warnings.length > 0,
        'BULK-DELIVERY-UNAVAILABLE-WARNING',
        'a warning entry (e.g. delivery_summary_unavailable) with the missing delivery_summary',
        `delivery_summary ${JSON.stringify(summary ?? null)} and warnings ${JSON.stringify(body.warnings ?? null)} at status ${String(status)}`,
        response,
      );
      const known = warnings.some((w) => isObject(w) && w.code === 'delivery_summary_unavailable');
      t.reading('unavailable-warning-code', known ? 'unavailable-code' : 'other-code');
    }
  } else if (isObject(summary)) {
    // A summary next to the target's own "unavailable" warning is one it could not know: invented.
    const unavailable = warnings.some((w) => isObject(w) && w.code === 'delivery_summary_unavailable');
    t.expect(
      !unavailable,
      'BULK-DELIVERY-NO-INVENTED-ZEROS',
      'delivery_summary null or omitted while the response itself warns delivery_summary_unavailable',
      `delivery_summary ${JSON.stringify(summary)} with warnings ${JSON.stringify(warnings)}`,
      response,
    );
    const missing = ['as_of', 'complete', 'outcomes_resolved'].filter((k) => !(k in summary));
    t.expect(
      missing.length === 0,
      'BULK-DELIVERY-SUMMARY-FIELDS',
      'delivery_summary with as_of, complete and outcomes_resolved',
      `delivery_summary without ${missing.join(', ')}: ${JSON.stringify(summary)}`,
      response,
    );
    t.expect(
      isValid('Timestamp', summary.as_of),
      'BULK-DELIVERY-SUMMARY-FIELDS',
      'delivery_summary.as_of an RFC 3339 time in UTC with Z',
      `as_of ${JSON.stringify(summary.as_of)}`,
      response,
    );
    // Blind defect blind-delivery-complete-when-completed: complete vouches that reporting is
    // finished, which no retry still outstanding (a delivery yet to come) allows, nor a recipient
    // submitted successfully whose outcome is unresolved (outcomes_resolved below
    // submission.success), nor a later read that resolves more outcomes or takes completeness back.
    // One assertion for all three: on the reference a bulk's reads end once it settles, so no
    // one-rule defect shows the second or third apart from the first.
    const success = isObject(submission) ? submission.success : undefined;
    const findings: string[] = [];
    if (summary.complete === true) {
      if (typeof retryable === 'number' && retryable > 0) findings.push(`complete true with retryable_failed_count ${retryable}`);
      if (typeof success === 'number' && typeof summary.outcomes_resolved === 'number' && summary.outcomes_resolved < success) {
        findings.push(`complete true with outcomes_resolved ${summary.outcomes_resolved} below submission.success ${success}`);
      }
    }
    if (done && (summary.complete !== true || summary.outcomes_resolved !== done.outcomesResolved)) {
      findings.push(`complete true with outcomes_resolved ${JSON.stringify(done.outcomesResolved)} on an earlier read, then complete ${JSON.stringify(summary.complete)} with ${JSON.stringify(summary.outcomes_resolved)}`);
    }
    t.expect(
      findings.length === 0,
      'BULK-DELIVERY-COMPLETE-MEANING',
      'delivery_summary.complete true only when nothing is left to report: no retry outstanding, no successful submission without a resolved outcome, and nothing changing on later reads',
      `${findings.join('; ')} at status ${String(status)}`,
      response,
      ...(done ? [done.response] : []),
    );
    const resolved = summary.outcomes_resolved;
    t.expect(
      typeof resolved === 'number' && Number.isInteger(resolved) && resolved >= 0,
      'BULK-DELIVERY-SUMMARY-FIELDS',
      'outcomes_resolved an integer of at least 0',
      `outcomes_resolved ${JSON.stringify(resolved)}`,
      response,
    );
    t.expect(
      (resolved as number) <= entries,
      'BULK-OUTCOMES-BOUND',
      `outcomes_resolved an integer from 0 to ${entries} (it counts recipients, and ${entries} entries were submitted)`,
      `outcomes_resolved ${JSON.stringify(resolved)}`,
      response,
    );
  }
}

/** A count that went down between two reads of a bulk, with the later read. */
interface WentDown {
  text: string;
  response: ApiResponse;
}

/**
 * 2.2 / 3.1: counts are totals of what happened, so none goes down between two reads (outstanding
 * retries do, by design); returned for a warning. A status that leaves completed is reported only:
 * transitions are not shown.
 */
function countsGoingDown(t: CheckContext, bulkId: string, observations: Observation[]): WentDown[] {
  const down: WentDown[] = [];
  for (let i = 1; i < observations.length; i++) {
    const before = observations[i - 1]!.body;
    const after = observations[i]!.body;
    const response = observations[i]!.response;
    for (const [group, fields] of Object.entries(COUNT_FIELDS)) {
      const a = before[group];
      const b = after[group];
      if (!isObject(a) || !isObject(b)) continue;
      for (const field of fields) {
        // Outstanding retries go down by design; failures may be counted as they stand (a retried
        // failure that then succeeds leaves the count), a reading the document leaves open.
        if (field === 'retryable_failed_count' || field === 'failed') continue;
        const x = a[field];
        const y = b[field];
        if (typeof x === 'number' && typeof y === 'number' && y < x) down.push({ text: `bulk ${bulkId}: ${group}.${field} went down from ${x} to ${y}`, response });
      }
    }
    const ra = isObject(before.delivery_summary) ? before.delivery_summary.outcomes_resolved : undefined;
    const rb = isObject(after.delivery_summary) ? after.delivery_summary.outcomes_resolved : undefined;
    if (typeof ra === 'number' && typeof rb === 'number' && rb < ra) {
      down.push({ text: `bulk ${bulkId}: delivery_summary.outcomes_resolved went down from ${ra} to ${rb}`, response });
    }
    if (before.status === 'completed' && after.status !== 'completed') {
      t.advise(`bulk ${bulkId}: status went from completed back to ${String(after.status)}`);
    }
  }
  return down;
}

/** The instant a Timestamp names, or undefined when it is none (its format is judged elsewhere). */
function instantOf(v: unknown): number | undefined {
  if (typeof v !== 'string' || !isValid('Timestamp', v)) return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Every timestamp of a bulk compared across its reads (blind defects blind-read-accepted-at-now and
 * blind-summary-as-of-accepted). accepted_at is the durable acceptance (2.2): one instant, the 202's,
 * on every read. delivery_summary.as_of is the time of the projection: never before the acceptance
 * it projects, never going back between reads, and once it counts a resolved outcome, after the
 * acceptance (an outcome needs a submission and a report, which come after it).
 */
function timesAcrossReads(t: CheckContext, bulkId: string, accepted: ApiResponse, observations: Observation[]): void {
  const acceptedAt = instantOf(isObject(accepted.json) ? accepted.json.accepted_at : undefined);
  if (acceptedAt === undefined) return;
  let previous: { asOf: number; response: ApiResponse; shown: string; text: string } | undefined;
  for (const { body, response } of observations) {
    const readAt = instantOf(body.accepted_at);
    if (readAt !== undefined) {
      t.expect(
        readAt === acceptedAt,
        'BULK-RETRIEVE',
        `bulk ${bulkId}: accepted_at ${String((accepted.json as Json).accepted_at)} on every read, as in the 202 (the durable acceptance does not move)`,
        `accepted_at ${String(body.accepted_at)}`,
        accepted,
        response,
      );
    }
    const summary = isObject(body.delivery_summary) ? body.delivery_summary : undefined;
    const asOf = instantOf(summary?.as_of);
    if (asOf === undefined) continue;
    const resolved = typeof summary!.outcomes_resolved === 'number' ? summary!.outcomes_resolved : 0;
    const afterAcceptance = resolved > 0 ? asOf > acceptedAt : asOf >= acceptedAt;
    t.expect(
      afterAcceptance,
      'BULK-DELIVERY-SUMMARY-FIELDS',
      `bulk ${bulkId}: delivery_summary.as_of ${resolved > 0 ? 'after' : 'not before'} the acceptance (${String((accepted.json as Json).accepted_at)})${resolved > 0 ? `, since it counts ${resolved} resolved outcome(s)` : ''}`,
      `as_of ${String(summary!.as_of)} with outcomes_resolved ${resolved}`,
      accepted,
      response,
    );
    if (previous) {
      t.expect(
        asOf >= previous.asOf,
        'BULK-DELIVERY-SUMMARY-FIELDS',
        `bulk ${bulkId}: delivery_summary.as_of never earlier than on a previous read (a later read shows a later projection)`,
        `as_of ${String(summary!.as_of)} after ${new Date(previous.asOf).toISOString()}`,
        previous.response,
        response,
      );
      // A projection that shows otherwise is another projection, so of another time: a summary
      // whose complete or outcomes_resolved moved carries a later as_of (blind defect
      // blind9-summary-as-of-frozen-at-first-report kept the first report's as_of while the counts
      // advanced). Written to less than the millisecond, two projections may share one as_of.
      const shown = JSON.stringify([summary!.complete, summary!.outcomes_resolved]);
      const fine = [previous.text, String(summary!.as_of)].every((v) => (/T\d{2}:\d{2}:\d{2}[.,](\d+)/.exec(v)?.[1]?.length ?? 0) >= 3);
      if (shown !== previous.shown && fine) {
        t.expect(
          asOf > previous.asOf,
          'BULK-DELIVERY-SUMMARY-FIELDS',
          `bulk ${bulkId}: a delivery_summary that moved (complete and outcomes_resolved ${previous.shown} then ${shown}) with a later as_of: it is the time of its own projection`,
          `as_of ${String(summary!.as_of)} on both reads`,
          previous.response,
          response,
        );
      } else if (shown !== previous.shown && asOf === previous.asOf) t.note(`bulk ${bulkId}: a delivery_summary that moved under one as_of ${String(summary!.as_of)}, written to less than the millisecond (two projections of one second may share it)`);
    }
    previous = { asOf, response, shown: JSON.stringify([summary!.complete, summary!.outcomes_resolved]), text: String(summary!.as_of) };
  }
}

/** The members of a TemplateRevisionPin, as far as they are strings. */
function pinOf(v: unknown): { template_id?: string; revision_id?: string } | undefined {
  if (!isObject(v)) return undefined;
  const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
  return { template_id: str(v.template_id), revision_id: str(v.revision_id) };
}


/** Resolves a Location value to a path under the API base, or undefined when it points elsewhere. */
function pathOfLocation(baseUrl: string, requestPath: string, location: string): string | undefined {
  const base = baseUrl.replace(/\/+$/, '');
  let resolved: URL;
  try {
    resolved = new URL(location, `${base}${requestPath}`);
  } catch {
    return undefined;
  }
  const href = resolved.href;
  return href.startsWith(`${base}/`) ? href.slice(base.length) : undefined;
}

async function acceptOne(
  t: CheckContext,
  label: string,
  options: Partial<BulkRequestOptions> = {},
  reshape?: (body: BulkRequestBody) => BulkRequestBody,
): Promise<{ body: BulkRequestBody; response: ApiResponse; json: Json }> {
  const generated = generate(t, validBodies(t, options), label);
  const { body, response } = await submitForEcho(t, reshape ? reshape(generated) : generated, label);
  t.expect(isObject(response.json), 'BULK-ACCEPT-202', '202 with a JSON bulk SMS body', response.text.slice(0, 200), response);
  return { body, response, json: response.json as Json };
}


/** application/json with the parameters a client's HTTP library commonly adds. */
const JSON_WITH_PARAMETERS = ['application/json; charset=utf-8', 'application/json;charset=UTF-8'];

/** The longest message the schema allows (a reworded message is cut to it). */
const MESSAGE_MAX = boundsOf('CreateSmsBulkMessageRequest').find((b) => b.pointer === '/message' && b.keyword === 'maxLength')!.limit;

/** A message cut to the schema's maximum, its last character kept (it may be one a reword added). */
function fitMessage(m: string): string {
  const chars = [...m];
  return chars.length <= MESSAGE_MAX ? m : [...chars.slice(0, MESSAGE_MAX - 1), chars[chars.length - 1]!].join('');
}

/**
 * What a shown bulk echoes of the request: business_id is the path's, from, classification and
 * message the submitted values (a Unicode-normalised message is the same characters; a trimmed
 * one is not the text submitted).
 */
function expectEcho(t: CheckContext, body: BulkRequestBody, shown: Json, response: ApiResponse, label: string): void {
  const businessId = businessIdOf(t);
  const field = (name: string, want: unknown, got: unknown) =>
    t.expect(got === want, 'BULK-ECHO-REQUEST', `${name} ${JSON.stringify(want)} in ${label}`, `${name} ${JSON.stringify(got ?? null)}`, response);
  field('business_id', businessId, shown.business_id);
  field('from', body.from, shown.from);
  field('classification', body.classification, shown.classification);
  if (body.message === undefined) return;
  // Trimmed or Unicode-normalised text is the same message to a client; no sentence asks for the
  // bytes. Inner white space collapsed is not: the recipient reads other text (fails below).
  const plain = (m: unknown) => (typeof m === 'string' ? m.trim().normalize('NFC') : m);
  if (shown.message !== body.message && plain(shown.message) === plain(body.message)) t.reading('message-echo', 'normalised', label);
  else {
    field('message', body.message, shown.message);
    t.reading('message-echo', 'exact', label);
  }
}

/**
 * Recipient counts of the bulks every-observation-consistent submits and reads at once: bulks of
 * one recipient (no retries) beside larger ones (retries outstanding), twice over.
 */
const BATCH_COUNTS = [1, 2].flatMap(() => [{ min: 1, max: 1 }, { min: 2, max: 5 }, { min: 2, max: 5 }, { min: 1, max: 5 }]);

/** Bulks of the batch whose message holds markup a renderer would touch (its last of each four). */
const withMarkup = (i: number) => i % 4 === 3;
const MARKUP_BULKS = BATCH_COUNTS.filter((_, i) => withMarkup(i)).length;
/** Reads more of a settled bulk while its delivery reporting is not complete. */
const REPORTED_READS = 4;

describe('bulk-invariants (2.2, 3.1, 4.1, 4.2)', () => {
  check(
    {
      id: 'acceptance-shape',
      title: 'POST a valid bulk: the 202 shows status queued, intake counts, submission and delivery_summary null, settled false, no warnings',
      requirements: ['BULK-ACCEPT-202', 'BULK-ACCEPT-QUEUED', 'BULK-ACCEPT-SHAPE', 'BULK-ECHO-REQUEST', 'BULK-INTAKE-NOT-ZERO', 'BULK-RETRIEVE', 'BULK-COUNTS-ONE-WAY'],
      // The 202, a read, the rows listed and a read after them (one more when markup is refused).
      maxRequests: 5,
      writes: CREATES,
    },
    async (t) => {
      // Message-based, so the echo of message is judged on every seed (template-pin judges the pin);
      // its text keeps spaces at both ends, which are part of it, and inner runs of white space (a
      // blank line, two spaces, a tab): trimming the ends leaves what a reader sees, collapsing
      // inner runs does not (blind defect blind3-message-whitespace-collapsed: line breaks lost).
      // It holds markup a renderer would touch too: a placeholder in double braces, sent with no
      // variables, which the bulk shows as written, not filled or emptied (blind defect
      // blind6-bulk-message-rendered-first-recipient). Its first number is repeated: an entry
      // counted at intake (4.1 rule 1) that gets no row of its own.
      const { body, response, json } = await acceptOne(t, 'acceptance-shape', { content: 'message', markup: true }, (b) => ({
        ...b,
        message: fitMessage(` ${b.message!}\n\nSecond  line,\tas sent `),
        recipients: [...b.recipients, b.recipients[0]!],
      }));
      t.expect(json.status === 'queued', 'BULK-ACCEPT-QUEUED', 'status queued in the 202', `status ${JSON.stringify(json.status)}`, response);
      t.expect(
        isAbsent(json.submission),
        'BULK-ACCEPT-SHAPE',
        'submission null (or omitted) at acceptance',
        `submission ${JSON.stringify(json.submission)}`,
        response,
      );
      t.expect(
        isAbsent(json.delivery_summary),
        'BULK-ACCEPT-SHAPE',
        'delivery_summary null (or omitted) at acceptance',
        `delivery_summary ${JSON.stringify(json.delivery_summary)}`,
        response,
      );
      t.expect(json.settled === false, 'BULK-ACCEPT-SHAPE', 'settled false at acceptance', `settled ${JSON.stringify(json.settled)}`, response);
      if (json.warnings === undefined) t.reading('acceptance-warnings', 'omitted');
      else {
        t.reading('acceptance-warnings', 'empty');
        t.expect(
          Array.isArray(json.warnings) && json.warnings.length === 0,
          'BULK-ACCEPT-SHAPE',
          'warnings empty at acceptance',
          `warnings ${JSON.stringify(json.warnings)}`,
          response,
        );
      }
      // Intake: the 202 shows the intake counts (4.1); the submission alone determines them, so they
      // are never unavailable there (blind defect blind-acceptance-intake-null). How they add up is not
      // shown (BULK-INTAKE-SUM), but counts that all say zero for a non-empty submission are invented
      // zeros: a should, judged last so no must is hidden by it.
      const intake = json.intake;
      const counts = isObject(intake) ? COUNT_FIELDS.intake.filter((k) => typeof intake[k] === 'number') : [];
      t.expect(
        counts.length === COUNT_FIELDS.intake.length,
        'BULK-ACCEPT-SHAPE',
        `intake counts (${COUNT_FIELDS.intake.join(', ')}) at acceptance`,
        `intake ${JSON.stringify(intake ?? null)}`,
        response,
      );
      const countsNothing = counts.length > 0 && counts.reduce((n, k) => n + ((intake as Json)[k] as number), 0) === 0;
      // The 202 and a later read both reflect the request, field by field.
      const read = await getBulk(t, String(json.id));
      // Proven by defect bulk-unreadable-while-queued (a bulk not readable until processing starts).
      t.expect(read.status === 200 && isObject(read.json), 'BULK-RETRIEVE', `GET of accepted bulk ${String(json.id)} answers 200`, `${read.status}`, read);
      // Intake is what was taken in at acceptance (2.2): listing the rows, where a repeated number
      // has no row, leaves it as it was (blind defect blind6-intake-from-rows-after-listing).
      const rows = await t.api.send({ method: 'GET', path: paths.bulkRecipients(businessIdOf(t), String(json.id)) });
      t.evidence(rows);
      const after = await getBulk(t, String(json.id));
      t.expect(after.status === 200 && isObject(after.json), 'BULK-RETRIEVE', `GET of bulk ${String(json.id)} after listing its rows answers 200`, `${after.status}`, rows, after);
      for (const [label, shown, evidence] of [['the 202', json, response], ['a later read', read.json as Json, read], ['a read after the rows were listed', after.json as Json, after]] as const) {
        expectEcho(t, body, shown, evidence, label);
      }
      t.expect(
        !countsNothing,
        'BULK-INTAKE-NOT-ZERO',
        `intake counting the ${body.recipients.length} submitted entries`,
        `intake ${JSON.stringify(json.intake)}`,
        response,
      );
      const observations = [response, read, after].map((r) => ({ response: r, body: r.json as Json, atMs: 0 }));
      const wentDown = countsGoingDown(t, String(json.id), observations);
      t.expect(
        wentDown.length === 0,
        'BULK-COUNTS-ONE-WAY',
        'counts that never go down from the 202 through a read, a listing of the rows and a read after it',
        wentDown.map((d) => d.text).join('; '),
        response,
        ...wentDown.map((d) => d.response),
      );
    },
  );

  check(
    {
      id: 'json-media-type-parameters',
      title:
        'POST a valid bulk labelled application/json with a charset parameter (as "; charset=utf-8" and ";charset=UTF-8") and with its type in other letter case (e.g. Application/JSON): 202, as for application/json',
      requirements: ['BULK-ACCEPT-202'],
      maxRequests: JSON_WITH_PARAMETERS.length + 1,
      writes: CREATES,
    },
    async (t) => {
      // Blind defect blind-json-charset-refused: a media type is its type and subtype; parameters
      // such as charset (case-insensitive, any spacing) leave it application/json (RFC 9110 8.3.1).
      // Blind defect blind5-media-type-case-sensitive: the type and subtype are case-insensitive
      // too (RFC 9110 8.3.1), so a label in other letter case names the document's content type
      // (4.1) and the valid body is accepted like any other (a must of 4.1, not a reading).
      const otherCase = generate(
        t,
        fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }).map((up) => [...'application/json'].map((ch, i) => (up[i] ? ch.toUpperCase() : ch)).join('')).filter((v) => v !== 'application/json'),
        'media type letter case',
      );
      for (const contentType of [...JSON_WITH_PARAMETERS, otherCase]) {
        const body = generate(t, validBodies(t), `media type ${contentType}`);
        const { response } = await submitBulk(t, undefined, { rawBody: JSON.stringify(body), headers: { 'Content-Type': contentType } });
        t.expect(response.status === 202, 'BULK-ACCEPT-202', `202 for a valid body labelled ${contentType}`, describeResponse(response), response);
      }
    },
  );

  check(
    {
      id: 'location-leads-to-resource',
      title:
        'POST a valid bulk, then GET it by id and at its Location: 200 with the same id both times; every other application granted on the business reads it and its rows too (the bulk is the business\'s, not its submitter\'s)',
      requirements: ['BULK-LOCATION', 'BULK-RETRIEVE', 'SCH-LISTING-ENVELOPE'],
      uses: ['limitedApp'],
      maxRequests: 3 + peerReadsCost(SUBMISSION),
      writes: CREATES,
    },
    async (t) => {
      const { response, json } = await acceptOne(t, 'location');
      const businessId = businessIdOf(t);
      // The bulk at its documented path first: a Location that leads elsewhere then fails on
      // BULK-LOCATION below, and a bulk that cannot be read by its id fails here.
      const direct = await t.api.send({ method: 'GET', path: paths.bulkMessage(businessId, String(json.id)) });
      t.expect(
        direct.status === 200 && isObject(direct.json) && direct.json.id === json.id,
        'BULK-RETRIEVE',
        `GET the bulk by id answers 200 with id ${String(json.id)}`,
        `${direct.status} id ${JSON.stringify(isObject(direct.json) ? direct.json.id : undefined)}`,
        direct,
      );
      // 4.2 / 5: the bulk belongs to the business: another application granted there reads it and
      // its rows as the submitter does (blind8-bulk-owned-by-submitting-application).
      await runPeerReads(t, businessId, SUBMISSION, String(json.id));
      const location = response.headers['location'];
      t.expect(typeof location === 'string' && location.length > 0, 'BULK-LOCATION', 'a Location header on the 202', 'no Location header', response);
      const path = pathOfLocation(t.config.target.baseUrl, paths.bulkMessages(businessId), location!);
      if (!path) {
        // An absolute reference elsewhere cannot be followed with the run's client; it must still name the bulk.
        t.expect(location!.includes(String(json.id)), 'BULK-LOCATION', `a Location naming bulk ${String(json.id)}`, `Location ${location}`, response);
        t.note(`Location ${location} points outside the API base; checked that it names the bulk only`);
        return;
      }
      t.reading('location-form', /^[a-z][a-z0-9+.-]*:/i.test(location!) ? 'absolute' : 'relative');
      const read = await t.api.send({ method: 'GET', path });
      t.expect(read.status === 200, 'BULK-LOCATION', `GET ${path} answers 200`, `${read.status}`, response, read);
      const readId = isObject(read.json) ? read.json.id : undefined;
      t.expect(readId === json.id, 'BULK-LOCATION', `the bulk ${String(json.id)} at Location`, `id ${JSON.stringify(readId)}`, response, read);
    },
  );

  check(
    {
      id: 'template-pin',
      title:
        'POST a template-based bulk, then GET it (on the reference after the template got a new active revision): the 202 pins that template with a UUIDv7 revision and the GET shows the same pin; a message-based bulk has no pin',
      requirements: ['BULK-TEMPLATE-PIN', 'BULK-TEMPLATE-PIN-STABLE', 'BULK-RETRIEVE'],
      needs: ['templateId', 'templatePlaceholders'],
      maxRequests: 4,
      writes: CREATES,
    },
    async (t) => {
      // Its variables must fill its placeholders, or the submission is refused before any pin.
      const templateId = t.fixture('templateId');
      const body = generate(t, validBodies(t, { content: 'template' }), 'template-pin');
      const { response } = await submitAccepted(t, body);
      const bulkId = bulkIdOf(response);
      t.expect(bulkId !== undefined, 'BULK-ACCEPT-202', '202 body with an id', response.text.slice(0, 200), response);
      const template = isObject(response.json) ? response.json.template : undefined;
      const pin = pinOf(template);
      // 4.1: the active revision is resolved and pinned at durable acceptance (2.1 TemplateRevisionPin).
      t.expect(
        sameId(pin?.template_id, templateId) && isValid('UuidV7', pin?.revision_id),
        'BULK-TEMPLATE-PIN',
        `template {"template_id": "${templateId}", "revision_id": <UUIDv7>} in the 202`,
        `template ${JSON.stringify(template ?? null)}`,
        response,
      );
      if (hasControl(t)) {
        // On the reference the template gets a new active revision after acceptance: the pin is the
        // one active at acceptance, and a read must not follow the new one (2.1: immutable).
        const revision = await reviseTemplate(t, templateId);
        t.expect(
          sameId(pin!.revision_id, revision.previous_revision_id),
          'BULK-TEMPLATE-PIN',
          `revision_id ${revision.previous_revision_id} (the revision active at acceptance)`,
          `revision_id ${pin!.revision_id}`,
          response,
        );
        t.note(`the template got the new active revision ${revision.revision_id} between acceptance and the read`);
      } else {
        t.note('no control origin: the pin of the 202 and of a later read are compared, with no revision change in between');
      }
      const read = await getBulk(t, bulkId!);
      t.expect(read.status === 200 && isObject(read.json), 'BULK-RETRIEVE', `GET of accepted bulk ${bulkId} answers 200`, `${read.status}`, read);
      const readTemplate = (read.json as Json).template;
      const readPin = pinOf(readTemplate);
      t.expect(
        sameId(readPin?.template_id, pin!.template_id) && sameId(readPin?.revision_id, pin!.revision_id),
        'BULK-TEMPLATE-PIN-STABLE',
        `template ${JSON.stringify(template)} as pinned at acceptance`,
        `template ${JSON.stringify(readTemplate ?? null)}`,
        response,
        read,
      );

      // A message-based bulk resolves no template: no pin at acceptance or later.
      const plain = generate(t, validBodies(t, { content: 'message' }), 'template-pin message');
      const { response: accepted } = await submitAccepted(t, plain);
      const plainTemplate = isObject(accepted.json) ? accepted.json.template : undefined;
      t.expect(isAbsent(plainTemplate), 'BULK-TEMPLATE-PIN', 'template null (or omitted) for a message-based bulk', `template ${JSON.stringify(plainTemplate)}`, accepted);
      const plainId = bulkIdOf(accepted);
      if (plainId) {
        const again = await getBulk(t, plainId);
        const againTemplate = isObject(again.json) ? again.json.template : undefined;
        t.expect(
          again.status === 200 && isAbsent(againTemplate),
          'BULK-TEMPLATE-PIN',
          'GET of the message-based bulk: 200 with template null (or omitted)',
          `${again.status} template ${JSON.stringify(againTemplate)}`,
          again,
        );
      }
    },
  );

  check(
    {
      id: 'counts-unavailable',
      title:
        'POST a valid bulk, then GET it until completed while its intake and submission totals are unavailable: intake and submission null or omitted on every read, never zero counts, and settled never true',
      requirements: ['BULK-NO-INVENTED-ZEROS', 'BULK-SETTLED-NULL', 'BULK-RETRIEVE'],
      maxRequests: (run) => 1 + maxPollReads(run),
      writes: CREATES,
      // 2.2 speaks of totals being unavailable; only the reference's control origin can make them so.
      embeddedOnly: { needs: 'control', why: 'the fault (authoritative intake and submission totals unavailable) cannot be forced on this target' },
    },
    async (t) => {
      const { response } = await acceptOne(t, 'counts-unavailable');
      const bulkId = bulkIdOf(response);
      t.expect(bulkId !== undefined, 'BULK-ACCEPT-202', '202 body with an id', response.text.slice(0, 200), response);
      const settledSeen = new Set<string>();
      const result = await withFaults(t, { countsUnavailable: true }, 'unavailable intake and submission totals', () =>
        pollUntilCompleted(
          t,
          bulkId!,
          ({ body, response: read }) => {
            for (const group of ['intake', 'submission'] as const) {
              const value = body[group];
              if (isAbsent(value)) continue;
              const zeros = isObject(value) && Object.values(value).length > 0 && Object.values(value).every((v) => v === 0);
              t.fail(
                'BULK-NO-INVENTED-ZEROS',
                `${group} null or omitted while the totals are unavailable`,
                `${group} ${JSON.stringify(value)}${zeros ? ' (invented zeros)' : ''} at status ${String(body.status)}`,
                read,
              );
            }
            // 2.2: with no retryable_failed_count settled cannot be computed: null (or false, as at acceptance).
            t.expect(body.settled !== true, 'BULK-SETTLED-NULL', 'settled null or false while submission is unavailable', 'settled true', read);
            settledSeen.add(JSON.stringify(body.settled ?? null));
          },
          { untilSettled: true },
        ),
      );
      if (result.unexpected) t.fail('BULK-RETRIEVE', `GET of accepted bulk ${bulkId} answers 200`, `${result.unexpected.status}`, result.unexpected);
      t.note(
        `${result.observations.length} reads with the totals unavailable (last status ${String(result.final?.body.status)}); settled shown as ${[...settledSeen].join(', ')}`,
      );
    },
  );

  check(
    {
      id: 'every-observation-consistent',
      title:
        'POST several generated bulks (each classification in turn) and read each until completed: every read keeps the settled rule, warns when delivery_summary is missing, bounds outcomes_resolved, echoes the request, shows the 202\'s accepted_at, and a delivery_summary.as_of after the acceptance that never goes back',
      requirements: [
        'BULK-ECHO-REQUEST',
        'BULK-SETTLED-RULE',
        'BULK-SETTLED-NULL',
        'BULK-SETTLED-INDEPENDENT',
        'BULK-STATUS-VALUES',
        'BULK-DELIVERY-UNAVAILABLE-WARNING',
        'BULK-DELIVERY-SUMMARY-FIELDS',
        'BULK-OUTCOMES-BOUND',
        'BULK-DELIVERY-NO-INVENTED-ZEROS',
        'BULK-RETRIEVE',
        'BULK-COUNTS-ONE-WAY',
      ],
      // One case: a batch of bulks, each submitted and read until settled (a markup message refused
      // is sent again without it).
      maxRequests: (run) => ({ perCase: BATCH_COUNTS.length * (2 + maxPollReads(run)) + MARKUP_BULKS, maxCases: 1 }),
      writes: CREATES,
    },
    async (t) => {
      // The whole batch is read in parallel, so the property costs one settle time, not one per
      // bulk: waiting on the host's timeline is most of this check's time.
      // Each classification of the enum in turn, so a read that shows a default instead of the
      // value submitted is met whatever the seed (blind defect blind-read-classification-default).
      // Some messages hold markup a renderer would touch, so every read of a bulk, processed or
      // not, is met with text that a rendering step would change (blind defect
      // blind6-bulk-message-rendered-first-recipient).
      const batch = fc.tuple(
        ...BATCH_COUNTS.map((count, i) =>
          validBodies(t, { count, ...(withMarkup(i) ? { content: 'message', markup: true } : {}) }).map((b) => ({ ...b, classification: CLASSIFICATIONS[i % CLASSIFICATIONS.length]! })),
        ),
      );
      let reads = 0;
      let completedCount = 0;
      const wentDown: WentDown[] = [];
      await forAll(
        t,
        batch,
        async (bodies) => {
          // Every bulk is read to its end, then the first failure in batch order is the one
          // reported: the same for a seed however the answers interleave, and no read outlives the check.
          const outcomes = await Promise.allSettled(
            bodies.map(async (generated) => {
              const { body, response } = await submitForEcho(t, generated, 'every read');
              const bulkId = bulkIdOf(response);
              t.expect(bulkId !== undefined, 'BULK-ACCEPT-202', '202 body with an id', response.text.slice(0, 200), response);
              const entries = body.recipients.length;
              let done: CompleteRead | undefined;
              const result = await pollUntilCompleted(
                t,
                bulkId!,
                (o) => {
                  reads++;
                  checkObservation(t, o.body, o.response, entries, done);
                  const summary = o.body.delivery_summary;
                  if (!done && isObject(summary) && summary.complete === true) done = { outcomesResolved: summary.outcomes_resolved, response: o.response };
                  // Blind defect blind-read-classification-default: every read echoes the request.
                  expectEcho(t, body, o.body, o.response, 'every read');
                },
                // Read on, a few reads more, while the summary says its reporting is not complete, so a
                // summary seen moving is met whatever the host's pace.
                { untilSettled: true, untilReported: REPORTED_READS },
              );
              if (result.unexpected) {
                t.fail('BULK-RETRIEVE', `GET of accepted bulk ${bulkId} answers 200`, `${result.unexpected.status}`, result.unexpected);
              }
              // One read more once a summary shows, so every bulk that has one is seen with it twice
              // (its as_of compared between reads; a host's pace may leave one summary read only).
              const observations = [...result.observations];
              if (isObject(result.final?.body.delivery_summary)) {
                const again = await getBulk(t, bulkId!);
                if (again.status === 200 && isObject(again.json)) {
                  reads++;
                  const o = { response: again, body: again.json as Json, atMs: Date.now() };
                  checkObservation(t, o.body, o.response, entries, done);
                  observations.push(o);
                }
              }
              timesAcrossReads(t, bulkId!, response, observations);
              if (result.completed) completedCount++;
              wentDown.push(...countsGoingDown(t, bulkId!, observations));
            }),
          );
          const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
          if (failed) throw failed.reason;
        },
        { maxRuns: 1 },
      );
      t.note(`${reads} reads checked; ${completedCount} bulk(s) reached completed within ${t.config.settings.settleTimeoutMs} ms`);
      // A should: judged once every must of the batch held, so it never hides a broken must.
      t.expect(
        wentDown.length === 0,
        'BULK-COUNTS-ONE-WAY',
        'counts that never go down between two reads (a client showing progress would show it going back)',
        wentDown.map((d) => d.text).slice(0, 3).join('; '),
        ...wentDown.slice(0, 2).map((d) => d.response),
      );
    },
  );
});
