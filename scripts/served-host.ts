// The embedded reference served as a host through the command line, as a user starts it:
// `conformance serve --env-out FILE` in a child process, ready once FILE holds its env lines.
// The mutation matrix's host runs through the CLI and the bench's distant-host runs share it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export interface ServedHost {
  /** The CONFORMANCE_* lines `serve` wrote (secrets whole: the file is the user's, never printed). */
  lines: string[];
  /** Stops the host and waits for it to exit. */
  stop(): Promise<void>;
}

/** A child that has exited, or was killed by a signal (its exit code then stays null). */
const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * Starts `bin serve --env-out envOut ...args` and waits until envOut holds its lines, or throws
 * when the host ends or `timeoutMs` passes first (the host is then stopped).
 */
export async function startServedHost(
  bin: string,
  args: string[],
  options: { envOut: string; cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ServedHost> {
  const child = spawn(bin, ['serve', '--env-out', options.envOut, ...args], { cwd: options.cwd, env: options.env, stdio: 'ignore' });
  const stop = async () => {
    if (!ended(child)) child.kill('SIGTERM');
    await new Promise((resolve) => (ended(child) ? resolve(undefined) : child.once('exit', resolve)));
  };
  const deadline = Date.now() + options.timeoutMs;
  while (!existsSync(options.envOut) || readFileSync(options.envOut, 'utf8').trim() === '') {
    if (ended(child) || Date.now() > deadline) {
      await stop();
      throw new Error(`conformance serve wrote no env file within ${Math.round(options.timeoutMs / 1000)} s (exit ${child.exitCode ?? child.signalCode})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { lines: readFileSync(options.envOut, 'utf8').split('\n').filter(Boolean), stop };
}
