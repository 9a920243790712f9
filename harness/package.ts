// Where the package's files are and in which order its topic suites run: light on purpose, so
// commands that run no check (help, version, baseline, verify-certificate) never load vitest.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Topic } from '../core/model.ts';
import { TOPICS } from '../core/model.ts';

/**
 * Whether this is the compiled JavaScript of dist/ (an installed package, or a built checkout)
 * rather than the TypeScript sources run through tsx: the suites and the vitest setup file of a
 * run are then the compiled ones too.
 */
export const COMPILED = import.meta.url.endsWith('.js');

/** Root of the running code: the package itself, or its dist/ folder when compiled. */
export const CODE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Root of the installed package, where package.json is (never the user's working directory). */
export const PACKAGE_ROOT = COMPILED ? fileURLToPath(new URL('../..', import.meta.url)) : CODE_ROOT;

/** Extension of the running code's modules: `.ts` from the sources, `.js` from dist/. */
export const CODE_EXTENSION = COMPILED ? '.js' : '.ts';

/** The package's own topic suites, in the running code's form. */
export const SUITES_DIR = join(CODE_ROOT, 'suites');

/** File name of a topic's suite (`wallet.suite.ts`, or `wallet.suite.js` when compiled). */
export const suiteFileName = (topic: string): string => `${topic}.suite${CODE_EXTENSION}`;

/**
 * Topics that read the exchange log of the whole run, so they run last, in this order (their
 * readers also after every check of the other topics when checks overlap, suites/support/lanes.ts).
 */
export const READS_WHOLE_RUN: Topic[] = ['request-id', 'problem-details', 'schemas'];

/**
 * Topics whose checks make the longest chains of round trips (one request after the other), longest
 * first: when checks overlap (suites/support/lanes.ts) they are loaded and started first, so that
 * they do not end last. Only the speed of a run follows this list, never its order of record.
 */
export const LONGEST_CHAINS: Topic[] = ['sequences', 'validation', 'auth-ordering', 'cursors', 'idempotency', 'bulk-invariants'];

/** The order topics are loaded in when checks overlap: the longest chains first, then the run order. */
export function loadOrder<T>(items: T[], topicOf: (item: T) => string): T[] {
  const ordered = orderTopics(items, topicOf);
  const first = (t: string) => (READS_WHOLE_RUN.includes(t as Topic) ? -1 : LONGEST_CHAINS.indexOf(t as Topic));
  const leading = ordered.filter((item) => first(topicOf(item)) >= 0).sort((a, b) => first(topicOf(a)) - first(topicOf(b)));
  return [...leading, ...ordered.filter((item) => first(topicOf(item)) < 0)];
}

/** Request-id, problem-details and schemas last; the others in catalogue order. */
export function orderTopics<T>(items: T[], topicOf: (item: T) => string): T[] {
  const rank = (t: string) => {
    const last = READS_WHOLE_RUN.indexOf(t as Topic);
    if (last >= 0) return 1000 + last;
    const i = TOPICS.indexOf(t as Topic);
    return i >= 0 ? i : 500;
  };
  return [...items].sort((a, b) => rank(topicOf(a)) - rank(topicOf(b)));
}
