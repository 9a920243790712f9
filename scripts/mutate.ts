// The mutation score of the checker's own proof: one assertion site at a time is weakened so that
// it can never fail (MUTATE_WEAKEN_SITE, suites/support/sites.ts), and the matrix is run on the
// defects of that site's topic. The mutant is killed when some defect is no longer caught, or no
// longer caught by a check that caught it (scripts/catchers.json); it survives when the matrix
// stays green, which means no defect ever needed that assertion. Each defect of the sampled topics
// runs once as it is first; with a site weakened, only the defects that failed at it run again. StrykerJS mutates code and reruns every test; a targeted run
// over assertion sites and their topic's defects costs seconds per mutant instead.
//
//   npm run mutate [-- --sample N --seed S --concurrency C --json out.json]   (no --sample: every site)
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { DEFECTS, type Defect } from '../reference/defects.ts';
import { DEFECT_SEED, ROOT, judgeDefect, runJobs, topicsFor, type DefectOutcome, type Job, type RunDigest } from './matrix.ts';
import { readCatchers } from './catchers.ts';
import { SEED_RANGE, scriptMain, wholeNumber } from './script-args.ts';
import { assertionSites, type Site } from './sites.ts';

export interface MutantOutcome {
  site: string;
  topic: string;
  killed: boolean;
  /** Defects no longer caught with the site weakened (what killed it). */
  killedBy: string[];
  /** Defects whose catches failed at this site unweakened: the ones run again with it weakened. */
  defectsRun: number;
}

export interface MutationScore {
  seed: number;
  tried: number;
  killed: number;
  mutants: MutantOutcome[];
  /** Defects not caught as scripts/catchers.json records even unweakened: left out of every kill. */
  noise: string[];
}

/** `n` sites spread over every suite: round-robin over the topics, each topic's order seeded. */
export function sampleSites(sites: Site[], n: number | undefined, seed: number): Site[] {
  const candidates = sites.filter((s) => !s.waiver);
  if (n === undefined || n >= candidates.length) return candidates;
  const byTopic = new Map<string, Site[]>();
  for (const site of candidates) byTopic.set(site.topic, [...(byTopic.get(site.topic) ?? []), site]);
  const shuffled = [...byTopic.values()].map((list, i) => fc.sample(fc.shuffledSubarray(list, { minLength: list.length }), { seed: seed + i, numRuns: 1 })[0]!);
  const picked: Site[] = [];
  for (let round = 0; picked.length < n; round++) {
    const before = picked.length;
    for (const list of shuffled) if (list[round] && picked.length < n) picked.push(list[round]!);
    if (picked.length === before) break;
  }
  return picked;
}

/** The defects whose matrix run includes a topic: its own, or one the matrix runs beside it. */
function defectsReaching(topic: string): Defect[] {
  return DEFECTS.filter((d) => topicsFor(d).includes(topic as never));
}

const defectJob = (d: Defect, key: string, weaken?: string): Job => ({
  key,
  kind: 'defect',
  defect: d.id,
  topics: topicsFor(d),
  seed: DEFECT_SEED,
  via: 'in-process',
  ...(weaken ? { weaken } : {}),
});

export async function runMutation(options: {
  sample?: number;
  seed: number;
  concurrency: number;
  /** These sites instead of a sample. */
  only?: Site[];
  /** The unweakened outcomes when a matrix has just run them (npm test shares its matrix). */
  baseline?: readonly DefectOutcome[];
  progress?: (line: string) => void;
}): Promise<MutationScore> {
  const sites = options.only ?? sampleSites(assertionSites(join(ROOT, 'suites')), options.sample, options.seed);
  const catchers = readCatchers();
  const run = (jobs: Job[]) => runJobs(jobs, { concurrency: options.concurrency, catchers, ...(options.progress ? { progress: options.progress } : {}) });
  const judge = (d: Defect, job: Job, digest: RunDigest) => judgeDefect(d, job.topics, digest, job.via, undefined, undefined, catchers[d.id]);

  // 1. Each defect that reaches a sampled topic, once as it is: the sites its catches failed at.
  const reaching = [...new Set(sites.flatMap((s) => defectsReaching(s.topic)))];
  const base = new Map(options.baseline?.filter((o) => reaching.some((d) => d.id === o.defect)).map((o) => [o.defect, o]));
  const unrun = reaching.filter((d) => !base.has(d.id));
  const baselineJobs = unrun.map((d) => defectJob(d, `baseline ${d.id}`));
  const baseDigests = await run(baselineJobs);
  unrun.forEach((d, i) => base.set(d.id, judge(d, baselineJobs[i]!, baseDigests.get(baselineJobs[i]!.key)!)));
  const noise = [...base.values()].filter((o) => !o.caught).map((o) => o.defect);

  // 2. A site weakened, with the defects that failed there. A defect whose checks never failed at
  // the site runs the same with it weakened (the assertion held), so it needs no second run.
  const jobs = sites.flatMap((site) =>
    reaching.filter((d) => base.get(d.id)!.caught && base.get(d.id)!.sites.includes(site.id)).map((d) => defectJob(d, `mutant ${site.id} ${d.id}`, site.id)),
  );
  const digests = await run(jobs);
  const mutants = sites.map((site): MutantOutcome => {
    const own = jobs.filter((j) => j.weaken === site.id);
    const killedBy = own.filter((j) => !judge(DEFECTS.find((d) => d.id === j.defect)!, j, digests.get(j.key)!).caught).map((j) => j.defect!);
    return { site: site.id, topic: site.topic, killed: killedBy.length > 0, killedBy, defectsRun: own.length };
  });
  return { seed: options.seed, tried: mutants.length, killed: mutants.filter((m) => m.killed).length, mutants, noise };
}

export function mutationLines(score: MutationScore): string[] {
  const survivors = score.mutants.filter((m) => !m.killed);
  return [
    ...(score.noise.length > 0 ? [`not caught as recorded even unweakened (left out of the score's kills): ${score.noise.join(', ')}`] : []),
    ...survivors.map((m) =>
      m.defectsRun === 0
        ? `survived: ${m.site} (no defect fails there on the embedded reference)`
        : `survived: ${m.site} (the ${m.defectsRun} defect(s) that fail there are all still caught, by the same checks, with it weakened)`,
    ),
    `mutation score: ${score.killed}/${score.tried} weakened assertion sites killed (${score.tried ? Math.round((100 * score.killed) / score.tried) : 0} %), sample seed ${score.seed}`,
  ];
}

const MUTATE_USAGE = [
  'usage: npm run mutate [-- options]',
  '',
  'Weakens assertion sites one at a time (made unable to fail) and runs the defects that fail there;',
  'a weakened site is killed when the matrix turns red. Prints killed / tried and the survivors.',
  '',
  '  --sample N        a random sample of N sites (default: every site)',
  '  --seed S          the sample\'s seed (default: fresh, printed)',
  '  --concurrency N   runs at once (default 2)',
  '  --json FILE       the score as JSON',
];

async function main(): Promise<number> {
  return scriptMain('mutate', MUTATE_USAGE, { sample: { type: 'string' }, seed: { type: 'string' }, concurrency: { type: 'string' }, json: { type: 'string' } }, async (values) => {
    const sample = wholeNumber(values.sample, '--sample', 1, 10_000);
    const seed = wholeNumber(values.seed, '--seed', ...SEED_RANGE) ?? Math.floor(Math.random() * 2 ** 31);
    const concurrency = wholeNumber(values.concurrency, '--concurrency', 1, 64) ?? 2;
    process.stdout.write(`mutate: ${sample ?? 'every'} site(s), sample seed ${seed}\n`);
    const score = await runMutation({ seed, concurrency, ...(sample ? { sample } : {}), progress: (line) => process.stdout.write(`${line}\n`) });
    process.stdout.write(`\n${mutationLines(score).join('\n')}\n`);
    if (values.json) writeFileSync(values.json, JSON.stringify(score));
    return 0;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void main().then((code) => process.exit(code));
}
