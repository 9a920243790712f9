// The traffic judge: every rule module as a reducer over the exchanges in time order, each keeping
// only the state its rule needs, then one digest (digest.ts) and from it one RunResult that the
// run's report writers render unchanged. A rule no exchange showed is a skip ("not observable in
// this traffic"), never a pass. Given a partition (i of n), the judge reads every exchange (for
// the credentials to redact and the rules whose state spans businesses) but records verdicts only
// on the exchanges whose business hashes to i.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOPICS, type Topic } from '../core/model.ts';
import { contractSha256, contractVersion } from '../spec/contract.ts';
import { requirementById } from '../spec/requirements.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';
import { PACKAGE_ROOT } from '../harness/package.ts';
import { redactText, SecretSet } from '../harness/redact.ts';
import { buildRunResult, type CollectedCheck, type RunResult } from '../harness/result.ts';
import { appIdFor, observe, type JudgeContext, type Observed } from './context.ts';
import type { CheckDigest, ClientDigest, Digest, ViolationDigest } from './digest.ts';
import type { TrafficEnv } from './env.ts';
import { toEvidence } from './evidence.ts';
import type { TrafficExchange } from './model.ts';
import { parseUrl } from './operations.ts';
import * as auth from './rules/auth.ts';
import * as bulks from './rules/bulks.ts';
import * as client from './rules/client.ts';
import * as concealment from './rules/concealment.ts';
import * as cursors from './rules/cursors.ts';
import * as idempotency from './rules/idempotency.ts';
import * as listings from './rules/listings.ts';
import * as messages from './rules/messages.ts';
import * as problems from './rules/problems.ts';
import * as recipientLimits from './rules/recipient-limits.ts';
import * as requestId from './rules/request-id.ts';
import * as requestValidity from './rules/request-validity.ts';
import * as schemas from './rules/schemas.ts';
import { Ownership } from './rules/ownership.ts';
import { ServerClock } from './rules/server-clock.ts';
import * as wallet from './rules/wallet.ts';
import { addSecretsOf } from './secrets.ts';
import { AT_END, TEXT_LIMIT, Verdicts, type CheckDef, type CheckTally, type Reducer, type Violation } from './verdicts.ts';

interface RuleModule {
  checks: CheckDef[];
  start(v: Verdicts, ctx: JudgeContext, clock: ServerClock, owners: Ownership): Reducer;
}

const RULES: RuleModule[] = [auth, concealment, idempotency, recipientLimits, cursors, listings, bulks, wallet, messages, requestId, problems, requestValidity, schemas];
/** Rules whose state spans businesses (one title per code, one type base, wallet reads in order, the client's tokens and origins): they see every exchange. */
const SPANNING = new Set<unknown>([problems, wallet]);

export const TRAFFIC_CHECKS: readonly CheckDef[] = RULES.flatMap((r) => r.checks);

export const NOT_OBSERVABLE = 'not observable in this traffic';

/** Which of `count` partitions judges an exchange: its business (so rules over one business see all of it). */
export interface Partition {
  index: number;
  count: number;
}

export interface JudgeOptions {
  env: TrafficEnv;
  /** Facts about the input (entries not judged), reported as notes. */
  inputNotes?: string[];
  startedAt?: Date;
  partition?: Partition;
}

/** One violation as it is printed live (proxy): which check, which rule, where. */
export interface Finding {
  check: string;
  status: 'fail' | 'warn';
  requirement: string;
  expected: string;
  actual: string;
  source: string;
}

/** A client-side finding as the proxy prints it. */
export interface ClientLine {
  id: string;
  requirement: string;
  text: string;
  source: string;
}

export interface Judgement {
  result: RunResult;
  /** The violations found (every requirement broken is among them; a bounded sample of the rest). */
  findings: Finding[];
  /** Whether any exchange called a documented operation (else there was nothing to judge). */
  sawApi: boolean;
  secrets: SecretSet;
  client: ClientLine[];
  exitCode: 0 | 1;
  /** Exchanges judged. */
  judged: number;
}

const MAX_EVIDENCE = 3;
const isMust = (requirement: RequirementId) => requirementById(requirement)?.level === 'must';

/** FNV-1a of a business id: the partition it belongs to (stable across machines and runs). */
export function partitionOf(businessId: string | undefined, count: number): number {
  let hash = 0x811c9dc5;
  const text = businessId ?? '';
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash % count;
}

/** A streaming judge: `see` every exchange in time order, then `finish` once. */
export interface StreamJudge {
  see(ex: TrafficExchange): void;
  finish(inputNotes?: readonly string[]): { digest: Digest; secrets: SecretSet };
}

export function createJudge(options: Omit<JudgeOptions, 'inputNotes' | 'startedAt'>): StreamJudge {
  const secrets = new SecretSet(options.env.secrets);
  const ctx: JudgeContext = {
    fixtures: options.env.fixtures,
    params: options.env.params,
    secrets,
    audience: options.env.audience,
    ...(options.env.limitedClientId ? { limitedApp: appIdFor(options.env.limitedClientId) } : {}),
  };
  const verdicts = new Verdicts(TRAFFIC_CHECKS, isMust);
  const partition = options.partition;
  const owns = (o: Observed) => !partition || partitionOf(o.op?.params.businessId, partition.count) === partition.index;
  verdicts.owns = owns;
  const clock = new ServerClock();
  // Learns after the rules have judged an exchange: an answer is judged against the owners shown before it.
  const owners = new Ownership(ctx.fixtures);
  const own: Reducer[] = [];
  const spanning: Reducer[] = [clock];
  for (const rule of RULES) (SPANNING.has(rule) ? spanning : own).push(rule.start(verdicts, ctx, clock, owners));
  spanning.push(client.start(verdicts, ctx));
  const all = [...own, ...spanning];
  const facts = { judged: 0, calls: 0, pacing: 0, origins: new Map<string, number>(), read: 0 };
  return {
    see(ex) {
      facts.read += 1;
      addSecretsOf(secrets, ex);
      // The other tenant's answers are not judged, but they show which business owns what.
      if (fromOtherTenant(ex)) {
        verdicts.at = ex.index;
        owners.see(observe(ex));
        return;
      }
      const o = observe(ex);
      const mine = owns(o);
      verdicts.at = ex.index;
      verdicts.current = mine;
      for (const rule of spanning) rule.see(o);
      if (mine) for (const rule of own) rule.see(o);
      owners.see(o);
      if (!mine) return;
      facts.judged += 1;
      if (o.op) {
        facts.calls += 1;
        if (o.pacing) facts.pacing += 1;
        if (!facts.origins.has(o.op.origin)) facts.origins.set(o.op.origin, ex.index);
      }
    },
    finish(inputNotes = []) {
      verdicts.at = AT_END;
      verdicts.current = true;
      for (const rule of all) rule.finish?.();
      const clean = (text: string) => redactText(text, secrets);
      const digest: Digest = {
        checks: [...verdicts.tallies.values()].map((t) => checkDigest(t, secrets)),
        client: [...verdicts.client.values()]
          .sort((a, b) => a.first.at - b.first.at)
          .map(({ first, count, sample }): ClientDigest => {
            const ex = first.exchanges.at(-1)!.ex;
            const path = parseUrl(ex.request.url);
            return {
              id: first.id,
              requirement: first.requirement,
              text: clean(first.text),
              at: first.at,
              count,
              where: clean(`${ex.request.method} ${path ? new URL(ex.request.url).pathname : ''} (${ex.source})`),
              sample: sample.map((f) => ({ requirement: f.requirement, text: clean(f.text), source: f.source })),
            };
          }),
        facts: { judged: facts.judged, calls: facts.calls, pacing: facts.pacing, origins: [...facts.origins], read: facts.read },
        forgotten: all.flatMap((r) => r.forgotten?.() ?? []).filter((f) => f.count > 0),
        inputNotes: inputNotes.map(clean),
      };
      return { digest, secrets };
    },
  };
}

function violationDigest(x: Violation, secrets: SecretSet): ViolationDigest {
  const clean = (text: string) => redactText(text, secrets);
  const evidence = [];
  const seen = new Set<number>();
  for (const o of x.exchanges) {
    if (seen.has(o.ex.index) || seen.size >= MAX_EVIDENCE) continue;
    seen.add(o.ex.index);
    evidence.push(toEvidence(o.ex, secrets));
  }
  return { requirement: x.requirement, expected: clean(x.expected), actual: clean(x.actual), at: x.at, source: x.source, evidence };
}

function checkDigest(t: CheckTally, secrets: SecretSet): CheckDigest {
  const clean = (text: string) => redactText(text, secrets);
  const byAt = (a: [string, number], b: [string, number]) => a[1] - b[1];
  return {
    id: t.def.id,
    observed: t.observed,
    violations: t.violations,
    byRequirement: [...t.byRequirement].map(([r, { count, at }]) => [r, count, at] as [RequirementId, number, number]).sort((a, b) => a[2] - b[2]),
    ...(t.first ? { first: violationDigest(t.first, secrets) } : {}),
    ...(t.firstMust ? { firstMust: violationDigest(t.firstMust, secrets) } : {}),
    sample: t.sample.map((x) => ({ requirement: x.requirement, expected: clean(x.expected), actual: clean(x.actual), source: x.source, at: x.at })),
    notes: [...t.notes].map(([text, at]) => [clean(text), at] as [string, number]).sort(byAt),
    advisories: [...t.advisories].map(([text, at]) => [clean(text), at] as [string, number]).sort(byAt),
    readings: [...t.readings].sort(byAt),
    unlisted: t.unlisted,
  };
}

function collected(def: CheckDef, c: CheckDigest): CollectedCheck {
  const check: CollectedCheck = {
    topic: def.topic,
    checkId: def.id,
    title: def.title,
    requirements: [...def.requirements],
    status: 'pass',
    durationMs: 0,
    notes: c.notes.map(([text]) => text),
    advisories: c.advisories.map(([text]) => text),
    evidence: [],
  };
  // Readings as a run's checks record them: the report's Readings lines come from the catalogue.
  const readings = (c.readings ?? []).map(([key]) => key.split(' ')).map(([point, choice]) => ({ point: point!, choice: choice! }));
  if (readings.length > 0) check.readings = readings;
  if (c.unlisted > 0) check.notes.push(`${c.unlisted} more distinct notes or advisories of this check were counted, not listed (at most ${TEXT_LIMIT} each)`);
  if (c.observed === 0) {
    return { ...check, status: 'skip', skipKind: 'not-observable', skipReason: `${NOT_OBSERVABLE}: no exchange it applies to was recorded` };
  }
  const first = c.firstMust ?? c.first;
  if (!first) {
    check.notes.push(`held on ${c.observed} judged exchange${c.observed === 1 ? '' : 's'} or groups`);
    return check;
  }
  const section = requirementById(first.requirement)?.section ?? '?';
  const tally = c.byRequirement.map(([id, n]) => `${id} ${n}`).join(', ');
  check.status = c.firstMust ? 'fail' : 'warn';
  check.failure = {
    requirement: first.requirement,
    section,
    expected: first.expected,
    actual: first.actual,
    message: `${first.requirement} (section ${section}): expected ${first.expected}; got ${first.actual} (${first.source}; ${c.violations} of ${c.observed} judged broke a rule: ${tally})`,
  };
  check.evidence.push(...first.evidence);
  return check;
}

function toolInfo(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

/**
 * The checker's own requests as another business's application (the authorization matrix's other
 * tenant, marked by a header) are answered from that business's side: the rules here judge the
 * configured business's, so they are left out (their credentials are still collected to redact,
 * and their answers still show which business owns what: ownership.ts).
 */
function fromOtherTenant(ex: TrafficExchange): boolean {
  // Header names are lower-cased as exchanges are read (model.ts).
  return ex.request.headers['x-conformance-caller'] === 'other-tenant';
}

/** The run result of a digest (one pass's, or partitions' merged); `secrets` redact what is left to redact. */
export function judgementOf(digest: Digest, secrets: SecretSet, startedAt = new Date()): Judgement {
  const defs = new Map(TRAFFIC_CHECKS.map((d) => [d.id, d]));
  const clean = (text: string) => redactText(text, secrets);
  const checks = digest.checks.map((c) => collected(defs.get(c.id)!, c));
  const { facts } = digest;
  // Facts of the whole input, on the first schema check (every API answer passes through one).
  const schemaCheck = checks.find((c) => c.checkId === schemas.SCHEMA_CHECK_IDS[0]);
  if (schemaCheck) {
    schemaCheck.notes.push(`${facts.calls} of ${facts.judged} recorded exchanges are calls of documented operations`);
    if (facts.pacing > 0) schemaCheck.notes.push(`${facts.pacing} answers were 429 or 503 (the host's pacing or a brief outage): not judged as violations`);
    for (const note of digest.inputNotes) schemaCheck.notes.push(clean(note));
  }
  // State a rule let go at its bound: counted, never a silent loss.
  for (const f of digest.forgotten) {
    const check = checks.find((c) => c.checkId === f.check) ?? schemaCheck;
    check?.notes.push(`${f.count} ${f.what} let go at the bound of ${f.limit} kept at once: exchanges about them later were judged without them`);
  }
  const topics = TOPICS.filter((topic: Topic) => checks.some((c) => c.topic === topic));
  const result = buildRunResult(
    {
      tool: toolInfo(),
      contract: { version: contractVersion, sha256: contractSha256 },
      target: { baseUrl: facts.origins.map(([origin]) => origin).join(', ') || 'recorded traffic', embedded: false },
      profile: 'full',
      seed: 0,
      runs: 0,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      topics,
    },
    checks,
  );
  // The client's side: its own entries, named client/..., apart from the server's checks.
  for (const f of digest.client) {
    const text = `client side (${f.requirement}): ${f.text}; ${f.count} time${f.count === 1 ? '' : 's'}, first ${f.where}`;
    result.advisories.push({ check: f.id, text: clean(text) });
  }
  const findings: Finding[] = digest.checks.flatMap((c) =>
    c.sample.map((x) => ({ check: c.id, status: isMust(x.requirement) ? ('fail' as const) : ('warn' as const), requirement: x.requirement, expected: x.expected, actual: x.actual, source: x.source })),
  );
  const client = digest.client.flatMap((c) => c.sample.map((s) => ({ id: c.id, ...s })));
  return { result, findings, sawApi: facts.calls > 0, secrets, client, exitCode: result.verdict === 'fail' ? 1 : 0, judged: facts.judged };
}

/** Judges recorded exchanges (in time order) and builds the run result. */
export function judgeTraffic(exchanges: Iterable<TrafficExchange>, options: JudgeOptions): Judgement {
  const judge = createJudge(options);
  for (const ex of exchanges) judge.see(ex);
  const { digest, secrets } = judge.finish(options.inputNotes);
  return judgementOf(digest, secrets, options.startedAt);
}

/** Judges a stream of exchanges in batches (a file of any size): the digest and the credentials seen. */
export async function judgeStream(batches: AsyncIterable<TrafficExchange[]>, options: Omit<JudgeOptions, 'inputNotes' | 'startedAt'>, inputNotes: () => readonly string[]): Promise<{ digest: Digest; secrets: SecretSet }> {
  const judge = createJudge(options);
  for await (const batch of batches) for (const ex of batch) judge.see(ex);
  return judge.finish(inputNotes());
}
