// Setup file of every suite worker: fast-check takes the run's seed and number of runs, so every
// property of every topic replays with `--seed N`.
import fc from 'fast-check';
import { inject } from 'vitest';

const { settings } = inject('conformance');
fc.configureGlobal({ seed: settings.seed, numRuns: settings.runs });
