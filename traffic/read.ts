// Reads every traffic file given to `check`: tells HAR from JSON lines by the first line (a whole
// exchange on it is JSON lines; anything else starting with `{` is read as HAR) and refuses the rest.
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { HarnessError } from '../harness/errors.ts';
import { readHar } from './har.ts';
import { readJsonl } from './jsonl.ts';
import type { TrafficExchange } from './model.ts';

export interface TrafficInput {
  exchanges: TrafficExchange[];
  /** Facts about the input worth a note in the report (entries not judged and why). */
  notes: string[];
}

async function head(path: string, bytes = 1024 * 1024): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unknown';
    throw new HarnessError('TRAFFIC_UNREADABLE', `cannot read ${path} (${code})`);
  }
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

function firstLineIsExchange(text: string): boolean {
  const line = text.trimStart().split('\n')[0] ?? '';
  try {
    const value = JSON.parse(line) as { request?: unknown };
    return !!value && typeof value === 'object' && typeof value.request === 'object';
  } catch {
    return false;
  }
}

export async function readTraffic(paths: readonly string[]): Promise<TrafficInput> {
  const exchanges: TrafficExchange[] = [];
  const notes: string[] = [];
  for (const path of paths) {
    const name = basename(path);
    const start = await head(path);
    if (start.trim() === '') throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} is empty; give a HAR 1.2 file or a run's exchanges.jsonl`);
    if (firstLineIsExchange(start)) {
      const { exchanges: read, transportFailures } = await readJsonl(path, name, exchanges.length);
      exchanges.push(...read);
      if (transportFailures > 0) notes.push(`${name}: ${transportFailures} exchange(s) recorded a transport failure instead of an answer and were not judged`);
    } else if (start.trimStart().startsWith('{')) {
      const { exchanges: read, unanswered } = await readHar(path, name, exchanges.length);
      exchanges.push(...read);
      if (unanswered > 0) notes.push(`${name}: ${unanswered} entr${unanswered === 1 ? 'y' : 'ies'} with status 0 (no answer recorded) were not judged`);
    } else {
      throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} is neither a HAR 1.2 file nor an exchanges.jsonl (it does not start with a JSON object)`);
    }
  }
  return { exchanges: inTimeOrder(exchanges), notes };
}

/**
 * HAR entries in the order they started (exporters need not keep it, and several files may split one
 * session); the order given is kept when any exchange lacks a time (a run's log is already in order).
 */
function inTimeOrder(exchanges: TrafficExchange[]): TrafficExchange[] {
  if (!exchanges.every((ex) => ex.startedAt !== undefined)) return exchanges;
  return [...exchanges]
    .sort((a, b) => a.startedAt! - b.startedAt! || a.index - b.index)
    .map((ex, index) => ({ ...ex, index }));
}
