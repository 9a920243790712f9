import { defineConfig } from 'vitest/config';
import { MatrixFirstSequencer } from './test/sequencer.ts';

// The project's own tests. The topic suites in suites/ are run by harness/runner.ts, not here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at once (vitest's default is one fewer than the cores: one on CI's 2-core machine,
    // where the matrix alone held the only worker for eight minutes). The matrix runs first, every
    // other file beside it (test/sequencer.ts).
    maxWorkers: 2,
    sequence: { sequencer: MatrixFirstSequencer },
    // One temp root for the whole run, removed at its end (test/temp-root.ts).
    globalSetup: ['test/temp-root.ts'],
  },
});
