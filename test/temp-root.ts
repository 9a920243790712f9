// Global setup of the project's own tests: every temporary folder a test (or a child process it
// starts) makes goes under one root, removed when the run ends, so `npm test` leaves the system's
// temp directory as it found it. os.tmpdir() reads TMPDIR each time it is called.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'conformance-tests-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
