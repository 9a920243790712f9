// One matrix per `npm test`: the matrix test and the flakiness test both need the faithful whole
// runs, so the first file to ask runs the matrix and the others read its result. Files of one
// vitest invocation share the parent process (vitest's main process), which keys the result.
import { existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MatrixResult } from '../../scripts/matrix.ts';
import { DEFAULT_HOST_SEEDS, freshSeeds, hostSample, matrixTable, runMatrix, writeMatrixReport } from '../../scripts/matrix.ts';

/** Defects of the host-mode matrix in every `npm test` (all of them in `npm run matrix`). */
export const HOST_SAMPLE = 36;
/**
 * The faithful host run behind a rate limit in every `npm test`. A whole sandbox run sends about 900
 * requests; no CONFORMANCE_RATE is declared, so the client learns the pace from the 429s alone
 * (harness/pacing.ts): the first halves its pace to one request per 50 ms, each later one slows it
 * by a quarter and pauses for Retry-After (1 s). At 10/s that settled near 8/s, and under CI's load,
 * where answers bunch, near 4/s: 222 s, the longest run of the matrix. At 20/s it meets a few 429s
 * all the same (the proof: pacing waited out, never judged, the run green; the test asks for at
 * least one) and settles near 16/s: about a minute. `npm run matrix` keeps the slower DEFAULT_RATE_LIMITS.
 */
export const CI_RATE_LIMITS = [20];

/** Longer than any matrix: a result or lock older than this belongs to an earlier invocation. */
const STALE_MS = 20 * 60_000;
/** What the hooks that wait for the matrix allow. */
export const MATRIX_TIMEOUT_MS = 14 * 60_000;

const base = join(tmpdir(), `conformance-matrix-shared-${process.ppid}`);
const resultFile = `${base}.json`;
const lockFile = `${base}.lock`;

const fresh = (file: string) => existsSync(file) && Date.now() - statSync(file).mtimeMs < STALE_MS;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function takeLock(): boolean {
  if (existsSync(lockFile) && !fresh(lockFile)) unlinkSync(lockFile);
  try {
    writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

let pending: Promise<MatrixResult> | undefined;

export function sharedMatrix(): Promise<MatrixResult> {
  pending ??= obtain();
  return pending;
}

async function obtain(): Promise<MatrixResult> {
  for (;;) {
    if (fresh(resultFile)) return JSON.parse(readFileSync(resultFile, 'utf8')) as MatrixResult;
    if (takeLock()) {
      try {
        // Host mode with fresh seeds each time, printed so that a failure replays.
        // A quick host mode for every CI run (npm run matrix runs every defect): the host-only rules
        // and a seeded sample of the rest.
        const [defectSeed, sampleSeed] = freshSeeds(2) as [number, number];
        const host = { faithfulSeeds: freshSeeds(DEFAULT_HOST_SEEDS), rateLimits: CI_RATE_LIMITS, defectSeed, defects: hostSample(HOST_SAMPLE, sampleSeed) };
        console.log(`host mode: faithful seeds ${host.faithfulSeeds.join(', ')}; defect seed ${defectSeed}; ${HOST_SAMPLE} defects sampled with seed ${sampleSeed}; rate limits ${host.rateLimits.join(', ')}/s`);
        // Three lanes on two cores: the rate-limited run mostly waits. Each embedded defect run selects
        // only the checks that caught it (scripts/catchers.json): the same proof (requirement-exact
        // catchers, their assertion sites, a lost catcher) in a third of the time; `npm run matrix`
        // runs whole topics, where a new catch or a catch by another rule shows too.
        const result = await runMatrix({ concurrency: 3, host, catchersOnly: true });
        writeMatrixReport(result);
        console.log(matrixTable(result).join('\n'));
        writeFileSync(resultFile, JSON.stringify(result));
        return result;
      } finally {
        unlinkSync(lockFile);
      }
    }
    const owner = Number(readFileSync(lockFile, 'utf8'));
    if (Number.isInteger(owner) && owner > 0 && !alive(owner) && !fresh(resultFile)) {
      unlinkSync(lockFile); // the owner died without a result: run it here
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
