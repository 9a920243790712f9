// The mutation matrix: proves the checker's verdicts. For every named defect of the reference it
// runs `conformance run` against the embedded reference with that defect switched on and requires
// verdict fail, the defect's topic failed, and a failed check citing the requirement the defect
// breaks. Against the faithful reference it requires verdict pass on the whole run, under several
// seeds, and the same status for every check under every seed (no flaky verdicts).
//
//   npm run matrix (scripts/matrix-command.ts) [-- --seeds 11,22,33 --concurrency 2 --json out.json --keep-runs]
//
// Runs go through the same path users take: `loadConfig(flags)` then `runConformance(config)`,
// in-process in two long-lived worker processes (fast: no process start per run), and one defect
// through the CLI as a child process (`node bin/conformance.mjs run ...`) to prove that path too.
import { fork, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import type { Topic } from '../core/model.ts';
import { TOPICS } from '../core/model.ts';
import type { RunResult } from '../harness/result.ts';
import { requirementById } from '../spec/requirements.ts';
import type { Defect, DefectId } from '../reference/defects.ts';
import { DEFECTS } from '../reference/defects.ts';
import { readCatchers, type Catchers } from './catchers.ts';
import { startServedHost, type ServedHost } from './served-host.ts';
import { assertionSites, type Site } from './sites.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

/** Seeds of the faithful whole runs: three for the verdict, five so flakiness shows. */
export const DEFAULT_FAITHFUL_SEEDS = [1101, 2202, 3303, 4404, 5505];
/** Faithful host runs of a matrix: fresh random seeds each time. */
export const DEFAULT_HOST_SEEDS = 5;
/** Faithful host runs behind a rate limit (requests per second). */
export const DEFAULT_RATE_LIMITS = [5];
/** Seed of every defect run (fixed, so a miss replays with the same seed). */
export const DEFECT_SEED = 4242;
/** A run that takes longer than this is stopped and counted as an error. */
const JOB_TIMEOUT_MS = 240_000;
/** A worker is replaced after this many runs, so nothing one run leaves behind piles up. */
const RUNS_PER_WORKER = 20;

/**
 * problem-details and schemas judge the exchanges of the whole run (harness/runner.ts runs them
 * last), so a defect of theirs shows in the responses other topics provoke. Each such defect runs
 * with the topics whose requests meet the broken response; a defect not listed here gets the
 * whole run, which exposes whatever the checker can see, only slower.
 */
const WHOLE_RUN_TOPICS: Topic[] = ['problem-details', 'schemas'];
const EXPOSED_BY: Partial<Record<DefectId, Topic[]>> = {
  // 401 and 403 problems of the authorization checks.
  'problem-media-type-json': ['auth-ordering'],
  'problem-missing-detail': ['auth-ordering'],
  // The 409 idempotency_conflict.
  'problem-type-wrong-base-one-code': ['idempotency'],
  // The 422 recipient_limit_exceeded.
  'problem-status-mismatch': ['recipient-limits'],
  // 400 validation_failed for bad fields.
  'validation-errors-missing': ['validation'],
  // A 429 only appears when the reference's rate-limit fault is on, which problem-details' own
  // sweep switches on; no other topic provokes one.
  'rate-limit-without-retry-after': [],
  // The forced 429's Retry-After, read against the clock moved on (the same sweep).
  'blind9-retry-after-milliseconds': [],
  // problem-details' own sweep provokes them: a 404 for a random message id, several 400
  // validation_failed with different details, a 401, and the 500 it forces with the
  // internal-error fault.
  'not-found-code-unknown': [],
  'problem-title-is-detail': [],
  'problem-instance-missing': [],
  'internal-error-stack-in-detail': [],
  'internal-error-as-service-unavailable': [],
  // Blind-written, moved (issue 29): every 401 of the authorization checks shows them.
  'blind-problem-type-hyphenated': ['auth-ordering'],
  'blind-401-detail-echoes-token': ['auth-ordering'],
  // Timestamps of the wallet balance and the individual message.
  'timestamps-plus-offset': ['wallet', 'messages'],
  // Bulk SMS bodies: accepted, retrieved, and new bulk ids.
  'bulk-response-extra-property': ['bulk-invariants'],
  'ids-not-uuidv7': ['idempotency', 'bulk-invariants'],
  // schemas asks for /sms/batches itself; no other topic goes near it.
  'batches-path-alias': [],
  // schemas' own sweep submits a bulk and reads it back, and GETs the wallet, bulk, rows and message.
  'classification-upper-case': [],
  'success-media-type-text-plain': [],
};

/**
 * Other topics whose setup asserts the defect's rule (a bulk accepted with 202 before a cursor walk
 * or a replay): the defect's run includes them, so those assertion sites are proven too.
 */
const ALSO_RUN: Partial<Record<DefectId, Topic[]>> = {
  'bulk-accepted-201': ['idempotency', 'cursors'],
  // The replays request-id judges are idempotency's (request-id sends no submission of its own).
  'blind-replay-stale-request-id': ['idempotency'],
  'blind-replay-without-request-id': ['idempotency'],
  // The 202s request-id judges are idempotency's too.
  'blind-request-id-regenerated-on-202': ['idempotency'],
  // The 204 of a deactivation is webhooks' (request-id sends none of its own).
  'blind3-request-id-missing-on-204': ['webhooks'],
  // The 409 conflicts request-id and schemas judge are idempotency's.
  'blind7-request-id-missing-on-409': ['idempotency'],
  // auth-ordering's ungranted-vs-unknown-business judges the same two businesses on the wallet.
  'blind7-unknown-business-404': ['auth-ordering'],
};

/** The topics a defect's run selects, in the run's own order. */
export function topicsFor(defect: Defect): Topic[] {
  const id = defect.id as DefectId;
  const companions = ALSO_RUN[id] ?? (WHOLE_RUN_TOPICS.includes(defect.topic) ? EXPOSED_BY[id] : []);
  if (companions === undefined) return [...TOPICS];
  return TOPICS.filter((t) => t === defect.topic || companions.includes(t));
}

/**
 * The `--check` selection of a defect's run in `npm test` (MatrixOptions.catchersOnly): the checks
 * that caught it (scripts/catchers.json), within their own topics. judgeDefect reads only those
 * checks (requirement-exact catches, their assertion sites, a lost catcher), and a must's catchers
 * include a check of its own topic, so the proof is the same as the whole topics', for a third of
 * the time. Whole topics (undefined) when no catcher is recorded. A catcher that judges the
 * exchanges of the whole run (READS_WHOLE_RUN) reads its own sweep then, most often enough (32 of
 * 36 such defects on 2026-11-28, in 0.9 s where all topics take 7 s); one that needed the other
 * topics' traffic misses, and wholeTopicsAgain judges it on whole topics, as any catcher-only miss.
 */
export function catcherSelection(defect: Defect, catchers: Catchers): { topics: Topic[]; checks: string[] } | undefined {
  const checks = [...new Set(catchers[defect.id] ?? [])].sort();
  const topics = new Set(checks.map((id) => id.split('/')[0]));
  if (checks.length === 0) return undefined;
  return { topics: TOPICS.filter((t) => topics.has(t)), checks };
}

// ---------------------------------------------------------------------------------------------
// What one run says, reduced to what the matrix judges (the same for in-process and CLI runs).

export interface CheckDigest {
  id: string;
  status: string;
  requirements: string[];
  /** Requirement named by the failure, when the check failed on a ConformanceFailure. */
  failedRequirement?: string;
  /** The assertion site that failed (suites/support/sites.ts). */
  failedSite?: string;
  reason?: string | null;
  skipKind?: string;
}

export interface TopicDigest {
  id: string;
  verdict: string;
  checks: CheckDigest[];
}

export interface RunDigest {
  exitCode: number;
  verdict: string;
  topics: TopicDigest[];
  harnessErrors: string[];
  durationMs: number;
  /** The run could not be made or judged (crash, timeout, no report). */
  error?: string;
  /** `conformance check` on the run's own exchanges.jsonl (defect runs only). */
  traffic?: TrafficDigest;
  /** The later run against the same host (HostSetting.again). */
  later?: RunDigest;
  /** Behind a rate limit (HostSetting.rateLimit): the 429 and 503 answers the run met and waited out. */
  pacedAnswers?: number;
}

/** What the traffic judge made of a run's recorded exchanges, by requirement. */
export interface TrafficDigest {
  /** Requirements some finding (fail or warn) names. */
  broken: string[];
  /** Requirements of the traffic checks that judged at least one exchange (not "not observable"). */
  judged: string[];
  /** The judge could not read or judge the log. */
  error?: string;
}

/** `check` on the run's exchanges.jsonl, with the run's env file when it had one (host mode). */
async function judgeRunTraffic(reportDir: string, envFile?: string): Promise<TrafficDigest | undefined> {
  const log = join(reportDir, 'exchanges.jsonl');
  if (!existsSync(log)) return undefined;
  try {
    const { readTraffic } = await import('../traffic/read.ts');
    const { readTrafficEnv } = await import('../traffic/env.ts');
    const { judgeTraffic } = await import('../traffic/judge.ts');
    const input = await readTraffic([log]);
    const { result, findings } = judgeTraffic(input.exchanges, { env: readTrafficEnv(envFile) });
    const judged = result.topics.flatMap((t) => t.checks).filter((c) => c.status !== 'skip').flatMap((c) => c.requirements);
    return { broken: [...new Set(findings.map((f) => f.requirement))], judged: [...new Set(judged)] };
  } catch (error) {
    // The judge failing on the project's own log is its bug: printed, never a silent "not shown".
    return { broken: [], judged: [], error: oneLine(error instanceof Error ? error.message : String(error), 200) };
  }
}

export function digestOf(result: RunResult, exitCode: number, durationMs: number): RunDigest {
  return {
    exitCode,
    verdict: result.verdict,
    durationMs,
    harnessErrors: (result.harnessErrors ?? []).map((e) => `${e.code}: ${e.message}`),
    topics: result.topics.map((t) => ({
      id: t.id,
      verdict: t.verdict,
      checks: t.checks.map((c) => ({
        id: c.id,
        status: c.status,
        requirements: [...c.requirements],
        ...(c.failure?.requirement ? { failedRequirement: c.failure.requirement } : {}),
        ...(c.failure?.site ? { failedSite: c.failure.site } : {}),
        ...(c.status !== 'pass' ? { reason: c.reason } : {}),
        ...(c.skipKind ? { skipKind: c.skipKind } : {}),
      })),
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Jobs and their judgement.

export type Via = 'in-process' | 'cli';

/**
 * Host mode: the reference is started as a host and the run gets nothing but an env file, as a
 * user's run does: no control origin, the host rails on, two allowlisted numbers.
 */
export interface HostSetting {
  /** `serve --rate-limit`: requests per second before 429. */
  rateLimit?: number;
  /** CONFORMANCE_SANDBOX=true in the env file. */
  sandbox: boolean;
  /**
   * Run a second time against the same served host with the same env file, as a user runs a
   * persistent sandbox again: the later run takes the next webhook endpoint the ledger has not seen
   * spent (harness/ledger.ts), and must judge exactly as the first.
   */
  again?: boolean;
}

export interface Job {
  key: string;
  kind: 'defect' | 'faithful';
  defect?: string;
  topics: Topic[];
  seed: number;
  via: Via;
  host?: HostSetting;
  /** `--check`: only these checks of the topics run (catcherSelection); every check when absent. */
  checks?: string[];
  /** `npm run mutate`: the assertion site weakened for this run (suites/support/sites.ts). */
  weaken?: string;
}

export interface DefectOutcome {
  defect: string;
  requirement: string;
  expectedTopic: string;
  topicsRun: string[];
  failedTopics: string[];
  /** Checks that failed (warned, for a should) naming the defect's own requirement. */
  citingChecks: string[];
  /** The assertion sites those failures came from. */
  sites: string[];
  /**
   * Checks that failed on another requirement while citing this one: not a catch of this defect
   * (requirement-exact scoring), printed as "caught by another rule".
   */
  otherRule: string[];
  caught: boolean;
  /**
   * Host mode only: not caught because every check citing the requirement was skipped as not
   * observable on a host (the reasons); such a defect is listed, not missed.
   */
  notShown?: string[];
  /** Why it counts as missed (empty when caught). */
  why: string[];
  /**
   * `conformance check` on the same run's exchange log: caught (a finding names the requirement),
   * shown (a traffic check of the requirement judged some exchange, no finding) or not shown.
   */
  traffic?: 'caught' | 'shown' | 'not shown' | 'judge error';
  via: Via;
  durationMs: number;
  /** The run selected only the checks that caught the defect before (catcherSelection), not whole topics. */
  catchersOnly?: boolean;
  /** The catcher-only run missed; this outcome is that of the defect's whole topics, run after it. */
  againWhole?: boolean;
  /** Host mode, run again against the same host (HostSetting.again): what the later run made of it. */
  laterRun?: 'caught' | 'not shown' | 'missed';
}

export interface FaithfulOutcome {
  seed: number;
  passed: boolean;
  verdict: string;
  exitCode: number;
  why: string[];
  /** checkId -> status, for the flakiness comparison. */
  statuses: Record<string, string>;
  durationMs: number;
  via: Via;
}

/**
 * A defect breaking a `must` is caught when the run fails (exit 1) in the defect's topic with a
 * failed check citing the requirement. One breaking a `should` is caught when a check citing it
 * warns while the run, not strict, still passes (exit 0): that is the verdict such a break earns.
 */
export function judgeDefect(
  defect: Defect,
  topicsRun: string[],
  digest: RunDigest,
  via: Via,
  levelOf: (id: string) => string | undefined = (id) => requirementById(id)?.level,
  /** Host mode, with the checks that caught the defect on the embedded reference when known. */
  host?: { embeddedCatchers?: string[] },
  /** Embedded mode: every check that must catch it (scripts/catchers.json). */
  expectedCatchers?: readonly string[],
): DefectOutcome {
  const should = levelOf(defect.requirement) === 'should';
  const broken = should ? 'warn' : 'fail';
  const failedTopics = digest.topics.filter((t) => t.verdict === 'fail').map((t) => t.id);
  const checks = digest.topics.flatMap((t) => t.checks);
  // Requirement-exact: only a failure that names the defect's own requirement catches it.
  const exact = checks.filter((c) => c.status === broken && c.failedRequirement === defect.requirement);
  const citingChecks = exact.map((c) => c.id);
  const sites = [...new Set(exact.map((c) => c.failedSite).filter((x): x is string => x !== undefined))];
  const otherRule = checks
    .filter((c) => (c.status === 'fail' || c.status === 'warn') && c.failedRequirement !== defect.requirement && c.requirements.includes(defect.requirement))
    .map((c) => `${c.id} (${c.failedRequirement ?? c.status})`);
  const why: string[] = [];
  if (digest.error) why.push(`run error: ${digest.error}`);
  const verdictOk = should ? digest.verdict === 'pass' && digest.exitCode === 0 : digest.verdict === 'fail' && digest.exitCode === 1;
  if (!verdictOk) why.push(`verdict ${digest.verdict}, exit ${digest.exitCode}; expected ${should ? 'pass, exit 0 (a should warns)' : 'fail, exit 1'}`);
  const topicOk = should || failedTopics.includes(defect.topic);
  if (!topicOk) {
    const topic = digest.topics.find((t) => t.id === defect.topic);
    why.push(topic ? `topic ${defect.topic} ${topic.verdict}, expected fail` : `topic ${defect.topic} did not run`);
  }
  if (citingChecks.length === 0) {
    why.push(`no ${should ? 'warned' : 'failed'} check names ${defect.requirement}${otherRule.length > 0 ? `; caught by another rule: ${otherRule.join(', ')}` : ''}`);
  }
  // Each check proves its own verdict: one that caught the defect before and no longer does is a
  // regression even while another check still catches it (what a weakened assertion shows).
  const lostCatchers = (expectedCatchers ?? []).filter((id) => !citingChecks.includes(id));
  if (lostCatchers.length > 0) why.push(`no longer caught by ${lostCatchers.join(', ')} (scripts/catchers.json)`);
  if (digest.harnessErrors.length > 0) why.push(`harness errors: ${digest.harnessErrors.join('; ')}`);
  const caught = !digest.error && verdictOk && topicOk && citingChecks.length > 0 && lostCatchers.length === 0;
  // A defect a host cannot show: the checks that catch it on the embedded reference (else every
  // check citing its requirement) skipped as not observable, or a reason the registry gives.
  const catchers = host?.embeddedCatchers?.length ? host.embeddedCatchers : undefined;
  const citing = checks.filter((c) => (catchers ? catchers.includes(c.id) : c.requirements.includes(defect.requirement)));
  const skipped = citing.length > 0 && citing.every((c) => c.status === 'skip' && c.skipKind === 'not-observable');
  const unobservable = skipped ? [...new Set(citing.map((c) => `${c.id}: ${c.reason ?? ''}`))] : defect.hostCannotShow ? [defect.hostCannotShow] : undefined;
  return {
    defect: defect.id,
    requirement: defect.requirement,
    expectedTopic: defect.topic,
    topicsRun,
    failedTopics,
    citingChecks,
    sites,
    otherRule,
    // Harness errors alone do not hide a catch, but they are reported in `why`.
    caught,
    ...(host && !caught && unobservable && !digest.error ? { notShown: unobservable } : {}),
    why,
    ...(digest.traffic ? { traffic: trafficOutcome(defect.requirement, digest.traffic) } : {}),
    via,
    durationMs: digest.durationMs,
  };
}

function trafficOutcome(requirement: string, traffic: TrafficDigest): DefectOutcome['traffic'] {
  if (traffic.error !== undefined) return 'judge error';
  if (traffic.broken.includes(requirement)) return 'caught';
  return traffic.judged.includes(requirement) ? 'shown' : 'not shown';
}

/** The `check` figure beside the active one: defects its findings name, of those the traffic showed. */
export function trafficLine(defects: DefectOutcome[]): string | undefined {
  const judged = defects.filter((d) => d.traffic !== undefined);
  if (judged.length === 0) return undefined;
  const caught = judged.filter((d) => d.traffic === 'caught').length;
  const shown = caught + judged.filter((d) => d.traffic === 'shown').length;
  const missed = judged.filter((d) => d.traffic === 'shown').map((d) => d.defect);
  const errors = judged.filter((d) => d.traffic === 'judge error').map((d) => d.defect);
  const notShown = judged.length - shown - errors.length;
  return (
    `check on the same runs' exchanges.jsonl: ${caught}/${shown} defects caught of those the traffic shows ` +
    `(${notShown} of ${judged.length} not shown by a recording)${missed.length > 0 ? `; shown, not caught: ${missed.join(', ')}` : ''}` +
    `${errors.length > 0 ? `; JUDGE ERROR on the logs of ${errors.join(', ')}` : ''}`
  );
}

export function judgeFaithful(seed: number, digest: RunDigest, via: Via): FaithfulOutcome {
  const why: string[] = [];
  if (digest.error) why.push(`run error: ${digest.error}`);
  if (digest.verdict !== 'pass') why.push(`verdict ${digest.verdict}, expected pass`);
  if (digest.exitCode !== 0) why.push(`exit code ${digest.exitCode}, expected 0`);
  const ran = new Set(digest.topics.map((t) => t.id));
  const absent = TOPICS.filter((t) => !ran.has(t));
  if (!digest.error && absent.length > 0) why.push(`topics absent from the whole run: ${absent.join(', ')}`);
  for (const topic of digest.topics) {
    for (const check of topic.checks) {
      if (check.status === 'fail' || check.status === 'warn' || check.status === 'error') {
        why.push(`${check.status}: ${check.id}${check.reason ? ` (${oneLine(check.reason, 200)})` : ''}`);
      }
    }
  }
  for (const error of digest.harnessErrors) why.push(`harness error: ${oneLine(error, 200)}`);
  const statuses: Record<string, string> = {};
  for (const topic of digest.topics) for (const check of topic.checks) statuses[check.id] = check.status;
  return {
    seed,
    passed: why.length === 0,
    verdict: digest.verdict,
    exitCode: digest.exitCode,
    why,
    statuses,
    durationMs: digest.durationMs,
    via,
  };
}

/** Checks whose status differs between faithful runs: `checkId: seed=status, ...`. */
export function unstableChecks(runs: FaithfulOutcome[]): string[] {
  const ids = new Set(runs.flatMap((r) => Object.keys(r.statuses)));
  const out: string[] = [];
  for (const id of [...ids].sort()) {
    const seen = runs.map((r) => r.statuses[id] ?? 'absent');
    if (new Set(seen).size > 1) out.push(`${id}: ${runs.map((r, i) => `seed ${r.seed}=${seen[i]}`).join(', ')}`);
  }
  return out;
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

// ---------------------------------------------------------------------------------------------
// Running one job: in-process (worker) or through the CLI (child process).

/** A working directory without a .env, so no developer setting points the run elsewhere. */
function cleanCwd(root: string): string {
  const dir = join(root, 'cwd');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function flagsOf(job: Job, reportDir: string): string[] {
  return [
    '--topic', job.topics.join(','),
    '--seed', String(job.seed),
    '--report-dir', reportDir,
    ...(job.defect ? ['--defects', job.defect] : []),
    ...(job.checks ? ['--check', job.checks.join(',')] : []),
  ];
}

/** Allowlisted numbers of a host-mode run: a small sandbox's. */
const HOST_RECIPIENTS = 2;

/**
 * The env file a user would write for the reference served as a host: serve's lines, the allowlist
 * cut to two numbers, the sandbox declared or not. Holds client secrets: mode 600, deleted after.
 */
export function hostEnvLines(lines: string[], host: HostSetting): string[] {
  const out = lines.map((line) => {
    if (!line.startsWith('CONFORMANCE_RECIPIENTS=')) return line;
    return `CONFORMANCE_RECIPIENTS=${line.slice('CONFORMANCE_RECIPIENTS='.length).split(',').slice(0, HOST_RECIPIENTS).join(',')}`;
  });
  return host.sandbox ? [...out, 'CONFORMANCE_SANDBOX=true'] : out;
}

/** In-process: the same config the CLI builds (loadConfig over the same flags), then runConformance. */
async function runInProcess(job: Job, reportDir: string, cwd: string): Promise<RunDigest> {
  const started = Date.now();
  const { loadConfig } = await import('../harness/config.ts');
  const { runConformance, startEmbeddedReference } = await import('../harness/runner.ts');
  const silent = () => undefined;
  if (!job.host) {
    const config = loadConfig(
      { topic: job.topics.join(','), seed: String(job.seed), reportDir, ...(job.defect ? { defects: job.defect } : {}), ...(job.checks ? { checks: job.checks } : {}) },
      {},
      cwd,
    );
    const outcome = await runConformance(config, { print: silent, printError: silent, tty: false });
    const traffic = job.kind === 'defect' && !job.weaken ? await judgeRunTraffic(reportDir) : undefined;
    return { ...digestOf(outcome.result, outcome.exitCode, Date.now() - started), ...(traffic ? { traffic } : {}) };
  }
  // Host mode: the reference as a host, and the run gets nothing but the env file.
  const reference = await startEmbeddedReference({
    ...(job.defect ? { defects: [job.defect] } : {}),
    ...(job.host.rateLimit ? { rateLimit: job.host.rateLimit } : {}),
  });
  const envFile = `${reportDir}.env`;
  try {
    writeFileSync(envFile, `${hostEnvLines(reference.envLines(), job.host).join('\n')}\n`, { mode: 0o600 });
    const runOnce = async (seed: number, dir: string): Promise<RunDigest> => {
      const began = Date.now();
      const config = loadConfig({ envFile, topic: job.topics.join(','), seed: String(seed), reportDir: dir }, {}, cwd);
      const outcome = await runConformance(config, { print: silent, printError: silent, tty: false });
      const traffic = job.kind === 'defect' && !job.weaken ? await judgeRunTraffic(dir, envFile) : undefined;
      const paced = job.host?.rateLimit ? pacedAnswers(dir) : undefined;
      return { ...digestOf(outcome.result, outcome.exitCode, Date.now() - began), ...(traffic ? { traffic } : {}), ...(paced !== undefined ? { pacedAnswers: paced } : {}) };
    };
    const first = await runOnce(job.seed, reportDir);
    if (!job.host.again) return first;
    const later = await runOnce(laterSeed(job.seed), `${reportDir}-later`);
    rmSync(`${reportDir}-later`, { recursive: true, force: true });
    return { ...first, durationMs: Date.now() - started, later };
  } finally {
    rmSync(envFile, { force: true });
    await reference.close();
  }
}

/**
 * The pacing answers (429, 503) a run's exchange log recorded: a run behind a rate limit proves that
 * pacing is waited out, never judged, only when it met some.
 */
function pacedAnswers(reportDir: string): number {
  const log = join(reportDir, 'exchanges.jsonl');
  if (!existsSync(log)) return 0;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"status":429') || line.includes('"status":503'))
    .filter((line) => [429, 503].includes((JSON.parse(line) as { response?: { status?: number } }).response?.status ?? 0)).length;
}

/** Host mode through the command line: `serve --env-out F` in one process, `run --env-file F` in another. */
async function runHostThroughCli(job: Job, reportDir: string, cwd: string): Promise<RunDigest> {
  const served = `${reportDir}.served.env`;
  const envFile = `${reportDir}.env`;
  let host: ServedHost;
  try {
    host = await startServedHost(
      // Node itself and the bin, as runThroughCli starts the run beside it.
      [process.execPath, join(ROOT, 'bin', 'conformance.mjs')],
      [...(job.defect ? ['--defects', job.defect] : []), ...(job.host?.rateLimit ? ['--rate-limit', String(job.host.rateLimit)] : [])],
      // Only PATH and HOME: no CONFORMANCE_* of the caller's shell leaks in.
      { envOut: served, cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, timeoutMs: 15_000 },
    );
  } catch (error) {
    // startServedHost stopped the host and wrote nothing: there is nothing to remove.
    return { exitCode: -1, verdict: 'none', topics: [], harnessErrors: [], durationMs: 0, error: oneLine((error as Error).message, 200) };
  }
  try {
    writeFileSync(envFile, `${hostEnvLines(host.lines, job.host!).join('\n')}\n`, { mode: 0o600 });
    const first = await runThroughCli({ ...job, host: undefined }, reportDir, cwd, envFile);
    if (!job.host?.again) return first;
    const later = await runThroughCli({ ...job, host: undefined, seed: laterSeed(job.seed) }, `${reportDir}-later`, cwd, envFile);
    rmSync(`${reportDir}-later`, { recursive: true, force: true });
    return { ...first, later };
  } finally {
    await host.stop();
    rmSync(served, { force: true });
    rmSync(envFile, { force: true });
  }
}

/** Through the command line, exactly as a user types it. */
function runThroughCli(job: Job, reportDir: string, cwd: string, envFile?: string): Promise<RunDigest> {
  const started = Date.now();
  // Against a host the defect is the served reference's, not a flag of the run.
  const flags = envFile ? [...flagsOf({ ...job, defect: undefined }, reportDir), '--env-file', envFile] : flagsOf(job, reportDir);
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'conformance.mjs'), 'run', ...flags], {
    cwd,
    // Only PATH and HOME: no CONFORMANCE_* of the caller's shell leaks in.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const file = join(reportDir, 'report.json');
      if (!existsSync(file)) {
        resolve({ exitCode: code ?? -1, verdict: 'none', topics: [], harnessErrors: [], durationMs: Date.now() - started, error: `no report.json (exit ${code}): ${oneLine(stderr, 300)}` });
        return;
      }
      const result = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
      const digest = digestOf(result, code ?? -1, Date.now() - started);
      if (job.kind !== 'defect' || job.weaken) return resolve(digest);
      void judgeRunTraffic(reportDir, envFile).then((traffic) => resolve({ ...digest, ...(traffic ? { traffic } : {}) }));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Worker side: receives jobs over IPC, runs them one at a time, answers with digests.

interface JobMessage {
  type: 'job';
  job: Job;
  reportDir: string;
  cwd: string;
}
interface DoneMessage {
  type: 'done';
  key: string;
  digest: RunDigest;
}

async function workerMain(): Promise<void> {
  process.on('message', (message: JobMessage) => {
    if (message.type !== 'job') return;
    const { job, reportDir, cwd } = message;
    // The suites' worker threads start from this process's environment (suites/support/sites.ts).
    if (job.weaken) process.env.MUTATE_WEAKEN_SITE = job.weaken;
    else delete process.env.MUTATE_WEAKEN_SITE;
    const run = job.via === 'cli' ? (job.host ? runHostThroughCli(job, reportDir, cwd) : runThroughCli(job, reportDir, cwd)) : runInProcess(job, reportDir, cwd);
    run
      .catch((error: unknown): RunDigest => ({
        exitCode: -1,
        verdict: 'none',
        topics: [],
        harnessErrors: [],
        durationMs: 0,
        error: oneLine(error instanceof Error ? `${(error as { code?: string }).code ?? error.name}: ${error.message}` : String(error), 300),
      }))
      .then((digest) => process.send!({ type: 'done', key: job.key, digest } satisfies DoneMessage));
  });
  process.send!({ type: 'ready' });
}

// ---------------------------------------------------------------------------------------------
// Coordinator: a pool of workers, each running one job at a time.

export interface HostMatrixOptions {
  /** Faithful host runs, every other one a declared sandbox: fresh random seeds, printed. */
  faithfulSeeds: number[];
  /** One faithful host run (a declared sandbox) behind each of these rate limits. */
  rateLimits: number[];
  /** Defects run in host mode (a declared sandbox); default all. */
  defects?: readonly Defect[];
  /** Seed of the host defect runs (printed). */
  defectSeed: number;
}

/**
 * Defects every host-mode sample keeps: the rules only a host shows or only a declared sandbox
 * reaches (cross-request rules, sandbox checks, small-sandbox cursors).
 */
export const HOST_FOCUS: readonly string[] = [
  'message-ownership-before-grant',
  'message-lookup-conceals-grant',
  'problem-request-id-regenerated',
  'message-unrendered',
  'unknown-status-filter-ignored',
  'recipient-limit-billed',
  'recipient-limit-999',
  'recipient-limit-after-entry-validation',
  'webhook-delete-random-204',
  'cursor-not-bound-to-status-filter',
  'omitted-filters-dropped',
  'cursor-not-bound-to-bulk',
  // The key-length check's host-only branch (a short key may be an earlier run's) is proven here alone.
  'idempotency-key-min-2',
  // Assertion sites only a host run reaches (the whole matrix of 2026-11-28: no embedded catcher-only
  // run proves them), so that a sample without them does not send their topics' defects back to
  // whole-topic runs: request-id's generated id on a write row, and the problem shape of
  // concealment's matrix cells and of idempotency's refusal under another business.
  'request-id-not-generated',
  'blind3-problem-type-trailing-slash',
];

/** `n` defects for a quick host-mode matrix: HOST_FOCUS and a seeded sample of the others. */
export function hostSample(n: number, seed: number): Defect[] {
  const focus = DEFECTS.filter((d) => HOST_FOCUS.includes(d.id));
  const others = DEFECTS.filter((d) => !HOST_FOCUS.includes(d.id));
  const drawn = fc.sample(fc.shuffledSubarray(others, { minLength: others.length }), { seed, numRuns: 1 })[0]!;
  return [...focus, ...drawn.slice(0, Math.max(0, n - focus.length))];
}

/** Fresh seeds for a run of the matrix: printed with the results, so a failure replays. */
export function freshSeeds(n: number): number[] {
  const seeds = new Set<number>();
  while (seeds.size < n) seeds.add(Math.floor(Math.random() * 2 ** 31));
  return [...seeds];
}

export interface MatrixOptions {
  /** Host mode beside the embedded runs. */
  host?: HostMatrixOptions;
  faithfulSeeds?: number[];
  defects?: readonly Defect[];
  concurrency?: number;
  /** Defect run through the CLI child process (default: the first defect). */
  cliDefect?: string;
  /** Copy the reports of every run (not only of misses) to reports/matrix-runs/. */
  keepRuns?: boolean;
  /** Judge without scripts/catchers.json (it is about to be rewritten from this run). */
  updateCatchers?: boolean;
  /**
   * Each embedded defect run selects only the checks that caught it (catcherSelection), as `npm test`
   * runs the matrix; `npm run matrix` runs whole topics, where a new catch or another rule shows too.
   */
  catchersOnly?: boolean;
  /** Seed of every embedded defect run (default DEFECT_SEED; --defect-seed sweeps others). */
  defectSeed?: number;
  /** One line per finished run. */
  progress?: (line: string) => void;
}

export interface MatrixResult {
  startedAt: string;
  durationMs: number;
  concurrency: number;
  defectSeed: number;
  defects: DefectOutcome[];
  faithful: FaithfulOutcome[];
  unstable: string[];
  score: { caught: number; total: number };
  /** Embedded defect runs that selected only their catchers (MatrixOptions.catchersOnly); the others ran whole topics. */
  catchersOnly: number;
  /** Defects judged on a run of their whole topics after a catcher-only miss or unproven site (wholeTopicsAgain). */
  againWhole: string[];
  /** Under a defect seed other than DEFECT_SEED: recorded catchers that did not catch (`defect: check, ...`), not judged. */
  seedDependentCatchers: string[];
  host?: HostMatrixResult;
  /** Assertion sites of the suites: proven (some defect made it fail), waived, or neither. */
  sites: SiteScore;
  /** Every defect caught, every faithful run passed, no check changed status between seeds. */
  ok: boolean;
}

export interface SiteScore {
  total: number;
  proven: number;
  waived: number;
  /** Sites no defect made fail and no waiver explains, by id. */
  unproven: string[];
}

/** Which assertion sites the defects proved, of all the suites hold. */
export function siteScore(outcomes: DefectOutcome[], sites = assertionSites(join(ROOT, 'suites'))): SiteScore {
  const failed = new Set(outcomes.flatMap((o) => o.sites));
  const proven = sites.filter((x) => failed.has(x.id));
  const waived = sites.filter((x) => !failed.has(x.id) && x.waiver);
  return { total: sites.length, proven: proven.length, waived: waived.length, unproven: sites.filter((x) => !failed.has(x.id) && !x.waiver).map((x) => x.id) };
}

export interface HostMatrixResult {
  defectSeed: number;
  defects: DefectOutcome[];
  /** pacedAnswers: behind a rate limit, the 429 and 503 answers the run met and waited out. */
  faithful: Array<FaithfulOutcome & { sandbox: boolean; rateLimit?: number; pacedAnswers?: number; runs?: number }>;
  /** Caught, and not shown by a host (listed with the reason), of all defects run. */
  score: { caught: number; notShown: number; total: number };
  /** Every defect caught or not shown by a host, and every faithful host run passed. */
  ok: boolean;
}

/** Host-mode jobs: faithful runs (every other one a sandbox), rate-limited ones, and each defect. */
export function hostJobs(host: HostMatrixOptions): Job[] {
  const faithful: Job[] = host.faithfulSeeds.map((seed, i) => ({
    key: `host-faithful-${seed}`,
    kind: 'faithful',
    topics: [...TOPICS],
    seed,
    via: 'in-process',
    // The first runs twice against its host: a later full run is as green as the first.
    host: { sandbox: i % 2 === 0, ...(i === 0 ? { again: true } : {}) },
  }));
  const paced: Job[] = host.rateLimits.map((rateLimit) => ({
    key: `host-faithful-${rateLimit}rps-${host.faithfulSeeds[0] ?? host.defectSeed}`,
    kind: 'faithful',
    topics: [...TOPICS],
    seed: host.faithfulSeeds[0] ?? host.defectSeed,
    via: 'in-process',
    host: { sandbox: true, rateLimit },
  }));
  const defects = host.defects ?? DEFECTS;
  const perDefect: Job[] = defects.map((d, i) => ({
    key: `host-defect-${d.id}`,
    kind: 'defect',
    defect: d.id,
    topics: topicsFor(d),
    seed: host.defectSeed,
    // One through the command line: serve --env-out, then run --env-file.
    via: i === 0 ? 'cli' : 'in-process',
    // A defect the webhook deactivation shows must be caught on a later run as on the first.
    host: { sandbox: true, ...(spendsFixtures(d) ? { again: true } : {}) },
  }));
  return [...faithful, ...paced, ...perDefect];
}

/** The seed of the later run against the same host: another one, as a user's next run has. */
const laterSeed = (seed: number) => (seed + 1) % 2 ** 31;

/** Defects whose runs deactivate a webhook endpoint (the fixture a run spends on a host). */
export const spendsFixtures = (defect: Defect): boolean => topicsFor(defect).includes('webhooks');

/** A host job run twice: judged on both runs, the later one's reasons marked as such. */
function judgeBoth<T extends { why: string[] }>(digest: RunDigest, judge: (d: RunDigest) => T, ok: (o: T) => boolean): { first: T; later?: T; ok: boolean; why: string[] } {
  const first = judge(digest);
  if (!digest.later) return { first, ok: ok(first), why: first.why };
  const later = judge(digest.later);
  return { first, later, ok: ok(first) && ok(later), why: [...first.why, ...later.why.map((w) => `later run: ${w}`)] };
}

export function matrixJobs(
  options: Pick<MatrixOptions, 'faithfulSeeds' | 'defects' | 'cliDefect' | 'host' | 'catchersOnly' | 'defectSeed'> = {},
  /** The checks that caught each defect: the selection of catcher-only runs. */
  catchers: Catchers = {},
): Job[] {
  const seeds = options.faithfulSeeds ?? DEFAULT_FAITHFUL_SEEDS;
  const defects = options.defects ?? DEFECTS;
  const cliDefect = options.cliDefect ?? defects[0]?.id;
  const faithful: Job[] = seeds.map((seed) => ({ key: `faithful-${seed}`, kind: 'faithful', topics: [...TOPICS], seed, via: 'in-process' }));
  const perDefect: Job[] = defects.map((d) => {
    const selected = options.catchersOnly ? catcherSelection(d, catchers) : undefined;
    return {
      key: `defect-${d.id}`,
      kind: 'defect',
      defect: d.id,
      topics: selected?.topics ?? topicsFor(d),
      ...(selected ? { checks: selected.checks } : {}),
      seed: options.defectSeed ?? DEFECT_SEED,
      via: d.id === cliDefect ? 'cli' : 'in-process',
    };
  });
  // Longest first: rate-limited runs, whole runs, then whole-run defects, then the single-topic ones.
  const weight = (j: Job) => j.topics.length + (j.host?.rateLimit ? 1000 / j.host.rateLimit : 0);
  return [...faithful, ...perDefect, ...(options.host ? hostJobs(options.host) : [])].sort((a, b) => weight(b) - weight(a));
}

/** Recorded catchers (scripts/catchers.json) that did not catch their defect in these outcomes: `defect: check, ...`. */
export function catchersNotMet(outcomes: readonly DefectOutcome[], expected: Catchers): string[] {
  return outcomes.flatMap((o) => {
    const lost = (expected[o.defect] ?? []).filter((id) => !o.citingChecks.includes(id));
    return lost.length > 0 ? [`${o.defect}: ${lost.join(', ')}`] : [];
  });
}

/** After a catcher-only run that missed, the same defect with its whole topics (the selection left out a check the catcher needs). */
export function wholeTopicsAgain(job: Job): Job | undefined {
  if (job.kind !== 'defect' || job.host || !job.checks) return undefined;
  const { checks: _selection, ...rest } = job;
  return { ...rest, key: `${job.key}-whole-topics`, topics: topicsFor(DEFECTS.find((d) => d.id === job.defect)!) };
}

class Worker {
  private child: ChildProcess;
  private ready: Promise<void>;
  runs = 0;
  /** `modules`: the lane's module cache (harness/vitest-options.ts), private, so no other process writes code into it. */
  constructor(modules: string) {
    this.child = fork(SELF, ['--worker'], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CONFORMANCE_MODULE_CACHE: modules },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr?.resume();
    this.ready = new Promise((resolve) => this.child.once('message', () => resolve()));
  }

  async run(job: Job, reportDir: string, cwd: string): Promise<RunDigest> {
    await this.ready;
    this.runs++;
    return new Promise((resolve) => {
      // A run paced by a host's rate limit takes as long as its requests at that pace: its time grows
      // below 10 requests a second, so a slow pace is never read as a hung run.
      const timeoutMs = job.host?.rateLimit ? JOB_TIMEOUT_MS * Math.max(1, 10 / job.host.rateLimit) : JOB_TIMEOUT_MS;
      const timer = setTimeout(() => {
        cleanup();
        this.stop();
        resolve({ exitCode: -1, verdict: 'none', topics: [], harnessErrors: [], durationMs: timeoutMs, error: `timed out after ${timeoutMs / 1000} s` });
      }, timeoutMs);
      const onMessage = (message: DoneMessage) => {
        if (message.type !== 'done' || message.key !== job.key) return;
        cleanup();
        resolve(message.digest);
      };
      const onExit = (code: number | null) => {
        cleanup();
        resolve({ exitCode: -1, verdict: 'none', topics: [], harnessErrors: [], durationMs: 0, error: `matrix worker exited (${code}) during the run` });
      };
      const cleanup = () => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.send({ type: 'job', job, reportDir, cwd } satisfies JobMessage);
    });
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  stop(): void {
    if (this.alive) this.child.kill('SIGKILL');
  }
}

/** Judges one finished job for the progress line: a caught defect or a passing faithful run is ok. */
function judgeJob(job: Job, digest: RunDigest, catchers: Catchers): { ok: boolean; why: string } {
  if (job.kind === 'faithful') {
    const f = judgeBoth(digest, (d) => judgeFaithful(job.seed, d, job.via), (o) => o.passed);
    return { ok: f.ok, why: f.why.slice(0, 3).join('; ') };
  }
  const defect = DEFECTS.find((x) => x.id === job.defect)!;
  const d = job.host
    ? judgeBoth(digest, (x) => judgeDefect(defect, job.topics, x, job.via, undefined, {}), (o) => o.caught || o.notShown !== undefined)
    : judgeBoth(digest, (x) => judgeDefect(defect, job.topics, x, job.via, undefined, undefined, catchers[defect.id]), (o) => o.caught);
  // A host miss is judged again at the end, against the checks that caught it on the embedded reference.
  return { ok: d.ok, why: `${job.host ? '(host mode; judged again at the end) ' : ''}${d.why.join('; ')}` };
}

/** Runs jobs on `concurrency` worker lanes; every digest by job key. Reports go to a temp folder, removed after. */
export async function runJobs(
  jobs: Job[],
  options: {
    concurrency: number;
    /** The checks that must catch each defect (scripts/catchers.json), read once by the caller; `{}` while they are rewritten. */
    catchers: Catchers;
    keepRuns?: boolean;
    progress?: (line: string) => void;
    /** How a finished job reads on its progress line (default: the registry's defects and catchers). */
    judge?: (job: Job, digest: RunDigest) => { ok: boolean; why: string };
    /** A job to run after one that was not ok (a catcher-only miss runs again with whole topics). */
    followUp?: (job: Job) => Job | undefined;
    /** A later pass of the same matrix: the reports kept by the earlier one stay. */
    keepEarlier?: boolean;
  },
): Promise<Map<string, RunDigest>> {
  const progress = options.progress ?? (() => undefined);
  const root = mkdtempSync(join(tmpdir(), 'conformance-matrix-'));
  const cwd = cleanCwd(root);
  const keptDir = join(ROOT, 'reports', 'matrix-runs');
  if (!options.keepEarlier) rmSync(keptDir, { recursive: true, force: true });
  const digests = new Map<string, RunDigest>();
  const { catchers } = options;
  const queue = [...jobs];
  let finished = 0;
  let total = jobs.length;

  async function lane(): Promise<void> {
    const modules = mkdtempSync(join(tmpdir(), 'conformance-matrix-modules-'));
    let worker = new Worker(modules);
    try {
      for (let job = queue.shift(); job; job = queue.shift()) {
        if (!worker.alive || worker.runs >= RUNS_PER_WORKER) {
          worker.stop();
          worker = new Worker(modules);
        }
        const reportDir = join(root, job.key.replace(/[^A-Za-z0-9._-]/g, '_'));
        const digest = await worker.run(job, reportDir, cwd);
        digests.set(job.key, digest);
        finished++;
        const outcome = options.judge ? options.judge(job, digest) : judgeJob(job, digest, catchers);
        const next = outcome.ok ? undefined : options.followUp?.(job);
        if (next) {
          queue.push(next);
          total++;
        }
        const keep = options.keepRuns || (!outcome.ok && !next && job.weaken === undefined);
        if (keep && existsSync(reportDir)) cpSync(reportDir, join(keptDir, job.key), { recursive: true });
        const mark = outcome.ok ? 'ok  ' : next ? 'more' : 'FAIL';
        progress(`[${String(finished).padStart(3)}/${total}] ${mark} ${job.key} (${(digest.durationMs / 1000).toFixed(1)} s)${outcome.ok ? '' : `: ${outcome.why}${next ? `; runs again as ${next.key}` : ''}`}`);
        rmSync(reportDir, { recursive: true, force: true });
      }
    } finally {
      worker.stop();
      rmSync(modules, { recursive: true, force: true });
    }
  }

  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, jobs.length) }, lane));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return digests;
}

export async function runMatrix(options: MatrixOptions = {}): Promise<MatrixResult> {
  const started = Date.now();
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const defects = options.defects ?? DEFECTS;
  // Judged without scripts/catchers.json when it is about to be rewritten from this run (whole topics then).
  const expected: Catchers = options.updateCatchers ? {} : readCatchers();
  const jobs = matrixJobs(options, expected);
  // scripts/catchers.json was recorded under DEFECT_SEED: under another seed a catcher that met the
  // defect only by what that seed drew is no regression, so it is listed apart, not judged.
  const recordedSeed = (options.defectSeed ?? DEFECT_SEED) === DEFECT_SEED;
  const judgedCatchers = recordedSeed ? expected : {};
  const digests = await runJobs(jobs, {
    concurrency,
    catchers: judgedCatchers,
    followUp: wholeTopicsAgain,
    ...(options.keepRuns ? { keepRuns: true } : {}),
    ...(options.progress ? { progress: options.progress } : {}),
  });

  const judgeAll = () => {
    const outcomes = defects.map((d) => {
      const first = jobs.find((j) => j.defect === d.id && !j.host)!;
      const again = wholeTopicsAgain(first);
      // Judged on the whole-topics run when there is one: a catcher that needs a sibling check's
      // requests (a token issued before its own) is no regression; a lost catch misses there too.
      const job = again && digests.has(again.key) ? again : first;
      const outcome = judgeDefect(d, job.topics, digests.get(job.key)!, job.via, undefined, undefined, judgedCatchers[d.id]);
      return job.checks ? { ...outcome, catchersOnly: true } : job === again ? { ...outcome, againWhole: true } : outcome;
    });
    const catchers = new Map(outcomes.map((d) => [d.defect, d.citingChecks]));
    const hostPart = options.host ? hostResult(options.host, jobs, digests, catchers) : undefined;
    return { outcomes, hostPart, sites: siteScore([...outcomes, ...(hostPart?.defects ?? [])]) };
  };
  let judged = judgeAll();
  // A catcher may fail at another of its sites when its siblings did not run before it (their
  // objects, their bulks): a site the catcher-only runs left unproven is looked for again in whole
  // topics. A site proven is one that failed naming the defect's own requirement, so a site that
  // names its requirements is looked for first in the defects of one of them (whole topics that
  // reach the site); a site that names none (a requirement in a variable or a helper), or is still
  // unproven then, in every catcher-only defect of its topic. (Until 2026-11-28 every catcher-only
  // defect of the site's topic ran again at once: 125 whole-topic runs in one CI.)
  // (Only over the whole registry: a run of a few defects leaves most sites unproven anyway.)
  const wholeRegistry = DEFECTS.every((d) => defects.some((x) => x.id === d.id));
  const sites = new Map(assertionSites(join(ROOT, 'suites')).map((site) => [site.id, site]));
  const ofTopic = (o: DefectOutcome, site: Site) => o.topicsRun.includes(site.topic as Topic);
  const named = (o: DefectOutcome, site: Site) => {
    if (site.requirements.length === 0) return ofTopic(o, site);
    const defect = DEFECTS.find((d) => d.id === o.defect)!;
    return site.requirements.includes(defect.requirement) && topicsFor(defect).includes(site.topic as Topic);
  };
  for (const reaches of wholeRegistry ? [named, ofTopic] : []) {
    const unproven = judged.sites.unproven.map((id) => sites.get(id)).filter((site): site is Site => site !== undefined);
    const again = judged.outcomes.filter((o) => o.catchersOnly && unproven.some((site) => reaches(o, site)));
    if (again.length === 0) continue;
    const more = again.map((o) => wholeTopicsAgain(jobs.find((j) => j.defect === o.defect && !j.host)!)!);
    options.progress?.(`assertion sites left unproven by the catcher-only runs (${unproven.map((site) => site.id).join(', ')}): ${more.length} defects ${reaches === named ? 'of the requirements they name' : 'of their topics'} run again with whole topics`);
    for (const [key, digest] of await runJobs(more, { concurrency, catchers: judgedCatchers, keepEarlier: true, ...(options.keepRuns ? { keepRuns: true } : {}), ...(options.progress ? { progress: options.progress } : {}) })) digests.set(key, digest);
    judged = judgeAll();
  }
  const { outcomes: defectOutcomes, hostPart: host } = judged;
  const faithful = jobs
    .filter((j) => j.kind === 'faithful' && !j.host)
    .sort((a, b) => a.seed - b.seed)
    .map((j) => judgeFaithful(j.seed, digests.get(j.key)!, j.via));
  const unstable = unstableChecks(faithful);
  const caught = defectOutcomes.filter((d) => d.caught).length;
  return {
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    concurrency,
    defectSeed: options.defectSeed ?? DEFECT_SEED,
    defects: defectOutcomes,
    faithful,
    unstable,
    score: { caught, total: defectOutcomes.length },
    catchersOnly: defectOutcomes.filter((d) => d.catchersOnly).length,
    againWhole: defectOutcomes.filter((d) => d.againWhole).map((d) => d.defect),
    seedDependentCatchers: recordedSeed ? [] : catchersNotMet(defectOutcomes, expected),
    ...(host ? { host } : {}),
    sites: judged.sites,
    ok: caught === defectOutcomes.length && faithful.every((f) => f.passed) && unstable.length === 0 && (host?.ok ?? true),
  };
}

function hostResult(options: HostMatrixOptions, jobs: Job[], digests: Map<string, RunDigest>, catchers: Map<string, string[]>): HostMatrixResult {
  const hostJobsRun = jobs.filter((j) => j.host);
  const defects = hostJobsRun
    .filter((j) => j.kind === 'defect')
    .map((j) => {
      const defect = DEFECTS.find((d) => d.id === j.defect)!;
      const judged = judgeBoth(digests.get(j.key)!, (x) => judgeDefect(defect, j.topics, x, j.via, undefined, { embeddedCatchers: catchers.get(j.defect!) ?? [] }), (o) => o.caught || o.notShown !== undefined);
      return laterToo(judged.first, judged.later);
    });
  const faithful = hostJobsRun
    .filter((j) => j.kind === 'faithful')
    .map((j) => {
      const judged = judgeBoth(digests.get(j.key)!, (x) => judgeFaithful(j.seed, x, j.via), (o) => o.passed);
      // As green as the first: every check ends the same (deactivate-204 passes again, on the next endpoint).
      const drift = judged.later ? unstableChecks([judged.first, judged.later]).map((u) => `later run differs: ${u}`) : [];
      return {
        ...judged.first,
        passed: judged.ok && drift.length === 0,
        why: [...judged.why, ...drift],
        ...(judged.later ? { runs: 2 } : {}),
        sandbox: j.host!.sandbox,
        ...(j.host!.rateLimit ? { rateLimit: j.host!.rateLimit, pacedAnswers: digests.get(j.key)!.pacedAnswers ?? 0 } : {}),
      };
    });
  const caught = defects.filter((d) => d.caught).length;
  const notShown = defects.filter((d) => d.notShown).length;
  return {
    defectSeed: options.defectSeed,
    defects,
    faithful,
    score: { caught, notShown, total: defects.length },
    ok: caught + notShown === defects.length && faithful.every((f) => f.passed),
  };
}

/**
 * A host defect judged on two runs against one host: caught only when caught on both; not shown
 * only when neither run could show it; the later run's reasons marked.
 */
export function laterToo(first: DefectOutcome, later: DefectOutcome | undefined): DefectOutcome {
  if (!later) return first;
  const caught = first.caught && later.caught;
  const notShown = !caught && (first.caught || first.notShown) && (later.caught || later.notShown) ? (first.notShown ?? later.notShown) : undefined;
  const { notShown: _dropped, ...rest } = first;
  return {
    ...rest,
    caught,
    ...(notShown ? { notShown } : {}),
    why: [...first.why, ...later.why.map((w) => `later run: ${w}`)],
    laterRun: later.caught ? 'caught' : later.notShown ? 'not shown' : 'missed',
  };
}

// ---------------------------------------------------------------------------------------------
// Rendering: the table on stdout and reports/matrix.md.

export function matrixTable(result: MatrixResult): string[] {
  const rows = [
    ['defect', 'expected topic', 'topics that failed', 'result'],
    ...result.defects.map((d) => [d.defect, d.expectedTopic, d.failedTopics.join(',') || '-', d.caught ? 'caught' : 'MISSED']),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  const lines = [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)];
  for (const d of result.defects.filter((x) => !x.caught)) lines.push(`missed ${d.defect} (${d.requirement}): ${d.why.join('; ')}`);
  lines.push(`embedded defect runs: seed ${result.defectSeed}`);
  if (result.seedDependentCatchers.length > 0) {
    lines.push(`catchers recorded under seed ${DEFECT_SEED} that did not catch under this seed (not judged; the defect's verdict is its other catchers'): ${result.seedDependentCatchers.join('; ')}`);
  }
  lines.push('');
  for (const f of result.faithful) {
    lines.push(`faithful reference, whole run, seed ${f.seed}: ${f.passed ? 'pass' : `NOT PASS (${f.why.slice(0, 5).join('; ')})`}`);
  }
  lines.push(result.unstable.length === 0 ? 'check statuses identical across the faithful seeds' : `unstable checks across seeds: ${result.unstable.join(' | ')}`);
  if (result.host) lines.push('', ...hostLines(result.host));
  const sites = result.sites;
  lines.push(`assertion sites: ${sites.proven}/${sites.total} proven by a defect, ${sites.waived} waived, ${sites.unproven.length} neither`);
  if (sites.unproven.length > 0) lines.push(`  unproven sites: ${sites.unproven.join(', ')}`);
  for (const d of result.defects.filter((x) => x.otherRule.length > 0 && !x.caught)) lines.push(`  ${d.defect}: caught by another rule (${d.otherRule.join(', ')})`);
  const traffic = trafficLine(result.defects);
  if (traffic) lines.push(traffic);
  if (result.catchersOnly > 0 || result.againWhole.length > 0) {
    lines.push(`defect runs with only their catchers (scripts/catchers.json): ${result.catchersOnly}; judged on whole topics after a catcher-only miss or unproven site: ${result.againWhole.join(', ') || 'none'}`);
  }
  lines.push(`score: ${result.score.caught}/${result.score.total} defects caught; ${result.faithful.filter((f) => f.passed).length}/${result.faithful.length} faithful runs pass; ${(result.durationMs / 1000).toFixed(0)} s at concurrency ${result.concurrency}`);
  return lines;
}

/** The host-mode part of the table: score, what a host cannot show, misses, faithful runs. */
export function hostLines(host: HostMatrixResult): string[] {
  const lines = [`host mode (reference served as a host, env file only, ${HOST_RECIPIENTS} allowlisted numbers; defect seed ${host.defectSeed}):`];
  for (const d of host.defects.filter((x) => x.notShown)) lines.push(`  not shown by a host: ${d.defect} (${d.requirement}): ${d.notShown!.map((r) => oneLine(r, 160)).join('; ')}`);
  for (const d of host.defects.filter((x) => !x.caught && !x.notShown)) lines.push(`  MISSED in host mode: ${d.defect} (${d.requirement}): ${d.why.join('; ')}`);
  for (const f of host.faithful) {
    const how = `${f.sandbox ? 'sandbox' : 'no sandbox'}${f.rateLimit ? `, rate limit ${f.rateLimit}/s, ${f.pacedAnswers ?? 0} pacing answers waited out` : ''}${f.runs ? `, ${f.runs} runs against one host` : ''}`;
    lines.push(`  faithful host run, seed ${f.seed} (${how}): ${f.passed ? 'pass' : `NOT PASS (${f.why.slice(0, 5).join('; ')})`} in ${(f.durationMs / 1000).toFixed(1)} s`);
  }
  const again = host.defects.filter((d) => d.laterRun !== undefined);
  if (again.length > 0) {
    const held = again.filter((d) => d.laterRun !== 'missed').length;
    lines.push(`  run again against the same host (the ledger takes the next webhook endpoint): ${held}/${again.length} defects judged alike on the later run${held < again.length ? `; missed later: ${again.filter((d) => d.laterRun === 'missed').map((d) => d.defect).join(', ')}` : ''}`);
  }
  const traffic = trafficLine(host.defects);
  if (traffic) lines.push(`  ${traffic}`);
  lines.push(`host score: ${host.score.caught}/${host.score.total} defects caught, ${host.score.notShown} not shown by a host (listed), ${host.score.total - host.score.caught - host.score.notShown} missed; ${host.faithful.filter((f) => f.passed).length}/${host.faithful.length} faithful host runs pass`);
  return lines;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function matrixMarkdown(result: MatrixResult): string {
  const out = [
    '# Mutation matrix',
    '',
    `Started ${result.startedAt}; ${(result.durationMs / 1000).toFixed(0)} s at concurrency ${result.concurrency}. ` +
      `Defect runs use seed ${result.defectSeed}` +
      (result.catchersOnly > 0
        ? `; ${result.catchersOnly} of them ran only the checks that caught the defect before (scripts/catchers.json, as \`npm test\` runs the matrix), the others their whole topics.`
        : '; each ran its whole topics.') +
      (result.againWhole.length > 0 ? ` Judged on their whole topics after a catcher-only miss or an assertion site it left unproven: ${result.againWhole.join(', ')}.` : ''),
    '',
    `**Score: ${result.score.caught}/${result.score.total} defects caught; ` +
      `${result.faithful.filter((f) => f.passed).length}/${result.faithful.length} faithful whole runs pass; ` +
      `${result.unstable.length} checks changed status between seeds.**`,
    '',
    ...(trafficLine(result.defects) ? [`${trafficLine(result.defects)}.`, ''] : []),
    '## Defects',
    '',
    '| defect | requirement | expected topic | topics run | topics that failed | failed checks citing it | result | via | time |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...result.defects.map((d) =>
      `| ${cell(d.defect)} | ${d.requirement} | ${d.expectedTopic} | ${d.topicsRun.length === TOPICS.length ? 'all' : d.topicsRun.join(', ')}${d.catchersOnly ? ' (catchers only)' : d.againWhole ? ' (again, whole)' : ''} | ` +
        `${d.failedTopics.join(', ') || '-'} | ${d.citingChecks.join(', ') || '-'} | ${d.caught ? 'caught' : `**missed**: ${cell(d.why.join('; '))}`} | ` +
        `${d.via} | ${(d.durationMs / 1000).toFixed(1)} s |`,
    ),
    '',
    '## Faithful reference (whole run)',
    '',
    '| seed | verdict | exit | result | time |',
    '| --- | --- | --- | --- | --- |',
    ...result.faithful.map((f) => `| ${f.seed} | ${f.verdict} | ${f.exitCode} | ${f.passed ? 'pass' : cell(f.why.join('; '))} | ${(f.durationMs / 1000).toFixed(1)} s |`),
    '',
    result.unstable.length === 0
      ? 'Every check had the same status under every seed.'
      : ['Checks whose status changed between seeds:', '', ...result.unstable.map((u) => `- ${cell(u)}`)].join('\n'),
    '',
    ...(result.host ? ['## Host mode', '', '```', ...hostLines(result.host), '```', ''] : []),
    '## Assertion sites',
    '',
    `${result.sites.proven}/${result.sites.total} assertion sites proven by a defect (a failure at that line naming the defect's requirement), ${result.sites.waived} waived, ${result.sites.unproven.length} neither.`,
    '',
    ...result.sites.unproven.map((id) => `- unproven: ${id}`),
    '',
  ];
  return out.join('\n');
}

export function writeMatrixReport(result: MatrixResult, file = join(ROOT, 'reports', 'matrix.md')): string {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, matrixMarkdown(result));
  return file;
}

// The matrix's own pool of workers (see Worker) runs this file with --worker; `npm run matrix`
// itself is scripts/matrix-command.ts, which sits above this module and the blind round's.
if (process.argv[1] && resolve(process.argv[1]) === SELF && process.argv.includes('--worker')) void workerMain();
