// The matrix's and mutate's arguments: help, refusals with exit 2 and one line, lists read whole.
// The flag readers are the CLI's own (harness/command.ts): only the list and the script's frame are new.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SEED_RANGE, scriptMain, usageError, wholeNumber, wholeNumbers } from '../../scripts/script-args.ts';

const OPTIONS = { seeds: { type: 'string' }, keep: { type: 'boolean' } } as const;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
  return { out, err };
}

afterEach(() => vi.restoreAllMocks());

describe('wholeNumbers', () => {
  it('reads a list, and nothing from an absent option', () => {
    expect(wholeNumbers('1, 22,333', '--seeds', ...SEED_RANGE)).toEqual([1, 22, 333]);
    expect(wholeNumbers(undefined, '--seeds', ...SEED_RANGE)).toBeUndefined();
  });

  it('reads an empty list as empty (no rate limit), never as a 0', () => {
    expect(wholeNumbers('', '--rate-limits', 1, 100)).toEqual([]);
  });

  it('refuses the whole list for one bad or out-of-range item, naming it', () => {
    expect(() => wholeNumbers('5,x', '--seeds', ...SEED_RANGE)).toThrow('--seeds must be a whole number from 0 to 2147483647 (got "x")');
    expect(() => wholeNumbers('2147483648', '--seeds', ...SEED_RANGE)).toThrow(/got "2147483648"/);
    expect(() => wholeNumbers('0', '--rate-limits', 1, 100)).toThrow(/--rate-limits .*got "0"/);
    expect(() => wholeNumbers('1.5', '--rate-limits', 1, 100)).toThrow(/got "1\.5"/);
  });
});

describe('wholeNumber', () => {
  it('refuses a list and an empty value (one number is asked for)', () => {
    expect(wholeNumber('4', '--concurrency', 1, 64)).toBe(4);
    expect(() => wholeNumber('4,8', '--concurrency', 1, 64)).toThrow('--concurrency must be a whole number from 1 to 64 (got "4,8")');
    expect(() => wholeNumber('', '--seed', ...SEED_RANGE)).toThrow(/got ""/);
  });
});

describe('scriptMain', () => {
  it('prints the usage for --help and -h and runs nothing', async () => {
    for (const flag of ['--help', '-h']) {
      const { out } = capture();
      const body = vi.fn(async () => 0);
      expect(await scriptMain('matrix', ['usage: npm run matrix'], OPTIONS, body, [flag])).toBe(0);
      expect(body).not.toHaveBeenCalled();
      expect(out.join('')).toBe('usage: npm run matrix\n');
      vi.restoreAllMocks();
    }
  });

  it('refuses an unknown option with one line and exit 2', async () => {
    const { err } = capture();
    expect(await scriptMain('matrix', [], OPTIONS, async () => 0, ['--bogus'])).toBe(2);
    expect(err).toEqual(["matrix: Unknown option '--bogus' (matrix --help)\n"]);
  });

  it("turns the body's refusal into one line and exit 2", async () => {
    const { err } = capture();
    const code = await scriptMain('mutate', [], OPTIONS, async (values) => (wholeNumbers(values.seeds, '--seeds', ...SEED_RANGE), 0), ['--seeds', 'abc']);
    expect(code).toBe(2);
    expect(err).toEqual(['mutate: --seeds must be a whole number from 0 to 2147483647 (got "abc") (mutate --help)\n']);
    expect(await scriptMain('matrix', [], OPTIONS, async () => { throw usageError('--defects: unknown defect(s) nope'); }, [])).toBe(2);
    expect(err[1]).toBe('matrix: --defects: unknown defect(s) nope (matrix --help)\n');
  });

  it("passes the parsed values to the body and returns the body's code", async () => {
    const body = vi.fn(async () => 1);
    expect(await scriptMain('matrix', [], OPTIONS, body, ['--seeds', '7', '--keep'])).toBe(1);
    expect(body).toHaveBeenCalledWith({ seeds: '7', keep: true });
  });

  it('lets any other error through (a bug is not a usage error)', async () => {
    await expect(scriptMain('matrix', [], OPTIONS, async () => { throw new TypeError('bug'); }, [])).rejects.toThrow('bug');
  });
});
