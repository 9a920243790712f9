// Idempotency across the traffic (section 4.1): within one scope (application, business, key) a
// repeat with an equivalent body replays the original 202, a different body gives 409, and a key
// never names a second bulk SMS. When the recording hides who called (redacted tokens), a second
// bulk under the same key may be another application's and is not judged.
import { isDeepStrictEqual } from 'node:util';
import { describe, codeOf, kept, objectOf, type Observed } from '../context.ts';
import { jsonOf } from '../model.ts';
import { BoundedMap, STATE_LIMIT, type CheckDef, type Reducer, type Verdicts } from '../verdicts.ts';
import type { ServerClock } from './server-clock.ts';

const REPLAY = 'traffic/idempotency/replay';
const CONFLICT = 'traffic/idempotency/conflict';
const PERMANENT = 'traffic/idempotency/one-operation-per-key';
const SEVEN_DAYS = 7 * 24 * 3600 * 1000;

export const checks: CheckDef[] = [
  { id: REPLAY, topic: 'idempotency', title: 'a repeat of an accepted submission with the same key and the same body within seven days replays the original answer', requirements: ['IDEM-REPLAY', 'IDEM-EQUIVALENCE', 'IDEM-EQUIVALENT-REPLAYED', 'IDEM-REPLAY-REQUEST-ID', 'IDEM-WINDOW', 'PROB-NO-5XX-FOR-CLIENT-FAULT'] },
  { id: CONFLICT, topic: 'idempotency', title: 'a repeat of an accepted submission with the same key and a different body gives 409 idempotency_conflict', requirements: ['IDEM-CONFLICT', 'PROB-NO-5XX-FOR-CLIENT-FAULT'] },
  { id: PERMANENT, topic: 'idempotency', title: 'one key of one application and business never names a second bulk SMS', requirements: ['IDEM-KEY-PERMANENT', 'IDEM-NO-REUSE-AFTER-EXPIRY', 'IDEM-SCOPE'] },
];

const bulkIdOf = (o: Observed) => {
  const id = objectOf(o.json)?.id;
  return typeof id === 'string' ? id : undefined;
};

interface Waiting {
  original: Observed;
  o: Observed;
  acceptedAt: number;
  at: number;
}

export function start(v: Verdicts, _ctx: unknown, clock: ServerClock): Reducer {
  /** Scope -> the accepted original (a key names one bulk SMS for good, so only the bound lets it go). */
  const originals = new BoundedMap<string, Observed>(STATE_LIMIT);
  /** Identical repeats refused: a refusal within seven days of acceptance (by the server's clock) breaks the rule; it waits for a later server time to tell. */
  const waiting: Waiting[] = [];
  let waitingDropped = 0;
  clock.onStamp((time) => {
    for (let i = waiting.length - 1; i >= 0; i--) {
      const w = waiting[i]!;
      if (time - w.acceptedAt >= SEVEN_DAYS) continue;
      waiting.splice(i, 1);
      v.fail(REPLAY, 'IDEM-REPLAY', 'the original 202 replayed (the repeat came within seven days by the server clock)', describe(w.o), [w.original, w.o], w.at);
    }
  });
  const see = (o: Observed): void => {
    if (o.op?.operationId !== 'createSmsBulkMessage' || o.pacing) return;
    const key = o.ex.request.headers['idempotency-key'];
    if (key === undefined || !o.requestKnown) return;
    const scope = JSON.stringify([o.app ?? '?', o.op.params.businessId, key]);
    const original = originals.get(scope);
    if (!original) {
      // A 5xx before the key's first 202 is a retry after an unexpected failure (7) or a concurrent
      // call recorded first; the traffic cannot tell them apart, and 4.1 rule 6 leaves both unshown.
      if (o.status >= 500) v.note(REPLAY, `a submission under a key not yet accepted was answered ${describe(o)} (a retry after a failure, or a concurrent call: 4.1 rule 6 is not shown)`);
      if (o.status === 202 && bulkIdOf(o)) originals.set(scope, kept(o, true));
      return;
    }
    const known = o.app !== undefined && original.app !== undefined;
    const identical = o.ex.request.body === original.ex.request.body;
    // The original's request is kept as text: parsed again only when the texts differ.
    const equivalent = identical || isDeepStrictEqual(o.requestJson, jsonOf(original.ex.request.body));
    const newBulk = o.status >= 200 && o.status < 300 && bulkIdOf(o) !== undefined && bulkIdOf(o) !== bulkIdOf(original);
    if (newBulk) {
      if (!known) v.note(PERMANENT, 'a key was used again with a new bulk SMS in answer, but the recording hides which application called (redacted tokens), so the scope is not observable in this traffic');
      else v.fail(PERMANENT, equivalent ? 'IDEM-KEY-PERMANENT' : 'IDEM-CONFLICT', equivalent ? `the bulk SMS ${bulkIdOf(original)} replayed (or a refusal)` : '409 idempotency_conflict', `a second bulk SMS ${bulkIdOf(o)} under the same key`, [original, o]);
      return;
    }
    if (known) v.pass(PERMANENT);
    // A repeated or concurrent call is the caller's to make: never a server error (7; concurrent-same-key-500).
    if (o.status >= 500) {
      v.fail(equivalent ? REPLAY : CONFLICT, 'PROB-NO-5XX-FOR-CLIENT-FAULT', 'the replay, 409 or a refusal of a repeated call, never a server error', describe(o), [original, o]);
      return;
    }
    if (!equivalent) {
      // A body the server refuses on its own (400, 401, 403, 422) may be judged before the key.
      if (o.status === 409 && codeOf(o) === 'idempotency_conflict') v.pass(CONFLICT);
      else if (o.status >= 200 && o.status < 300) v.fail(CONFLICT, 'IDEM-CONFLICT', '409 idempotency_conflict for a different body under a used key', `${describe(o)} (the original answer replayed)`, [original, o]);
      // The conflict named with another status (blind3-conflict-status-422) is no other fault of the request.
      else if (o.status === 409 || codeOf(o) === 'idempotency_conflict') v.fail(CONFLICT, 'IDEM-CONFLICT', '409 idempotency_conflict for a different body under a used key', describe(o), [original, o]);
      else v.reading(CONFLICT, 'other-fault-first', 'other-fault', [original, o], describe(o));
      return;
    }
    if (o.status === original.status && isDeepStrictEqual(o.json, original.json)) {
      const location = original.ex.response.headers['location'];
      v.judge(REPLAY, 'IDEM-REPLAY', 'the original answer replayed, Location included', location !== undefined && o.ex.response.headers['location'] === undefined ? 'the replay has no Location header' : undefined, [original, o]);
      if (!identical) v.reading(REPLAY, 'equivalent-json', 'replay', [original, o]);
      return;
    }
    if (o.status === 409 || (o.status >= 400 && o.status < 500 && !identical)) {
      // After seven days a refusal is one of the readings; before them (by the server's own clock) it is not.
      const acceptedAt = Date.parse(String(objectOf(original.json)?.accepted_at));
      // Only identical bytes taken as equivalent: a client that serialises its retry anew never learns its bulk (a warning).
      if (!identical) v.reading(REPLAY, 'equivalent-json', 'conflict', [original, o], describe(o));
      else if (!Number.isFinite(acceptedAt)) unknownWindow(o, v.at);
      else if (waiting.length < STATE_LIMIT) waiting.push({ original, o, acceptedAt, at: v.at });
      else waitingDropped += 1;
      return;
    }
    if (o.status >= 200 && o.status < 300) v.fail(REPLAY, 'IDEM-REPLAY', `the original answer replayed (${original.status}, same body)`, `${o.status} with another body`, [original, o]);
    else if (o.status >= 400 && o.status < 500) v.reading(REPLAY, 'other-fault-first', 'other-fault', [original, o], describe(o));
    else v.note(REPLAY, `an equivalent repeat was answered ${describe(o)}, an answer the other rules judge`);
  };
  const unknownWindow = (o: Observed, at: number) => v.note(REPLAY, `an identical repeat was answered ${describe(o)}; whether seven days had passed is not observable in this traffic`, at, o);
  return {
    see,
    // No later server time within seven days of acceptance came: the refusal may be the window's end.
    finish: () => waiting.splice(0).forEach((w) => unknownWindow(w.o, w.at)),
    forgotten: () => [
      { check: PERMANENT, what: 'idempotency keys', limit: STATE_LIMIT, count: originals.dropped },
      { check: REPLAY, what: 'refused repeats waiting for a later server time', limit: STATE_LIMIT, count: waitingDropped },
    ],
  };
}
