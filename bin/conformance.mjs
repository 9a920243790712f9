#!/usr/bin/env -S node --max-semi-space-size=1 --optimize-for-size --
// Entry point of `npx conformance`: registers tsx (the project has no build step) and hands the
// arguments to harness/cli.ts. Paths come from this file's URL, so any working directory works.
// The `--` keeps Node 20 from taking `--env-file F` after the script name as its own option
// (it would exit 9 on a missing file before this code runs); `--env-file` is the CLI's.
// A small young generation and size-first heuristics keep a whole run's peak RSS under 300 MB
// (docs/benchmark.md) at a cost of about 5 % in wall time.
import { register } from 'node:module';

// tsx for the project's files only (see ts-hooks.mjs); `data` is what tsx's hooks initialise from.
register('./ts-hooks.mjs', { parentURL: import.meta.url, data: {} });
const { main } = await import(new URL('../harness/cli.ts', import.meta.url).href);
const code = await main(process.argv.slice(2));
process.exit(code);
