// What a command of the `conformance` command line is (cli/main.ts keeps the table of them;
// cli/gating.ts adds its own), kept apart so that neither imports the other back.
import type { ParseArgsConfig } from 'node:util';
import type { RunFlags } from './config.ts';
import { HarnessError } from './errors.ts';
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

export type Values = Record<string, string | boolean | string[] | undefined>;

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A comma-separated flag as its trimmed, non-empty items, or undefined when it is not given. */
export const listOf = (value: unknown): string[] | undefined =>
  typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : undefined;

/** A whole-number flag within bounds, or undefined when it is not given. */
export function wholeNumber(value: unknown, flag: string, min: number, max: number): number | undefined {
  const text = str(value);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new HarnessError('CONF_INVALID_VALUE', `${flag} must be a whole number from ${min} to ${max} (got ${JSON.stringify(text)})`);
  }
  return Number(text);
}

/** The flags every command that runs checks shares with `run`. */
export const RUN_FLAGS = {
  topic: { type: 'string' },
  profile: { type: 'string' },
  'env-file': { type: 'string' },
  'report-dir': { type: 'string' },
  seed: { type: 'string' },
  runs: { type: 'string' },
  defects: { type: 'string' },
  rate: { type: 'string' },
} as const;

/** The configuration flags of RUN_FLAGS, as harness/config.ts takes them. */
export function flagsOf(values: Values): RunFlags {
  return {
    topic: str(values.topic),
    profile: str(values.profile),
    envFile: str(values['env-file']),
    reportDir: str(values['report-dir']),
    seed: str(values.seed),
    runs: str(values.runs),
    defects: str(values.defects),
    rate: str(values.rate),
  };
}
