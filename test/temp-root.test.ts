// The temp root of test/temp-root.ts is in force: what tests put in the temp directory goes under it.
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('temporary folders of the tests', () => {
  it('live under one root that the run removes at its end', () => {
    expect(basename(tmpdir())).toMatch(/^conformance-tests-/);
    expect(process.env.TMPDIR).toBe(tmpdir());
    expect(dirname(tmpdir())).not.toBe(tmpdir());
  });
});
