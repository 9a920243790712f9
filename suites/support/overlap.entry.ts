// The one vitest file of a run whose checks overlap (harness/runner.ts decides, against a host):
// it loads every selected topic suite, each under a describe named by its topic, so that one
// worker and one module state hold every check (vitest collects a file only when the previous one
// has run, and a worker per file would split the run's pacer and request budget). Before the first
// test, the lanes (suites/support/lanes.ts) start running the checks vitest is about to run; each
// test then waits for its check's outcome, in the declared order.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import type { RunnerTask as Task, RunnerTestSuite as Suite } from 'vitest';
import type { CheckMeta } from '../../core/model.ts';
import { suiteContext } from './context.ts';
import { startLanes } from './lanes.ts';

const config = inject('conformance');
const overlap = config.overlap;
const failedToLoad: string[] = [];

for (const file of overlap?.files ?? []) {
  describe(basename(file).replace(/\.suite\.[cm]?[jt]s$/, ''), async () => {
    try {
      await import(pathToFileURL(file).href);
    } catch (error) {
      failedToLoad.push(`${basename(file)}: ${(error as Error).message ?? String(error)}`);
    }
  });
}

/** The checks vitest will run (a name pattern leaves the others skipped), in its order. */
function checksOf(task: Task, out: CheckMeta[] = []): CheckMeta[] {
  if (task.type === 'test') {
    if (task.mode === 'run' && task.meta.conformance) out.push(task.meta.conformance);
  } else {
    for (const child of (task as Suite).tasks) checksOf(child, out);
  }
  return out;
}

// vitest passes the fixtures first (an object pattern, none used here), then the file's task tree.
// eslint-disable-next-line no-empty-pattern
beforeAll(({}, file) => {
  if (!overlap) return;
  startLanes(checksOf(file as Task), {
    lanes: overlap.lanes,
    checkTimeoutMs: overlap.checkTimeoutMs,
    logPath: config.settings.exchangeLogPath,
    // The applications' tokens first, outside any check: otherwise whichever check happened to ask
    // first would carry the token request in its count and its part of the log.
    before: async () => {
      const { api } = await suiteContext();
      // One after the other, so that the log's first lines come in one order.
      for (const app of ['primary', 'limited'] as const) {
        if (config.apps[app] !== undefined) await api.token(app).catch(() => undefined);
      }
    },
  });
});

// A topic suite that cannot be loaded is reported as such (SUITE_LOAD_FAILED), the others still run.
afterAll(() => {
  if (failedToLoad.length > 0) throw new Error(`suite could not be loaded: ${failedToLoad.join('; ')}`);
});
