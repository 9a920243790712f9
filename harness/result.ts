// The one typed result of a run, built from the collected checks and the requirements catalogue.
// Every report (JSON, Markdown, HTML, JUnit) renders this object and nothing else.
import * as catalogue from '../spec/requirements.ts';
import { readingOf, type ReadingTaken } from '../spec/readings.ts';
import type { Level, Requirement, Testability } from '../spec/requirements.ts';
import { HarnessError } from './errors.ts';
import type { CheckMeta, CheckStatus, Exchange, MatrixCell, Profile, SkipKind, Topic } from '../core/model.ts';
import type { GatingReport } from './gating-model.ts';

/** One check as the reporter (harness/reporter.ts) collected it from vitest's task meta. */
export interface CollectedCheck extends CheckMeta {
  title: string;
  status: CheckStatus;
  durationMs: number;
  /** Why the harness could not run the check (status `error`); a message, never a stack. */
  errorMessage?: string;
}

export type Verdict = 'pass' | 'fail' | 'error';
export type TopicVerdict = 'pass' | 'fail' | 'error' | 'skipped';
/** `warn` is a broken `should`; `error` means the harness could not tell. */
export type RequirementStatus = 'pass' | 'fail' | 'warn' | 'error' | 'skipped' | 'untested';

export interface RunInfo {
  tool: { name: string; version: string };
  contract: { version: string; sha256: string };
  target: ReportTarget;
  profile: Profile;
  seed: number;
  runs: number;
  startedAt: string;
  finishedAt: string;
  /** Topics selected for the run, in report order. */
  topics: Topic[];
  /** vitest `--shard` value (`1/3`), or the shards a merged result was made of (`1/3,2/3`). */
  shard?: string;
  /** Problems that stopped part of the run (module failed to load, unhandled error, ...). */
  harnessErrors?: HarnessErrorEntry[];
}

export interface ReportTarget {
  baseUrl: string;
  embedded: boolean;
  /** Named defects the embedded reference ran with (replay starts it with the same). */
  defects?: string[];
}

export interface HarnessErrorEntry {
  code: string;
  message: string;
}

export interface Summary {
  total: number;
  passed: number;
  failed: number;
  warned: number;
  skipped: number;
  errored: number;
}

export interface CheckResult {
  id: string;
  title: string;
  requirements: string[];
  status: CheckStatus;
  /** Skip reason, failure message or harness error message; null on a pass. */
  reason: string | null;
  /** On a skip only: `precondition` (the run lacked something it can be given) or `not-observable`. */
  skipKind?: SkipKind;
  durationMs: number;
  failure?: CheckMeta['failure'];
  notes: string[];
  advisories: string[];
  /** Readings of the catalogue (spec/readings.ts) the check met, with the case each was met on. */
  readings?: ReadingTaken[];
  evidence: Exchange[];
  seed?: number;
  counterexample?: string;
  /** Requests the check sent (token requests included), when budgets were enforced. */
  requestsSent?: number;
}

/** One reading the target took: a point of the catalogue and the answer it gave there. */
export interface ReadingLine {
  point: string;
  title: string;
  /** The requirement the point reads, and its section of the document. */
  requirement: string;
  section: string;
  choice: string;
  answer: string;
  /** `warning` when a client written from the document breaks on this answer (`breaks` says how). */
  grade: 'reading' | 'warning';
  breaks?: string;
  /** The checks that met it. */
  checks: string[];
}

export interface TopicResult {
  id: Topic;
  verdict: TopicVerdict;
  summary: Summary;
  checks: CheckResult[];
}

export interface RequirementResult {
  id: string;
  section: string;
  text: string;
  level: Level;
  testability: Testability;
  topic: Topic;
  status: RequirementStatus;
  /** Ids of the checks that cite it. */
  checks: string[];
  /** The position taken where the document is silent, when a check relied on it. */
  assumption?: string;
}

/** Coverage of one requirement level (must / should / note). */
export type TierCoverage = Record<RequirementStatus, number> & { total: number };

export interface SectionCoverage {
  /** Section number of the document ("4.1"). */
  section: string;
  title?: string;
  counts: TierCoverage;
  requirements: string[];
}

/**
 * The authorization matrix of the run (the concealment topic's `matrix-*` checks): operations
 * down, caller × object across, each cell with the check that judged it.
 */
export interface AuthorizationMatrix {
  operations: string[];
  columns: Array<{ caller: string; object: string }>;
  cells: Array<MatrixCell & { check: string }>;
}

/** The matrix of the checks' cells, or undefined when no check recorded any. */
export function authorizationMatrixOf(checks: CollectedCheck[]): AuthorizationMatrix | undefined {
  const cells = checks.flatMap((c) => (c.matrix ?? []).map((cell) => ({ check: c.checkId, ...cell })));
  if (cells.length === 0) return undefined;
  const operations = [...new Set(cells.map((c) => c.operation))];
  // Objects in the order of the caller's widest row (the one naming a resource), then any others.
  const widest = (caller: string) => {
    const rows = operations.map((op) => cells.filter((c) => c.caller === caller && c.operation === op));
    return rows.reduce((a, b) => (b.length > a.length ? b : a), []);
  };
  const columns: AuthorizationMatrix['columns'] = [];
  for (const c of [...new Set(cells.map((x) => x.caller))].flatMap((caller) => [...widest(caller), ...cells.filter((x) => x.caller === caller)])) {
    if (!columns.some((k) => k.caller === c.caller && k.object === c.object)) columns.push({ caller: c.caller, object: c.object });
  }
  return { operations, columns, cells };
}

/** What the run was (RunInfo) and what it found. */
export interface RunResult extends Omit<RunInfo, 'harnessErrors' | 'topics'> {
  durationMs: number;
  verdict: Verdict;
  summary: Summary;
  topics: TopicResult[];
  requirements: RequirementResult[];
  /** Requirement coverage per level. */
  tiers: Record<Level, TierCoverage>;
  /** Requirement coverage per section of the document. */
  sections: SectionCoverage[];
  /** Readings the target chose and other reportable facts, per check. */
  notes: Array<{ check: string; text: string }>;
  /** Findings beyond the document: reported, never failing. */
  advisories: Array<{ check: string; text: string }>;
  /** The readings this target took, one per reading point and answer (spec/readings.ts). */
  readings: ReadingLine[];
  /** Assumptions of the catalogue that executed checks relied on. */
  assumptions: Array<{ requirement: string; text: string }>;
  harnessErrors: HarnessErrorEntry[];
  /** The authorization matrix, when its checks ran. */
  authorizationMatrix?: AuthorizationMatrix;
  /** Verdict tiers, baseline comparison and certification (harness/gating), when applied. */
  gating?: GatingReport;
}

const REQUIREMENT_STATUSES: RequirementStatus[] = ['pass', 'fail', 'warn', 'error', 'skipped', 'untested'];
const LEVELS: Level[] = ['must', 'should', 'note'];

/**
 * Which outcome of the checks citing a requirement decides its status. A broken rule wins; an
 * error outranks a pass because the requirement was then not fully verified (a false pass is the
 * worst outcome); a skip only shows when nothing ran.
 */
const PRECEDENCE: RequirementStatus[] = ['fail', 'warn', 'error', 'pass', 'skipped', 'untested'];

export function emptySummary(): Summary {
  return { total: 0, passed: 0, failed: 0, warned: 0, skipped: 0, errored: 0 };
}

function countInto(summary: Summary, status: CheckStatus): void {
  summary.total += 1;
  if (status === 'pass') summary.passed += 1;
  else if (status === 'fail') summary.failed += 1;
  else if (status === 'warn') summary.warned += 1;
  else if (status === 'skip') summary.skipped += 1;
  else summary.errored += 1;
}

function emptyCoverage(): TierCoverage {
  return { pass: 0, fail: 0, warn: 0, error: 0, skipped: 0, untested: 0, total: 0 };
}

export function topicVerdict(summary: Summary): TopicVerdict {
  if (summary.failed > 0) return 'fail';
  if (summary.errored > 0) return 'error';
  if (summary.skipped === summary.total) return 'skipped';
  return 'pass';
}

function runVerdict(summary: Summary, harnessErrors: HarnessErrorEntry[]): Verdict {
  if (summary.failed > 0) return 'fail';
  if (summary.errored > 0 || harnessErrors.length > 0) return 'error';
  return 'pass';
}

function reasonOf(check: CollectedCheck): string | null {
  switch (check.status) {
    case 'pass':
      return null;
    case 'skip':
      return check.skipReason ?? 'skipped without a stated reason';
    case 'fail':
    case 'warn':
      return check.failure?.message ?? check.errorMessage ?? 'failed';
    case 'error':
      return check.errorMessage ?? 'the check could not run';
  }
}

function toCheckResult(check: CollectedCheck): CheckResult {
  const out: CheckResult = {
    id: check.checkId,
    title: check.title,
    requirements: [...check.requirements],
    status: check.status,
    reason: reasonOf(check),
    ...(check.status === 'skip' ? { skipKind: check.skipKind ?? 'precondition' } : {}),
    durationMs: Math.round(check.durationMs),
    notes: [...check.notes],
    advisories: [...check.advisories],
    evidence: [...check.evidence],
  };
  if (check.readings && check.readings.length > 0) out.readings = check.readings.map((r) => ({ ...r }));
  if (check.failure) out.failure = { ...check.failure };
  if (check.seed !== undefined) out.seed = check.seed;
  if (check.counterexample !== undefined) out.counterexample = check.counterexample;
  if (check.requestsSent !== undefined) out.requestsSent = check.requestsSent;
  return out;
}

/** What one check says about one requirement it cites. */
function contribution(check: CollectedCheck, requirementId: string): RequirementStatus | undefined {
  switch (check.status) {
    case 'pass':
      return 'pass';
    case 'skip':
      return 'skipped';
    case 'error':
      return 'error';
    case 'fail':
    case 'warn':
      // The check stopped at the requirement it names; the others it cites were not decided.
      if (!check.failure || check.failure.requirement === requirementId) return check.status;
      return undefined;
  }
}

function strongest(statuses: RequirementStatus[]): RequirementStatus {
  for (const status of PRECEDENCE) if (statuses.includes(status)) return status;
  return 'untested';
}

function sectionKey(section: string): string {
  // Coverage groups by the document's numbered sections ("4.1 rule 3" -> "4.1").
  const match = /^\d+(?:\.\d+)?/.exec(section.trim());
  return match ? match[0] : section.trim() || '?';
}

function compareSections(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? -1;
    const y = pb[i] ?? -1;
    if (Number.isNaN(x) || Number.isNaN(y)) return a.localeCompare(b);
    if (x !== y) return x - y;
  }
  return 0;
}

/** Section titles, if the catalogue module exports them (as a list or a record). */
function sectionTitles(): Map<string, string> {
  const titles = new Map<string, string>();
  const raw = (catalogue as Record<string, unknown>)['sections'];
  if (Array.isArray(raw)) {
    for (const entry of raw) {
      if (!entry || typeof entry !== 'object') continue;
      const e = entry as Record<string, unknown>;
      const id = e['id'] ?? e['section'] ?? e['number'];
      const title = e['title'] ?? e['name'];
      if (id !== undefined && typeof title === 'string') titles.set(String(id), title);
    }
  } else if (raw && typeof raw === 'object') {
    for (const [id, title] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof title === 'string') titles.set(id, title);
    }
  }
  return titles;
}

/** A catalogue requirement, with the id loosened so tests can bring their own catalogue. */
export type CatalogueEntry = Omit<Requirement, 'id'> & { id: string };

export interface BuildOptions {
  /** The catalogue to report coverage of; the project's own by default (tests pass their own). */
  catalogue?: readonly CatalogueEntry[];
  sectionTitles?: Map<string, string>;
}

export function buildRunResult(info: RunInfo, checks: CollectedCheck[], options: BuildOptions = {}): RunResult {
  const reqs: readonly CatalogueEntry[] = options.catalogue ?? catalogue.requirements;
  const titles = options.sectionTitles ?? sectionTitles();

  const topicOrder: Topic[] = [...info.topics];
  for (const check of checks) if (!topicOrder.includes(check.topic)) topicOrder.push(check.topic);

  const summary = emptySummary();
  const topics: TopicResult[] = topicOrder.map((id) => {
    const own = checks.filter((c) => c.topic === id);
    const topicSummary = emptySummary();
    for (const c of own) {
      countInto(topicSummary, c.status);
      countInto(summary, c.status);
    }
    return { id, verdict: topicVerdict(topicSummary), summary: topicSummary, checks: own.map(toCheckResult) };
  });

  const requirementResults: RequirementResult[] = reqs.map((r) => {
    const citing = checks.filter((c) => c.requirements.includes(r.id) || c.failure?.requirement === r.id);
    const status = strongest(
      citing.map((c) => contribution(c, r.id)).filter((s): s is RequirementStatus => s !== undefined),
    );
    const out: RequirementResult = {
      id: r.id,
      section: r.section,
      text: r.text,
      level: r.level,
      testability: r.testability,
      topic: r.topic,
      status,
      checks: citing.map((c) => c.checkId),
    };
    if (r.assumption && citing.some((c) => c.status !== 'skip')) out.assumption = r.assumption;
    return out;
  });

  const tiers = Object.fromEntries(LEVELS.map((l) => [l, emptyCoverage()])) as Record<Level, TierCoverage>;
  const bySection = new Map<string, SectionCoverage>();
  for (const r of requirementResults) {
    const tier = (tiers[r.level] ??= emptyCoverage());
    tier[r.status] += 1;
    tier.total += 1;
    const key = sectionKey(r.section);
    let entry = bySection.get(key);
    if (!entry) {
      entry = { section: key, counts: emptyCoverage(), requirements: [] };
      const title = titles.get(key);
      if (title) entry.title = title;
      bySection.set(key, entry);
    }
    entry.counts[r.status] += 1;
    entry.counts.total += 1;
    entry.requirements.push(r.id);
  }
  const sections = [...bySection.values()].sort((a, b) => compareSections(a.section, b.section));

  const harnessErrors = [...(info.harnessErrors ?? [])];
  const result: RunResult = {
    tool: { ...info.tool },
    contract: { ...info.contract },
    target: {
      baseUrl: info.target.baseUrl,
      embedded: info.target.embedded,
      ...(info.target.defects && info.target.defects.length > 0 ? { defects: [...info.target.defects] } : {}),
    },
    profile: info.profile,
    seed: info.seed,
    runs: info.runs,
    startedAt: info.startedAt,
    finishedAt: info.finishedAt,
    durationMs: Math.max(0, Date.parse(info.finishedAt) - Date.parse(info.startedAt)) || 0,
    verdict: runVerdict(summary, harnessErrors),
    summary,
    topics,
    requirements: requirementResults,
    tiers,
    sections,
    notes: checks.flatMap((c) => c.notes.map((text) => ({ check: c.checkId, text }))),
    advisories: checks.flatMap((c) => c.advisories.map((text) => ({ check: c.checkId, text }))),
    readings: readingLines(checks),
    assumptions: requirementResults
      .filter((r) => r.assumption !== undefined)
      .map((r) => ({ requirement: r.id, text: r.assumption as string })),
    harnessErrors,
  };
  if (info.shard !== undefined) result.shard = info.shard;
  const matrix = authorizationMatrixOf(checks);
  if (matrix) result.authorizationMatrix = matrix;
  return result;
}

/**
 * The readings the checks took, one line per point and answer, in the catalogue's order: what the
 * report's Readings section shows (the cases each was met on stay with the checks).
 */
function readingLines(checks: CollectedCheck[]): ReadingLine[] {
  const lines = new Map<string, ReadingLine>();
  for (const check of checks) {
    for (const taken of check.readings ?? []) {
      const known = readingOf(taken);
      if (!known) continue;
      const key = `${taken.point}\u0000${taken.choice}`;
      const line = lines.get(key);
      if (line) {
        if (!line.checks.includes(check.checkId)) line.checks.push(check.checkId);
        continue;
      }
      const { point, choice } = known;
      lines.set(key, {
        point: taken.point,
        title: point.title,
        requirement: point.requirement,
        section: catalogue.requirementById(point.requirement)?.section ?? '?',
        choice: taken.choice,
        answer: choice.text,
        grade: choice.breaks ? 'warning' : 'reading',
        ...(choice.breaks ? { breaks: choice.breaks } : {}),
        checks: [check.checkId],
      });
    }
  }
  return [...lines.values()].sort((a, b) => compareSections(sectionKey(a.section), sectionKey(b.section)) || a.point.localeCompare(b.point));
}

/** The collected checks a result was built from, so shard results can be merged and rebuilt. */
export function checksOf(result: RunResult): CollectedCheck[] {
  return result.topics.flatMap((topic) =>
    topic.checks.map((c) => {
      const check: CollectedCheck = {
        topic: topic.id,
        checkId: c.id,
        title: c.title,
        requirements: [...c.requirements],
        status: c.status,
        durationMs: c.durationMs,
        notes: [...c.notes],
        advisories: [...c.advisories],
        evidence: [...c.evidence],
      };
      if (c.failure) check.failure = { ...c.failure };
      if (c.readings) check.readings = c.readings.map((r) => ({ ...r }));
      if (c.status === 'skip' && c.reason !== null) check.skipReason = c.reason;
      if (c.status === 'skip') check.skipKind = c.skipKind ?? 'precondition';
      if (c.status === 'error' && c.reason !== null) check.errorMessage = c.reason;
      if (c.seed !== undefined) check.seed = c.seed;
      if (c.counterexample !== undefined) check.counterexample = c.counterexample;
      if (c.requestsSent !== undefined) check.requestsSent = c.requestsSent;
      const cells = (result.authorizationMatrix?.cells ?? []).filter((cell) => cell.check === c.id).map(({ check: _, ...cell }) => cell);
      if (cells.length > 0) check.matrix = cells;
      return check;
    }),
  );
}

/**
 * One result from the results of `vitest --shard` runs. They must check the same contract against
 * the same target with the same seed; a check that appears in several shards is kept once.
 */
export function mergeRunResults(results: RunResult[], options: BuildOptions = {}): RunResult {
  const [first] = results;
  if (!first) throw new HarnessError('CONF_INVALID_VALUE', 'no shard results to merge');
  // Each embedded shard starts its own reference on its own port: the same target all the same.
  const targetOf = (r: RunResult) => (r.target.embedded ? 'the embedded reference' : r.target.baseUrl);
  const fields: Array<[string, (r: RunResult) => unknown, string]> = [
    ['contract', (r) => r.contract.sha256, ''],
    ['target', targetOf, ''],
    ['profile', (r) => r.profile, ''],
    ['seed', (r) => r.seed, ' (give every shard the same --seed)'],
    ['runs', (r) => r.runs, ' (give every shard the same --runs)'],
  ];
  for (const r of results) {
    for (const [name, value, hint] of fields) {
      if (value(r) === value(first)) continue;
      throw new HarnessError(
        'CONF_INVALID_VALUE',
        `shard ${r.shard ?? '?'} and shard ${first.shard ?? '?'} differ in ${name} (${String(value(r))} vs ${String(value(first))})${hint}; they cannot be merged`,
      );
    }
  }
  const seen = new Set<string>();
  const checks: CollectedCheck[] = [];
  for (const r of results) {
    for (const c of checksOf(r)) {
      if (seen.has(c.checkId)) continue;
      seen.add(c.checkId);
      checks.push(c);
    }
  }
  const topics: Topic[] = [];
  for (const r of results) for (const t of r.topics) if (!topics.includes(t.id)) topics.push(t.id);
  const times = (key: 'startedAt' | 'finishedAt') => results.map((r) => r[key]).sort();
  const shards = results.map((r) => r.shard).filter((s): s is string => s !== undefined);
  const info: RunInfo = {
    tool: first.tool,
    contract: first.contract,
    target: first.target,
    profile: first.profile,
    seed: first.seed,
    runs: first.runs,
    startedAt: times('startedAt')[0] as string,
    finishedAt: times('finishedAt').at(-1) as string,
    topics,
    harnessErrors: results.flatMap((r) => r.harnessErrors),
  };
  if (shards.length > 0) info.shard = shards.join(',');
  return buildRunResult(info, checks, options);
}

export { REQUIREMENT_STATUSES, LEVELS };
