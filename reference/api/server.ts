// The API origin: request id (4.0), authentication first (5.6 step 1, 5.8), rate limit, routing
// to the operations of section 4, and the 500 problem for anything unexpected (7).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { REQUEST_ID, UUID_V7, generateRequestId } from '../ids.ts';
import { PROBLEM_MEDIA_TYPE, buildProblem, writeJson } from '../problems.ts';
import { Call, type Deps } from './call.ts';
import { validateBulkBody } from './bulk-body.ts';
import { createBulk, replayByBusinessKey } from './bulk-create.ts';
import { getBulk, listRecipients } from './bulk-read.ts';
import { refusedBusinesses } from './authorize.ts';
import { getMessage } from './messages.ts';
import { acceptedHere, renderBulk } from './render.ts';
import { getWallet } from './wallet.ts';
import { deactivateWebhookEndpoint } from './webhooks.ts';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const RATE_WINDOW_MS = 60_000;

type Operation =
  | { op: 'createBulk'; business: string }
  | { op: 'getBulk'; business: string; id: string }
  | { op: 'listRecipients'; business: string; id: string }
  | { op: 'getMessage'; business: string; id: string }
  | { op: 'getWallet'; business: string }
  | { op: 'deactivateWebhook'; business: string; id: string };

function segment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Section 4 paths; anything else (including a known path with another method) is unknown. */
export function route(method: string, path: string, batchesAlias = false): Operation | undefined {
  const parts = path.split('/');
  // ['', 'v1', 'businesses', '{businessId}', ...rest]
  if (parts.length < 5 || parts[0] !== '' || parts[1] !== 'v1' || parts[2] !== 'businesses' || !parts[3]) return undefined;
  const business = segment(parts[3]);
  const rest = parts.slice(4);
  const n = rest.length;
  // 9.4: /sms/batches does not exist (the alias is a defect).
  if (rest[0] === 'sms' && (rest[1] === 'bulk-messages' || (batchesAlias && rest[1] === 'batches'))) {
    if (n === 2 && method === 'POST') return { op: 'createBulk', business };
    if (n === 3 && rest[2] && method === 'GET') return { op: 'getBulk', business, id: segment(rest[2]) };
    if (n === 4 && rest[2] && rest[3] === 'messages' && method === 'GET') return { op: 'listRecipients', business, id: segment(rest[2]) };
    return undefined;
  }
  if (n === 3 && rest[0] === 'sms' && rest[1] === 'messages' && rest[2] && method === 'GET') return { op: 'getMessage', business, id: segment(rest[2]) };
  if (n === 2 && rest[0] === 'wallet' && rest[1] === 'balance' && method === 'GET') return { op: 'getWallet', business };
  if (n === 2 && rest[0] === 'webhook-endpoints' && rest[1] && method === 'DELETE') return { op: 'deactivateWebhook', business, id: segment(rest[1]) };
  return undefined;
}

function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge }));
    req.on('error', reject);
  });
}

/** 4.0: echo a valid client request id, otherwise generate one. */
function requestIdFor(req: IncomingMessage, deps: Deps): string {
  const d = deps.defects;
  const sent = req.headers['x-request-id'];
  // 4.0: the client's valid id is echoed (the blind9 defect takes a submission's Idempotency-Key for its
  // correlation id, ahead of the client's X-Request-Id).
  const idempotencyKey = req.headers['idempotency-key'];
  if (typeof sent === 'string' && req.method === 'POST' && typeof idempotencyKey === 'string' && REQUEST_ID.test(idempotencyKey) && d.has('blind9-request-id-overridden-by-idempotency-key')) return idempotencyKey;
  // 4.0: the value as sent (blind defects: percent-decoded first; cut to the maximum length).
  const decoded = typeof sent === 'string' && d.has('blind3-request-id-percent-decoded') ? percentDecoded(sent) : sent;
  const given = typeof decoded === 'string' && d.has('blind3-request-id-129-truncated') ? decoded.slice(0, 128) : decoded;
  if (typeof given === 'string' && !d.has('request-id-ignored')) {
    // 8: 1 to 128 characters (the defect takes the maximum as 127).
    const tooLong = d.has('request-id-max-127') && given.length > 127;
    // 4.0: dots and underscores are allowed (the blind defect takes the pattern as letters, digits and hyphens).
    // 4.0: 1 character is enough (the blind defect wants at least 2).
    const narrow = (d.has('blind-request-id-dots-replaced') && /[._]/.test(given)) || (d.has('blind-request-id-min-2') && given.length < 2);
    // 4.0: any of the allowed characters may come first (the blind defect wants a letter or digit there).
    const leading = d.has('blind4-request-id-leading-punctuation-replaced') && /^[._-]/.test(given);
    // 4.0: every valid id is echoed (the blind8 defect distrusts a client address once it sent an invalid one).
    const address = req.socket.remoteAddress ?? '';
    const distrusted = d.has('blind8-request-id-distrusted-after-invalid') ? (distrustedClients.get(deps.counters) ?? distrustedClients.set(deps.counters, new Set()).get(deps.counters)!) : undefined;
    if (distrusted && !REQUEST_ID.test(given)) distrusted.add(address);
    else if (distrusted?.has(address)) return generateRequestId();
    if (REQUEST_ID.test(given) && !tooLong && !narrow && !leading) {
      // (The blind defect keeps the last valid client id in a variable shared by every request.)
      if (d.has('blind4-request-id-stale-when-missing')) lastClientId.set(deps.counters, given);
      // 4.0: a valid client id is echoed however often it comes (the blind6 defect takes ids for unique
      // and replaces one it has seen before).
      if (d.has('blind6-request-id-reuse-replaced')) {
        const seen = seenClientIds.get(deps.counters) ?? seenClientIds.set(deps.counters, new Set()).get(deps.counters)!;
        if (seen.has(given)) return generateRequestId();
        seen.add(given);
      }
      // 4.0: echoed unchanged (the blind defect lower-cases it).
      if (d.has('blind-request-id-lowercased')) return given.toLowerCase();
      // (Blind7 defects: a gateway prepends its hop; an id in UUID form is echoed as a 32-hex trace id.)
      if (d.has('blind7-request-id-prefixed-on-echo')) return `gw1.${given}`;
      if (d.has('blind7-request-id-uuid-dehyphenated') && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(given)) return given.replace(/-/g, '').toLowerCase();
      return d.has('request-id-truncated-64') ? given.slice(0, 64) : given;
    }
    if (d.has('request-id-invalid-echoed') && given.length > 0 && /^[\x21-\x7e]+$/.test(given)) return given;
    // 4.0: an empty id is invalid and replaced (the defect echoes it, empty).
    if (d.has('request-id-empty-echoed') && given === '') return given;
  }
  // 4.0: a request without an id gets a newly generated one (the blind defect hands out the last
  // valid client id an earlier request sent).
  const stale = sent === undefined && d.has('blind4-request-id-stale-when-missing') ? lastClientId.get(deps.counters) : undefined;
  if (stale !== undefined) return stale;
  // (The blind10 defect derives a child id from the previous id seen from the client's address.)
  const previousId = sent === undefined && d.has('blind10-generated-request-id-derived-from-previous') ? previousIds.get(deps.counters)?.get(req.socket.remoteAddress ?? '') : undefined;
  if (previousId !== undefined) return `${previousId}.1`;
  // (The blind5 defect takes a submission's Idempotency-Key, as sent, for its request id.)
  const key = req.headers['idempotency-key'];
  if (sent === undefined && req.method === 'POST' && typeof key === 'string' && key !== '' && d.has('blind5-request-id-from-idempotency-key')) return key;
  // 4.0: a generated id keeps to the pattern (the defect prefixes it with its origin and a colon).
  if (d.has('generated-request-id-prefixed')) return `req:${generateRequestId()}`;
  // 4.0: at most 128 characters (the blind defect appends a trace context, past the maximum).
  if (d.has('blind-generated-request-id-long')) return `${generateRequestId()}-${randomBytes(64).toString('hex')}`;
  // (The blind8 defect numbers its ids with a decimal sequence.)
  if (d.has('blind8-generated-request-id-numeric-in-body')) return String(1000 + (numericIds.set(deps.counters, (numericIds.get(deps.counters) ?? 0) + 1).get(deps.counters) ?? 0));
  return generateRequestId();
}

/**
 * 4.0: each request's own id (the blind9 defect keeps the id on the connection: the first request on a
 * keep-alive connection sets it, every later one on that connection gets it).
 */
function requestIdOnConnection(req: IncomingMessage, deps: Deps): string {
  const id = requestIdFor(req, deps);
  if (deps.defects.has('blind10-generated-request-id-derived-from-previous')) (previousIds.get(deps.counters) ?? previousIds.set(deps.counters, new Map()).get(deps.counters)!).set(req.socket.remoteAddress ?? '', id);
  if (!deps.defects.has('blind9-request-id-pinned-to-connection')) return id;
  const pinned = connectionRequestIds.get(req.socket);
  if (pinned !== undefined) return pinned;
  connectionRequestIds.set(req.socket, id);
  return id;
}

/** The latest request id per client address (the `blind10-generated-request-id-derived-from-previous` defect). */
const previousIds = new WeakMap<object, Map<string, string>>();
/** The request id of each connection's first request (the `blind9-request-id-pinned-to-connection` defect). */
const connectionRequestIds = new WeakMap<object, string>();
/** The application each connection authenticated as (the `blind9-auth-remembered-on-connection` defect). */
const connectionApps = new WeakMap<object, string>();
/** Until when (real time) each client named by an invalid token is locked out, per reference (the `blind9-client-blocked-after-invalid-token` defect). */
const lockouts = new WeakMap<object, Map<string, number>>();
const LOCKOUT_MS = 5000;

/** The decimal request id sequence, per reference (the `blind8-generated-request-id-numeric-in-body` defect). */
const numericIds = new WeakMap<object, number>();
/** Client addresses that sent an invalid request id, per reference (the `blind8-request-id-distrusted-after-invalid` defect). */
const distrustedClients = new WeakMap<object, Set<string>>();

/** Client ids whose valid token was seen, per reference (the `blind6-client-session-after-valid-token` defect). */
const clientSessions = new WeakMap<object, Set<string>>();
/** Client request ids already seen, per reference (the `blind6-request-id-reuse-replaced` defect). */
const seenClientIds = new WeakMap<object, Set<string>>();

/** The last valid client request id, per reference (the `blind4-request-id-stale-when-missing` defect). */
const lastClientId = new WeakMap<object, string>();

/** `%2D` as `-` (the `blind3-request-id-percent-decoded` defect); the value as sent when it does not decode. */
function percentDecoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Whether the sandbox's pace is spent: as many answers in the last second of wall time as allowed. */
function overPace(deps: Deps): boolean {
  if (deps.ratePerSecond === null) return false;
  const window = deps.counters.pace;
  const now = Date.now();
  while (window.length > 0 && now - window[0]! >= 1000) window.shift();
  if (window.length >= deps.ratePerSecond) return true;
  window.push(now);
  return false;
}

/**
 * 5: the Bearer scheme's token, or undefined. One defect takes the token under any scheme; another
 * reads the second space-separated part of a Bearer header unguarded, which throws for a bare `Bearer`.
 */
function bearerOf(authorization: string, d: Deps['defects']): string | undefined {
  if (d.has('bare-bearer-500') && /^Bearer\b/i.test(authorization)) return authorization.split(' ')[1]!.trim() || undefined;
  // (The blind5 defect takes the second space-separated part, whatever follows it.)
  if (d.has('blind5-bearer-extra-parts-accepted') && /^Bearer +\S/i.test(authorization)) return authorization.split(/ +/)[1];
  // RFC 9110 11.1: the scheme name is case-insensitive (the blind defect wants it written Bearer).
  if (d.has('blind-lowercase-bearer-refused') && !authorization.startsWith('Bearer ')) return undefined;
  // (The defect's scheme table is keyed by the exact name: Bearer in another case finds no entry and throws.)
  if (d.has('bearer-scheme-case-500') && /^bearer\b/i.test(authorization) && !authorization.startsWith('Bearer')) throw new TypeError('no handler for scheme');
  return (d.has('any-scheme-token-accepted') ? ANY_SCHEME : BEARER).exec(authorization)?.[1];
}
const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;
const ANY_SCHEME = /^\S+[ ]+([^\s]+)\s*$/;

/** The `blind-basic-credentials-accepted` defect: a client's Basic id and secret taken as authentication. */
function basicClaims(deps: Deps, authorization: string): { clientId: string; exp: number } | undefined {
  const m = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const app = deps.store.application(decodeURIComponent(decoded.slice(0, colon)));
    const secret = decodeURIComponent(decoded.slice(colon + 1));
    return app && app.clientSecret === secret ? { clientId: app.clientId, exp: Math.floor(Date.now() / 1000) + 60 } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `blind-alg-none-token-accepted` defect: an unsigned JWT (header alg none) is read as if
 * verified, as long as its audience and expiry look right.
 */
function unsignedClaims(token: string): { clientId: string; exp: number } | undefined {
  try {
    if (decodeProtectedHeader(token).alg !== 'none') return undefined;
    const { sub, aud, exp } = decodeJwt(token);
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (typeof sub !== 'string' || typeof exp !== 'number' || exp * 1000 <= Date.now() || !audiences.includes('service-external-api')) return undefined;
    return { clientId: sub, exp };
  } catch {
    return undefined;
  }
}

/** The client id a JWT names, read without verifying it (the `grant-before-signature` defect). */
function unverifiedClientId(token: string): string | undefined {
  try {
    const sub = decodeJwt(token).sub;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}

export function createApiServer(deps: Deps): Server {
  return createServer((req, res) => {
    handle(deps, req, res).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end();
      } else res.destroy();
    });
  });
}

async function handle(deps: Deps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const d = deps.defects;
  const rawUrl = req.url ?? '/';
  const q = rawUrl.indexOf('?');
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const query = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
  const call = new Call(deps, req, res, requestIdOnConnection(req, deps), path, query);
  const method = req.method ?? 'GET';
  // RFC 9110 6.6.1: the Date of an answer is the origin's clock, which is business time here
  // (the control origin moves it), so the times a body shows never lead it.
  res.setHeader('Date', new Date(deps.clock.now()).toUTCString());
  try {
    if (overPace(deps)) {
      // A sandbox's pace (serve --rate-limit): every caller together, before anything else.
      req.resume();
      // 7: Retry-After in whole seconds or an HTTP date (the blind5 defect gives the exact time left, fractional).
      // (The blind9 defect writes it in milliseconds.)
      const paceLeft = d.has('blind5-retry-after-fractional') ? ((1000 - (Date.now() - (deps.counters.pace[0] ?? Date.now()))) / 1000).toFixed(3) : d.has('blind9-retry-after-milliseconds') ? '1000' : '1';
      return call.problem('rate_limit_exceeded', 'Too many requests; retry later.', { headers: { 'Retry-After': paceLeft } });
    }
    let body = { text: '', tooLarge: false };
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') body = await readBody(req);
    else req.resume();
    // 4.0: path ids are UUIDv7 (the blind defect strips a format suffix such as .json first).
    const routed = d.has('blind-path-id-format-suffix') ? path.replace(/\.json$/, '') : path;
    const operation = route(method, routed, d.has('batches-path-alias'));
    const authorization = req.headers.authorization;

    // 4.0: an invalid X-Request-Id is replaced, never refused (the defect validates it like any input).
    const givenId = req.headers['x-request-id'];
    if (d.has('invalid-request-id-refused') && typeof givenId === 'string' && givenId !== call.requestId) {
      return call.validationFailed('The X-Request-Id header is invalid.', [{ pointer: 'X-Request-Id', code: 'field_invalid' }]);
    }
    // 9.4: there is no /sms/batches (the defect keeps a retired listing route mounted ahead of authentication).
    if (d.has('batches-path-public') && method === 'GET' && /^\/v1\/businesses\/[^/]+\/sms\/batches\/?$/.test(path)) {
      return call.json(200, { data: [] });
    }
    // 5.8: a submission without a token is 401 too (the defect's write guard answers 403 first).
    if (!authorization && d.has('submission-without-token-403') && method === 'POST') {
      return call.problem('permission_denied', 'Write operations need credentials.');
    }

    // 5.6: the token comes first (the defect looks a bulk up before it, for a request without one).
    if (!authorization && d.has('unknown-bulk-before-auth') && operation?.op === 'getBulk' && !deps.store.bulk(operation.id)) {
      return call.problem('resource_not_found', 'No bulk SMS message with this id exists for this business.');
    }
    if (!authorization && d.has('not-found-before-auth') && operation && !deps.store.business(operation.business)) {
      return call.problem('resource_not_found', 'No such business.');
    }
    // 5.6 step 1 / 5.8: authentication first, unknown paths included (the blind defect's router answers
    // a path it does not know before the token is looked at).
    if (!operation && authorization && d.has('blind3-unknown-path-invalid-token-404')) {
      return call.problem('resource_not_found', 'No operation exists at this path.');
    }
    // 4: every operation needs a bearer token (the blind defect's framework answers HEAD on the wallet
    // path itself, before the authentication step, with the headers of an empty 200).
    if (method === 'HEAD' && d.has('blind3-head-skips-auth') && route('GET', routed)?.op === 'getWallet') {
      return call.json(200, {});
    }
    // 5.4: every operation needs a bearer token (the blind defect mounts deactivation ahead of authentication).
    if (!authorization && d.has('blind-delete-skips-authentication') && operation?.op === 'deactivateWebhook') {
      return deactivateWebhookEndpoint(call, operation.business, operation.id);
    }
    if (!authorization && d.has('validation-before-auth') && operation?.op === 'createBulk') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.text);
      } catch {
        return call.validationFailed('The request body is not valid JSON.', [{ pointer: '', code: 'field_invalid' }]);
      }
      const errors = validateBulkBody(parsed, d);
      if (errors.length > 0) return call.validationFailed('The request body is invalid.', errors);
    }

    // 5.6 step 1 / 5.8: authentication first (the blind10 defect's refusal cache, keyed by business, answers before it).
    if (!authorization && operation && d.has('blind10-grant-refusal-cached-before-auth') && refusedBusinesses.get(deps.counters)?.has(operation.business)) {
      return call.problem('permission_denied', 'The application has no active grant for this business.');
    }
    // 4 / 5.4: every operation needs a token (the blind6 defect's idempotency middleware, mounted
    // first, replays a used key by business and key alone).
    const replayKey = req.headers['idempotency-key'];
    if (!authorization && operation?.op === 'createBulk' && typeof replayKey === 'string' && d.has('blind6-replay-served-before-auth')) {
      const stored = replayByBusinessKey(deps.store, operation.business, replayKey);
      if (stored) return call.raw(stored.status, stored.body, { Location: stored.location });
    }
    // 4 / 5.4: reads need a token too (the blind7 defect serves a bulk it accepted through a public status route).
    if (!authorization && operation?.op === 'getBulk' && d.has('blind7-fresh-bulk-readable-without-token')) {
      const accepted = deps.store.bulk(operation.id);
      if (accepted && acceptedHere.has(accepted)) return call.json(200, renderBulk(call, accepted));
    }
    // 5.6 step 1 / 5.8: authentication before the query is judged (the blind defect's listing
    // validates its page size first, so a call without a token learns of a bad size).
    const pageSize = query.get('limit');
    if (d.has('blind4-listing-query-validated-before-auth') && operation?.op === 'listRecipients' && pageSize !== null && !(/^\d{1,7}$/.test(pageSize) && Number(pageSize) >= 1 && Number(pageSize) <= 1000)) {
      return call.validationFailed('limit must be an integer from 1 to 1000.', [{ pointer: 'limit', code: 'field_invalid' }]);
    }

    // 5.6 step 1 / 5.8: authentication before anything else, unknown paths included.
    // 5.4: the token travels in the Authorization header only (the blind defect also reads an
    // RFC 6750 access_token query parameter).
    const queryToken = d.has('blind-token-in-query-accepted') && !authorization ? (query.get('access_token') ?? undefined) : undefined;
    const bearer = typeof authorization === 'string' ? bearerOf(authorization, d) : queryToken;
    // 5.8: a header that carries no Bearer token is invalid authentication, 401 (the blind8 defect's
    // header validator refuses it as a malformed request).
    if (typeof authorization === 'string' && bearer === undefined && d.has('blind8-malformed-authorization-400')) {
      return call.validationFailed('The Authorization header is malformed.', [{ pointer: 'Authorization', code: 'field_invalid' }]);
    }
    let claims = bearer ? await deps.tokens.verify(bearer) : undefined;
    // 5.4: only Bearer authenticates (the blind defect also takes the client's Basic credentials).
    if (!claims && typeof authorization === 'string' && d.has('blind-basic-credentials-accepted')) claims = basicClaims(deps, authorization);
    // 5.8: a token that is not validly signed is invalid (the blind defect takes an unsigned one).
    if (!claims && bearer && d.has('blind-alg-none-token-accepted')) claims = unsignedClaims(bearer);
    // 5.6: the token is validated before the grant (the defect checks the grant of the token's
    // unverified client first, so an invalid token on a business without grant gets 403).
    if (!claims && bearer && operation && d.has('grant-before-signature')) {
      const app = deps.store.application(unverifiedClientId(bearer) ?? '');
      if (app && !app.grants.some((g) => g.businessId === operation.business && g.active)) {
        return call.problem('permission_denied', 'The application has no active grant for this business.');
      }
    }
    if (!claims && bearer && (d.has('expired-token-accepted') || d.has('wrong-audience-accepted'))) {
      claims = await deps.tokens.verifyIgnoring(bearer, { expiry: d.has('expired-token-accepted'), audience: d.has('wrong-audience-accepted') });
    }
    // 5.8: an expired token is invalid (the blind5 defect judges expiry with a 15-minute tolerance).
    if (!claims && bearer && d.has('blind5-expired-token-leeway')) {
      const late = await deps.tokens.verifyIgnoring(bearer, { expiry: true });
      if (late && late.exp * 1000 > Date.now() - 15 * 60_000) claims = late;
    }
    // 5.8: an expired or tampered token is invalid on every operation (the blind defect's deactivation
    // route decodes the JWT without verifying it).
    if (!claims && bearer && operation?.op === 'deactivateWebhook' && d.has('blind4-delete-token-decoded-unverified')) {
      const sub = unverifiedClientId(bearer);
      if (sub) claims = { clientId: sub, exp: Math.floor(Date.now() / 1000) + 60 };
    }
    // 5.8: every token is verified on its own (the blind6 defect keeps a session per client id once a
    // valid token was seen, and lets any later token naming that client ride on it).
    if (d.has('blind6-client-session-after-valid-token')) {
      const sessions = clientSessions.get(deps.counters) ?? clientSessions.set(deps.counters, new Set()).get(deps.counters)!;
      if (claims) sessions.add(claims.clientId);
      else if (bearer && sessions.has(unverifiedClientId(bearer) ?? '')) claims = { clientId: unverifiedClientId(bearer)!, exp: Math.floor(Date.now() / 1000) + 60 };
    }
    // 5.8: a valid token authenticates whatever came before (the blind9 defect's brute-force guard locks out,
    // for a few seconds, the client an invalid token names).
    if (d.has('blind9-client-blocked-after-invalid-token')) {
      const locked = lockouts.get(deps.counters) ?? lockouts.set(deps.counters, new Map()).get(deps.counters)!;
      const named = !claims && bearer ? unverifiedClientId(bearer) : undefined;
      if (named) locked.set(named, Date.now() + LOCKOUT_MS);
      else if (claims && (locked.get(claims.clientId) ?? 0) > Date.now()) claims = undefined;
    }
    // 5.4: every request carries its own token (the blind9 defect keeps the application on the connection).
    if (d.has('blind9-auth-remembered-on-connection')) {
      const remembered = connectionApps.get(req.socket);
      if (claims) connectionApps.set(req.socket, claims.clientId);
      else if (authorization === undefined && remembered !== undefined) claims = { clientId: remembered, exp: Math.floor(Date.now() / 1000) + 60 };
    }
    call.app = claims ? deps.store.application(claims.clientId) : undefined;
    // 5.4: every operation needs a token (the blind5 defect takes a listing's signed cursor as proof of access).
    const cursorText = query.get('cursor');
    if (!authorization && operation?.op === 'listRecipients' && cursorText && d.has('blind5-listing-cursor-skips-auth') && deps.cursors.decode(cursorText).ok) {
      return listRecipients(call, operation.business, operation.id);
    }
    if (!call.app) {
      if (!authorization && d.has('missing-token-403')) return call.problem('permission_denied', 'Access denied.');
      // 5.8: an invalid token is 401 (the defect's wallet guard refuses it as a missing permission).
      if (bearer && operation?.op === 'getWallet' && d.has('invalid-token-wallet-403')) return call.problem('permission_denied', 'The token does not carry wallet.balance.read.');
      // 7: an unknown path is a client fault, never a 5xx (the defect builds the challenge from the operation it lacks).
      if (!operation && d.has('unknown-path-unauthenticated-500')) throw new Error('no operation to challenge for');
      // RFC 6750 section 3: the challenge names the scheme.
      const challenge = bearer ? 'Bearer realm="service-external-api", error="invalid_token"' : 'Bearer realm="service-external-api"';
      // 7: the detail carries no secret (the blind defect names the token it refused).
      const detail = bearer && d.has('blind-401-detail-echoes-token') ? `The bearer access token ${bearer} is not valid.` : 'A valid bearer access token is required.';
      // 7: the 401 is a problem too (the blind8 defect's authentication layer writes the RFC 6750 error body).
      if (d.has('blind8-401-oauth-error-body')) {
        return writeJson(res, 401, { error: bearer ? 'invalid_token' : 'invalid_request', error_description: detail }, PROBLEM_MEDIA_TYPE, { 'X-Request-Id': call.requestId, 'WWW-Authenticate': challenge });
      }
      return call.problem('authentication_required', detail, { headers: { 'WWW-Authenticate': challenge } });
    }

    // 7 / 8: a rate limit per application; its value is not in the document (set via control).
    const limit = deps.faults.rateLimitPerMinute;
    if (limit !== null) {
      const now = deps.clock.now();
      const window = deps.counters.rate.get(call.app.clientId);
      if (!window || now - window.windowStart >= RATE_WINDOW_MS) deps.counters.rate.set(call.app.clientId, { windowStart: now, count: 1 });
      else if (++window.count > limit) {
        const left = (window.windowStart + RATE_WINDOW_MS - now) / 1000;
        // (The blind9 defect writes the seconds left in milliseconds.)
        // (The blind10 defect writes the end of the window as an ISO 8601 timestamp.)
        const retryAfter = d.has('blind10-retry-after-iso-timestamp') ? new Date(now + Math.max(1, Math.ceil(left)) * 1000).toISOString() : d.has('blind5-retry-after-fractional') ? left.toFixed(3) : d.has('blind9-retry-after-milliseconds') ? Math.max(1, Math.ceil(left)) * 1000 : Math.max(1, Math.ceil(left));
        const headers: Record<string, string> = d.has('rate-limit-without-retry-after') ? {} : { 'Retry-After': String(retryAfter) };
        return call.problem('rate_limit_exceeded', 'Too many requests for this application; retry later.', { headers });
      }
    }
    if (deps.faults.serviceUnavailable) {
      return call.problem('service_unavailable', 'The service is temporarily unavailable.', { headers: { 'Retry-After': '5' } });
    }
    if (deps.faults.internalError) throw new Error('simulated internal failure');
    // 7: a header the caller got wrong is no server fault (the blind defect's serialiser picker
    // throws for an Accept header that asks for XML).
    if (d.has('blind-accept-xml-500') && /\bapplication\/xml\b/.test(req.headers.accept ?? '')) throw new Error('no serialiser for application/xml');

    // 7: a method a path does not take is the caller's fault (the blind defect's router throws
    // looking for a handler of that method).
    if (!operation && d.has('blind4-other-method-500') && ['GET', 'POST', 'DELETE'].some((m) => m !== method && route(m, routed))) {
      throw new Error(`no ${method} handler for this path`);
    }
    if (!operation) {
      // 4: every response has X-Request-Id (the blind defect's fallback handler sends none).
      if (d.has('blind-unknown-path-no-request-id')) {
        return writeJson(res, 404, buildProblem('resource_not_found', 'No operation exists at this path.', call.requestId), PROBLEM_MEDIA_TYPE);
      }
      return call.problem('resource_not_found', 'No operation exists at this path.');
    }
    // 8: the body holds up to 1000 recipients (the blind defect keeps a body parser's 100 KB default).
    if (d.has('blind-body-limit-100kb') && Buffer.byteLength(body.text) > 100 * 1024) {
      return call.validationFailed('The request body is too large.', [{ pointer: '', code: 'field_invalid' }]);
    }
    if (body.tooLarge) return call.validationFailed('The request body is too large.', [{ pointer: '', code: 'field_invalid' }]);
    // 4.0: path ids are UUIDv7; one of another shape is simply not found (4xx). The defect reads it
    // as a UUIDv7 unchecked, which throws.
    if (d.has('path-id-shape-500') && 'id' in operation && !UUID_V7.test(operation.id)) throw new Error(`not a UUIDv7: ${operation.id}`);
    switch (operation.op) {
      case 'createBulk':
        return createBulk(call, operation.business, body.text);
      case 'getBulk':
        return getBulk(call, operation.business, operation.id);
      case 'listRecipients':
        // 4.3: the rows are listed under the bulk's path ending /messages; the defect answers the bulk itself there.
        if (d.has('rows-path-serves-bulk')) return getBulk(call, operation.business, operation.id);
        return listRecipients(call, operation.business, operation.id);
      case 'getMessage':
        return getMessage(call, operation.business, operation.id);
      case 'getWallet':
        return getWallet(call, operation.business);
      case 'deactivateWebhook':
        return deactivateWebhookEndpoint(call, operation.business, operation.id);
    }
  } catch (error) {
    // 7: internal_error, with no stack or secret in the detail.
    if (!res.headersSent) {
      if (d.has('internal-error-as-service-unavailable')) {
        return call.problem('service_unavailable', 'The service is temporarily unavailable.', { status: 500, headers: { 'Retry-After': '5' } });
      }
      const stack = d.has('internal-error-stack-in-detail') && error instanceof Error ? error.stack : undefined;
      return call.problem('internal_error', stack ?? 'An unexpected error occurred.');
    }
    res.destroy();
  }
}
