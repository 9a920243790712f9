// Every bulk SMS seen in the traffic, its acceptance and then its reads in time order (sections
// 2.2, 3.1, 4.1, 4.2): the acceptance shape, Location, the request echoed, settled as the rule
// defines it, delivery reporting never invented, counts bounded by the entries submitted. The order
// of statuses is not shown by the document: it is recorded, and counts going back are advisories.
import { isDeepStrictEqual } from 'node:util';
import { describe, kept, objectOf, type Observed } from '../context.ts';
import { BoundedMap, STATE_LIMIT, type CheckDef, type Reducer, type Verdicts } from '../verdicts.ts';

const ACCEPT = 'traffic/bulk-invariants/acceptance';
const READS = 'traffic/bulk-invariants/reads';
const SETTLED = 'traffic/bulk-invariants/settled';

export const checks: CheckDef[] = [
  { id: ACCEPT, topic: 'bulk-invariants', title: 'a 202 shows status queued, settled false, no submission counts or delivery summary, no warnings, a Location naming the bulk, and the submitted from, classification, message and template', requirements: ['BULK-ACCEPT-QUEUED', 'BULK-ACCEPT-SHAPE', 'BULK-LOCATION', 'BULK-ECHO-REQUEST', 'BULK-TEMPLATE-PIN'] },
  { id: READS, topic: 'bulk-invariants', title: 'reads of a bulk SMS accepted in the traffic find it, show the sender, classification, message, acceptance time and intake counts its 202 showed (never a value only a refused submission carried), keep its template pin, explain a missing delivery summary with a warning and never count more outcomes than entries', requirements: ['BULK-RETRIEVE', 'BULK-TEMPLATE-PIN-STABLE', 'BULK-DELIVERY-UNAVAILABLE-WARNING', 'BULK-OUTCOMES-BOUND', 'BULK-COUNTS-ONE-WAY', 'BULK-TRANSITIONS', 'SEQ-REPEAT-CHANGES-NOTHING'] },
  { id: SETTLED, topic: 'bulk-invariants', title: 'settled is true exactly when status is completed and retryable_failed_count is 0, and never true without that count', requirements: ['BULK-SETTLED-RULE', 'BULK-SETTLED-NULL'] },
];

const NOT_DISPATCHED = ['created', 'scheduled', 'queued'];
const absent = (value: unknown) => value === undefined || value === null;

/** What a 202 showed that every later read of the bulk shows again (2.2; the acceptance time within a second: 2.1 fixes no precision). */
interface Shown {
  from: unknown;
  classification: unknown;
  message: unknown;
  acceptedAt: number;
  intake: string;
}

const shownBy = (body: Record<string, unknown>): Shown => ({ from: body.from, classification: body.classification, message: body.message, acceptedAt: Date.parse(String(body.accepted_at)), intake: JSON.stringify(body.intake ?? null) });

/**
 * The first member a read shows otherwise than the 202 did, or undefined. `certain` is false for a
 * text where the 202 showed none (a template-based bulk's message, which a read may render): only
 * a value a refused submission carried is judged there.
 */
function changedSince(shown: Shown, body: Record<string, unknown>): { member: string; value: unknown; certain: boolean } | undefined {
  for (const member of ['from', 'classification', 'message'] as const) {
    if (typeof body[member] !== 'string' || shown[member] === body[member]) continue;
    if (typeof shown[member] === 'string') return { member, value: body[member], certain: true };
    if (shown[member] === null || shown[member] === undefined) return { member, value: body[member], certain: false };
  }
  const at = Date.parse(String(body.accepted_at));
  if (Number.isFinite(shown.acceptedAt) && Number.isFinite(at) && Math.abs(at - shown.acceptedAt) >= 1000) return { member: 'accepted_at', value: body.accepted_at, certain: true };
  // A read may leave intake out (null: the counts unavailable); counts it shows are the acceptance's.
  if (body.intake !== undefined && body.intake !== null && shown.intake !== 'null' && JSON.stringify(body.intake) !== shown.intake) return { member: 'intake', value: body.intake, certain: true };
  return undefined;
}

interface Bulk {
  accepted?: Observed;
  shown?: Shown;
  entries?: number;
  template?: unknown;
  /** The submission counts of the last read (only they are compared with the next read). */
  lastSubmission?: Record<string, unknown> | undefined;
  statuses: string[];
}

function judgeAcceptance(o: Observed, body: Record<string, unknown>, v: Verdicts): void {
  const request = objectOf(o.requestJson);
  const id = String(body.id);
  v.judge(ACCEPT, 'BULK-ACCEPT-QUEUED', 'status queued at acceptance', body.status === 'queued' ? undefined : `status ${JSON.stringify(body.status)}`, [o]);
  const shape = !absent(body.submission)
    ? `submission ${JSON.stringify(body.submission)}`
    : !absent(body.delivery_summary)
      ? `delivery_summary ${JSON.stringify(body.delivery_summary)}`
      : body.settled !== false
        ? `settled ${JSON.stringify(body.settled)}`
        : Array.isArray(body.warnings) && body.warnings.length > 0
          ? `${body.warnings.length} warnings`
          : undefined;
  v.judge(ACCEPT, 'BULK-ACCEPT-SHAPE', 'submission and delivery_summary empty, settled false, no warnings', shape, [o]);
  const location = o.ex.response.headers['location'];
  let locationPath: string | undefined;
  try {
    locationPath = location === undefined ? undefined : new URL(location, o.ex.request.url).pathname;
  } catch {
    locationPath = undefined;
  }
  // The created resource under the business of the request, spelt as the request spelt it (a path is case-sensitive).
  const named = `/businesses/${o.op!.params.businessId}/sms/bulk-messages/${id}`;
  v.judge(ACCEPT, 'BULK-LOCATION', `a Location naming ${named}`, locationPath?.replace(/\/$/, '').endsWith(named) ? undefined : location === undefined ? 'no Location header' : `Location ${location}`, [o]);
  const echo = body.business_id !== o.op!.params.businessId
    ? `business_id ${String(body.business_id)}`
    : request && request.from !== body.from
      ? `from ${JSON.stringify(body.from)}`
      : request && request.classification !== body.classification
        ? `classification ${JSON.stringify(body.classification)}`
        : request && typeof request.message === 'string' && request.message !== body.message
          ? 'another message text'
          : undefined;
  v.judge(ACCEPT, 'BULK-ECHO-REQUEST', 'the business of the path and the submitted from, classification and message', echo, [o]);
  if (request && typeof request.template_id === 'string') {
    const pin = objectOf(body.template);
    v.judge(ACCEPT, 'BULK-TEMPLATE-PIN', `a template pin of ${request.template_id}`, pin?.template_id === request.template_id && typeof pin.revision_id === 'string' ? undefined : `template ${JSON.stringify(body.template ?? null)}`, [o]);
  } else if (request && typeof request.message === 'string') {
    v.judge(ACCEPT, 'BULK-TEMPLATE-PIN', 'no template pin on a message-based bulk', absent(body.template) ? undefined : `template ${JSON.stringify(body.template)}`, [o]);
  }
}

function judgeSettled(o: Observed, body: Record<string, unknown>, v: Verdicts): void {
  const retryable = objectOf(body.submission)?.retryable_failed_count;
  if (typeof retryable === 'number') {
    const expected = body.status === 'completed' && retryable === 0;
    v.judge(SETTLED, 'BULK-SETTLED-RULE', `settled ${expected} (status ${String(body.status)}, retryable_failed_count ${retryable})`, body.settled === expected ? undefined : `settled ${JSON.stringify(body.settled)}`, [o]);
  } else {
    v.judge(SETTLED, 'BULK-SETTLED-NULL', 'settled null or false while retryable_failed_count is unavailable', body.settled === true ? 'settled true' : undefined, [o]);
  }
}

export function start(v: Verdicts): Reducer {
  /** `member value` of the submissions refused lately (a value only they carried never shows on a read). */
  const refused = new BoundedMap<string, Observed>(STATE_LIMIT);
  const sequences = new Set<string>();
  const sequenceOf = (b: Bulk) => b.statuses.length > 1 && sequences.add(b.statuses.join(' → '));
  // A bulk let go at the bound keeps its status sequence; its later reads are judged as of a bulk not seen accepted.
  const bulks = new BoundedMap<string, Bulk>(STATE_LIMIT, (_key, b) => sequenceOf(b));
  const bulkOf = (key: string) => {
    let b = bulks.get(key);
    if (!b) bulks.set(key, (b = { statuses: [] }));
    return b;
  };
  const see = (o: Observed): void => {
    if (!o.op || o.pacing) return;
    const body = objectOf(o.json);
    const business = o.op.params.businessId!;
    if (o.op.operationId === 'createSmsBulkMessage' && o.status === 202 && body && typeof body.id === 'string') {
      const bulk = bulkOf(`${business}/${body.id}`);
      if (bulk.accepted) return; // a replay: the idempotency rules judge it
      bulk.accepted = kept(o);
      bulk.shown = shownBy(body);
      const recipients = objectOf(o.requestJson)?.recipients;
      if (Array.isArray(recipients)) bulk.entries = recipients.length;
      bulk.template = body.template;
      judgeAcceptance(o, body, v);
      judgeSettled(o, body, v);
      return;
    }
    if (o.op.operationId === 'createSmsBulkMessage' && o.status >= 400) {
      const request = objectOf(o.requestJson);
      const key = o.ex.request.headers['idempotency-key'] ?? '';
      if (request) {
        for (const member of ['from', 'classification', 'message'] as const) {
          if (typeof request[member] !== 'string') continue;
          refused.set(`${business} ${member} ${request[member]}`, kept(o));
          refused.set(`${business} ${key} ${member} ${request[member]}`, kept(o));
        }
      }
      return;
    }
    if (o.op.operationId !== 'getSmsBulkMessage') return;
    const key = `${business}/${o.op.params.bulkMessageId}`;
    const bulk = bulks.get(key);
    if (bulk?.accepted && o.status === 404) {
      v.fail(READS, 'BULK-RETRIEVE', 'the bulk SMS accepted earlier in the traffic', describe(o), [bulk.accepted, o]);
      return;
    }
    if (o.status !== 200 || !body) return;
    judgeSettled(o, body, v);
    const b = bulkOf(key);
    if (b.accepted) v.judge(READS, 'BULK-RETRIEVE', `the bulk SMS ${o.op.params.bulkMessageId}`, body.id === o.op.params.bulkMessageId ? undefined : `id ${String(body.id)}`, [o]);
    const changed = b.shown && changedSince(b.shown, body);
    // A value a refused submission carried: the refusal changed the bulk (a conflict written before it was refused).
    // Where the 202 showed no text (a template-based bulk, whose read may render one), only a refused repeat under the bulk's own key is judged.
    const bulkKey = b.accepted?.ex.request.headers['idempotency-key'] ?? '';
    const from = changed && typeof changed.value === 'string' ? refused.get(changed.certain ? `${business} ${changed.member} ${changed.value}` : `${business} ${bulkKey} ${changed.member} ${changed.value}`) : undefined;
    if (changed && (changed.certain || from)) {
      v.fail(READS, from ? 'SEQ-REPEAT-CHANGES-NOTHING' : 'BULK-RETRIEVE', `${changed.member} as the 202 showed it`, `${changed.member} ${JSON.stringify(changed.value)}${from ? `, which only the refused submission ${from.ex.source} carried` : ''}`, from ? [b.accepted!, from, o] : [b.accepted!, o]);
    } else if (b.shown) v.pass(READS, o);
    if ('template' in b) v.judge(READS, 'BULK-TEMPLATE-PIN-STABLE', 'the template pin recorded at acceptance', isDeepStrictEqual(body.template ?? null, b.template ?? null) ? undefined : `template ${JSON.stringify(body.template ?? null)}`, [b.accepted ?? o, o]);
    else b.template = body.template;
    if (typeof body.status === 'string' && !NOT_DISPATCHED.includes(body.status) && absent(body.delivery_summary)) {
      v.judge(READS, 'BULK-DELIVERY-UNAVAILABLE-WARNING', 'a warning entry explaining the missing delivery_summary', Array.isArray(body.warnings) && body.warnings.length > 0 ? undefined : 'no warning', [o]);
    }
    const outcomes = objectOf(body.delivery_summary)?.outcomes_resolved;
    if (typeof outcomes === 'number' && b.entries !== undefined) {
      v.judge(READS, 'BULK-OUTCOMES-BOUND', `outcomes_resolved of at most ${b.entries} (the entries submitted)`, outcomes > b.entries ? `outcomes_resolved ${outcomes}` : undefined, [b.accepted!, o]);
    }
    // Time order: statuses are recorded (transitions are not shown); a count going back warns: the
    // counts are totals of what has happened, and a client showing progress would show it going back.
    const submission = objectOf(body.submission);
    if (b.lastSubmission && submission) {
      for (const [name, value] of Object.entries(b.lastSubmission)) {
        if (name === 'retryable_failed_count' || typeof value !== 'number' || typeof submission[name] !== 'number') continue;
        if ((submission[name] as number) < value) v.fail(READS, 'BULK-COUNTS-ONE-WAY', `submission.${name} of at least ${value} (its value at the read before)`, `submission.${name} ${String(submission[name])}`, [o]);
      }
    }
    if (typeof body.status === 'string' && b.statuses.at(-1) !== body.status) b.statuses.push(body.status);
    b.lastSubmission = submission;
  };
  return {
    see,
    finish() {
      for (const b of bulks.values()) sequenceOf(b);
      for (const s of sequences) v.note(READS, `status sequence seen (transitions are not shown by the document, so not judged): ${s}`);
    },
    forgotten: () => [{ check: READS, what: 'bulk SMS', limit: STATE_LIMIT, count: bulks.dropped }],
  };
}
