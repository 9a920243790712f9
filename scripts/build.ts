// `npm run build` (and `prepack`): compiles the shipped folders to dist/ as ESM JavaScript with
// tsc (tsconfig.build.json rewrites the `.ts` import specifiers to `.js`), and copies the spec
// files the compiled code reads beside it. The published package runs dist/ and needs no tsx;
// bin/conformance.mjs runs it where there are no sources (the installed package), or when
// CONFORMANCE_CODE=dist asks.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { parsedJsonName } from '../spec/documents.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');

rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// Everything on stderr: `npm pack --json` (prepack) keeps stdout for its JSON.
const built = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: ['ignore', 2, 2] });
if (built.status !== 0) {
  process.stderr.write('build: tsc failed; dist/ is left incomplete and unused\n');
  process.exit(1);
}
// spec/contract.ts and spec/requirements.ts read these from their own folder; each YAML document
// also goes parsed, as JSON, which spec/documents.ts reads instead of parsing the YAML at every start.
for (const name of readdirSync(join(ROOT, 'spec'))) {
  if (!/\.(yaml|json)$/.test(name)) continue;
  copyFileSync(join(ROOT, 'spec', name), join(DIST, 'spec', name));
  if (name.endsWith('.yaml')) {
    const data: unknown = parse(readFileSync(join(ROOT, 'spec', name), 'utf8'));
    writeFileSync(join(DIST, 'spec', parsedJsonName(name)), JSON.stringify(data));
  }
}
process.stderr.write('build: dist/ compiled\n');
