// Reads a HAR 1.2 file. A HAR is one JSON document, so it is read whole but bounded: files above
// HAR_MAX_BYTES are refused with a message instead of exhausting memory (a run's own
// exchanges.jsonl, which is read line by line, has no such bound).
import { readFile, stat } from 'node:fs/promises';
import { HarnessError } from '../harness/errors.ts';
import { pathOnly } from './jsonl.ts';
import { normaliseHeaders, type TrafficExchange } from './model.ts';

export const HAR_MAX_BYTES = 256 * 1024 * 1024;

interface HarHeader {
  name?: unknown;
  value?: unknown;
}
interface HarEntry {
  startedDateTime?: unknown;
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

export interface HarOutcome {
  exchanges: TrafficExchange[];
  /** Entries with status 0: the browser recorded no answer (blocked, cancelled); not judged. */
  unanswered: number;
}

export async function readHar(path: string, name: string, firstIndex: number): Promise<HarOutcome> {
  const size = (await stat(path)).size;
  if (size > HAR_MAX_BYTES) {
    throw new HarnessError('TRAFFIC_UNREADABLE', `${name} is ${Math.round(size / 1048576)} MiB; HAR files are read whole and at most ${HAR_MAX_BYTES / 1048576} MiB are accepted (record less, or check the run's exchanges.jsonl, which is streamed)`);
  }
  const text = await readFile(path, 'utf8');
  let document: { log?: { version?: unknown; entries?: unknown } };
  try {
    document = JSON.parse(text) as typeof document;
  } catch {
    if (!text.trimEnd().endsWith('}')) throw new HarnessError('TRAFFIC_TRUNCATED', `${name} ends before its JSON document does: the HAR file is truncated`);
    throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} is not valid JSON, so it is neither a HAR 1.2 file nor an exchanges.jsonl`);
  }
  if (!document || typeof document !== 'object' || !document.log || !Array.isArray(document.log.entries)) {
    throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} is JSON but not a HAR file (no log.entries array)`);
  }
  const exchanges: TrafficExchange[] = [];
  let unanswered = 0;
  (document.log.entries as HarEntry[]).forEach((entry, i) => {
    const request = entry?.request;
    if (!request || typeof request.method !== 'string' || typeof request.url !== 'string') {
      throw new HarnessError('TRAFFIC_UNRECOGNIZED', `${name} entry ${i + 1} has no request method and URL`);
    }
    const response = entry.response;
    if (!response || typeof response.status !== 'number') {
      throw new HarnessError('TRAFFIC_NO_RESPONSE', `${name} entry ${i + 1} (${request.method} ${pathOnly(request.url)}) has no response; nothing can be judged from it`);
    }
    if (response.status === 0) {
      unanswered += 1;
      return;
    }
    const started = typeof entry.startedDateTime === 'string' ? Date.parse(entry.startedDateTime) : NaN;
    const body = typeof request.postData?.text === 'string' ? request.postData.text : undefined;
    const responseBody = contentText(response.content);
    // No text but a size above zero: the exporter left the body out (not an empty body).
    const size = (response.content as { size?: unknown } | undefined)?.size;
    const notRecorded = responseBody === undefined && typeof size === 'number' && size > 0;
    exchanges.push({
      index: firstIndex + exchanges.length,
      source: `${name} entry ${i + 1}`,
      ...(Number.isFinite(started) ? { startedAt: started } : {}),
      request: { method: request.method.toUpperCase(), url: request.url, headers: headersOf(request.headers), ...(body !== undefined ? { body } : {}) },
      response: { status: response.status, headers: headersOf(response.headers), ...(responseBody !== undefined ? { body: responseBody } : {}), ...(notRecorded ? { bodyNotRecorded: true } : {}) },
    });
  });
  return { exchanges, unanswered };
}
