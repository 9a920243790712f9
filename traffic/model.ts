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
  /** The recorder kept no body (a HAR exported without content): nothing is judged from it. */
  bodyNotRecorded?: boolean;
}

export interface TrafficExchange {
  /** Position in the traffic (time order: files in the order given, entries in file order). */
  index: number;
  /** `file#entry`, for messages that point at the input. */
  source: string;
  /** Epoch milliseconds the request started, when the recording says (HAR, a run's log, the proxy). */
  startedAt?: number;
  /** Epoch milliseconds the answer was complete, when the recording says (with `startedAt`, whether two calls overlapped). */
  endedAt?: number;
  request: TrafficRequest;
  response: TrafficResponse;
  /** Who called, where the recorder redacted the token but kept its fingerprint (a run's log, a HAR entry's `_caller`). */
  caller?: string;
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

/**
 * The complete items at the start of a top-level array member (`{"data":[{...},{...},…`) of a body
 * the recorder cut short: a cut listing still shows its first rows. Empty when the body does not
 * open with that member.
 */
export function leadingItems(body: string, member: string): unknown[] {
  const open = new RegExp(`^\\s*\\{\\s*"${member}"\\s*:\\s*\\[`).exec(body);
  if (!open) return [];
  const items: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = open[0].length; i < body.length; i++) {
    const ch = body[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' || ch === ']') {
      if (depth === 0) break; // the array itself closed
      depth--;
      if (depth === 0) {
        try {
          items.push(JSON.parse(body.slice(start, i + 1)));
        } catch {
          break;
        }
      }
    }
  }
  return items;
}
