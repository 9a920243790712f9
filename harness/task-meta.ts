// vitest's task meta carries each check's CheckMeta under `conformance`: suites/support/check.ts
// writes it, harness/reporter.ts and the plan read it. Typed once here, for all of them.
import type { CheckMeta } from '../core/model.ts';

declare module 'vitest' {
  interface TaskMeta {
    conformance?: CheckMeta;
  }
}
