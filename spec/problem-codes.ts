// The section 7 problem codes as the checker reads them: the status the document gives each code
// and the codes whose responses carry Retry-After, both from the ProblemCode schema of
// spec/openapi.yaml (`x-status`, `x-retry-after`).
import { openapi } from './contract.ts';

/** The ProblemCode enum as a type, so a typo cannot compile (a test keeps it equal to the enum). */
export const problemCodes = [
  'validation_failed',
  'authentication_required',
  'permission_denied',
  'sender_not_authorized',
  'resource_not_found',
  'idempotency_conflict',
  'recipient_limit_exceeded',
  'template_not_active',
  'invalid_recipient',
  'rate_limit_exceeded',
  'internal_error',
  'service_unavailable',
  'balance_unavailable',
  'otp_verification_failed',
  'otp_challenge_expired',
  'otp_challenge_locked',
  'otp_challenge_consumed',
  'otp_challenge_invalidated',
  'otp_resend_cooldown',
  'otp_resend_limit_exceeded',
] as const;
export type ProblemCode = (typeof problemCodes)[number];

const schema = openapi.components.schemas.ProblemCode as { 'x-status': Record<string, number>; 'x-retry-after': string[] };

/** Code to the HTTP status the document gives it; codes with no status given (OTP) are absent. */
export const PROBLEM_CODE_STATUS: ReadonlyMap<string, number> = new Map(Object.entries(schema['x-status']));

/** Codes whose responses must carry a Retry-After header. */
export const RETRY_AFTER_CODES: readonly string[] = schema['x-retry-after'];

export function isKnownProblemCode(code: unknown): code is ProblemCode {
  return typeof code === 'string' && (problemCodes as readonly string[]).includes(code);
}

/** The status the document gives a code; undefined for codes without one and unknown codes. */
export function statusOfProblemCode(code: unknown): number | undefined {
  return typeof code === 'string' ? PROBLEM_CODE_STATUS.get(code) : undefined;
}
