// `conformance run`: checks that the run can be made, starts the embedded reference when no host
// is configured, drives vitest through its Node API over suites/<topic>.suite.ts, then builds the
// run result, writes the reports and prints the summary. Exit codes: 0 pass, 1 a check failed,
// 2 the run could not be made (or not completely: errors in the harness or a suite).
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { createVitest } from 'vitest/node';
import { contractSha256, contractVersion } from '../spec/contract.ts';
import type { RunConfig } from './config.ts';
import { configSecrets, envLinesFor } from './config.ts';
import { HarnessError } from './errors.ts';
import { resetExchangeLog } from './exchange-log.ts';
import { checkTimeoutMs, loadOrder, orderTopics, suiteRunOptions, type SuiteRunSpec } from './vitest-options.ts';
import { PACKAGE_ROOT, SUITES_DIR, suiteFileName } from './package.ts';
import { topicOfFile } from './output.ts';
import { probeTarget } from './preflight.ts';
import { proxyCredentials } from './http-client.ts';
import type { AppCredentials, Fixtures, SuiteConfig, Target } from '../core/model.ts';
import { ProgressReporter, closingLines, findingLines, summaryLines } from './output.ts';
import { publishToCi } from './ci.ts';
import { didYouMean } from './closest.ts';
import { lookOf, paintWith } from './terminal.ts';
import type { Paint } from './terminal.ts';
import type { Print } from './output.ts';
import { SecretSet, redactText } from './redact.ts';
import { CheckCollector } from './reporter.ts';
import { buildRunResult, mergeRunResults } from './result.ts';
import { findLeaks, writeReports } from './reports/index.ts';
import { readObtainedTokens } from './token-log.ts';
import { guardAgainstOrphaning, orphanedLine } from './orphan-guard.ts';
import type { HarnessErrorEntry, RunInfo, RunResult } from './result.ts';

/** What reference/index.ts offers (loaded only when the run targets it). */
export interface ReferenceHandle {
  baseUrl: string;
  tokenUrl: string;
  controlUrl?: string;
  audience: string;
  apps: { primary: AppCredentials; limited?: AppCredentials; other?: AppCredentials };
  fixtures: Fixtures;
  defects?: string[];
  envLines(): string[];
  close(): Promise<void>;
}

export interface ReferenceOptions {
  defects?: string[];
  port?: number;
  /** Requests per second before 429 (a sandbox's pace). */
  rateLimit?: number;
  /** Delay of every answer (a distant host). */
  latencyMs?: number;
}

export async function startEmbeddedReference(options: ReferenceOptions): Promise<ReferenceHandle> {
  // Loaded lazily: a run against a host never loads the reference.
  const { startReference, DEFECTS, BLIND_DEFECTS } = await import('../reference/index.ts');
  // The blind registry is accepted too; it is kept apart only for scoring.
  const known = [...DEFECTS, ...BLIND_DEFECTS].map((d) => d.id);
  const unknown = (options.defects ?? []).filter((id) => !known.includes(id));
  if (unknown.length > 0) {
    throw new HarnessError(
      'CONF_INVALID_VALUE',
      `--defects (CONFORMANCE_REFERENCE_DEFECTS) names no defect ${unknown.map((id) => `${id}${didYouMean(id, known).replace(/^; /, ' (').replace(/\?$/, '?)')}`).join(', ')}; defects: ${known.join(', ')}`,
    );
  }
  try {
    const reference = await startReference(options);
    // The env lines follow harness/config.ts's VARIABLES table; the reference knows only its values.
    return { ...reference, envLines: () => envLinesFor(reference) };
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    throw new HarnessError('CONF_INVALID_VALUE', `the embedded reference could not start: ${(error as Error).message}`);
  }
}

export interface RunOptions {
  /** Folder of `<topic>.suite.ts` files; the package's suites/ by default (tests use fixtures). */
  suitesDir?: string;
  print?: Print;
  printError?: Print;
  /** Progress lines rewritten in place (a terminal); plain lines otherwise. Default: from stdout and the environment. */
  tty?: boolean;
  /** Colour in the printed lines (default: terminal/NO_COLOR/FORCE_COLOR, harness/terminal.ts). */
  colour?: boolean;
  /** `quiet`: only the verdict, findings and report files; `json`: nothing (the CLI prints the JSON summary). */
  output?: 'normal' | 'quiet' | 'json';
  /** Only the checks whose full name matches (vitest testNamePattern); `conformance replay` uses it. */
  testNamePattern?: string;
  /**
   * The last step before the reports are written (harness/gating: verdict tiers, baseline,
   * certification summary). The exit code follows the verdict it returns.
   */
  finalize?: (result: RunResult) => RunResult | Promise<RunResult>;
  /**
   * Runs after the reports are written, while the run's secrets are still known: `leakScan`
   * throws SECRET_LEAK_BLOCKED for any file that contains one (certify writes certificate.json).
   */
  afterReports?: (result: RunResult, leakScan: (files: Record<string, string>) => void) => Promise<void>;
  /** Lines about the grading (tiers, baseline), printed after the findings and before the verdict. */
  gatingLines?: (result: RunResult) => string[];
}

export interface RunOutcome {
  exitCode: 0 | 1 | 2;
  result: RunResult;
  /** Paths of the files written. */
  reportFiles?: string[];
}

/** The end of a run's output, and its publication to the CI system it runs in. */
function printEnd(result: RunResult, files: string[], mode: RunOptions['output'], say: Print, sayError: Print, paint: Paint, gating: string[] = []): void {
  if (mode === 'normal') for (const line of summaryLines(result, files, paint, gating)) say(line);
  if (mode === 'quiet') for (const line of [...findingLines(result, paint), ...gating, ...closingLines(result, files, paint)]) say(line);
  const markdown = files.find((f) => f.endsWith('report.md'));
  // With --json stdout holds the JSON object alone; GitHub reads workflow commands from stderr too.
  publishToCi(result, markdown ? readFileSync(markdown, 'utf8') : undefined, mode === 'json' ? sayError : say);
}

function toolInfo(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

export function exitCodeOf(result: RunResult): 0 | 1 | 2 {
  if (result.verdict === 'fail') return 1;
  if (result.verdict === 'error') return 2;
  return 0;
}


/** What a run's result says of the run itself (also for a run the pre-flight stopped). */
function runInfoOf(config: RunConfig, target: Target, startedAt: string, harnessErrors: HarnessErrorEntry[]): RunInfo {
  return {
    tool: toolInfo(),
    contract: { version: contractVersion, sha256: contractSha256 },
    target: {
      baseUrl: target.baseUrl,
      embedded: target.embedded,
      // So that `conformance replay` starts the reference with the same defects.
      ...(target.embedded && config.defects.length > 0 ? { defects: [...config.defects] } : {}),
    },
    profile: config.settings.profile,
    seed: config.settings.seed,
    runs: config.settings.runs,
    startedAt,
    finishedAt: new Date().toISOString(),
    topics: config.topics,
    harnessErrors,
    ...(config.shard ? { shard: config.shard } : {}),
  };
}

function suiteConfigFrom(config: RunConfig, target: Target, apps: RunConfig['apps'], fixtures: Fixtures): SuiteConfig {
  return {
    target,
    apps,
    fixtures,
    params: config.params,
    settings: config.settings,
    secrets: configSecrets(apps, fixtures, config.settings),
    // The ledger is of hosts: the embedded reference is fresh every run.
    ...(config.usedUp && !target.embedded ? { usedUp: config.usedUp } : {}),
  };
}

/** The suite configuration of the run: the host's, or the embedded reference's, started here. */
async function resolveTarget(config: RunConfig): Promise<{ suiteConfig: SuiteConfig; reference?: ReferenceHandle }> {
  if (config.target) return { suiteConfig: suiteConfigFrom(config, config.target, config.apps, config.fixtures) };
  const reference = await startEmbeddedReference({ defects: config.defects });
  const target: Target = {
    baseUrl: reference.baseUrl,
    tokenUrl: reference.tokenUrl,
    audience: reference.audience,
    embedded: true,
    ...(reference.controlUrl ? { controlUrl: reference.controlUrl } : {}),
  };
  const apps = { primary: reference.apps.primary, ...(reference.apps.limited ? { limited: reference.apps.limited } : {}), ...(reference.apps.other ? { other: reference.apps.other } : {}) };
  return { suiteConfig: suiteConfigFrom(config, target, apps, reference.fixtures), reference };
}

function openingLines(config: RunConfig, target: Target): string[] {
  const defects = config.defects.length ? `, defects: ${config.defects.join(', ')}` : '';
  return [
    `conformance run ${config.settings.runId}`,
    `target: ${target.baseUrl}${target.embedded ? ` (embedded reference${defects})` : ''}`,
    `profile: ${config.settings.profile}; topics: ${config.topics.join(', ')}${config.shard ? `; shard ${config.shard}` : ''}`,
    `seed: ${config.settings.seed} (replay with --seed ${config.settings.seed}); runs per property: ${config.settings.runs}`,
    ...(target.embedded ? [] : (config.fixtureLines ?? [])),
  ];
}

/** The suite file of each selected topic; a topic without one is a harness error. */
function suiteFiles(config: RunConfig, suitesDir: string): { files: string[]; missing: HarnessErrorEntry[] } {
  const files: string[] = [];
  const missing: HarnessErrorEntry[] = [];
  for (const topic of config.topics) {
    const file = join(suitesDir, suiteFileName(topic));
    if (existsSync(file)) files.push(file);
    else missing.push({ code: 'SUITE_MISSING', message: `no suite for topic ${topic} (${suiteFileName(topic)})` });
  }
  return { files, missing };
}

/**
 * Whether the run's checks overlap, and how: against a host a run is a chain of round trips, so up
 * to CONFORMANCE_CONCURRENCY checks run at once (suites/support/lanes.ts keeps what must stay
 * ordered ordered, the reports and the exchange log in the order of a sequential run, and the one
 * client keeps the pacing and the request budget run-wide). Not against the embedded reference:
 * its run is bound by this machine's CPU rather than by round trips, and its control origin
 * (clock, faults) is state every check would share. Nor when the order itself matters or vitest
 * picks the checks: --max-failures (which checks count as "after" a failure), --shard (vitest
 * splits files), a name pattern (`replay`). CONFORMANCE_CONCURRENCY=1 runs one check at a time.
 */
function overlapOf(config: RunConfig, suiteConfig: SuiteConfig, files: string[], options: RunOptions): SuiteConfig['overlap'] {
  const { target, settings } = suiteConfig;
  if (target.embedded || target.controlUrl !== undefined || settings.concurrency <= 1) return undefined;
  if (config.shard || options.testNamePattern !== undefined || settings.maxFailures !== undefined || files.length === 0) return undefined;
  return {
    files: loadOrder(files, topicOfFile),
    topicOrder: orderTopics(files, topicOfFile).map(topicOfFile),
    lanes: settings.concurrency,
    checkTimeoutMs: checkTimeoutMs(settings),
  };
}

/**
 * Runs the suite files through vitest's Node API. vitest's own console output (banner, stacks) goes
 * to a buffer, shown only with CONFORMANCE_DEBUG=1. Returns the runner's failure, if any.
 */
async function runSuites(run: SuiteRunSpec, showOutput: Print, secrets: SecretSet): Promise<HarnessErrorEntry[]> {
  const output: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      output.push(String(chunk));
      callback();
    },
  });
  const vitest = await createVitest('test', suiteRunOptions(run) as never, {}, { stdout: sink, stderr: sink });
  const errors: HarnessErrorEntry[] = [];
  try {
    await vitest.start();
  } catch (error) {
    errors.push({ code: 'RUNNER_FAILED', message: redactText(firstLine((error as Error).message), secrets) });
  } finally {
    await vitest.close().catch(() => undefined);
    process.exitCode = undefined; // vitest sets it; the CLI decides the exit code
  }
  if (process.env.CONFORMANCE_DEBUG === '1') for (const chunk of output) showOutput(redactText(chunk.trimEnd(), secrets));
  return errors;
}

/** Writes the reports and the exchange log beside them, each scanned for the run's secrets first. */
async function writeRunFiles(config: RunConfig, result: RunResult, secrets: SecretSet, afterReports: RunOptions['afterReports']): Promise<string[]> {
  const reportFiles = await writeAll(config.reportDir, result, [...secrets.list()]);
  const leakScan = (files: Record<string, string>) => {
    const leaking = findLeaks(files, [...secrets.list()]);
    if (leaking.length > 0) {
      throw new HarnessError('SECRET_LEAK_BLOCKED', `a secret of the run would appear in ${leaking.join(', ')}; it was not written`);
    }
  };
  const exchangesFile = join(config.reportDir, 'exchanges.jsonl');
  if (existsSync(config.settings.exchangeLogPath)) {
    leakScan({ 'exchanges.jsonl': readFileSync(config.settings.exchangeLogPath, 'utf8') });
    copyFileSync(config.settings.exchangeLogPath, exchangesFile);
  }
  if (afterReports) await afterReports(result, leakScan);
  return existsSync(exchangesFile) ? [...reportFiles, exchangesFile] : reportFiles;
}

export async function runConformance(config: RunConfig, options: RunOptions = {}): Promise<RunOutcome> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const printError = options.printError ?? ((line: string) => process.stderr.write(`${line}\n`));
  const look = lookOf(process.stdout);
  const tty = options.tty ?? look.inPlace;
  const paint = paintWith({ colour: options.colour ?? look.colour });
  const mode = options.output ?? 'normal';
  const startedAt = new Date().toISOString();

  let reference: ReferenceHandle | undefined;
  let endGuard: () => void = () => undefined;
  const secrets = new SecretSet([...configSecrets(config.apps, config.fixtures, config.settings), ...proxyCredentials()]);
  const say: Print = (line) => print(redactText(line, secrets));
  const sayError: Print = (line) => printError(redactText(line, secrets));
  // Opening lines and progress only in the normal mode; --quiet and --json keep stdout for the end.
  const chatter: Print = mode === 'normal' ? say : () => undefined;
  try {
    const resolved = await resolveTarget(config);
    reference = resolved.reference;
    // An embedded reference holds ports: an orphaned run must not keep them (harness/orphan-guard.ts).
    if (reference) endGuard = guardAgainstOrphaning((gone) => {
      printError(orphanedLine('run', gone));
      process.kill(process.pid, 'SIGTERM');
    });
    const { suiteConfig } = resolved;
    for (const secret of suiteConfig.secrets) secrets.add(secret);
    for (const line of openingLines(config, suiteConfig.target)) chatter(line);

    if (!suiteConfig.target.embedded) {
      try {
        await probeTarget(suiteConfig);
      } catch (error) {
        // The run cannot be made; a report still says why (best effort), then exit 2 with the error.
        if (error instanceof HarnessError) {
          const entry = { code: error.code, message: redactText(error.message, secrets) };
          const info = runInfoOf(config, suiteConfig.target, startedAt, [entry]);
          await writeAll(config.reportDir, buildRunResult(info, []), [...secrets.list()]).catch(() => undefined);
        }
        throw error;
      }
    }
    resetExchangeLog(config.settings.exchangeLogPath);

    const suitesDir = options.suitesDir ?? SUITES_DIR;
    const { files, missing } = suiteFiles(config, suitesDir);
    const overlap = overlapOf(config, suiteConfig, files, options);
    const collector = new CheckCollector();
    const progress = new ProgressReporter({ print: chatter, tty: tty && mode === 'normal', paint, write: (text) => process.stdout.write(redactText(text, secrets)) });
    const runnerErrors =
      files.length === 0
        ? []
        : await runSuites(
            {
              suitesDir,
              files,
              suiteConfig: overlap ? { ...suiteConfig, overlap } : suiteConfig,
              reporters: [collector, progress],
              ...(options.testNamePattern !== undefined ? { testNamePattern: options.testNamePattern } : {}),
              ...(config.shard ? { shard: config.shard } : {}),
            },
            sayError,
            secrets,
          );

    // Tokens the workers obtained are secrets too: nothing below may write them.
    for (const token of readObtainedTokens(config.settings.exchangeLogPath)) secrets.add(token);

    const info = runInfoOf(config, suiteConfig.target, startedAt, [...missing, ...runnerErrors, ...collector.harnessErrors()]);
    // Defence in depth: workers redact what they know; the configured secrets go once more here.
    const scrub = <T>(value: T): T => JSON.parse(redactText(JSON.stringify(value), secrets)) as T;
    const built = buildRunResult(scrub(info), scrub(collector.checks()));
    const result = options.finalize ? await options.finalize(built) : built;
    const written = await writeRunFiles(config, result, secrets, options.afterReports);
    printEnd(result, written, mode, say, sayError, paint, options.gatingLines?.(result));
    return { exitCode: exitCodeOf(result), result, reportFiles: written };
  } finally {
    endGuard();
    if (reference) await reference.close().catch(() => undefined);
    rmSync(dirname(config.settings.exchangeLogPath), { recursive: true, force: true });
  }
}

async function writeAll(dir: string, result: RunResult, secrets: string[]): Promise<string[]> {
  try {
    return await writeReports(dir, result, secrets);
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    throw new HarnessError('REPORT_WRITE_FAILED', `reports could not be written to ${dir}: ${firstLine((error as Error).message)}`);
  }
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim()) ?? '').trim();
}

/**
 * The shards a set of shard results must make up: every `i/n` of one `n`. A shard that crashed
 * before writing its report would otherwise leave a green merged gate over part of the checks.
 */
export function checkShardsComplete(results: Array<{ dir: string; shard?: string }>): void {
  const parsed = results.map((r) => {
    const m = /^(\d+)\/(\d+)$/.exec(r.shard ?? '');
    if (!m) throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: ${r.dir} holds no shard report (run each share with --shard i/n)`);
    return { dir: r.dir, index: Number(m[1]), count: Number(m[2]) };
  });
  const count = parsed[0]?.count ?? 0;
  const other = parsed.find((p) => p.count !== count);
  if (other) throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: ${other.dir} is shard ${other.index}/${other.count}, the others are of ${count} shards`);
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !parsed.some((p) => p.index === i));
  if (missing.length > 0) {
    throw new HarnessError(
      'CONF_INVALID_VALUE',
      `--merge-reports: shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing (no report.json among the folders given); a merged verdict needs every shard`,
    );
  }
}

/** `--merge-reports DIR...`: one report from the report.json of every shard run. */
export async function mergeShardReports(dirs: string[], reportDir: string, print: Print, options: Pick<RunOptions, 'output' | 'printError'> = {}): Promise<RunOutcome> {
  if (dirs.length === 0) throw new HarnessError('CONF_INVALID_VALUE', '--merge-reports needs the folders of the shard runs');
  const results = dirs.map((dir) => {
    const file = join(dir, 'report.json');
    if (!existsSync(file)) throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: no report.json in ${dir} (did that shard crash before writing it?)`);
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as RunResult;
    } catch (error) {
      throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: ${file} is not JSON (${(error as Error).message.split('\n')[0]})`);
    }
  });
  checkShardsComplete(results.map((r, i) => ({ dir: dirs[i]!, ...(r.shard !== undefined ? { shard: r.shard } : {}) })));
  const merged = mergeRunResults(results);
  const written = await writeAll(reportDir, merged, []);
  const look = lookOf(process.stdout);
  printEnd(merged, written, options.output ?? 'normal', print, options.printError ?? ((line) => process.stderr.write(`${line}\n`)), paintWith(look));
  return { exitCode: exitCodeOf(merged), result: merged, reportFiles: written };
}
