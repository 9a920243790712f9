// `npm run bench`: how fast and how frugal the checker is, printed as Markdown tables (the figures
// docs/benchmark.md quotes). Every figure is the median of BENCH_REPEATS runs. Measurements only:
// a missed target prints MISS, it never fails anything; the exit status is 1 only when a whole run
// itself did not pass (then its figures mean little).
//
//   npm run bench
//   BENCH_REPEATS=5 BENCH_OUT=docs/benchmark-latest.md npm run bench
//
// Settings (environment):
//   BENCH_REPEATS          runs per figure (default 3)
//   BENCH_SEED             seed of the first whole run; run i uses seed + i (default 4242)
//   BENCH_CONNECTIONS      autocannon connections = the client's concurrency (default 10)
//   BENCH_SECONDS          seconds per throughput sample (default 3)
//   BENCH_GENERATOR_RUNS   bodies generated per generator scenario (default 100)
//   BENCH_TRAFFIC_MB       size of the exchange log `check` judges (default 100)
//   BENCH_LATENCY_MS       answer delay of the distant host of the host runs (default 50)
//   BENCH_OUT              also write the printed Markdown to this file
//   BENCH_ONLY=startup     only the start-up figures (about a minute): builds dist/, then times
//                          --help, baseline, verify-certificate and plan, compiled and through tsx
//   BENCH_ONLY=traffic     only `check` at production scale (about fifteen minutes, several GB
//                          of /tmp written and removed): one whole run for its log, then that log
//                          repeated with fresh ids to 1 GiB (plain and gzipped), 100 MB and 4 GiB
//                          (plain and gzipped), and the 1 GiB read with no rule (check's floor);
//                          one judgement each (BENCH_REPEATS does not apply): rate and peak RSS;
//                          and the 1 GiB log in 4 partitions, one after the other (each on one core)
//   BENCH_ONLY=host        only the runs against a distant host, checks overlapped (about a
//                          minute): builds dist/, then BENCH_REPEATS runs, wall time and bulk lag
//   BENCH_ONLY=embedded    only the whole embedded runs (profile full), on each Node line
//   BENCH_ONLY=paced       only the runs behind a host's rate limit (about ten minutes): one whole
//                          run that learns the pace from 429s, one told it (CONFORMANCE_RATE), and
//                          the pace each kept beside the limit (BENCH_PACED_LIMIT, default 5 a second)
//
// Node lines: the whole embedded runs and the start-up figures are also taken on the second
// supported line (.ci/node-second-line) when .ci/fetch-node has installed it, and printed side by
// side with the bench's own Node (bench/node-lines.ts), so a regression on either shows.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOPICS } from '../core/model.ts';
import { measureClientThroughput } from './client-throughput.ts';
import type { ThroughputFigures } from './client-throughput.ts';
import { GENERATOR_TARGET_MS, measureBulkBodyGeneration } from './generators.ts';
import { LAG_CHECK, LAG_GOAL_MS } from './bulk-lag.ts';
import { markdownTable, mebibytes, median, seconds } from './stats.ts';
import { measureTrafficCheck, type TrafficCheckFigures } from './traffic-check.ts';

/** Per-topic times are short: two decimals. */
const topicSeconds = (ms: number): string => (ms / 1000).toFixed(2);
import { cleanEnv, measureHostRun, measureWholeRun } from './whole-run.ts';
import { obstacleLines } from './obstacles.ts';
import { STARTUP_GOAL_S, STARTUP_HEADER, buildDist, measureStartup, startupRows } from './startup.ts';
import { lineTable, nodeLines, type LineFigures, type NodeLine } from './node-lines.ts';
import type { StartupFigure } from './startup.ts';
import type { HostRunFigures, WholeRunFigures } from './whole-run.ts';

function intSetting(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    process.stderr.write(`bench: ${name} must be an integer >= ${min} (got ${JSON.stringify(raw)})\n`);
    process.exit(2);
  }
  return value;
}

const REPEATS = intSetting('BENCH_REPEATS', 3, 1);
const SEED = intSetting('BENCH_SEED', 4242, 0);
const CONNECTIONS = intSetting('BENCH_CONNECTIONS', 10, 1);
const SECONDS = intSetting('BENCH_SECONDS', 3, 1);
const GENERATOR_RUNS = intSetting('BENCH_GENERATOR_RUNS', 100, 1);
const TRAFFIC_MB = intSetting('BENCH_TRAFFIC_MB', 100, 1);
const ONLY = process.env.BENCH_ONLY ?? '';
if (!['', 'startup', 'host', 'embedded', 'traffic', 'paced'].includes(ONLY)) {
  process.stderr.write(`bench: BENCH_ONLY takes startup, host, embedded, traffic or paced (got ${JSON.stringify(ONLY)})\n`);
  process.exit(2);
}
const LATENCY_MS = intSetting('BENCH_LATENCY_MS', 50, 0);
const PACED_LIMIT = intSetting('BENCH_PACED_LIMIT', 5, 1);

/** The targets of the issue, on a 2-core machine. */
const TARGETS = {
  wallMs: 20_000,
  /** Issue 20's goals for the embedded whole run: 4 s wall, 200 MiB peak. */
  fastWallMs: 4_000,
  fastPeakRssBytes: 200 * 1024 * 1024,
  /** A whole run against a host LATENCY_MS away (issue 20: 29 s before the checks overlapped). */
  hostWallMs: 10_000,
  throughputRatio: 0.8,
  peakRssBytes: 300 * 1024 * 1024,
  safeRequests: 300,
  /** `check` reads a 100 MB file as a stream within the run's memory bound (issue 19). */
  trafficPeakRssBytes: 300 * 1024 * 1024,
};
/**
 * Behind a host's rate limit, the share of it a whole run keeps: learning it from 429s (a tenth at
 * a time, so up to a tenth below), or told it, where only the host's window edge may slow it.
 */
const PACE_GOALS = { learned: 0.8, declared: 0.9 };
/** Issue 31: a 1 GiB log judged on one core at this rate, within this memory whatever the file's size. */
const TRAFFIC_RATE_GOAL = 50_000;
const TRAFFIC_SCALE_RSS = 256 * 1024 * 1024;
/** Partitions the 1 GiB log is also judged in (`check --partition i/n`), as that many job runners would. */
const TRAFFIC_PARTITIONS = 4;

/** A figure meets its goal only when every run behind it passed: a failed run's figure proves nothing. */
const verdictOf = (runs: ReadonlyArray<{ exitCode: number | null }>, ok: boolean) => verdict(ok && runs.every((r) => r.exitCode === 0));
const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const loads = () => loadavg().map((l) => l.toFixed(2)).join(' / ');

async function wholeRuns(profile: 'full' | 'safe', options: { keepExchangeLog?: string; withoutFlags?: boolean; line?: NodeLine; repeats?: number } = {}): Promise<WholeRunFigures[]> {
  const out: WholeRunFigures[] = [];
  for (let i = 0; i < (options.repeats ?? REPEATS); i++) {
    const seed = SEED + i;
    const on = options.line?.node ? `, Node ${options.line.version}` : '';
    progress(`whole run ${i + 1}/${REPEATS}, profile ${profile}, seed ${seed}${options.withoutFlags ? ', plain node (no V8 flags)' : ''}${on}`);
    const run = await measureWholeRun({
      profile,
      seed,
      ...(i === 0 && options.keepExchangeLog ? { keepExchangeLog: options.keepExchangeLog } : {}),
      ...(options.withoutFlags ? { withoutFlags: true } : {}),
      ...(options.line?.node ? { node: options.line.node } : {}),
    });
    progress(`  ${seconds(run.wallMs)} s, ${run.totalRequests} requests, peak tree RSS ${mebibytes(run.peakTreeRss)} MiB, verdict ${run.verdict}`);
    out.push(run);
  }
  return out;
}

/** Whole runs against the reference served as a distant host; `concurrency` 1 is one check at a time. */
async function hostRuns(concurrency: number | undefined, repeats: number): Promise<HostRunFigures[]> {
  const out: HostRunFigures[] = [];
  for (let i = 0; i < repeats; i++) {
    const seed = SEED + i;
    const how = concurrency === 1 ? 'one check at a time' : 'checks overlapped';
    progress(`host run ${i + 1}/${repeats}, ${LATENCY_MS} ms away, ${how}, seed ${seed}`);
    const run = await measureHostRun({ seed, latencyMs: LATENCY_MS, ...(concurrency !== undefined ? { concurrency } : {}) });
    const lags = run.settleLags?.lags.map((l) => l.lagMs) ?? [];
    const lag = lags.length ? `, bulk lag median ${topicSeconds(median(lags))} s, worst ${topicSeconds(Math.max(...lags))} s` : '';
    progress(`  ${seconds(run.wallMs)} s, CPU ${seconds(run.cpuMs)} s, ${run.totalRequests} requests${lag}, verdict ${run.verdict}`);
    out.push(run);
  }
  return out;
}

/** The Targets rows of the overlapped runs against a distant host: wall time, and how closely polls follow the host. */
function hostRows(host: HostRunFigures[]): string[][] {
  const wall = host.map((r) => r.wallMs);
  const lags = host.flatMap((r) => r.settleLags?.lags ?? []);
  const ms = lags.map((l) => l.lagMs);
  // A run whose check could not be found, or a bulk never read settled, misses the goal.
  const whole = host.every((r) => r.settleLags !== undefined && r.settleLags.unsettled.length === 0) && lags.length > 0;
  const worst = ms.length ? Math.max(...ms) : Number.NaN;
  const perRun = host.map((r) => {
    const own = r.settleLags?.lags.map((l) => l.lagMs) ?? [];
    const unsettled = r.settleLags?.unsettled.length ? ` +${r.settleLags.unsettled.length} never settled` : '';
    return own.length ? `${topicSeconds(median(own))}/${topicSeconds(Math.max(...own))}${unsettled}` : 'n/a';
  });
  const bounds = lags.filter((l) => l.bound).length;
  return [
    [
      `whole run against a host ${LATENCY_MS} ms away (reference served with --latency-ms ${LATENCY_MS}), checks overlapped: wall time (s)`,
      seconds(median(wall)),
      list(wall, seconds),
      `<= ${seconds(TARGETS.hostWallMs)}`,
      verdictOf(host, median(wall) <= TARGETS.hostWallMs),
    ],
    [
      `bulk lifecycle waits on a host: ${LAG_CHECK}, host settling a bulk to the first read showing it settled, median; worst over ${lags.length} bulks (s)` +
        (bounds ? `; ${bounds} read before delivery reporting, counted at their bound` : ''),
      ms.length ? `${topicSeconds(median(ms))}; ${topicSeconds(worst)}` : 'n/a',
      `${perRun.join(', ')} (median/worst per run)`,
      `<= ${seconds(LAG_GOAL_MS)}`,
      verdictOf(host, whole && worst <= LAG_GOAL_MS),
    ],
  ];
}

/** Whole runs behind the host's rate limit: one learning the pace, one told it. */
async function pacedSection(): Promise<{ lines: string[]; failed: HostRunFigures[] }> {
  const runs: HostRunFigures[] = [];
  for (const declareRate of [false, true]) {
    progress(`host run behind a limit of ${PACED_LIMIT} a second, the pace ${declareRate ? 'told (CONFORMANCE_RATE)' : 'learned from 429s'}, seed ${SEED}`);
    const run = await measureHostRun({ seed: SEED, latencyMs: 0, rateLimit: PACED_LIMIT, declareRate });
    progress(`  ${seconds(run.wallMs)} s, ${run.pace?.perSecond.toFixed(2)} requests a second, ${run.pace?.answers429} answers 429, verdict ${run.verdict}`);
    runs.push(run);
  }
  const rows = runs.map((r) => {
    const goal = PACED_LIMIT * (r.pace?.declared ? PACE_GOALS.declared : PACE_GOALS.learned);
    const kept = r.pace?.perSecond ?? Number.NaN;
    return [
      `whole run behind a host's limit of ${PACED_LIMIT} requests a second (\`serve --rate-limit\`), the pace ${r.pace?.declared ? 'told (CONFORMANCE_RATE)' : 'learned from its 429s'}: API requests a second kept`,
      kept.toFixed(2),
      `${r.pace?.requests} requests in ${seconds(r.wallMs)} s, ${r.pace?.answers429} answers 429`,
      `>= ${goal.toFixed(2)}`,
      verdictOf([r], kept >= goal),
    ];
  });
  const lines = ['### Behind a host\'s rate limit', '', ...markdownTable(['figure', 'value', 'run', 'target', 'verdict'], rows), ...missesSection(obstacleLines(rows))];
  return { lines, failed: runs.filter((r) => r.exitCode !== 0) };
}

const networkBoundMs = (r: HostRunFigures) => (r.totalRequests * r.latencyMs) / r.concurrency;

/** The Other figures of the overlapped runs against a distant host: CPU time and requests. */
function hostOtherRows(host: HostRunFigures[]): string[][] {
  return [
    [`whole run against a host ${LATENCY_MS} ms away, checks overlapped: CPU time of the run (s)`, seconds(median(host.map((r) => r.cpuMs))), list(host.map((r) => r.cpuMs), seconds)],
    [`whole run against a host ${LATENCY_MS} ms away, checks overlapped: requests`, String(median(host.map((r) => r.totalRequests))), list(host.map((r) => r.totalRequests), String)],
    // What the requests alone cost at the bound of requests in flight, and the rest of the wall time:
    // the part the checker's own work (start, ordering, readers, reports) adds, whatever the run sends.
    [`the same: the requests' bound, requests × ${LATENCY_MS} ms / requests in flight; the wall time beyond it (s)`, `${seconds(median(host.map(networkBoundMs)))}; ${seconds(median(host.map((r) => r.wallMs - networkBoundMs(r))))}`, list(host.map((r) => r.wallMs - networkBoundMs(r)), seconds)],
  ];
}

function topicRows(full: WholeRunFigures[], safe: WholeRunFigures[]): string[][] {
  const perTopic = (runs: WholeRunFigures[], id: string, pick: (t: WholeRunFigures['topics'][number]) => number) =>
    median(runs.map((r) => r.topics.find((t) => t.id === id)).filter((t) => t !== undefined).map(pick));
  const ids = TOPICS.filter((id) => full.some((r) => r.topics.some((t) => t.id === id)));
  const rows = ids.map((id) => [
    id,
    String(full[0]?.topics.find((t) => t.id === id)?.checks ?? ''),
    topicSeconds(perTopic(full, id, (t) => t.checksMs)),
    String(perTopic(full, id, (t) => t.requests)),
    topicSeconds(perTopic(safe, id, (t) => t.checksMs)),
    String(perTopic(safe, id, (t) => t.requests)),
  ]);
  const sumChecks = (r: WholeRunFigures) => r.topics.reduce((s, t) => s + t.checksMs, 0);
  rows.push([
    'outside checks (start, imports, reports)',
    '',
    seconds(median(full.map((r) => r.wallMs - sumChecks(r)))),
    String(median(full.map((r) => r.outsideChecks))),
    seconds(median(safe.map((r) => r.wallMs - sumChecks(r)))),
    String(median(safe.map((r) => r.outsideChecks))),
  ]);
  rows.push([
    'whole run',
    String(full[0]?.topics.reduce((s, t) => s + t.checks, 0) ?? ''),
    seconds(median(full.map((r) => r.wallMs))),
    String(median(full.map((r) => r.totalRequests))),
    seconds(median(safe.map((r) => r.wallMs))),
    String(median(safe.map((r) => r.totalRequests))),
  ]);
  return rows;
}

function list(values: number[], format: (n: number) => string): string {
  return values.map(format).join(', ');
}

function startupFigures(line?: NodeLine): StartupFigure[] {
  const work = mkdtempSync(join(tmpdir(), 'conformance-bench-startup-'));
  try {
    const on = line?.node ? { node: line.node, progress: (l: string) => progress(`${l}, Node ${line.version}`) } : { progress };
    return measureStartup({ repeats: REPEATS, work, env: cleanEnv(), ...on });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function startupSection(figures: StartupFigure[]): string[] {
  return [
    '### Start-up',
    '',
    `The bin as users start it, from a folder with no .env; wall seconds spawn to exit, CPU the child's user + system seconds. Goal (issue 20): ${STARTUP_GOAL_S} s wall on this 2-core machine. \`plan\` imports every suite to read its declarations (fast-check, the generators, the suites themselves), without vitest.`,
    '',
    ...markdownTable(STARTUP_HEADER, startupRows(figures)),
  ];
}

/** Each Node line's whole runs and start-up side by side (bench/node-lines.ts). */
function linesSection(figures: LineFigures[], note: string[]): string[] {
  const { header, rows } = lineTable(figures);
  return [
    '',
    '### Node lines',
    '',
    'The same figures on each supported Node line measured: the bench\'s own and the second line of `.ci/node-second-line` (the bin started with that Node first on PATH).',
    '',
    ...markdownTable(header, rows),
    ...(note.length ? ['', ...note] : []),
  ];
}

/** What stands in the way of each missed goal (bench/obstacles.ts), when any is missed. */
function missesSection(obstacles: string[]): string[] {
  return obstacles.length === 0 ? [] : ['', '### What stands in the way of each miss', '', ...obstacles];
}

function heading(startedAt: Date, loadAtStart: string, loadAtEnd: string): string[] {
  return [
    `## Benchmark ${startedAt.toISOString()}`,
    '',
    `Machine: ${availableParallelism()} cores (os.availableParallelism()), ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}.`,
    `Load average (1 / 5 / 15 min) at start ${loadAtStart}, at end ${loadAtEnd}.`,
    `Command: \`${ONLY ? `BENCH_ONLY=${ONLY} ` : ''}BENCH_REPEATS=${REPEATS} BENCH_SEED=${SEED} BENCH_CONNECTIONS=${CONNECTIONS} BENCH_SECONDS=${SECONDS} npm run bench\`; ${ONLY === 'traffic' || ONLY === 'paced' ? 'one run a figure (BENCH_REPEATS does not apply)' : `every figure is the median of ${REPEATS} runs (all runs listed)`}.`,
  ];
}

function print(lines: string[]): void {
  const text = `${lines.join('\n')}\n`;
  process.stdout.write(text);
  if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, text);
}

const GIB_MB = 1073.741824;

/** Issue 31: `check` on a log of production size, plain and gzipped, and its memory as the file grows. */
async function scaleSection(): Promise<string[]> {
  const work = mkdtempSync(join(tmpdir(), 'conformance-bench-log-'));
  const runLog = join(work, 'exchanges.jsonl');
  const figures: Array<{ label: string; f: TrafficCheckFigures }> = [];
  try {
    await wholeRuns('full', { keepExchangeLog: runLog, repeats: 1 });
    for (const [label, mb, gzip] of [['1 GiB JSON lines', GIB_MB, false], ['1 GiB JSON lines, gzipped', GIB_MB, true], ['100 MB JSON lines', 100, false], ['4 GiB JSON lines', 4 * GIB_MB, false], ['4 GiB JSON lines, gzipped', 4 * GIB_MB, true]] as const) {
      progress(`check on ${label} (fresh ids)${label === '1 GiB JSON lines' ? `, then in ${TRAFFIC_PARTITIONS} partitions` : ''}`);
      const first = label === '1 GiB JSON lines';
      const [f, ...parts] = await measureTrafficCheck(runLog, mb, 1, gzip, first ? TRAFFIC_PARTITIONS : 0, first);
      for (const x of [f!, ...parts]) {
        progress(`  ${x.partition ? `partition ${x.partition} (${x.judged} of its own): ` : x.readingOnly ? 'read and observed, no rule: ' : ''}${x.exchanges} exchanges, ${seconds(x.wallMs)} s, ${x.exchangesPerS.toFixed(0)} exchanges/s, CPU ${seconds(x.cpuMs)} s (${x.exchangesPerCpuS.toFixed(0)} per CPU second), peak RSS ${mebibytes(x.judgeRss)} MiB (PSS ${mebibytes(x.peakPss)}, RSS summed over the tree ${mebibytes(x.peakRss)}), exit ${x.exitCode}`);
      }
      figures.push({ label, f: f! }, ...parts.map((x) => ({ label: x.readingOnly ? `${label}, read and observed, no rule judging` : `${label}, partition ${x.partition}`, f: x })));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const rate = (f: TrafficCheckFigures) => f.exchangesPerS.toFixed(0);
  const memory = (f: TrafficCheckFigures) => `${mebibytes(f.judgeRss)} (PSS ${mebibytes(f.peakPss)})`;
  const of = (label: string) => figures.find((x) => x.label === label)!.f;
  const [plain, gz] = [of('1 GiB JSON lines'), of('1 GiB JSON lines, gzipped')];
  const parts = figures.filter((x) => x.f.partition).map((x) => x.f);
  // n job runners run the partitions at once: the traffic is judged when the slowest ends.
  const slowest = Math.max(...parts.map((p) => p.wallMs));
  // How the goal's CPU an exchange splits: what reading costs before any rule, and what is left to the rules.
  const floor = figures.find((x) => x.f.readingOnly)?.f;
  const microseconds = (f: TrafficCheckFigures) => (f.cpuMs * 1000) / f.exchanges;
  const goalMicroseconds = 1e6 / TRAFFIC_RATE_GOAL;
  const floorRows = floor
    ? [
        ['the same 1 GiB read, parsed and observed as the rules receive it, no rule judging (bench/reading-floor.mjs): CPU µs an exchange', microseconds(floor).toFixed(1), `of the ${goalMicroseconds} µs the goal allows in all`, '-'],
        ['`check`, 1 GiB JSON lines: CPU µs an exchange spent by the rules and the judge (check\'s minus the floor)', (microseconds(plain) - microseconds(floor)).toFixed(1), `<= ${(goalMicroseconds - microseconds(floor)).toFixed(1)} (the goal's ${goalMicroseconds} less the floor)`, verdict(microseconds(plain) <= goalMicroseconds)],
      ]
    : [];
  const rows = [
    ['`check`, 1 GiB JSON lines: exchanges judged per second, read included', rate(plain), `>= ${TRAFFIC_RATE_GOAL}`, verdict(plain.exchangesPerS >= TRAFFIC_RATE_GOAL)],
    ['`check`, 1 GiB JSON lines: exchanges judged per CPU second (user + system; the machine is shared, so the wall rate above carries its load)', plain.exchangesPerCpuS.toFixed(0), `>= ${TRAFFIC_RATE_GOAL}`, verdict(plain.exchangesPerCpuS >= TRAFFIC_RATE_GOAL)],
    ['`check`, 1 GiB JSON lines: peak RSS (MiB)', memory(plain), `<= ${mebibytes(TRAFFIC_SCALE_RSS)}`, verdict(plain.judgeRss <= TRAFFIC_SCALE_RSS)],
    [`\`check\`, the same gzipped (${(gz.fileBytes / 2 ** 20).toFixed(0)} MiB on disk): exchanges judged per second`, rate(gz), `>= ${TRAFFIC_RATE_GOAL}`, verdict(gz.exchangesPerS >= TRAFFIC_RATE_GOAL)],
    ['`check`, the same gzipped: peak RSS (MiB)', memory(gz), `<= ${mebibytes(TRAFFIC_SCALE_RSS)}`, verdict(gz.judgeRss <= TRAFFIC_SCALE_RSS)],
    ...floorRows,
    [`\`check --partition i/${TRAFFIC_PARTITIONS}\`, 1 GiB JSON lines, each partition on one core: exchanges of the log judged per second of the slowest partition (${seconds(slowest)} s; each reads the whole log)`, (plain.exchanges / (slowest / 1000)).toFixed(0), `>= ${TRAFFIC_RATE_GOAL}`, verdict(plain.exchanges / (slowest / 1000) >= TRAFFIC_RATE_GOAL)],
    ...['100 MB JSON lines', '1 GiB JSON lines', '4 GiB JSON lines', '4 GiB JSON lines, gzipped'].map((label) => [`\`check\`, ${label} (${of(label).exchanges} exchanges${of(label).gzip ? `, ${(of(label).fileBytes / 2 ** 20).toFixed(0)} MiB on disk` : ''}): peak RSS (MiB)`, memory(of(label)), `<= ${mebibytes(TRAFFIC_SCALE_RSS)}, flat`, verdict(of(label).judgeRss <= TRAFFIC_SCALE_RSS)]),
  ];
  return [
    '### `check` at production scale (issue 31)',
    '',
    'A whole run\'s `exchanges.jsonl` repeated with fresh ids (every UUIDv7 moved, every cursor suffixed, per copy), judged once per size by the bin on the compiled code. Memory is held to its goal as the judging process\'s peak RSS (its VmHWM, the figure `/usr/bin/time` shows; the bin starts `check` as one process), its PSS beside it (shared pages shared out) and, in the table below, the RSS of the process tree summed from samples.',
    '',
    ...markdownTable(['figure', 'measured', 'target', 'verdict'], rows),
    '',
    ...markdownTable(['log', 'exchanges', 'wall (s)', 'exchanges/s', 'CPU (s)', 'exchanges per CPU s', "the judge's peak RSS (MiB)", 'peak PSS (MiB)', 'peak RSS summed (MiB)', 'exit'], figures.map(({ label, f }) => [f.partition ? `${label} (${f.judged} of its businesses)` : label, String(f.exchanges), seconds(f.wallMs), rate(f), seconds(f.cpuMs), f.exchangesPerCpuS.toFixed(0), mebibytes(f.judgeRss), mebibytes(f.peakPss), mebibytes(f.peakRss), String(f.exitCode)])),
  ];
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const loadAtStart = loads();
  progress('building dist/ (the whole runs and the start-up figures run the compiled code, as the installed package does)');
  buildDist();
  const { lines: nodes, note } = nodeLines();
  const others = nodes.slice(1);
  if (ONLY === 'startup') {
    const figures = startupFigures();
    const perLine = [{ line: nodes[0]!, runs: [], startup: figures }, ...others.map((line) => ({ line, runs: [], startup: startupFigures(line) }))];
    print([...heading(startedAt, loadAtStart, loads()), '', ...startupSection(figures), ...missesSection(obstacleLines(startupRows(figures), 2)), ...linesSection(perLine, note)]);
    return 0;
  }
  if (ONLY === 'embedded') {
    const perLine: LineFigures[] = [];
    for (const line of nodes) perLine.push({ line, runs: await wholeRuns('full', { line }), startup: [] });
    const failed = perLine.flatMap((f) => f.runs).filter((r) => r.exitCode !== 0);
    print([...heading(startedAt, loadAtStart, loads()), ...linesSection(perLine, note)]);
    return failed.length ? 1 : 0;
  }
  if (ONLY === 'traffic') {
    print([...heading(startedAt, loadAtStart, loads()), '', ...(await scaleSection())]);
    return 0;
  }
  if (ONLY === 'paced') {
    const { lines, failed } = await pacedSection();
    print([...heading(startedAt, loadAtStart, loads()), '', ...lines, ...(failed.length ? ['', `Warning: ${failed.length} paced run(s) did not pass.`] : [])]);
    return failed.length ? 1 : 0;
  }
  if (ONLY === 'host') {
    const host = await hostRuns(undefined, REPEATS);
    const failed = host.filter((r) => r.exitCode !== 0);
    const rows = hostRows(host);
    print([
      ...heading(startedAt, loadAtStart, loads()),
      '',
      '### Against a distant host',
      '',
      ...markdownTable(['figure', 'median', 'runs', 'target', 'verdict'], rows),
      ...missesSection(obstacleLines(rows)),
      '',
      ...markdownTable(['figure', 'median', 'runs'], hostOtherRows(host)),
      ...(failed.length ? ['', `Warning: ${failed.length} host run(s) did not pass (${failed.map((r) => `seed ${r.seed}: exit ${r.exitCode}, verdict ${r.verdict}`).join('; ')}).`] : []),
    ]);
    return failed.length ? 1 : 0;
  }
  const work = mkdtempSync(join(tmpdir(), 'conformance-bench-log-'));
  const runLog = join(work, 'exchanges.jsonl');
  let full: WholeRunFigures[];
  let traffic: TrafficCheckFigures[];
  try {
    full = await wholeRuns('full', { keepExchangeLog: runLog });
    progress(`check on a ${TRAFFIC_MB} MB exchange log, ${REPEATS} x`);
    traffic = await measureTrafficCheck(runLog, TRAFFIC_MB, REPEATS);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const safe = await wholeRuns('safe');
  const plain = await wholeRuns('full', { withoutFlags: true });
  const host = await hostRuns(undefined, REPEATS);
  // One run only: the sequential figure is the reference point, and it takes three times as long.
  const hostSequential = await hostRuns(1, 1);
  progress(`client throughput: ${REPEATS} x (autocannon, client, bare undici), ${SECONDS} s each, ${CONNECTIONS} connections`);
  const throughput: ThroughputFigures = await measureClientThroughput({ connections: CONNECTIONS, seconds: SECONDS, repeats: REPEATS, exchangeLog: true });
  progress(`generators: ${GENERATOR_RUNS} bodies per scenario`);
  const generators = measureBulkBodyGeneration(GENERATOR_RUNS);
  const startup = startupFigures();
  const perLine: LineFigures[] = [{ line: nodes[0]!, runs: full, startup }];
  for (const line of others) perLine.push({ line, runs: await wholeRuns('full', { line }), startup: startupFigures(line) });
  const loadAtEnd = loads();

  const wall = full.map((r) => r.wallMs);
  const rss = full.map((r) => r.peakTreeRss);
  const plainRss = plain.map((r) => r.peakTreeRss);
  const safeRequests = safe.map((r) => r.totalRequests);
  const ratios = throughput.samples.map((s) => s.ratio);
  const rps = (n: number) => n.toFixed(0);
  const trafficRss = traffic.map((t) => t.peakRss);

  const lines: string[] = heading(startedAt, loadAtStart, loadAtEnd);
  lines.push('');
  lines.push('### Targets');
  lines.push('');
  const targetRows = [
    ['whole run, all topics, profile full, 25 cases per property: wall time (s)', seconds(median(wall)), list(wall, seconds), `<= ${seconds(TARGETS.wallMs)}`, verdictOf(full, median(wall) <= TARGETS.wallMs)],
    ['checker client / autocannon throughput, GET wallet balance', median(ratios).toFixed(2), list(ratios, (n) => n.toFixed(2)), `>= ${TARGETS.throughputRatio}`, verdict(median(ratios) >= TARGETS.throughputRatio)],
    ['the same run against issue 20\'s goal: wall time (s)', seconds(median(wall)), list(wall, seconds), `<= ${seconds(TARGETS.fastWallMs)}`, verdictOf(full, median(wall) <= TARGETS.fastWallMs)],
    ['the same run: CPU time, process tree (s)', seconds(median(full.map((r) => r.cpuMs))), list(full.map((r) => r.cpuMs), seconds), 'beside the wall time', '-'],
    ['the same run with plain `node` (no V8 flags) against issue 20\'s goal: peak RSS (MiB)', mebibytes(median(plainRss)), list(plainRss, mebibytes), `<= ${mebibytes(TARGETS.fastPeakRssBytes)}`, verdictOf(plain, median(plainRss) <= TARGETS.fastPeakRssBytes)],
    ['the same run with plain `node`: wall; CPU (s)', `${seconds(median(plain.map((r) => r.wallMs)))}; ${seconds(median(plain.map((r) => r.cpuMs)))}`, list(plain.map((r) => r.wallMs), seconds), 'beside the bin\'s figures', '-'],
    ['peak RSS of a whole full run, process tree summed (MiB)', mebibytes(median(rss)), list(rss, mebibytes), `< ${mebibytes(TARGETS.peakRssBytes)}`, verdictOf(full, median(rss) < TARGETS.peakRssBytes)],
    ['requests of a whole safe run', String(median(safeRequests)), list(safeRequests, String), `< ${TARGETS.safeRequests}`, verdictOf(safe, median(safeRequests) < TARGETS.safeRequests)],
    [`\`check\` on a ${TRAFFIC_MB} MB exchange log: peak RSS (MiB)`, mebibytes(median(trafficRss)), list(trafficRss, mebibytes), `< ${mebibytes(TARGETS.trafficPeakRssBytes)}`, verdict(median(trafficRss) < TARGETS.trafficPeakRssBytes)],
    ...hostRows(host),
  ];
  lines.push(...markdownTable(['figure', 'median', 'runs', 'target', 'verdict'], targetRows));
  lines.push('');
  lines.push(...startupSection(startup));
  lines.push(...missesSection([...obstacleLines(targetRows), ...obstacleLines(startupRows(startup), 2)]));
  lines.push(...linesSection(perLine, note));
  lines.push('');
  lines.push('### Other figures');
  lines.push('');
  const single = full.map((r) => r.peakProcessRss);
  const safeWall = safe.map((r) => r.wallMs);
  const fullRequests = full.map((r) => r.totalRequests);
  lines.push(
    ...markdownTable(
      ['figure', 'median', 'runs'],
      [
        ['whole run, profile safe: wall time (s)', seconds(median(safeWall)), list(safeWall, seconds)],
        ['requests of a whole full run', String(median(fullRequests)), list(fullRequests, String)],
        ['peak RSS of the largest single process of a full run (MiB)', mebibytes(median(single)), list(single, mebibytes)],
        [`\`check\` on a ${TRAFFIC_MB} MB exchange log (${traffic[0]?.exchanges ?? 0} exchanges): exchanges judged per second, read included`, rps(median(traffic.map((t) => t.exchangesPerS))), list(traffic.map((t) => t.exchangesPerS), rps)],
        [`\`check\` on a ${TRAFFIC_MB} MB exchange log: wall time (s)`, seconds(median(traffic.map((t) => t.wallMs))), list(traffic.map((t) => t.wallMs), seconds)],
        ['processes in the tree of a full run', String(median(full.map((r) => r.processes))), list(full.map((r) => r.processes), String)],
        ...hostOtherRows(host),
        [
          `whole run against a host ${LATENCY_MS} ms away, one check at a time (CONFORMANCE_CONCURRENCY=1): wall; CPU (s)`,
          `${seconds(median(hostSequential.map((r) => r.wallMs)))}; ${seconds(median(hostSequential.map((r) => r.cpuMs)))}`,
          `1 run, seed ${SEED}`,
        ],
        [`autocannon, ${CONNECTIONS} connections (requests/s)`, rps(throughput.autocannonPerS), list(throughput.samples.map((s) => s.autocannonPerS), rps)],
        [`checker client, concurrency ${CONNECTIONS}, exchange log on (requests/s)`, rps(throughput.clientPerS), list(throughput.samples.map((s) => s.clientPerS), rps)],
        [`bare undici.request, ${CONNECTIONS} loops, nothing recorded (requests/s)`, rps(throughput.bareUndiciPerS), list(throughput.samples.map((s) => s.bareUndiciPerS), rps)],
        ...generators.map((g) => [
          `generator, ${g.recipients} recipients, ${g.scenario}: ms per body (target < ${GENERATOR_TARGET_MS}); bodies/s`,
          `${g.medianMs.toFixed(2)} ms; ${g.bodiesPerS.toFixed(0)}/s`,
          `${g.runs} bodies, p95 ${g.p95Ms.toFixed(2)} ms, ${verdict(g.medianMs < GENERATOR_TARGET_MS)}`,
        ]),
      ],
    ),
  );
  lines.push('');
  lines.push('### Per topic (medians)');
  lines.push('');
  lines.push(
    'Time per topic is the sum of its checks\' durations from report.json (test time; importing a suite is in the "outside checks" row, which is the whole wall time minus all checks). ' +
      'Requests per topic are the sum of its checks\' `requestsSent` (the client\'s count, one per exchange-log line, token requests included); the whole-run row counts the lines of the exchange log.',
  );
  lines.push('');
  lines.push(...markdownTable(['topic', 'checks', 'full: time (s)', 'full: requests', 'safe: time (s)', 'safe: requests'], topicRows(full, safe)));

  const failedRuns = [...full, ...safe, ...plain, ...perLine.slice(1).flatMap((f) => f.runs)].filter((r) => r.exitCode !== 0);
  const failedHostRuns = [...host, ...hostSequential].filter((r) => r.exitCode !== 0);
  if (failedRuns.length + failedHostRuns.length > 0) {
    lines.push('');
    const described = [
      ...failedRuns.map((r) => `${r.profile} seed ${r.seed}: exit ${r.exitCode}, verdict ${r.verdict}`),
      ...failedHostRuns.map((r) => `host, concurrency ${r.concurrency}, seed ${r.seed}: exit ${r.exitCode}, verdict ${r.verdict}`),
    ];
    lines.push(`Warning: ${described.length} whole run(s) did not pass (${described.join('; ')}).`);
  }
  print(lines);
  return failedRuns.length + failedHostRuns.length > 0 ? 1 : 0;
}

process.exitCode = await main();
