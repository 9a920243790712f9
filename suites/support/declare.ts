// Where the suites' declarations go: to vitest in a run, or to a collector when `plan` (and
// `certify`) only read which checks a run would make (harness/gating/declarations.ts). Loading
// vitest and vite to read declarations took seconds; a collector takes the suites' import time.
// Suites and their support modules reach vitest through this module only.
import type { TestContext } from 'vitest';
import { declarationCollector as collector, type CheckMeta, type SuiteConfig } from '../../core/model.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    conformance: SuiteConfig;
  }
}

// Top-level await: a process that only collects never loads vitest.
const vitest = collector() ? undefined : await import('vitest');

function runner(): typeof import('vitest') {
  if (!vitest) throw new Error('vitest was not loaded: these suites were first imported to collect their declarations');
  return vitest;
}

export function describe(name: string, body: () => void): void {
  const active = collector();
  if (active) {
    active.described.push(name);
    active.pending.push(body);
  } else runner().describe(name, body);
}

/** A check's test: its name, its meta (CheckMeta under `conformance`), its timeout and body. */
export function declareTest(
  name: string,
  options: { meta: { conformance: CheckMeta }; timeout: number | undefined },
  body: (ctx: TestContext) => Promise<void>,
): void {
  const active = collector();
  if (active) active.declared.push({ name, meta: options.meta.conformance });
  else runner().it(name, options, body);
}

/** The run's configuration, as the runner (or the collector) provides it. */
export function providedConfig(): SuiteConfig {
  return collector()?.suiteConfig ?? runner().inject('conformance');
}
