// Reads a run's exchanges.jsonl (one harness Exchange per line) as a stream, line by line, so a
// log of any size is read in constant memory per line.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { HarnessError } from '../harness/errors.ts';
import { normaliseHeaders, type TrafficExchange } from './model.ts';

interface LoggedExchange {
  request?: { method?: unknown; url?: unknown; headers?: unknown; body?: unknown };
  response?: { status?: unknown; headers?: unknown; body?: unknown };
  transportError?: unknown;
}

const headersOf = (value: unknown) =>
  normaliseHeaders(
    value && typeof value === 'object'
      ? Object.entries(value as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string')
      : [],
  );

export interface JsonlOutcome {
  exchanges: TrafficExchange[];
  /** Lines that recorded a transport failure instead of an answer (nothing to judge in them). */
  transportFailures: number;
}

export async function readJsonl(path: string, name: string, firstIndex: number): Promise<JsonlOutcome> {
  const exchanges: TrafficExchange[] = [];
  let transportFailures = 0;
  let lineNumber = 0;
  let pendingError: HarnessError | undefined;
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    lineNumber += 1;
    if (line.trim() === '') continue;
    // A line that does not parse is an error only if another line follows it; the last one is a cut file.
    if (pendingError) throw pendingError;
    let entry: LoggedExchange;
    try {
      entry = JSON.parse(line) as LoggedExchange;
    } catch {
      pendingError = new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} line ${lineNumber} is not JSON; an exchanges.jsonl holds one recorded exchange per line`);
      continue;
    }
    const request = entry.request;
    if (!request || typeof request.method !== 'string' || typeof request.url !== 'string') {
      throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} line ${lineNumber} is not a recorded exchange (no request method and URL)`);
    }
    if (!entry.response) {
      if (entry.transportError !== undefined) {
        transportFailures += 1;
        continue;
      }
      throw new HarnessError('TRAFFIC_NO_RESPONSE', `${name} line ${lineNumber} (${request.method} ${pathOnly(request.url)}) has no response; nothing can be judged from it`);
    }
    const status = entry.response.status;
    if (typeof status !== 'number') throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} line ${lineNumber} has a response without a status`);
    exchanges.push({
      index: firstIndex + exchanges.length,
      source: `${name} line ${lineNumber}`,
      request: {
        method: request.method.toUpperCase(),
        url: request.url,
        headers: headersOf(request.headers),
        ...(typeof request.body === 'string' ? { body: request.body } : {}),
      },
      response: {
        status,
        headers: headersOf(entry.response.headers),
        ...(typeof entry.response.body === 'string' ? { body: entry.response.body } : {}),
      },
    });
  }
  if (pendingError) {
    throw new HarnessError('TRAFFIC_TRUNCATED', `${name} ends in the middle of line ${lineNumber === 0 ? 1 : lineNumber}: the file is truncated (was it copied while the run was still writing?)`);
  }
  return { exchanges, transportFailures };
}

/** The path of a URL without its query (a query may hold a secret). */
export function pathOnly(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? url;
  }
}
