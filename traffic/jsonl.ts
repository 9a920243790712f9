// Reads a run's exchanges.jsonl (one harness Exchange per line) as a stream of byte chunks, cut
// into lines as they come, so a log of any size is read in constant memory per line.
import { StringDecoder } from 'node:string_decoder';
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

/** What reading a file counted besides its exchanges (filled while it is read). */
export interface JsonlCounts {
  /** Lines that recorded a transport failure instead of an answer (nothing to judge in them). */
  transportFailures: number;
}

/** The lines of a byte stream, without their line ends (a last line without one included). */
export async function* linesOf(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of chunks) {
    const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      yield text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
      start = end + 1;
    }
    rest = text.slice(start);
  }
  rest += decoder.end();
  if (rest !== '') yield rest;
}

export async function* readJsonl(chunks: AsyncIterable<Buffer | string>, name: string, counts: JsonlCounts): AsyncGenerator<TrafficExchange> {
  let lineNumber = 0;
  let pendingError: HarnessError | undefined;
  for await (const line of linesOf(chunks)) {
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
    const request = entry?.request;
    if (!request || typeof request.method !== 'string' || typeof request.url !== 'string') {
      throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} line ${lineNumber} is not a recorded exchange (no request method and URL)`);
    }
    if (!entry.response) {
      if (entry.transportError !== undefined) {
        counts.transportFailures += 1;
        continue;
      }
      throw new HarnessError('TRAFFIC_NO_RESPONSE', `${name} line ${lineNumber} (${request.method} ${pathOnly(request.url)}) has no response; nothing can be judged from it`);
    }
    const status = entry.response.status;
    if (typeof status !== 'number') throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} line ${lineNumber} has a response without a status`);
    yield {
      index: 0,
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
    };
  }
  if (pendingError) {
    throw new HarnessError('TRAFFIC_TRUNCATED', `${name} ends in the middle of line ${lineNumber === 0 ? 1 : lineNumber}: the file is truncated (was it copied while the run was still writing?)`);
  }
}

/** The path of a URL without its query (a query may hold a secret). */
export function pathOnly(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? url;
  }
}
