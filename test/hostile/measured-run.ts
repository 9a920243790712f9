// Runs `bin/conformance.mjs run` as a child process, with a hard deadline, and measures its
// peak memory. /usr/bin/time -v reports the largest resident set of the process and of the
// descendants it waited for (the vitest workers that hold the response bodies); without it, the
// process tree's VmHWM is sampled from /proc.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from '../../harness/result.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GNU_TIME = '/usr/bin/time';

export interface MeasuredRun {
  code: number | null;
  /** Killed at the deadline. */
  killed: boolean;
  stdout: string;
  stderr: string;
  ms: number;
  /** Peak resident memory in MB, or undefined when it could not be measured. */
  peakMb?: number;
  reportDir: string;
  /** report.json, when the run wrote one. */
  report?: RunResult;
  /** Every file of the report directory, as text. */
  reportTexts: string[];
}

/** Lines of a JavaScript stack trace ("    at fn (file.ts:1:2)"). */
export const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

function hwmKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export async function measuredCliRun(args: string[], env: Record<string, string>, deadlineMs: number): Promise<MeasuredRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'conformance-hostile-'));
  const timeFile = join(reportDir, '..', `${reportDir.split('/').pop()}.time`);
  const useTime = existsSync(GNU_TIME);
  // The bin itself, so its shebang's Node flags apply as they do for users.
  const node = [join(ROOT, 'bin', 'conformance.mjs'), 'run', ...args, '--report-dir', reportDir];
  const [command, ...commandArgs] = useTime ? [GNU_TIME, '-v', '-o', timeFile, ...node] : node;
  const started = Date.now();
  const child = spawn(command!, commandArgs, {
    cwd: mkdtempSync(join(tmpdir(), 'conformance-hostile-cwd-')), // no .env of the developer
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    detached: true, // its own process group, so the deadline ends the whole tree
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  let sampledKb = 0;
  const sampler = useTime
    ? undefined
    : setInterval(() => {
        const pids = [child.pid!];
        for (let i = 0; i < pids.length; i++) pids.push(...childrenOf(pids[i]!));
        sampledKb = Math.max(sampledKb, ...pids.map(hwmKb));
      }, 100);
  let killed = false;
  const deadline = setTimeout(() => {
    killed = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, deadlineMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(deadline);
  if (sampler) clearInterval(sampler);
  const ms = Date.now() - started;

  let peakMb: number | undefined;
  if (useTime && existsSync(timeFile)) {
    const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(timeFile, 'utf8'));
    if (m) peakMb = Number(m[1]) / 1024;
    rmSync(timeFile, { force: true });
  } else if (sampledKb > 0) {
    peakMb = sampledKb / 1024;
  }
  const reportFile = join(reportDir, 'report.json');
  const report = existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, 'utf8')) as RunResult) : undefined;
  const reportTexts = readdirSync(reportDir).map((f) => readFileSync(join(reportDir, f), 'utf8'));
  return { code, killed, stdout, stderr, ms, ...(peakMb !== undefined ? { peakMb } : {}), reportDir, ...(report ? { report } : {}), reportTexts };
}
