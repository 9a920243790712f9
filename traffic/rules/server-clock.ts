// The server's own clock as the traffic shows it: the times it stamps on what it creates now (a
// 202's accepted_at, a wallet snapshot's as_of). A host's clock may run apart from the
// recorder's (the embedded reference's is advanced by tests), so rules about elapsed time use these.
import { objectOf, type Observed } from '../context.ts';

export interface ServerClock {
  /** The earliest server time stamped at or after exchange `index` (an upper bound of its time then). */
  earliestAtOrAfter(index: number): number | undefined;
}

export function serverTimes(traffic: readonly Observed[]): ServerClock {
  const stamps: Array<{ index: number; time: number }> = [];
  // A replayed 202 carries the original's old accepted_at: only a bulk's first answer stamps "now".
  const bulks = new Set<unknown>();
  for (const o of traffic) {
    const body = objectOf(o.json);
    if (!body || !o.op) continue;
    if (o.op.operationId === 'createSmsBulkMessage') {
      if (bulks.has(body.id)) continue;
      bulks.add(body.id);
    }
    const value = o.op.operationId === 'createSmsBulkMessage' && o.status === 202 ? body.accepted_at : o.op.operationId === 'getWalletBalance' && o.status === 200 ? body.as_of : undefined;
    const time = typeof value === 'string' ? Date.parse(value) : NaN;
    if (Number.isFinite(time)) stamps.push({ index: o.ex.index, time });
  }
  // Minimum over the suffix, so each query is a binary search.
  const suffixMin: number[] = new Array(stamps.length);
  for (let i = stamps.length - 1, min = Infinity; i >= 0; i--) suffixMin[i] = min = Math.min(min, stamps[i]!.time);
  return {
    earliestAtOrAfter(index) {
      let lo = 0;
      let hi = stamps.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (stamps[mid]!.index < index) lo = mid + 1;
        else hi = mid;
      }
      return lo < stamps.length ? suffixMin[lo] : undefined;
    },
  };
}
