// The layering of ARCHITECTURE.md, held to the code: every relative import of every TypeScript
// file (static, type-only and dynamic) must be one the table allows its folder, and no two modules
// may import each other through a loop. The table is read from ARCHITECTURE.md itself.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Folder (`core/`) to what it may import: folders (`spec/`), files (`harness/client.ts`) or everything. */
function readTable(): Map<string, { everything: boolean; allowed: string[] }> {
  const text = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const rows = text.split('\n').filter((line) => /^\| `[a-z]+\/`/.test(line));
  const table = new Map<string, { everything: boolean; allowed: string[] }>();
  for (const row of rows) {
    const cells = row.split('|').map((c) => c.trim());
    const folders = [...cells[1]!.matchAll(/`([a-z]+\/)`/g)].map((m) => m[1]!);
    const may = cells[3]!;
    const allowed = [...may.matchAll(/`([a-z-]+\/(?:[a-z-]+\/)*(?:[a-z-]+\.ts)?)`/g)].map((m) => m[1]!);
    for (const folder of folders) table.set(folder, { everything: may === 'everything', allowed });
  }
  return table;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.') || name === 'reports') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mjs)$/.test(name)) out.push(path);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*(?:new URL\(\s*)?['"](\.[^'"]+)['"]/g;

/** Relative imports of a file, as paths from the project root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => relative(ROOT, resolve(dirname(file), m[1] ?? m[2]!)).replace(/\\/g, '/'));
}

const files = sourceFiles(ROOT).map((f) => relative(ROOT, f).replace(/\\/g, '/')).filter((f) => f.includes('/'));
const table = readTable();
const folderOf = (path: string) => `${path.split('/')[0]}/`;

describe('ARCHITECTURE.md', () => {
  it('has a row for every top-level folder that holds code', () => {
    const folders = new Set(files.map(folderOf));
    expect([...folders].filter((f) => !table.has(f)).sort()).toEqual([]);
  });

  it('every import is one the table allows its folder', () => {
    const offending: string[] = [];
    for (const file of files) {
      const rule = table.get(folderOf(file))!;
      if (!rule || rule.everything) continue;
      for (const target of importsOf(file)) {
        const own = folderOf(target) === folderOf(file);
        // harness/gating/ sits above the rest of harness/: no other harness/ module imports it (cli/ does).
        const intoGating = target.startsWith('harness/gating/') && !file.startsWith('harness/gating/');
        const allowed = own ? !intoGating : rule.allowed.some((a) => (a.endsWith('/') ? target.startsWith(a) : target === a));
        if (!allowed) offending.push(`${file} -> ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('no module imports itself through a loop', () => {
    const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => files.includes(t))]));
    const loops: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        loops.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(loops).toEqual([]);
  });

  it('the check finds a forbidden import (the test can fail)', () => {
    expect(importsOf(join(ROOT, 'suites', 'support', 'context.ts'))).toContain('harness/http-client.ts');
    expect(table.get('spec/')!.allowed).toEqual(['core/']);
    expect(table.get('core/')!.allowed).toEqual([]);
  });
});
