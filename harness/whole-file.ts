// A file a script waits for (`--pid-file`, `--env-out`) must never be seen half written: its
// existence is the signal that it is ready. Written beside, then renamed over the path, it is
// either absent, the previous file or the new one whole.
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export function writeWholeFile(path: string, text: string, mode = 0o644): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text, { mode });
    // The mode above applies to a new file only; a temporary left by a killed run may exist.
    chmodSync(temporary, mode);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
