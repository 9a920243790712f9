// suites/support/problem.ts: each section 7 rule is found broken exactly where it is broken, and a
// conforming problem (including every reading the document leaves open) passes.
import { describe, expect, it } from 'vitest';
import {
  looksLikeStackTrace,
  problemViolations,
  typeBase,
  typeEndsWithCode,
  viewOfRecorded,
  type ResponseView,
} from '../../suites/support/problem.ts';

const REQUEST_ID = 'conf-run-1';

function view(status: number, body: Record<string, unknown> | undefined, headers: Record<string, string> = {}): ResponseView {
  return {
    status,
    headers: { 'content-type': 'application/problem+json', 'x-request-id': REQUEST_ID, ...headers },
    json: body,
    text: body === undefined ? '' : JSON.stringify(body),
  };
}

function problem(code: string, status: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: `https://problems.example.test/${code}`,
    title: 'A title',
    status,
    detail: 'What happened.',
    instance: `urn:request:${REQUEST_ID}`,
    code,
    request_id: REQUEST_ID,
    ...extra,
  };
}

const ids = (v: ResponseView, fieldErrorsExpected = false) =>
  problemViolations(v, { secrets: ['s3cret-value'], fieldErrorsExpected }).map((x) => x.requirement);

describe('problemViolations', () => {
  it('passes a conforming problem, with charset parameter, extra members and an OTP code of any status', () => {
    expect(ids(view(404, problem('resource_not_found', 404, { extra: 1 }), { 'content-type': 'application/problem+json; charset=utf-8' })))
      .toEqual([]);
    expect(ids(view(418, problem('otp_challenge_locked', 418)))).toEqual([]);
  });

  it('finds the media type', () => {
    expect(ids(view(404, problem('resource_not_found', 404), { 'content-type': 'application/json' }))).toEqual(['PROB-MEDIA-TYPE']);
  });

  it('finds a missing required member and a body that is not JSON', () => {
    const { detail: _detail, ...noDetail } = problem('resource_not_found', 404);
    expect(ids(view(404, noDetail))).toEqual(['PROB-SCHEMA']);
    expect(ids({ status: 500, headers: { 'content-type': 'application/problem+json' }, json: undefined, text: '<html>' })).toEqual(['PROB-SCHEMA']);
  });

  it('finds a status member that differs from the HTTP status', () => {
    expect(ids(view(422, problem('recipient_limit_exceeded', 400)))).toContain('PROB-STATUS-MATCH');
  });

  it('finds an unknown code and a code with the wrong status', () => {
    expect(ids(view(400, problem('bad_thing', 400)))).toContain('PROB-CODE-KNOWN');
    expect(ids(view(400, problem('resource_not_found', 400)))).toEqual(['PROB-CODE-STATUS']);
  });

  it('requires Retry-After for 429 and service_unavailable only, and judges its form wherever it appears', () => {
    expect(ids(view(429, problem('rate_limit_exceeded', 429)))).toEqual(['PROB-RETRY-AFTER']);
    expect(ids(view(503, problem('service_unavailable', 503)))).toEqual(['PROB-RETRY-AFTER']);
    expect(ids(view(503, problem('balance_unavailable', 503)))).toEqual([]);
    expect(ids(view(503, problem('service_unavailable', 503), { 'retry-after': '120' }))).toEqual([]);
    expect(ids(view(503, problem('service_unavailable', 503), { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }))).toEqual([]);
    expect(ids(view(503, problem('balance_unavailable', 503), { 'retry-after': 'soon' }))).toEqual(['PROB-RETRY-AFTER']);
  });

  it('finds a request_id that differs from the header', () => {
    expect(ids(view(404, problem('resource_not_found', 404, { request_id: 'other' })))).toEqual(['RID-PROBLEM-MATCH']);
  });

  it('finds a type that does not end in the code', () => {
    expect(ids(view(404, problem('resource_not_found', 404, { type: 'https://x.test/not_found' })))).toEqual(['PROB-TYPE-FORM']);
  });

  it('finds secrets, tokens and stack traces in detail', () => {
    expect(ids(view(401, problem('authentication_required', 401, { detail: 'secret s3cret-value refused' })))).toEqual(['PROB-DETAIL-NO-SECRETS']);
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhYmMiLCJleHAiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLXZhbHVlLXg';
    expect(ids(view(401, problem('authentication_required', 401, { detail: `token ${jwt} expired` })))).toEqual(['PROB-DETAIL-NO-SECRETS']);
    // A JWS-shaped cursor echoed back is no credential: its claims name no audience or expiry.
    const cursor = 'eyJhbGciOiJIUzI1NiJ9.eyJidWxrIjoiYiIsIm5leHQiOjEwfQ.c2lnbmF0dXJlLXZhbHVlLXg';
    expect(ids(view(400, problem('validation_failed', 400, { detail: `cursor ${cursor} is invalid` })))).toEqual([]);
    const trace = 'TypeError: x is undefined\n    at handler (/srv/app/api.js:12:7)';
    expect(ids(view(500, problem('internal_error', 500, { detail: trace })))).toEqual(['PROB-DETAIL-NO-SECRETS']);
  });

  it('requires errors[] only where field errors are expected, and judges its items everywhere', () => {
    const bare = problem('validation_failed', 400);
    expect(ids(view(400, bare))).toEqual([]);
    expect(ids(view(400, bare), true)).toEqual(['PROB-VALIDATION-ERRORS']);
    expect(ids(view(400, { ...bare, errors: [] }), true)).toEqual(['PROB-VALIDATION-ERRORS']);
    expect(ids(view(400, { ...bare, errors: [{ pointer: '/recipients/0/to', code: 'field_invalid' }] }), true)).toEqual([]);
    expect(ids(view(400, { ...bare, errors: [{ pointer: 'limit', code: 'field_invalid' }] }), true)).toEqual([]);
    // RFC 9457's own example writes the URI-fragment form; a header has no pointer form at all.
    expect(ids(view(400, { ...bare, errors: [{ pointer: '#/recipients/0/to', code: 'field_invalid' }] }), true)).toEqual([]);
    expect(ids(view(400, { ...bare, errors: [{ pointer: 'header:Idempotency-Key', code: 'required' }] }), true)).toEqual([]);
    expect(ids(view(400, { ...bare, errors: [{ pointer: '#no-pointer', code: 'x' }] }), true)).toContain('PROB-VALIDATION-ERRORS');
    expect(ids(view(400, { ...bare, errors: [{ pointer: '/a', code: 'x', extra: 1 }] }))).toContain('PROB-VALIDATION-ERRORS');
  });

  it('judges a body cut by the exchange log on its headers only', () => {
    const cut = viewOfRecorded({
      status: 400,
      headers: { 'Content-Type': 'application/problem+json', 'X-Request-Id': REQUEST_ID },
      body: '{"type":"https://x.test/validation_failed"… [cut: 12 more characters]',
    });
    expect(cut.cut).toBe(true);
    expect(ids(cut)).toEqual([]);
  });
});

describe('problem type and stack trace helpers', () => {
  it('reads the namespace base of a type', () => {
    expect(typeEndsWithCode('https://p.test/problems/resource_not_found', 'resource_not_found')).toBe(true);
    expect(typeEndsWithCode('/problems/resource_not_found#x', 'resource_not_found')).toBe(true);
    expect(typeEndsWithCode('https://p.test/problems/not_resource_not_found', 'resource_not_found')).toBe(false);
    expect(typeBase('https://p.test/problems/idempotency_conflict', 'idempotency_conflict')).toBe('https://p.test/problems');
  });

  it('recognises stack traces of several runtimes and leaves prose alone', () => {
    expect(looksLikeStackTrace('at Object.<anonymous> (/app/index.js:10:5)')).toBe(true);
    expect(looksLikeStackTrace('Traceback (most recent call last):\n  File "app.py", line 3')).toBe(true);
    expect(looksLikeStackTrace('at com.acme.Api.handle(Api.java:42)')).toBe(true);
    expect(looksLikeStackTrace('The message was not found at this time.')).toBe(false);
  });
});
