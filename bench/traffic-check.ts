// How fast `check` judges recorded traffic: a run's exchanges.jsonl repeated N times (as one long
// log), read as a stream and judged; prints exchanges per second and peak RSS. Measurement only.
//
//   npx conformance run --report-dir /tmp/run && npx tsx bench/traffic-check.ts /tmp/run/exchanges.jsonl 20
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTrafficEnv } from '../traffic/env.ts';
import { judgeTraffic } from '../traffic/judge.ts';
import { readTraffic } from '../traffic/read.ts';

const [source, copiesArg = '10'] = process.argv.slice(2);
if (!source) {
  console.error('usage: tsx bench/traffic-check.ts EXCHANGES.jsonl [COPIES]');
  process.exit(2);
}
const copies = Number(copiesArg);
const dir = mkdtempSync(join(tmpdir(), 'traffic-bench-'));
try {
  const log = readFileSync(source, 'utf8').trimEnd();
  const file = join(dir, 'exchanges.jsonl');
  writeFileSync(file, `${Array.from({ length: copies }, () => log).join('\n')}\n`);
  const started = performance.now();
  const input = await readTraffic([file]);
  const read = performance.now();
  const judgement = judgeTraffic(input.exchanges, { env: readTrafficEnv(undefined) });
  const judged = performance.now();
  const n = input.exchanges.length;
  console.log(`| exchanges | read (ms) | judged (ms) | exchanges/s (read + judge) | peak RSS (MiB) | verdict |`);
  console.log(`| --- | --- | --- | --- | --- | --- |`);
  console.log(`| ${n} | ${Math.round(read - started)} | ${Math.round(judged - read)} | ${Math.round(n / ((judged - started) / 1000))} | ${Math.round(process.resourceUsage().maxRSS / 1024)} | ${judgement.result.verdict} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
