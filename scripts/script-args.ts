// The arguments of the project's own scripts (npm run matrix, npm run mutate): --help prints the
// usage, and an unknown or malformed option is one line on stderr and exit 2, never a stack trace,
// as the conformance command itself does (harness/cli.ts).
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<T extends Options> = ReturnType<typeof parseArgs<{ options: T; strict: true }>>['values'];

/** A refused argument: its message is all the user sees. */
export class UsageError extends Error {}

export const SEED_RANGE: [number, number] = [0, 2 ** 31 - 1];

/**
 * Runs `body` with the parsed options and resolves to its exit code: 0 after --help, 2 (with one
 * line on stderr) for an unknown option or a UsageError thrown by body.
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
    if (!(error instanceof UsageError) && !parseError) throw error;
    process.stderr.write(`${name}: ${(error as Error).message.split('\n')[0]} (${name} --help)\n`);
    return 2;
  }
}

/** The comma-separated whole numbers of --option within range; undefined when it is absent. */
export function wholeNumbers(option: string, text: string | undefined, [min, max]: [number, number]): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const bad = parts.filter((s) => !/^-?\d+$/.test(s) || Number(s) < min || Number(s) > max);
  if (bad.length > 0) throw new UsageError(`--${option}: ${bad.join(', ')}: not whole numbers from ${min} to ${max}`);
  return parts.map(Number);
}

/** The one whole number of --option within range; undefined when it is absent (a list or an empty value is refused). */
export function wholeNumber(option: string, text: string | undefined, range: [number, number]): number | undefined {
  if (text === undefined) return undefined;
  const list = wholeNumbers(option, text, range)!;
  if (list.length !== 1) throw new UsageError(`--${option}: ${JSON.stringify(text)}: one whole number from ${range[0]} to ${range[1]}`);
  return list[0];
}
