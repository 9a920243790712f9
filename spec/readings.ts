// The readings catalogue: every point where a check accepts more than one answer because the
// document reads more than one way, what leaves it open, and, for each answer, whether a client
// written from the document breaks on it. One source: checks record a reading by its id
// (`t.reading(point, choice)`, suites/support/check.ts), the reports name the readings a target
// took from here, and docs/readings.md is generated from it (scripts/gen-readings-doc.ts).
//
// A choice with `breaks` is graded a warning: the check that meets it warns under the point's
// `warns` requirement (a `should`), naming what breaks. A choice without stays a recorded reading.
import type { RequirementId } from './requirement-ids.ts';

export interface ReadingChoice {
  /** The answer in the project's words. */
  text: string;
  /** What a client written from the document does wrong on this answer; absent when nothing breaks. */
  breaks?: string;
}

export interface ReadingPoint {
  /** The rule of the catalogue the point reads (its section is the document's). */
  requirement: RequirementId;
  /** Other rules whose readings (spec/requirements.yaml) this point records too. */
  covers?: readonly RequirementId[];
  /** The point in a few words (a line of the report). */
  title: string;
  /** What in the document leaves it open, paraphrased (never the document's sentences). */
  open: string;
  choices: Record<string, ReadingChoice>;
  /** The `should` requirement a check warns under when the target takes a choice that breaks a client. */
  warns?: RequirementId;
}

/** A business without grant: refused, or its existence concealed (5); read alike by every operation. */
const NO_GRANT = {
  open: '5 refuses a missing grant with 403 and allows concealment with 404.',
  choices: {
    forbidden: { text: '403 permission_denied' },
    concealed: { text: '404 resource_not_found' },
  },
} as const;

/** Checks name a point and a choice by these keys, so a misspelt one does not compile. */
const points = {
  // ---- auth-ordering (5)
  'no-token-invalid-input': {
    requirement: 'AUTH-401-BEFORE-VALIDATION',
    title: 'No token and an invalid body or path',
    open: '5 lists the checks after token validation in order but does not place input validation among them.',
    choices: {
      'authentication-first': { text: '401 authentication_required' },
      'validation-first': {
        text: '400 validation_failed (or 404 for a malformed path) before authentication',
        breaks: 'a client whose token lapsed is told its input is wrong; it corrects a valid request instead of renewing its token',
      },
    },
    warns: 'AUTH-401-BEFORE-VALIDATION',
  },
  'bearer-scheme-case': {
    requirement: 'AUTH-BEARER-CASE',
    title: 'The Bearer scheme written in another letter case',
    open: '5 writes the header with Bearer; the letter case of the scheme name is left to HTTP, which does not distinguish it.',
    choices: {
      'case-insensitive': { text: 'accepted (the scheme name is case-insensitive)' },
      'exact-case': {
        text: '401 unless written Bearer',
        breaks: "a client that writes the scheme as the token response's token_type gives it (bearer) is refused with a valid token",
      },
    },
    warns: 'AUTH-BEARER-CASE',
  },
  'unknown-path': {
    requirement: 'AUTH-UNKNOWN-PATH',
    title: 'A path that is no operation, without a token',
    open: '4 requires a token for every operation; a path that is no operation is not addressed.',
    choices: {
      'authentication-first': { text: '401 authentication_required' },
      'not-found': { text: '404 for the path, whatever the token' },
    },
  },
  'invalid-and-unauthorized': {
    requirement: 'AUTH-VALIDATION-ORDER',
    title: 'An invalid request on a business without grant',
    open: '5 orders grant, permission and ownership but does not say where input validation falls.',
    choices: {
      'authorization-first': { text: '403 or 404 (authorization decided first)' },
      'validation-first': { text: '400 validation_failed (input validated first)' },
    },
  },
  'sender-code': {
    requirement: 'AUTH-SENDER',
    covers: ['VAL-SENDER-AUTHORIZED'],
    title: 'Code for a sender the business may not use',
    open: '7 gives sender_not_authorized for this cause, while 5 names both 403 codes for grant, permission and sender failures together.',
    choices: {
      'sender-not-authorized': { text: '403 sender_not_authorized' },
      'permission-denied': { text: '403 permission_denied' },
    },
  },
  // ---- idempotency (4.1)
  'equivalent-json': {
    requirement: 'IDEM-EQUIVALENCE',
    title: 'A repeat with equal JSON written otherwise',
    open: '4.1 rule 3 replays an equivalent payload without defining equivalent (identical bytes, or equal JSON values).',
    choices: {
      replay: { text: 'the original response replayed (equal JSON values are equivalent)' },
      conflict: {
        text: '409 idempotency_conflict (only identical bytes are equivalent)',
        breaks: 'a client that retries its submission serialised anew (other key order or spacing) is told the key was reused with another payload and never learns the bulk it created',
      },
    },
    warns: 'IDEM-EQUIVALENT-REPLAYED',
  },
  'canonically-equal-text': {
    requirement: 'IDEM-CONFLICT',
    title: 'A repeat whose text differs only in Unicode composition',
    open: '4.1 rule 4 refuses a different payload and rule 3 replays an equivalent one; text that is canonically equivalent (the same characters composed or decomposed, NFC and NFD) is the same text to a reader, and which of the two it is is not said.',
    choices: {
      // No warning either way: the client sent the same text, and either answer tells it so or refuses the key.
      conflict: { text: '409 idempotency_conflict (another JSON value)' },
      replay: { text: 'the original response replayed (the same text)' },
    },
  },
  'other-fault-first': {
    requirement: 'IDEM-CONFLICT',
    covers: ['IDEM-REPLAY', 'RLIM-MAX-1000'],
    title: 'A repeat under a used key, or too many entries, beside a fault of its own',
    open: '4.1 gives each of these its answer (a replay, 409, 422) but not which check comes first when the request has another fault too (token, grant, body).',
    choices: {
      'named-rule-first': { text: 'the answer of the key or the limit rule' },
      // No warning: the client is told of a fault it must mend anyway, and meets the other answer next.
      'other-fault': { text: 'refused for its other fault first (401, 403, 404, 400)' },
    },
  },
  'replay-request-id': {
    requirement: 'IDEM-REPLAY-REQUEST-ID',
    title: 'Request id of a replayed response',
    open: '4.1 replays the original response while 4.0 echoes each request its own id; which wins on a replay is not said.',
    choices: {
      'repeat-id': { text: "the repeat's own request id" },
      'original-id': { text: "the original response's request id" },
    },
  },
  'key-after-expiry': {
    requirement: 'IDEM-NO-REUSE-AFTER-EXPIRY',
    title: 'A key reused after the seven-day window',
    open: '4.1 rule 5 forbids a new operation after expiry but does not show the answer.',
    choices: {
      conflict: { text: '409 idempotency_conflict' },
      refused: { text: 'another 4xx refusal' },
      replay: { text: 'the original response replayed' },
    },
  },
  // ---- cursors (2.6, 4.3)
  'last-page-cursor': {
    requirement: 'CUR-HAS-MORE',
    title: 'next_cursor on the last page',
    open: '2.6 gives has_more and a nullable next_cursor but does not tie the two together when no page follows.',
    choices: {
      null: { text: 'next_cursor null when has_more is false' },
      cursor: {
        text: 'a cursor still offered with has_more false',
        breaks: 'a client that pages while a cursor is offered asks again past the last page',
      },
    },
    warns: 'CUR-LAST-PAGE-NO-CURSOR',
  },
  'page-size-invalid': {
    requirement: 'CUR-LIMIT-INVALID',
    title: 'A page size of 0, negative, fractional or not a number',
    open: '4.3 gives the size a range of 1 to 1000 but writes out the error only for a value above 1000.',
    choices: {
      refused: { text: '400 validation_failed naming the parameter' },
      served: {
        text: 'a page served at another size',
        breaks: "a client's wrong page size goes unseen: it gets pages of a size it did not ask for",
      },
    },
    warns: 'CUR-LIMIT-INVALID',
  },
  'page-size-mid-walk': {
    requirement: 'CUR-WALK',
    title: 'Another page size asked for in the middle of a walk',
    open: '4.3 binds a cursor to the business, the bulk, the filters and the ordering; it neither binds it to the page size nor says what a later page of another size gives.',
    choices: {
      applied: { text: 'the page at the size asked for, continuing where the cursor points' },
      kept: { text: 'the page at the size the cursor was issued at, as pagination.limit says' },
      refused: {
        text: '400 validation_failed for the cursor',
        breaks: 'a client that changes its page size mid-walk cannot continue the walk, though the cursor is bound to nothing it changed',
      },
    },
    warns: 'CUR-WALK',
  },
  'empty-cursor': {
    requirement: 'CUR-EMPTY',
    title: 'An empty cursor value',
    open: '4.3 gives the cursor a minimum length of one but this endpoint\'s errors are not shown.',
    choices: {
      refused: { text: '400 validation_failed' },
      'first-page': { text: 'read as no cursor (the first page)' },
    },
  },
  'edited-cursor': {
    requirement: 'CUR-INVALID',
    title: 'A cursor edited by the caller',
    open: '4.3 forbids clients to parse cursors but does not require the server to sign them.',
    choices: {
      refused: { text: '400 validation_failed' },
      decoded: { text: "a page of the bulk's rows (the cursor is not signed)" },
    },
  },
  'filters-omitted': {
    requirement: 'CUR-OMIT-FILTERS-NEXT-PAGE',
    title: 'A later page requested without the filters of its cursor',
    open: '4.3 binds the cursor to its filters without saying whether they must be sent again.',
    choices: {
      kept: { text: "the cursor's filters still apply" },
      refused: { text: '400 validation_failed (a change of filters)' },
    },
  },
  'row-status-words': {
    requirement: 'CUR-FILTER-STATUS',
    title: 'Row statuses outside the four filter values',
    open: '3.3 leaves the value sets of the two row statuses unshown while the filter takes four values.',
    choices: {
      'filter-words': { text: 'rows use the four filter values' },
      'own-words': { text: 'rows use other words too (those rows are not judged)' },
    },
  },
  'status-filter-unknown': {
    requirement: 'CUR-FILTER-STATUS-UNKNOWN',
    title: 'A status filter value outside the four',
    open: "4.3 gives the filter an enum but this endpoint's errors are not shown.",
    choices: {
      refused: { text: 'a 4xx refusal (400 validation_failed)' },
      'no-rows': {
        text: '200 with no row',
        breaks: "a client's misspelt status reads as \"no rows with that status\"",
      },
      rows: {
        text: '200 with rows (the filter dropped)',
        breaks: 'a client reads every row listed as having the status it asked for',
      },
    },
    warns: 'CUR-FILTER-STATUS-UNKNOWN',
  },
  'number-filter-invalid': {
    requirement: 'CUR-FILTER-UNKNOWN-VALUE',
    title: 'A number filter that is not E.164',
    open: "4.3 gives the filter the E.164 shape but this endpoint's errors are not shown.",
    choices: {
      refused: { text: 'a 4xx refusal (400 validation_failed)' },
      'no-rows': {
        text: '200 with no row',
        breaks: 'a client\'s mistyped number (no +, spaces) reads as "nothing was sent to this number"',
      },
      rows: {
        text: '200 with rows (the filter dropped)',
        breaks: 'a client reads rows of other numbers as sent to the number it asked for',
      },
    },
    warns: 'CUR-FILTER-TO-INVALID',
  },
  // ---- bulk-invariants (2.2, 4.1)
  'acceptance-warnings': {
    requirement: 'BULK-ACCEPT-SHAPE',
    title: 'warnings in the 202',
    open: '4.1 shows warnings empty at acceptance while 2.2 does not make warnings a required member.',
    choices: {
      empty: { text: 'an empty list' },
      omitted: { text: 'left out' },
    },
  },
  'message-echo': {
    requirement: 'BULK-ECHO-REQUEST',
    title: 'message text in the bulk',
    open: '2.2 lists message without saying it is the submitted text byte for byte.',
    choices: {
      exact: { text: 'the submitted text' },
      normalised: { text: 'the text trimmed or normalised' },
    },
  },
  'message-markup': {
    requirement: 'BULK-ECHO-REQUEST',
    title: 'a message holding double braces or escapes, sent with no variables',
    open: '4.1 rule 7 writes placeholders in double braces in message text and binds variables to the pinned template, but does not say whether a message with placeholders and no template is taken.',
    choices: {
      accepted: { text: 'accepted (the bulk then shows the text as submitted)' },
      refused: { text: 'refused with 400 or 422' },
    },
  },
  'location-form': {
    requirement: 'BULK-LOCATION',
    title: 'Location of an accepted bulk',
    open: '4.1 calls Location a reference to the created resource without its form.',
    choices: {
      absolute: { text: 'an absolute URL' },
      relative: { text: 'a reference relative to the API host' },
    },
  },
  'settled-without-count': {
    requirement: 'BULK-SETTLED-NULL',
    title: 'settled while the retryable count is unavailable',
    open: '2.2 makes settled null when it cannot be computed, while 4.1 shows false at acceptance with no submission counts.',
    choices: {
      null: { text: 'null' },
      false: { text: 'false' },
    },
  },
  'unavailable-warning-code': {
    requirement: 'BULK-DELIVERY-UNAVAILABLE-WARNING',
    title: 'The warning beside a missing delivery_summary',
    open: '2.2 asks for a warning entry with the missing summary without naming its code, and lists two known codes.',
    choices: {
      'unavailable-code': { text: 'a warning with code delivery_summary_unavailable' },
      'other-code': { text: 'a warning with another code' },
    },
  },
  // ---- wallet (2.5, 4.5)
  'available-spelling': {
    requirement: 'WAL-AVAILABLE-EQUALS-CURRENT',
    title: 'available_balance beside current_balance',
    open: '2.5 makes the two equal in v1 without saying equal strings or equal amounts.',
    choices: {
      identical: { text: 'identical strings' },
      numeric: { text: 'the same amount written otherwise' },
    },
  },
  'reserved-spelling': {
    requirement: 'WAL-RESERVED-ZERO',
    title: 'reserved_balance',
    open: '2.5 gives the value as 0.00 and the type as any decimal money string.',
    choices: {
      exact: { text: 'exactly 0.00' },
      'other-zero': { text: 'another spelling of zero' },
    },
  },
  'wallet-no-grant': {
    requirement: 'WAL-GRANT',
    title: 'Wallet of a business without grant',
    ...NO_GRANT,
  },
  'wallet-down-code': {
    requirement: 'WAL-UNAVAILABLE',
    title: 'Code while the wallet source is down',
    open: '4.5 names balance_unavailable and, in brackets, service_unavailable.',
    choices: {
      'balance-unavailable': { text: '503 balance_unavailable' },
      'service-unavailable': { text: '503 service_unavailable' },
    },
  },
  // ---- messages, validation, webhooks
  'message-id-malformed': {
    requirement: 'VAL-PATH-UUIDV7',
    title: 'A message id that is no UuidV7',
    open: '4.4 shows no error responses beyond concealment.',
    choices: {
      refused: { text: '400 validation_failed' },
      'not-found': { text: '404 resource_not_found' },
    },
  },
  'invalid-input-answer': {
    requirement: 'VAL-NOTHING-ACCEPTED-ON-REJECTION',
    covers: ['VAL-FROM-LENGTH', 'VAL-TEMPLATE-UNKNOWN', 'VAL-INVALID-RECIPIENT'],
    title: 'A violation more than one rule answers',
    open: '4.1 and 7 give overlapping answers for some violations (400 for a malformed field, 403 for a sender, 422 for a recipient, or acceptance counting the entry as bad).',
    choices: {
      refused: { text: 'one of the refusals the rules allow' },
      accepted: { text: 'accepted with the entry counted as bad' },
    },
  },
  'blank-message': {
    requirement: 'VAL-MESSAGE-LENGTH',
    title: 'A message of white space only',
    open: '4.1 and 8 bound the length of message and say nothing of its content, so text of spaces alone is within them.',
    choices: {
      accepted: { text: 'accepted (its length is within the bounds)' },
      // No warning: the refusal is a 400 naming /message, which a client sees and can act on.
      refused: { text: '400 validation_failed naming /message (a blank text refused)' },
    },
  },
  'content-type': {
    requirement: 'VAL-CONTENT-TYPE',
    title: 'A JSON body labelled text/plain',
    open: '4.1 names the content type but 7 has no code for an unsupported media type.',
    choices: {
      refused: { text: '400 validation_failed' },
      'read-as-json': {
        text: 'read as JSON and accepted',
        breaks: 'a client that labels its body wrongly is not told, and fails later on a host that follows the label',
      },
    },
    warns: 'VAL-CONTENT-TYPE',
  },
  'unknown-placeholder': {
    requirement: 'VAL-TEMPLATE-VARIABLES',
    title: 'A template variable that is no placeholder',
    open: '4.1 rule 7 forbids it without naming the refusal (a malformed field or a recipient failing semantic validation).',
    choices: {
      'validation-failed': { text: '400 validation_failed' },
      'invalid-recipient': { text: '422 invalid_recipient' },
    },
  },
  'webhook-no-grant': {
    requirement: 'HOOK-FORBIDDEN',
    title: 'Deactivation on a business without grant',
    ...NO_GRANT,
  },
  'repeat-deactivation': {
    requirement: 'HOOK-REPEAT',
    title: 'Deactivating an endpoint again',
    open: '3.4 shows the first deactivation only.',
    choices: {
      'no-content': { text: '204 again' },
      refused: { text: 'a 4xx refusal (404 resource_not_found)' },
    },
  },
} as const satisfies Record<string, ReadingPoint>;

export type ReadingPointId = keyof typeof points;
export type ReadingChoiceId<P extends ReadingPointId> = keyof (typeof points)[P]['choices'] & string;

export const readingPoints: Readonly<Record<ReadingPointId, ReadingPoint>> = points;

/** One reading a check recorded: the point, the answer the target gave, and the case it met it on. */
export interface ReadingTaken {
  point: string;
  choice: string;
  detail?: string;
}

/**
 * Rules of the catalogue with readings that no point records, and why: the answers are judged
 * elsewhere and not recorded per check.
 */
export const NOT_RECORDED: Readonly<Partial<Record<RequirementId, string>>> = {
  'AUTH-GRANT': 'cross-business answers: the authorization matrix (issue 28) records them',
  'AUTH-GRANT-UNIFORM': 'cross-business answers: the authorization matrix (issue 28) records them',
  'CONC-CROSS-BUSINESS-BULK': 'cross-business answers: the authorization matrix (issue 28) records them',
  'CONC-OTHER-BUSINESS-PATH': 'cross-business answers: the authorization matrix (issue 28) records them',
  'CONC-MAY-CONCEAL': 'cross-business answers: the authorization matrix (issue 28) records them',
  'HOOK-OWNERSHIP': 'cross-business answers: the authorization matrix (issue 28) records them',
  'SEQ-REPEAT-CHANGES-NOTHING': 'the sequences model accepts each reading the single-operation points record (idempotency, cursors) and notes the one it met',
  'SEQ-CURSOR-REPLAYS-PAGE': 'the sequences model accepts each reading the single-operation points record (idempotency, cursors) and notes the one it met',
  'SEQ-OWNERSHIP-AFTER-ANY': 'the sequences model accepts each reading the single-operation points record (idempotency, cursors) and notes the one it met',
  'CONC-FOREIGN-OBJECT': 'cross-business answers: the authorization matrix records them, cell by cell',
  'CONC-UNKNOWN-OBJECT': 'cross-business answers: the authorization matrix records them, cell by cell',
  'CONC-UNIFORM': 'cross-business answers: the authorization matrix records them, cell by cell',
  'PROB-VALIDATION-ERRORS': 'the checker holds every target to the narrower reading (errors where a body field or query parameter is at fault) and judges errors[] wherever present; there is no answer to record',
};

/** A finding a check reports beyond the rules it judges, and the grade the review gave it. */
export interface AdvisoryReview {
  checks: readonly string[];
  finding: string;
  /** Why it stays an advisory (the document does not address it), or why it moved. */
  why: string;
  /** The `should` it became a warning of, when the document implies the rule. */
  movedTo?: RequirementId;
  /** A note of what the traffic leaves unseen (or to another rule), not a finding about the target: never graded. */
  note?: true;
}

/** Every advisory of the suites, reviewed: an advisory only where the document does not address the point. */
export const ADVISORIES: readonly AdvisoryReview[] = [
  {
    checks: ['bulk-invariants/every-observation-consistent', 'traffic/bulk-invariants/reads'],
    finding: 'an intake or submission count, or outcomes_resolved, goes down between two reads',
    why: 'the counts are totals of what has happened (3.1 shows them advancing while processing): a client showing progress would show it going back',
    movedTo: 'BULK-COUNTS-ONE-WAY',
  },
  {
    checks: ['bulk-invariants/acceptance-shape'],
    finding: 'intake counts nothing for a submission of one or more entries',
    why: 'every entry is good, bad or empty and zeros are never invented (2.2): totals not known yet are null, not zero',
    movedTo: 'BULK-INTAKE-NOT-ZERO',
  },
  {
    checks: ['bulk-invariants/every-observation-consistent'],
    finding: 'status goes from completed back to another value',
    why: 'transitions between processing states are not shown (3.1)',
  },
  {
    checks: ['cursors/status-filter'],
    finding: 'a status filter returns fewer rows than the unfiltered listing had with that status',
    why: 'row statuses change between the two reads and a cursor is no snapshot of them (4.3); none at all while a row kept the status is judged',
  },
  {
    checks: ['recipient-limits/over-maximum-not-billed'],
    finding: 'the balance moved around a refused over-limit submission',
    why: 'the document forbids billing it (4.1 rule 1) but a balance on a live business moves for other reasons: the move cannot be laid on the request',
  },
  {
    checks: ['request-id/generate-when-missing'],
    finding: 'one generated X-Request-Id given to two requests',
    why: 'the document asks for a generated value, not a unique one (4.0)',
  },
  {
    checks: ['request-id/every-response-has-header'],
    finding: 'no X-Request-Id on a path that is no operation',
    why: 'the header is required of the operations of section 4; other paths are not addressed',
  },
  {
    checks: ['wallet/currency-code'],
    finding: 'a currency code this runtime does not know as ISO 4217',
    why: "the document requires ISO 4217 (2.5, judged by its pattern) but the runtime's list may lag behind ISO, so the checker cannot be sure",
  },
  {
    checks: ['wallet/source-unavailable'],
    finding: '503 balance_unavailable without Retry-After',
    why: 'section 7 gives Retry-After to service_unavailable and rate_limit_exceeded only',
  },
  // The traffic judge's own (traffic/rules/*), reviewed the same way.
  {
    checks: ['traffic/bulk-invariants/reads'],
    finding: 'the sequence of statuses a bulk showed across its reads',
    why: 'transitions between processing states are not shown (3.1): recorded so a reader sees them, never judged',
    note: true,
  },
  {
    checks: ['traffic/wallet/balance-rules'],
    finding: 'a later wallet read carries an earlier as_of than the read before it',
    why: 'as_of is the time of the snapshot read (2.5); the document does not say successive reads see newer snapshots, and a client shows the balance of the snapshot it got',
  },
  {
    checks: ['traffic/idempotency/one-operation-per-key'],
    finding: 'a key used again with a new bulk in answer, while the recording hides which application called',
    why: 'the key is scoped per application (4.1 rule 2); with the tokens redacted the scope cannot be told, so nothing is judged',
    note: true,
  },
  {
    checks: ['traffic/idempotency/replay'],
    finding: 'an identical repeat refused, with no later server time to tell whether the seven days had passed',
    why: 'a refusal after the window is one of the readings of 4.1 rule 5 (key-after-expiry); before it, a failure: the traffic cannot tell which',
    note: true,
  },
  {
    checks: ['traffic/idempotency/replay'],
    finding: 'an equivalent repeat answered with a status neither a replay nor a refusal (a redirect or 1xx)',
    why: 'left to the rules of that status (a 5xx to a repeat under a used key fails PROB-NO-5XX-FOR-CLIENT-FAULT in this check)',
    note: true,
  },
  {
    checks: ['traffic/idempotency/replay'],
    finding: "a submission answered 5xx under a key not yet seen accepted, answered before the request of the key's 202 was sent, or with no times recorded to tell",
    why: "a retry after an unexpected failure (section 7) is left unshown by 4.1 rule 6; one whose request ran beside the 202's by the recorded times is a concurrent call and fails PROB-NO-5XX-FOR-CLIENT-FAULT, but without times the two look the same",
    note: true,
  },
  {
    checks: ['traffic/validation/invalid-request-refused'],
    finding: 'a 500 (or another 5xx but 503) to a request the request rules find valid',
    why: "section 7's error table allows an unexpected failure on any operation, and the traffic cannot tell one from a fault of the service's code; a request that is the caller's fault, or that one reading makes so (a blank message), fails instead",
    note: true,
  },
  {
    checks: ['traffic/validation/invalid-request-refused'],
    finding: 'a submission with numbers that are not E.164 accepted without intake counts',
    why: 'whether those entries were counted good cannot be seen without counts (2.2 allows them null)',
    note: true,
  },
  {
    checks: ['traffic/schemas/*'],
    finding: 'answers whose body the recorder cut short',
    why: 'judged on status and headers only: the recording, not the target, lacks the rest',
    note: true,
  },
  {
    checks: ['auth-ordering/ungranted-vs-unknown-business', 'concealment/*'],
    finding: 'a business or resource of another business answered unlike an unknown one (status, code, values, timing)',
    why: 'cross-business comparisons: the authorization matrix (issue 28) reviews them',
  },
];

/** The point and choice of a recorded reading, when the catalogue knows them. */
export function readingOf(taken: ReadingTaken): { point: ReadingPoint; choice: ReadingChoice } | undefined {
  const point = (readingPoints as Record<string, ReadingPoint>)[taken.point];
  const choice = point?.choices[taken.choice];
  return point && choice ? { point, choice } : undefined;
}
