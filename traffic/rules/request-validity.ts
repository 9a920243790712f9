// Requests that themselves break the document's request schemas (section 4.0, 4.1, 4.3, 8) must be
// refused: a 4xx, never a 2xx, never a server error. Which 4xx is left to the readings the
// document allows (authentication, grant or validation first), except where a rule names it.
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { enumOf, type OperationId } from '../../spec/contract.ts';
import { mediaTypeOf, operation, validateRequestBody } from '../../spec/validators.ts';
import type { ListingParamNames } from '../../core/model.ts';
import { isValidText as isValid } from '../valid.ts';
import { codeOf, describe, objectOf, type JudgeContext, type Observed } from '../context.ts';
import type { MatchedOperation } from '../operations.ts';
import type { CheckDef, Reducer, Verdicts } from '../verdicts.ts';

const ID = 'traffic/validation/invalid-request-refused';

export const checks: CheckDef[] = [
  {
    id: ID,
    topic: 'validation',
    title: 'a request that breaks the request schemas of the document (body, Idempotency-Key, path ids, page size) is refused with a 4xx, never accepted and never a 5xx; an allowed key length, page size or JSON label is not refused by name; a valid request never gets a 304 it did not ask for, nor a refusal over an Idempotency-Key its operation does not take',
    requirements: ['BULK-ACCEPT-202', 'MSG-RETRIEVE', 'BULK-RETRIEVE', 'WAL-RETRIEVE', 'HOOK-DEACTIVATE-204', 'IDEM-KEY-REQUIRED', 'IDEM-KEY-LENGTH', 'VAL-BODY-REQUIRED', 'VAL-MALFORMED-JSON', 'VAL-CONTENT-TYPE', 'VAL-BODY-FIELDS', 'VAL-FROM-LENGTH', 'VAL-CLASSIFICATION-ENUM', 'VAL-MESSAGE-LENGTH', 'VAL-EXACTLY-ONE-CONTENT', 'VAL-TEMPLATE-ID-FORMAT', 'VAL-TEMPLATE-VARIABLE-LENGTH', 'VAL-RECIPIENT-ITEM-FIELDS', 'VAL-INVALID-RECIPIENT', 'VAL-PATH-UUIDV7', 'VAL-SENDER-AUTHORIZED', 'VAL-TEMPLATE-ACTIVE', 'RLIM-MIN-1', 'CUR-MAX-LIMIT', 'CUR-EMPTY', 'CUR-FILTER-UNKNOWN-VALUE', 'PROB-NO-5XX-FOR-CLIENT-FAULT', 'PROB-VALIDATION-ERRORS'],
  },
];

/** `lenient`: a parameter shape whose refusal the document does not demand (only a 5xx is wrong). */
export type DefectKind = 'over-limit' | 'recipient-number' | 'lenient' | 'other';

export interface RequestDefect {
  requirement: RequirementId;
  reason: string;
  kind: DefectKind;
  /** A body field or query parameter (its refusal lists field errors), not a header or the whole body. */
  field?: boolean;
}

function bodyRule(pointer: string, keyword: string): { requirement: RequirementId; kind: DefectKind } {
  if (pointer === '/recipients' && keyword === 'maxItems') return { requirement: 'RLIM-MAX-1000', kind: 'over-limit' };
  if (pointer === '/recipients' && keyword === 'minItems') return { requirement: 'RLIM-MIN-1', kind: 'other' };
  if (/^\/recipients\/\d+\/to$/.test(pointer) && keyword !== 'required') return { requirement: 'VAL-INVALID-RECIPIENT', kind: 'recipient-number' };
  if (/^\/recipients\/\d+\/template_variables/.test(pointer)) return { requirement: 'VAL-TEMPLATE-VARIABLE-LENGTH', kind: 'other' };
  if (/^\/recipients\/\d+/.test(pointer)) return { requirement: 'VAL-RECIPIENT-ITEM-FIELDS', kind: 'other' };
  if (pointer === '/message' && keyword !== 'additionalProperties') return { requirement: 'VAL-MESSAGE-LENGTH', kind: 'other' };
  if (pointer === '/from' && keyword !== 'required') return { requirement: 'VAL-FROM-LENGTH', kind: 'other' };
  if (pointer === '/classification' && keyword !== 'required') return { requirement: 'VAL-CLASSIFICATION-ENUM', kind: 'other' };
  if (pointer === '/template_id' && keyword !== 'additionalProperties') return { requirement: 'VAL-TEMPLATE-ID-FORMAT', kind: 'other' };
  if (keyword === 'oneOf' || keyword === 'not') return { requirement: 'VAL-EXACTLY-ONE-CONTENT', kind: 'other' };
  return { requirement: 'VAL-BODY-FIELDS', kind: 'other' };
}

const cache = new WeakMap<Observed, RequestDefect[]>();
/** The path ids' defects of an operation as matched (one object per method and URL, shared by its exchanges: context.ts). */
const pathCache = new WeakMap<MatchedOperation, RequestDefect[]>();

function pathDefects(op: MatchedOperation): RequestDefect[] {
  let out = pathCache.get(op);
  if (out) return out;
  out = [];
  for (const [name, value] of Object.entries(op.params)) {
    if (!isValid('UuidV7', value)) out.push({ requirement: 'VAL-PATH-UUIDV7', reason: `path ${name} is no UUIDv7`, kind: 'other' });
  }
  pathCache.set(op, out);
  return out;
}

/** What is wrong with the request itself by the document's request rules (empty when nothing is). */
export function requestDefects(o: Observed, ctx: JudgeContext): RequestDefect[] {
  const cached = cache.get(o);
  if (cached) return cached;
  const out: RequestDefect[] = [];
  const op = o.op;
  if (op) {
    for (const defect of pathDefects(op)) out.push(defect);
    if (op.operationId === 'listSmsBulkMessageRecipients') {
      // A parameter given twice: the document describes one value, not what a repetition gets;
      // only a 5xx is wrong (blind defect blind-repeated-query-param-500).
      for (const name of Object.values(ctx.params)) {
        const given = op.query.getAll(name).length;
        if (given > 1) out.push({ requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', reason: `query parameter ${name} given ${given} times`, kind: 'lenient' });
      }
      const limit = op.query.get(ctx.params.limit);
      if (limit !== null && /^\d+$/.test(limit) && Number(limit) > 1000) out.push({ requirement: 'CUR-MAX-LIMIT', reason: `page size ${limit} above 1000`, kind: 'other', field: true });
      // Not an integer of 1 to 1000 written in digits: whether it is refused is not said, but it is the caller's (page-size-parse-500).
      else if (limit !== null && !(/^\d+$/.test(limit) && Number(limit) >= 1)) out.push({ requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', reason: `page size ${JSON.stringify(limit)}`, kind: 'lenient' });
      if (op.query.get(ctx.params.cursor) === '') out.push({ requirement: 'CUR-EMPTY', reason: 'an empty cursor', kind: 'lenient' });
      const status = op.query.get(ctx.params.status);
      if (status !== null && !enumOf('RecipientStatusFilter').includes(status)) out.push({ requirement: 'CUR-FILTER-UNKNOWN-VALUE', reason: `a status filter ${JSON.stringify(status)} outside its four values`, kind: 'lenient' });
      const to = op.query.get(ctx.params.to);
      if (to !== null && !isValid('E164PhoneNumber', to)) out.push({ requirement: 'CUR-FILTER-UNKNOWN-VALUE', reason: 'a number filter that is not E.164', kind: 'lenient' });
    }
    if (op.operationId === 'createSmsBulkMessage') out.push(...submissionDefects(o, ctx));
    // Last: the first defect names the failure's requirement, and a parameter or header the
    // operation does not take is only ever wrong as a 5xx (a page size over 1000 stays CUR-MAX-LIMIT).
    out.push(...unusualRequestDefects(o, ctx));
  }
  cache.set(o, out);
  return out;
}

function submissionDefects(o: Observed, ctx: JudgeContext): RequestDefect[] {
  const out: RequestDefect[] = [];
  const headers = o.ex.request.headers;
  const key = headers['idempotency-key'];
  if (key === undefined) out.push({ requirement: 'IDEM-KEY-REQUIRED', reason: 'no Idempotency-Key', kind: 'other' });
  else if (key.length === 0 || key.length > 256) out.push({ requirement: 'IDEM-KEY-LENGTH', reason: `an Idempotency-Key of ${key.length} characters`, kind: 'other' });
  const body = o.ex.request.body;
  if (!o.requestKnown) return out; // a body cut by the recorder is not judged
  if (body === undefined || body.length === 0) {
    out.push({ requirement: 'VAL-BODY-REQUIRED', reason: 'no body', kind: 'other' });
    return out;
  }
  const media = mediaTypeOf(headers['content-type']);
  if (media !== 'application/json') out.push({ requirement: 'VAL-CONTENT-TYPE', reason: `a body labelled ${media ?? '(no type)'}`, kind: 'other' });
  if (o.requestJson === undefined) {
    out.push({ requirement: 'VAL-MALFORMED-JSON', reason: 'a body that is not JSON', kind: 'other' });
    return out;
  }
  const seen = new Set<string>();
  for (const f of validateRequestBody('createSmsBulkMessage', o.requestJson)) {
    const rule = bodyRule(f.pointer, f.keyword);
    const key = `${rule.requirement}:${rule.kind}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...rule, reason: `${f.pointer || 'the body'} ${f.message}`, field: true });
  }
  const blank = blankMessageDefect(o);
  if (blank) out.push(blank);
  const request = objectOf(o.requestJson);
  if (request && ctx.fixtures.unauthorizedSenderId !== undefined && request.from === ctx.fixtures.unauthorizedSenderId) {
    out.push({ requirement: 'VAL-SENDER-AUTHORIZED', reason: 'a sender not authorized for the business (CONFORMANCE_UNAUTHORIZED_SENDER_ID)', kind: 'other' });
  }
  if (request && ctx.fixtures.inactiveTemplateId !== undefined && request.template_id === ctx.fixtures.inactiveTemplateId) {
    out.push({ requirement: 'VAL-TEMPLATE-ACTIVE', reason: 'an archived template (CONFORMANCE_INACTIVE_TEMPLATE_ID)', kind: 'other' });
  }
  return out;
}

/** Requirements a 5xx is failed under when a request's first fault is theirs (else PROB-NO-5XX-FOR-CLIENT-FAULT). */
const KEEPS_RULE_ON_5XX: readonly RequirementId[] = ['VAL-PATH-UUIDV7', 'CUR-EMPTY', 'VAL-MESSAGE-LENGTH'];

const ACCEPTS_JSON = /(^|,)\s*(\*\/\*|application\/\*|application\/(problem\+)?json)\s*(;|,|$)/i;

interface Taken {
  /** The query parameters it names, the listing's under the names the run configures. */
  query: Set<string>;
  body: boolean;
}
const takenCache = new WeakMap<ListingParamNames, Map<OperationId, Taken>>();

/** What an operation takes by the contract (spec/openapi.yaml), so a new operation needs no code here. */
function takes(operationId: OperationId, params: ListingParamNames): Taken {
  let byOperation = takenCache.get(params);
  if (!byOperation) takenCache.set(params, (byOperation = new Map()));
  let taken = byOperation.get(operationId);
  if (!taken) {
    const info = operation(operationId);
    const query = info.parameters.filter((p) => p.in === 'query');
    // A name the document only assumes is the one the run was told (CONFORMANCE_PARAM_*).
    taken = { query: new Set(query.map((p) => (p['x-assumed-name'] && p.name in params ? params[p.name as keyof ListingParamNames] : p.name))), body: info.requestBody !== undefined };
    byOperation.set(operationId, taken);
  }
  return taken;
}

/**
 * What the caller sent that the operation does not take (the caller's fault, so never a server
 * error: PROB-NO-5XX-FOR-CLIENT-FAULT): a query parameter it does not name, a body
 * on an operation without one, an Accept that admits no JSON. Their refusal is not demanded
 * (lenient: only a 5xx is wrong; blind defects blind-accept-xml-500, blind-repeated-query-param-500).
 */
function unusualRequestDefects(o: Observed, ctx: JudgeContext): RequestDefect[] {
  const op = o.op!;
  const out: RequestDefect[] = [];
  const taken = takes(op.operationId, ctx.params);
  let reported: Set<string> | undefined;
  for (const name of op.query.keys()) {
    if (taken.query.has(name) || reported?.has(name)) continue;
    (reported ??= new Set()).add(name);
    out.push({ requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', reason: `query parameter ${name} the operation does not take`, kind: 'lenient' });
  }
  if (!taken.body && (o.ex.request.body ?? '').length > 0) out.push({ requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', reason: 'a body on an operation that takes none', kind: 'lenient' });
  const accept = o.ex.request.headers['accept'];
  if (accept !== undefined && accept.trim() !== '' && !ACCEPTS_JSON.test(accept)) out.push({ requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', reason: `Accept ${accept}`, kind: 'lenient' });
  return out;
}

/**
 * A message of white space only is within the length bounds and its content is not addressed:
 * accepted, or refused with 400 naming /message (reading blank-message); neither reading admits a
 * 5xx, so it is judged like a client fault (blank-message-500).
 */
function blankMessageDefect(o: Observed): RequestDefect | undefined {
  const message = objectOf(o.requestJson)?.message;
  if (typeof message !== 'string' || message.length === 0 || message.trim() !== '') return undefined;
  return { requirement: 'VAL-MESSAGE-LENGTH', reason: 'a message of white space only (accepted or refused with 400, never a 5xx)', kind: 'lenient', field: true };
}

function recordBlankMessage(o: Observed, defects: RequestDefect[], v: Verdicts): void {
  if (defects.length !== 1 || defects[0]!.reason !== BLANK_REASON) return;
  if (o.status === 202) v.reading(ID, 'blank-message', 'accepted', [o]);
  else if (o.status === 400 && objectOf(o.json)?.code === 'validation_failed') v.reading(ID, 'blank-message', 'refused', [o], describe(o));
}

const BLANK_REASON = blankMessageDefect({ requestJson: { message: ' ' } } as unknown as Observed)!.reason;

/** Entries of a submission whose number is valid E.164. */
function validNumbers(o: Observed): number | undefined {
  const recipients = objectOf(o.requestJson)?.recipients;
  if (!Array.isArray(recipients)) return undefined;
  return recipients.filter((r) => isValid('E164PhoneNumber', objectOf(r)?.to)).length;
}

/** Pointers of a validation problem's field errors. */
function errorPointers(o: Observed): string[] {
  const errors = objectOf(o.json)?.errors;
  return Array.isArray(errors) ? errors.map((e) => String(objectOf(e)?.pointer ?? '')) : [];
}

/**
 * Body members whose only rules are the schema's (length, pattern, enum): a valid one refused by
 * name is refused wrongly. Recipients and template ids are left out: a host may refuse a number it
 * does not serve or a template it does not know, neither of which the request shows.
 */
const BODY_MEMBERS_JUDGED = new Set(['/from', '/message', '/classification']);

/** The rule an operation's own answer to a valid request keeps (its 200 or 204). */
const OWN_ANSWER: Partial<Record<OperationId, RequirementId>> = {
  getSmsMessage: 'MSG-RETRIEVE',
  getSmsBulkMessage: 'BULK-RETRIEVE',
  getWalletBalance: 'WAL-RETRIEVE',
  deactivateWebhookEndpoint: 'HOOK-DEACTIVATE-204',
};

/**
 * A valid request answered with what belongs to no answer of its operation: a 304 Not Modified to
 * a request that asked no condition (RFC 9110 15.4.5: only a conditional GET gets one), or, on an
 * operation that takes no Idempotency-Key (4.0: the submission's alone), a refusal naming that key
 * or an idempotency_conflict.
 */
function answeredOutsideItsOperation(o: Observed, v: Verdicts): void {
  const rule = OWN_ANSWER[o.op!.operationId];
  if (!rule) return;
  const headers = o.ex.request.headers;
  if (o.status === 304 && headers['if-none-match'] === undefined && headers['if-modified-since'] === undefined) {
    v.fail(ID, rule, `the operation's own answer (${o.op!.operationId}) to a request that asked no condition`, '304 Not Modified', [o]);
    return;
  }
  const namesKey = o.status === 400 && errorPointers(o).some((p) => p.replace(/^\//, '').toLowerCase() === 'idempotency-key');
  if (namesKey || codeOf(o) === 'idempotency_conflict') v.fail(ID, rule, `the operation's own answer (${o.op!.operationId} takes no Idempotency-Key)`, `${describe(o)}${namesKey ? ' naming the Idempotency-Key' : ''}`, [o]);
}

/**
 * A value the document allows, refused by name: an Idempotency-Key of 1 to 256 characters, a page
 * size from 1 to 1000, or a JSON body labelled application/json in another letter case or with
 * parameters (media types are case-insensitive, RFC 9110 8.3.1) that a 400 validation_failed
 * names among its field errors, or a 415, on a request the document's rules find valid.
 */
function allowedValueRefused(o: Observed, ctx: JudgeContext, v: Verdicts): void {
  answeredOutsideItsOperation(o, v);
  const labelledJson = mediaTypeOf(o.ex.request.headers['content-type']) === 'application/json';
  if (o.op!.operationId === 'createSmsBulkMessage' && o.status === 415 && labelledJson) {
    v.fail(ID, 'BULK-ACCEPT-202', `a 202 for a valid submission labelled ${o.ex.request.headers['content-type'] ?? '(no type)'} (application/json, whatever its letter case)`, describe(o), [o]);
    return;
  }
  if (o.status !== 400 || objectOf(o.json)?.code !== 'validation_failed') return;
  const pointers = errorPointers(o).map((p) => p.toLowerCase());
  // A member of the body the document's rules find valid, refused by name (its length counted in other units, a bound taken as exclusive).
  // Only a body recorded whole is known valid (the run's log cuts long bodies).
  const member = o.op!.operationId === 'createSmsBulkMessage' && o.requestKnown && o.requestJson !== undefined ? pointers.find((p) => BODY_MEMBERS_JUDGED.has(p)) : undefined;
  if (member) v.fail(ID, bodyRule(member, 'maxLength').requirement, `the submitted ${member.slice(1)} accepted (within the document's rules)`, `${describe(o)} naming ${member}`, [o]);
  const type = o.ex.request.headers['content-type'];
  if (o.op!.operationId === 'createSmsBulkMessage' && type !== undefined && labelledJson && pointers.some((p) => p.replace(/^\//, '') === 'content-type')) {
    v.fail(ID, 'BULK-ACCEPT-202', `a 202 for a valid submission labelled ${type} (application/json, whatever its letter case)`, `${describe(o)} naming the Content-Type`, [o]);
  }
  const key = o.ex.request.headers['idempotency-key'];
  if (o.op!.operationId === 'createSmsBulkMessage' && key !== undefined && key.length >= 1 && key.length <= 256 && pointers.some((p) => p.includes('idempotency-key'))) {
    v.fail(ID, 'IDEM-KEY-LENGTH', `an Idempotency-Key of ${key.length} characters (1 to 256 allowed) accepted`, `${describe(o)} naming the key`, [o]);
  }
  const limit = o.op!.query.get(ctx.params.limit);
  if (o.op!.operationId === 'listSmsBulkMessageRecipients' && limit !== null && /^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1000 && pointers.includes(ctx.params.limit.toLowerCase())) {
    v.fail(ID, 'CUR-MAX-LIMIT', `a page size of ${limit} (1 to 1000 allowed) accepted`, `${describe(o)} naming ${ctx.params.limit}`, [o]);
  }
}

export function start(v: Verdicts, ctx: JudgeContext): Reducer {
  const see = (o: Observed): void => {
    if (!o.op || o.pacing) return;
    const defects = requestDefects(o, ctx);
    if (defects.length === 0) {
      // The error table's unexpected failure: a 500 may meet any valid request, so it is not laid on the request.
      if (o.status >= 500) v.note(ID, `a ${o.status} to a request the document's rules find valid (${o.op.operationId}): the unexpected failure section 7 allows, not judged`);
      allowedValueRefused(o, ctx, v);
      return;
    }
    recordBlankMessage(o, defects, v);
    const first = defects[0]!;
    const why = defects.map((d) => d.reason).join('; ');
    if (o.status >= 500) {
      const rule: RequirementId = KEEPS_RULE_ON_5XX.includes(first.requirement) ? first.requirement : 'PROB-NO-5XX-FOR-CLIENT-FAULT';
      // 503 is the host's pacing or a brief outage, never judged (o.pacing excludes it above).
      v.fail(ID, rule, `a 4xx refusal of a request with ${why}`, describe(o), [o]);
      return;
    }
    if (o.status < 200 || o.status >= 300) {
      // A field-level refusal lists its field errors (PROB-VALIDATION-ERRORS assumption: body fields and query parameters).
      const fieldLevel = defects.every((d) => d.field);
      if (o.status === 400 && objectOf(o.json)?.code === 'validation_failed' && fieldLevel) {
        const errors = objectOf(o.json)?.errors;
        v.judge(ID, 'PROB-VALIDATION-ERRORS', 'an errors array naming the invalid fields', Array.isArray(errors) && errors.length > 0 ? undefined : 'no errors array', [o]);
      } else v.pass(ID);
      return;
    }
    // Served anyway: allowed for shapes whose refusal is not demanded (the cursors rules judge the rows).
    if (defects.every((d) => d.kind === 'lenient')) {
      v.pass(ID);
      return;
    }
    // The over-limit rules are the recipient-limits topic's; a non-E.164 number may be accepted as a bad entry.
    if (defects.every((d) => d.kind === 'over-limit' || d.kind === 'recipient-number') && defects.some((d) => d.kind === 'over-limit')) return;
    if (defects.every((d) => d.kind === 'recipient-number')) {
      const good = objectOf(objectOf(o.json)?.intake)?.good;
      const valid = validNumbers(o);
      if (typeof good === 'number' && valid !== undefined) {
        v.judge(ID, 'VAL-INVALID-RECIPIENT', `intake.good of at most ${valid} (the entries with an E.164 number)`, good > valid ? `intake.good ${good}` : undefined, [o]);
      } else v.note(ID, 'a submission with numbers that are not E.164 was accepted without intake counts; whether they were counted good is not observable in this traffic');
      return;
    }
    v.fail(ID, first.requirement, `a 4xx refusal of a request with ${why}`, describe(o), [o]);
  };
  return { see };
}
