// Named defects: each breaks exactly one rule of the document, at the one spot that rule lives
// (`if (defects.has('…'))` in the handler), so the checker can prove it notices. Selected at start.
import type { Topic } from '../core/model.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';
import { isBlindDefectId, type BlindDefect, type BlindDefectId } from './blind-defects.ts';

export interface Defect {
  /** kebab-case, stable */
  id: string;
  requirement: RequirementId;
  topic: Topic;
  description: string;
  /**
   * Why a run against a host cannot show it, where no check's skip says so: the broken rule is
   * visible only through the control origin (the matrix lists it in host mode with this reason).
   */
  hostCannotShow?: string;
  /** For a defect of the sequences topic: why no single check of another topic meets it. */
  onlySequence?: string;
  /** For a defect written blind and moved here once caught: its authoring round (absent: the first). */
  round?: BlindDefect['round'];
}

const registry = [
  // auth-ordering
  { id: 'validation-before-auth', requirement: 'AUTH-401-BEFORE-VALIDATION', topic: 'auth-ordering', description: 'A bulk submission without a token but with an invalid body gets 400 validation_failed instead of 401.' },
  { id: 'not-found-before-auth', requirement: 'AUTH-401-FIRST', topic: 'auth-ordering', description: 'A call without a token on a business the reference does not know gets 404 instead of 401.' },
  { id: 'wrong-audience-accepted', requirement: 'AUTH-AUDIENCE', topic: 'auth-ordering', description: 'Tokens issued for another audience are accepted.' },
  { id: 'expired-token-accepted', requirement: 'AUTH-401-INVALID', topic: 'auth-ordering', description: 'Expired tokens are accepted.' },
  { id: 'message-ownership-before-grant', requirement: 'AUTH-ORDER', topic: 'auth-ordering', description: 'A message lookup looks the message up before checking the grant: on a business without grant an unknown id gets 404 resource_not_found, an existing one 403 permission_denied.' },
  { id: 'message-lookup-conceals-grant', requirement: 'AUTH-GRANT-UNIFORM', topic: 'auth-ordering', description: 'On a business without grant, message lookups answer 404 resource_not_found while every other read answers 403 permission_denied.' },
  { id: 'grant-not-checked', requirement: 'AUTH-GRANT', topic: 'auth-ordering', description: 'The wallet balance of a business the application has no grant on is returned (200).' },
  { id: 'missing-token-403', requirement: 'AUTH-401-MISSING', topic: 'auth-ordering', description: 'A call without an Authorization header gets 403 permission_denied instead of 401 authentication_required.' },
  { id: 'token-secret-prefix-accepted', requirement: 'AUTH-TOKEN-BASIC', topic: 'auth-ordering', description: "The token endpoint compares only as many characters as the client's secret has, so the secret with anything appended gets a token." },
  { id: 'token-audience-url', requirement: 'AUTH-AUDIENCE', topic: 'auth-ordering', description: 'Tokens are issued for the audience https://service-external-api, and the API accepts that audience instead of service-external-api.' },
  { id: 'unknown-path-unauthenticated-500', requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', topic: 'auth-ordering', description: 'A path that is no operation, called without a valid token, answers 500 internal_error instead of 401 or 404.' },
  { id: 'any-scheme-token-accepted', requirement: 'AUTH-BEARER', topic: 'auth-ordering', description: 'The Authorization scheme name is not checked: a valid token under any scheme (Token …) authenticates.' },
  { id: 'bare-bearer-500', requirement: 'AUTH-401-INVALID', topic: 'auth-ordering', description: 'The token is read as the second space-separated part of a Bearer header, unguarded: a header of just `Bearer` throws, 500 internal_error instead of 401.' },
  { id: 'grant-before-signature', requirement: 'AUTH-401-FIRST', topic: 'auth-ordering', description: "A token that fails verification has its unverified client's grant checked first: a tampered token on a business without grant gets 403 permission_denied instead of 401." },
  { id: 'submission-without-token-403', requirement: 'AUTH-401-MISSING', topic: 'auth-ordering', description: 'A submission (POST) without an Authorization header is refused by a write guard with 403 permission_denied instead of 401.' },
  { id: 'ungranted-listing-lookup-500', requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', topic: 'auth-ordering', description: "On a business without grant, the recipient listing reads the bulk's owner to word its refusal and throws for an unknown id: 500 internal_error instead of 403." },
  { id: 'token-reissue-refused', requirement: 'AUTH-TOKEN-CLIENT-CREDENTIALS', topic: 'auth-ordering', description: "A client-credentials request while the client's last token is still valid is refused with 400 invalid_request instead of issuing a token." },
  { id: 'token-reissue-unpublished-key', requirement: 'AUTH-TOKEN-CLIENT-CREDENTIALS', topic: 'auth-ordering', description: "A token issued while the client's last one is still valid is signed with the next key, which the API does not know yet: the API answers 401 to it." },
  { id: 'unknown-bulk-before-auth', requirement: 'AUTH-401-FIRST', topic: 'auth-ordering', description: 'A bulk read without a token is answered 404 resource_not_found when the bulk exists nowhere, before the token is asked for.' },
  { id: 'invalid-token-wallet-403', requirement: 'AUTH-401-INVALID', topic: 'auth-ordering', description: 'A wallet read with an invalid bearer token gets 403 permission_denied instead of 401.' },
  { id: 'wallet-permission-concealed-404', requirement: 'AUTH-PERMISSION', topic: 'auth-ordering', description: 'An application granted on the business without wallet.balance.read gets 404 resource_not_found for the wallet instead of 403 permission_denied.' },
  // idempotency
  { id: 'replay-new-id-on-reordered-keys', requirement: 'IDEM-KEY-PERMANENT', topic: 'idempotency', description: 'A repeat whose body holds the same JSON with keys in another order creates a second bulk (new id) under the same key.' },
  { id: 'equivalent-json-conflict', requirement: 'IDEM-EQUIVALENT-REPLAYED', topic: 'idempotency', description: 'A repeat with the same JSON written otherwise (key order, whitespace) gets 409 idempotency_conflict: only identical bytes are replayed.' },
  { id: 'idempotency-conflict-ignored', requirement: 'IDEM-CONFLICT', topic: 'idempotency', description: 'A repeat with a different payload is accepted as a new bulk instead of 409 idempotency_conflict.' },
  { id: 'idempotency-key-optional', requirement: 'IDEM-KEY-REQUIRED', topic: 'idempotency', description: 'A submission without Idempotency-Key is accepted.' },
  { id: 'expired-key-creates-new', requirement: 'IDEM-NO-REUSE-AFTER-EXPIRY', topic: 'idempotency', description: 'A key reused after the seven-day window creates a new bulk.' },
  { id: 'idempotency-scope-ignores-application', requirement: 'IDEM-SCOPE', topic: 'idempotency', description: "Keys are scoped per business only: another application reusing a key gets the first application's response." },
  { id: 'replay-window-one-day', requirement: 'IDEM-WINDOW', topic: 'idempotency', description: 'Equivalent repeats more than one day after the first get 409 instead of the replay.' },
  { id: 'replay-without-location', requirement: 'IDEM-REPLAY', topic: 'idempotency', description: 'A replay of a byte-identical repeat returns the original status and body but no Location header.' },
  { id: 'idempotency-key-max-255', requirement: 'IDEM-KEY-LENGTH', topic: 'idempotency', description: 'An Idempotency-Key of 256 characters is refused with 400 validation_failed (the maximum is taken as 255).' },
  { id: 'idempotency-key-recorded-late', requirement: 'IDEM-KEY-PERMANENT', topic: 'idempotency', description: 'The key is recorded only after a slow acceptance step, so concurrent same-key submissions each create a bulk.' },
  { id: 'replay-creates-bulk', requirement: 'IDEM-REPLAY', topic: 'idempotency', description: 'A byte-identical repeat replays the original response, but the acceptance runs again underneath and a second bulk is created.', hostCannotShow: 'the bulk made before the refusal has no id in the answer, and the document offers no listing of bulks: only the control origin counts it' },
  { id: 'equivalent-repeat-creates-bulk', requirement: 'IDEM-KEY-PERMANENT', topic: 'idempotency', description: 'A repeat with equal JSON written otherwise replays the original response, but a second bulk is created underneath.', hostCannotShow: 'the bulk made before the refusal has no id in the answer, and the document offers no listing of bulks: only the control origin counts it' },
  { id: 'conflict-with-location', requirement: 'IDEM-CONFLICT', topic: 'idempotency', description: 'The 409 idempotency_conflict carries the Location of the original bulk.' },
  { id: 'conflict-creates-bulk', requirement: 'IDEM-CONFLICT', topic: 'idempotency', description: 'A repeat with a different payload gets 409 idempotency_conflict, but a bulk was created before the key was compared.', hostCannotShow: 'the bulk made before the refusal has no id in the answer, and the document offers no listing of bulks: only the control origin counts it' },
  { id: 'conflict-rebinds-key', requirement: 'IDEM-KEY-PERMANENT', topic: 'idempotency', description: 'A conflicting repeat gets 409 but rebinds the key to its payload, so the original body under the key then gets 409 instead of the replay.' },
  { id: 'key-missing-refused-after-save', requirement: 'IDEM-KEY-REQUIRED', topic: 'idempotency', description: 'A submission without Idempotency-Key gets 400 validation_failed, but only after its bulk was saved.', hostCannotShow: 'the bulk made before the refusal has no id in the answer, and the document offers no listing of bulks: only the control origin counts it' },
  { id: 'idempotency-key-min-2', requirement: 'IDEM-KEY-LENGTH', topic: 'idempotency', description: 'An Idempotency-Key of 1 character is refused with 400 validation_failed (the minimum is taken as 2).' },
  { id: 'idempotency-key-257-accepted', requirement: 'IDEM-KEY-LENGTH', topic: 'idempotency', description: 'An Idempotency-Key of 257 characters is accepted (the maximum is taken as 257).' },
  { id: 'key-too-long-refused-after-save', requirement: 'IDEM-KEY-LENGTH', topic: 'idempotency', description: 'An Idempotency-Key longer than 256 characters gets 400 validation_failed, but only after the bulk was saved.', hostCannotShow: 'the bulk made before the refusal has no id in the answer, and the document offers no listing of bulks: only the control origin counts it' },
  { id: 'idempotency-key-taken-by-other-application', requirement: 'IDEM-SCOPE', topic: 'idempotency', description: 'Used keys are also marked business-wide, so another application reusing a key gets 409 idempotency_conflict instead of its own scope.' },
  { id: 'concurrent-same-key-500', requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', topic: 'idempotency', description: 'The key is reserved without a response during a slow acceptance, so a concurrent same-key submission reads the missing response and throws: 500 internal_error.' },
  { id: 'expired-key-500', requirement: 'IDEM-NO-REUSE-AFTER-EXPIRY', topic: 'idempotency', description: 'A key reused after the seven-day window throws (its record is purged, then read): 500 internal_error.' },
  { id: 'expired-key-refused-after-save', requirement: 'IDEM-NO-REUSE-AFTER-EXPIRY', topic: 'idempotency', description: 'A key reused after the seven-day window gets 409 idempotency_conflict, but only after a bulk was saved.' },
  // recipient-limits
  { id: 'recipient-limit-1001-accepted', requirement: 'RLIM-MAX-1000', topic: 'recipient-limits', description: 'The effective maximum is 1001: 1001 recipients are accepted.' },
  { id: 'recipient-limit-status-400', requirement: 'RLIM-MAX-1000', topic: 'recipient-limits', description: 'Too many recipients gives 400 validation_failed instead of 422 recipient_limit_exceeded.' },
  { id: 'recipient-limit-counts-unique', requirement: 'RLIM-COUNT-ALL-ENTRIES', topic: 'recipient-limits', description: 'Duplicates are removed before counting, so 1001 entries repeating a few numbers are accepted.' },
  { id: 'recipient-limit-after-entry-validation', requirement: 'RLIM-COUNT-INVALID-ENTRIES', topic: 'recipient-limits', description: 'More than 1000 entries that include invalid numbers get 400 validation_failed (entries validated before counting).' },
  { id: 'recipient-limit-creates-bulk', requirement: 'RLIM-NO-PARTIAL', topic: 'recipient-limits', description: 'The 422 is answered, but a bulk was created before the count was checked (visible through the control origin).', hostCannotShow: 'the bulk made before the refusal has no id in the answer, and the document offers no listing of bulks: only the control origin counts it' },
  { id: 'zero-recipients-accepted', requirement: 'RLIM-MIN-1', topic: 'recipient-limits', description: 'An empty recipients array is accepted.' },
  { id: 'recipient-limit-999', requirement: 'RLIM-AT-MAX-ACCEPTED', topic: 'recipient-limits', description: 'The effective maximum is 999: exactly 1000 recipients get 422 recipient_limit_exceeded.' },
  { id: 'recipient-limit-billed', requirement: 'RLIM-NO-BILLING', topic: 'recipient-limits', description: 'The 422 is answered, but the refused over-limit submission debits the wallet (0.04 per entry).' },
  { id: 'recipient-limit-location', requirement: 'RLIM-NO-PARTIAL', topic: 'recipient-limits', description: 'The 422 recipient_limit_exceeded carries a Location header naming the bulk id allocated before the count was checked.' },
  { id: 'recipient-limit-id-in-problem', requirement: 'RLIM-NO-PARTIAL', topic: 'recipient-limits', description: 'The 422 recipient_limit_exceeded problem carries an id member: the bulk id allocated before the count was checked.' },
  { id: 'zero-recipients-creates-bulk', requirement: 'RLIM-MIN-1', topic: 'recipient-limits', description: 'The 400 for an empty recipients array is answered, but an empty bulk was recorded before the body was validated (visible through the control origin).', hostCannotShow: 'the bulk made before the refusal has no id in the answer, and the document offers no listing of bulks: only the control origin counts it' },
  // cursors
  { id: 'cursor-not-bound-to-status-filter', requirement: 'CUR-BOUND-FILTERS', topic: 'cursors', description: 'A cursor issued under one status filter is accepted with another (the new filter applies).' },
  { id: 'omitted-filters-dropped', requirement: 'CUR-OMIT-FILTERS-NEXT-PAGE', topic: 'cursors', description: 'A next page requested with the cursor but without the filters is no longer filtered.' },
  { id: 'cursor-not-bound-to-bulk', requirement: 'CUR-BOUND', topic: 'cursors', description: 'A cursor of one bulk is accepted on another bulk of the same business.' },
  { id: 'expired-cursor-accepted', requirement: 'CUR-EXPIRED', topic: 'cursors', description: 'Cursors older than 24 hours are accepted.' },
  { id: 'undecodable-cursor-first-page', requirement: 'CUR-INVALID', topic: 'cursors', description: 'A cursor that does not decode at all (a random string) is read as no cursor: 200 with the first page.' },
  { id: 'page-size-default-50', requirement: 'CUR-DEFAULT-LIMIT', topic: 'cursors', description: 'The default page size is 50 instead of 100.' },
  { id: 'limit-1001-accepted', requirement: 'CUR-MAX-LIMIT', topic: 'cursors', description: 'A page size of 1001 is accepted.' },
  { id: 'page-size-max-999', requirement: 'CUR-MAX-LIMIT', topic: 'cursors', description: 'A page size of 1000 gives 400 validation_failed (the maximum is taken as 999).' },
  { id: 'empty-cursor-500', requirement: 'CUR-EMPTY', topic: 'cursors', description: 'An empty cursor value reaches the decoder unguarded and throws: 500 internal_error.' },
  { id: 'unknown-status-filter-ignored', requirement: 'CUR-FILTER-STATUS-UNKNOWN', topic: 'cursors', description: 'A status filter value outside queued, sent, delivered, failed is ignored: 200 with every row.' },
  { id: 'unknown-status-matches-nothing', requirement: 'CUR-FILTER-STATUS-UNKNOWN', topic: 'cursors', description: 'A status filter value outside queued, sent, delivered, failed is kept as a filter no row matches: 200 with no rows, so a misspelt status reads as none.' },
  { id: 'number-filter-ignored', requirement: 'CUR-FILTER-TO', topic: 'cursors', description: 'The recipient number filter is ignored: rows of every number are listed.' },
  { id: 'invalid-number-filter-ignored', requirement: 'CUR-FILTER-TO-INVALID', topic: 'cursors', description: 'A number filter that is not E.164 is dropped: 200 with every row of the bulk.' },
  { id: 'invalid-number-matches-nothing', requirement: 'CUR-FILTER-TO-INVALID', topic: 'cursors', description: 'A number filter that is not E.164 is kept as a filter no row matches: 200 with no rows, so a mistyped number reads as one nothing was sent to.' },
  { id: 'filter-shape-500', requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', topic: 'cursors', description: 'A status filter outside its four values or a number filter that is not E.164 throws: 500 internal_error instead of a 4xx.' },
  { id: 'rows-path-serves-bulk', requirement: 'CUR-PATH', topic: 'cursors', description: 'The path ending /messages answers the bulk SMS itself (200) instead of a page of its recipient rows.' },
  { id: 'has-more-omitted-on-last-page', requirement: 'CUR-HAS-MORE', topic: 'cursors', description: 'The last page leaves has_more (and next_cursor) out of pagination instead of has_more false.' },
  { id: 'has-more-counts-whole-listing', requirement: 'CUR-HAS-MORE', topic: 'cursors', description: 'has_more says whether the whole listing exceeds one page, so the last page of a longer listing says has_more true with next_cursor null.' },
  { id: 'last-page-offers-cursor', requirement: 'CUR-LAST-PAGE-NO-CURSOR', topic: 'cursors', description: 'The last page (has_more false) still offers a next_cursor, to an empty page after it, so a client paging while a cursor is offered asks again.' },
  { id: 'page-limit-reports-default', requirement: 'CUR-LIMIT-APPLIED', topic: 'cursors', description: 'pagination.limit always reports the default 100, whatever page size was applied.' },
  { id: 'page-one-row-over', requirement: 'CUR-LIMIT-APPLIED', topic: 'cursors', description: 'A page holds one row more than the page size it reports.' },
  { id: 'default-page-uncut', requirement: 'CUR-DEFAULT-LIMIT', topic: 'cursors', description: 'Without a page size, pagination.limit says 100 but the rows are cut only at the maximum of 1000.' },
  { id: 'page-size-parse-500', requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', topic: 'cursors', description: 'A page size not written as digits (negative, fractional, a word) throws in the parser: 500 internal_error instead of a 4xx.' },
  { id: 'page-size-zero-served', requirement: 'CUR-LIMIT-APPLIED', topic: 'cursors', description: 'A page size of 0 passes the range check: 200 with no rows, pagination.limit 0 and has_more true.' },
  { id: 'page-size-zero-unlimited', requirement: 'CUR-LIMIT-APPLIED', topic: 'cursors', description: 'A page size of 0 is read as no limit (rows up to the maximum of 1000) while pagination.limit reports the default 100.' },
  { id: 'page-size-zero-default', requirement: 'CUR-LIMIT-INVALID', topic: 'cursors', description: 'A page size of 0 is read as none given: 200 with a page of the default size instead of 400 validation_failed.' },
  { id: 'page-size-error-body-pointer', requirement: 'CUR-MAX-LIMIT', topic: 'cursors', description: 'The 400 for a page size above 1000 points its field error at /limit (a body JSON Pointer) instead of naming the query parameter.' },
  { id: 'cursor-not-advanced', requirement: 'CUR-WALK', topic: 'cursors', description: 'The next_cursor of a page read with a cursor points at that same page again, so a walk never ends.' },
  { id: 'cursor-skips-row', requirement: 'CUR-WALK', topic: 'cursors', description: 'Each next page starts one row after the row following the previous page, so a walk misses one row per page.' },
  { id: 'tampered-cursor-403', requirement: 'CUR-INVALID', topic: 'cursors', description: 'A cursor whose signature does not match (an altered or cut cursor) gets 403 permission_denied instead of 400 validation_failed.' },
  { id: 'omitted-filters-not-found', requirement: 'CUR-OMIT-FILTERS-NEXT-PAGE', topic: 'cursors', description: "A next page asked for with a filtered page's cursor but without the filters gets 404 resource_not_found instead of the filtered rows or 400." },
  { id: 'status-queued-includes-sent', requirement: 'CUR-FILTER-STATUS', topic: 'cursors', description: 'The status filter queued also selects rows still waiting for their delivery report (delivery status sent).' },
  { id: 'status-filter-upper-case', requirement: 'CUR-FILTER-STATUS', topic: 'cursors', description: 'The status filter is compared with the statuses in upper case, so it selects no row.' },
  { id: 'number-filter-without-plus', requirement: 'CUR-FILTER-TO', topic: 'cursors', description: 'The number filter is compared without its leading + against numbers stored with it, so it selects no row.' },
  // bulk-invariants
  { id: 'settled-true-with-retries-some-bulks', requirement: 'BULK-SETTLED-RULE', topic: 'bulk-invariants', description: 'For bulks whose id does not end in f (most, not all), settled is true once completed even while retries are outstanding.' },
  { id: 'settled-ignores-status', requirement: 'BULK-SETTLED-RULE', topic: 'bulk-invariants', description: 'settled is true while processing when no retries are outstanding.' },
  { id: 'invented-zero-delivery-summary', requirement: 'BULK-DELIVERY-NO-INVENTED-ZEROS', topic: 'bulk-invariants', description: 'While delivery reporting is unavailable, delivery_summary carries zeros instead of null.' },
  { id: 'missing-unavailable-warning', requirement: 'BULK-DELIVERY-UNAVAILABLE-WARNING', topic: 'bulk-invariants', description: 'delivery_summary is null without any warning entry.' },
  { id: 'acceptance-submission-zeros', requirement: 'BULK-ACCEPT-SHAPE', topic: 'bulk-invariants', description: 'The 202 shows submission counts of zero instead of null.' },
  { id: 'acceptance-intake-zeros', requirement: 'BULK-INTAKE-NOT-ZERO', topic: 'bulk-invariants', description: 'The 202 shows intake good, bad and empty all 0, whatever was submitted.' },
  { id: 'acceptance-status-processing', requirement: 'BULK-ACCEPT-QUEUED', topic: 'bulk-invariants', description: 'The 202 shows status processing instead of queued.' },
  { id: 'outcomes-exceed-recipients', requirement: 'BULK-OUTCOMES-BOUND', topic: 'bulk-invariants', description: 'outcomes_resolved exceeds the number of recipient entries.' },
  { id: 'location-missing', requirement: 'BULK-LOCATION', topic: 'bulk-invariants', description: 'The 202 has no Location header.' },
  { id: 'bulk-template-pin-dropped', requirement: 'BULK-TEMPLATE-PIN', topic: 'bulk-invariants', description: 'Template-based bulks show template null, at acceptance and on every read.' },
  { id: 'template-pin-follows-active-revision', requirement: 'BULK-TEMPLATE-PIN-STABLE', topic: 'bulk-invariants', description: "Reads of a template-based bulk show the template's current active revision instead of the one pinned at acceptance.", hostCannotShow: 'a new active revision of the template is made through the control origin; the document has no way to revise a template' },
  { id: 'invented-zero-counts', requirement: 'BULK-NO-INVENTED-ZEROS', topic: 'bulk-invariants', description: 'While intake and submission totals are unavailable (fault countsUnavailable), reads show zero counts instead of null.' },
  { id: 'processed-from-lagging-replica', requirement: 'BULK-COUNTS-ONE-WAY', topic: 'bulk-invariants', description: 'Every second read of a bulk takes submission.processed from a replica a second behind, so the count goes down between reads while the bulk advances.' },
  { id: 'bulk-status-in-progress', requirement: 'BULK-STATUS-VALUES', topic: 'bulk-invariants', description: 'Reads of a bulk that is processing show status in_progress, which 3.1 does not list.' },
  { id: 'retryable-count-omitted-when-zero', requirement: 'BULK-SETTLED-NULL', topic: 'bulk-invariants', description: 'submission leaves retryable_failed_count out when it is 0, yet settled still says true once completed.' },
  { id: 'delivery-summary-without-complete', requirement: 'BULK-DELIVERY-SUMMARY-FIELDS', topic: 'bulk-invariants', description: 'delivery_summary has as_of and outcomes_resolved but no complete member.' },
  { id: 'delivery-summary-as-of-epoch', requirement: 'BULK-DELIVERY-SUMMARY-FIELDS', topic: 'bulk-invariants', description: 'delivery_summary.as_of is written as epoch milliseconds (a JSON number) instead of an RFC 3339 time.' },
  { id: 'outcomes-resolved-as-string', requirement: 'BULK-DELIVERY-SUMMARY-FIELDS', topic: 'bulk-invariants', description: 'delivery_summary.outcomes_resolved is written as a decimal string ("3"), as a database driver hands out big integers.' },
  { id: 'bulk-accepted-201', requirement: 'BULK-ACCEPT-202', topic: 'bulk-invariants', description: 'Valid submissions are answered 201 Created instead of 202 Accepted.' },
  { id: 'message-bulk-answered-200', requirement: 'BULK-ACCEPT-202', topic: 'bulk-invariants', description: 'A valid message-based submission is answered 200, as if sent at once, instead of 202 (template-based ones get 202).' },
  { id: 'acceptance-empty-body', requirement: 'BULK-ACCEPT-202', topic: 'bulk-invariants', description: 'The 202 carries the Location header but an empty body instead of the bulk SMS resource.' },
  { id: 'acceptance-id-omitted', requirement: 'BULK-ACCEPT-202', topic: 'bulk-invariants', description: 'The 202 body leaves out id: the bulk is named only by the Location header.' },
  { id: 'acceptance-delivery-summary-zeros', requirement: 'BULK-ACCEPT-SHAPE', topic: 'bulk-invariants', description: 'The 202 shows a delivery_summary with zero outcomes instead of null.' },
  { id: 'acceptance-settled-null', requirement: 'BULK-ACCEPT-SHAPE', topic: 'bulk-invariants', description: 'The 202 shows settled null instead of false.' },
  { id: 'acceptance-unavailable-warning', requirement: 'BULK-ACCEPT-SHAPE', topic: 'bulk-invariants', description: 'The 202 already carries the delivery_summary_unavailable warning instead of an empty warnings list.' },
  { id: 'bulk-business-id-is-bulk-id', requirement: 'BULK-ECHO-REQUEST', topic: 'bulk-invariants', description: "The bulk's business_id is the bulk's own id instead of the business of the path." },
  { id: 'sender-upper-case', requirement: 'BULK-ECHO-REQUEST', topic: 'bulk-invariants', description: 'from is shown upper-cased (ACMEALERTS) instead of as submitted.' },
  { id: 'classification-swapped', requirement: 'BULK-ECHO-REQUEST', topic: 'bulk-invariants', description: 'classification is read back through a list kept in the other order: transactional shows promotional and the reverse.' },
  { id: 'bulk-message-dropped', requirement: 'BULK-ECHO-REQUEST', topic: 'bulk-invariants', description: 'A message-based bulk shows message null: the text is kept with the recipient rows only.' },
  { id: 'location-status-monitor', requirement: 'BULK-LOCATION', topic: 'bulk-invariants', description: "The 202's Location is a status monitor on another host, named by the request id, instead of the created bulk." },
  { id: 'location-collection-path', requirement: 'BULK-LOCATION', topic: 'bulk-invariants', description: "The 202's Location is the bulk collection path, without the new bulk's id." },
  { id: 'location-points-to-rows', requirement: 'BULK-LOCATION', topic: 'bulk-invariants', description: "The 202's Location is the recipient rows listing of the bulk (…/{id}/messages) instead of the bulk itself." },
  { id: 'bulk-read-id-is-row-id', requirement: 'BULK-RETRIEVE', topic: 'bulk-invariants', description: "Reads of a bulk show its first recipient row's id as id (a join lets the row's id win)." },
  { id: 'template-revised-bulk-read-500', requirement: 'BULK-RETRIEVE', topic: 'bulk-invariants', description: 'Reads of a template-based bulk look the pinned revision up among active ones: once the template has a new active revision they answer 500 internal_error.', hostCannotShow: 'a new active revision of the template is made through the control origin; the document has no way to revise a template' },
  { id: 'retrying-bulk-read-500', requirement: 'BULK-RETRIEVE', topic: 'bulk-invariants', description: 'Reads of a completed bulk whose retries are still outstanding answer 500 internal_error.' },
  { id: 'counts-unavailable-read-500', requirement: 'BULK-RETRIEVE', topic: 'bulk-invariants', description: 'While intake and submission totals are unavailable (fault countsUnavailable), reads answer 500 internal_error instead of a bulk with null totals.' },
  { id: 'settled-true-without-counts', requirement: 'BULK-SETTLED-NULL', topic: 'bulk-invariants', description: 'While intake and submission totals are unavailable (fault countsUnavailable), settled keeps the value computed before the totals were dropped: true once settled.' },
  { id: 'bulk-pin-revision-new-id', requirement: 'BULK-TEMPLATE-PIN', topic: 'bulk-invariants', description: 'The template pin gets a new UUIDv7 of its own as revision_id instead of the revision active at acceptance.', hostCannotShow: 'the revision active at acceptance is known only through the control origin (its revise answer); the document shows no read of templates' },
  { id: 'message-bulk-empty-pin', requirement: 'BULK-TEMPLATE-PIN', topic: 'bulk-invariants', description: 'The 202 of a message-based bulk shows template {} (an empty pin) instead of null.' },
  { id: 'message-bulk-pin-on-read', requirement: 'BULK-TEMPLATE-PIN', topic: 'bulk-invariants', description: 'Reads of a message-based bulk show template {"template_id": null, "revision_id": null} instead of null (the 202 is right).' },
  // wallet
  { id: 'reserved-nonzero-every-tenth-read', requirement: 'WAL-RESERVED-ZERO', topic: 'wallet', description: 'Every tenth wallet read shows reserved_balance 0.01.' },
  { id: 'available-differs-from-current', requirement: 'WAL-AVAILABLE-EQUALS-CURRENT', topic: 'wallet', description: 'available_balance is current_balance minus 1.00.' },
  { id: 'wallet-unavailable-invents-zero', requirement: 'WAL-NO-INVENTED-ZEROS', topic: 'wallet', description: 'When the wallet source is off, a 200 with zero balances is returned.' },
  { id: 'wallet-unavailable-500', requirement: 'WAL-UNAVAILABLE', topic: 'wallet', description: 'When the wallet source is off, the answer is 500 internal_error instead of 503.' },
  { id: 'wallet-permission-not-checked', requirement: 'WAL-PERMISSION', topic: 'wallet', description: 'The wallet balance is returned to an application without wallet.balance.read.' },
  { id: 'wallet-balance-as-number', requirement: 'WAL-MONEY-FORMAT', topic: 'wallet', description: 'current_balance is a JSON number.' },
  { id: 'wallet-business-name-missing', requirement: 'WAL-SCHEMA', topic: 'wallet', description: 'The wallet balance has no business_name member.' },
  { id: 'wallet-currency-lower-case', requirement: 'WAL-CURRENCY-FORMAT', topic: 'wallet', description: 'currency is written in lower case (gbp).' },
  { id: 'wallet-as-of-not-utc', requirement: 'WAL-AS-OF-UTC', topic: 'wallet', description: 'as_of is written at a +01:00 offset instead of in UTC.' },
  { id: 'wallet-business-id-is-snapshot-id', requirement: 'WAL-BUSINESS-ID', topic: 'wallet', description: 'business_id is a new UUIDv7 on every read instead of the business of the path.' },
  { id: 'wallet-grant-any-business', requirement: 'WAL-GRANT', topic: 'wallet', description: 'The wallet permission is taken from any grant of the application, so the balance of a business without grant is returned (200).' },
  { id: 'wallet-unchanged-204', requirement: 'WAL-RETRIEVE', topic: 'wallet', description: "A read that finds the same balance as the application's previous read answers 204 No Content instead of 200 with the balance." },
  { id: 'wallet-business-name-empty', requirement: 'WAL-BUSINESS-NAME-LENGTH', topic: 'wallet', description: "business_name is empty (the business's unset trading name) instead of 1 to 256 characters." },
  // concealment
  { id: 'foreign-message-404-extra-property', requirement: 'CONC-SAME-AS-MISSING', topic: 'concealment', description: "The 404 for another business's message carries one extra property (that message's business_id) which a random id's 404 lacks." },
  { id: 'foreign-message-403', requirement: 'CONC-CROSS-BUSINESS-MESSAGE', topic: 'concealment', description: "Another business's message gives 403 instead of the 404 a random id gets." },
  { id: 'foreign-message-disclosed', requirement: 'CONC-CROSS-BUSINESS-MESSAGE', topic: 'concealment', description: "Another business's message is returned (200) under the caller's business." },
  { id: 'foreign-bulk-disclosed', requirement: 'CONC-CROSS-BUSINESS-BULK', topic: 'concealment', description: "Another business's bulk is returned (200) under the caller's business." },
  { id: 'message-read-before-grant', requirement: 'CONC-OTHER-BUSINESS-PATH', topic: 'concealment', description: "A message is returned (200) under its own business's path even when the application has no grant on that business." },
  { id: 'not-found-detail-names-owner', requirement: 'CONC-SAME-AS-MISSING', topic: 'concealment', description: "Every 404 of a message read names a business in its detail: the caller's for a random id, the owning business for another business's message (alike once ids are set aside)." },
  { id: 'foreign-message-404-own-detail', requirement: 'CONC-SAME-AS-MISSING', topic: 'concealment', description: "The 404 for another business's message has its own detail (not accessible to this business), unlike a random id's." },
  { id: 'recipients-listing-foreign-bulk', requirement: 'CONC-FOREIGN-OBJECT', topic: 'concealment', description: "The recipient listing of another business's bulk is returned (200) under the caller's business (the bulk read itself refuses it)." },
  { id: 'submission-grant-of-own-business', requirement: 'CONC-OTHER-BUSINESS-PATH', topic: 'concealment', description: "A submission checks the grant and the sender on the application's own business, so it is accepted (202) under the path of a business without grant." },
  { id: 'bulk-business-from-resource', requirement: 'CONC-OTHER-BUSINESS-PATH', topic: 'concealment', description: "A bulk read takes the business from the bulk itself when it exists: an application reads another business's bulk under the path of a business it is granted on, and its own business's bulk under a business without grant." },
  { id: 'foreign-bulk-403', requirement: 'CONC-FOREIGN-LIKE-UNKNOWN', topic: 'concealment', description: "Another business's bulk under the caller's business gets 403 permission_denied, while a bulk that exists nowhere gets 404." },
  { id: 'bulk-404-names-owner', requirement: 'CONC-NO-FOREIGN-DATA', topic: 'concealment', description: "The 404 for another business's bulk names the business that owns it in its detail." },
  { id: 'recipients-unknown-bulk-empty-page', requirement: 'CONC-UNKNOWN-OBJECT', topic: 'concealment', description: 'The recipient listing of a bulk that exists nowhere answers 200 with an empty page instead of 404.' },
  { id: 'endpoint-lookup-before-grant', requirement: 'CONC-OTHER-BUSINESS-PATH', topic: 'concealment', description: 'A deactivation looks the endpoint up before the grant: on a business without grant an unknown id gets 404 resource_not_found, an existing one 403 permission_denied.' },
  { id: 'templated-message-any-business', requirement: 'CONC-FOREIGN-OBJECT', topic: 'concealment', description: "A message sent from a template is returned (200) under any business the caller is granted on: the other business's application reads this business's templated message under its own business." },
  { id: 'foreign-message-repeat-403', requirement: 'CONC-SAME-AS-MISSING', topic: 'concealment', description: "After the first 404 for another business's message, later lookups of it get 403 permission_denied." },
  // request-id
  { id: 'request-id-truncated-64', requirement: 'RID-ECHO', topic: 'request-id', description: 'A valid X-Request-Id longer than 64 characters is echoed cut to 64.' },
  { id: 'request-id-ignored', requirement: 'RID-ECHO', topic: 'request-id', description: 'A valid client X-Request-Id is replaced by a generated one.' },
  { id: 'request-id-missing-on-401', requirement: 'RID-EVERY-RESPONSE', topic: 'request-id', description: 'The 401 authentication_required answers have no X-Request-Id header.' },
  { id: 'request-id-invalid-echoed', requirement: 'RID-REPLACE-INVALID', topic: 'request-id', description: 'An X-Request-Id outside the pattern is echoed instead of replaced.' },
  { id: 'problem-request-id-mismatch', requirement: 'RID-PROBLEM-MATCH', topic: 'request-id', description: 'request_id in a problem body differs from the X-Request-Id header.' },
  { id: 'request-id-empty-echoed', requirement: 'RID-REPLACE-INVALID', topic: 'request-id', description: 'An empty X-Request-Id is echoed (empty) instead of replaced by a generated one.' },
  { id: 'problem-request-id-regenerated', requirement: 'RID-PROBLEM-MATCH', topic: 'request-id', description: 'When the request carries no valid X-Request-Id, a problem body gets a second generated request_id, not the one in the header.' },
  { id: 'request-id-not-generated', requirement: 'RID-GENERATE-MISSING', topic: 'request-id', description: 'A request without X-Request-Id gets a response without one (nothing is generated).' },
  { id: 'invalid-request-id-dropped', requirement: 'RID-EVERY-RESPONSE', topic: 'request-id', description: 'When the client X-Request-Id is invalid, the response carries no X-Request-Id at all.' },
  { id: 'generated-request-id-prefixed', requirement: 'RID-FORMAT', topic: 'request-id', description: 'Generated request ids are written req:<id>, with a colon outside the allowed characters.' },
  { id: 'invalid-request-id-refused', requirement: 'RID-INVALID-NOT-REJECTED', topic: 'request-id', description: 'An invalid X-Request-Id is refused with 400 validation_failed instead of replaced.' },
  { id: 'request-id-max-127', requirement: 'RID-LENGTH-BOUNDARY', topic: 'request-id', description: 'A client X-Request-Id of 128 characters is replaced by a generated one (the maximum is taken as 127).' },
  // problem-details
  { id: 'problem-media-type-json', requirement: 'PROB-MEDIA-TYPE', topic: 'problem-details', description: 'Problems are sent as application/json.' },
  { id: 'problem-type-wrong-base-one-code', requirement: 'PROB-TYPE-FORM', topic: 'problem-details', description: 'The idempotency_conflict problem type uses a different base from every other code.' },
  { id: 'problem-missing-detail', requirement: 'PROB-SCHEMA', topic: 'problem-details', description: 'Problems have no detail member.' },
  { id: 'problem-status-mismatch', requirement: 'PROB-STATUS-MATCH', topic: 'problem-details', description: 'The 422 problems say status 400 in the body.' },
  { id: 'validation-errors-missing', requirement: 'PROB-VALIDATION-ERRORS', topic: 'problem-details', description: '400 validation_failed problems carry no errors array.' },
  { id: 'rate-limit-without-retry-after', requirement: 'PROB-RETRY-AFTER', topic: 'problem-details', description: 'The 429 rate_limit_exceeded has no Retry-After header.' },
  { id: 'not-found-code-unknown', requirement: 'PROB-CODE-KNOWN', topic: 'problem-details', description: 'resource_not_found problems carry code not_found (type ending /not_found), a code section 7 does not define.' },
  { id: 'problem-title-is-detail', requirement: 'PROB-TITLE-STABLE', topic: 'problem-details', description: "Problem titles repeat the occurrence's detail, so one code gets several titles." },
  { id: 'internal-error-stack-in-detail', requirement: 'PROB-DETAIL-NO-SECRETS', topic: 'problem-details', description: 'The 500 internal_error detail carries the stack trace of the failure.', hostCannotShow: 'a 500 is met only when the host fails; the reference forces one through the control origin' },
  { id: 'problem-instance-missing', requirement: 'PROB-INSTANCE', topic: 'problem-details', description: 'Problems carry no instance member.' },
  { id: 'internal-error-as-service-unavailable', requirement: 'PROB-CODE-STATUS', topic: 'problem-details', description: 'An unexpected failure is answered 500 with code service_unavailable (and its Retry-After) instead of internal_error.', hostCannotShow: 'a 500 is met only when the host fails; the reference forces one through the control origin' },
  { id: 'validation-pointer-dotted', requirement: 'PROB-VALIDATION-ERRORS', topic: 'problem-details', description: 'errors[] is built from the body validator: members named as dotted paths (recipients.0.to) instead of JSON Pointers, and query parameter or header errors left out (errors [] for a page size of 0).' },
  { id: 'repeat-deactivation-410-not-found', requirement: 'PROB-CODE-STATUS', topic: 'problem-details', description: 'Deactivating an already deactivated webhook endpoint is refused 410 with code resource_not_found, a code whose status is 404.' },
  { id: 'path-id-problem-status-400', requirement: 'PROB-STATUS-MATCH', topic: 'problem-details', description: 'A message id that is not a UUIDv7 is answered 404 resource_not_found whose body says status 400 (built as for a validation failure).' },
  // validation
  { id: 'both-message-and-template-accepted', requirement: 'VAL-EXACTLY-ONE-CONTENT', topic: 'validation', description: 'A body with both message and template_id is accepted.' },
  { id: 'extra-body-property-accepted', requirement: 'VAL-BODY-FIELDS', topic: 'validation', description: 'Unknown top-level body members are ignored instead of refused.' },
  { id: 'message-4097-accepted', requirement: 'VAL-MESSAGE-LENGTH', topic: 'validation', description: 'A message of 4097 characters is accepted.' },
  { id: 'invalid-e164-accepted', requirement: 'VAL-INVALID-RECIPIENT', topic: 'validation', description: 'Recipient numbers without the leading + are accepted as good recipients.' },
  { id: 'template-variable-513-accepted', requirement: 'VAL-TEMPLATE-VARIABLE-LENGTH', topic: 'validation', description: 'Template variable values of 513 characters are accepted.' },
  { id: 'unauthorized-sender-accepted', requirement: 'VAL-SENDER-AUTHORIZED', topic: 'validation', description: 'A sender identity not authorized for the business is accepted.' },
  { id: 'archived-template-accepted', requirement: 'VAL-TEMPLATE-ACTIVE', topic: 'validation', description: 'An archived template is accepted.' },
  { id: 'content-type-not-checked', requirement: 'VAL-CONTENT-TYPE', topic: 'validation', description: 'A JSON body sent as text/plain is accepted.' },
  { id: 'unknown-template-variable-accepted', requirement: 'VAL-TEMPLATE-VARIABLES', topic: 'validation', description: 'A template-based submission whose recipient carries a variable that is no placeholder of the template is accepted (the variable ignored).' },
  { id: 'path-id-shape-500', requirement: 'VAL-PATH-UUIDV7', topic: 'validation', description: 'A bulk, row listing or message path id that is not a UUIDv7 throws: 500 internal_error instead of a 4xx.' },
  { id: 'refusal-with-location', requirement: 'VAL-NOTHING-ACCEPTED-ON-REJECTION', topic: 'validation', description: 'A body refused with 400 validation_failed carries a Location header for the bulk id drafted before validation.' },
  { id: 'validation-refusal-after-save', requirement: 'VAL-NOTHING-ACCEPTED-ON-REJECTION', topic: 'validation', description: 'A body refused with 400 validation_failed (media type, JSON, fields, template variables) is refused only after a bulk was saved.', hostCannotShow: 'the bulk made before the refusal has no id in the answer, and the document offers no listing of bulks: only the control origin counts it' },
  { id: 'malformed-numbers-get-rows', requirement: 'VAL-INVALID-RECIPIENT', topic: 'validation', description: 'Recipient numbers without the leading + are accepted and counted in intake.bad, yet each still gets a recipient row.' },
  { id: 'text-plain-body-500', requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', topic: 'validation', description: 'A body labelled text/plain is handed to a parser that is not registered and throws: 500 internal_error.' },
  { id: 'content-type-415', requirement: 'VAL-CONTENT-TYPE', topic: 'validation', description: 'A body labelled text/plain is refused with status 415 (code validation_failed) instead of 400.' },
  { id: 'archived-template-refused-after-save', requirement: 'VAL-TEMPLATE-ACTIVE', topic: 'validation', description: 'A bulk naming an archived template gets 422 template_not_active, but only after a bulk was saved.', hostCannotShow: 'the bulk made before the refusal has no id in the answer, and the document offers no listing of bulks: only the control origin counts it' },
  { id: 'sender-refusal-carries-bulk-id', requirement: 'VAL-SENDER-AUTHORIZED', topic: 'validation', description: 'The 403 sender_not_authorized problem carries an id member: the id drafted for the refused bulk.' },
  { id: 'unauthorized-sender-refused-after-save', requirement: 'VAL-SENDER-AUTHORIZED', topic: 'validation', description: 'A bulk from an unauthorized sender gets 403 sender_not_authorized, but only after a bulk was saved.', hostCannotShow: 'the bulk made before the refusal has no id in the answer, and the document offers no listing of bulks: only the control origin counts it' },
  // schemas
  { id: 'timestamps-plus-offset', requirement: 'SCH-UTC-TIMESTAMPS', topic: 'schemas', description: 'Response timestamps use +00:00 instead of Z.' },
  { id: 'bulk-response-extra-property', requirement: 'SCH-NO-EXTRA-PROPERTIES', topic: 'schemas', description: 'Bulk SMS responses carry an extra member (priority).' },
  { id: 'ids-not-uuidv7', requirement: 'SCH-UUIDV7', topic: 'schemas', description: 'New bulk ids are UUID version 4.' },
  { id: 'batches-path-alias', requirement: 'SCH-NO-BATCHES-PATH', topic: 'schemas', description: '/sms/batches answers like /sms/bulk-messages.' },
  { id: 'classification-upper-case', requirement: 'SCH-CLASSIFICATION', topic: 'schemas', description: 'Bulk SMS responses write classification in upper case (TRANSACTIONAL).' },
  { id: 'success-media-type-text-plain', requirement: 'SCH-JSON-MEDIA-TYPE', topic: 'schemas', description: 'Successful JSON responses of the GET operations are labelled text/plain.' },
  { id: 'batches-path-public', requirement: 'SCH-NO-BATCHES-PATH', topic: 'schemas', description: 'A retired /sms/batches listing route, mounted ahead of authentication, answers GET with 200 and an empty list, with or without a token.' },
  // webhooks
  { id: 'webhook-delete-200-with-body', requirement: 'HOOK-DEACTIVATE-204', topic: 'webhooks', description: 'Deactivation answers 200 with a JSON body.' },
  { id: 'webhook-delete-foreign-endpoint', requirement: 'HOOK-OWNERSHIP', topic: 'webhooks', description: "Another business's endpoint is deactivated through the caller's business path (204)." },
  { id: 'webhook-delete-not-deactivated', requirement: 'HOOK-DEACTIVATE-EFFECT', topic: 'webhooks', description: 'Deactivation answers 204 but the endpoint stays active.', hostCannotShow: "the endpoint's state is read through the control origin; the document shows no read of webhook endpoints or of deliveries" },
  { id: 'webhook-delete-random-204', requirement: 'HOOK-NOT-FOUND', topic: 'webhooks', description: 'A random endpoint id answers 204 instead of 404.' },
  { id: 'webhook-grant-of-endpoint-business', requirement: 'HOOK-FORBIDDEN', topic: 'webhooks', description: "Deactivation checks the grant on the endpoint's own business, so the endpoint is deactivated under the path of a business without grant (204)." },
  { id: 'webhook-repeat-deactivation-500', requirement: 'PROB-NO-5XX-FOR-CLIENT-FAULT', topic: 'webhooks', description: 'Deactivating an already deactivated endpoint answers 500 internal_error.' },
  { id: 'request-id-regenerated-on-204', requirement: 'RID-ECHO', topic: 'webhooks', description: "A 204 answer (the deactivation's) carries a generated X-Request-Id instead of the client's valid one." },
  { id: 'webhook-refused-still-deactivates', requirement: 'HOOK-FORBIDDEN', topic: 'webhooks', description: 'A deactivation refused for want of a grant (403) still deactivates the endpoint.', hostCannotShow: "the endpoint's state is read through the control origin; the document shows no read of webhook endpoints or of deliveries" },
  { id: 'webhook-repeat-200', requirement: 'HOOK-DEACTIVATE-204', topic: 'webhooks', description: 'Deactivating an already deactivated endpoint answers 200 with a JSON body instead of 204 or a refusal.' },
  // messages
  { id: 'message-unrendered', requirement: 'MSG-RENDERED-CONTENT', topic: 'messages', description: 'A template-based message shows the template text with its {{placeholders}} instead of the rendered content.' },
  { id: 'message-status-provider-code', requirement: 'MSG-STATUS-VALUES', topic: 'messages', description: 'The individual message status is a raw provider code (DELIVRD).' },
  { id: 'message-template-pin-dropped', requirement: 'MSG-TEMPLATE-PIN', topic: 'messages', description: 'A template-based message shows template null.' },
  { id: 'message-not-found-200', requirement: 'MSG-NOT-FOUND', topic: 'messages', description: 'A message id that exists nowhere answers 200 with an empty object.' },
  { id: 'message-lookup-last-day-only', requirement: 'MSG-RETRIEVE', topic: 'messages', description: 'A message of the business accepted more than 24 hours ago answers 404 resource_not_found.' },
  { id: 'message-to-without-plus', requirement: 'MSG-SCHEMA', topic: 'messages', description: 'A retrieved message shows to without its leading + (not E.164).' },
  { id: 'message-business-id-is-message-id', requirement: 'MSG-BUSINESS', topic: 'messages', description: "A retrieved message's business_id is the message's own id instead of the business of the path." },
  { id: 'message-id-is-read-id', requirement: 'MSG-RETRIEVE', topic: 'messages', description: "A retrieved message's id is a new UUIDv7 made for the read instead of the id requested." },
  { id: 'message-id-parse-500', requirement: 'VAL-PATH-UUIDV7', topic: 'messages', description: "A message id that is not a UUIDv7 reaches the store, which reads the id's time field to pick a partition and throws: 500 internal_error." },
  // Written blind (reference/blind-defects.ts, round 1), caught once its misses were closed (issue 29): ids kept.
  { id: 'blind-message-max-4095', requirement: 'VAL-MESSAGE-LENGTH', topic: 'validation', description: 'A message of exactly 4096 characters is refused with 400 validation_failed (the maximum taken as exclusive).' },
  { id: 'blind-template-variable-max-511', requirement: 'VAL-TEMPLATE-VARIABLE-LENGTH', topic: 'validation', description: 'A template variable value of exactly 512 characters is refused with 400 validation_failed (the maximum taken as exclusive).' },
  { id: 'blind-message-length-in-bytes', requirement: 'VAL-MESSAGE-LENGTH', topic: 'validation', description: 'message length is counted in UTF-8 bytes, so 4096 characters of non-ASCII text are refused.' },
  { id: 'blind-classification-case-insensitive', requirement: 'VAL-CLASSIFICATION-ENUM', topic: 'validation', description: 'classification is matched case-insensitively: Transactional is accepted (and stored lower-cased).' },
  { id: 'blind-template-variable-non-string-accepted', requirement: 'VAL-TEMPLATE-VARIABLE-LENGTH', topic: 'validation', description: 'Template variable values that are JSON numbers are accepted (coerced to text) instead of refused.' },
  { id: 'blind-acceptance-intake-null', requirement: 'BULK-ACCEPT-SHAPE', topic: 'bulk-invariants', description: 'The 202 shows intake null instead of the intake counts.' },
  { id: 'blind-json-charset-refused', requirement: 'BULK-ACCEPT-202', topic: 'bulk-invariants', description: 'A valid submission labelled application/json; charset=utf-8 is refused with 400 validation_failed (the media type compared as a whole string).' },
  { id: 'blind-delivery-complete-when-completed', requirement: 'BULK-DELIVERY-COMPLETE-MEANING', topic: 'bulk-invariants', description: 'delivery_summary.complete is true as soon as processing is completed, while outcomes of some recipients are still unresolved.' },
  { id: 'blind-message-lookup-finds-bulk', requirement: 'MSG-NOT-FOUND', topic: 'messages', description: "The individual message lookup falls through to the business's bulk SMS: a bulk id retrieved as a message answers 200 with the bulk shown as a message." },
  { id: 'blind-token-in-query-accepted', requirement: 'AUTH-401-MISSING', topic: 'auth-ordering', description: 'A call without an Authorization header but with an access_token query parameter (RFC 6750 form) is authenticated instead of 401.' },
  { id: 'blind-unknown-path-no-request-id', requirement: 'RID-EVERY-RESPONSE', topic: 'request-id', description: 'The 404 for an authenticated call to a path that is no operation comes from a fallback handler without an X-Request-Id header.' },
  { id: 'blind-replay-stale-request-id', requirement: 'RID-ECHO', topic: 'request-id', description: "A replayed submission carries the original request's X-Request-Id instead of the valid one of the repeat." },
  { id: 'blind-has-more-by-full-page', requirement: 'CUR-HAS-MORE', topic: 'cursors', description: 'has_more is true whenever the page is full, so a last page holding exactly the page size says has_more true and its next_cursor leads to an empty page.' },
  { id: 'blind-cursor-number-filter-not-bound', requirement: 'CUR-BOUND-FILTERS', topic: 'cursors', description: 'A cursor issued without a number filter is accepted together with one (the new filter applies) instead of 400.' },
  { id: 'blind-cursor-single-use', requirement: 'CUR-LIFETIME', topic: 'cursors', description: 'A cursor is spent by its first use: presenting it again (within 24 hours) gives 400 validation_failed.' },
  { id: 'blind-filtered-walk-repeats', requirement: 'CUR-WALK', topic: 'cursors', description: "In a filtered listing the next page starts page-size positions after the page's start (counting unfiltered rows), so a filtered walk repeats rows." },
  { id: 'blind-fingerprint-ignores-variables', requirement: 'IDEM-CONFLICT', topic: 'idempotency', description: "The payload fingerprint leaves out the recipients' template_variables, so a repeat with other variable values replays the original instead of 409 idempotency_conflict." },
  { id: 'blind-key-case-insensitive', requirement: 'IDEM-SCOPE', topic: 'idempotency', description: 'Idempotency keys are compared lower-cased, so a key differing only in letter case from a used one is taken for it (409 or replay instead of a new bulk).' },
  // Written blind (round 2), caught once the matrix compared headers and crossed kinds of id (issue 28): ids kept.
  { id: 'blind-foreign-bulk-404-content-location', requirement: 'CONC-CROSS-BUSINESS-BULK', topic: 'concealment', description: "The 404 for another business's bulk carries a Content-Location header naming the bulk under its owning business.", round: 2 },
  { id: 'blind-foreign-message-404-last-modified', requirement: 'CONC-SAME-AS-MISSING', topic: 'concealment', description: "The 404 for another business's message carries a Last-Modified header (the message's acceptance time) that a random id's 404 lacks.", round: 2 },
  { id: 'blind-bulk-read-finds-foreign-message', requirement: 'CONC-CROSS-BUSINESS-MESSAGE', topic: 'concealment', description: "The bulk read falls through to individual messages of any business: another business's message id read as a bulk under the caller's business answers 200 with its content.", round: 2 },
  // sequences: each shows only when one operation follows another on the same bulk, key or cursor;
  // `onlySequence` says why no single check of the other topics meets it.
  { id: 'conflict-counts-entries-as-bad', requirement: 'SEQ-REPEAT-CHANGES-NOTHING', topic: 'sequences', description: "A conflicting repeat gets 409 idempotency_conflict, but its entries are counted into the original bulk's intake as bad entries.", onlySequence: 'idempotency/conflict-one-field-changed never reads the original bulk after the conflict' },
] as const satisfies readonly Defect[];

/** Ids of the main registry (DEFECTS). */
export type MainDefectId = (typeof registry)[number]['id'];
/** Every id a reference accepts: the main registry's and the blind registry's (reference/blind-defects.ts). */
export type DefectId = MainDefectId | BlindDefectId;

export const DEFECTS: readonly Defect[] = registry;

export type ActiveDefects = ReadonlySet<DefectId>;

export function isDefectId(id: string): id is DefectId {
  return registry.some((d) => d.id === id) || isBlindDefectId(id);
}

/** The active set for a start; unknown ids are refused so a typo cannot pass as "no defect". */
export function activeDefects(ids: readonly string[] = []): ActiveDefects {
  const unknown = ids.filter((id) => !isDefectId(id));
  if (unknown.length > 0) throw new RangeError(`unknown defect id(s): ${unknown.join(', ')}`);
  return new Set(ids as DefectId[]);
}
