// Every catalogue entry that can be observed (black-box, needs a fixture or a fault) is cited, as
// `[ID]` in a test title, by at least one of the reference's own tests; every cited id exists.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requirementById, requirements } from '../../spec/requirements.ts';

const dir = fileURLToPath(new URL('.', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.test.ts') && f !== 'coverage.test.ts' && f !== 'defects.test.ts');
const cited = new Set<string>();
for (const file of files) {
  const text = readFileSync(`${dir}/${file}`, 'utf8');
  for (const m of text.matchAll(/\[([A-Z][A-Z0-9-]+(?:, [A-Z][A-Z0-9-]+)*)\]['"`]/g)) for (const id of m[1]!.split(', ')) cited.add(id);
}

describe("the reference's own tests", () => {
  it('cite every observable catalogue entry', () => {
    const missing = requirements.filter((r) => r.testability !== 'not-testable' && !cited.has(r.id)).map((r) => r.id);
    expect(missing).toEqual([]);
  });

  it('cite only ids that exist in the catalogue', () => {
    expect([...cited].filter((id) => !requirementById(id))).toEqual([]);
  });
});
