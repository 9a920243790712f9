// What stands in the way of each figure that misses its goal, as profiling found it (issue 20:
// the bench prints every figure at its goal, or names what stands in the way). Each entry matches
// the rows of one figure; a MISS no entry explains is printed as such, never left silent. The
// texts carry the date of the profile they come from: when a figure moves, profile again.

interface Obstacle {
  /** Matches the text of the figure's row (its cells joined with " | "). */
  row: RegExp;
  text: string;
}

const OBSTACLES: Obstacle[] = [
  {
    row: /the pace learned from its 429s: API requests a second kept/,
    text:
      'pace learned behind a limit (measured 2026-11-28, `BENCH_PACED_LIMIT=40`: 18.55 a second): the first 429 sets 20 a second and a ' +
      'learned pace only ever slows (harness/pacing.ts), so a host allowing more than about 20 a second is learned at 20 at most; told ' +
      'its rate (CONFORMANCE_RATE), the same run kept 39.52 of 40. Learning faster needs the first pace taken from what the host just ' +
      'let through (turns given within its Retry-After window), not tried here: a minute-long window would start it far too fast.',
  },
  {
    row: /issue 20's goal: wall time/,
    text:
      'embedded run, 4 s (profiled 2026-11-25, `--cpu-prof`, seed 7, dist/): about 1.0 s passes before the suites\' worker starts ' +
      '(Node and the CLI 0.1 s; vite, vitest and rolldown compiling their own modules and `createVitest`), the worker takes 0.25 s to ' +
      'start and 0.5 s to import the suites; the checks then take about 3 s, of which 1.3 s is waiting on the reference\'s real-time ' +
      'bulk lifecycle (every-observation-consistent, one batch of eight bulks, 0.85 s; counts-unavailable, with a fault forced, 0.5 s). ' +
      'The bin\'s V8 flags add about 0.7 s (the plain `node` row beside). Under 4 s needs embedded checks to overlap like host runs, which ' +
      'needs every check that moves the control origin\'s clock or faults, or counts bulks around an action, to declare that it runs alone ' +
      '(not declared today), and a start that does not go through vite.',
  },
  {
    row: /no V8 flags\) against issue 20's goal: peak RSS/,
    text:
      'embedded run, 200 MiB without V8 flags (measured 2026-11-25): most of it is fixed. vite and vitest hold about 90 MiB RSS in the main ' +
      'thread once `createVitest` returns, before any check, and the suites run in a second V8 isolate (vitest\'s worker thread): a run ' +
      'of the one small topic webhooks peaks at 185 MiB. Of a full run\'s 290 MiB, the main heap is about 62 MiB and the worker\'s 76 MiB, ' +
      'including a young generation of 32 MiB each (what the bin\'s `--max-semi-space-size=1` takes away: 220 MiB with its flags); about ' +
      '100 MiB is native (Node, the rolldown binding, compiled code). Loading the compiled modules natively rather than through vite ' +
      'saved 32 MiB. 200 MiB would take running the suites without a second isolate, or without vitest.',
  },
  {
    row: /^plan .*dist\//,
    text:
      '`plan` from dist/, 0.3 s (profiled 2026-11-26, `--cpu-prof`): medians of 0.31 to 0.34 s in the bench, 0.27 to 0.30 s by ' +
      'hand on a quiet machine: just over the goal. It no longer starts vitest (2.5 s before 2026-11-25) nor loads ajv (80 ms before 2026-11-26); it imports ' +
      'every suite to read its declarations: of about 160 ms of profiled CPU, compiling and reading some 150 compiled modules takes ' +
      '60 ms, fast-check 14 ms, running the describe bodies 10 ms; Node starts in 0.1 s before that. Clearly under 0.3 s needs ' +
      'declarations that load no suite code (budgets written as data rather than functions of the run) or the suites bundled into one file.',
  },
  {
    row: /sources \(tsx\)/,
    text: 'from the sources, 0.3 s: a checkout runs the TypeScript through tsx, whose loader compiles each module as it starts (about 0.25 s); the published package runs dist/, the rows the goal is about.',
  },
  {
    row: /checker client \/ autocannon throughput/,
    text:
      'client throughput, 0.8 of autocannon (issue 9): a bare `undici.request` loop that records nothing reaches only 0.4 to 0.8 of ' +
      'autocannon on this machine (0.46 median on 2026-11-26), and the client then redacts, keeps evidence and logs every exchange, which is what it is for; a whole ' +
      'run spends about 0.05 s of client time.',
  },
  {
    row: /against a host .* ms away .*checks overlapped: wall time/,
    text:
      'host run, 10 s (measured 2026-11-28T00:15Z, seed 4242, load 0.6, CONFORMANCE_CONCURRENCY=10: 9.6 s): about 1 s passes before ' +
      'the first request (the CLI, vitest, its worker, the two tokens side by side). In between, the run is bound by its longest ' +
      'chain: the sequences, about 110 round trips one after another at 60 to 65 ms each (the served host answers a few ms after ' +
      'its 50 ms timer, more under load), while the other lanes, about 1,050 requests 10 at a time, end about as late; then the two ' +
      'checks that read a wallet or submit with nothing else submitting (12 round trips, 0.75 s), the readers\' judging (their ' +
      'sweeps went out early in a lane; 0.35 to 0.4 s) and the reports. A miss at this load means the chain ran slower than 65 ms a ' +
      'step (a loaded machine: the served host and the run share two cores). Under 9 s would need the sequences split into searches ' +
      'side by side, which was tried and left out: two searches of one business interleave, so a defect that leaks one key\'s answer ' +
      'to another is then caught under a rule that depends on the interleaving.',
  },
  {
    row: /bulk lifecycle/,
    text: 'bulk lifecycle lag, 0.5 s: polls start 100 ms after acceptance and back off by 1.5 up to 500 ms, so a read comes at most one interval after the host settles a bulk; a larger lag means the host answered slowly, and bulks shown as never settled were not settled within the settle timeout.',
  },
];

/**
 * One line per obstacle met by the missed figures of these table rows (verdict in the last cell;
 * the first `labelCells` cells name the figure): the figures it stands in the way of, then what it
 * is, or that nothing recorded says.
 */
export function obstacleLines(rows: string[][], labelCells = 1): string[] {
  const unexplained = 'no obstacle recorded in bench/obstacles.ts: profile it and say what stands in the way.';
  const figuresOf = new Map<string, string[]>();
  for (const row of rows) {
    if (row[row.length - 1] !== 'MISS') continue;
    // A figure that could not be taken misses for that reason, not for its recorded obstacle.
    const text = row.some((cell) => cell.includes('n/a')) ? 'not measured (n/a): the runs behind it did not yield the figure; see the warnings above.' : (OBSTACLES.find((o) => o.row.test(row.join(' | ')))?.text ?? unexplained);
    figuresOf.set(text, [...(figuresOf.get(text) ?? []), row.slice(0, labelCells).join(', ')]);
  }
  return [...figuresOf].map(([text, figures]) => `- ${figures.join('; ')}: ${text}`);
}
