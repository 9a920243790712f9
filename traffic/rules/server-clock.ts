// The server's own clock as the traffic shows it: the times it stamps on what it creates now (a
// 202's accepted_at, a wallet snapshot's as_of). A host's clock may run apart from the
// recorder's (the embedded reference's is advanced by tests), so rules about elapsed time use these.
// It reads every exchange of the traffic (whatever partition judges it) and tells its listeners
// each stamp as it comes, so a rule waiting for "a later server time" decides when one arrives.
import { objectOf, type Observed } from '../context.ts';
import { BoundedMap, STATE_LIMIT, type Reducer } from '../verdicts.ts';

export class ServerClock implements Reducer {
  /** A replayed 202 carries the original's old accepted_at: only a bulk's first answer stamps "now". */
  private readonly bulks = new BoundedMap<unknown, true>(STATE_LIMIT * 5);
  private readonly listeners: Array<(time: number) => void> = [];
  /** The latest time stamped so far, updated after the listeners heard a stamp (a clock seen going back is no measure of what came between). */
  latest = Number.NEGATIVE_INFINITY;

  /** Calls `listener` with every server time stamped from now on. */
  onStamp(listener: (time: number) => void): void {
    this.listeners.push(listener);
  }

  see(o: Observed): void {
    if (!o.op || (o.op.operationId !== 'createSmsBulkMessage' && o.op.operationId !== 'getWalletBalance')) return;
    const body = objectOf(o.json);
    if (!body) return;
    if (o.op.operationId === 'createSmsBulkMessage') {
      if (this.bulks.has(body.id)) return;
      this.bulks.set(body.id, true);
    }
    const value = o.op.operationId === 'createSmsBulkMessage' && o.status === 202 ? body.accepted_at : o.op.operationId === 'getWalletBalance' && o.status === 200 ? body.as_of : undefined;
    const time = typeof value === 'string' ? Date.parse(value) : NaN;
    if (!Number.isFinite(time)) return;
    for (const listener of this.listeners) listener(time);
    if (time > this.latest) this.latest = time;
  }
}
