// Which checks catch each defect on the embedded reference, as the last full matrix found them
// (scripts/catchers.json, written by `npm run matrix -- --write-catchers`). The matrix holds every
// run to it: a check that stops catching a defect it caught is a regression, even while another
// check still catches it. That is what makes a weakened assertion turn the matrix red when the
// rule it guards is also guarded elsewhere (npm run mutate).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CATCHERS_FILE = fileURLToPath(new URL('./catchers.json', import.meta.url));

export type Catchers = Record<string, string[]>;

export function readCatchers(file = CATCHERS_FILE): Catchers {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Catchers) : {};
}

/** Defect id -> the checks that caught it, sorted, one line per defect so that a diff reads well. */
export function writeCatchers(outcomes: ReadonlyArray<{ defect: string; citingChecks: string[] }>, file = CATCHERS_FILE): void {
  const lines = [...outcomes]
    .sort((a, b) => a.defect.localeCompare(b.defect))
    .map((o) => `  ${JSON.stringify(o.defect)}: ${JSON.stringify([...new Set(o.citingChecks)].sort())}`);
  writeFileSync(file, `{\n${lines.join(',\n')}\n}\n`);
}
