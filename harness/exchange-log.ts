// The run's exchange log: one redacted Exchange per line (JSON lines). Suites run one file at a
// time, so cross-topic checks (problem-details, schemas) read every exchange of the run from it.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Exchange } from './model.ts';

/**
 * The log this process appends to, opened once: opening and closing the file for every exchange
 * cost more than a loopback request itself (bench/client-throughput.ts). One path at a time; a
 * new path (next run in the same process) closes the previous one.
 */
let openLog: { path: string; fd: number } | undefined;

function closeOpenLog(): void {
  if (!openLog) return;
  try {
    closeSync(openLog.fd);
  } catch {
    // Already closed.
  }
  openLog = undefined;
}

/** Creates (or empties) the log at the start of a run. */
export function resetExchangeLog(path: string): void {
  if (openLog?.path === path) closeOpenLog();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
}

/**
 * One synchronous write per exchange on a descriptor opened for appending (O_APPEND), so lines of
 * concurrent requests, and of other processes writing the same log, never interleave.
 */
export function appendExchange(path: string, exchange: Exchange): void {
  if (!path) return;
  if (openLog?.path !== path) {
    closeOpenLog();
    openLog = { path, fd: openSync(path, 'a') };
  }
  const bytes = Buffer.from(`${JSON.stringify(exchange)}\n`, 'utf8');
  let written = 0;
  while (written < bytes.length) written += writeSync(openLog.fd, bytes, written);
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
