// Runs a command as a child process and measures its wall time and the memory of its whole process
// tree (vitest's workers are child processes of the CLI). Linux /proc is sampled every 50 ms: the
// peak of the summed RSS of every live process of the tree is the figure we report; the largest
// single-process peak (VmHWM, what `/usr/bin/time -f %M` would show) is kept beside it.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface TreeMeasurement {
  exitCode: number | null;
  wallMs: number;
  /** Max over samples of the sum of VmRSS of the tree's live processes (bytes). */
  peakTreeRss: number;
  /** Largest VmHWM (peak RSS) of any single process of the tree (bytes). */
  peakProcessRss: number;
  /** Distinct processes seen in the tree. */
  processes: number;
  /** CPU time (user + system) of the tree's processes, summed, as last sampled (ms; Linux clock ticks of 10 ms). */
  cpuMs: number;
  stdout: string;
  stderr: string;
}

export const SAMPLE_INTERVAL_MS = 50;

/** pid -> parent pid of every process (one /proc walk). */
function parentsOfAll(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Field 4 of /proc/PID/stat, after the parenthesised command name (which may hold spaces).
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(name), ppid);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return parents;
}

function descendantsOf(root: number, parents: Map<number, number>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (!parents.has(pid)) continue;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** VmRSS and VmHWM of one process, in bytes; undefined once it is gone. */
function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** User + system CPU time of one process so far (ms), from /proc/PID/stat fields 14 and 15 (clock ticks, 100 a second). */
function cpuOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command name start at field 3 (state): utime is field 14, stime 15.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

export function measureTree(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<TreeMeasurement> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    let peakTreeRss = 0;
    const peakByPid = new Map<number, number>();
    const cpuByPid = new Map<number, number>();
    const sample = () => {
      if (child.pid === undefined) return;
      let sum = 0;
      for (const pid of descendantsOf(child.pid, parentsOfAll())) {
        const memory = memoryOf(pid);
        if (!memory) continue;
        sum += memory.rss;
        peakByPid.set(pid, Math.max(peakByPid.get(pid) ?? 0, memory.hwm));
        const cpu = cpuOf(pid);
        if (cpu !== undefined) cpuByPid.set(pid, Math.max(cpuByPid.get(pid) ?? 0, cpu));
      }
      peakTreeRss = Math.max(peakTreeRss, sum);
    };
    const timer = setInterval(sample, SAMPLE_INTERVAL_MS);
    child.on('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.on('close', (exitCode) => {
      clearInterval(timer);
      resolve({
        exitCode,
        wallMs: performance.now() - started,
        peakTreeRss,
        peakProcessRss: Math.max(0, ...peakByPid.values()),
        processes: peakByPid.size,
        cpuMs: [...cpuByPid.values()].reduce((sum, ms) => sum + ms, 0),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}
