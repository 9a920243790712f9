// Tokens the run obtained, handed from the suite workers (separate processes) back to the runner,
// so the leak scan before any report is written knows them too. The file lives in the run's
// private temporary folder (beside the exchange log), readable by the owner only, and is removed
// with that folder at the end of the run.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function tokenLogPath(exchangeLogPath: string): string {
  return join(dirname(exchangeLogPath), 'obtained-tokens');
}

/** Called by the HTTP client for every token a token endpoint hands out. No log path, no record. */
export function recordObtainedToken(exchangeLogPath: string, token: string): void {
  if (!exchangeLogPath || !token) return;
  try {
    appendFileSync(tokenLogPath(exchangeLogPath), `${JSON.stringify(token)}\n`, { mode: 0o600 });
  } catch {
    // The folder is gone (run ending): the token is still redacted in this worker.
  }
}

/** Every token recorded during the run, read by the runner before the reports are written. */
export function readObtainedTokens(exchangeLogPath: string): string[] {
  const path = exchangeLogPath ? tokenLogPath(exchangeLogPath) : '';
  if (!path || !existsSync(path)) return [];
  const out = new Set<string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'string') out.add(value);
    } catch {
      // A line cut by a crash: skipped.
    }
  }
  return [...out];
}
