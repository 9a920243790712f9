// One recorded exchange as the traffic judge reads it, whatever file it came from (HAR 1.2 or a
// run's exchanges.jsonl). Header names are lower-cased; bodies are text.

export interface TrafficRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface TrafficResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

export interface TrafficExchange {
  /** Position in the traffic (time order: files in the order given, entries in file order). */
  index: number;
  /** `file#entry`, for messages that point at the input. */
  source: string;
  /** Epoch milliseconds the request started, when the recording says (HAR). */
  startedAt?: number;
  request: TrafficRequest;
  response: TrafficResponse;
}

/** Marker the run's exchange log leaves where it cut a long body (harness/redact.ts). */
const CUT_MARKER = /… \[cut: \d+ more characters\]$/;

/** A body that the recorder cut short: its content is not known, so nothing is judged from it. */
export function isCut(body: string | undefined): boolean {
  return body !== undefined && CUT_MARKER.test(body);
}

/** The parsed JSON of a body, or undefined when it is absent, cut or not JSON. */
export function jsonOf(body: string | undefined): unknown {
  if (body === undefined || body.length === 0 || isCut(body)) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** Lower-cased header names; repeated headers joined as HTTP would. */
export function normaliseHeaders(pairs: Iterable<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${value}` : value;
  }
  return out;
}
