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
  round: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10;
}

const registry = [
  // auth-ordering
  // recipient-limits
  { id: 'blind-body-limit-100kb', requirement: 'RLIM-AT-MAX-ACCEPTED', topic: 'recipient-limits', round: 1, description: 'Request bodies above 100 KB (a body parser default) are refused with 400 validation_failed, so a valid 1000-recipient submission with template variables is refused.' },
  { id: 'blind-over-limit-truncated', requirement: 'RLIM-NO-PARTIAL', topic: 'recipient-limits', round: 1, description: 'A submission above 1000 entries is accepted (202) with its first 1000 entries kept, instead of refused as a whole.' },
  // bulk-invariants
  { id: 'blind-settled-requires-no-failures', requirement: 'BULK-SETTLED-RULE', topic: 'bulk-invariants', round: 1, description: 'settled is true only when completed with no retries outstanding and no failed submission, so a completed bulk with an exhausted entry shows settled false.' },
  // concealment
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
  // Round 4 (blind4-): written from the document and the reference alone.
  // auth-ordering
  { id: 'blind4-grant-cached-per-application', requirement: 'AUTH-GRANT', topic: 'auth-ordering', round: 4, description: "The grant decision is cached per application: once an application passed the grant check, later calls on a business without grant are judged by its first grant (the other business's wallet answers 200)." },
  { id: 'blind4-delete-token-decoded-unverified', requirement: 'AUTH-401-INVALID', topic: 'auth-ordering', round: 4, description: 'The deactivation route decodes the bearer JWT without verifying it (signature, expiry): an expired or tampered token of a granted application deactivates an endpoint (204).' },
  { id: 'blind4-listing-query-validated-before-auth', requirement: 'AUTH-401-BEFORE-VALIDATION', topic: 'auth-ordering', round: 4, description: 'The recipient listing validates its page size before authentication: a call without a token and with a page size above 1000 gets 400 validation_failed instead of 401.' },
  // idempotency
  { id: 'blind4-fingerprint-includes-request-id', requirement: 'IDEM-REPLAY', topic: 'idempotency', round: 4, description: 'The payload fingerprint includes the X-Request-Id header: an equivalent repeat sent with a new request id gets 409 idempotency_conflict instead of the replay.' },
  // recipient-limits
  { id: 'blind4-promotional-limit-500', requirement: 'RLIM-AT-MAX-ACCEPTED', topic: 'recipient-limits', round: 4, description: 'Promotional submissions have a maximum of 500 entries (a marketing throttle): a valid promotional submission of 1000 entries gets 422 recipient_limit_exceeded.' },
  // cursors
  { id: 'blind4-has-more-counts-unfiltered-rows', requirement: 'CUR-HAS-MORE', topic: 'cursors', round: 4, description: 'In a filtered listing has_more says whether any row of the bulk (matching or not) lies after the page, so the last filtered page says has_more true with a cursor to an empty page.' },
  // bulk-invariants
  { id: 'blind4-read-accepted-at-seconds', requirement: 'BULK-RETRIEVE', topic: 'bulk-invariants', round: 4, description: "Reads of a bulk show accepted_at cut to whole seconds (a column of second precision), so it differs from the 202's accepted_at." },
  { id: 'blind4-location-business-upper-case', requirement: 'BULK-LOCATION', topic: 'bulk-invariants', round: 4, description: "The 202's Location writes the business id in upper case (a GUID formatter), a path under which the bulk is refused." },
  { id: 'blind4-acceptance-warnings-omitted', requirement: 'BULK-ACCEPT-SHAPE', topic: 'bulk-invariants', round: 4, description: 'The 202 leaves warnings out (a serializer that omits empty arrays) instead of an empty warnings list.' },
  { id: 'blind4-read-intake-latest-bulk', requirement: 'BULK-RETRIEVE', topic: 'bulk-invariants', round: 4, description: "Reads of a bulk take intake from a per-business cache of the latest accepted bulk: once another bulk was accepted, the earlier one shows the other's counts." },
  // wallet
  { id: 'blind4-wallet-available-cached', requirement: 'WAL-AVAILABLE-EQUALS-CURRENT', topic: 'wallet', round: 4, description: "Accepted submissions debit current_balance (0.04 per entry), but available_balance is served from the snapshot cached at the business's first wallet read, so after a submission the two differ." },
  // concealment
  { id: 'blind4-foreign-message-second-lookup-cached', requirement: 'CONC-CROSS-BUSINESS-MESSAGE', topic: 'concealment', round: 4, description: "A message looked up once is cached by id; the cache is read before the ownership check, so another business's message answers 404 the first time and 200 with its content the second." },
  { id: 'blind4-foreign-webhook-404-names-owner', requirement: 'CONC-NO-FOREIGN-DATA', topic: 'concealment', round: 4, description: "The 404 for another business's webhook endpoint names the business that owns it in its detail." },
  { id: 'blind4-unknown-webhook-403', requirement: 'CONC-UNKNOWN-OBJECT', topic: 'concealment', round: 4, description: "An endpoint id that exists nowhere is refused 403 permission_denied (not among the business's endpoints) instead of 404 resource_not_found." },
  // request-id
  { id: 'blind4-request-id-leading-punctuation-replaced', requirement: 'RID-ECHO', topic: 'request-id', round: 4, description: 'A valid X-Request-Id that starts with a dot, underscore or hyphen is replaced by a generated one (the pattern taken as starting with a letter or digit).' },
  { id: 'blind4-request-id-regenerated-on-400', requirement: 'RID-ECHO', topic: 'request-id', round: 4, description: "400 validation_failed answers (written by a validation middleware that runs first) carry a generated request id, in header and body alike, instead of the client's valid one." },
  // problem-details
  { id: 'blind4-sender-not-authorized-422', requirement: 'PROB-CODE-STATUS', topic: 'problem-details', round: 4, description: 'sender_not_authorized is answered with status 422 (as a semantic validation failure) instead of 403.' },
  // validation
  { id: 'blind4-from-max-19', requirement: 'VAL-FROM-LENGTH', topic: 'validation', round: 4, description: 'from is refused from 20 characters on (the maximum taken as exclusive): a 20-character sender gets 400 validation_failed instead of being judged as a sender.' },
  { id: 'blind4-e164-sixteen-digits', requirement: 'VAL-INVALID-RECIPIENT', topic: 'validation', round: 4, description: 'The recipient pattern allows 16 digits (\\d{7,15} after the first), so a 17-character number is accepted.' },
  { id: 'blind4-archived-template-409', requirement: 'VAL-TEMPLATE-ACTIVE', topic: 'validation', round: 4, description: 'An archived template is refused with 409 (as a state conflict) with code template_not_active instead of 422.' },
  // schemas
  { id: 'blind4-summary-total-member', requirement: 'SCH-NO-EXTRA-PROPERTIES', topic: 'schemas', round: 4, description: 'delivery_summary carries an extra outcomes_total member (the recipient count).' },
  { id: 'blind4-submission-pending-member', requirement: 'SCH-SUBMISSION-FIELDS', topic: 'schemas', round: 4, description: 'submission carries an extra pending member (entries not yet attempted).' },
  { id: 'blind4-warning-detail-null', requirement: 'SCH-WARNING-SHAPE', topic: 'schemas', round: 4, description: 'The delivery_summary_unavailable warning has detail null (no text in the lookup table) instead of a string.' },
  { id: 'blind4-pagination-limit-null-by-default', requirement: 'SCH-PAGINATION', topic: 'schemas', round: 4, description: 'pagination.limit echoes the page size parameter and is null when none was given, instead of the integer applied.' },
  // webhooks
  // messages
  { id: 'blind4-message-cache-keyed-by-business', requirement: 'MSG-NOT-FOUND', topic: 'messages', round: 4, description: "The message cache is keyed by business only: once a message of the business was read, any message id under it (unknown ones included) answers 200 with that message." },
  { id: 'blind4-message-submitted-at-date-only', requirement: 'MSG-SCHEMA', topic: 'messages', round: 4, description: "A retrieved message's submitted_at is a date without a time (a DATE column)." },
  { id: 'blind4-message-to-masked', requirement: 'MSG-SCHEMA', topic: 'messages', round: 4, description: "A retrieved message's to is masked for privacy (its last four digits as ****), which is no E.164 number." },
  // sequences
  // Round 5 (blind5-): written from the document and the reference alone.
  // auth-ordering
  { id: 'blind5-expired-token-leeway', requirement: 'AUTH-401-INVALID', topic: 'auth-ordering', round: 5, description: 'Token expiry is judged with a 15-minute clock tolerance: a token that expired ten minutes ago is still accepted (200) instead of 401 authentication_required.' },
  // idempotency
  { id: 'blind5-content-dedupe-across-keys', requirement: 'IDEM-SCOPE', topic: 'idempotency', round: 5, description: "A submission whose payload equals one the application accepted on the business in the last ten minutes is taken for a duplicate whatever its Idempotency-Key: a new key replays the earlier bulk (same id) instead of creating a new one." },
  { id: 'blind5-replay-body-empty-after-first', requirement: 'IDEM-REPLAY', topic: 'idempotency', round: 5, description: 'The replay cache hands out the stored response body once: the first repeat of a key replays the 202 with its body, every later repeat answers 202 with an empty body.' },
  // recipient-limits
  { id: 'blind5-over-limit-status-400', requirement: 'RLIM-MAX-1000', topic: 'recipient-limits', round: 5, description: 'A submission above 1000 entries is refused by the schema (maxItems) with status 400, under code recipient_limit_exceeded, instead of 422.' },
  { id: 'blind5-at-max-insert-500', requirement: 'RLIM-AT-MAX-ACCEPTED', topic: 'recipient-limits', round: 5, description: 'The entries are stored with one multi-row insert whose parameter list holds 999 entries: a valid submission of 1000 entries fails with 500 internal_error.' },
  // cursors
  { id: 'blind5-cursor-ignored-with-filters', requirement: 'CUR-WALK', topic: 'cursors', round: 5, description: 'A request that repeats its filters beside the cursor is taken as a new filtered query and the cursor is ignored: the first page comes again, so a filtered walk that repeats its filters never ends.' },
  { id: 'blind5-filtered-limit-max-500', requirement: 'CUR-MAX-LIMIT', topic: 'cursors', round: 5, description: 'Filtered listings (status or number) come from a search index with a maximum page size of 500: a filtered listing with page size 1000 gets 400 validation_failed.' },
  // bulk-invariants
  { id: 'blind5-settled-cached-at-first-read', requirement: 'BULK-SETTLED-RULE', topic: 'bulk-invariants', round: 5, description: "settled is computed at a bulk's first read and cached: a bulk read while queued still shows settled false once it is completed with no retry outstanding." },
  { id: 'blind5-intake-good-counts-queue', requirement: 'BULK-COUNTS-ONE-WAY', topic: 'bulk-invariants', round: 5, description: 'Reads show intake.good as the entries still waiting to be processed (the queue depth), so it goes down between reads as processing advances.' },
  { id: 'blind5-location-id-drafted-apart', requirement: 'BULK-LOCATION', topic: 'bulk-invariants', round: 5, description: "The 202's Location names an id drafted before the insert, not the id the bulk was stored under: the Location answers 404 while the body's id reads fine." },
  // wallet
  { id: 'blind5-wallet-balance-plus-sign', requirement: 'WAL-MONEY-FORMAT', topic: 'wallet', round: 5, description: 'Balances come from a signed ledger formatter: positive amounts carry a leading + (+1250.75), outside the decimal money pattern.' },
  // concealment
  { id: 'blind5-rows-of-message-id', requirement: 'CONC-FOREIGN-OBJECT', topic: 'concealment', round: 5, description: "The recipient listing under a bulk id that names an individual SMS (one table for every SMS) lists that message as a one-row page, whatever its business: another business's message is listed (200)." },
  // request-id
  { id: 'blind5-wallet-correlation-id-header', requirement: 'RID-EVERY-RESPONSE', topic: 'request-id', round: 5, description: "The wallet handler (a separate service behind the gateway) names its header X-Correlation-Id: its answers, 200 and its own refusals, carry no X-Request-Id." },
  // problem-details
  { id: 'blind5-retry-after-fractional', requirement: 'PROB-RETRY-AFTER', topic: 'problem-details', round: 5, description: 'Retry-After on 429 is the exact time left in the window as fractional seconds (0.734), neither whole seconds nor an HTTP date.' },
  { id: 'blind5-missing-member-error-code-null', requirement: 'PROB-VALIDATION-ERRORS', topic: 'problem-details', round: 5, description: "errors[] items for a required member that is absent (from, classification, a recipient's to) have code null (the error table has no code for a missing member)." },
  // validation
  { id: 'blind5-recipient-null-to-dropped', requirement: 'VAL-RECIPIENT-ITEM-FIELDS', topic: 'validation', round: 5, description: 'Entries whose to is null or missing are dropped before validation and the rest accepted (202), instead of the submission being refused.' },
  // schemas
  { id: 'blind5-empty-page-data-null', requirement: 'SCH-LISTING-ENVELOPE', topic: 'schemas', round: 5, description: 'A listing page with no rows gives data null (an unset list serialised as null) instead of an empty list.' },
  { id: 'blind5-submission-zero-counts-null', requirement: 'SCH-SUBMISSION-FIELDS', topic: 'schemas', round: 5, description: 'submission.failed and submission.exhausted are null while they are zero (nullable columns written on first increment), not integers.' },
  { id: 'blind5-acceptance-pin-revision-null', requirement: 'SCH-TEMPLATE-PIN', topic: 'schemas', round: 5, description: "The 202 of a template-based submission shows the pin with revision_id null (resolved after the response is written); reads show it filled." },
  // webhooks
  { id: 'blind5-webhook-idempotency-key-required', requirement: 'HOOK-DEACTIVATE-204', topic: 'webhooks', round: 5, description: 'A middleware asks every unsafe method for an Idempotency-Key: deactivation without one gets 400 validation_failed instead of 204.' },
  { id: 'blind5-webhook-busy-while-bulk-in-flight', requirement: 'HOOK-DEACTIVATE-204', topic: 'webhooks', round: 5, description: "Deactivation is refused with 409 while a bulk of the business is queued or processing (its status events are in flight to the endpoints), instead of 204 with in-flight attempts completing or cancelled." },
  // messages
  { id: 'blind5-message-repeat-read-304', requirement: 'MSG-RETRIEVE', topic: 'messages', round: 5, description: 'A response cache keyed by application and message answers a repeat read with 304 Not Modified and no body, though the request carried no validator.' },
  { id: 'blind5-message-classification-ordinal', requirement: 'MSG-SCHEMA', topic: 'messages', round: 5, description: "A retrieved message's classification is its enum ordinal (0 for transactional, 1 for promotional) instead of the word." },
  { id: 'blind5-message-status-bulk-vocabulary', requirement: 'MSG-STATUS-VALUES', topic: 'messages', round: 5, description: "A retrieved message's status is mapped through the bulk processing states: delivered is shown as completed." },
  // sequences
  { id: 'blind5-bulk-ownership-skipped-after-own-read', requirement: 'SEQ-OWNERSHIP-AFTER-ANY', topic: 'sequences', round: 5, description: "Once an application has read one of its business's bulks, a per-application flag skips the ownership check of later bulk reads: another business's bulk then answers 200 under the caller's business." },
  { id: 'blind5-key-released-after-conflict', requirement: 'SEQ-KEY-BOUND-TO-FIRST', topic: 'sequences', round: 5, description: 'A 409 conflict releases the key (its record is dropped as poisoned): the first body sent again with that key creates a second bulk instead of replaying the first.' },
  // Round 6 (blind6-): written from the document and the reference alone.
  // auth-ordering
  // idempotency
  // recipient-limits
  // cursors
  // bulk-invariants
  // wallet
  // concealment
  { id: 'blind6-listing-cache-by-bulk-and-query', requirement: 'CONC-CROSS-BUSINESS-BULK', topic: 'concealment', round: 6, description: "Listing pages are cached by bulk id and query string (not by business or caller) and the cache is read before the ownership check: once another business listed its bulk, the same listing under the caller's business answers 200 with its rows." },
  // request-id
  // problem-details
  // problem-details
  // validation
  // schemas
  // webhooks
  // messages
  // sequences
  // Round 7 (blind7-): written from the document and the reference alone.
  // auth-ordering
  { id: 'blind7-listing-query-validated-before-grant', requirement: 'AUTH-ORDER', topic: 'auth-ordering', round: 7, description: 'The recipient listing validates its query before the grant: on a business without grant, a listing with a page size above 1000 gets 400 validation_failed instead of 403 permission_denied.' },
  // idempotency
  // recipient-limits
  // cursors
  { id: 'blind7-cursor-indexes-last-result-set', requirement: 'CUR-WALK', topic: 'cursors', round: 7, description: "The listing keeps one result set per bulk, the latest query's, and a cursor is a place in that set: a page fetched with an unfiltered walk's cursor after a listing with a status filter comes from the filtered rows." },
  { id: 'blind7-status-completed-with-errors', requirement: 'BULK-STATUS-VALUES', topic: 'bulk-invariants', round: 7, description: 'A completed bulk with failed submissions is shown with status completed_with_errors, a value outside the eight processing states.' },
  // bulk-invariants
  // wallet
  // concealment
  // request-id
  // problem-details
  // validation
  // schemas
  // webhooks
  // messages
  // sequences
  // Round 8 (blind8-): written from the document and the reference alone.
  // auth-ordering
  { id: 'blind8-permission-cached-per-business', requirement: 'AUTH-PERMISSION', topic: 'auth-ordering', round: 8, description: "The authorization decision is cached per application and business, without the permission in the key: once the limited application passed a check on the business (a bulk read), its wallet read is let through (200) instead of 403 permission_denied." },
  // idempotency
  // recipient-limits
  { id: 'blind8-over-limit-429-rate-limited', requirement: 'RLIM-MAX-1000', topic: 'recipient-limits', round: 8, description: 'The entry maximum is enforced by the rate limiter as a per-request budget: a submission of more than 1000 entries gets 429 rate_limit_exceeded with Retry-After instead of 422 recipient_limit_exceeded.' },
  // cursors
  { id: 'blind8-cursor-next-link-url', requirement: 'CUR-WALK', topic: 'cursors', round: 8, description: 'next_cursor is the relative URL of the next page (a next-link convention), and the listing does not take that URL back as the cursor parameter: a client passing next_cursor as the cursor gets 400 validation_failed.' },
  // bulk-invariants
  // wallet
  // wallet
  // concealment
  // request-id
  // problem-details
  // validation
  // schemas
  // schemas
  // webhooks
  // messages
  // sequences
  { id: 'blind8-rows-touched-by-filter-first', requirement: 'SEQ-LISTING-CONSISTENT', topic: 'sequences', round: 8, description: 'The listing keeps a most-recently-used row cache per bulk: rows a filtered listing served come first in the next unfiltered listings, so the default order changes after a filtered listing.' },
  // Round 9 (blind9-): written from the document and the reference alone.
  // auth-ordering
  { id: 'blind9-auth-remembered-on-connection', requirement: 'AUTH-ALL-OPERATIONS', topic: 'auth-ordering', round: 9, description: "The authenticated application is kept on the connection: a request without any Authorization header, sent on a keep-alive connection whose earlier request carried a valid token, is served as that application (200) instead of 401." },
  { id: 'blind9-client-blocked-after-invalid-token', requirement: 'AUTH-TOKEN-CLIENT-CREDENTIALS', topic: 'auth-ordering', round: 9, description: "A brute-force guard locks out the client an invalid token names (read unverified) for a few seconds: after a request with the client's expired token, its freshly issued valid token gets 401 authentication_required too." },
  // idempotency
  // recipient-limits
  // cursors
  // bulk-invariants
  { id: 'blind9-outcomes-accumulated-per-read', requirement: 'BULK-OUTCOMES-BOUND', topic: 'bulk-invariants', round: 9, description: "outcomes_resolved is a running total that each read adds its resolved outcomes to (+= where = was meant): the first read is right, the second shows twice as many, past the number of entries." },
  // wallet
  { id: 'blind9-wallet-as-of-first-load', requirement: 'WAL-AS-OF-UTC', topic: 'wallet', round: 9, description: "as_of is the time the business's wallet record was first loaded into the wallet service's cache, while the balance is read live: every later read carries the first read's as_of, not the time of its own snapshot." },
  // concealment
  { id: 'blind9-key-table-global', requirement: 'CONC-NO-FOREIGN-DATA', topic: 'concealment', round: 9, description: "Idempotency keys are looked up in one table by key alone (a unique index on the key column): another tenant submitting under a key this business used, with the same body, gets this business's 202 replayed, its bulk id and business_id included." },
  // request-id
  { id: 'blind9-request-id-overridden-by-idempotency-key', requirement: 'RID-ECHO', topic: 'request-id', round: 9, description: "A submission's Idempotency-Key is taken as its correlation id ahead of the client's X-Request-Id: a submission sent with a valid X-Request-Id gets its Idempotency-Key back as X-Request-Id." },
  // problem-details
  // validation
  { id: 'blind9-sender-lookup-case-insensitive', requirement: 'VAL-SENDER-AUTHORIZED', topic: 'validation', round: 9, description: 'The sender is looked up case-insensitively (a case-insensitive collation): from acmealerts, not an identity the business has authorized, is accepted as AcmeAlerts (202) instead of 403 sender_not_authorized.' },
  // schemas
  // webhooks
  { id: 'blind9-webhook-404-leaves-tombstone', requirement: 'HOOK-NOT-FOUND', topic: 'webhooks', round: 9, description: "The 404 for an endpoint id that exists nowhere writes a deactivated tombstone row for it (an audit of the attempt): the retried DELETE of that id finds it and answers 204 as for an endpoint deactivated before." },
  // messages
  { id: 'blind9-message-rerendered-with-latest-variables', requirement: 'MSG-RENDERED-CONTENT', topic: 'messages', round: 9, description: "A template-based message is rendered again at read time from its pinned template with the variables of the business's latest template-based submission (a shared render context): after such a submission, the message shows that submission's values instead of the text sent." },
  // sequences
  // Round 10 (blind10-): written from the document and the reference alone.
  // auth-ordering
  // idempotency
  { id: 'blind10-fingerprint-includes-content-type', requirement: 'IDEM-EQUIVALENT-REPLAYED', topic: 'idempotency', round: 10, description: 'The payload fingerprint hashes the Content-Type header with the body: a retry of the same JSON labelled application/json; charset=utf-8 (the first said application/json) gets 409 idempotency_conflict instead of the replay.' },
  // recipient-limits
  // cursors
  // bulk-invariants
  { id: 'blind10-warnings-list-shared-across-responses', requirement: 'BULK-ACCEPT-SHAPE', topic: 'bulk-invariants', round: 10, description: "The warnings list is one default array the read path pushes into: once a bulk was read while its delivery summary was unavailable, later responses, the 202 of the next submission included, carry that warning (repeated) instead of an empty list." },
  // wallet
  // concealment
  // request-id
  // problem-details
  { id: 'blind10-retry-after-iso-timestamp', requirement: 'PROB-RETRY-AFTER', topic: 'problem-details', round: 10, description: 'Retry-After on 429 is the end of the window as an ISO 8601 timestamp (2026-11-27T10:01:00.000Z), neither seconds nor an HTTP date.' },
  // validation
  // schemas
  // webhooks
  // messages
  // sequences
  { id: 'blind10-key-released-by-over-limit-repeat', requirement: 'SEQ-KEY-BOUND-TO-FIRST', topic: 'sequences', round: 10, description: 'An over-limit repeat of a used key (422) releases the key as failed: the first body sent again with that key creates a second bulk (new id) instead of replaying the first.' },
  { id: 'blind10-unknown-bulk-shimmed-after-acceptance', requirement: 'CONC-UNKNOWN-OBJECT', topic: 'concealment', round: 10, description: 'A read-your-writes shim: for ten seconds after a submission of the business was accepted, a bulk id that is not found is taken for one still being written and answered 200 with a queued bulk of that id instead of 404.' },
  { id: 'blind10-conflict-request-id-of-original', requirement: 'RID-PROBLEM-MATCH', topic: 'request-id', round: 10, description: "The 409 idempotency_conflict problem is built from the key's stored record: its request_id is the original acceptance's request id, while the header carries this request's." },
] as const satisfies readonly BlindDefect[];

export type BlindDefectId = (typeof registry)[number]['id'];

export const BLIND_DEFECTS: readonly BlindDefect[] = registry;

export function isBlindDefectId(id: string): id is BlindDefectId {
  return registry.some((d) => d.id === id);
}
