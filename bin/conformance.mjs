#!/bin/sh
":" //; case "$1" in check) exec node --max-semi-space-size=8 -- "$0" "$@";; esac; exec node --max-semi-space-size=1 --optimize-for-size -- "$0" "$@"
// Entry point of `npx conformance`. The first two lines are a shell script to the system and a
// string and a comment to Node: the shell starts Node with the V8 flags the command needs (V8 reads
// them only at start), `check` its own (below), so no Node waits for another.
// It runs the compiled JavaScript of dist/ (built at pack time by
// scripts/build.ts; the installed package has nothing else), or, in a development checkout, the
// TypeScript sources through tsx (bin/ts-hooks.mjs). CONFORMANCE_CODE=source|dist chooses.
// Paths come from this file's URL, so any working directory works.
// The `--` keeps Node 20 from taking `--env-file F` after the script name as its own option
// (it would exit 9 on a missing file before this code runs); `--env-file` is the CLI's.
// A small young generation and size-first heuristics keep a whole run's peak RSS under 300 MB
// (docs/benchmark.md) at a cost of about 5 % in wall time.
// This file and node-version.mjs are all an old Node loads: plain syntax (no top-level await), the
// version checked before any other import, so an unsupported Node gets one line and exit 2.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { nodeVersionProblem } from './node-version.mjs';

const tooOld = nodeVersionProblem(process.versions.node);
if (tooOld) {
  process.stderr.write(tooOld + '\n');
  process.exit(2);
}

// No background Sparkplug or Maglev compilation, as on Node 20 (Node 22 and 24 turn both on): a
// background compile waiting for a collection while the main thread, in process.exit, joins its
// thread never ends, and a finished command hangs (seen on Node 24.21 in CI and caught by gdb:
// the exit joining a V8Worker parked in CollectionBarrier::AwaitCollectionBackground under
// ConcurrentBaselineCompiler; nodejs/node#54918). Set here, not in the shebang, where an old Node
// would refuse the flag before its version line; every isolate made after (vitest's worker, the
// `check` child) starts without them.
for (const flag of ['--no-concurrent-sparkplug', '--no-maglev']) setFlagsFromString(flag);

const root = new URL('..', import.meta.url);
const compiled = new URL('dist/cli/main.js', root);
const source = new URL('cli/main.ts', root);

/**
 * The installed package has only dist/. A checkout runs its sources, so an edit needs no rebuild
 * and a dist/ being rebuilt (npm pack) never changes under a running command.
 */
function chooseCode() {
  const asked = process.env.CONFORMANCE_CODE;
  if (asked === 'dist' || asked === 'source') {
    if (existsSync(asked === 'dist' ? compiled : source)) return asked;
    process.stderr.write(`conformance: CONFORMANCE_CODE=${asked}, but this package has no ${asked === 'dist' ? 'dist/ (npm run build)' : 'TypeScript sources'}\n`);
    process.exit(2);
  }
  return existsSync(source) ? 'source' : 'dist';
}

/** The chosen code's `main`, its exit status the process's. */
function start() {
  const code = chooseCode();
  if (process.env.CONFORMANCE_DEBUG === '1') process.stderr.write(`conformance: running ${code === 'dist' ? 'dist/cli/main.js (compiled)' : 'cli/main.ts (tsx)'}\n`);
  let entry = compiled;
  let ready = Promise.resolve();
  if (code === 'source') {
    // tsx for the project's files only (see ts-hooks.mjs); `data` is what tsx's hooks initialise from.
    ready = import('node:module').then(({ register }) => {
      register('./ts-hooks.mjs', { parentURL: import.meta.url, data: {} });
    });
    entry = source;
  }
  return ready.then(() => import(entry.href)).then(({ main }) => main(process.argv.slice(2)));
}

/**
 * `check` streams millions of short-lived exchanges: in the 1 MiB young generation above it spent a
 * third of its time collecting them, and V8 reads that size only when it starts (check setting it
 * later changed nothing). So `check` runs with an 8 MiB one (100 MB log, least CPU of three runs
 * each, 2026-11-27: 1 MiB 3.38 s, 8 MiB 2.74 s, 16 MiB 2.75 s, 32 MiB 2.87 s at 30 MiB more RSS).
 * The shell lines above start it so; started otherwise (`node bin/conformance.mjs check`), it runs
 * in a child Node with that flag, this process only waiting for it (about 37 MiB of the node
 * binary's pages counted twice in a summed RSS). Its exit status and output are the child's.
 */
const CHECK_YOUNG_GENERATION = '--max-semi-space-size=8';

function startCheck() {
  return import('node:child_process').then(({ spawn }) => new Promise((resolve) => {
    const child = spawn(process.execPath, [CHECK_YOUNG_GENERATION, '--', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
    // Ctrl-C reaches the child from the terminal too; a signal sent to this process alone is passed on.
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
    child.on('exit', (status, signal) => resolve(status ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 2)));
  }));
}

const isCheck = process.argv[2] === 'check' && !process.execArgv.includes(CHECK_YOUNG_GENERATION);
(isCheck ? startCheck() : start()).then((status) => process.exit(status));
