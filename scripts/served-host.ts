// The embedded reference served as a host through the command line, as a user starts it:
// `conformance serve --env-out FILE` in a child process, ready once FILE holds its env lines.
// The mutation matrix's host runs through the CLI and the bench's distant-host runs share it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

export interface ServedHost {
  /** The CONFORMANCE_* lines `serve` wrote (secrets whole: the file is the user's, never printed). */
  lines: string[];
  /** Stops the host (SIGTERM, then SIGKILL after the grace period) and waits for it to exit. */
  stop(): Promise<void>;
}

/** How long a host has to exit after SIGTERM before it is killed: a wedged serve must not hang a matrix. */
const STOP_GRACE_MS = 5_000;

/** A child that has exited, or was killed by a signal (its exit code then stays null). */
const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * Starts `command... serve --env-out envOut ...args` (command: the bin itself, or node and the bin)
 * and waits until envOut holds its lines; throws a one-line error when the command cannot start,
 * ends first (with its last line on stderr) or `timeoutMs` passes (the host is then stopped).
 */
export async function startServedHost(
  command: [string, ...string[]],
  args: string[],
  options: { envOut: string; cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; graceMs?: number },
): Promise<ServedHost> {
  // A file left by an earlier host would name a port nobody listens on.
  rmSync(options.envOut, { force: true });
  const [file, ...before] = command;
  const child = spawn(file, [...before, 'serve', '--env-out', options.envOut, ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let lastErrorLine = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    lastErrorLine = chunk.trim().split('\n').pop() || lastErrorLine;
  });
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    // A command that cannot start emits 'error' and never 'exit'.
    child.once('error', (error) => {
      spawnError = error;
      resolve();
    });
  });
  const stop = async () => {
    if (!ended(child) && !spawnError) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), options.graceMs ?? STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
  };
  const deadline = Date.now() + options.timeoutMs;
  while (!existsSync(options.envOut) || readFileSync(options.envOut, 'utf8').trim() === '') {
    if (spawnError) throw new Error(`conformance serve could not start: ${spawnError.message}`);
    if (ended(child)) {
      await exited;
      throw new Error(`conformance serve exited (${child.exitCode ?? child.signalCode}) before writing its env file${lastErrorLine ? `: ${lastErrorLine}` : ''}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`conformance serve wrote no env file within ${Math.round(options.timeoutMs / 1000)} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { lines: readFileSync(options.envOut, 'utf8').split('\n').filter(Boolean), stop };
}
