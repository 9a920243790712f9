// The checks the suites declare for a run, read without vitest: each suite file is imported with a
// collector set (suites/support/declare.ts sends its declarations there instead of to vitest), so
// no check body runs and neither vite nor vitest starts. `plan` took seconds through vitest's
// collect mode; this takes the suites' import time.
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setDeclarationCollector, type DeclarationCollector, type SuiteConfig } from '../../core/model.ts';

export interface SuiteDeclarations {
  /** The file, as given. */
  file: string;
  declared: DeclarationCollector['declared'];
  /** Why the file did not load, if it did not (its declarations are then missing). */
  error?: string;
}

/** Each collection imports the files afresh (a query the module cache has not seen). */
let collections = 0;
/** One collection at a time: the collector is process-wide while the files load. */
let queue: Promise<unknown> = Promise.resolve();

/** Runs the queued describe bodies once their file has loaded, as vitest does: depth first, in order. */
function runDescribeBodies(collector: DeclarationCollector): void {
  for (const body of collector.pending.splice(0)) {
    body();
    runDescribeBodies(collector);
  }
}

async function collectEach(files: string[], suiteConfig: SuiteConfig, root: string): Promise<SuiteDeclarations[]> {
  const generation = ++collections;
  const found: SuiteDeclarations[] = [];
  try {
    for (const file of files) {
      const collector: DeclarationCollector = { suiteConfig, declared: [], described: [], pending: [] };
      setDeclarationCollector(collector);
      try {
        await import(`${pathToFileURL(file).href}?declarations=${generation}`);
        runDescribeBodies(collector);
        // A file that declared through vitest itself would otherwise plan nothing, silently.
        const unread = collector.described.length === 0 && collector.declared.length === 0;
        found.push({
          file,
          declared: collector.declared,
          ...(unread ? { error: `${relative(root, file)}: declares no check through suites/support/declare.ts (describe and check from there)` } : {}),
        });
      } catch (error) {
        const message = (error as Error)?.message ?? String(error);
        found.push({ file, declared: [], error: `${relative(root, file)}: ${message.split('\n')[0]}` });
      }
    }
  } finally {
    setDeclarationCollector(undefined);
  }
  return found;
}

/** The declarations of each suite file under `suiteConfig`, in the order given. */
export function collectDeclarations(files: string[], suiteConfig: SuiteConfig, root: string): Promise<SuiteDeclarations[]> {
  const next = queue.then(() => collectEach(files, suiteConfig, root));
  queue = next.catch(() => undefined);
  return next;
}
