// Reads a HAR 1.2 file as a stream: @streamparser/json picks the members of log.entries one at a
// time out of the chunks as they come, and each is forgotten once it is turned into an exchange,
// so a HAR of any size is read in the memory of one entry (README: why this parser).
import { JSONParser } from '@streamparser/json';
import { HarnessError } from '../harness/errors.ts';
import { pathOnly } from './jsonl.ts';
import { normaliseHeaders, type TrafficExchange } from './model.ts';

interface HarHeader {
  name?: unknown;
  value?: unknown;
}
interface HarEntry {
  /** A custom field (HAR 1.2 allows `_` names): the caller's fingerprint where the token is redacted. */
  _caller?: unknown;
  startedDateTime?: unknown;
  time?: unknown;
  request?: { method?: unknown; url?: unknown; headers?: unknown; postData?: { text?: unknown } };
  response?: { status?: unknown; headers?: unknown; content?: { text?: unknown; encoding?: unknown } };
}

function headersOf(list: unknown): Record<string, string> {
  if (!Array.isArray(list)) return {};
  return normaliseHeaders(
    (list as HarHeader[])
      .filter((h) => typeof h?.name === 'string' && typeof h.value === 'string')
      // HTTP/2 pseudo-headers (:authority, :path) are not headers of the exchange.
      .filter((h) => !(h.name as string).startsWith(':'))
      .map((h) => [h.name as string, h.value as string]),
  );
}

function contentText(content: { text?: unknown; encoding?: unknown } | undefined): string | undefined {
  if (!content || typeof content.text !== 'string') return undefined;
  return content.encoding === 'base64' ? Buffer.from(content.text, 'base64').toString('utf8') : content.text;
}

/** What reading a file counted besides its exchanges (filled while it is read). */
export interface HarCounts {
  /** Entries with status 0: the browser recorded no answer (blocked, cancelled); not judged. */
  unanswered: number;
}

/** One HAR entry as an exchange, or undefined when it recorded no answer (status 0). */
function exchangeOf(entry: HarEntry, i: number, name: string): TrafficExchange | undefined {
  const request = entry?.request;
  if (!request || typeof request.method !== 'string' || typeof request.url !== 'string') {
    throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} entry ${i + 1} has no request method and URL`);
  }
  const response = entry.response;
  if (!response || typeof response.status !== 'number') {
    throw new HarnessError('TRAFFIC_NO_RESPONSE', `${name} entry ${i + 1} (${request.method} ${pathOnly(request.url)}) has no response; nothing can be judged from it`);
  }
  if (response.status === 0) return undefined;
  const started = typeof entry.startedDateTime === 'string' ? Date.parse(entry.startedDateTime) : NaN;
  // HAR 1.2: `time` is the whole exchange in milliseconds (-1 or absent when unknown).
  const ended = typeof entry.time === 'number' && entry.time >= 0 ? started + entry.time : NaN;
  const body = typeof request.postData?.text === 'string' ? request.postData.text : undefined;
  const responseBody = contentText(response.content);
  // No text but a size above zero: the exporter left the body out (not an empty body).
  const size = (response.content as { size?: unknown } | undefined)?.size;
  const notRecorded = responseBody === undefined && typeof size === 'number' && size > 0;
  return {
    index: 0,
    source: `${name} entry ${i + 1}`,
    ...(Number.isFinite(started) ? { startedAt: started } : {}),
    ...(Number.isFinite(ended) ? { endedAt: ended } : {}),
    request: { method: request.method.toUpperCase(), url: request.url, headers: headersOf(request.headers), ...(body !== undefined ? { body } : {}) },
    response: { status: response.status, headers: headersOf(response.headers), ...(responseBody !== undefined ? { body: responseBody } : {}), ...(notRecorded ? { bodyNotRecorded: true } : {}) },
    ...(typeof entry._caller === 'string' ? { caller: entry._caller } : {}),
  };
}

export async function* readHar(chunks: AsyncIterable<Buffer | string>, name: string, counts: HarCounts): AsyncGenerator<TrafficExchange> {
  // Each entry is handed over and dropped from its array (keepStack false); `$.log.entries` itself
  // then arrives empty at its end, which tells that the document had the array.
  const parser = new JSONParser({ paths: ['$.log.entries.*', '$.log.entries'], keepStack: false });
  const found: HarEntry[] = [];
  let entriesArray: boolean | undefined;
  parser.onValue = ({ value, key, stack }) => {
    if (stack.length === 3) {
      if (typeof key === 'number') found.push(value as HarEntry);
      else entriesArray = false;
    } else if (stack.length === 2 && key === 'entries') entriesArray = entriesArray ?? Array.isArray(value);
  };
  let parseError: unknown;
  parser.onError = (error) => (parseError ??= error);
  parser.onEnd = () => undefined;
  const notJson = () => new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} is not valid JSON, so it is neither a HAR 1.2 file nor an exchanges.jsonl`);
  let i = 0;
  const drain = function* () {
    for (const entry of found.splice(0)) {
      const exchange = exchangeOf(entry, i++, name);
      if (exchange) yield exchange;
      else counts.unanswered += 1;
    }
  };
  for await (const chunk of chunks) {
    if (parser.isEnded) {
      if (String(chunk).trim() !== '') throw notJson();
      continue;
    }
    parser.write(chunk);
    if (parseError) throw notJson();
    yield* drain();
  }
  if (!parser.isEnded) {
    parser.end();
    if (parseError) throw new HarnessError('TRAFFIC_TRUNCATED', `${name} ends before its JSON document does: the HAR file is truncated`);
  }
  yield* drain();
  if (entriesArray !== true) throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} is JSON but not a HAR file (no log.entries array)`);
}
