// The mutation score inside `npm test`: a small seeded sample of assertion sites (seed printed), each
// weakened in turn and run against the defects that fail there, and a positive control: the one site that
// catches `message-unrendered` weakened must let that defect through (the mutant is killed).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOPICS } from '../../core/model.ts';
import { ROOT } from '../../scripts/matrix.ts';
import { mutationLines, runMutation, sampleSites } from '../../scripts/mutate.ts';
import { assertionSites } from '../../scripts/sites.ts';
import { MATRIX_TIMEOUT_MS, sharedMatrix } from './shared-matrix.ts';

const SEED = Number(process.env.MUTATE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SAMPLE = 3;

describe(`mutation sample (seed ${SEED})`, () => {
  const sites = assertionSites(join(ROOT, 'suites'));

  it('reads every assertion site of the suites, each topic with some', () => {
    expect(sites.length).toBeGreaterThan(150);
    expect(new Set(sites.map((s) => s.topic)).size).toBe(TOPICS.length);
  });

  it('samples sites spread over the suites, the same for a seed', () => {
    const a = sampleSites(sites, 13, SEED).map((s) => s.id);
    expect(new Set(a.map((id) => id.split(':')[0])).size).toBe(13);
    expect(sampleSites(sites, 13, SEED).map((s) => s.id)).toEqual(a);
  });

  it('weakens sampled sites one at a time and scores them', async () => {
    // The unweakened runs are the shared matrix's own (test/matrix/shared-matrix.ts).
    const score = await runMutation({ sample: SAMPLE, seed: SEED, concurrency: 2, baseline: (await sharedMatrix()).defects });
    console.log(mutationLines(score).join('\n'));
    expect(score.tried).toBe(SAMPLE);
    // Unweakened, every defect of those topics is caught by the checks catchers.json records.
    expect(score.noise).toEqual([]);
  }, MATRIX_TIMEOUT_MS + 600_000);

  it('kills the mutant of the one site that catches message-unrendered (the score can go down)', async () => {
    const lines = readFileSync(join(ROOT, 'suites', 'messages.suite.ts'), 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes("'MSG-RENDERED-CONTENT'") && l.includes('t.expect('));
    const site = sites.find((s) => s.id === `messages.suite.ts:${line + 1}`)!;
    expect(site).toBeDefined();
    const score = await runMutation({ sample: 1, seed: SEED, concurrency: 2, only: [site], baseline: (await sharedMatrix()).defects });
    expect(score.mutants[0]!.killedBy).toContain('message-unrendered');
  }, MATRIX_TIMEOUT_MS + 600_000);
});
