// The order of the test files when two run at once (vitest.config.ts): the matrix, which takes most
// of the run, goes first so that every other file runs beside it; the file that waits for the
// matrix's result (mutate) goes last so that it never holds a worker while the matrix runs.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const FIRST = 'test/matrix/matrix.test.ts';
const LAST = 'test/matrix/mutate.test.ts';

const rank = (spec: TestSpecification) => (spec.moduleId.endsWith(FIRST) ? 0 : spec.moduleId.endsWith(LAST) ? 2 : 1);

export class MatrixFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i).map(({ spec }) => spec);
  }
}
