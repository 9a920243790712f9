// Flakiness: five faithful whole runs with different seeds give the same verdict, check by check.
// The runs are the matrix's faithful runs (test/matrix/shared-matrix.ts), not run a second time.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MatrixResult } from '../../scripts/matrix.ts';
import { unstableChecks } from '../../scripts/matrix.ts';
import { MATRIX_TIMEOUT_MS, sharedMatrix } from '../matrix/shared-matrix.ts';

let result: MatrixResult;

beforeAll(async () => {
  result = await sharedMatrix();
}, MATRIX_TIMEOUT_MS);

describe('faithful whole runs under five seeds', () => {
  it('are five runs with five different seeds, each with checks', () => {
    expect(result.faithful).toHaveLength(5);
    expect(new Set(result.faithful.map((f) => f.seed)).size).toBe(5);
    for (const run of result.faithful) expect(Object.keys(run.statuses).length, `seed ${run.seed}`).toBeGreaterThan(0);
  });

  it('give one verdict', () => {
    expect(new Set(result.faithful.map((f) => `${f.verdict}/${f.exitCode}`)).size).toBe(1);
  });

  it('give every check the same status under every seed', () => {
    const first = result.faithful[0]!;
    for (const run of result.faithful.slice(1)) {
      expect(Object.keys(run.statuses).sort(), `seed ${run.seed} ran other checks than seed ${first.seed}`).toEqual(Object.keys(first.statuses).sort());
    }
    expect(unstableChecks(result.faithful)).toEqual([]);
  });
});
