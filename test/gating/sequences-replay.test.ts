// `replay REPORT sequences/business-model` runs the shrunk sequence of a failure again (its path
// under the seed), alone: against the same defect it fails the same way, against the faithful
// reference it passes.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/result.ts';
import { cli, hasStackTrace } from '../harness/fixtures/spawn.ts';

const CHECK = 'sequences/business-model';
const DEFECT = 'rewritten-repeat-rebinds-key';
const seed = Math.floor(Math.random() * 2 ** 31);

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
const checkOf = (report: RunResult) => report.topics.flatMap((t) => t.checks).find((c) => c.id === CHECK)!;

describe(`replay of a sequence (seed ${seed})`, { timeout: 120_000 }, () => {
  it('runs the shrunk sequence alone: it fails again against the defect, and passes against the faithful reference', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sequences-replay-'));
    const broken = join(dir, 'broken');
    const run = await cli(['run', '--topic', 'sequences', '--seed', String(seed), '--defects', DEFECT, '--report-dir', broken]);
    expect(run.code, run.stdout).toBe(1);
    const failed = checkOf(readJson<RunResult>(join(broken, 'report.json')));
    const path = /path "([\d:]+)"/.exec(failed.counterexample ?? '')?.[1];
    expect(path, failed.counterexample).toBeDefined();
    const steps = /^(\d+) step\(s\)/.exec(failed.counterexample!)?.[1];

    const again = await cli(['replay', join(broken, 'report.json'), CHECK]);
    expect(again.code, again.stdout).toBe(1);
    expect(again.stdout).toContain(`STILL FAILS: ${CHECK}`);
    expect(hasStackTrace(again.stderr)).toBe(false);
    const replayed = checkOf(readJson<RunResult>(join(broken, 'replay', 'report.json')));
    // The recorded case alone, as shrunk: one sequence run, the same steps, the same rule broken.
    expect(replayed.notes).toContain(`replaying the sequence of path "${path}" under seed ${seed} alone`);
    expect(replayed.notes.some((n) => n.startsWith('1 sequence run(s)'))).toBe(true);
    expect(replayed.failure?.requirement).toBe(failed.failure?.requirement);
    expect(replayed.counterexample).toMatch(new RegExp(`^${steps} step\\(s\\)`));

    // The same report, as if the target had been fixed.
    const report = readJson<RunResult>(join(broken, 'report.json'));
    delete report.target.defects;
    mkdirSync(join(dir, 'fixed'), { recursive: true });
    writeFileSync(join(dir, 'fixed', 'report.json'), JSON.stringify(report));
    const now = await cli(['replay', join(dir, 'fixed', 'report.json'), CHECK]);
    expect(now.code, now.stdout).toBe(0);
    expect(now.stdout).toContain(`PASSES NOW: ${CHECK}`);
  });
});
