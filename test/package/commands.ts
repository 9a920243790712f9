// Child processes of the packed-install test: npm and npx, with a deadline, in a chosen folder.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The caller's environment without npm's own variables (an outer `npm test` sets npm_config_*,
 * npm_package_* and the outer project's prefix, which would steer the inner npm) and without any
 * CONFORMANCE_* of the developer's shell (the run must target the embedded reference).
 */
export function packageEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|CONFORMANCE_)/i.test(key) || key === 'INIT_CWD' || key === 'VITEST' || key.startsWith('VITEST_')) continue;
    env[key] = value;
  }
  env.NO_UPDATE_NOTIFIER = '1';
  env.npm_config_update_notifier = 'false';
  return env;
}

/**
 * npx runs the command through `sh -c`, which does not pass signals on: a child is started in its
 * own process group, and stopping it signals the whole group.
 */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
}

/**
 * The processes still in a child's group, for the message of a command that overran its deadline:
 * whether the command itself, npx around it or a process it left behind is what did not end.
 */
function groupProcesses(child: ChildProcess): string {
  const listed = spawnSync('ps', ['-o', 'pid,ppid,stat,etime,args', '-g', String(child.pid)], { encoding: 'utf8' });
  return listed.status === 0 ? `still running in its process group:\n${listed.stdout}` : '';
}

export function runCommand(command: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  const child = spawn(command, args, { cwd, env: { ...packageEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const left = groupProcesses(child);
      signalGroup(child, 'SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}\n${left}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Running {
  /** Resolves with the first match of `pattern` in stdout, or rejects after `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** SIGTERM to the whole group, then the exit code of `command` (SIGKILL after 15 s). */
  stop(): Promise<number | null>;
  output(): string;
}

export function startCommand(command: string, args: string[], cwd: string): Running {
  const child: ChildProcess = spawn(command, args, { cwd, env: packageEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  return {
    async waitForLine(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = stdout.match(pattern);
        if (match) return match;
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${command} ${args.join(' ')}: no line matching ${pattern} (exit ${child.exitCode})\n${stdout}\n${stderr}`);
    },
    async stop() {
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    output: () => `${stdout}\n${stderr}`,
  };
}
