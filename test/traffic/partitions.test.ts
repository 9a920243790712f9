// `check --partition i/n` and `check --merge-reports DIR...`: a recorded session (the test client's,
// against a reference with two defects, three times over with fresh ids so several businesses
// share the traffic) judged in four partitions and merged gives the report one pass gives, check
// for check, message for message; the merge fails closed on a missing, repeated or foreign partition.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshCopy } from '../../bench/traffic-check.ts';
import { startReference } from '../../reference/index.ts';
import { partitionOf } from '../../traffic/judge.ts';
import { clientSession, envLines } from './client.ts';
import { conformance, tempDir } from './support.ts';

/** A report without what differs between any two runs (clock times). */
function comparable(dir: string): unknown {
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Record<string, unknown>;
  return JSON.parse(JSON.stringify(report, (key, value) => (['startedAt', 'finishedAt', 'durationMs'].includes(key) ? undefined : value)));
}

describe('check in partitions, merged', () => {
  let dir: string;
  let files: string[];
  let env: string;
  beforeAll(async () => {
    dir = tempDir('partitions-');
    const reference = await startReference({ defects: ['available-differs-from-current', 'request-id-ignored'] });
    try {
      const har = JSON.stringify(await clientSession(reference));
      files = [0, 1, 2].map((copy) => {
        const file = join(dir, `session-${copy}.har`);
        writeFileSync(file, freshCopy(har, copy));
        return file;
      });
      env = join(dir, 'fixtures.env');
      writeFileSync(env, envLines(reference));
    } finally {
      await reference.close();
    }
  }, 60_000);

  const partitionDirs = (name: string) => [1, 2, 3, 4].map((i) => join(dir, name, `p${i}`));

  it('gives the report of one pass, verdict, findings and evidence alike', async () => {
    const whole = await conformance(['check', ...files, '--env-file', env, '--report-dir', join(dir, 'whole')]);
    expect(whole.err).toEqual([]);
    expect(whole.code).toBe(1);
    const parts = partitionDirs('parts');
    const codes = [];
    for (const [i, out] of parts.entries()) {
      const part = await conformance(['check', ...files, '--env-file', env, '--partition', `${i + 1}/4`, '--report-dir', out]);
      expect(part.err).toEqual([]);
      codes.push(part.code);
    }
    // The businesses spread: more than one partition judged something.
    const judged = parts.map((p) => JSON.parse(readFileSync(join(p, 'traffic-partition.json'), 'utf8')).digest.facts.judged as number);
    expect(judged.filter((n) => n > 0).length).toBeGreaterThan(1);
    const merged = await conformance(['check', '--merge-reports', parts.join(','), '--env-file', env, '--report-dir', join(dir, 'merged')]);
    expect(merged.err).toEqual([]);
    expect(merged.code).toBe(whole.code);
    expect(comparable(join(dir, 'merged'))).toEqual(comparable(join(dir, 'whole')));
    const report = comparable(join(dir, 'merged')) as any;
    const failed = report.topics.flatMap((t: any) => t.checks.filter((c: any) => c.status === 'fail').map((c: any) => c.failure.requirement));
    expect(failed).toEqual(expect.arrayContaining(['WAL-AVAILABLE-EQUALS-CURRENT', 'RID-ECHO']));
  }, 120_000);

  it.each([
    ['a missing partition', (p: string[]) => p.slice(0, 3), /partition 4\/4 missing/],
    ['a partition given twice', (p: string[]) => [...p, p[1]!], /partition 2\/4 given twice/],
    ['a folder without a partition', (p: string[]) => [...p.slice(0, 3), dir], /no traffic-partition\.json in/],
  ])('refuses %s: one line, exit 2, nothing written', async (_name, pick, message) => {
    const out = join(dir, `refused-${Math.random().toString(36).slice(2)}`);
    const outcome = await conformance(['check', '--merge-reports', pick(partitionDirs('parts')).join(','), '--report-dir', out]);
    expect(outcome.code).toBe(2);
    expect(outcome.err).toHaveLength(1);
    expect(outcome.err[0]).toMatch(message);
  });

  it('refuses partitions of another count or other files', async () => {
    const other = join(dir, 'other', 'p1');
    await conformance(['check', files[0]!, '--partition', '1/2', '--report-dir', other]);
    const mixed = await conformance(['check', '--merge-reports', [other, ...partitionDirs('parts').slice(1)].join(','), '--report-dir', join(dir, 'mixed')]);
    expect(mixed.code).toBe(2);
    expect(mixed.err[0]).toMatch(/the others are of \d+ partitions|partitions of different traffic/);
  });

  it.each(['0/4', '5/4', '1/0', 'two'])('refuses --partition %s', async (value) => {
    const outcome = await conformance(['check', files[0]!, '--partition', value, '--report-dir', join(dir, 'bad')]);
    expect(outcome.code).toBe(2);
    expect(outcome.err[0]).toMatch(/--partition must be i\/n/);
  });

  it('puts a business in one partition, the same on every machine', () => {
    expect(partitionOf('019a0d70-62dd-7b54-8d64-1e425f4b843a', 4)).toBe(partitionOf('019a0d70-62dd-7b54-8d64-1e425f4b843a', 4));
    const spread = new Set(Array.from({ length: 64 }, (_, i) => partitionOf(`019a0d70-62dd-7b54-8d64-${String(i).padStart(12, '0')}`, 4)));
    expect(spread.size).toBe(4);
  });
});
