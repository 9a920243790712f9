// The run's exchange log: one redacted Exchange per line (JSON lines). Suites run one file at a
// time, so cross-topic checks (problem-details, schemas) read every exchange of the run from it.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Exchange } from './model.ts';

/** Creates (or empties) the log at the start of a run. */
export function resetExchangeLog(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
}

/** One synchronous write per exchange, so lines of concurrent requests never interleave. */
export function appendExchange(path: string, exchange: Exchange): void {
  if (!path) return;
  appendFileSync(path, `${JSON.stringify(exchange)}\n`);
}

export function readAllExchanges(path: string): Exchange[] {
  if (!path || !existsSync(path)) return [];
  const out: Exchange[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as Exchange);
    } catch {
      // A line cut by a crash is skipped rather than failing the readers.
    }
  }
  return out;
}

/** Requests recorded so far (the run-wide request budget starts from it in each worker). */
export function countExchanges(path: string): number {
  if (!path || !existsSync(path)) return 0;
  let n = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) if (line.trim()) n++;
  return n;
}

/** Short names, as the suites' brief spells them. */
export const append = appendExchange;
export const readAll = readAllExchanges;
