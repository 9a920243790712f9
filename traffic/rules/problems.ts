// Problem details of every error answer (section 7): media type, members, status and code paired
// as the error table pairs them, type form, stable titles, no secret or stack trace in detail,
// field errors on validation failures. 429 and 503 are the host's pacing and are not judged.
import { PROBLEM_CODE_STATUS, isKnownProblemCode } from '../../spec/problem-codes.ts';
import { mediaTypeOf, validate } from '../../spec/validators.ts';
import { redactText } from '../../harness/redact.ts';
import { kept, objectOf, type JudgeContext, type Observed } from '../context.ts';
import { BoundedMap, STATE_LIMIT, type CheckDef, type Reducer, type Verdicts } from '../verdicts.ts';

const SHAPE = 'traffic/problem-details/shape';
const TYPE = 'traffic/problem-details/type-form';
const TITLE = 'traffic/problem-details/title-stable';
const INSTANCE = 'traffic/problem-details/instance';
const DETAIL = 'traffic/problem-details/detail-no-secrets';
const RETRY = 'traffic/problem-details/retry-after';

export const checks: CheckDef[] = [
  { id: SHAPE, topic: 'problem-details', title: 'every 4xx/5xx answer of the API is application/problem+json with the members of section 7, status equal to the HTTP status and a known code paired with its status', requirements: ['PROB-MEDIA-TYPE', 'PROB-SCHEMA', 'PROB-STATUS-MATCH', 'PROB-CODE-KNOWN', 'PROB-CODE-STATUS', 'PROB-VALIDATION-ERRORS'] },
  { id: TYPE, topic: 'problem-details', title: 'problem type ends in its code, with one namespace base across the traffic', requirements: ['PROB-TYPE-FORM'] },
  { id: TITLE, topic: 'problem-details', title: 'one code carries one title everywhere in the traffic', requirements: ['PROB-TITLE-STABLE'] },
  { id: INSTANCE, topic: 'problem-details', title: 'problems carry the recommended instance member', requirements: ['PROB-INSTANCE'] },
  { id: RETRY, topic: 'problem-details', title: 'a 429 rate_limit_exceeded or 503 service_unavailable carries Retry-After, and any Retry-After is seconds or an HTTP date (the 429 or 503 itself is the host\'s pacing, never a violation)', requirements: ['PROB-RETRY-AFTER', 'PROB-RATE-LIMIT'] },
  { id: DETAIL, topic: 'problem-details', title: 'problem detail holds no credential seen in the traffic and no stack trace', requirements: ['PROB-DETAIL-NO-SECRETS'] },
];

const STACK = /\n\s+at\s|\bat [\w.<>]+ \(.*:\d+:\d+\)/;

/** Retry-After: delay-seconds or an HTTP date (RFC 9110). */
function retryAfterValid(value: string): boolean {
  return /^\d+$/.test(value.trim()) || (/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value.trim()) && Number.isFinite(Date.parse(value)));
}

function judgeRetryAfter(o: Observed, v: Verdicts): void {
  const value = o.ex.response.headers['retry-after'];
  const code = objectOf(o.json)?.code;
  if (value !== undefined) v.judge(RETRY, 'PROB-RETRY-AFTER', 'Retry-After as seconds or an HTTP date', retryAfterValid(value) ? undefined : `Retry-After ${JSON.stringify(value)}`, [o]);
  else if ((o.status === 429 && code === 'rate_limit_exceeded') || (o.status === 503 && code === 'service_unavailable')) v.fail(RETRY, 'PROB-RETRY-AFTER', `a Retry-After header on ${o.status} ${String(code)}`, 'none', [o]);
}

/** Problem codes and type bases are few (section 7): their first title and base are kept for the whole traffic. */
export function start(v: Verdicts, ctx: JudgeContext): Reducer {
  // Bounded all the same: a server may mint a code per answer.
  const titles = new BoundedMap<string, { title: string; o: Observed }>(STATE_LIMIT);
  /** The first two type bases: an answer of any base differs from one of them once there are two. */
  const bases: Array<[string, Observed]> = [];
  const see = (o: Observed): void => {
    if ((o.op || o.unknownApiPath) && o.responseKnown) judgeRetryAfter(o, v);
    if (!(o.op || o.unknownApiPath) || o.pacing || o.status < 400 || !o.responseKnown) return;
    const media = mediaTypeOf(o.ex.response.headers['content-type']);
    if (media !== 'application/problem+json') {
      v.fail(SHAPE, 'PROB-MEDIA-TYPE', 'Content-Type application/problem+json', media ?? '(none)', [o]);
      return;
    }
    // An answer to HEAD has the headers of the GET and no content (RFC 9110 9.3.2): nothing to read.
    if (o.ex.request.method === 'HEAD') return;
    const body = objectOf(o.json);
    if (!body) {
      v.fail(SHAPE, 'PROB-SCHEMA', 'a problem details JSON object', 'a body that is no JSON object', [o]);
      return;
    }
    const code = body.code;
    const failures = validate('Problem', body).filter((f) => f.keyword !== 'oneOf');
    const codeStatus = typeof code === 'string' ? PROBLEM_CODE_STATUS.get(code) : undefined;
    if (body.status !== o.status) v.fail(SHAPE, 'PROB-STATUS-MATCH', `status member ${o.status}`, `status member ${JSON.stringify(body.status)}`, [o]);
    else if (!isKnownProblemCode(code)) v.fail(SHAPE, 'PROB-CODE-KNOWN', 'a code defined by section 7', `code ${JSON.stringify(code)}`, [o]);
    else if (codeStatus !== undefined && codeStatus !== o.status) v.fail(SHAPE, 'PROB-CODE-STATUS', `${code} with HTTP ${codeStatus}`, `${code} with HTTP ${o.status}`, [o]);
    else if (failures.length > 0) {
      const f = failures[0]!;
      const rule = f.pointer.startsWith('/errors') ? 'PROB-VALIDATION-ERRORS' : 'PROB-SCHEMA';
      v.fail(SHAPE, rule, 'a problem with type, title, status, detail, code and request_id of their stated types', `${f.pointer || '(document)'} ${f.message}`, [o]);
    } else v.pass(SHAPE);

    if (typeof code === 'string' && typeof body.type === 'string') {
      const type = body.type;
      if (!type.endsWith(`/${code}`)) v.fail(TYPE, 'PROB-TYPE-FORM', `a type ending in /${code}`, `type ${type}`, [o]);
      else {
        const base = type.slice(0, -code.length - 1);
        const other = bases.find((entry) => entry[0] !== base);
        if (other) v.fail(TYPE, 'PROB-TYPE-FORM', `the namespace base ${other[0]} of the other problems`, `type ${type}`, [other[1], o]);
        else v.pass(TYPE);
        if (bases.length < 2 && !bases.some((entry) => entry[0] === base)) bases.push([base, kept(o)]);
      }
    }
    if (typeof code === 'string' && typeof body.title === 'string') {
      const seen = titles.get(code);
      if (!seen) {
        titles.set(code, { title: body.title, o: kept(o) });
        v.pass(TITLE);
      } else v.judge(TITLE, 'PROB-TITLE-STABLE', `the title ${JSON.stringify(seen.title)} given to ${code} before`, seen.title === body.title ? undefined : `title ${JSON.stringify(body.title)}`, [seen.o, o]);
    }
    v.judge(INSTANCE, 'PROB-INSTANCE', 'an instance member', 'instance' in body ? undefined : 'no instance member', [o]);
    if (typeof body.detail === 'string') {
      const leaks = redactText(body.detail, ctx.secrets) !== body.detail;
      const stack = STACK.test(body.detail);
      v.judge(DETAIL, 'PROB-DETAIL-NO-SECRETS', 'a detail without credentials or stack traces', leaks ? 'a detail holding a credential seen in the traffic' : stack ? 'a detail holding a stack trace' : undefined, [o]);
    }
  };
  return {
    see,
    forgotten: () => [{ check: TITLE, what: 'problem codes and their first titles', limit: STATE_LIMIT, count: titles.dropped }],
  };
}
