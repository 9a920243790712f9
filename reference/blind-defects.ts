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
  round: 1 | 2;
}

const registry = [
  // auth-ordering
  { id: 'blind-delete-skips-authentication', requirement: 'AUTH-ALL-OPERATIONS', topic: 'auth-ordering', round: 1, description: 'The deactivation route is mounted ahead of the authentication step: a DELETE without an Authorization header deactivates an endpoint of the path business (204).' },
  { id: 'blind-basic-credentials-accepted', requirement: 'AUTH-BEARER', topic: 'auth-ordering', round: 1, description: "The API also accepts the application's client credentials sent as HTTP Basic (the token endpoint's scheme) instead of a bearer token." },
  { id: 'blind-bulk-lookup-before-grant', requirement: 'AUTH-ORDER', topic: 'auth-ordering', round: 1, description: 'A bulk read looks the bulk up before checking the grant: on a business without grant an unknown bulk id gets 404 resource_not_found, an existing one 403 permission_denied.' },
  { id: 'blind-missing-permission-401', requirement: 'AUTH-PERMISSION', topic: 'auth-ordering', round: 1, description: 'An application granted on the business but lacking the operation permission gets 401 authentication_required instead of 403 permission_denied.' },
  // idempotency
  { id: 'blind-replay-status-200', requirement: 'IDEM-REPLAY', topic: 'idempotency', round: 1, description: 'An equivalent repeat replays the original body and Location but with status 200 instead of the original 202.' },
  { id: 'blind-replay-current-state', requirement: 'IDEM-REPLAY', topic: 'idempotency', round: 1, description: 'An equivalent repeat answers the bulk as it is now (current status, counts, warnings) instead of replaying the original 202 response.' },
  // recipient-limits
  { id: 'blind-body-limit-100kb', requirement: 'RLIM-AT-MAX-ACCEPTED', topic: 'recipient-limits', round: 1, description: 'Request bodies above 100 KB (a body parser default) are refused with 400 validation_failed, so a valid 1000-recipient submission with template variables is refused.' },
  { id: 'blind-over-limit-invalid-recipient-code', requirement: 'RLIM-MAX-1000', topic: 'recipient-limits', round: 1, description: 'Too many recipients gives 422 with code invalid_recipient instead of recipient_limit_exceeded.' },
  { id: 'blind-over-limit-truncated', requirement: 'RLIM-NO-PARTIAL', topic: 'recipient-limits', round: 1, description: 'A submission above 1000 entries is accepted (202) with its first 1000 entries kept, instead of refused as a whole.' },
  // cursors
  { id: 'blind-cursor-overlaps-one-row', requirement: 'CUR-WALK', topic: 'cursors', round: 1, description: "Each next page starts at the previous page's last row, so a walk repeats one row per page." },
  { id: 'blind-limit-above-max-clamped', requirement: 'CUR-MAX-LIMIT', topic: 'cursors', round: 1, description: 'A page size above 1000 is clamped to 1000 and served (200) instead of 400 validation_failed.' },
  // bulk-invariants
  { id: 'blind-settled-requires-no-failures', requirement: 'BULK-SETTLED-RULE', topic: 'bulk-invariants', round: 1, description: 'settled is true only when completed with no retries outstanding and no failed submission, so a completed bulk with an exhausted entry shows settled false.' },
  { id: 'blind-location-without-version-prefix', requirement: 'BULK-LOCATION', topic: 'bulk-invariants', round: 1, description: "The 202's Location leaves out the /v1 prefix (/businesses/{id}/sms/bulk-messages/{bulkId}), so it resolves to no resource." },
  // wallet
  { id: 'blind-wallet-balance-grouped', requirement: 'WAL-MONEY-FORMAT', topic: 'wallet', round: 1, description: 'current_balance and available_balance are written with thousands separators (1,250.75).' },
  { id: 'blind-wallet-currency-numeric', requirement: 'WAL-CURRENCY-FORMAT', topic: 'wallet', round: 1, description: 'currency is the ISO 4217 numeric code (826) instead of the alphabetic one.' },
  { id: 'blind-wallet-cache-skips-permission', requirement: 'WAL-PERMISSION', topic: 'wallet', round: 1, description: "Balances are cached per business and served from the cache to any granted application: once another application read it, one without wallet.balance.read gets 200." },
  { id: 'blind-wallet-permission-404', requirement: 'WAL-PERMISSION', topic: 'wallet', round: 1, description: 'An application granted on the business without wallet.balance.read gets 404 resource_not_found instead of 403 permission_denied.' },
  // concealment
  { id: 'blind-foreign-bulk-rows-listed', requirement: 'CONC-CROSS-BUSINESS-BULK', topic: 'concealment', round: 1, description: "The recipient listing does not check the bulk's owner: another business's bulk's rows are listed (200) under the caller's business." },
  { id: 'blind-rows-listing-skips-grant', requirement: 'CONC-OTHER-BUSINESS-PATH', topic: 'concealment', round: 1, description: 'The recipient listing does not check the grant: the rows of a bulk of a business without grant are listed (200) under that business.' },
  { id: 'blind-foreign-message-404-owner-instance', requirement: 'CONC-SAME-AS-MISSING', topic: 'concealment', round: 1, description: "The 404 for another business's message carries as instance that message's path under its owning business." },
  // request-id
  { id: 'blind-request-id-dots-replaced', requirement: 'RID-ECHO', topic: 'request-id', round: 1, description: 'A valid X-Request-Id containing a dot or underscore is replaced by a generated one (the pattern taken as letters, digits and hyphens).' },
  { id: 'blind-request-id-lowercased', requirement: 'RID-ECHO', topic: 'request-id', round: 1, description: 'A valid X-Request-Id is echoed lower-cased.' },
  { id: 'blind-request-id-min-2', requirement: 'RID-LENGTH-BOUNDARY', topic: 'request-id', round: 1, description: 'A valid one-character X-Request-Id is replaced by a generated one (the minimum taken as 2).' },
  // problem-details
  { id: 'blind-problem-status-as-string', requirement: 'PROB-STATUS-MATCH', topic: 'problem-details', round: 1, description: 'The status member of problems is a string ("400") instead of an integer.' },
  { id: 'blind-error-item-message', requirement: 'PROB-VALIDATION-ERRORS', topic: 'problem-details', round: 1, description: 'Each errors[] item carries a message member beside pointer and code.' },
  { id: 'blind-pointer-one-based', requirement: 'PROB-VALIDATION-ERRORS', topic: 'problem-details', round: 1, description: 'errors[] pointers number recipient entries from 1 (/recipients/1/to for the first entry), so they point at the wrong or no entry.' },
  { id: 'blind-problem-type-hyphenated', requirement: 'PROB-TYPE-FORM', topic: 'problem-details', round: 1, description: 'Problem type URIs end in the code written with hyphens (…/validation-failed) instead of the code.' },
  // validation
  { id: 'blind-recipient-extra-member-accepted', requirement: 'VAL-RECIPIENT-ITEM-FIELDS', topic: 'validation', round: 1, description: 'Recipient entries with members beyond to and template_variables are accepted (the extra members ignored).' },
  { id: 'blind-e164-leading-zero-accepted', requirement: 'VAL-INVALID-RECIPIENT', topic: 'validation', round: 1, description: 'Recipient numbers whose first digit is 0 (+0…) are accepted as valid.' },
  // schemas
  { id: 'blind-row-times-without-offset', requirement: 'SCH-UTC-TIMESTAMPS', topic: 'schemas', round: 1, description: 'Recipient rows write their timestamps without an offset (2026-01-01T10:00:00.000), unlike every other resource.' },
  { id: 'blind-pagination-limit-string', requirement: 'SCH-PAGINATION', topic: 'schemas', round: 1, description: 'pagination.limit echoes the page size query parameter as a string ("10") when one is given.' },
  { id: 'blind-intake-total-member', requirement: 'SCH-INTAKE-FIELDS', topic: 'schemas', round: 1, description: 'intake carries an extra total member (good + bad + empty).' },
  { id: 'blind-row-ids-uuidv4', requirement: 'SCH-UUIDV7', topic: 'schemas', round: 1, description: 'Recipient rows of newly accepted bulks get UUID version 4 ids.' },
  // webhooks
  { id: 'blind-webhook-delete-202', requirement: 'HOOK-DEACTIVATE-204', topic: 'webhooks', round: 1, description: 'Deactivation answers 202 Accepted with an empty body instead of 204.' },
  { id: 'blind-delete-requires-content-type', requirement: 'HOOK-DEACTIVATE-204', topic: 'webhooks', round: 1, description: 'A DELETE without a Content-Type header (it has no body) is refused with 400 validation_failed instead of deactivating.' },
  { id: 'blind-webhook-skips-grant', requirement: 'HOOK-FORBIDDEN', topic: 'webhooks', round: 1, description: 'Deactivation checks only that the endpoint belongs to the path business: an endpoint of a business without grant is deactivated under that business (204).' },
  // messages
  { id: 'blind-message-times-epoch', requirement: 'MSG-SCHEMA', topic: 'messages', round: 1, description: 'A retrieved message writes accepted_at, submitted_at, delivered_at and failed_at as epoch milliseconds (JSON numbers).' },
  { id: 'blind-message-template-as-id', requirement: 'MSG-TEMPLATE-PIN', topic: 'messages', round: 1, description: 'A template-based message shows template as the bare template id string instead of the pin object.' },
  // ---- round 2 ----
  // auth-ordering
  { id: 'blind-validation-before-grant', requirement: 'AUTH-ORDER', topic: 'auth-ordering', round: 2, description: 'A submission on a business without grant has its body validated first: an invalid body gets 400 validation_failed (with field errors) instead of 403 permission_denied.' },
  // idempotency
  { id: 'blind-fingerprint-raw-text', requirement: 'IDEM-REPLAY', topic: 'idempotency', round: 2, description: 'The payload fingerprint is the raw request text, so an equivalent repeat written with other whitespace gets 409 idempotency_conflict instead of the replay.' },
  // cursors
  { id: 'blind-cursor-lifetime-seconds', requirement: 'CUR-LIFETIME', topic: 'cursors', round: 2, description: 'The 24-hour lifetime is compared in the wrong unit (86.4 seconds): a cursor presented a minute and a half after issue gets 400 validation_failed.' },
  // concealment
  { id: 'blind-foreign-bulk-404-content-location', requirement: 'CONC-CROSS-BUSINESS-BULK', topic: 'concealment', round: 2, description: "The 404 for another business's bulk carries a Content-Location header naming the bulk under its owning business." },
  { id: 'blind-foreign-message-404-last-modified', requirement: 'CONC-SAME-AS-MISSING', topic: 'concealment', round: 2, description: "The 404 for another business's message carries a Last-Modified header (the message's acceptance time) that a random id's 404 lacks." },
  { id: 'blind-bulk-read-finds-foreign-message', requirement: 'CONC-CROSS-BUSINESS-MESSAGE', topic: 'concealment', round: 2, description: "The bulk read falls through to individual messages of any business: another business's message id read as a bulk under the caller's business answers 200 with its content." },
  // request-id
  { id: 'blind-replay-without-request-id', requirement: 'RID-EVERY-RESPONSE', topic: 'request-id', round: 2, description: 'A replayed submission is written from the replay cache without any X-Request-Id header.' },
  { id: 'blind-request-id-regenerated-on-202', requirement: 'RID-ECHO', topic: 'request-id', round: 2, description: "The 202 of an accepted submission carries a generated X-Request-Id instead of the client's valid one (other answers echo it)." },
  { id: 'blind-generated-request-id-long', requirement: 'RID-FORMAT', topic: 'request-id', round: 2, description: 'Generated request ids carry an appended trace context and are over 128 characters long.' },
  // problem-details
  { id: 'blind-problem-instance-with-space', requirement: 'PROB-INSTANCE', topic: 'problem-details', round: 2, description: 'instance is a phrase with a space (request <id>), not a URI reference.' },
  { id: 'blind-401-detail-echoes-token', requirement: 'PROB-DETAIL-NO-SECRETS', topic: 'problem-details', round: 2, description: 'The 401 for a presented but invalid (for example expired) token quotes the token in its detail.' },
  { id: 'blind-problem-title-names-field', requirement: 'PROB-TITLE-STABLE', topic: 'problem-details', round: 2, description: 'validation_failed titles name the first field at fault (Invalid field /recipients/0/to), so the code has a different title per occurrence.' },
  { id: 'blind-accept-xml-500', requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', topic: 'problem-details', round: 2, description: 'A request whose Accept header asks for application/xml throws in the serialiser picker: 500 internal_error.' },
  { id: 'blind-repeated-query-param-500', requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', topic: 'problem-details', round: 2, description: 'A recipient listing with a query parameter given twice (limit=10&limit=20) throws: 500 internal_error instead of a 4xx.' },
  // validation
  { id: 'blind-null-message-ignored', requirement: 'VAL-EXACTLY-ONE-CONTENT', topic: 'validation', round: 2, description: 'message: null beside a template_id is taken for an absent message: the body with both members is accepted as template-based.' },
  { id: 'blind-path-id-format-suffix', requirement: 'VAL-PATH-UUIDV7', topic: 'validation', round: 2, description: 'A path ending in a .json format suffix is routed without it: a message id followed by .json answers 200 with the message.' },
  { id: 'blind-template-variable-empty-refused', requirement: 'VAL-TEMPLATE-VARIABLE-LENGTH', topic: 'validation', round: 2, description: 'An empty template variable value (a string of 0 characters, within the 512 maximum) is refused with 400 validation_failed.' },
  { id: 'blind-recipient-spaces-normalized', requirement: 'VAL-INVALID-RECIPIENT', topic: 'validation', round: 2, description: 'A recipient number written with spaces (+44 7700 900123) is accepted with the spaces stripped instead of refused.' },
  // schemas
  { id: 'blind-later-pages-items', requirement: 'SCH-LISTING-ENVELOPE', topic: 'schemas', round: 2, description: 'Pages read with a cursor name their rows items instead of data (the first page is right).' },
  { id: 'blind-warning-severity', requirement: 'SCH-WARNING-SHAPE', topic: 'schemas', round: 2, description: 'Warnings carry a severity member beside code and detail.' },
  { id: 'blind-pin-revision-number', requirement: 'SCH-TEMPLATE-PIN', topic: 'schemas', round: 2, description: 'On reads of a template-based bulk the pin carries an extra revision member (the revision number); the 202 is right.' },
  { id: 'blind-listing-media-type-vendor', requirement: 'SCH-JSON-MEDIA-TYPE', topic: 'schemas', round: 2, description: 'The recipient listing is labelled application/vnd.api+json; the other operations say application/json.' },
  // webhooks
  { id: 'blind-webhook-malformed-id-204', requirement: 'HOOK-NOT-FOUND', topic: 'webhooks', round: 2, description: 'An endpoint id that is not a UUIDv7 is taken for nothing to do: 204 instead of a refusal.' },
  { id: 'blind-webhook-wallet-permission', requirement: 'HOOK-DEACTIVATE-204', topic: 'webhooks', round: 2, description: 'Deactivation asks for wallet.balance.read (copied from the wallet handler): an application granted on the business without it gets 403 for an active endpoint.' },
  // messages
  { id: 'blind-message-business-id-uppercase', requirement: 'MSG-BUSINESS', topic: 'messages', round: 2, description: "A retrieved message's business_id is written in upper case, so it differs from the business of the path." },
  { id: 'blind-message-pin-template-is-message', requirement: 'MSG-TEMPLATE-PIN', topic: 'messages', round: 2, description: "A template-based message's pin shows the message's own id as template_id." },
] as const satisfies readonly BlindDefect[];

export type BlindDefectId = (typeof registry)[number]['id'];

export const BLIND_DEFECTS: readonly BlindDefect[] = registry;

export function isBlindDefectId(id: string): id is BlindDefectId {
  return registry.some((d) => d.id === id);
}
