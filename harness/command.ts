// What a command of the `conformance` command line is (harness/cli.ts keeps the table of them;
// harness/gating/commands.ts adds its own), kept apart so that neither imports the other back.
import type { ParseArgsConfig } from 'node:util';
import type { RunOptions } from './runner.ts';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** What a command gets besides its parsed arguments. */
export interface CommandContext {
  io: CliIo;
  /** Overrides for tests (fixture suites folder). */
  runOptions: Pick<RunOptions, 'suitesDir'>;
}

export interface Command {
  name: string;
  /** One line for `conformance help`. */
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  allowPositionals?: boolean;
  run(args: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] }, context: CommandContext): Promise<number>;
}
