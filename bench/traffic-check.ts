// How fast and how frugal `check` is on recorded traffic: a run's exchanges.jsonl repeated until the
// file reaches a size (100 MB by default, the size issue 19 names; up to gigabytes for issue 31),
// each copy with fresh ids (so the rules see distinct businesses, bulks, keys and cursors, as a
// day of real traffic would show them), plain or gzip-compressed, judged by the bin as users run
// it (`conformance check FILE`), with the process's wall time and peak RSS. Measurement only.
//
//   npx tsx bench/traffic-check.ts EXCHANGES.jsonl [MEGABYTES] [gzip]
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureTree, type TreeMeasurement } from './process-tree.ts';
import { BIN, DIST_BUILT, cleanEnv } from './whole-run.ts';

export interface TrafficCheckFigures {
  /** The size of the log as judged (uncompressed). */
  bytes: number;
  /** The size of the file on disk (the gzip file when compressed). */
  fileBytes: number;
  gzip: boolean;
  exchanges: number;
  wallMs: number;
  /** CPU seconds of the process (user + system), in ms: what one core spent, whatever else the shared machine ran. */
  cpuMs: number;
  /** Peak of the summed RSS of the process tree (one process when the bin starts `check`; a waiting parent's shared pages would count twice). */
  peakRss: number;
  /** Peak of the summed PSS of the same: the memory the tree takes, shared pages counted once. */
  peakPss: number;
  /** Peak RSS of the judging process alone (its VmHWM, exact where the samples above are 50 ms apart): the figure held to the goal. */
  judgeRss: number;
  exchangesPerS: number;
  /** Exchanges per CPU second (the rate on one core with the machine to itself, near enough). */
  exchangesPerCpuS: number;
  exitCode: number | null;
  /** `i/n` when this is one partition's judgement (`check --partition i/n`) of the file. */
  partition?: string;
  /** Exchanges the partition judged itself (its businesses'); the rates above count every exchange it read. */
  judged?: number;
  /** Not `check` but its floor (reading-floor.mjs): the same file read, parsed and observed, no rule judging. */
  readingOnly?: boolean;
}

/** Reads, parses and observes a file as `check` does, judging nothing (bench/reading-floor.mjs). */
const READING_FLOOR = fileURLToPath(new URL('reading-floor.mjs', import.meta.url));
/** The young generation the bin gives `check` (bin/conformance.mjs), so the floor collects as `check` does. */
const CHECK_YOUNG_GENERATION = '--max-semi-space-size=8';

const UUID_V7 = /([0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-)([0-9a-f]{12})/g;
/** Signed cursors (`eyJ….…`, two parts; a JWT's three are left alone, its token lives on): the judge matches them by value only. */
const TOKEN = /(?<![\w.-])(eyJ[\w-]+\.[\w-]+)(?![\w.-])/g;

/**
 * Request bodies written with escapes (the equivalent-payload variants write ids as `\u0030…`) in
 * their plain JSON form, so every copy moves an id in the original and in its variant alike; else a
 * variant keeps the first copy's ids and the judge rightly sees another body under the same key.
 */
let plain: { log: string; text: string } | undefined;
function plainBodies(log: string): string {
  if (!log.includes('\\\\u')) return log;
  if (plain?.log === log) return plain.text;
  const text = log
    .split('\n')
    .map((line) => {
      if (!line.includes('\\\\u')) return line;
      // A line of the exchange log; anything else (a HAR, a body of no JSON) is left as written.
      try {
        const exchange = JSON.parse(line) as { request?: { body?: unknown } };
        const body = exchange.request?.body;
        if (typeof body !== 'string') return line;
        exchange.request!.body = JSON.stringify(JSON.parse(body));
        return JSON.stringify(exchange);
      } catch {
        return line;
      }
    })
    .join('\n');
  plain = { log, text };
  return text;
}

/** A copy of the log whose ids are its own: every UUIDv7 moved by the copy number (still a UUIDv7), every cursor suffixed. */
export function freshCopy(log: string, copy: number): string {
  if (copy === 0) return log;
  return plainBodies(log)
    .replace(UUID_V7, (_m, head: string, tail: string) => `${head}${((parseInt(tail, 16) + copy * 0x9e3779b1) % 2 ** 48).toString(16).padStart(12, '0')}`)
    .replace(TOKEN, (m) => `${m}c${copy.toString(36)}`);
}

/** Writes `log` repeated with fresh ids to at least `bytes` (streamed, so the bench itself stays small), gzipped if asked. */
export async function repeatedLog(log: string, bytes: number, file: string, gzip = false): Promise<{ bytes: number; exchanges: number }> {
  const chunk = `${log.trimEnd()}\n`;
  const perChunk = chunk.split('\n').filter((l) => l.trim()).length;
  const file$ = createWriteStream(file);
  const out: Writable = gzip ? createGzip({ level: 6 }) : file$;
  if (gzip) (out as ReturnType<typeof createGzip>).pipe(file$);
  let written = 0;
  let copies = 0;
  while (written < bytes) {
    const copy = freshCopy(chunk, copies++);
    written += Buffer.byteLength(copy);
    if (!out.write(copy)) await once(out, 'drain');
  }
  out.end();
  await once(file$, 'finish');
  return { bytes: written, exchanges: copies * perChunk };
}

/**
 * `conformance check` on the log repeated to `megabytes`, timed `repeats` times on the one file,
 * then, given `partitions` n, each `check --partition i/n` of it one after the other (each on one
 * core, as n job runners would run them); exit 1 (findings) is a finished judgement too. Given
 * `floor`, last the file read, parsed and observed with no rule judging (reading-floor.mjs): what of
 * `check`'s time is reading, and what is judging.
 */
export async function measureTrafficCheck(logFile: string, megabytes = 100, repeats = 1, gzip = false, partitions = 0, floor = false): Promise<TrafficCheckFigures[]> {
  const work = mkdtempSync(join(tmpdir(), 'conformance-traffic-bench-'));
  try {
    const file = join(work, gzip ? 'traffic.jsonl.gz' : 'traffic.jsonl');
    const { bytes, exchanges } = await repeatedLog(readFileSync(logFile, 'utf8'), megabytes * 1e6, file, gzip);
    const fileBytes = statSync(file).size;
    // The compiled code, as the installed package runs it (npm run bench builds it first).
    const env = { ...cleanEnv(), CONFORMANCE_CODE: DIST_BUILT() ? 'dist' : 'source' };
    const figuresOf = (tree: TreeMeasurement) => ({ bytes, fileBytes, gzip, exchanges, wallMs: tree.wallMs, cpuMs: tree.cpuMs, peakRss: tree.peakTreeRss, peakPss: tree.peakTreePss, judgeRss: tree.peakProcessRss, exchangesPerS: exchanges / (tree.wallMs / 1000), exchangesPerCpuS: exchanges / (Math.max(tree.cpuMs, 1) / 1000), exitCode: tree.exitCode });
    const figures: TrafficCheckFigures[] = [];
    const runs = [...Array.from({ length: repeats }, () => undefined), ...Array.from({ length: partitions }, (_, i) => `${i + 1}/${partitions}`)];
    for (const partition of runs) {
      const reports = join(work, 'reports');
      const tree = await measureTree(BIN, ['check', file, '--report-dir', reports, ...(partition ? ['--partition', partition] : [])], { cwd: work, env });
      if (tree.exitCode !== 0 && tree.exitCode !== 1) throw new Error(`check exited ${tree.exitCode}: ${tree.stderr.trim().split('\n')[0] ?? ''}`);
      const judged = partition ? (JSON.parse(readFileSync(join(reports, 'traffic-partition.json'), 'utf8')) as { digest: { facts: { judged: number } } }).digest.facts.judged : undefined;
      figures.push({ ...figuresOf(tree), ...(partition ? { partition, judged } : {}) });
    }
    if (floor) {
      const tree = await measureTree(process.execPath, [CHECK_YOUNG_GENERATION, READING_FLOOR, file], { cwd: work, env });
      if (tree.exitCode !== 0) throw new Error(`the reading floor exited ${tree.exitCode}: ${tree.stderr.trim().split('\n')[0] ?? ''}`);
      figures.push({ ...figuresOf(tree), readingOnly: true });
    }
    return figures;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [source, megabytes = '100', gzip] = process.argv.slice(2);
  if (!source) {
    console.error('usage: npx tsx bench/traffic-check.ts EXCHANGES.jsonl [MEGABYTES] [gzip]');
    process.exit(2);
  }
  // `check`, then its floor (the file read and observed, no rule).
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  console.log("| run | file (MB) | exchanges | wall (s) | exchanges/s | CPU (s) | exchanges per CPU s | CPU µs an exchange | peak PSS (MiB) | peak RSS summed (MiB) | the judge's peak RSS (MiB) | exit |");
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const f of await measureTrafficCheck(source, Number(megabytes), 1, gzip === 'gzip', 0, true)) {
    console.log(`| ${f.readingOnly ? 'read and observed, no rule' : 'check'} | ${(f.bytes / 1e6).toFixed(0)} | ${f.exchanges} | ${(f.wallMs / 1000).toFixed(1)} | ${f.exchangesPerS.toFixed(0)} | ${(f.cpuMs / 1000).toFixed(1)} | ${f.exchangesPerCpuS.toFixed(0)} | ${((f.cpuMs * 1000) / f.exchanges).toFixed(1)} | ${mib(f.peakPss)} | ${mib(f.peakRss)} | ${mib(f.judgeRss)} | ${f.exitCode} |`);
  }
}
