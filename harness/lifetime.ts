// How a long-running command (`serve`, `proxy`) waits to be stopped and lets a script find it:
// SIGINT, SIGTERM, or the process that started it going away (harness/orphan-guard.ts) end the
// wait the same way; `--pid-file F` names the process that really listens, whatever wrapper
// (npx, npm exec, a shell) started it, so `kill "$(cat F)"` reaches it.
import { readFileSync, rmSync } from 'node:fs';
import { HarnessError } from './errors.ts';
import { guardAgainstOrphaning, orphanedLine } from './orphan-guard.ts';
import { writeWholeFile } from './whole-file.ts';

export interface StopOptions {
  /** The command's name, for the line said when its starter goes away. */
  command: string;
  say: (line: string) => void;
  /** Another reason to stop (proxy: --until-idle); gets the stop function, returns its own cleanup. */
  alsoWhen?: (stop: () => void) => () => void;
}

/** Resolves once the command should stop, as SIGTERM would stop it. */
export function untilStopped(options: StopOptions): Promise<void> {
  return new Promise<void>((resolve) => {
    let endOther: () => void = () => undefined;
    let endGuard: () => void = () => undefined;
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      endGuard();
      endOther();
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    endGuard = guardAgainstOrphaning((gone) => {
      options.say(orphanedLine(options.command, gone));
      stop();
    });
    if (options.alsoWhen) endOther = options.alsoWhen(stop);
  });
}

/**
 * Writes this process's pid to `path` (call it once the port listens: the file's existence says
 * the command is ready) and returns the function that removes it. It is removed on any exit too,
 * and only while it still names this process.
 */
export function writePidFile(path: string): () => void {
  try {
    writeWholeFile(path, `${process.pid}\n`);
  } catch (error) {
    throw new HarnessError('REPORT_WRITE_FAILED', `--pid-file ${path}: ${(error as Error).message}`);
  }
  const remove = () => {
    process.off('exit', remove);
    try {
      if (readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true });
    } catch {
      // Already gone.
    }
  };
  process.on('exit', remove);
  return remove;
}
