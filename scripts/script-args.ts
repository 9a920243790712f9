// The arguments of the project's own scripts (npm run matrix, npm run mutate): --help prints the
// usage, and an unknown or malformed option is one line on stderr and exit 2, never a stack trace,
// as the conformance command itself does (cli/main.ts, whose flag readers these use).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { listOf, wholeNumber } from '../harness/command.ts';
import { HarnessError } from '../harness/errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<T extends Options> = ReturnType<typeof parseArgs<{ options: T; strict: true }>>['values'];

export { wholeNumber };

export const SEED_RANGE: [number, number] = [0, 2 ** 31 - 1];

/** A refused argument (the CLI's own kind of error, so the scripts print it the same way). */
export const usageError = (message: string) => new HarnessError('CONF_INVALID_VALUE', message);

/**
 * Runs `body` with the parsed options and resolves to its exit code: 0 after --help, 2 (with one
 * line on stderr) for an unknown option or a HarnessError thrown by body.
 */
export async function scriptMain<T extends Options>(name: string, usage: string[], options: T, body: (values: Values<T>) => Promise<number>, args = process.argv.slice(2)): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage.join('\n')}\n`);
    return 0;
  }
  try {
    return await body(parseArgs({ args, options, strict: true }).values as Values<T>);
  } catch (error) {
    const parseError = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (!(error instanceof HarnessError) && !parseError) throw error;
    process.stderr.write(`${name}: ${(error as Error).message.split('\n')[0]} (${name} --help)\n`);
    return 2;
  }
}

/** The comma-separated whole numbers of a flag, each within [min, max]; undefined when it is absent ('' is no number). */
export function wholeNumbers(value: string | undefined, flag: string, min: number, max: number): number[] | undefined {
  return listOf(value)?.map((item) => wholeNumber(item, flag, min, max)!);
}
