// Stops a long-running command when the process that started it goes away. Since npm 9, `npm exec`
// (npx) passes no signal on to the command it runs (npm/cli#6684), so a script's `kill` of what it
// started ends npm and leaves the command running, its parent gone, its port taken. The guard
// polls the parent cheaply (an unref'd timer: it never keeps the process alive) and calls back
// once when it changes.
import { readFileSync } from 'node:fs';

/** One link of the chain from this process up to the process that started it. */
interface Link {
  pid: number;
  parent: number;
}

/** How often the parent is looked at; a stop is noticed within this many milliseconds. */
export const ORPHAN_POLL_MS = 500;

/** Linux only: the parent of a process, from /proc (undefined when it is gone or unreadable). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid ...`; comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** A shell that only runs one command string (`sh -c '…'`, as npm exec and npm run start one). */
function isCommandShell(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return /(^|\/)(sh|bash|dash|zsh|ash|ksh)$/.test(argv[0] ?? '') && argv.slice(1).includes('-c');
  } catch {
    return false;
  }
}

/**
 * The links to watch: this process and its parent, and, while that parent is only a `sh -c`
 * between npm and the command (which outlives npm), the shell and its own parent too. Where there
 * is no /proc (macOS runs `sh -c` as bash, which execs a single command), the direct parent alone.
 */
function chainToStarter(): Link[] {
  const links: Link[] = [{ pid: process.pid, parent: process.ppid }];
  if (process.platform !== 'linux') return links;
  for (let depth = 0; depth < 4; depth += 1) {
    const top = links[links.length - 1]!.parent;
    if (!isCommandShell(top)) break;
    const parent = parentOf(top);
    if (parent === undefined || parent <= 1) break;
    links.push({ pid: top, parent });
  }
  return links;
}

/** The first link whose parent is no longer the one it started with: the process that went away. */
function goneParent(links: Link[]): number | undefined {
  for (const link of links) {
    const now = link.pid === process.pid ? process.ppid : parentOf(link.pid);
    if (now !== link.parent) return link.parent;
  }
  return undefined;
}

/**
 * Calls `onOrphaned` once, with the pid of the process that went away, when the process that
 * started this one (or npm above its `sh -c`) is gone. Returns the function that ends the watch.
 * A command started already detached (its parent is init) is left alone: that was asked for.
 */
export function guardAgainstOrphaning(onOrphaned: (gonePid: number) => void, pollMs = ORPHAN_POLL_MS): () => void {
  if (process.ppid <= 1) return () => undefined;
  const links = chainToStarter();
  const timer = setInterval(() => {
    const gone = goneParent(links);
    if (gone === undefined) return;
    clearInterval(timer);
    // Its output may have no reader left: a write error must not stop the command's own ending.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
    onOrphaned(gone);
  }, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The one line a command says when it stops for that reason. */
export function orphanedLine(command: string, gonePid: number): string {
  return `conformance ${command}: the process that started it (pid ${gonePid}) has gone; stopping as on SIGTERM`;
}
