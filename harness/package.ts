// Where the package's files are and in which order its topic suites run: light on purpose, so
// commands that run no check (help, version, baseline, verify-certificate) never load vitest.
import { fileURLToPath } from 'node:url';
import type { Topic } from '../core/model.ts';
import { TOPICS } from '../core/model.ts';

/** Root of the installed package (never the user's working directory). */
export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Topics that read the exchange log of the whole run, so they run last, in this order (their
 * readers also after every check of the other topics when checks overlap, suites/support/lanes.ts).
 */
export const READS_WHOLE_RUN: Topic[] = ['request-id', 'problem-details', 'schemas'];

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
