// Idempotency across the traffic (section 4.1): within one scope (application, business, key) a
// repeat with an equivalent body replays the original 202, a different body gives 409, and a key
// never names a second bulk SMS. When the recording hides who called (redacted tokens), a second
// bulk under the same key may be another application's and is not judged.
import { isDeepStrictEqual } from 'node:util';
import { describe, codeOf, objectOf, type Observed } from '../context.ts';
import type { CheckDef, Verdicts } from '../verdicts.ts';
import { serverTimes } from './server-clock.ts';

const REPLAY = 'traffic/idempotency/replay';
const CONFLICT = 'traffic/idempotency/conflict';
const PERMANENT = 'traffic/idempotency/one-operation-per-key';
const SEVEN_DAYS = 7 * 24 * 3600 * 1000;

export const checks: CheckDef[] = [
  { id: REPLAY, topic: 'idempotency', title: 'a repeat of an accepted submission with the same key and the same body within seven days replays the original answer', requirements: ['IDEM-REPLAY', 'IDEM-EQUIVALENCE', 'IDEM-REPLAY-REQUEST-ID', 'IDEM-WINDOW'] },
  { id: CONFLICT, topic: 'idempotency', title: 'a repeat of an accepted submission with the same key and a different body gives 409 idempotency_conflict', requirements: ['IDEM-CONFLICT'] },
  { id: PERMANENT, topic: 'idempotency', title: 'one key of one application and business never names a second bulk SMS', requirements: ['IDEM-KEY-PERMANENT', 'IDEM-NO-REUSE-AFTER-EXPIRY', 'IDEM-SCOPE'] },
];

const bulkIdOf = (o: Observed) => {
  const id = objectOf(o.json)?.id;
  return typeof id === 'string' ? id : undefined;
};

export function judge(traffic: readonly Observed[], v: Verdicts): void {
  const clock = serverTimes(traffic);
  /** Scope -> the accepted original. */
  const originals = new Map<string, Observed>();
  for (const o of traffic) {
    if (o.op?.operationId !== 'createSmsBulkMessage' || o.pacing) continue;
    const key = o.ex.request.headers['idempotency-key'];
    if (key === undefined || !o.requestKnown) continue;
    const scope = JSON.stringify([o.app ?? '?', o.op.params.businessId, key]);
    const original = originals.get(scope);
    if (!original) {
      if (o.status === 202 && bulkIdOf(o)) originals.set(scope, o);
      continue;
    }
    const known = o.app !== undefined && original.app !== undefined;
    const identical = o.ex.request.body === original.ex.request.body;
    const equivalent = identical || isDeepStrictEqual(o.requestJson, original.requestJson);
    const newBulk = o.status >= 200 && o.status < 300 && bulkIdOf(o) !== undefined && bulkIdOf(o) !== bulkIdOf(original);
    if (newBulk) {
      if (!known) v.note(PERMANENT, 'a key was used again with a new bulk SMS in answer, but the recording hides which application called (redacted tokens), so the scope is not observable in this traffic');
      else v.fail(PERMANENT, equivalent ? 'IDEM-KEY-PERMANENT' : 'IDEM-CONFLICT', equivalent ? `the bulk SMS ${bulkIdOf(original)} replayed (or a refusal)` : '409 idempotency_conflict', `a second bulk SMS ${bulkIdOf(o)} under the same key`, [original, o]);
      continue;
    }
    if (known) v.pass(PERMANENT);
    if (!equivalent) {
      // A body the server refuses on its own (400, 401, 403, 422) may be judged before the key.
      if (o.status === 409 && codeOf(o) === 'idempotency_conflict') v.pass(CONFLICT);
      else if (o.status >= 200 && o.status < 300) v.fail(CONFLICT, 'IDEM-CONFLICT', '409 idempotency_conflict for a different body under a used key', `${describe(o)} (the original answer replayed)`, [original, o]);
      else v.note(CONFLICT, `a different body under a used key was refused with ${describe(o)} before the key was judged`);
      continue;
    }
    if (o.status === original.status && isDeepStrictEqual(o.json, original.json)) {
      const location = original.ex.response.headers['location'];
      v.judge(REPLAY, 'IDEM-REPLAY', 'the original answer replayed, Location included', location !== undefined && o.ex.response.headers['location'] === undefined ? 'the replay has no Location header' : undefined, [original, o]);
      continue;
    }
    if (o.status === 409 || (o.status >= 400 && o.status < 500 && !identical)) {
      // After seven days a refusal is one of the readings; before them (by the server's own clock) it is not.
      const acceptedAt = Date.parse(String(objectOf(original.json)?.accepted_at));
      const laterTime = clock.earliestAtOrAfter(o.ex.index);
      const within = Number.isFinite(acceptedAt) && laterTime !== undefined && laterTime - acceptedAt < SEVEN_DAYS;
      if (!identical) v.note(REPLAY, `a repeat equal as JSON but not byte for byte was answered ${describe(o)} (a reading the document allows)`);
      else if (within) v.fail(REPLAY, 'IDEM-REPLAY', 'the original 202 replayed (the repeat came within seven days by the server clock)', describe(o), [original, o]);
      else v.note(REPLAY, `an identical repeat was answered ${describe(o)}; whether seven days had passed is not observable in this traffic`);
      continue;
    }
    if (o.status >= 200 && o.status < 300) v.fail(REPLAY, 'IDEM-REPLAY', `the original answer replayed (${original.status}, same body)`, `${o.status} with another body`, [original, o]);
    else v.note(REPLAY, `an equivalent repeat was answered ${describe(o)}`);
  }
}
