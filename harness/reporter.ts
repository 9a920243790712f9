// The vitest reporter of a conformance run: it reads each test's `meta.conformance` (set by
// suites/support/check.ts) and its vitest result, and turns them into the four outcomes. It runs
// nothing and renders nothing; harness/result.ts and harness/reports/* take it from here.
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';
import type { Level } from '../spec/requirements.ts';
import { requirementById } from '../spec/requirements.ts';
import type { CheckMeta, CheckStatus } from '../core/model.ts';
import type { CollectedCheck, HarnessErrorEntry } from './result.ts';

export interface CheckCollectorOptions {
  /** Level of a requirement id; the catalogue's by default (tests pass their own). */
  levelOf?: (requirementId: string) => Level | undefined;
}

function defaultLevelOf(id: string): Level | undefined {
  return requirementById(id)?.level;
}

/** First line of an error message: stacks and diffs stay out of reports. */
function firstLine(text: string | undefined): string {
  const line = (text ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
  return line.trim();
}

function errorText(error: { name?: string; message?: string } | undefined): string {
  if (!error) return 'the check failed without an error message';
  const message = firstLine(error.message);
  const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
  return message ? `${name}${message}` : `${error.name ?? 'Error'} without a message`;
}

function conformanceMeta(test: TestCase): CheckMeta | undefined {
  return test.meta().conformance;
}

export class CheckCollector implements Reporter {
  private collected: CollectedCheck[] = [];
  private errors: HarnessErrorEntry[] = [];
  private readonly levelOf: (id: string) => Level | undefined;

  constructor(options: CheckCollectorOptions = {}) {
    this.levelOf = options.levelOf ?? defaultLevelOf;
  }

  /** Every check of the last run, in module then declaration order. */
  checks(): CollectedCheck[] {
    return this.collected.map((c) => ({ ...c }));
  }

  /** Suite files that failed to load and errors thrown outside any test. */
  harnessErrors(): HarnessErrorEntry[] {
    return this.errors.map((e) => ({ ...e }));
  }

  onTestRunStart(): void {
    this.collected = [];
    this.errors = [];
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    this.collected = [];
    this.errors = [];
    const modules = [...testModules].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
    for (const module of modules) {
      for (const error of module.errors()) {
        this.errors.push({ code: 'SUITE_LOAD_FAILED', message: `${module.relativeModuleId}: ${errorText(error)}` });
      }
      for (const test of module.children.allTests()) {
        const check = this.toCheck(test);
        if (check) this.collected.push(check);
      }
    }
    for (const error of unhandledErrors) {
      this.errors.push({ code: 'UNHANDLED_ERROR', message: errorText(error) });
    }
  }

  private toCheck(test: TestCase): CollectedCheck | undefined {
    const meta = conformanceMeta(test);
    // Tests that are not checks (declared without the check wrapper) are not conformance results.
    if (!meta) return undefined;
    const result = test.result();
    const check: CollectedCheck = {
      ...meta,
      requirements: [...meta.requirements],
      notes: [...(meta.notes ?? [])],
      advisories: [...(meta.advisories ?? [])],
      evidence: [...(meta.evidence ?? [])],
      title: test.name,
      status: 'error',
      // Overlapped, the check's own time; vitest's is how long its test waited for it.
      durationMs: meta.durationMs ?? test.diagnostic()?.duration ?? 0,
    };
    check.status = checkStatusOf(test, this.levelOf);
    if (result.state === 'skipped') {
      check.skipReason = meta.skipReason ?? result.note ?? (test.options.mode === 'todo' ? 'not written yet' : 'skipped without a stated reason');
      // Only a check that said so is not observable; any other skip is one the run could have avoided.
      check.skipKind = meta.skipKind ?? 'precondition';
    } else if (check.status === 'error') {
      check.errorMessage = result.state === 'failed' ? errorText(result.errors[0]) : 'the check did not finish (run interrupted)';
    }
    return check;
  }
}

/** The outcome of one check's test: the one classification the progress lines and reports share. */
export function checkStatusOf(test: TestCase, levelOf: (id: string) => Level | undefined = defaultLevelOf): CheckStatus {
  const result = test.result();
  switch (result.state) {
    case 'passed':
      return 'pass';
    case 'skipped':
      return 'skip';
    case 'failed': {
      const failure = conformanceMeta(test)?.failure;
      // A broken `should` is a warning; anything else cited (must, or unknown id) fails; no
      // conformance failure at all means the harness could not run the check.
      if (!failure) return 'error';
      return levelOf(failure.requirement) === 'should' ? 'warn' : 'fail';
    }
    default:
      return 'error';
  }
}
