// The data shared by the runner, the suites and the reporters. Serialisable: it crosses from the
// runner process into vitest workers through `provide`/`inject`.

export const TOPICS = [
  'auth-ordering',
  'idempotency',
  'recipient-limits',
  'cursors',
  'bulk-invariants',
  'wallet',
  'concealment',
  'request-id',
  'problem-details',
  'validation',
  'schemas',
  'webhooks',
  'messages',
  'sequences',
] as const;
export type Topic = (typeof TOPICS)[number];

export type Profile = 'full' | 'safe';

export interface AppCredentials {
  clientId: string;
  clientSecret: string;
}

export interface Target {
  baseUrl: string;
  tokenUrl: string;
  audience: string;
  embedded: boolean;
  /** Control origin of the embedded reference (clock, faults, test tokens); absent elsewhere. */
  controlUrl?: string;
}

/** Literal query parameter names of the recipient listing (the document does not name them). */
export interface ListingParamNames {
  limit: string;
  cursor: string;
  status: string;
  to: string;
}

export interface Fixtures {
  businessId?: string;
  otherBusinessId?: string;
  senderId?: string;
  unauthorizedSenderId?: string;
  templateId?: string;
  templatePlaceholders?: string[];
  inactiveTemplateId?: string;
  messageId?: string;
  /** The template `messageId` was sent from, when it was (its pin must show that template). */
  messageTemplateId?: string;
  foreignMessageId?: string;
  /** A bulk SMS of `otherBusinessId` (its existence must stay concealed from the primary application). */
  foreignBulkId?: string;
  /** A webhook endpoint of `otherBusinessId` (never deactivated through the caller's business). */
  foreignWebhookEndpointId?: string;
  /** The endpoint this run deactivates: against a host, the first of `webhookEndpointIds` not yet spent (harness/ledger.ts). */
  webhookEndpointId?: string;
  /** The active endpoints configured (CONFORMANCE_WEBHOOK_ENDPOINT_ID), one spent per full run. */
  webhookEndpointIds?: string[];
  expiredCursor?: string;
  expiredCursorBulkId?: string;
  /** An access token of the primary application that has expired (a secret: redacted everywhere). */
  expiredToken?: string;
  /** Numbers the run may send to. Against a non-embedded host no other number is ever sent. */
  recipients?: string[];
}

export interface RunSettings {
  runId: string;
  profile: Profile;
  seed: number;
  runs: number;
  maxRequests: number;
  concurrency: number;
  timeoutMs: number;
  settleTimeoutMs: number;
  /**
   * CONFORMANCE_SANDBOX=true: the operator declares that the target delivers no real SMS and that
   * the business is used by this run alone, so billing is judged and full-size submissions run.
   */
  sandbox?: boolean;
  /** CONFORMANCE_RATE / --rate: a known request rate limit of the target, requests per second. */
  rate?: number;
  /** `--check` / `--exclude-check`: globs over check ids and requirement ids (checkSelected). */
  selection?: { include: string[]; exclude: string[] };
  /**
   * `replay`: the fast-check path of the failing case the report recorded for the check replayed
   * (`seed S, path "P"`): a check that reads it runs that case alone, as shrunk, instead of searching again.
   */
  replayPath?: string;
  /** `--max-failures N`: after N failed checks the remaining ones are skipped, saying so. */
  maxFailures?: number;
  /** `--header`: extra headers of every API request (lower-case names); never of token requests. */
  extraHeaders?: Record<string, string>;
  /** JSON-lines file the client appends every exchange to (redacted), read by cross-topic checks. */
  exchangeLogPath: string;
  /**
   * Against a host: CONFORMANCE_STATE_DIR, where the ledger of fixtures spent on hosts is kept
   * (harness/ledger.ts). Unset for the embedded reference, which is fresh every run.
   */
  stateDir?: string;
  /**
   * When true, every check is held to its declared budget (`maxRequests`) and its topic's shared
   * allowance: sending past them is an ERROR of that check (harness/gating/plan.ts).
   */
  checkBudgets?: boolean;
}

/**
 * The most requests one check sends itself: a fixed number, or a number per property case plus a
 * fixed part, since properties send per case and cases follow `--runs` (at most `maxCases`).
 */
export type RequestBudget = number | { fixed?: number; perCase: number; maxCases?: number };

/** A budget in requests for a run with `runs` cases per property. */
export function requestLimit(budget: RequestBudget, runs: number): number {
  if (typeof budget === 'number') return budget;
  const cases = Math.max(1, Math.min(runs, budget.maxCases ?? runs));
  return (budget.fixed ?? 0) + budget.perCase * cases;
}

export interface SuiteConfig {
  target: Target;
  /** `other`: an application of the other business (CONFORMANCE_OTHER_CLIENT_ID), when configured. */
  apps: { primary?: AppCredentials; limited?: AppCredentials; other?: AppCredentials };
  fixtures: Fixtures;
  params: ListingParamNames;
  settings: RunSettings;
  /** Secrets to redact wherever they appear (client secrets); tokens are added as obtained. */
  secrets: string[];
  /**
   * Fixtures configured but every one spent by earlier runs (harness/ledger.ts), with the reason a
   * check that needs one skips for (a precondition: which run spent each, what to set).
   */
  usedUp?: Partial<Record<keyof Fixtures, string>>;
  /**
   * Set when the run overlaps its checks (against a host, harness/runner.ts): the topic files in the
   * order one entry file loads them (suites/support/overlap.entry.ts), the topics in the order of a
   * sequential run (the order of the exchange log), the checks run at once (CONFORMANCE_CONCURRENCY)
   * and each check's own timeout (suites/support/lanes.ts).
   */
  overlap?: { files: string[]; topicOrder: string[]; lanes: number; checkTimeoutMs: number };
}

export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip' | 'error';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

/** One request and its response, redacted and cut to a sane length, replayable with `curl`. */
export interface Exchange {
  request: RecordedRequest;
  response?: RecordedResponse;
  /** Transport failure instead of a response (reset, timeout, size cap). */
  transportError?: string;
  /** When the request was sent, epoch milliseconds to the microsecond (absent in logs written before it was recorded). */
  sentAt?: number;
  durationMs: number;
  curl: string;
  /**
   * Who called, where the token is redacted: a fingerprint of the bearer token (a hash, never the
   * token), so a reader of the log tells callers apart (`check`'s idempotency scopes).
   */
  caller?: string;
}

/**
 * Why a check was skipped, as certification reads it. `precondition`: the run lacked something
 * whoever runs it can supply (a fixture or variable, the full profile, data on the target).
 * `not-observable`: no run against this target can show it (it needs the embedded reference's
 * control origin, a fault that cannot be forced, or a request a safety rule forbids on a real host).
 */
export type SkipKind = 'precondition' | 'not-observable';
export const SKIP_KINDS: readonly SkipKind[] = ['precondition', 'not-observable'];

/** How one cell of the authorization matrix came out: `recorded` is an answer the document leaves open. */
export type MatrixVerdict = 'pass' | 'fail' | 'warn' | 'recorded' | 'skip';

/**
 * One cell of the authorization matrix (suites/support/authorization.ts): an operation of the
 * spec, called as one caller on one kind of object, its answer and its verdict.
 */
export interface MatrixCell {
  /** operationId of spec/openapi.yaml. */
  operation: string;
  /** primary, limited, other-tenant, no-token, invalid-token. */
  caller: string;
  /** own, foreign, other-business, own-under-other, other-unknown, unknown, malformed. */
  object: string;
  /** What the document expects ("403 or 404, never 2xx"). */
  expected: string;
  verdict: MatrixVerdict;
  /** The answer (`404 resource_not_found`), absent when the cell was not sent. */
  answer?: string;
  /** The requirement a fail or warn breaks. */
  requirement?: string;
  /** Why it failed, warned, was recorded or not sent. */
  reason?: string;
  /** Method and path sent (ids as sent, never a credential). */
  request?: string;
  /** The redacted curl line that replays it (failed and warned cells). */
  curl?: string;
}

/** What a check stores in its vitest `meta`, read by harness/reporter.ts. */
export interface CheckMeta {
  topic: Topic;
  checkId: string;
  requirements: string[];
  /** Why the check was skipped (profile, missing fixture, fault not observable). */
  skipReason?: string;
  /** What kind of skip it was; absent means `precondition`. */
  skipKind?: SkipKind;
  failure?: {
    requirement: string;
    section: string;
    expected: string;
    actual: string;
    message: string;
    /** The assertion site that failed (`<topic>.suite.ts:<line>`), for the mutation matrix. */
    site?: string;
  };
  /** Which reading of the document the target chose, or other facts worth reporting. */
  notes: string[];
  /** Findings beyond the document: reported, never failing. */
  advisories: string[];
  /** Readings of the catalogue (spec/readings.ts) the target took: point and choice ids, and the case. */
  readings?: Array<{ point: string; choice: string; detail?: string }>;
  evidence: Exchange[];
  seed?: number;
  counterexample?: string;
  /**
   * The most requests the check sends itself in this run (its declared budget for this run's cases,
   * profile and target; 0 when it is skipped before sending anything, see `plannedSkip`).
   */
  maxRequests?: number;
  /**
   * The allowance its topic's checks share (token requests, reads several checks judge, a spare):
   * a check may draw on what is left of it once its own budget is used.
   */
  sharedRequests?: number;
  /** Why the check is skipped before it sends anything in this run (profile safe, no control origin, a missing fixture). */
  plannedSkip?: string;
  /** What kind of skip `plannedSkip` is. */
  plannedSkipKind?: SkipKind;
  /** What its requests other than GET do, when it sends any (suites/support/check.ts `writes`). */
  writes?: string;
  /** Requests the check sent, token requests included (recorded when budgets are enforced). */
  requestsSent?: number;
  /** How long the check itself ran (ms), when it ran in overlap (vitest's own duration is its wait). */
  durationMs?: number;
  /** The cells of the authorization matrix this check sent and judged. */
  matrix?: MatrixCell[];
}

/**
 * Where suites declare their checks when `plan` reads the declarations without vitest: set on
 * `globalThis` under this key while the suite files are imported (suites/support/declare.ts).
 */
const DECLARATION_COLLECTOR = Symbol.for('conformance.declarations');

/** What a declaration collector hands the suites, and what it gathers: each check's test name and meta. */
export interface DeclarationCollector {
  suiteConfig: SuiteConfig;
  declared: Array<{ name: string; meta: CheckMeta }>;
  /** Names of the `describe` blocks seen (a file with none declared nothing the collector can read). */
  described: string[];
  /** Bodies of `describe` blocks, run once the file has loaded, as vitest runs them. */
  pending: Array<() => void>;
}

type CollectorHolder = { [DECLARATION_COLLECTOR]?: DeclarationCollector };

/** The collector reading declarations now, if any. */
export function declarationCollector(): DeclarationCollector | undefined {
  return (globalThis as CollectorHolder)[DECLARATION_COLLECTOR];
}

/** Sets the collector while suite files load (harness/gating/declarations.ts), or clears it. */
export function setDeclarationCollector(collector: DeclarationCollector | undefined): void {
  if (collector) (globalThis as CollectorHolder)[DECLARATION_COLLECTOR] = collector;
  else delete (globalThis as CollectorHolder)[DECLARATION_COLLECTOR];
}

/** `*` and `?` globs, anchored, case-sensitive as ids are. */
function globMatches(glob: string, value: string): boolean {
  const pattern = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${pattern}$`).test(value);
}

/**
 * Whether a check runs under `--check` / `--exclude-check`: a glob matches its id
 * (`wallet/reserved-zero`) or any requirement id it cites (`WAL-*`). Exclusion wins.
 */
export function checkSelected(selection: RunSettings['selection'], checkId: string, requirements: readonly string[]): boolean {
  if (!selection) return true;
  const matches = (glob: string) => globMatches(glob, checkId) || requirements.some((r) => globMatches(glob, r));
  if (selection.exclude.some(matches)) return false;
  return selection.include.length === 0 || selection.include.some(matches);
}
