// The figures that show a regression on either supported Node line (issue 35): whole embedded runs
// and start-up, taken on the bench's own Node and on the second line of .ci/node-second-line once
// .ci/fetch-node has installed it, side by side in one table.
import { pinnedNode } from '../scripts/node-lines.ts';
import { median, mebibytes, seconds } from './stats.ts';
import type { StartupFigure } from './startup.ts';
import type { WholeRunFigures } from './whole-run.ts';

export interface NodeLine {
  version: string;
  /** The binary to run on; absent for the Node running the bench. */
  node?: string;
}

/** The lines to measure, and a note when the second one is missing (its figures are then left out). */
export function nodeLines(): { lines: NodeLine[]; note: string[] } {
  const own: NodeLine = { version: process.versions.node };
  const second = pinnedNode('node-second-line');
  if (second.version === own.version) return { lines: [own], note: [] };
  if (!second.installed) {
    return { lines: [own], note: [`Node ${second.version} (.ci/node-second-line) is not installed, so its figures are left out: \`.ci/fetch-node ${second.version}\` installs it.`] };
  }
  return { lines: [own, { version: second.version, node: second.path }], note: [] };
}

export interface LineFigures {
  line: NodeLine;
  /** Whole runs, all topics, profile full, compiled code, the bin's V8 flags. */
  runs: WholeRunFigures[];
  startup: StartupFigure[];
}

const s2 = (n: number) => n.toFixed(2);
/** "median (run, run, run)". */
const cell = (values: number[], format: (n: number) => string) => (values.length ? `${format(median(values))} (${values.map(format).join(', ')})` : '-');

/** Header and rows: one column per line, a row per figure (the figures a line was not measured for left out). */
export function lineTable(figures: LineFigures[]): { header: string[]; rows: string[][] } {
  const header = ['figure, median (runs)', ...figures.map((f) => `Node ${f.line.version}`)];
  const rows: string[][] = [];
  const row = (label: string, pick: (f: LineFigures) => string) => rows.push([label, ...figures.map(pick)]);
  if (figures.some((f) => f.runs.length)) {
    row('whole run, all topics, profile full, embedded reference: wall (s)', (f) => cell(f.runs.map((r) => r.wallMs), seconds));
    row('the same: CPU, process tree (s)', (f) => cell(f.runs.map((r) => r.cpuMs), seconds));
    row('the same: peak RSS, process tree (MiB)', (f) => cell(f.runs.map((r) => r.peakTreeRss), mebibytes));
    row('the same: verdicts', (f) => f.runs.map((r) => r.verdict).join(', ') || '-');
  }
  for (const { command, code } of figures[0]?.startup ?? []) {
    const label = `start-up, ${command}, ${code === 'dist' ? 'dist/ (compiled)' : 'sources (tsx)'}: wall (s)`;
    row(label, (f) => cell(f.startup.find((s) => s.command === command && s.code === code)?.wallS ?? [], s2));
  }
  return { header, rows };
}
