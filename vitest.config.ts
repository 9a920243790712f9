import { defineConfig } from 'vitest/config';

// The project's own tests. The topic suites in suites/ are run by harness/runner.ts, not here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One temp root for the whole run, removed at its end (test/temp-root.ts).
    globalSetup: ['test/temp-root.ts'],
  },
});
