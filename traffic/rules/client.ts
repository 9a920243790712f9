// The client's side of the traffic: what the client that made it does against the document's
// advice. Reported in a section of its own (advisories named client/...), never failing the run.
import { hash } from 'node:crypto';
import { fingerprint, kept, objectOf, type Observed } from '../context.ts';
import type { JudgeContext } from '../context.ts';
import { AT_END, BoundedMap, STATE_LIMIT, type Reducer, type Verdicts } from '../verdicts.ts';
import { alteredFrom } from './cursors.ts';

/**
 * JSON with sorted keys: equal for bodies equal as JSON values, whatever their key order. Built by
 * appending to one string (every keyed submission is walked: no array of parts per node).
 */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // A part whose keys are already in order (a list of recipients, say) is written natively.
  if (keysSorted(value)) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + canonical(value[i]);
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let text = '{';
  for (let i = 0; i < keys.length; i++) text += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${canonical(record[keys[i]!])}`;
  return `${text}}`;
}

/**
 * Whether every object in a parsed value lists its keys in the order canonical() sorts them: then
 * JSON.stringify (native) writes the same text as canonical(), without building it piece by piece.
 * (Integer-like keys, which objects list first, fail the check unless that is their sorted order.)
 */
function keysSorted(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!keysSorted(value[i])) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  let previous: string | undefined;
  for (const key in record) {
    if (previous !== undefined && !(previous < key)) return false;
    if (!keysSorted(record[key])) return false;
    previous = key;
  }
  return true;
}

/** The key a submission is remembered by: SHA-1 is enough to tell bodies apart, and cheaper than SHA-256. */
const submissionKey = (businessId: string | undefined, value: unknown) => hash('sha1', `${businessId} ${canonical(value)}`, 'base64');

const bearerOf = (o: Observed) => o.bearer;

const RECENT_CURSORS = 64;

interface Suspect {
  o: Observed;
  at: number;
}

/**
 * Reads every exchange of the traffic (tokens, origins and cursors span businesses). What needs the
 * whole traffic (a token seen anywhere, every origin of the API, every cursor issued) is decided at
 * the end, over the suspects kept on the way (bounded, and counted when let go).
 */
export function start(v: Verdicts, ctx: JudgeContext): Reducer {
  /** business + canonical body -> the first submission of it and its key. */
  const submissions = new BoundedMap<string, Observed>(STATE_LIMIT);
  /** Cursors issued; an unknown one is compared with the RECENT_CURSORS last issued (a client edits the cursor it just got). */
  const cursors = new BoundedMap<string, true>(STATE_LIMIT);
  const recent: string[] = [];
  let complete = true;
  const apiOrigins = new Set<string | undefined>();
  const tokenOrigins = new Set<string | undefined>();
  const tokens = new BoundedMap<string, true>(STATE_LIMIT);
  const editedCursors: Suspect[] = [];
  const bearersOutside: Suspect[] = [];
  let suspectsDropped = 0;
  const suspect = (list: Suspect[], o: Observed) => (list.length < STATE_LIMIT ? list.push({ o: kept(o), at: v.at }) : (suspectsDropped += 1));
  const see = (o: Observed): void => {
    const origin = o.url?.origin;
    if (o.op || o.unknownApiPath) apiOrigins.add(origin);
    if (o.tokenRequest) tokenOrigins.add(origin);
    if (o.op?.operationId === 'listSmsBulkMessageRecipients' && o.status === 200) {
      if (!o.responseKnown) complete = false;
      const next = objectOf(objectOf(o.json)?.pagination)?.next_cursor;
      if (typeof next === 'string' && !cursors.has(next)) {
        cursors.set(next, true);
        if (recent.push(next) > RECENT_CURSORS) recent.shift();
      }
    }
    // A bearer token to an origin not (yet) seen as the API's or the token endpoint's: told at the end.
    if (bearerOf(o) !== undefined && !apiOrigins.has(origin) && !tokenOrigins.has(origin)) suspect(bearersOutside, o);
    if (o.tokenRequest) {
      const authorization = o.ex.request.headers['authorization'];
      const inBody = /(^|&)client_secret=/.test(o.ex.request.body ?? '');
      if (authorization === undefined || !/^\s*Basic\s/i.test(authorization) || inBody) {
        v.clientFinding('client/token-request-without-basic', 'AUTH-TOKEN-BASIC', `a token request authenticates the client ${inBody ? 'with client_secret in the form body' : 'without HTTP Basic'}; the document asks for client_secret_basic`, [o]);
      }
      const access = objectOf(o.json)?.access_token;
      if (typeof access === 'string' && !access.includes('<redacted>')) tokens.set(fingerprint(access), true);
      return;
    }
    const bearer = bearerOf(o);
    if (bearer && (o.op || o.unknownApiPath)) tokens.set(fingerprint(bearer), true);
    if (o.op?.operationId === 'createSmsBulkMessage') {
      if (o.ex.request.headers['idempotency-key'] === undefined) {
        v.clientFinding('client/submission-without-idempotency-key', 'IDEM-KEY-REQUIRED', 'a bulk submission was sent without an Idempotency-Key, so a retry after a lost answer could send the messages twice', [o]);
      } else if (o.requestKnown && o.requestJson !== undefined) {
        const fingerprintOf = submissionKey(o.op.params.businessId, o.requestJson);
        const earlier = submissions.get(fingerprintOf);
        if (earlier && earlier.ex.request.headers['idempotency-key'] !== o.ex.request.headers['idempotency-key']) {
          v.clientFinding('client/retry-under-new-key', 'IDEM-REPLAY', 'the same submission was sent again under a new Idempotency-Key: the server cannot replay it and may send the messages again', [earlier, o]);
        }
        if (!earlier) submissions.set(fingerprintOf, kept(o));
      }
    }
    if (o.op?.operationId === 'listSmsBulkMessageRecipients') {
      const cursor = o.op.query.get(ctx.params.cursor);
      if (cursor && !cursors.has(cursor) && alteredFrom(cursor, recent)) suspect(editedCursors, o);
    }
  };
  const finish = () => {
    // An edited cursor is told only when every listing was recorded whole (else the issued set is partial).
    for (const { o, at } of complete ? editedCursors : []) {
      if (cursors.has(o.op!.query.get(ctx.params.cursor)!)) continue;
      v.clientFinding('client/edited-cursor', 'CUR-OPAQUE', 'a cursor was sent that the server never issued but that differs from an issued one by a few characters: cursors are opaque and must be used as given', [o], at);
    }
    // A token seen at the API or issued by the token endpoint must go nowhere else.
    for (const { o } of bearersOutside) {
      const bearer = bearerOf(o);
      if (!bearer || !tokens.has(fingerprint(bearer))) continue;
      const origin = o.url?.origin;
      if (origin && !apiOrigins.has(origin) && !tokenOrigins.has(origin)) {
        v.clientFinding('client/token-sent-elsewhere', 'AUTH-BEARER', `an access token of the API was sent to another origin (${origin}); it must only travel to the API host`, [o], AT_END);
      }
    }
  };
  return {
    see,
    finish,
    forgotten: () => [{ check: 'client', what: 'exchanges held for an end-of-traffic client finding', limit: STATE_LIMIT, count: suspectsDropped }],
  };
}
