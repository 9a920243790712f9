// One whole conformance run through the CLI, as a user starts it (`npx conformance run`),
// against the embedded reference: wall time and memory of the process tree (process-tree.ts), and
// per topic, from the run's report.json, the summed check durations and the requests sent.
//
// Requests per topic: the sum of the checks' `requestsSent`, which check.ts takes from the client's
// own counter (one count per exchange-log line, token requests included). Since the runner keeps
// one worker for all topic files, one client serves every topic, so the exchange log itself no
// longer tells topics apart; the total is the exchange log's line count, and any requests outside
// a check (hooks) show as the difference.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseDotenv } from 'dotenv';
import { VARIABLES } from '../core/variables.ts';
import type { RunResult } from '../harness/result.ts';
import { runSettleLags, type SettleLags } from './bulk-lag.ts';
import { withNodeFirst } from '../scripts/node-lines.ts';
import { startServedHost, type ServedHost } from '../scripts/served-host.ts';
import { keptPace, type PaceFigures } from './paced.ts';
import { measureTree, type TreeMeasurement } from './process-tree.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The bin itself, so its shebang's Node flags apply as they do for users. */
export const BIN = join(ROOT, 'bin', 'conformance.mjs');
/** The compiled code exists (npm run bench builds it first). */
export const DIST_BUILT = (): boolean => existsSync(join(ROOT, 'dist', 'cli', 'main.js'));

/** What a run left in its report folder: its report and its log's lines (one request each). */
function readRunFiles(reportDir: string, tree: TreeMeasurement, what: string): { report: RunResult; totalRequests: number; lines: string[] } {
  let report: RunResult;
  try {
    report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as RunResult;
  } catch {
    throw new Error(`the ${what} run wrote no report.json (exit ${tree.exitCode}): ${tree.stderr.trim().split('\n')[0] ?? ''}`);
  }
  let lines: string[] = [];
  try {
    lines = readFileSync(join(reportDir, 'exchanges.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
  } catch {
    // No request at all leaves no log.
  }
  return { report, totalRequests: lines.length, lines };
}

export interface TopicFigures {
  id: string;
  /** Sum of the topic's check durations (ms): test time only, not the import of its suite. */
  checksMs: number;
  requests: number;
  checks: number;
}

export interface WholeRunFigures {
  profile: 'full' | 'safe';
  seed: number;
  exitCode: number | null;
  verdict: string;
  wallMs: number;
  /** CPU time (user + system) of the run's whole process tree. */
  cpuMs: number;
  peakTreeRss: number;
  peakProcessRss: number;
  processes: number;
  /** Lines of the run's exchange log (every request sent, token requests included). */
  totalRequests: number;
  /** Requests not attributed to any check (totalRequests minus the sum over topics). */
  outsideChecks: number;
  topics: TopicFigures[];
}

/** The child's environment: no CONFORMANCE_* of the caller, so the embedded reference is the target. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('CONFORMANCE_')) env[name] = value;
  env.CI = '1'; // plain progress lines, no terminal rewriting
  return env;
}

export async function measureWholeRun(options: {
  profile: 'full' | 'safe';
  seed: number;
  runs?: number;
  keepExchangeLog?: string;
  /** Start the bin with plain `node`, so its shebang's V8 flags do not apply (issue 20's memory goal). */
  withoutFlags?: boolean;
  /** A Node binary to run on (first on PATH, the bin's shebang finds it); default the bench's own. */
  node?: string;
}): Promise<WholeRunFigures> {
  const work = mkdtempSync(join(tmpdir(), 'conformance-bench-'));
  const reportDir = join(work, 'reports');
  try {
    // The bin itself, so its shebang's Node flags apply as they do for users.
    const args = ['run', '--profile', options.profile, '--seed', String(options.seed), '--report-dir', reportDir];
    if (options.runs !== undefined) args.push('--runs', String(options.runs));
    // The working directory is an empty folder, so no .env of the project is picked up.
    // The compiled dist/ (bench/index.ts builds it first), as the installed package runs.
    const base = { ...cleanEnv(), CONFORMANCE_CODE: 'dist' };
    const env = options.node ? withNodeFirst(options.node, base) : base;
    const node = options.node ?? process.execPath;
    const tree = options.withoutFlags ? await measureTree(node, [BIN, ...args], { cwd: work, env }) : await measureTree(BIN, args, { cwd: work, env });
    const { report, totalRequests } = readRunFiles(reportDir, tree, options.profile);
    // The traffic figure judges a real run's log (bench/traffic-check.ts).
    if (options.keepExchangeLog) copyFileSync(join(reportDir, 'exchanges.jsonl'), options.keepExchangeLog);
    const topics = report.topics.map((t) => ({
      id: t.id,
      checksMs: t.checks.reduce((sum, c) => sum + (c.durationMs ?? 0), 0),
      requests: t.checks.reduce((sum, c) => sum + (c.requestsSent ?? 0), 0),
      checks: t.checks.length,
    }));
    return {
      profile: options.profile,
      seed: options.seed,
      exitCode: tree.exitCode,
      verdict: report.verdict,
      wallMs: tree.wallMs,
      cpuMs: tree.cpuMs,
      peakTreeRss: tree.peakTreeRss,
      peakProcessRss: tree.peakProcessRss,
      processes: tree.processes,
      totalRequests,
      outsideChecks: totalRequests - topics.reduce((sum, t) => sum + t.requests, 0),
      topics,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export interface HostRunFigures {
  seed: number;
  latencyMs: number;
  concurrency: number;
  exitCode: number | null;
  verdict: string;
  wallMs: number;
  /** CPU time of the run's process tree (the host's own process is not counted). */
  cpuMs: number;
  totalRequests: number;
  /** How soon after the host settled them the run read the bulks of LAG_CHECK settled (bench/bulk-lag.ts). */
  settleLags?: SettleLags;
  /** Behind a rate limit: the pace the run kept (bench/paced.ts). */
  pace?: PaceFigures;
}

/** A variable of the CONFORMANCE_* table (core/variables.ts), for its default. */
const variable = (name: string) => VARIABLES.find((v) => v.name === name)!;

/**
 * A whole run against a distant host: the reference served alone (`conformance serve --latency-ms
 * N`, every answer delayed) in its own process, and the run given only the env file it writes, as a
 * user runs against a host. `concurrency` sets CONFORMANCE_CONCURRENCY (1: one check at a time).
 */
export async function measureHostRun(options: {
  seed: number;
  latencyMs: number;
  concurrency?: number;
  /** `serve --rate-limit N`: requests a second before 429. */
  rateLimit?: number;
  /** Tell the run the host's rate (CONFORMANCE_RATE), instead of letting it learn it from 429s. */
  declareRate?: boolean;
}): Promise<HostRunFigures> {
  const work = mkdtempSync(join(tmpdir(), 'conformance-bench-host-'));
  const envFile = join(work, 'host.env');
  const reportDir = join(work, 'reports');
  // The compiled code, as the installed package runs it (npm run bench builds dist/ first).
  const code: NodeJS.ProcessEnv = { ...cleanEnv(), CONFORMANCE_CODE: 'dist' };
  let host: ServedHost | undefined;
  try {
    const limit = options.rateLimit ? ['--rate-limit', String(options.rateLimit)] : [];
    host = await startServedHost([BIN], ['--latency-ms', String(options.latencyMs), ...limit], { envOut: envFile, cwd: work, env: code, timeoutMs: 60_000 });
    const env = { ...code };
    if (options.concurrency !== undefined) env.CONFORMANCE_CONCURRENCY = String(options.concurrency);
    if (options.rateLimit && options.declareRate) env.CONFORMANCE_RATE = String(options.rateLimit);
    const args = ['run', '--env-file', envFile, '--seed', String(options.seed), '--report-dir', reportDir];
    const tree = await measureTree(BIN, args, { cwd: work, env });
    const { report, totalRequests, lines } = readRunFiles(reportDir, tree, 'host');
    const settleLags = runSettleLags(report, lines);
    const baseUrl = parseDotenv(host.lines.join('\n')).CONFORMANCE_BASE_URL ?? '';
    const pace = options.rateLimit && URL.canParse(baseUrl) ? keptPace(lines, new URL(baseUrl).origin, options.rateLimit, options.declareRate === true) : undefined;
    return {
      seed: options.seed,
      latencyMs: options.latencyMs,
      concurrency: options.concurrency ?? Number(variable('CONFORMANCE_CONCURRENCY').default),
      exitCode: tree.exitCode,
      verdict: report.verdict,
      wallMs: tree.wallMs,
      cpuMs: tree.cpuMs,
      totalRequests,
      ...(settleLags ? { settleLags } : {}),
      ...(pace ? { pace } : {}),
    };
  } finally {
    await host?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
