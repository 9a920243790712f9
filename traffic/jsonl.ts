// Reads a run's exchanges.jsonl (one harness Exchange per line) as a stream of byte chunks, cut
// into lines as they come, so a log of any size is read in constant memory per line.
import { HarnessError } from '../harness/errors.ts';
import { normaliseHeaders, type TrafficExchange } from './model.ts';

interface LoggedExchange {
  request?: { method?: unknown; url?: unknown; headers?: unknown; body?: unknown };
  response?: { status?: unknown; headers?: unknown; body?: unknown };
  transportError?: unknown;
  sentAt?: unknown;
  durationMs?: unknown;
  caller?: unknown;
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

const normalised = (value: unknown) =>
  normaliseHeaders(
    value && typeof value === 'object'
      ? Object.entries(value as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string')
      : [],
  );

/** A run's log writes header names lower-cased with string values: such an object is used as it was parsed, not copied. */
function headersOf(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return normalised(value);
  const record = value as Record<string, unknown>;
  for (const name in record) {
    if (typeof record[name] !== 'string' || name === '__proto__' || name !== name.toLowerCase()) return normalised(value);
  }
  return record as Record<string, string>;
}

/** What reading a file counted besides its exchanges (filled while it is read). */
export interface JsonlCounts {
  /** Lines that recorded a transport failure instead of an answer (nothing to judge in them). */
  transportFailures: number;
}

const LF = 10;
const CR = 13;
const textOf = (bytes: Buffer, start: number, end: number) => bytes.toString('utf8', start, end > start && bytes[end - 1] === CR ? end - 1 : end);

/**
 * The lines of a byte stream without their line ends (a last line without one included), a chunk's
 * worth at a time: lines are cut from the bytes and decoded one by one (a line end byte never
 * occurs inside a UTF-8 character), with no text copy of the chunk.
 */
export async function* linesOf(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string[]> {
  let pieces: Buffer[] = [];
  for await (const raw of chunks) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    const lines: string[] = [];
    let start = 0;
    let end = chunk.indexOf(LF);
    if (end >= 0 && pieces.length > 0) {
      const line = Buffer.concat([...pieces, chunk.subarray(0, end)]);
      lines.push(textOf(line, 0, line.length));
      pieces = [];
      start = end + 1;
      end = chunk.indexOf(LF, start);
    }
    for (; end >= 0; end = chunk.indexOf(LF, start)) {
      lines.push(textOf(chunk, start, end));
      start = end + 1;
    }
    if (start < chunk.length) pieces.push(chunk.subarray(start));
    if (lines.length > 0) yield lines;
  }
  if (pieces.length > 0) {
    const line = Buffer.concat(pieces);
    yield [textOf(line, 0, line.length)];
  }
}

/**
 * The exchanges of a file, a chunk's worth at a time: handing them over one by one through async
 * generators cost a few microseconds each (promises and ticks per layer), about a tenth of the
 * judge's time. A bad line ends the whole command, so the exchanges before it in its batch are lost
 * to no report.
 */
export async function* readJsonl(chunks: AsyncIterable<Buffer | string>, name: string, counts: JsonlCounts): AsyncGenerator<TrafficExchange[]> {
  let lineNumber = 0;
  let pendingError: HarnessError | undefined;
  for await (const lines of linesOf(chunks)) {
    const batch: TrafficExchange[] = [];
    for (const line of lines) {
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
      // When it was sent and answered (a log written before times were recorded has none).
      const sent = finite(entry.sentAt) ? entry.sentAt : undefined;
      batch.push({
        index: 0,
        source: `${name} line ${lineNumber}`,
        startedAt: sent,
        endedAt: sent !== undefined && finite(entry.durationMs) && entry.durationMs >= 0 ? sent + entry.durationMs : undefined,
        // One shape for every exchange (an absent body is undefined), so the rules' reads stay fast.
        request: {
          method: request.method.toUpperCase(),
          url: request.url,
          headers: headersOf(request.headers),
          body: typeof request.body === 'string' ? request.body : undefined,
        },
        response: {
          status,
          headers: headersOf(entry.response.headers),
          body: typeof entry.response.body === 'string' ? entry.response.body : undefined,
        },
        caller: typeof entry.caller === 'string' ? entry.caller : undefined,
      });
    }
    if (batch.length > 0) yield batch;
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
