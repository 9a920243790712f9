// What `check` pays for an exchange before any rule looks at it: the file streamed and cut into
// lines, each line parsed into an exchange, and each exchange observed as the rules receive it
// (both bodies parsed, the URL matched to its operation, the token read). No rule runs. Run by
// bench/traffic-check.ts with check's own young generation, on the compiled code as the bin runs
// check (a checkout without dist/ runs the sources through the bin's hooks). Measurement only.
//
//   node --max-semi-space-size=8 bench/reading-floor.mjs FILE
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const compiled = new URL('../dist/traffic/', import.meta.url);
const code = existsSync(new URL('read.js', compiled)) ? { dir: compiled, ext: 'js' } : { dir: new URL('../traffic/', import.meta.url), ext: 'ts' };
if (code.ext === 'ts') register('../bin/ts-hooks.mjs', { parentURL: import.meta.url, data: {} });
const { streamTraffic } = await import(new URL(`read.${code.ext}`, code.dir).href);
const { observe } = await import(new URL(`context.${code.ext}`, code.dir).href);

const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/reading-floor.mjs FILE\n');
  process.exit(2);
}
let exchanges = 0;
let parsed = 0;
try {
  const { batches } = await streamTraffic([file]);
  for await (const batch of batches) {
    for (const ex of batch) {
      exchanges += 1;
      // Read what observing made, so no engine can drop the work as unused.
      if (observe(ex).json !== undefined) parsed += 1;
    }
  }
} catch (error) {
  process.stderr.write(`reading-floor: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify({ exchanges, parsed })}\n`);
