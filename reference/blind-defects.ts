// Blind defects: a second registry of reference defects, written from the document and the
// reference alone, without knowledge of the checker's checks, so a scorer can measure what the
// checker misses outside its authors' own defects. Same shape and mechanism as reference/defects.ts
// (`if (defects.has('blind-…'))` at the one spot the rule lives); each is visible to a run against
// a host (no control origin needed). Kept apart from DEFECTS so the two can be scored separately.
import type { Topic } from '../core/model.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';

/**
 * The shape of `Defect` in reference/defects.ts plus the authoring round (declared here, not
 * imported, because defects.ts imports this registry and modules do not import in a loop).
 */
export interface BlindDefect {
  /** kebab-case, stable, prefixed blind- */
  id: string;
  requirement: RequirementId;
  topic: Topic;
  description: string;
  /** The authoring round that wrote it. */
  round: 1 | 2 | 3;
}

const registry = [
  // auth-ordering
  { id: 'blind-delete-skips-authentication', requirement: 'AUTH-ALL-OPERATIONS', topic: 'auth-ordering', round: 1, description: 'The deactivation route is mounted ahead of the authentication step: a DELETE without an Authorization header deactivates an endpoint of the path business (204).' },
  // recipient-limits
  { id: 'blind-body-limit-100kb', requirement: 'RLIM-AT-MAX-ACCEPTED', topic: 'recipient-limits', round: 1, description: 'Request bodies above 100 KB (a body parser default) are refused with 400 validation_failed, so a valid 1000-recipient submission with template variables is refused.' },
  { id: 'blind-over-limit-truncated', requirement: 'RLIM-NO-PARTIAL', topic: 'recipient-limits', round: 1, description: 'A submission above 1000 entries is accepted (202) with its first 1000 entries kept, instead of refused as a whole.' },
  // bulk-invariants
  { id: 'blind-settled-requires-no-failures', requirement: 'BULK-SETTLED-RULE', topic: 'bulk-invariants', round: 1, description: 'settled is true only when completed with no retries outstanding and no failed submission, so a completed bulk with an exhausted entry shows settled false.' },
  // concealment
  { id: 'blind-foreign-bulk-rows-listed', requirement: 'CONC-CROSS-BUSINESS-BULK', topic: 'concealment', round: 1, description: "The recipient listing does not check the bulk's owner: another business's bulk's rows are listed (200) under the caller's business." },
  // problem-details
  { id: 'blind-pointer-one-based', requirement: 'PROB-VALIDATION-ERRORS', topic: 'problem-details', round: 1, description: 'errors[] pointers number recipient entries from 1 (/recipients/1/to for the first entry), so they point at the wrong or no entry.' },
  // schemas
  { id: 'blind-intake-total-member', requirement: 'SCH-INTAKE-FIELDS', topic: 'schemas', round: 1, description: 'intake carries an extra total member (good + bad + empty).' },
  // webhooks
  { id: 'blind-webhook-skips-grant', requirement: 'HOOK-FORBIDDEN', topic: 'webhooks', round: 1, description: 'Deactivation checks only that the endpoint belongs to the path business: an endpoint of a business without grant is deactivated under that business (204).' },
  // ---- round 2 ----
  // auth-ordering
  { id: 'blind-validation-before-grant', requirement: 'AUTH-ORDER', topic: 'auth-ordering', round: 2, description: 'A submission on a business without grant has its body validated first: an invalid body gets 400 validation_failed (with field errors) instead of 403 permission_denied.' },
  // idempotency
  { id: 'blind-fingerprint-raw-text', requirement: 'IDEM-REPLAY', topic: 'idempotency', round: 2, description: 'The payload fingerprint is the raw request text, so an equivalent repeat written with other whitespace gets 409 idempotency_conflict instead of the replay.' },
  // cursors
  { id: 'blind-cursor-lifetime-seconds', requirement: 'CUR-LIFETIME', topic: 'cursors', round: 2, description: 'The 24-hour lifetime is compared in the wrong unit (86.4 seconds): a cursor presented a minute and a half after issue gets 400 validation_failed.' },
  // bulk-invariants
  // concealment
  // request-id
  // problem-details
  { id: 'blind-problem-instance-with-space', requirement: 'PROB-INSTANCE', topic: 'problem-details', round: 2, description: 'instance is a phrase with a space (request <id>), not a URI reference.' },
  // schemas
  { id: 'blind-warning-severity', requirement: 'SCH-WARNING-SHAPE', topic: 'schemas', round: 2, description: 'Warnings carry a severity member beside code and detail.' },
  { id: 'blind-pin-revision-number', requirement: 'SCH-TEMPLATE-PIN', topic: 'schemas', round: 2, description: 'On reads of a template-based bulk the pin carries an extra revision member (the revision number); the 202 is right.' },
  // webhooks
  { id: 'blind-webhook-malformed-id-204', requirement: 'HOOK-NOT-FOUND', topic: 'webhooks', round: 2, description: 'An endpoint id that is not a UUIDv7 is taken for nothing to do: 204 instead of a refusal.' },
  { id: 'blind-webhook-wallet-permission', requirement: 'HOOK-DEACTIVATE-204', topic: 'webhooks', round: 2, description: 'Deactivation asks for wallet.balance.read (copied from the wallet handler): an application granted on the business without it gets 403 for an active endpoint.' },
  // messages
  { id: 'blind-message-business-id-uppercase', requirement: 'MSG-BUSINESS', topic: 'messages', round: 2, description: "A retrieved message's business_id is written in upper case, so it differs from the business of the path." },
  // Round 3 (blind3-): written from the document and the reference alone.
  // auth-ordering
  { id: 'blind3-sender-before-grant', requirement: 'AUTH-ORDER', topic: 'auth-ordering', round: 3, description: 'The sender is checked before the grant: a submission on a business without grant naming a sender that business does not own gets 403 sender_not_authorized instead of permission_denied.' },
  // idempotency
  // recipient-limits
  // cursors
  // bulk-invariants
  // wallet
  // concealment
  { id: 'blind3-foreign-bulk-rows-403', requirement: 'CONC-CROSS-BUSINESS-BULK', topic: 'concealment', round: 3, description: "Listing the rows of another business's bulk under the caller's business gives 403 permission_denied, while an unknown bulk gives 404." },
  // request-id
  // problem-details
  { id: 'blind3-pointer-slash-unescaped', requirement: 'PROB-VALIDATION-ERRORS', topic: 'problem-details', round: 3, description: 'errors[] pointers do not escape / in member names (RFC 6901 ~1): an unknown member a/b is pointed at as /a/b.' },
  { id: 'blind3-null-recipient-500', requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', topic: 'problem-details', round: 3, description: 'A recipients entry that is null makes the validator read .to of null: 500 internal_error instead of 400.' },
  // validation
  { id: 'blind3-blank-message-refused', requirement: 'VAL-MESSAGE-LENGTH', topic: 'validation', round: 3, description: 'A message of spaces only (length within 1 to 4096) is refused with 400 as blank.' },
  // schemas
  { id: 'blind3-row-times-empty-string', requirement: 'SCH-ROW-FIELDS', topic: 'schemas', round: 3, description: 'Recipient rows give unknown times (submitted_at, delivered_at, failed_at) as empty strings instead of null.' },
  // webhooks
  { id: 'blind3-webhook-foreign-204-noop', requirement: 'HOOK-NOT-FOUND', topic: 'webhooks', round: 3, description: "Deactivating another business's endpoint under the caller's business updates no row and answers 204 as if done." },
  // messages
] as const satisfies readonly BlindDefect[];

export type BlindDefectId = (typeof registry)[number]['id'];

export const BLIND_DEFECTS: readonly BlindDefect[] = registry;

export function isBlindDefectId(id: string): id is BlindDefectId {
  return registry.some((d) => d.id === id);
}
