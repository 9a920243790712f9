// How fast and how frugal `check` is on recorded traffic: a run's exchanges.jsonl repeated until the
// file reaches a size (100 MB by default, the size issue 19 names), judged by the bin as users run
// it (`conformance check FILE`), with the process's wall time and peak RSS. Measurement only.
//
//   npx tsx bench/traffic-check.ts EXCHANGES.jsonl [MEGABYTES]
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureTree } from './process-tree.ts';
import { BIN, DIST_BUILT, cleanEnv } from './whole-run.ts';

export interface TrafficCheckFigures {
  bytes: number;
  exchanges: number;
  wallMs: number;
  peakRss: number;
  exchangesPerS: number;
  exitCode: number | null;
}

/** Writes `log` repeated to at least `bytes` (streamed, so the bench itself stays small). */
async function repeatedLog(log: string, bytes: number, file: string): Promise<{ bytes: number; exchanges: number }> {
  const chunk = `${log.trimEnd()}\n`;
  const perChunk = chunk.split('\n').filter((l) => l.trim()).length;
  const copies = Math.max(1, Math.ceil(bytes / Buffer.byteLength(chunk)));
  const out = createWriteStream(file);
  for (let i = 0; i < copies; i++) if (!out.write(chunk)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  return { bytes: copies * Buffer.byteLength(chunk), exchanges: copies * perChunk };
}

/**
 * `conformance check` on the log repeated to `megabytes`, timed `repeats` times on the one file;
 * exit 1 (findings) is a finished judgement too.
 */
export async function measureTrafficCheck(logFile: string, megabytes = 100, repeats = 1): Promise<TrafficCheckFigures[]> {
  const work = mkdtempSync(join(tmpdir(), 'conformance-traffic-bench-'));
  try {
    const file = join(work, 'traffic.jsonl');
    const { bytes, exchanges } = await repeatedLog(readFileSync(logFile, 'utf8'), megabytes * 1e6, file);
    // The compiled code, as the installed package runs it (npm run bench builds it first).
    const env = { ...cleanEnv(), CONFORMANCE_CODE: DIST_BUILT() ? 'dist' : 'source' };
    const figures: TrafficCheckFigures[] = [];
    for (let i = 0; i < repeats; i++) {
      const tree = await measureTree(BIN, ['check', file, '--report-dir', join(work, 'reports')], { cwd: work, env });
      if (tree.exitCode !== 0 && tree.exitCode !== 1) throw new Error(`check exited ${tree.exitCode}: ${tree.stderr.trim().split('\n')[0] ?? ''}`);
      figures.push({ bytes, exchanges, wallMs: tree.wallMs, peakRss: tree.peakTreeRss, exchangesPerS: exchanges / (tree.wallMs / 1000), exitCode: tree.exitCode });
    }
    return figures;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [source, megabytes = '100'] = process.argv.slice(2);
  if (!source) {
    console.error('usage: npx tsx bench/traffic-check.ts EXCHANGES.jsonl [MEGABYTES]');
    process.exit(2);
  }
  const [f] = await measureTrafficCheck(source, Number(megabytes));
  console.log('| file (MB) | exchanges | wall (s) | exchanges/s | peak RSS (MiB) | exit |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  console.log(`| ${(f!.bytes / 1e6).toFixed(0)} | ${f!.exchanges} | ${(f!.wallMs / 1000).toFixed(1)} | ${f!.exchangesPerS.toFixed(0)} | ${(f!.peakRss / 2 ** 20).toFixed(0)} | ${f!.exitCode} |`);
}
