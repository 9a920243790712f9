// The bench's floor of `check` (what reading costs before any rule) must read what `check` reads:
// every exchange of the file, each observed with its bodies parsed, and say so; a file it cannot
// read is one line and exit 2.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const FLOOR = fileURLToPath(new URL('../../bench/reading-floor.mjs', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'reading-floor-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const exchange = (status: number, body: string) =>
  JSON.stringify({ request: { method: 'GET', url: 'http://127.0.0.1:1/v1/businesses/019a13d9-54e1-71ba-a0cd-682dcc3eea84/wallet', headers: {} }, response: { status, headers: { 'content-type': 'application/json' }, body } });

const floor = (...args: string[]) => spawnSync(process.execPath, [FLOOR, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('bench/reading-floor.mjs', () => {
  it('reads every exchange of the file and parses the bodies that are JSON', () => {
    const file = join(work, 'exchanges.jsonl');
    const transportFailure = JSON.stringify({ request: { method: 'GET', url: 'http://127.0.0.1:1/v1/x', headers: {} }, transportError: 'ECONNREFUSED' });
    writeFileSync(file, [exchange(200, '{"current_balance":"1.00"}'), exchange(502, 'not json'), transportFailure, exchange(200, '{}')].join('\n') + '\n');
    const run = floor(file);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ exchanges: 3, parsed: 2 });
  });

  it('names a file it cannot read in one line, exit 2', () => {
    const run = floor(join(work, 'absent.jsonl'));
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^reading-floor: cannot read .*absent\.jsonl/)]);
  });
});
