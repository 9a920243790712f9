// Section 7 problem details, checked in one place: for a live response inside a check
// (`expectProblem`) and for any recorded response of the run (`problemViolations`, used by the
// problem-details topic over the exchange log).
import type { ApiResponse } from '../../harness/client.ts';
import type { RecordedResponse } from '../../core/model.ts';
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { mediaTypeOf, validate } from '../../spec/validators.ts';
import { isKnownProblemCode, RETRY_AFTER_CODES, statusOfProblemCode, type ProblemCode } from '../../spec/problem-codes.ts';
import type { CheckContext } from './check.ts';
import { isObject } from '../../core/json.ts';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export interface ProblemBody {
  type?: unknown;
  title?: unknown;
  status?: unknown;
  detail?: unknown;
  instance?: unknown;
  code?: unknown;
  request_id?: unknown;
  errors?: unknown;
  [extra: string]: unknown;
}

/** The parts of a response a problem check reads; built from a live ApiResponse or a logged one. */
export interface ResponseView {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Parsed JSON body, undefined when absent or not JSON. */
  json: unknown;
  /** Raw body text, when known. */
  text?: string;
  /** True when the body was cut by the exchange log, so its JSON cannot be judged. */
  cut?: boolean;
}

export interface ProblemViolation {
  requirement: RequirementId;
  expected: string;
  actual: string;
}

const CUT_MARK = /… \[cut: \d+ more characters\]$/;

export function viewOfApiResponse(res: ApiResponse): ResponseView {
  return { status: res.status, headers: res.headers, json: res.json, text: res.text };
}

export function viewOfRecorded(response: RecordedResponse): ResponseView {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) headers[name.toLowerCase()] = value;
  const text = response.body ?? '';
  const cut = CUT_MARK.test(text);
  let json: unknown;
  if (!cut && text.trim()) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: response.status, headers, json, text, cut };
}

export function codeOf(json: unknown): string | undefined {
  const code = isObject(json) ? json.code : undefined;
  return typeof code === 'string' ? code : undefined;
}


/** `404 resource_not_found`, `200`, `400 (not JSON)`: how a response reads in Received/Expected lines. */
export function describeResponse(view: ResponseView | ApiResponse): string {
  const json = view.json;
  const code = codeOf(json);
  if (code !== undefined) return `${view.status} ${code}`;
  if (view.status >= 400 && json === undefined && (view.text ?? '').length > 0) return `${view.status} (body not JSON)`;
  return `${view.status}`;
}

// ---- detail contents -------------------------------------------------------------------------

/** Marks of a stack trace in several runtimes (Node, JVM, Python, .NET, Go, Ruby, PHP). */
const STACK_TRACE_MARKS: RegExp[] = [
  /\bat [\w$.<>[\]]+ \(?[^\s()]+:\d+:\d+\)?/, // Node / V8
  /\bat (?:async )?[\w$.<>]+ \((?:node:|file:)/,
  /\bat [\w$]+(?:\.[\w$<>]+)+\([\w$]+\.java:\d+\)/, // JVM
  /Traceback \(most recent call last\)/, // Python
  /File "[^"]+", line \d+/,
  /\bat [\w.]+\([^)]*\) in .+:line \d+/, // .NET
  /goroutine \d+ \[/, // Go
  /\.rb:\d+:in `/, // Ruby
  /#\d+ \/[^\s]+\.php\(\d+\)/, // PHP
];

export function looksLikeStackTrace(text: string): boolean {
  return STACK_TRACE_MARKS.some((mark) => mark.test(text));
}

/** Redaction marker the harness puts where a secret or token was (harness/redact.ts). */
const REDACTED_MARK = '<redacted>';

/** True when `text` holds one of the secrets, or held one the harness log already redacted. */
export function containsSecret(text: string, secrets: readonly string[]): boolean {
  if (text.includes(REDACTED_MARK)) return true;
  return secrets.some((s) => s.length >= 4 && text.includes(s));
}

/** A JWT-shaped string (three base64url parts). */
const JWT_SHAPE = /\beyJ[A-Za-z0-9_-]{5,}\.(eyJ[A-Za-z0-9_-]{5,})\.[A-Za-z0-9_-]{10,}/g;

/**
 * Whether `text` echoes an access token: a JWT whose claims name an audience or an expiry. A
 * JWS-shaped cursor or other signed value the client sent is not a credential.
 */
function containsAccessToken(text: string): boolean {
  for (const match of text.matchAll(JWT_SHAPE)) {
    try {
      const claims = JSON.parse(Buffer.from(match[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      if ('aud' in claims || 'exp' in claims) return true;
    } catch {
      // Not a JSON payload: not a token.
    }
  }
  return false;
}

// ---- the checks ------------------------------------------------------------------------------

export interface ProblemCheckOptions {
  /** Secrets of the run (client secrets; tokens the caller knows). */
  secrets?: readonly string[];
  /**
   * Whether a 400 validation_failed here is for invalid body fields or query parameters, so
   * `errors` is required (PROB-VALIDATION-ERRORS); elsewhere only the shape of `errors` is judged.
   */
  fieldErrorsExpected?: boolean;
}

/**
 * Every section 7 rule a single error response breaks, in a stable order (media type, shape,
 * status, code, request id, type, detail, errors, Retry-After). Empty for a conforming problem.
 * A body cut by the exchange log is judged on its headers only.
 */
export function problemViolations(view: ResponseView, options: ProblemCheckOptions = {}): ProblemViolation[] {
  const out: ProblemViolation[] = [];
  const contentType = view.headers['content-type'];
  if (mediaTypeOf(contentType) !== PROBLEM_MEDIA_TYPE) {
    out.push({ requirement: 'PROB-MEDIA-TYPE', expected: `Content-Type ${PROBLEM_MEDIA_TYPE}`, actual: `Content-Type ${contentType ?? '(none)'}` });
  }
  const retryAfter = view.headers['retry-after'];
  if (retryAfter !== undefined && validate('RetryAfter', retryAfter.trim()).length > 0) {
    out.push({ requirement: 'PROB-RETRY-AFTER', expected: 'Retry-After as delay-seconds or an HTTP-date', actual: `Retry-After: ${retryAfter}` });
  }
  if (view.cut) return out;

  const json = view.json;
  if (!isObject(json)) {
    out.push({
      requirement: 'PROB-SCHEMA',
      expected: 'a JSON problem object',
      actual: json === undefined ? (view.text ? 'a body that is not JSON' : 'an empty body') : `JSON ${Array.isArray(json) ? 'array' : typeof json}`,
    });
    return out;
  }
  const body = json as ProblemBody;
  const schemaFailures = validate('Problem', body);
  if (schemaFailures.length > 0) {
    const first = schemaFailures
      .slice(0, 3)
      .map((f) => `${f.pointer || '/'} ${f.message}`)
      .join('; ');
    out.push({ requirement: 'PROB-SCHEMA', expected: 'a problem with type, title, status, detail, code, request_id of their types', actual: first });
  }
  if (body.status !== view.status) {
    out.push({ requirement: 'PROB-STATUS-MATCH', expected: `status member ${view.status} (the HTTP status)`, actual: `status member ${JSON.stringify(body.status)}` });
  }
  if (!isKnownProblemCode(body.code)) {
    out.push({ requirement: 'PROB-CODE-KNOWN', expected: 'code one of the section 7 problem codes', actual: `code ${JSON.stringify(body.code)}` });
  } else {
    const tableStatus = statusOfProblemCode(body.code);
    if (tableStatus !== undefined && tableStatus !== view.status) {
      out.push({ requirement: 'PROB-CODE-STATUS', expected: `${tableStatus} ${body.code}`, actual: `${view.status} ${body.code}` });
    }
    if (RETRY_AFTER_CODES.includes(body.code) && retryAfter === undefined) {
      out.push({ requirement: 'PROB-RETRY-AFTER', expected: `${view.status} ${body.code} with a Retry-After header`, actual: 'no Retry-After header' });
    }
  }
  const headerId = view.headers['x-request-id'];
  if (body.request_id !== headerId) {
    out.push({
      requirement: 'RID-PROBLEM-MATCH',
      expected: `request_id equal to X-Request-Id ${JSON.stringify(headerId ?? null)}`,
      actual: `request_id ${JSON.stringify(body.request_id ?? null)}`,
    });
  }
  if (typeof body.type === 'string' && typeof body.code === 'string' && !typeEndsWithCode(body.type, body.code)) {
    out.push({ requirement: 'PROB-TYPE-FORM', expected: `type ending in /${body.code}`, actual: `type ${JSON.stringify(body.type)}` });
  }
  if (typeof body.detail === 'string') {
    if (containsSecret(body.detail, options.secrets ?? []) || containsAccessToken(body.detail)) {
      out.push({ requirement: 'PROB-DETAIL-NO-SECRETS', expected: 'a detail without credentials or tokens', actual: 'a detail that contains a secret or a token' });
    } else if (looksLikeStackTrace(body.detail)) {
      out.push({ requirement: 'PROB-DETAIL-NO-SECRETS', expected: 'a detail without a stack trace', actual: `detail ${JSON.stringify(body.detail.slice(0, 200))}` });
    }
  }
  out.push(...fieldErrorViolations(body, view.status, options.fieldErrorsExpected ?? false));
  return out;
}

/** `https://x/problems/resource_not_found` or `/problems/resource_not_found`: last path segment is the code. */
export function typeEndsWithCode(type: string, code: string): boolean {
  const path = type.split(/[?#]/)[0] ?? '';
  return path.endsWith(`/${code}`);
}

/** The part of type before `/{code}`: the problem namespace base. */
export function typeBase(type: string, code: string): string | undefined {
  const path = type.split(/[?#]/)[0] ?? '';
  return path.endsWith(`/${code}`) ? path.slice(0, -code.length - 1) : undefined;
}

/**
 * An errors[].pointer as a plain JSON Pointer: RFC 9457's own example writes the URI-fragment
 * form (`#/age`, percent-encoded), which names the same member; anything else is returned as is.
 */
export function normalizePointer(pointer: string): string {
  if (!pointer.startsWith('#')) return pointer;
  try {
    return decodeURIComponent(pointer.slice(1));
  } catch {
    return pointer;
  }
}

/**
 * A JSON Pointer ('' or '/…' with ~0/~1 escapes only, plain or in URI-fragment form) or the name
 * of an input outside the body (a query parameter; headers have no pointer form in section 7).
 */
function isPointerOrParameter(pointer: string): boolean {
  const plain = normalizePointer(pointer);
  if (plain === '') return true;
  if (plain.startsWith('/')) return !/~(?![01])/.test(plain);
  return !pointer.startsWith('#') && pointer.trim().length > 0;
}

function fieldErrorViolations(body: ProblemBody, status: number, required: boolean): ProblemViolation[] {
  const isValidation = body.code === 'validation_failed' && status === 400;
  if (body.errors === undefined) {
    return isValidation && required
      ? [{ requirement: 'PROB-VALIDATION-ERRORS', expected: '400 validation_failed with an errors array naming the field', actual: 'no errors member' }]
      : [];
  }
  if (!Array.isArray(body.errors)) {
    return [{ requirement: 'PROB-VALIDATION-ERRORS', expected: 'errors as an array', actual: `errors ${JSON.stringify(body.errors).slice(0, 100)}` }];
  }
  if (isValidation && required && body.errors.length === 0) {
    return [{ requirement: 'PROB-VALIDATION-ERRORS', expected: 'at least one item in errors', actual: 'errors []' }];
  }
  for (const item of body.errors) {
    const ok =
      isObject(item) &&
      Object.keys(item).length === 2 &&
      typeof item.pointer === 'string' &&
      typeof item.code === 'string' &&
      item.code.length > 0 &&
      isPointerOrParameter(item.pointer);
    if (!ok) {
      return [
        {
          requirement: 'PROB-VALIDATION-ERRORS',
          expected: 'errors items of exactly pointer (JSON Pointer or query parameter name) and a non-empty code',
          actual: `item ${JSON.stringify(item).slice(0, 200)}`,
        },
      ];
    }
  }
  return [];
}

// ---- inside a check --------------------------------------------------------------------------

export interface ProblemExpectation {
  /** Allowed HTTP statuses (one or several where the document allows several readings). */
  status: number | readonly number[];
  /** Allowed codes; each must go with one of the allowed statuses by the table. */
  codes: readonly ProblemCode[];
  /** Cited when the status or code is not an allowed one. */
  requirement: RequirementId;
  /** Cited instead of the section 7 ids for every other problem-shape violation (default: theirs). */
  shapeRequirement?: RequirementId;
  /** Require errors[] (a 400 for invalid body fields or query parameters). */
  fieldErrorsExpected?: boolean;
  /** What the rule is about, added to the expected text: `(4.5: no grant)`. */
  why?: string;
}

/**
 * Fails the check unless `res` is one of the allowed status/code pairs and a well-formed section 7
 * problem: media type, schema, status member, request_id equal to the header. Returns the body.
 */
export function expectProblem(t: CheckContext, res: ApiResponse, expectation: ProblemExpectation): ProblemBody {
  const statuses = typeof expectation.status === 'number' ? [expectation.status] : expectation.status;
  const allowed = expectation.codes
    .flatMap((code) => {
      const tableStatus = statusOfProblemCode(code);
      const forCode = tableStatus === undefined ? statuses : statuses.filter((s) => s === tableStatus);
      return forCode.map((s) => `${s} ${code}`);
    })
    .join(' or ');
  const expected = expectation.why ? `${allowed} (${expectation.why})` : allowed;
  const code = codeOf(res.json);
  const statusOk = statuses.includes(res.status);
  const codeOk = code !== undefined && (expectation.codes as readonly string[]).includes(code) && statusOfCodeMatches(code, res.status);
  if (!statusOk || !codeOk) t.fail(expectation.requirement, expected, describeResponse(res), res);

  const violations = problemViolations(viewOfApiResponse(res), {
    secrets: t.config.secrets,
    fieldErrorsExpected: expectation.fieldErrorsExpected ?? false,
  });
  const first = violations[0];
  if (first) t.fail(expectation.shapeRequirement ?? first.requirement, first.expected, first.actual, res);
  return res.json as ProblemBody;
}

function statusOfCodeMatches(code: string, status: number): boolean {
  const tableStatus = statusOfProblemCode(code);
  return tableStatus === undefined || tableStatus === status;
}

/** True when the response is the given status and one of the codes (no shape judgement). */
export function isProblem(res: ApiResponse | ResponseView, status: number, ...codes: ProblemCode[]): boolean {
  const code = codeOf(res.json);
  return res.status === status && code !== undefined && (codes as string[]).includes(code);
}

/**
 * PROB-NO-5XX-FOR-CLIENT-FAULT: what the caller got wrong is never answered with a server error.
 * A 503 is only noted (a service may be unavailable at any moment) and returns false: the caller
 * judges nothing more of that response. Any other 5xx fails.
 */
export function expectNoServerFault(t: CheckContext, res: ApiResponse, what: string): boolean {
  if (res.status === 503) {
    t.note(`${what}: 503 (temporarily unavailable), not judged`);
    return false;
  }
  t.expect(res.status < 500, 'PROB-NO-5XX-FOR-CLIENT-FAULT', `no server error for ${what}`, describeResponse(res), res);
  return true;
}
