// The blind round (`npm run matrix -- --blind`): defects written by someone who read only the
// document and reference/, never the checks (reference/blind-defects.ts), scored apart from the
// registry the checks' authors wrote. Each defect runs the whole run once against the embedded
// reference and once in host mode (served, env file only, a declared sandbox, two allowlisted
// numbers), and `check` judges both runs' exchange logs. A faithful run in each mode with the same
// seed is the control: a round whose control is not green measures nothing and says so.
//
// A blind defect is caught when the run turns red (a check fails, or warns for a should) and the
// control did not; requirement-exact when a red check names the requirement the author gave.
// Nothing here knows which check should catch what: that is the point of the round.
import type { Defect } from '../reference/defects.ts';
import { TOPICS } from '../core/model.ts';
import { judgeFaithful, runJobs, type Job, type RunDigest } from './matrix.ts';

/** How `check` on the run's own exchanges fared: a finding naming the requirement, another finding, none. */
export type TrafficCatch = 'exact' | 'caught' | 'missed' | 'judge error' | 'no log';

export interface BlindOutcome {
  defect: string;
  requirement: string;
  topic: string;
  mode: 'embedded' | 'host';
  caught: boolean;
  exact: boolean;
  /** The checks that turned red, with the requirement each named. */
  red: string[];
  traffic: TrafficCatch;
  /** The run could not be made. */
  error?: string;
}

export interface BlindRound {
  seed: number;
  hostSeed: number;
  outcomes: BlindOutcome[];
  /** The faithful controls, one per mode: their failures (empty when green). */
  control: { embedded: string[]; host: string[] };
}

export function judgeBlind(defect: Defect, mode: BlindOutcome['mode'], digest: RunDigest): BlindOutcome {
  const red = digest.topics.flatMap((t) => t.checks).filter((c) => c.status === 'fail' || c.status === 'warn');
  const traffic: TrafficCatch = !digest.traffic
    ? 'no log'
    : digest.traffic.error !== undefined
      ? 'judge error'
      : digest.traffic.broken.includes(defect.requirement)
        ? 'exact'
        : digest.traffic.broken.length > 0
          ? 'caught'
          : 'missed';
  const caught = !digest.error && red.length > 0;
  return {
    defect: defect.id,
    requirement: defect.requirement,
    topic: defect.topic,
    mode,
    caught,
    exact: caught && red.some((c) => c.failedRequirement === defect.requirement),
    red: red.map((c) => `${c.id} (${c.failedRequirement ?? c.status})`),
    traffic,
    ...(digest.error ? { error: digest.error } : {}),
  };
}

const keyOf = (mode: BlindOutcome['mode'], id: string) => `blind-${mode}-${id}`;

/** Every defect in both modes, and a faithful control per mode; whole runs, sandbox declared on the host. */
export function blindJobs(defects: readonly Defect[], seed: number, hostSeed: number): Job[] {
  const host = { sandbox: true };
  const whole = [...TOPICS];
  return [
    { key: 'blind-control-embedded', kind: 'faithful', topics: whole, seed, via: 'in-process' },
    { key: 'blind-control-host', kind: 'faithful', topics: whole, seed: hostSeed, via: 'in-process', host },
    ...defects.flatMap((d): Job[] => [
      { key: keyOf('embedded', d.id), kind: 'defect', defect: d.id, topics: whole, seed, via: 'in-process' },
      { key: keyOf('host', d.id), kind: 'defect', defect: d.id, topics: whole, seed: hostSeed, via: 'in-process', host },
    ]),
  ];
}

export async function runBlindRound(
  defects: readonly Defect[],
  options: { seed: number; hostSeed: number; concurrency: number; progress?: (line: string) => void },
): Promise<BlindRound> {
  const jobs = blindJobs(defects, options.seed, options.hostSeed);
  const byId = new Map(defects.map((d) => [d.id, d]));
  const digests = await runJobs(jobs, {
    concurrency: options.concurrency,
    catchers: {},
    ...(options.progress ? { progress: options.progress } : {}),
    judge: (job, digest) => {
      if (job.kind === 'faithful') {
        const f = judgeFaithful(job.seed, digest, job.via);
        return { ok: f.passed, why: f.why.slice(0, 3).join('; ') };
      }
      const o = judgeBlind(byId.get(job.defect!)!, job.host ? 'host' : 'embedded', digest);
      return { ok: o.caught, why: o.error ?? 'no check turned red' };
    },
  });
  const control = (key: string, seed: number) => judgeFaithful(seed, digests.get(key)!, 'in-process').why;
  return {
    seed: options.seed,
    hostSeed: options.hostSeed,
    control: { embedded: control('blind-control-embedded', options.seed), host: control('blind-control-host', options.hostSeed) },
    outcomes: defects.flatMap((d) => (['embedded', 'host'] as const).map((mode) => judgeBlind(d, mode, digests.get(keyOf(mode, d.id))!))),
  };
}

/** The figures (`blind: caught / total` per mode and for `check`), then each miss. */
export function blindLines(round: BlindRound): string[] {
  const lines: string[] = [];
  for (const mode of ['embedded', 'host'] as const) {
    const all = round.outcomes.filter((o) => o.mode === mode);
    const caught = all.filter((o) => o.caught);
    const traffic = all.filter((o) => o.traffic === 'exact' || o.traffic === 'caught');
    const seed = mode === 'embedded' ? round.seed : round.hostSeed;
    const control = round.control[mode];
    lines.push(
      `blind, ${mode} (seed ${seed}): ${caught.length}/${all.length} caught (${all.filter((o) => o.exact).length} requirement-exact); ` +
        `check on their traffic: ${traffic.length}/${all.length} (${all.filter((o) => o.traffic === 'exact').length} requirement-exact)` +
        (control.length > 0 ? `; CONTROL NOT GREEN, the figure means nothing: ${control.slice(0, 3).join('; ')}` : ''),
    );
  }
  for (const o of round.outcomes.filter((x) => !x.caught)) {
    lines.push(`  missed (${o.mode}): ${o.defect} (${o.requirement}, ${o.topic})${o.error ? `: run error ${o.error}` : ''}`);
  }
  return lines;
}
