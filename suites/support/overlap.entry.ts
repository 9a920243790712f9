// The one vitest file of a run whose checks overlap (harness/runner.ts decides, against a host):
// it loads every selected topic suite, each under a describe named by its topic, so that one
// worker and one module state hold every check (vitest collects a file only when the previous one
// has run, and a worker per file would split the run's pacer and request budget). The lanes
// (suites/support/lanes.ts) run each check as it is declared, while the later suites still load;
// each test then waits for its check's outcome, in the declared order.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { inExchangeScope, writeExchangeLines, type ExchangeScope } from '../../harness/exchange-log.ts';
import { suiteContext } from './context.ts';
import { openLanes, sealLanes } from './lanes.ts';

const config = inject('conformance');
const overlap = config.overlap;
const failedToLoad: string[] = [];

if (overlap) {
  openLanes({
    lanes: overlap.lanes,
    checkTimeoutMs: overlap.checkTimeoutMs,
    logPath: config.settings.exchangeLogPath,
    topicOrder: overlap.topicOrder,
    // The applications' tokens first, outside any check: otherwise whichever check happened to ask
    // first would carry the token request in its count and its part of the log.
    before: async () => {
      const { api } = await suiteContext();
      // Side by side, each one's lines held and then written in one order (the log's first lines).
      const apps = (['primary', 'limited'] as const).filter((app) => config.apps[app] !== undefined);
      const scopes: ExchangeScope[] = apps.map(() => ({ sent: 0, held: [] }));
      await Promise.all(apps.map((app, i) => inExchangeScope(scopes[i]!, () => api.token(app).catch(() => undefined))));
      for (const scope of scopes) writeExchangeLines(config.settings.exchangeLogPath, scope.held ?? []);
    },
  });
}

for (const file of overlap?.files ?? []) {
  describe(basename(file).replace(/\.suite\.[cm]?[jt]s$/, ''), async () => {
    try {
      await import(pathToFileURL(file).href);
    } catch (error) {
      failedToLoad.push(`${basename(file)}: ${(error as Error).message ?? String(error)}`);
    }
  });
}

// Every check is declared once the file is collected; the lanes run the last topics, then the rest.
beforeAll(() => sealLanes());

// A topic suite that cannot be loaded is reported as such (SUITE_LOAD_FAILED), the others still run.
afterAll(() => {
  if (failedToLoad.length > 0) throw new Error(`suite could not be loaded: ${failedToLoad.join('; ')}`);
});
