// The one table of CONFORMANCE_* variables (name, meaning, kind, default, topics, what each sets),
// kept at the bottom so that the configuration parser (harness/) and the checks' declared needs
// (suites/) read the same names.
import type { AppCredentials, Fixtures, Topic } from './model.ts';

/** How a variable's value is read and checked; `secret` values are redacted from every output. */
/** `uuids`: a comma-separated list of UUIDs, fixtures a run spends one of (harness/ledger.ts). */
export type VariableKind = 'url' | 'uuid' | 'uuids' | 'list' | 'secret' | 'integer' | 'boolean' | 'text' | 'choice' | 'rate';

/** Where a value goes in the configuration a run is given. */
export type VariableTarget =
  | { fixture: keyof Fixtures }
  | { app: 'primary' | 'limited' | 'other'; part: keyof AppCredentials }
  | { target: 'baseUrl' | 'tokenUrl' | 'audience' };

export interface Variable {
  name: string;
  meaning: string;
  kind: VariableKind;
  default?: string;
  /** Topics whose checks need it against a non-embedded host; `all` for every topic. */
  topics: Topic[] | 'all';
  /** Needed whenever CONFORMANCE_BASE_URL is set (the run cannot be made without it). */
  requiredWithHost?: boolean;
  /** For `integer`: the accepted range. */
  range?: [number, number];
  /** What the value sets; also what `serve` prints for the embedded reference. */
  sets?: VariableTarget;
  /** Needs of checks this variable answers besides the fixture it sets (a list the run takes one of). */
  supplies?: Need[];
}

const BULK_SENDING: Topic[] = ['idempotency', 'recipient-limits', 'cursors', 'bulk-invariants', 'validation'];
const fixture = (key: keyof Fixtures): VariableTarget => ({ fixture: key });

/**
 * Every CONFORMANCE_* variable: the one table the parser, the UUID and secret sets, the unknown-name
 * check, `serve`'s env lines, the error messages, `.env.example` and docs/usage.md follow.
 */
export const VARIABLES: Variable[] = [
  { name: 'CONFORMANCE_BASE_URL', kind: 'url', meaning: 'API host of the implementation under test; paths /v1/... are appended. Unset: the embedded reference is the target', topics: 'all', sets: { target: 'baseUrl' } },
  { name: 'CONFORMANCE_TOKEN_URL', kind: 'url', meaning: 'whole token endpoint URL ({auth_url}/oauth2/token); never derived from the API host', topics: 'all', requiredWithHost: true, sets: { target: 'tokenUrl' } },
  { name: 'CONFORMANCE_CLIENT_ID', kind: 'text', meaning: 'primary application: active grant on CONFORMANCE_BUSINESS_ID with every permission', topics: 'all', requiredWithHost: true, sets: { app: 'primary', part: 'clientId' } },
  { name: 'CONFORMANCE_CLIENT_SECRET', kind: 'secret', meaning: 'secret of the primary application (redacted everywhere)', topics: 'all', requiredWithHost: true, sets: { app: 'primary', part: 'clientSecret' } },
  { name: 'CONFORMANCE_AUDIENCE', kind: 'text', meaning: 'audience requested for access tokens', default: 'service-external-api', topics: 'all', sets: { target: 'audience' } },
  { name: 'CONFORMANCE_BUSINESS_ID', kind: 'uuid', meaning: 'the business the primary application is granted on', topics: 'all', requiredWithHost: true, sets: fixture('businessId') },
  { name: 'CONFORMANCE_OTHER_BUSINESS_ID', kind: 'uuid', meaning: 'a business the primary application has no grant on', topics: ['auth-ordering', 'concealment'], sets: fixture('otherBusinessId') },
  { name: 'CONFORMANCE_LIMITED_CLIENT_ID', kind: 'text', meaning: 'second application, granted on the business but without wallet.balance.read', topics: ['auth-ordering', 'wallet'], sets: { app: 'limited', part: 'clientId' } },
  { name: 'CONFORMANCE_LIMITED_CLIENT_SECRET', kind: 'secret', meaning: 'secret of the limited application (redacted everywhere)', topics: ['auth-ordering', 'wallet'], sets: { app: 'limited', part: 'clientSecret' } },
  { name: 'CONFORMANCE_OTHER_CLIENT_ID', kind: 'text', meaning: 'optional: an application of CONFORMANCE_OTHER_BUSINESS_ID (granted there, not on CONFORMANCE_BUSINESS_ID), the authorization matrix\'s other tenant', topics: ['concealment'], sets: { app: 'other', part: 'clientId' } },
  { name: 'CONFORMANCE_OTHER_CLIENT_SECRET', kind: 'secret', meaning: 'secret of the other business\'s application (redacted everywhere)', topics: ['concealment'], sets: { app: 'other', part: 'clientSecret' } },
  { name: 'CONFORMANCE_SENDER_ID', kind: 'text', meaning: 'a sender identity authorized for the business', topics: BULK_SENDING, sets: fixture('senderId') },
  { name: 'CONFORMANCE_UNAUTHORIZED_SENDER_ID', kind: 'text', meaning: 'a sender identity not authorized for the business', topics: ['auth-ordering', 'validation'], sets: fixture('unauthorizedSenderId') },
  { name: 'CONFORMANCE_TEMPLATE_ID', kind: 'uuid', meaning: 'an active template of the business', topics: ['validation', 'idempotency', 'bulk-invariants'], sets: fixture('templateId') },
  { name: 'CONFORMANCE_TEMPLATE_PLACEHOLDERS', kind: 'list', meaning: 'placeholder names of CONFORMANCE_TEMPLATE_ID, comma-separated', topics: ['validation', 'idempotency', 'bulk-invariants'], sets: fixture('templatePlaceholders') },
  { name: 'CONFORMANCE_INACTIVE_TEMPLATE_ID', kind: 'uuid', meaning: 'an archived template of the business', topics: ['validation'], sets: fixture('inactiveTemplateId') },
  { name: 'CONFORMANCE_MESSAGE_ID', kind: 'uuid', meaning: 'an individual SMS of the business', topics: ['messages'], sets: fixture('messageId') },
  { name: 'CONFORMANCE_MESSAGE_TEMPLATE_ID', kind: 'uuid', meaning: 'the template CONFORMANCE_MESSAGE_ID was sent from, if any', topics: ['messages'], sets: fixture('messageTemplateId') },
  { name: 'CONFORMANCE_FOREIGN_MESSAGE_ID', kind: 'uuid', meaning: 'an individual SMS of CONFORMANCE_OTHER_BUSINESS_ID (its existence must stay concealed)', topics: ['concealment', 'messages'], sets: fixture('foreignMessageId') },
  { name: 'CONFORMANCE_FOREIGN_BULK_ID', kind: 'uuid', meaning: 'a bulk SMS of CONFORMANCE_OTHER_BUSINESS_ID (its existence must stay concealed)', topics: ['concealment'], sets: fixture('foreignBulkId') },
  { name: 'CONFORMANCE_FOREIGN_WEBHOOK_ENDPOINT_ID', kind: 'uuid', meaning: 'a webhook endpoint of CONFORMANCE_OTHER_BUSINESS_ID (its existence must stay concealed); on a declared sandbox the run sends the cross-business DELETE to it, which must be refused', topics: ['webhooks', 'concealment'], sets: fixture('foreignWebhookEndpointId') },
  { name: 'CONFORMANCE_WEBHOOK_ENDPOINT_ID', kind: 'uuids', meaning: 'active webhook endpoints of the business that a run may deactivate, comma-separated: each run takes the first one the ledger (CONFORMANCE_STATE_DIR) has not seen deactivated, the only DELETE target (on a declared sandbox, the next one too: two deactivations in a row)', topics: ['webhooks'], sets: fixture('webhookEndpointIds'), supplies: ['webhookEndpointId'] },
  { name: 'CONFORMANCE_EXPIRED_CURSOR', kind: 'text', meaning: 'a recipient-listing cursor issued more than 24 hours ago', topics: ['cursors'], sets: fixture('expiredCursor') },
  { name: 'CONFORMANCE_EXPIRED_TOKEN', kind: 'secret', meaning: 'an access token of the primary application that has expired (kept past its expires_in); redacted like every secret', topics: ['auth-ordering'], sets: fixture('expiredToken') },
  { name: 'CONFORMANCE_EXPIRED_CURSOR_BULK_ID', kind: 'uuid', meaning: 'the bulk SMS that CONFORMANCE_EXPIRED_CURSOR pages', topics: ['cursors'], sets: fixture('expiredCursorBulkId') },
  { name: 'CONFORMANCE_RECIPIENTS', kind: 'list', meaning: 'E.164 numbers the run may send to, comma-separated; no other number of a non-embedded host is ever sent to', topics: BULK_SENDING, sets: fixture('recipients') },
  { name: 'CONFORMANCE_PARAM_LIMIT', kind: 'text', meaning: 'query parameter name of the recipient listing page size', default: 'limit', topics: ['cursors'] },
  { name: 'CONFORMANCE_PARAM_CURSOR', kind: 'text', meaning: 'query parameter name of the recipient listing cursor', default: 'cursor', topics: ['cursors'] },
  { name: 'CONFORMANCE_PARAM_STATUS', kind: 'text', meaning: 'query parameter name of the recipient listing status filter', default: 'status', topics: ['cursors'] },
  { name: 'CONFORMANCE_PARAM_TO', kind: 'text', meaning: 'query parameter name of the recipient listing number filter', default: 'to', topics: ['cursors'] },
  { name: 'CONFORMANCE_PROFILE', kind: 'choice', meaning: 'full, or safe: safe sends nothing that creates, sends, bills or deactivates (GET only)', default: 'full', topics: 'all' },
  { name: 'CONFORMANCE_TOPICS', kind: 'list', meaning: 'comma-separated topic ids to run', default: 'all topics', topics: 'all' },
  { name: 'CONFORMANCE_SEED', kind: 'integer', meaning: 'property-based seed, printed by every run so a failure replays', default: 'random', range: [-(2 ** 31), 2 ** 31 - 1], topics: 'all' },
  { name: 'CONFORMANCE_RUNS', kind: 'integer', meaning: 'cases per property', default: '25', range: [1, 100_000], topics: 'all' },
  { name: 'CONFORMANCE_MAX_REQUESTS', kind: 'integer', meaning: 'request budget of the whole run', default: '5000', range: [1, 10_000_000], topics: 'all' },
  { name: 'CONFORMANCE_CONCURRENCY', kind: 'integer', meaning: 'requests in flight at once; against a host also the checks run at once (1: one at a time)', default: '10', range: [1, 256], topics: 'all' },
  { name: 'CONFORMANCE_TIMEOUT_MS', kind: 'integer', meaning: 'timeout of one request, in milliseconds', default: '10000', range: [100, 600_000], topics: 'all' },
  { name: 'CONFORMANCE_SETTLE_TIMEOUT_MS', kind: 'integer', meaning: 'longest wait for an asynchronous effect (bulk processing), in milliseconds', default: '15000', range: [0, 3_600_000], topics: 'all' },
  { name: 'CONFORMANCE_REPORT_DIR', kind: 'text', meaning: 'where the reports are written', default: 'reports', topics: 'all' },
  { name: 'CONFORMANCE_STATE_DIR', kind: 'text', meaning: 'where a run against a host keeps its ledger of the fixtures it spent there (base URL, business, id, time, seed; never a secret), so the next run takes a fresh one; safe to keep between CI jobs', default: '.conformance', topics: 'all' },
  { name: 'CONFORMANCE_SANDBOX', kind: 'boolean', meaning: 'true declares that the target delivers no real SMS and that the business is used by this run alone: billing is judged, full-size and malformed-number submissions, a DELETE of a random endpoint id and the cross-business DELETE of CONFORMANCE_FOREIGN_WEBHOOK_ENDPOINT_ID run (still only to allowlisted numbers)', default: 'false', topics: ['recipient-limits', 'webhooks'] },
  { name: 'CONFORMANCE_RATE', kind: 'rate', meaning: 'a known request rate limit of the target, requests per second (N or N/s); the client paces itself to it', topics: 'all' },
  { name: 'CONFORMANCE_REFERENCE_DEFECTS', kind: 'list', meaning: 'embedded reference only: named defects to switch on, comma-separated (to see the checker fail)', topics: 'all' },
  { name: 'CONFORMANCE_CODE', kind: 'text', meaning: 'checker development only (read by bin/conformance.mjs): source runs the TypeScript sources through tsx, dist the compiled JavaScript; unset, the sources where they are (a checkout), else dist/ (the installed package)', topics: [] },
  { name: 'CONFORMANCE_DEBUG', kind: 'boolean', meaning: '1 prints vitest\'s own output and stack traces of unexpected errors (secrets still redacted)', topics: [] },
];

/**
 * What a check may need from the run's configuration before it sends anything: a fixture, or the
 * primary or limited application.
 */
export type Need = keyof Fixtures | 'primaryApp' | 'limitedApp' | 'otherApp';

/** The variables that supply a need, for the skip reason and the plan ("needs CONFORMANCE_X"). */
export function variablesFor(need: Need): Variable[] {
  return VARIABLES.filter((v) => {
    const sets = v.sets;
    if (!sets) return false;
    if ('fixture' in sets) return sets.fixture === need || (v.supplies ?? []).includes(need);
    if ('app' in sets) return `${sets.app}App` === need;
    return false;
  });
}

/** "needs CONFORMANCE_SENDER_ID and CONFORMANCE_RECIPIENTS" (docs/usage.md says what each holds). */
export function needsReason(needs: Need[]): string {
  const names = needs.flatMap((need) => variablesFor(need).map((v) => v.name));
  return `needs ${names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? needs.join(', '))}`;
}
