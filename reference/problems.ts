// RFC 9457 problem details (section 7): one stable title per code, `type` under one base.
import type { ServerResponse } from 'node:http';

export const PROBLEMS_BASE = 'https://problems.example.invalid';
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export const PROBLEM_CODES = {
  validation_failed: { status: 400, title: 'Request validation failed' },
  authentication_required: { status: 401, title: 'Authentication required' },
  permission_denied: { status: 403, title: 'Permission denied' },
  sender_not_authorized: { status: 403, title: 'Sender not authorized' },
  resource_not_found: { status: 404, title: 'Resource not found' },
  idempotency_conflict: { status: 409, title: 'Idempotency key conflict' },
  recipient_limit_exceeded: { status: 422, title: 'Recipient limit exceeded' },
  template_not_active: { status: 422, title: 'Template not active' },
  invalid_recipient: { status: 422, title: 'Invalid recipient' },
  rate_limit_exceeded: { status: 429, title: 'Rate limit exceeded' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  balance_unavailable: { status: 503, title: 'Balance unavailable' },
} as const;

export type ProblemCode = keyof typeof PROBLEM_CODES;

/** One field-level error (section 7): where the bad input is (body JSON Pointer or query name). */
export interface FieldError {
  pointer: string;
  code: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ProblemCode;
  request_id: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

export function buildProblem(code: ProblemCode, detail: string, requestId: string, errors?: FieldError[]): Problem {
  const { status, title } = PROBLEM_CODES[code];
  const problem: Problem = {
    type: `${PROBLEMS_BASE}/${code}`,
    title,
    status,
    detail,
    // An occurrence URI built from the request id alone, so two concealed 404s differ only there.
    instance: `urn:request:${requestId}`,
    code,
    request_id: requestId,
  };
  if (errors) problem.errors = errors;
  return problem;
}

export function writeJson(res: ServerResponse, status: number, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
