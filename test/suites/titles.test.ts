// A check's title says what its verdict can be. Every check cites requirements and fails (or warns)
// when one is broken, so a title promising "never failing" or calling the check an advisory misleads
// whoever reads the console or the report. Advisories are findings inside a check, not checks.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../harness/fixtures/spawn.ts';

const suitesDir = join(ROOT, 'suites');
const titles = readdirSync(suitesDir)
  .filter((f) => f.endsWith('.suite.ts'))
  .flatMap((file) => [...readFileSync(join(suitesDir, file), 'utf8').matchAll(/title:\s*(['"`])((?:\\.|(?!\1).)*)\1/g)].map((m) => ({ file, title: m[2]! })));

describe('check titles and verdict levels agree', () => {
  it('finds the titles', () => expect(titles.length).toBeGreaterThan(50));

  it('no title says the check never fails or is (only) an advisory', () => {
    const misleading = titles.filter(({ title }) => /never fail|\(advisory\b|advisory only|not failing/i.test(title));
    expect(misleading).toEqual([]);
  });
});
