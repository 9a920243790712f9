// Idempotency across the traffic (section 4.1): within one scope (application, business, key) a
// repeat with an equivalent body replays the original 202, a different body gives 409, and a key
// never names a second bulk SMS. When the recording hides who called (redacted tokens), a second
// bulk under the same key may be another application's and is not judged.
import { isDeepStrictEqual } from 'node:util';
import { describe, codeOf, kept, objectOf, type JudgeContext, type Observed } from '../context.ts';
import { jsonOf, type TrafficExchange } from '../model.ts';
import { BoundedMap, STATE_LIMIT, type CheckDef, type Reducer, type Verdicts } from '../verdicts.ts';
import { requestDefects } from './request-validity.ts';
import type { ServerClock } from './server-clock.ts';

const REPLAY = 'traffic/idempotency/replay';
const CONFLICT = 'traffic/idempotency/conflict';
const PERMANENT = 'traffic/idempotency/one-operation-per-key';
const SEVEN_DAYS = 7 * 24 * 3600 * 1000;
/**
 * How far behind the latest a server time may come and still be the same clock: overlapping calls
 * are answered out of order by milliseconds, servers a little apart by seconds. A clock seen further
 * back is another recording or another server's time (files out of order, a log repeated).
 */
const CLOCK_SPREAD = 60 * 1000;

export const checks: CheckDef[] = [
  { id: REPLAY, topic: 'idempotency', title: "a repeat of an accepted submission with the same key and the same body within seven days replays the original answer, never another key's bulk SMS", requirements: ['SEQ-REPLAY-AFTER-ANY', 'IDEM-REPLAY', 'IDEM-EQUIVALENCE', 'IDEM-EQUIVALENT-REPLAYED', 'IDEM-REPLAY-REQUEST-ID', 'IDEM-WINDOW', 'PROB-NO-5XX-FOR-CLIENT-FAULT'] },
  { id: CONFLICT, topic: 'idempotency', title: 'a repeat of an accepted submission with the same key and a different body gives 409 idempotency_conflict', requirements: ['IDEM-CONFLICT', 'PROB-NO-5XX-FOR-CLIENT-FAULT'] },
  { id: PERMANENT, topic: 'idempotency', title: 'one key of one application and business never names a second bulk SMS (a conflict under it released nothing), and a new key never names an earlier key\'s', requirements: ['SEQ-KEY-BOUND-TO-FIRST', 'IDEM-KEY-PERMANENT', 'IDEM-NO-REUSE-AFTER-EXPIRY', 'IDEM-SCOPE'] },
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

/** How finely a recording may tell times apart (HAR's startedDateTime: whole milliseconds). */
const TIME_PRECISION_MS = 1;

/** 5xx answers kept per key while its 202 is not seen (a client retrying more often is noted at once). */
const FAILURES_PER_KEY = 16;

/**
 * How a 5xx under a key stands to the key's 202 by the recording's times: answered before the
 * 202's request was sent (`before`: a retry after a failure), or not (sent while the 202's request
 * was in flight, or after its answer: a concurrent or a repeated call). Undefined when either
 * exchange lacks a start or an end.
 */
function timeOf(failed: TrafficExchange, accepted: TrafficExchange): 'before' | 'overlap' | 'after' | undefined {
  const { startedAt: fs, endedAt: fe } = failed;
  const { startedAt: as, endedAt: ae } = accepted;
  if (fs === undefined || fe === undefined || as === undefined || ae === undefined) return undefined;
  // A tie, or a gap within a HAR's precision (its startedDateTime counts whole milliseconds), is
  // given to the retry: a client may send it the moment the failure came back.
  if (fe <= as + TIME_PRECISION_MS) return 'before';
  return fs >= ae ? 'after' : 'overlap';
}

/**
 * HTTP's own refusals of one message, whatever it asks (RFC 9110 408, RFC 6585 431): the
 * document leaves them to HTTP, and a repeat may meet them when its original did not.
 */
const MESSAGE_REFUSALS = new Set([408, 431]);

/**
 * Whether a refusal of a repeat under a used key may be for a fault of the repeat's own, one its
 * accepted original did not have, so the key's rule is not what answered. The body is equivalent
 * and the key the same, so no body or key rule can be at fault. What can: its token (401, 5.8), its
 * grant, permission or sender authorization as they stand now (403, 5.6 and 5.8; they may change
 * between two calls), its business (404, 5.8), a request rule the original kept and it breaks (a
 * Content-Type other than JSON, 4.1; a parameter or an Accept the operation does not take, whose
 * refusal the judge allows) or HTTP's own refusal of the message. An invalid X-Request-Id is no
 * fault: 4.0 replaces it, never refuses it. 429 and 503 are pacing, never judged. Anything else
 * (400, 422, 409 with another code) refuses the key's own answer: the original took the same bytes.
 */
function faultOfItsOwn(o: Observed, original: Observed, ctx: JudgeContext): boolean {
  if (o.status === 401 || o.status === 403 || o.status === 404 || MESSAGE_REFUSALS.has(o.status)) return true;
  // Rare (a refused repeat): the original's request is parsed again, its defects named beside the repeat's.
  const before = new Set(requestDefects({ ...original, requestJson: jsonOf(original.ex.request.body) }, ctx).map((d) => d.reason));
  return requestDefects(o, ctx).some((d) => !before.has(d.reason));
}

export function start(v: Verdicts, ctx: JudgeContext, clock: ServerClock): Reducer {
  /** Scope -> the accepted original (a key names one bulk SMS for good, so only the bound lets it go). */
  const originals = new BoundedMap<string, Observed>(STATE_LIMIT);
  /**
   * Scope -> its 5xx answers while no 202 is seen: whether each ran beside the 202 (a concurrent
   * call, failed) or ended before it was sent (a retry after a failure, noted) is told when the 202
   * comes. Only 5xx answers under a key cost anything; let go at the bound, as noted without the 202.
   */
  const failures = new BoundedMap<string, Observed[]>(STATE_LIMIT, (_scope, held) => held.forEach((f) => notAccepted(f, 'let go at the bound before a 202 came')));
  let failuresDropped = 0;
  /** Identical repeats refused: a refusal within seven days of acceptance (by the server's clock) breaks the rule; it waits for a later server time to tell. */
  const waiting: Waiting[] = [];
  let waitingDropped = 0;
  clock.onStamp((time) => {
    // A stamp well behind the latest before it (`clock.latest` is updated after its listeners) or
    // behind the acceptance shows a clock gone back, not the refusal's time.
    const before = clock.latest;
    for (let i = waiting.length - 1; i >= 0; i--) {
      const w = waiting[i]!;
      if (time < Math.max(w.acceptedAt, before) - CLOCK_SPREAD) {
        // Files out of time order, or servers whose clocks differ: this traffic cannot place the refusal.
        waiting.splice(i, 1);
        unknownWindow(w.o, w.at, 'unknown: the server clock went back after it (files out of time order, or servers whose clocks differ)');
        continue;
      }
      if (time - w.acceptedAt >= SEVEN_DAYS) continue;
      waiting.splice(i, 1);
      v.fail(REPLAY, 'IDEM-REPLAY', 'the original 202 replayed (the repeat came within seven days by the server clock)', describe(w.o), [w.original, w.o], w.at);
    }
  });
  /** Scopes whose key met a conflict (a later second bulk under it is the key released by the conflict). */
  const conflicted = new BoundedMap<string, true>(STATE_LIMIT);
  /** Bulk SMS id -> the key (with its business) whose submission first answered it: one operation, one key. */
  const keyOfBulk = new BoundedMap<string, { key: string; o: Observed }>(STATE_LIMIT);
  const see = (o: Observed): void => {
    if (o.op?.operationId !== 'createSmsBulkMessage' || o.pacing) return;
    const key = o.ex.request.headers['idempotency-key'];
    if (key === undefined || !o.requestKnown) return;
    const scope = JSON.stringify([o.app ?? '?', o.op.params.businessId, key]);
    // Whoever called: a bulk SMS first answered under one key is that key's operation, never another key's answer.
    const answered = o.status >= 200 && o.status < 300 ? bulkIdOf(o) : undefined;
    if (answered !== undefined) {
      const keyed = JSON.stringify([o.op.params.businessId, key]);
      const bound = keyOfBulk.get(answered);
      if (!bound) keyOfBulk.set(answered, { key: keyed, o: kept(o) });
      else if (bound.key !== keyed) {
        // A key's first submission is a new operation (its scope is the key, not the payload); a repeat replays its own.
        const first = !originals.has(scope);
        v.fail(first ? PERMANENT : REPLAY, first ? 'IDEM-SCOPE' : 'SEQ-REPLAY-AFTER-ANY', first ? 'a new bulk SMS for the first submission under a new key' : "the answer of this key's own submission, never the bulk SMS another key's submission created", `the bulk SMS ${answered}, which ${bound.o.ex.source} answered under another key`, [bound.o, o]);
        return;
      }
    }
    const original = originals.get(scope);
    if (!original) {
      // A 5xx before the key's first 202: a retry after an unexpected failure (7) or a concurrent
      // call; the exchanges' times tell which once the 202 comes (4.1 rule 6 shows neither rule).
      if (o.status >= 500) hold(scope, o);
      if (o.status === 202 && bulkIdOf(o)) {
        const accepted = kept(o, true);
        originals.set(scope, accepted);
        if (failures.size > 0) judgeHeld(scope, accepted);
      }
      return;
    }
    const known = o.app !== undefined && original.app !== undefined;
    const identical = o.ex.request.body === original.ex.request.body;
    // The original's request is kept as text: parsed again only when the texts differ.
    const equivalent = identical || isDeepStrictEqual(o.requestJson, jsonOf(original.ex.request.body));
    const newBulk = o.status >= 200 && o.status < 300 && bulkIdOf(o) !== undefined && bulkIdOf(o) !== bulkIdOf(original);
    if (newBulk) {
      if (!known) v.note(PERMANENT, 'a key was used again with a new bulk SMS in answer, but the recording hides which application called (redacted tokens), so the scope is not observable in this traffic');
      else {
        // After a conflict the key is still bound to its first body (the conflict released nothing).
        const rule = conflicted.has(scope) ? 'SEQ-KEY-BOUND-TO-FIRST' : equivalent ? 'IDEM-KEY-PERMANENT' : 'IDEM-CONFLICT';
        v.fail(PERMANENT, rule, equivalent ? `the bulk SMS ${bulkIdOf(original)} replayed (or a refusal)` : '409 idempotency_conflict', `a second bulk SMS ${bulkIdOf(o)} under the same key${conflicted.has(scope) ? ' after a conflict under it' : ''}`, [original, o]);
      }
      return;
    }
    if (known) v.pass(PERMANENT);
    if (o.status >= 500) {
      serverError(o, original, equivalent);
      return;
    }
    // An equivalent repeat refused for a fault of its own: the reading other-fault-first.
    if (equivalent && o.status >= 400 && o.status < 500 && o.status !== 409 && codeOf(o) !== 'idempotency_conflict' && faultOfItsOwn(o, original, ctx)) {
      v.reading(REPLAY, 'other-fault-first', 'other-fault', [original, o], describe(o));
      return;
    }
    if (!equivalent) {
      // A body the server refuses on its own (400, 401, 403, 422) may be judged before the key.
      if (o.status === 409 && codeOf(o) === 'idempotency_conflict') {
        v.pass(CONFLICT);
        conflicted.set(scope, true);
      }
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
    // A refusal of a call in flight with the key's 202 (409 "in progress", 422...): 4.1 rule 6 leaves
    // concurrent calls unshown, and the active check concurrent-same-key takes any answer but a 5xx.
    if (o.status >= 400 && o.status < 500 && timeOf(o.ex, original.ex) === 'overlap') {
      v.note(REPLAY, `a repeat sent while the key's first submission was in flight was answered ${describe(o)} (concurrent calls: 4.1 rule 6 is not shown)`);
      return;
    }
    // A refusal of the key's own answer (its faults of its own are read above): the original took these bytes.
    if (o.status >= 400 && o.status < 500) {
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
    else v.note(REPLAY, `an equivalent repeat was answered ${describe(o)}, an answer the other rules judge`);
  };
  const equivalentTo = (o: Observed, original: Observed) => o.ex.request.body === original.ex.request.body || isDeepStrictEqual(jsonOf(o.ex.request.body), jsonOf(original.ex.request.body));
  /**
   * A 5xx under a key that has a 202: a concurrent call (its request in flight with the 202's) or a
   * repeated one is the caller's to make, never answered with a server error (7;
   * concurrent-same-key-500). One the times show answered before the 202's request was sent is a
   * retry after a failure, which 4.1 rule 6 leaves unshown: noted. Without times, the order decides.
   */
  const serverError = (o: Observed, original: Observed, equivalent: boolean): void => {
    const when = timeOf(o.ex, original.ex);
    if (when === 'before') {
      v.note(REPLAY, `a submission under a key was answered ${describe(o)} before the request its 202 answered was sent (a retry after a failure: 4.1 rule 6 is not shown)`, o.ex.index, o);
      return;
    }
    const expected = when === 'overlap' ? 'the replay, 409 or a refusal of a concurrent call under one key (sent before the 202 under it came back), never a server error' : 'the replay, 409 or a refusal of a repeated call, never a server error';
    const shown = o.ex.index < original.ex.index ? [o, original] : [original, o];
    v.fail(equivalent ? REPLAY : CONFLICT, 'PROB-NO-5XX-FOR-CLIENT-FAULT', expected, `${describe(o)} (${o.ex.source}; the 202: ${original.ex.source})`, shown);
  };
  /** A 5xx under a key whose 202 is not seen yet, held until it is (with its parsed answer, for its code). */
  const hold = (scope: string, o: Observed): void => {
    const held = failures.get(scope);
    if (!held) failures.set(scope, [kept(o, true)]);
    else if (held.length < FAILURES_PER_KEY) held.push(kept(o, true));
    else {
      failuresDropped += 1;
      notAccepted(o, 'more of them under one key than are kept');
    }
  };
  /** The key's 202 came: each 5xx held under it is judged by its times (or, without them, noted as before it). */
  const judgeHeld = (scope: string, accepted: Observed): void => {
    const held = failures.get(scope);
    if (!held) return;
    failures.delete(scope);
    for (const f of held) {
      if (timeOf(f.ex, accepted.ex) === undefined) notAccepted(f, 'the recording has no times to tell a concurrent call from a retry');
      else serverError(f, accepted, equivalentTo(f, accepted));
    }
  };
  /** A 5xx before any 202 under its key, judged as today's traffic allows: a retry after a failure or a concurrent call, noted. */
  const notAccepted = (f: Observed, why: string): void =>
    v.note(REPLAY, `a submission under a key not yet accepted was answered ${describe(f)} (a retry after a failure, or a concurrent call: 4.1 rule 6 is not shown; ${why})`, f.ex.index, f);
  const unknownWindow = (o: Observed, at: number, why = 'not observable in this traffic') => v.note(REPLAY, `an identical repeat was answered ${describe(o)}; whether seven days had passed is ${why}`, at, o);
  return {
    see,
    // No later server time within seven days of acceptance came: the refusal may be the window's end.
    finish: () => {
      waiting.splice(0).forEach((w) => unknownWindow(w.o, w.at));
      // No 202 came under these keys: nothing to have run beside.
      for (const held of failures.values()) held.forEach((f) => notAccepted(f, 'no 202 under the key followed'));
      failures.clear();
    },
    forgotten: () => [
      { check: PERMANENT, what: 'idempotency keys', limit: STATE_LIMIT, count: originals.dropped },
      { check: REPLAY, what: 'bulk SMS ids and the key that created each', limit: STATE_LIMIT, count: keyOfBulk.dropped },
      { check: REPLAY, what: 'refused repeats waiting for a later server time', limit: STATE_LIMIT, count: waitingDropped },
      { check: REPLAY, what: 'server errors under keys waiting for their 202', limit: STATE_LIMIT, count: failures.dropped + failuresDropped },
    ],
  };
}
