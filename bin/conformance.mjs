#!/usr/bin/env -S node --
// Entry point of `npx conformance`: registers tsx (the project has no build step) and hands the
// arguments to harness/cli.ts. Paths come from this file's URL, so any working directory works.
// The `--` keeps Node 20 from taking `--env-file F` after the script name as its own option
// (it would exit 9 on a missing file before this code runs); `--env-file` is the CLI's.
import { register } from 'node:module';

// tsx for the project's files only (see ts-hooks.mjs); `data` is what tsx's hooks initialise from.
register('./ts-hooks.mjs', { parentURL: import.meta.url, data: {} });
const { main } = await import(new URL('../harness/cli.ts', import.meta.url).href);
const code = await main(process.argv.slice(2));
process.exit(code);
