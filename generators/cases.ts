// Shapes shared by the boundary and invalid-request generators: what is sent, where the
// violation sits, and every outcome the document allows for it.
import type { RequirementId } from '../spec/requirement-ids.ts';

/** An allowed answer. `code` is the problem code, or null for a success without one. */
export interface Outcome {
  status: number;
  code: string | null;
}

/**
 * The parts of a request a case sets; everything else (auth, path, a fresh Idempotency-Key)
 * is the suite's. A header set to `null` must not be sent at all (and not be added).
 */
export interface RequestParts {
  body?: unknown;
  /** Sent byte for byte instead of `body` (malformed JSON, no body at all). */
  rawBody?: string;
  headers?: Record<string, string | null>;
  query?: Array<[string, string]>;
}

export const VALIDATION_FAILED: Outcome = { status: 400, code: 'validation_failed' };

/** A sender the business has not authorized: section 5 names both 403 codes for it. */
export const SENDER_REFUSED: Outcome[] = [
  { status: 403, code: 'sender_not_authorized' },
  { status: 403, code: 'permission_denied' },
];

/** Where a violation sits: the body, a request header, or a query parameter. */
export type Location = 'body' | 'header' | 'query';

export type { RequirementId };
