// Runs fixture suites through vitest's Node API with the CheckCollector attached, as the runner
// does with the real suites.
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { startVitest } from 'vitest/node';
import type { SuiteConfig } from '../../core/model.ts';
import { CheckCollector, type CheckCollectorOptions } from '../../harness/reporter.ts';
import { levelOf } from './catalogue.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What the check wrapper's context needs; no request is ever sent by the fixtures. */
const suiteConfig: SuiteConfig = {
  target: { baseUrl: 'http://127.0.0.1:9', tokenUrl: 'http://127.0.0.1:9/oauth2/token', audience: 'service-external-api', embedded: true },
  apps: {},
  fixtures: {},
  params: { limit: 'limit', cursor: 'cursor', status: 'status', to: 'to' },
  settings: {
    runId: 'fixture-run',
    profile: 'safe',
    seed: 42,
    runs: 1,
    maxRequests: 0,
    concurrency: 1,
    timeoutMs: 1000,
    settleTimeoutMs: 1000,
    exchangeLogPath: '',
  },
  secrets: [],
};

/** Runs fixture files; levels come from the test catalogue unless `options` says otherwise. */
export async function runFixtures(files: string[], options: CheckCollectorOptions = { levelOf }): Promise<CheckCollector> {
  const collector = new CheckCollector(options);
  const exitCode = process.exitCode;
  const vitest = await startVitest(
    'test',
    [],
    {
      root,
      config: false,
      watch: false,
      include: files.map((f) => `test/reports/fixtures/${f}`),
      reporters: [collector],
      pool: 'threads',
      maxWorkers: 1,
      provide: { conformance: suiteConfig },
    },
    {},
    { stdout: new PassThrough(), stderr: new PassThrough() },
  );
  await vitest.close();
  // A failing fixture run marks the process as failed; this process only observed it.
  process.exitCode = exitCode;
  return collector;
}
