// Shared by the traffic tests: temporary folders, the CLI run in-process with its output caught,
// and the run's exchange log converted to HAR.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../cli/main.ts';
import type { Exchange } from '../../core/model.ts';
import { emptyHar, type Har } from './client.ts';

export const tempDir = (prefix = 'traffic-') => mkdtempSync(join(tmpdir(), prefix));

export interface CliOutcome {
  code: number;
  out: string[];
  err: string[];
}

export async function conformance(args: string[]): Promise<CliOutcome> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

export function writeJson(dir: string, name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value, null, 1));
  return path;
}

/** A run's exchanges.jsonl as a HAR 1.2 document (what a recorder in front of the run would have written). */
export function jsonlToHar(path: string): Har {
  const har = emptyHar();
  const start = Date.now();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const ex = JSON.parse(line) as Exchange;
    if (!ex.response) continue;
    const pairs = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));
    har.log.entries.push({
      // The log's caller fingerprint, as a recorder that redacts tokens may keep it (a custom field).
      ...(ex.caller !== undefined ? { _caller: ex.caller } : {}),
      startedDateTime: new Date(start + har.log.entries.length).toISOString(),
      time: ex.durationMs,
      request: { method: ex.request.method, url: ex.request.url, httpVersion: 'HTTP/1.1', headers: pairs(ex.request.headers), queryString: [], cookies: [], headersSize: -1, bodySize: ex.request.body?.length ?? 0, ...(ex.request.body !== undefined ? { postData: { mimeType: ex.request.headers['content-type'] ?? '', text: ex.request.body } } : {}) },
      response: { status: ex.response.status, statusText: '', httpVersion: 'HTTP/1.1', headers: pairs(ex.response.headers), cookies: [], content: { size: ex.response.body?.length ?? 0, mimeType: ex.response.headers['content-type'] ?? '', text: ex.response.body ?? '' }, redirectURL: '', headersSize: -1, bodySize: -1 },
      cache: {},
      timings: { send: 0, wait: 0, receive: 0 },
    });
  }
  return har;
}
