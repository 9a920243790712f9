// The one place vitest's options for the topic suites are built: a run and its plan (`plan`,
// `--dry-run`) collect the same files under the same settings, so a plan predicts the run.
import { join } from 'node:path';
import { BaseSequencer } from 'vitest/node';
import type { Reporter, TestSpecification } from 'vitest/node';
import type { SuiteConfig } from '../core/model.ts';
import { topicOfFile } from './output.ts';
import { PACING_BOUND_MS } from './pacing.ts';
import { CODE_EXTENSION, CODE_ROOT, COMPILED, PACKAGE_ROOT, orderTopics } from './package.ts';

export { PACKAGE_ROOT, READS_WHOLE_RUN, loadOrder, orderTopics } from './package.ts';

class TopicSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return orderTopics(files, (f) => topicOfFile(f.moduleId));
  }
}

export interface SuiteRunSpec {
  suitesDir: string;
  /** Absolute paths of the topic files. */
  files: string[];
  suiteConfig: SuiteConfig;
  reporters: Reporter[];
  testNamePattern?: string;
  shard?: string;
}

/** How long one check may run: it may also wait out the host's pace (harness/pacing.ts) before its verdict. */
export function checkTimeoutMs(settings: SuiteConfig['settings']): number {
  return settings.settleTimeoutMs * 2 + settings.timeoutMs * 4 + 30_000 + PACING_BOUND_MS;
}

/**
 * The compiled modules the suites import (dist/, all but the suite and entry files vitest runs
 * itself): loaded by Node as they are, not transformed again by vite, which spares the worker
 * the transform's time and the module graph's memory. vite names modules with forward slashes.
 */
const COMPILED_MODULES = new RegExp(`^${CODE_ROOT.replace(/\\/g, '/').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!suites/[^/]+\\.suite\\.js$|suites/support/overlap\\.entry\\.js$|harness/vitest-setup\\.js$)`);

/** The one vitest file of an overlapped run (suites/support/lanes.ts). */
const OVERLAP_DIR = join(CODE_ROOT, 'suites', 'support');
const OVERLAP_ENTRY = `overlap.entry${CODE_EXTENSION}`;

/**
 * CONFORMANCE_MODULE_CACHE=dir: vitest keeps the suites' transformed modules in that folder from
 * run to run (its `experimental.fsModuleCache`, keyed by each file's content, vitest's version and
 * the lockfile). For many runs in one process, the matrix's: a run of one topic then takes about
 * 0.7 s instead of 1.2. Off for users: a folder vitest writes code into must be theirs alone.
 */
function moduleCache(): Record<string, unknown> {
  const dir = process.env.CONFORMANCE_MODULE_CACHE;
  return dir ? { experimental: { fsModuleCache: true, fsModuleCachePath: dir } } : {};
}

/** vitest options for the topic suites (passed to createVitest as they are). */
export function suiteRunOptions(spec: SuiteRunSpec): Record<string, unknown> {
  const { settings } = spec.suiteConfig;
  const settle = settings.settleTimeoutMs;
  // Overlapped: one entry file loads the topic files (suiteConfig.overlap lists them in run order);
  // its tests only wait for the lanes, which hold each check to its own timeout.
  const overlapped = spec.suiteConfig.overlap !== undefined;
  return {
    root: PACKAGE_ROOT,
    dir: overlapped ? OVERLAP_DIR : spec.suitesDir,
    config: false,
    include: overlapped ? [OVERLAP_ENTRY] : orderTopics(spec.files, topicOfFile).map((f) => f.slice(spec.suitesDir.length + 1).replace(/\\/g, '/')),
    watch: false,
    reporters: spec.reporters,
    provide: { conformance: spec.suiteConfig },
    setupFiles: [join(CODE_ROOT, 'harness', `vitest-setup${CODE_EXTENSION}`)],
    fileParallelism: false,
    // One worker thread for every topic file: a fresh worker per file cost about 1 s each
    // (start, imports, schema compilation), most of a run's wall time, and a thread rather than
    // a child process spares a second Node runtime in memory (bench/, docs/benchmark.md).
    // Suites keep their state in their own modules; the shared client counts the run-wide budget.
    pool: 'threads',
    isolate: false,
    sequence: { sequencer: TopicSequencer },
    testTimeout: overlapped ? 0 : checkTimeoutMs(settings),
    hookTimeout: settle + settings.timeoutMs * 4 + 30_000 + PACING_BOUND_MS,
    passWithNoTests: true,
    ...(COMPILED ? { server: { deps: { external: [COMPILED_MODULES] } } } : {}),
    silent: true,
    ...moduleCache(),
    ...(spec.testNamePattern !== undefined ? { testNamePattern: spec.testNamePattern } : {}),
    ...(spec.shard ? { shard: spec.shard } : {}),
  };
}
