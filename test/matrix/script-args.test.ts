// The matrix's and mutate's arguments: help, refusals with exit 2 and one line, lists read whole.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SEED_RANGE, UsageError, scriptMain, wholeNumber, wholeNumbers } from '../../scripts/script-args.ts';

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
    expect(wholeNumbers('seeds', '1, 22,333', SEED_RANGE)).toEqual([1, 22, 333]);
    expect(wholeNumbers('seeds', undefined, SEED_RANGE)).toBeUndefined();
  });

  it('reads an empty list as empty (no rate limit), never as a 0', () => {
    expect(wholeNumbers('rate-limits', '', [1, 100])).toEqual([]);
  });

  it('refuses the whole list for one bad or out-of-range item, naming it', () => {
    expect(() => wholeNumbers('seeds', '5,x', SEED_RANGE)).toThrow(new UsageError('--seeds: x: not whole numbers from 0 to 2147483647'));
    expect(() => wholeNumbers('seeds', '2147483648', SEED_RANGE)).toThrow(/--seeds: 2147483648/);
    expect(() => wholeNumbers('rate-limits', '0', [1, 100])).toThrow(/--rate-limits: 0/);
    expect(() => wholeNumbers('rate-limits', '1.5', [1, 100])).toThrow(/1\.5/);
  });
});

describe('wholeNumber', () => {
  it('reads one number, and nothing from an absent option', () => {
    expect(wholeNumber('concurrency', '4', [1, 64])).toBe(4);
    expect(wholeNumber('concurrency', undefined, [1, 64])).toBeUndefined();
  });

  it('refuses a list, an empty value and a number out of range', () => {
    expect(() => wholeNumber('concurrency', '4,8', [1, 64])).toThrow(new UsageError('--concurrency: "4,8": one whole number from 1 to 64'));
    expect(() => wholeNumber('seed', '', SEED_RANGE)).toThrow(/--seed: "": one whole number/);
    expect(() => wholeNumber('concurrency', '65', [1, 64])).toThrow(/--concurrency: 65: not whole numbers from 1 to 64/);
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

  it("turns the body's UsageError into one line and exit 2", async () => {
    const { err } = capture();
    const code = await scriptMain('mutate', [], OPTIONS, async (values) => (wholeNumbers('seeds', values.seeds, SEED_RANGE), 0), ['--seeds', 'abc']);
    expect(code).toBe(2);
    expect(err).toEqual(['mutate: --seeds: abc: not whole numbers from 0 to 2147483647 (mutate --help)\n']);
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
