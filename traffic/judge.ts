// The traffic judge: every rule module over the observed exchanges, then one RunResult that the
// run's report writers render unchanged. A rule no exchange showed is a skip ("not observable in
// this traffic"), never a pass.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOPICS, type Topic } from '../core/model.ts';
import { contractSha256, contractVersion } from '../spec/contract.ts';
import { requirementById } from '../spec/requirements.ts';
import { PACKAGE_ROOT } from '../harness/package.ts';
import { redactText, type SecretSet } from '../harness/redact.ts';
import { buildRunResult, type CollectedCheck, type RunResult } from '../harness/result.ts';
import { appIdFor, observe, type JudgeContext, type Observed } from './context.ts';
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
import * as messages from './rules/messages.ts';
import * as problems from './rules/problems.ts';
import * as recipientLimits from './rules/recipient-limits.ts';
import * as requestId from './rules/request-id.ts';
import * as requestValidity from './rules/request-validity.ts';
import * as schemas from './rules/schemas.ts';
import * as wallet from './rules/wallet.ts';
import { collectSecrets } from './secrets.ts';
import { Verdicts, type CheckDef, type CheckTally, type ClientFinding } from './verdicts.ts';

interface RuleModule {
  checks: CheckDef[];
  judge(traffic: readonly Observed[], v: Verdicts, ctx: JudgeContext): void;
}

const RULES: RuleModule[] = [auth, concealment, idempotency, recipientLimits, cursors, bulks, wallet, messages, requestId, problems, requestValidity, schemas];

export const TRAFFIC_CHECKS: readonly CheckDef[] = RULES.flatMap((r) => r.checks);

export const NOT_OBSERVABLE = 'not observable in this traffic';

export interface JudgeOptions {
  env: TrafficEnv;
  /** Facts about the input (entries not judged), reported as notes. */
  inputNotes?: string[];
  startedAt?: Date;
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

export interface Judgement {
  result: RunResult;
  findings: Finding[];
  /** Whether any exchange called a documented operation (else there was nothing to judge). */
  sawApi: boolean;
  secrets: SecretSet;
  client: ClientFinding[];
  exitCode: 0 | 1;
}

const MAX_EVIDENCE = 3;

function collected(t: CheckTally, secrets: SecretSet): CollectedCheck {
  const clean = (text: string) => redactText(text, secrets);
  const check: CollectedCheck = {
    topic: t.def.topic,
    checkId: t.def.id,
    title: t.def.title,
    requirements: [...t.def.requirements],
    status: 'pass',
    durationMs: 0,
    notes: [...t.notes].map(clean),
    advisories: [...t.advisories].map(clean),
    evidence: [],
  };
  if (t.observed === 0) {
    return { ...check, status: 'skip', skipKind: 'not-observable', skipReason: `${NOT_OBSERVABLE}: no exchange it applies to was recorded` };
  }
  const must = t.violations.find((x) => requirementById(x.requirement)?.level === 'must');
  const first = must ?? t.violations[0];
  if (!first) {
    check.notes.push(`held on ${t.observed} judged exchange${t.observed === 1 ? '' : 's'} or groups`);
    return check;
  }
  const requirement = requirementById(first.requirement);
  const section = requirement?.section ?? '?';
  const counts = new Map<string, number>();
  for (const x of t.violations) counts.set(x.requirement, (counts.get(x.requirement) ?? 0) + 1);
  const tally = [...counts].map(([id, n]) => `${id} ${n}`).join(', ');
  const where = first.exchanges.at(-1)!.ex.source;
  check.status = must ? 'fail' : 'warn';
  check.failure = {
    requirement: first.requirement,
    section,
    expected: clean(first.expected),
    actual: clean(first.actual),
    message: clean(`${first.requirement} (section ${section}): expected ${first.expected}; got ${first.actual} (${where}; ${t.violations.length} of ${t.observed} judged broke a rule: ${tally})`),
  };
  const seen = new Set<number>();
  for (const o of first.exchanges) {
    if (seen.has(o.ex.index) || seen.size >= MAX_EVIDENCE) continue;
    seen.add(o.ex.index);
    check.evidence.push(toEvidence(o.ex, secrets));
  }
  return check;
}

function toolInfo(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

function fromOtherTenant(ex: TrafficExchange): boolean {
  return Object.entries(ex.request.headers).some(([name, value]) => name.toLowerCase() === 'x-conformance-caller' && value === 'other-tenant');
}

/** Judges recorded exchanges (in time order) and builds the run result. */
export function judgeTraffic(exchanges: readonly TrafficExchange[], options: JudgeOptions): Judgement {
  const startedAt = options.startedAt ?? new Date();
  const secrets = collectSecrets(exchanges, options.env.secrets);
  // The checker's own requests as another business's application (the authorization matrix's other
  // tenant, marked by a header) are answered from that business's side: the rules here judge the
  // configured business's, so they are left out.
  const traffic = exchanges.filter((ex) => !fromOtherTenant(ex)).map(observe);
  const ctx: JudgeContext = {
    fixtures: options.env.fixtures,
    params: options.env.params,
    secrets,
    audience: options.env.audience,
    ...(options.env.limitedClientId ? { limitedApp: appIdFor(options.env.limitedClientId) } : {}),
  };
  const verdicts = new Verdicts(TRAFFIC_CHECKS);
  for (const rule of RULES) rule.judge(traffic, verdicts, ctx);
  client.judge(traffic, verdicts, ctx);

  const checks = [...verdicts.tallies.values()].map((t) => collected(t, secrets));
  const pacing = traffic.filter((o) => o.op && o.pacing).length;
  // Facts of the whole input, on the first schema check (every API answer passes through one).
  const schemaCheck = checks.find((c) => c.checkId === schemas.SCHEMA_CHECK_IDS[0]);
  if (schemaCheck) {
    schemaCheck.notes.push(`${traffic.filter((o) => o.op).length} of ${traffic.length} recorded exchanges are calls of documented operations`);
    if (pacing > 0) schemaCheck.notes.push(`${pacing} answers were 429 or 503 (the host's pacing or a brief outage): not judged as violations`);
    for (const note of options.inputNotes ?? []) schemaCheck.notes.push(redactText(note, secrets));
  }
  const topics = TOPICS.filter((topic: Topic) => checks.some((c) => c.topic === topic));
  const origins = [...new Set(traffic.filter((o) => o.op).map((o) => parseUrl(o.ex.request.url)!.origin))];
  const result = buildRunResult(
    {
      tool: toolInfo(),
      contract: { version: contractVersion, sha256: contractSha256 },
      target: { baseUrl: origins.join(', ') || 'recorded traffic', embedded: false },
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
  const byKind = new Map<string, ClientFinding[]>();
  for (const f of verdicts.client) byKind.set(f.id, [...(byKind.get(f.id) ?? []), f]);
  for (const [id, findings] of byKind) {
    const f = findings[0]!;
    const ex = f.exchanges.at(-1)!.ex;
    const path = parseUrl(ex.request.url);
    const text = `client side (${f.requirement}): ${f.text}; ${findings.length} time${findings.length === 1 ? '' : 's'}, first ${ex.request.method} ${path ? new URL(ex.request.url).pathname : ''} (${ex.source})`;
    result.advisories.push({ check: id, text: redactText(text, secrets) });
  }
  const findings: Finding[] = [...verdicts.tallies.values()].flatMap((t) =>
    t.violations.map((x) => ({
      check: t.def.id,
      status: requirementById(x.requirement)?.level === 'must' ? ('fail' as const) : ('warn' as const),
      requirement: x.requirement,
      expected: x.expected,
      actual: x.actual,
      source: x.exchanges.at(-1)!.ex.source,
    })),
  );
  return { result, findings, sawApi: traffic.some((o) => o.op !== undefined), secrets, client: verdicts.client, exitCode: result.verdict === 'fail' ? 1 : 0 };
}
