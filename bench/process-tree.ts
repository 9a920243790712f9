// Runs a command as a child process and measures its wall time and the memory of its whole process
// tree (vitest's workers are child processes of the CLI). Linux /proc is sampled every 50 ms: the
// peak of the summed RSS of every live process of the tree is the figure we report; the largest
// single-process peak (VmHWM, what `/usr/bin/time -f %M` would show) is kept beside it, and the
// peak of the summed PSS: a summed RSS counts twice the pages processes share (two Node processes
// share about 37 MiB of the node binary), PSS shares them out, so it sums to the memory the tree
// takes, as a container's limit counts it.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface TreeMeasurement {
  exitCode: number | null;
  wallMs: number;
  /** Max over samples of the sum of VmRSS of the tree's live processes (bytes). */
  peakTreeRss: number;
  /** Max over samples of the sum of PSS of the tree's live processes (bytes; the summed RSS where smaps_rollup is missing). */
  peakTreePss: number;
  /** Largest VmHWM (peak RSS) of any single process of the tree (bytes). */
  peakProcessRss: number;
  /** Distinct processes seen in the tree. */
  processes: number;
  /** CPU time (user + system) of the child and everything it reaped (ms; Linux clock ticks of 10 ms). */
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

const kilobytes = (text: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;

/** VmRSS, VmHWM and PSS of one process, in bytes; undefined once it is gone. */
function memoryOf(pid: number): { rss: number; hwm: number; pss: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = kilobytes(status, 'VmRSS');
    let pss = rss;
    try {
      pss = kilobytes(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss');
    } catch {
      // A kernel without smaps_rollup (before 4.14): RSS stands in.
    }
    return { rss, hwm: kilobytes(status, 'VmHWM'), pss };
  } catch {
    return undefined;
  }
}

/**
 * Seconds of CPU this process's reaped children (and what they reaped) used so far: fields 16 and
 * 17 of /proc/self/stat, in clock ticks of 10 ms. Taken around one child, it is that child's whole
 * CPU time, threads and short-lived processes included, which sampling would miss.
 */
export function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command name, field 3 (state) is index 0: cutime is field 16, cstime field 17.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

export function measureTree(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<TreeMeasurement> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const cpuBefore = childrenCpuSeconds();
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    let peakTreeRss = 0;
    let peakTreePss = 0;
    const peakByPid = new Map<number, number>();
    const sample = () => {
      if (child.pid === undefined) return;
      let sum = 0;
      let pss = 0;
      for (const pid of descendantsOf(child.pid, parentsOfAll())) {
        const memory = memoryOf(pid);
        if (!memory) continue;
        sum += memory.rss;
        pss += memory.pss;
        peakByPid.set(pid, Math.max(peakByPid.get(pid) ?? 0, memory.hwm));
      }
      peakTreeRss = Math.max(peakTreeRss, sum);
      peakTreePss = Math.max(peakTreePss, pss);
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
        peakTreePss,
        peakProcessRss: Math.max(0, ...peakByPid.values()),
        processes: peakByPid.size,
        // 'close' comes after the child is reaped, so its CPU time is counted by now.
        cpuMs: Math.round((childrenCpuSeconds() - cpuBefore) * 1000),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}
