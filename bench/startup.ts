// Start-up figures (issue 20, "Start fast"): wall and CPU seconds of commands that run no check
// (`--help`, `baseline`, `verify-certificate`) and of `plan` (which imports the suites to read
// their declarations), through the bin as users start it, for the compiled dist/ and for the TypeScript
// sources through tsx (CONFORMANCE_CODE chooses), each beside the goal of 0.3 s wall.
//
// CPU is user + system time of the child and everything it waited for, read from this process's
// own /proc/self/stat (cutime + cstime, which grow by a child's times when it is reaped): Node
// reports no child's resource usage itself. Linux only, 10 ms resolution.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CERTIFICATE_FILE, buildCertificate, renderCertificate } from '../harness/gating/certificate.ts';
import { certificationOf } from '../harness/gating/tiers.ts';
import type { RunResult } from '../harness/result.ts';
import { withNodeFirst } from '../scripts/node-lines.ts';
import { childrenCpuSeconds } from './process-tree.ts';
import { median } from './stats.ts';
import { BIN } from './whole-run.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The goal of the issue for every start-up figure on this 2-core machine. */
export const STARTUP_GOAL_S = 0.3;

export type Code = 'dist' | 'source';

export interface StartupFigure {
  command: string;
  code: Code;
  wallS: number[];
  cpuS: number[];
}

function timed(args: string[], env: NodeJS.ProcessEnv, cwd: string, okCodes: number[] = [0]): { wallS: number; cpuS: number } {
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const child = spawnSync(BIN, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const wallS = (performance.now() - started) / 1000;
  const cpuS = childrenCpuSeconds() - cpuBefore;
  if (child.status === null || !okCodes.includes(child.status)) {
    throw new Error(`conformance ${args.join(' ')} exited ${child.status}: ${(child.stderr ?? '').trim().split('\n')[0] ?? ''}`);
  }
  return { wallS, cpuS };
}

/** `npm run build`: the figures of dist/ are of the code as it is now (bench/index.ts, first). */
export function buildDist(): void {
  const built = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'build.ts')], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`npm run build failed: ${built.stdout}\n${built.stderr}`);
}

/**
 * A small report (one topic) and a certificate of it, for `baseline` and `verify-certificate`.
 * The report is marked certified as `certify` would mark it, so that verification passes whole.
 */
function makeFixture(work: string, env: NodeJS.ProcessEnv): { report: string; certificate: string } {
  const reportDir = join(work, 'reports');
  timed(['run', '--topic', 'wallet', '--seed', '1', '--report-dir', reportDir], env, work);
  const reportFile = join(reportDir, 'report.json');
  const result = JSON.parse(readFileSync(reportFile, 'utf8')) as RunResult;
  // As certify judges a run of its one topic, then marked certified whatever it found.
  const certification = { ...certificationOf(result, undefined, ['wallet']), certified: true };
  const certified: RunResult = { ...result, gating: { ...result.gating!, certification } };
  writeFileSync(reportFile, JSON.stringify(certified, null, 2));
  writeFileSync(join(reportDir, CERTIFICATE_FILE), renderCertificate(buildCertificate(certified, reportDir)));
  return { report: reportFile, certificate: join(reportDir, CERTIFICATE_FILE) };
}

/** `node`: a Node binary to start the bin on (first on PATH, its shebang finds it); default the bench's own. */
export function measureStartup(options: { repeats: number; work: string; env: NodeJS.ProcessEnv; progress: (line: string) => void; node?: string }): StartupFigure[] {
  mkdirSync(options.work, { recursive: true });
  if (options.node) options = { ...options, env: withNodeFirst(options.node, options.env) };
  const fixture = makeFixture(options.work, { ...options.env, CONFORMANCE_CODE: 'dist' });
  const commands: Array<{ label: string; args: string[] }> = [
    { label: '--help', args: ['--help'] },
    { label: 'baseline (a report of one topic)', args: ['baseline', '--report', fixture.report, '--out', join(options.work, 'baseline.json')] },
    { label: 'verify-certificate', args: ['verify-certificate', fixture.certificate] },
    { label: 'plan (all topics; imports the suites, no vitest)', args: ['plan'] },
  ];
  const figures: StartupFigure[] = [];
  for (const code of ['dist', 'source'] as const) {
    for (const command of commands) {
      options.progress(`start-up: ${command.label}, ${code}, ${options.repeats} x`);
      const figure: StartupFigure = { command: command.label, code, wallS: [], cpuS: [] };
      for (let i = 0; i < options.repeats; i++) {
        const { wallS, cpuS } = timed(command.args, { ...options.env, CONFORMANCE_CODE: code }, options.work);
        figure.wallS.push(wallS);
        figure.cpuS.push(cpuS);
      }
      figures.push(figure);
    }
  }
  return figures;
}

const s2 = (n: number) => n.toFixed(2);

/** Rows of the start-up table: command, code, wall and CPU medians, every run, goal, verdict. */
export function startupRows(figures: StartupFigure[]): string[][] {
  return figures.map((f) => [
    f.command,
    f.code === 'dist' ? 'dist/ (compiled)' : 'sources (tsx)',
    s2(median(f.wallS)),
    s2(median(f.cpuS)),
    `${f.wallS.map(s2).join(', ')} / ${f.cpuS.map(s2).join(', ')}`,
    `<= ${STARTUP_GOAL_S}`,
    median(f.wallS) <= STARTUP_GOAL_S ? 'PASS' : 'MISS',
  ]);
}

export const STARTUP_HEADER = ['command', 'code', 'wall (s)', 'CPU user+sys (s)', 'runs: wall / CPU', 'goal, wall (s)', 'verdict'];
