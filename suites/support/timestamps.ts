// Times in an answer against the answer's own clock (2.1: responses use UTC with a Z offset). A
// timestamp says when something happened (acceptance, submission, delivery, a snapshot): never
// after the response that shows it was sent. A local time labelled Z (blind defect
// blind4-wallet-as-of-local-labelled-utc: as_of an hour ahead) lands in the future of the Date
// header, which HTTP writes in GMT (RFC 9110 6.6.1). Only "ahead" is judged: a snapshot may be old.

/** A timestamp of the document's form (RFC 3339 date-time), found anywhere in a body. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/**
 * How far a timestamp may lead the Date header: the header counts whole seconds (up to 1 s cut),
 * and the host's machines may disagree a little (NTP keeps them within well under a minute). Far
 * below the smallest offset a local time labelled Z adds (30 minutes).
 */
export const CLOCK_TOLERANCE_MS = 2 * 60_000;

export interface FutureTimestamp {
  /** JSON Pointer of the member in the body. */
  pointer: string;
  value: string;
  /** How far it leads the Date header. */
  aheadMs: number;
}

/** Every RFC 3339 timestamp of `json` later than the Date header plus the tolerance (none without a Date header). */
export function timestampsAfterDate(json: unknown, dateHeader: string | undefined): FutureTimestamp[] {
  const date = dateHeader === undefined ? Number.NaN : Date.parse(dateHeader);
  if (!Number.isFinite(date)) return [];
  const out: FutureTimestamp[] = [];
  const visit = (value: unknown, pointer: string): void => {
    if (typeof value === 'string') {
      if (!RFC3339.test(value)) return;
      const at = Date.parse(value);
      if (Number.isFinite(at) && at - date > CLOCK_TOLERANCE_MS) out.push({ pointer, value, aheadMs: at - date });
      return;
    }
    if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${pointer}/${i}`));
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  };
  visit(json, '');
  return out;
}

/** "1 h 0 min" style, for a failure line. */
export function describeLead(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}
