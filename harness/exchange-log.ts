// The run's exchange log: one redacted Exchange per line (JSON lines). The cross-topic checks
// (request-id, problem-details, schemas) read every exchange of the run from it, after every other
// check has ended (harness/package.ts READS_WHOLE_RUN, suites/support/lanes.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Exchange } from '../core/model.ts';

/**
 * The log this thread appends to, opened once: opening and closing the file for every exchange
 * cost more than a loopback request itself (bench/client-throughput.ts). One path at a time; a
 * new path (next run in the same process) closes the previous one.
 */
let openLog: { path: string; fd: number } | undefined;

/**
 * Lines not yet written. One write per exchange was the client's largest cost; lines are written
 * in batches instead, and always before the log is read, at the end of every check
 * (suites/support/check.ts) and when the batch grows large or a moment has passed.
 */
let pending: string[] = [];
let pendingBytes = 0;
let flushTimer: NodeJS.Timeout | undefined;
const FLUSH_BYTES = 64 * 1024;
const FLUSH_AFTER_MS = 200;

function closeOpenLog(): void {
  flushExchangeLog();
  if (!openLog) return;
  try {
    closeSync(openLog.fd);
  } catch {
    // Already closed.
  }
  openLog = undefined;
}

/**
 * One check's share of the run's exchanges: the requests it sent (the client counts them here, so a
 * check's budget holds even while other checks send at the same time) and, when `held` is set, its
 * log lines kept back so that whoever runs the checks writes them in check order
 * (`writeExchangeLines`): the log stays in the same order however the checks overlapped. An entry
 * of `held` is one request's lines (`reserveExchangeSlot`), so it may hold several or none.
 */
export interface ExchangeScope {
  sent: number;
  held?: string[];
  /** Set when the check's time is up: the run went on without it, so it may send nothing more. */
  ended?: string;
}

/** A request's place among its check's held lines, taken when the request is sent. */
export interface ExchangeSlot {
  held: string[];
  index: number;
  scope: ExchangeScope;
}

const scopes = new AsyncLocalStorage<ExchangeScope>();

/** Runs `fn` (and everything it starts) as one check's scope. */
export function inExchangeScope<T>(scope: ExchangeScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** The scope of the check running now, if any (requests outside a check have none). */
export function currentExchangeScope(): ExchangeScope | undefined {
  return scopes.getStore();
}

/** Queues lines for the log at `path` (opened for appending when it is not the open one). */
function queue(path: string, lines: readonly string[]): void {
  if (openLog?.path !== path) {
    closeOpenLog();
    openLog = { path, fd: openSync(path, 'a') };
  }
  for (const line of lines) {
    pending.push(line);
    pendingBytes += line.length;
  }
}

/** Appends lines a scope held back, in the order given. */
export function writeExchangeLines(path: string, lines: readonly string[]): void {
  if (!path || lines.length === 0) return;
  queue(path, lines);
  flushExchangeLog();
}

/** Creates (or empties) the log at the start of a run. */
export function resetExchangeLog(path: string): void {
  if (openLog?.path === path) closeOpenLog();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
}

/**
 * Takes the next place among the running check's held lines for a request about to be sent, so a
 * check that sends several requests at once holds their lines in the order it sent them, not in the
 * order they were answered (the log stays the same for a seed). Undefined when no lines are held.
 */
export function reserveExchangeSlot(): ExchangeSlot | undefined {
  const scope = scopes.getStore();
  if (!scope?.held) return undefined;
  scope.held.push('');
  return { held: scope.held, index: scope.held.length - 1, scope };
}

/** Appends an exchange: to the place `slot` took, else to the running check's held lines, else to the log. */
export function appendExchange(path: string, exchange: Exchange, slot?: ExchangeSlot): void {
  if (!path) return;
  const line = `${JSON.stringify(exchange)}\n`;
  // The slot of a check that outlived its timeout went with its held lines: straight to the log.
  const held = slot ? (slot.scope.held === slot.held ? slot.held : undefined) : scopes.getStore()?.held;
  if (held) {
    if (slot) held[slot.index] += line;
    else held.push(line);
    return;
  }
  queue(path, [line]);
  if (pendingBytes >= FLUSH_BYTES) flushExchangeLog();
  else flushTimer ??= setTimeout(flushExchangeLog, FLUSH_AFTER_MS).unref();
}

/**
 * Writes the pending lines with whole-line writes on a descriptor opened for appending
 * (O_APPEND), so lines never interleave with another writer's.
 */
export function flushExchangeLog(): void {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = undefined;
  if (!openLog || pending.length === 0) return;
  const bytes = Buffer.from(pending.join(''), 'utf8');
  pending = [];
  pendingBytes = 0;
  let written = 0;
  while (written < bytes.length) written += writeSync(openLog.fd, bytes, written);
}

export function readAllExchanges(path: string): Exchange[] {
  if (openLog?.path === path) flushExchangeLog();
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
  if (openLog?.path === path) flushExchangeLog();
  if (!path || !existsSync(path)) return 0;
  let n = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) if (line.trim()) n++;
  return n;
}
