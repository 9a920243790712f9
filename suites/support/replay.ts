// Two answers compared as a replay is compared (4.1 rule 3): status, Location, the media type and
// the body as a JSON value; the request id is not compared (IDEM-REPLAY-REQUEST-ID reads two ways),
// nor the media type's parameters (a charset said once and not again changes nothing a client reads).
import type { ApiResponse } from '../../harness/client.ts';
import { canonicalJson } from '../../generators/equivalence.ts';

/** Status, Location, media type and body of a response, compared for a replay. */
export function sameResponse(a: ApiResponse, b: ApiResponse): boolean {
  return a.status === b.status && (a.headers['location'] ?? null) === (b.headers['location'] ?? null) && mediaType(a) === mediaType(b) && canonical(a.json) === canonical(b.json);
}

/** `application/json` of `Application/JSON; charset=utf-8` (blind6-replay-labelled-problem-json replayed a 202 as problem+json). */
function mediaType(r: ApiResponse): string | null {
  return r.headers['content-type']?.split(';')[0]!.trim().toLowerCase() ?? null;
}

function canonical(value: unknown): string {
  return value === undefined ? 'undefined' : canonicalJson(value);
}

/** What differs between two answers, member by member, for a failure message. */
export function differences(a: ApiResponse, b: ApiResponse): string {
  const out: string[] = [];
  if (a.status !== b.status) {
    const code = (b.json as { code?: unknown } | undefined)?.code;
    return `status ${a.status} then ${b.status}${typeof code === 'string' ? ` ${code}` : ''}`;
  }
  if ((a.headers['location'] ?? null) !== (b.headers['location'] ?? null)) out.push(`Location ${a.headers['location']} then ${b.headers['location']}`);
  if (mediaType(a) !== mediaType(b)) out.push(`Content-Type ${a.headers['content-type']} then ${b.headers['content-type']}`);
  const ja = a.json as Record<string, unknown> | undefined;
  const jb = b.json as Record<string, unknown> | undefined;
  if (ja && jb && typeof ja === 'object' && typeof jb === 'object') {
    for (const k of new Set([...Object.keys(ja), ...Object.keys(jb)])) {
      if (canonical(ja[k]) !== canonical(jb[k])) out.push(`${k} ${JSON.stringify(ja[k])} then ${JSON.stringify(jb[k])}`);
    }
  } else if (canonical(a.json) !== canonical(b.json)) out.push('bodies differ');
  return out.join('; ') || 'no difference';
}
