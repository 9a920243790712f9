// `conformance run`: checks that the run can be made, starts the embedded reference when no host
// is configured, drives vitest through its Node API over suites/<topic>.suite.ts, then builds the
// run result, writes the reports and prints the summary. Exit codes: 0 pass, 1 a check failed,
// 2 the run could not be made (or not completely: errors in the harness or a suite).
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { BaseSequencer, createVitest } from 'vitest/node';
import type { TestSpecification, Vitest } from 'vitest/node';
import { contractSha256, contractVersion } from '../spec/contract.ts';
import type { RunConfig } from './config.ts';
import { configSecrets, envLinesFor } from './config.ts';
import { HarnessError } from './errors.ts';
import { resetExchangeLog } from './exchange-log.ts';
import { createApiClient } from './http-client.ts';
import type { AppCredentials, Fixtures, SuiteConfig, Target, Topic } from './model.ts';
import { TOPICS } from './model.ts';
import { ProgressReporter, summaryLines, topicOfFile } from './output.ts';
import type { Print } from './output.ts';
import { SecretSet, redactText } from './redact.ts';
import { CheckCollector } from './reporter.ts';
import { buildRunResult, mergeRunResults } from './result.ts';
import { findLeaks, writeReports } from './reports/index.ts';
import { readObtainedTokens } from './gating/token-log.ts';
import type { HarnessErrorEntry, RunInfo, RunResult } from './result.ts';

/** Root of the installed package (never the user's working directory). */
export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SUITES_DIR = join(PACKAGE_ROOT, 'suites');

/** Topics that read the exchange log of the whole run, so they run last. */
export const READS_WHOLE_RUN: Topic[] = ['problem-details', 'schemas'];

/** What reference/index.ts offers (loaded only when the run targets it). */
export interface ReferenceHandle {
  baseUrl: string;
  tokenUrl: string;
  controlUrl?: string;
  audience: string;
  apps: { primary: AppCredentials; limited?: AppCredentials };
  fixtures: Fixtures;
  defects?: string[];
  envLines(): string[];
  close(): Promise<void>;
}

export interface ReferenceOptions {
  defects?: string[];
  port?: number;
}

export async function startEmbeddedReference(options: ReferenceOptions): Promise<ReferenceHandle> {
  // Loaded lazily: a run against a host never loads the reference.
  const { startReference } = await import('../reference/index.ts');
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
  /** Progress lines rewritten in place (a terminal); plain lines otherwise. */
  tty?: boolean;
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
}

export interface RunOutcome {
  exitCode: 0 | 1 | 2;
  result: RunResult;
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

/** Problem-details and schemas last; the others in catalogue order. */
export function orderTopics<T>(items: T[], topicOf: (item: T) => string): T[] {
  const rank = (t: string) => {
    const last = READS_WHOLE_RUN.indexOf(t as Topic);
    if (last >= 0) return 1000 + last;
    const i = TOPICS.indexOf(t as Topic);
    return i >= 0 ? i : 500;
  };
  return [...items].sort((a, b) => rank(topicOf(a)) - rank(topicOf(b)));
}

class TopicSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return orderTopics(files, (f) => topicOfFile(f.moduleId));
  }
}

/**
 * Before vitest starts: the host answers at all, and the token endpoint gives the primary
 * application a token. Either failing is exit 2, within a short timeout.
 */
export async function probeTarget(config: SuiteConfig): Promise<void> {
  const timeoutMs = Math.min(config.settings.timeoutMs, 5_000);
  const probe = createApiClient({
    ...config,
    // Probes are not part of the run's evidence, and do not spend its budget.
    settings: { ...config.settings, timeoutMs, exchangeLogPath: '', maxRequests: 10, concurrency: 1 },
  });
  try {
    const answer = await probe.send({ method: 'GET', path: '/v1/', as: 'none', noRetry: true });
    if (answer.status === 0) {
      throw new HarnessError('TARGET_UNREACHABLE', `${config.target.baseUrl} did not answer: ${answer.exchange.transportError ?? 'no response'}`);
    }
    await probe.token('primary');
  } finally {
    await probe.close();
  }
}

function suiteConfigFrom(config: RunConfig, target: Target, apps: RunConfig['apps'], fixtures: Fixtures): SuiteConfig {
  return {
    target,
    apps,
    fixtures,
    params: config.params,
    settings: config.settings,
    secrets: configSecrets(apps, fixtures),
  };
}

export async function runConformance(config: RunConfig, options: RunOptions = {}): Promise<RunOutcome> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const printError = options.printError ?? ((line: string) => process.stderr.write(`${line}\n`));
  const tty = options.tty ?? Boolean(process.stdout.isTTY && !process.env.CI);
  const suitesDir = options.suitesDir ?? SUITES_DIR;
  const startedAt = new Date().toISOString();

  let reference: ReferenceHandle | undefined;
  let vitest: Vitest | undefined;
  const secrets = new SecretSet(configSecrets(config.apps, config.fixtures));
  const say: Print = (line) => print(redactText(line, secrets));
  try {
    let suiteConfig: SuiteConfig;
    if (config.target) {
      suiteConfig = suiteConfigFrom(config, config.target, config.apps, config.fixtures);
    } else {
      reference = await startEmbeddedReference({ defects: config.defects });
      const target: Target = {
        baseUrl: reference.baseUrl,
        tokenUrl: reference.tokenUrl,
        audience: reference.audience,
        embedded: true,
        ...(reference.controlUrl ? { controlUrl: reference.controlUrl } : {}),
      };
      const apps = { primary: reference.apps.primary, ...(reference.apps.limited ? { limited: reference.apps.limited } : {}) };
      suiteConfig = suiteConfigFrom(config, target, apps, reference.fixtures);
    }
    for (const secret of suiteConfig.secrets) secrets.add(secret);

    say(`conformance run ${config.settings.runId}`);
    say(`target: ${suiteConfig.target.baseUrl}${suiteConfig.target.embedded ? ' (embedded reference' + (config.defects.length ? `, defects: ${config.defects.join(', ')}` : '') + ')' : ''}`);
    say(`profile: ${config.settings.profile}; topics: ${config.topics.join(', ')}${config.shard ? `; shard ${config.shard}` : ''}`);
    say(`seed: ${config.settings.seed} (replay with --seed ${config.settings.seed}); runs per property: ${config.settings.runs}`);

    if (!suiteConfig.target.embedded) {
      try {
        await probeTarget(suiteConfig);
      } catch (error) {
        // The run cannot be made; a report still says why (best effort), then exit 2 with the error.
        if (error instanceof HarnessError) {
          const entry = { code: error.code, message: redactText(error.message, secrets) };
          const info: RunInfo = {
            tool: toolInfo(),
            contract: { version: contractVersion, sha256: contractSha256 },
            target: { baseUrl: suiteConfig.target.baseUrl, embedded: false },
            profile: config.settings.profile,
            seed: config.settings.seed,
            runs: config.settings.runs,
            startedAt,
            finishedAt: new Date().toISOString(),
            topics: config.topics,
            harnessErrors: [entry],
          };
          await writeAll(config.reportDir, buildRunResult(info, []), [...secrets.list()]).catch(() => undefined);
        }
        throw error;
      }
    }
    resetExchangeLog(config.settings.exchangeLogPath);

    const harnessErrors: HarnessErrorEntry[] = [];
    const files: string[] = [];
    for (const topic of config.topics) {
      const file = join(suitesDir, `${topic}.suite.ts`);
      if (existsSync(file)) files.push(file);
      else harnessErrors.push({ code: 'SUITE_MISSING', message: `no suite for topic ${topic} (${topic}.suite.ts)` });
    }

    const collector = new CheckCollector();
    const progress = new ProgressReporter({ print: say, tty, write: (text) => process.stdout.write(redactText(text, secrets)) });
    // vitest's own console output (banner, stacks) goes to a buffer, shown only with CONFORMANCE_DEBUG=1.
    const vitestOutput: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        vitestOutput.push(String(chunk));
        callback();
      },
    });
    const settle = config.settings.settleTimeoutMs;
    if (files.length > 0) {
      vitest = await createVitest(
        'test',
        {
          root: PACKAGE_ROOT,
          dir: suitesDir,
          config: false,
          include: orderTopics(files, topicOfFile).map((f) => f.slice(suitesDir.length + 1).replace(/\\/g, '/')),
          watch: false,
          reporters: [collector, progress],
          provide: { conformance: suiteConfig },
          setupFiles: [join(PACKAGE_ROOT, 'harness', 'vitest-setup.ts')],
          fileParallelism: false,
          // One worker thread for every topic file: a fresh worker per file cost about 1 s each
          // (start, imports, schema compilation), most of a run's wall time, and a thread rather than
          // a child process spares a second Node runtime in memory (bench/, docs/benchmark.md).
          // Suites keep their state in their own modules; the shared client counts the run-wide budget.
          pool: 'threads',
          isolate: false,
          sequence: { sequencer: TopicSequencer },
          testTimeout: settle * 2 + config.settings.timeoutMs * 4 + 30_000,
          hookTimeout: settle + config.settings.timeoutMs * 4 + 30_000,
          passWithNoTests: true,
          silent: true,
          ...(options.testNamePattern !== undefined ? { testNamePattern: options.testNamePattern } : {}),
          ...(config.shard ? { shard: config.shard } : {}),
        } as never,
        {},
        { stdout: sink, stderr: sink },
      );
      try {
        await vitest.start();
      } catch (error) {
        harnessErrors.push({ code: 'RUNNER_FAILED', message: redactText(firstLine((error as Error).message), secrets) });
      }
      await vitest.close();
      vitest = undefined;
      process.exitCode = undefined; // vitest sets it; the CLI decides the exit code
      if (process.env.CONFORMANCE_DEBUG === '1') for (const chunk of vitestOutput) printError(redactText(chunk.trimEnd(), secrets));
    }

    // Tokens the workers obtained are secrets too: nothing below may write them.
    for (const token of readObtainedTokens(config.settings.exchangeLogPath)) secrets.add(token);

    const info: RunInfo = {
      tool: toolInfo(),
      contract: { version: contractVersion, sha256: contractSha256 },
      target: {
        baseUrl: suiteConfig.target.baseUrl,
        embedded: suiteConfig.target.embedded,
        // So that `conformance replay` starts the reference with the same defects.
        ...(suiteConfig.target.embedded && config.defects.length > 0 ? { defects: [...config.defects] } : {}),
      },
      profile: config.settings.profile,
      seed: config.settings.seed,
      runs: config.settings.runs,
      startedAt,
      finishedAt: new Date().toISOString(),
      topics: config.topics,
      harnessErrors: [...harnessErrors, ...collector.harnessErrors()],
      ...(config.shard ? { shard: config.shard } : {}),
    };
    // Defence in depth: workers redact what they know; the configured secrets go once more here.
    const scrub = <T>(value: T): T => JSON.parse(redactText(JSON.stringify(value), secrets)) as T;
    const built = buildRunResult(scrub(info), scrub(collector.checks()));
    const result = options.finalize ? await options.finalize(built) : built;
    await writeAll(config.reportDir, result, [...secrets.list()]);
    const leakScan = (files: Record<string, string>) => {
      const leaking = findLeaks(files, [...secrets.list()]);
      if (leaking.length > 0) {
        throw new HarnessError('SECRET_LEAK_BLOCKED', `a secret of the run would appear in ${leaking.join(', ')}; it was not written`);
      }
    };
    if (existsSync(config.settings.exchangeLogPath)) {
      // The exchange log goes beside the reports, so it passes the same scan first.
      leakScan({ 'exchanges.jsonl': readFileSync(config.settings.exchangeLogPath, 'utf8') });
      copyFileSync(config.settings.exchangeLogPath, join(config.reportDir, 'exchanges.jsonl'));
    }
    if (options.afterReports) await options.afterReports(result, leakScan);
    for (const line of summaryLines(result, config.reportDir)) say(line);
    return { exitCode: exitCodeOf(result), result };
  } finally {
    if (vitest) await vitest.close().catch(() => undefined);
    if (reference) await reference.close().catch(() => undefined);
    rmSync(dirname(config.settings.exchangeLogPath), { recursive: true, force: true });
  }
}

async function writeAll(dir: string, result: RunResult, secrets: string[]): Promise<void> {
  try {
    await writeReports(dir, result, secrets);
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    throw new HarnessError('REPORT_WRITE_FAILED', `reports could not be written to ${dir}: ${firstLine((error as Error).message)}`);
  }
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim()) ?? '').trim();
}

/** `--merge-reports DIR...`: one report from the report.json of shard runs. */
export async function mergeShardReports(dirs: string[], reportDir: string, print: Print): Promise<RunOutcome> {
  const results = dirs.map((dir) => {
    const file = join(dir, 'report.json');
    if (!existsSync(file)) throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: no report.json in ${dir}`);
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as RunResult;
    } catch (error) {
      throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: ${file} is not JSON (${(error as Error).message})`);
    }
  });
  const merged = mergeRunResults(results);
  await writeAll(reportDir, merged, []);
  for (const line of summaryLines(merged, reportDir)) print(line);
  return { exitCode: exitCodeOf(merged), result: merged };
}
