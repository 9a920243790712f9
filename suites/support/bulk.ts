// Bulk submission and observation helpers shared by the stateful topics: submit with the run's
// sender and recipients under a fresh idempotency key, poll until `completed` within the settle
// bound, and (on the embedded reference) count what was created.
import { parseRetryAfter } from '../../harness/pacing.ts';
import type * as fc from 'fast-check';
import type { ApiResponse, Caller } from '../../harness/client.ts';
import type { SuiteConfig } from '../../core/model.ts';
import {
  bulkBodyWithRecipientCount,
  bulkRequestArb,
  type BulkRecipientBody,
  type BulkRequestBody,
  type BulkRequestOptions,
} from '../../generators/bulk-request.ts';
import { holdsPlaceholderSyntax, withoutRendererMarkup } from '../../generators/domain.ts';
import type { CheckContext } from './check.ts';
import { paths } from './paths.ts';

export type { BulkRecipientBody, BulkRequestBody };

/** The business every stateful check works on (declared in the check's `needs`). */
export function businessIdOf(t: CheckContext): string {
  return t.fixture('businessId');
}

/**
 * For a check that declares `writes` with `readsInSafe` and needs a submission only on some paths
 * (no fixture bulk to read): skips it in profile safe. A check that always submits needs no call,
 * since the check wrapper skips it there before it sends anything.
 */
export function requireSubmissions(t: CheckContext): void {
  if (!t.writes) throw new Error('requireSubmissions in a check that does not declare writes (suites/support/check.ts)');
  if (t.config.settings.profile === 'safe') t.skip('profile safe sends nothing that creates a bulk SMS');
}

/**
 * Whether a check that submits only on some paths may submit now: profile full, a sender, and
 * numbers the run may send to (any number on the embedded reference).
 */
export function maySubmit(t: CheckContext): boolean {
  const { fixtures, settings, target } = t.config;
  return settings.profile === 'full' && fixtures.senderId !== undefined && (target.embedded || (fixtures.recipients?.length ?? 0) > 0);
}

/** The run's authorized sender (declared in the check's `needs`). */
export function senderOf(t: CheckContext): string {
  return t.fixture('senderId');
}

/** Numbers the run may send to (declared in the check's `needs` or `needsOnHost`). */
export function recipientPool(t: CheckContext): string[] {
  return t.fixture('recipients');
}

/** `count` recipient entries, reusing the allowed numbers cyclically (duplicates count as entries). */
export function cyclicRecipients(pool: readonly string[], count: number): BulkRecipientBody[] {
  return Array.from({ length: count }, (_, i) => ({ to: pool[i % pool.length]! }));
}

/** True when a submission reaches real telephones: only the embedded reference is harmless. */
export function sendsRealMessages(config: SuiteConfig): boolean {
  return !config.target.embedded;
}

/**
 * Whether the run may send what only a sandbox takes (full-size and malformed-number submissions)
 * and judge billing: the embedded reference, or a host declared a sandbox (CONFORMANCE_SANDBOX).
 */
export function isSandbox(config: SuiteConfig): boolean {
  return config.target.embedded || config.settings.sandbox === true;
}

/**
 * What the body generators need from the run: its sender, and (against a real host) the
 * allowlist as the only numbers. The embedded reference takes generated numbers, which vary more.
 */
export function bodyOptions(t: CheckContext, extra: Partial<BulkRequestOptions> = {}): BulkRequestOptions {
  const { fixtures } = t.config;
  const options: BulkRequestOptions = { senderId: senderOf(t), ...extra };
  if (!t.config.target.embedded && !options.pool) options.pool = recipientPool(t);
  if (fixtures.templateId && options.templateId === undefined && extra.content !== 'message') {
    options.templateId = fixtures.templateId;
    options.placeholders = fixtures.templatePlaceholders ?? [];
  }
  return options;
}

/** Valid bodies for this run (1 to 5 recipients unless `count` says otherwise). */
export function validBodies(t: CheckContext, extra: Partial<BulkRequestOptions> = {}): fc.Arbitrary<BulkRequestBody> {
  return bulkRequestArb(bodyOptions(t, extra));
}

/** Valid bodies with exactly `n` recipient entries (fast for 1000 and more). */
export function bodiesWithCount(t: CheckContext, n: number, extra: Partial<BulkRequestOptions> = {}): fc.Arbitrary<BulkRequestBody> {
  return bulkBodyWithRecipientCount(n, bodyOptions(t, extra));
}

export interface SubmitOptions {
  /** Idempotency key; a fresh run-scoped key when absent. `null` sends no header at all. */
  key?: string | null;
  as?: Caller;
  /** The business of the path; the run's business when absent. */
  business?: string;
  headers?: Record<string, string>;
  /** Sent byte for byte (as application/json unless `headers` say otherwise) instead of `body`. */
  rawBody?: string;
}

export interface Submission {
  response: ApiResponse;
  key: string | null;
  body: unknown;
}

export async function submitBulk(t: CheckContext, body: unknown, options: SubmitOptions = {}): Promise<Submission> {
  const businessId = options.business ?? businessIdOf(t);
  const key = options.key === undefined ? t.api.idempotencyKey() : options.key;
  const headers: Record<string, string> = {};
  if (options.rawBody !== undefined) headers['Content-Type'] = 'application/json';
  if (key !== null) headers['Idempotency-Key'] = key;
  if (key !== null) sentKeys.add(key);
  Object.assign(headers, options.headers ?? {});
  const response = await t.api.send({
    method: 'POST',
    path: paths.bulkMessages(businessId),
    headers,
    ...(options.rawBody !== undefined ? { rawBody: options.rawBody } : body === undefined ? {} : { json: body }),
    as: options.as ?? 'primary',
  });
  return { response, key, body: options.rawBody ?? body };
}

/** Every Idempotency-Key this process sent: a run-scoped key not among them was never sent before. */
const sentKeys = new Set<string>();

/** A key of this run (it starts with the run id, so no earlier run sent it) not sent yet. */
function isFreshKey(t: CheckContext, key: string | null): boolean {
  return key !== null && key.startsWith(`${t.config.settings.runId}-`) && !sentKeys.has(key);
}

/** Submits a body the check needs accepted (a setup step); anything but 202 fails BULK-ACCEPT-202 with the evidence. */
export async function submitAccepted(t: CheckContext, body: unknown, options: SubmitOptions = {}): Promise<Submission> {
  const freshKey = options.key === undefined || isFreshKey(t, options.key);
  const submission = await submitBulk(t, body, options);
  expectAccepted(t, submission.response, { freshKey });
  return submission;
}

/**
 * Submits a body the check needs accepted. A message holding markup (double braces, escapes) is
 * one the document neither allows nor refuses outright (4.1 rule 7 writes placeholders in double
 * braces and binds variables to a pinned template): a 400 or 422 for it is recorded as a reading,
 * and the text without its markup is sent instead; accepted, the bulk must show it as submitted.
 */
export async function submitForEcho(t: CheckContext, body: BulkRequestBody, label: string): Promise<{ body: BulkRequestBody; response: ApiResponse }> {
  if (body.message === undefined || !holdsPlaceholderSyntax(body.message)) return { body, response: (await submitAccepted(t, body)).response };
  const { response } = await submitBulk(t, body);
  if (response.status === 202) {
    t.reading('message-markup', 'accepted', label, response);
    return { body, response };
  }
  if (response.status !== 400 && response.status !== 422) expectAccepted(t, response, { freshKey: true });
  t.reading('message-markup', 'refused', `${label}: ${response.status} ${problemCode(response) ?? ''}`.trim(), response);
  const fallback = { ...body, message: withoutRendererMarkup(body.message) };
  return { body: fallback, response: (await submitAccepted(t, fallback)).response };
}

/**
 * A submission's answer the check needs to be 202; anything else fails BULK-ACCEPT-202 with the
 * evidence. `freshKey`: the key was minted for this request (run-scoped, never sent before), so a
 * 409 idempotency_conflict, a key "reused with a different payload" (7), breaks the key's scope
 * (4.1 rule 2: each key is its own scope; blind defect blind8-duplicate-send-guard-409 refused a new
 * key whose sender and numbers matched a recent acceptance).
 */
export function expectAccepted(t: CheckContext, response: ApiResponse, options: { freshKey?: boolean } = {}): void {
  if (response.status !== 202) {
    t.evidence(response);
    if (options.freshKey && problemCode(response) === 'idempotency_conflict') {
      t.fail('IDEM-SCOPE', '202 for a valid body under a key never sent before (a new key is a new scope: nothing to conflict with)', `${response.status} idempotency_conflict`, response);
    }
    t.fail(
      'BULK-ACCEPT-202',
      '202 for a valid body with the authorized sender',
      `${response.status} ${problemCode(response) ?? ''}`.trim(),
      response,
    );
  }
}

export function problemCode(response: ApiResponse): string | undefined {
  const body = response.json as { code?: unknown } | undefined;
  return typeof body?.code === 'string' ? body.code : undefined;
}

export function bulkIdOf(response: ApiResponse): string | undefined {
  const body = response.json as { id?: unknown } | undefined;
  return typeof body?.id === 'string' ? body.id : undefined;
}

export async function getBulk(t: CheckContext, bulkId: string, as: Caller = 'primary'): Promise<ApiResponse> {
  return t.api.send({ method: 'GET', path: paths.bulkMessage(businessIdOf(t), bulkId), as });
}

export interface Observation {
  response: ApiResponse;
  body: Record<string, unknown>;
  atMs: number;
}

export interface PollResult {
  observations: Observation[];
  final?: Observation;
  completed: boolean;
  /** Responses that were not 200 (kept for evidence; polling stops at the first). */
  unexpected?: ApiResponse;
}

export interface PollOptions {
  /** Keep reading after `completed` while `settled` is false (outstanding retries), within the same bound. */
  untilSettled?: boolean;
  /**
   * Then keep reading, up to this many reads more (within the same bound), while delivery_summary
   * says its reporting is not complete: the reads then see the summary change.
   */
  untilReported?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Delays between reads of a bulk: short steps against the embedded reference; against a host short
 * first reads growing by half to a cap, so a change is seen within the cap of the host's own
 * timeline (a host's Retry-After on a read asks for longer, and the client's pacing still applies).
 */
export const pollDelays = (embedded: boolean) => (embedded ? { first: 25, max: 100, factor: 2 } : { first: 100, max: 500, factor: 1.5 });

/**
 * Reads of one bulk the embedded reference needs at most: it settles a bulk 0.8 s after acceptance
 * (reference/lifecycle.ts), and 24 reads wait over 2 s. Keeps the plan of a run near what it sends.
 */
const EMBEDDED_MAX_READS = 24;

/**
 * The most reads `pollUntilCompleted` makes of one bulk: as many as its delays fit in the settle
 * timeout (reads take time too, so a run makes no more), and on the embedded reference at most
 * EMBEDDED_MAX_READS. Request budgets of polling checks are built from it.
 */
export function maxPollReads(run: { settleTimeoutMs: number; embedded: boolean }): number {
  const { first, max, factor } = pollDelays(run.embedded);
  let reads = 1;
  let slept = 0;
  for (let delay = first; slept + delay <= run.settleTimeoutMs; delay = Math.min(delay * factor, max)) {
    slept += delay;
    reads++;
    if (run.embedded && reads >= EMBEDDED_MAX_READS) return EMBEDDED_MAX_READS;
  }
  return reads;
}

/**
 * Reads the bulk until its status is `completed` (and, with `untilSettled`, until `settled` is no
 * longer false), bounded by the run's settle timeout and `maxPollReads`. Each observation is handed
 * to `observe` as it arrives so invariants are checked on every state seen. Never fails for
 * slowness: callers report how far the bulk got.
 */
export async function pollUntilCompleted(
  t: CheckContext,
  bulkId: string,
  observe?: (observation: Observation) => void,
  options: PollOptions = {},
): Promise<PollResult> {
  const started = Date.now();
  const deadline = started + t.config.settings.settleTimeoutMs;
  const observations: Observation[] = [];
  const { first, max, factor } = pollDelays(t.config.target.embedded);
  const maxReads = maxPollReads({ settleTimeoutMs: t.config.settings.settleTimeoutMs, embedded: t.config.target.embedded });
  let delay = first;
  let reportedReads = 0;
  for (;;) {
    const response = await getBulk(t, bulkId);
    if (response.status !== 200 || typeof response.json !== 'object' || response.json === null) {
      return { observations, completed: false, unexpected: response, final: observations.at(-1) };
    }
    const observation: Observation = { response, body: response.json as Record<string, unknown>, atMs: Date.now() - started };
    observations.push(observation);
    observe?.(observation);
    const completed = observation.body.status === 'completed';
    if (completed && (!options.untilSettled || observation.body.settled !== false)) {
      const summary = observation.body.delivery_summary;
      const reporting = typeof summary === 'object' && summary !== null && (summary as Record<string, unknown>).complete === false;
      if (!reporting || reportedReads >= (options.untilReported ?? 0)) return { observations, final: observation, completed: true };
      reportedReads++;
    }
    // A host may say when to look again (seconds or an HTTP-date); never past the settle deadline.
    const hinted = parseRetryAfter(response.headers['retry-after']);
    const wait = hinted !== undefined ? Math.max(delay, hinted) : delay;
    if (observations.length >= maxReads || Date.now() + wait > deadline) return { observations, final: observation, completed };
    await sleep(wait);
    delay = Math.min(delay * factor, max);
  }
}

/**
 * Number of bulk SMS the embedded reference holds (all businesses), read from its control origin;
 * undefined elsewhere: the document offers no listing of bulks, so nothing can be counted.
 */
export async function createdBulkCount(t: CheckContext): Promise<number | undefined> {
  const controlUrl = t.config.target.controlUrl;
  if (!controlUrl) return undefined;
  try {
    const response = await fetch(new URL('/state/counts', controlUrl));
    if (!response.ok) return undefined;
    const body = (await response.json()) as { bulkMessages?: unknown };
    return typeof body.bulkMessages === 'number' ? body.bulkMessages : undefined;
  } catch {
    return undefined;
  }
}


/**
 * Runs `action` and reports whether the number of bulks changed: `undefined` when nothing can
 * be counted on this target, so callers fall back to the black-box signs (no `Location`, no id).
 */
export async function createdDuring<T>(t: CheckContext, action: () => Promise<T>): Promise<{ result: T; created?: number }> {
  const before = await createdBulkCount(t);
  const result = await action();
  if (before === undefined) return { result };
  const after = await createdBulkCount(t);
  return after === undefined ? { result } : { result, created: after - before };
}
