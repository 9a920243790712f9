// Every exchange read once into what the rules look at: the operation it is, its parsed bodies,
// the credentials it carried (as kinds and an application identity, never as values) and whether
// it is the host's pacing (429/503), which no rule judges as a violation.
import { hash } from 'node:crypto';
import type { Fixtures, ListingParamNames } from '../core/model.ts';
import type { SecretSet } from '../harness/redact.ts';
import { isCut, jsonOf, type TrafficExchange } from './model.ts';
import { operationOf, parseUrl, tokenRequestOf, type MatchedOperation, type ParsedUrl } from './operations.ts';

export type AuthKind = 'none' | 'bearer' | 'basic' | 'other';

export interface Observed {
  ex: TrafficExchange;
  op?: MatchedOperation;
  /** The request URL parsed once (undefined when it is no URL). */
  url?: ParsedUrl;
  /** The bearer token sent, when its value was recorded (not redacted). */
  bearer?: string;
  /** Under `/v1/` but no documented operation. */
  unknownApiPath: boolean;
  tokenRequest: boolean;
  status: number;
  /** Response JSON (undefined when absent, cut or not JSON). */
  json: unknown;
  /** The response body is there in full (not cut by the recorder). */
  responseKnown: boolean;
  requestJson: unknown;
  requestKnown: boolean;
  /** 429 or 503: the host pacing its callers or briefly away; never judged as a violation. */
  pacing: boolean;
  auth: AuthKind;
  /** The bearer token's value was recorded (not redacted), so its validity is unknown but it is real. */
  bearerRecorded: boolean;
  /** Who called, when the token tells (a JWT's subject, else a fingerprint of the token). */
  app?: string;
  /** Audience and expiry of a bearer JWT, read without verifying it (the server verifies). */
  claims?: { aud?: unknown; exp?: number };
  /** The X-Request-Id sent, when one was. */
  sentRequestId?: string;
  returnedRequestId?: string;
}

export interface JudgeContext {
  fixtures: Fixtures;
  params: ListingParamNames;
  secrets: SecretSet;
  /** The audience API tokens must carry (CONFORMANCE_AUDIENCE). */
  audience: string;
  /** The application without wallet.balance.read (CONFORMANCE_LIMITED_CLIENT_ID), as an `app` value. */
  limitedApp?: string;
}

/** The `app` value of an application's JWTs, from its client id. */
export const appIdFor = (clientId: string) => `app:${hash('sha256', clientId, 'hex').slice(0, 16)}`;

const REDACTED = '<redacted>';

/** What a bearer token tells without verifying it: its application and a JWT's audience and expiry. */
interface TokenFacts {
  app: string | undefined;
  claims: Observed['claims'];
}

/**
 * A traffic carries few tokens, each on many exchanges: what each tells is read once (decoding a
 * JWT and hashing it for every exchange was a tenth of the judge's time). Bounded: cleared when full.
 */
const tokenFacts = new Map<string, TokenFacts>();
const TOKEN_FACTS_LIMIT = 1024;

function factsOf(token: string): TokenFacts {
  let facts = tokenFacts.get(token);
  if (facts) return facts;
  facts = readToken(token);
  if (tokenFacts.size >= TOKEN_FACTS_LIMIT) tokenFacts.clear();
  tokenFacts.set(token, facts);
  return facts;
}

function readToken(token: string): TokenFacts {
  if (!token || token.includes(REDACTED)) return { app: undefined, claims: undefined };
  const parts = token.split('.');
  let claims: Record<string, unknown> | undefined;
  if (parts.length === 3) {
    try {
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      // Not a JWT after all: the token's fingerprint stands for its application.
    }
  }
  const id = claims ? (claims.client_id ?? claims.azp ?? claims.sub) : undefined;
  const app = typeof id === 'string' && id ? appIdFor(id) : `token:${hash('sha256', token, 'hex').slice(0, 16)}`;
  const read = claims !== null && claims !== undefined ? { aud: claims.aud, ...(typeof claims.exp === 'number' ? { exp: claims.exp } : {}) } : undefined;
  return { app, claims: read };
}

/** An exchange's URL parsed and matched to its operation (shared, read-only, by every exchange with that method and URL). */
interface Located {
  url: ParsedUrl | undefined;
  op: MatchedOperation | undefined;
}

/**
 * A traffic calls the same URLs again and again (a bulk polled until it settles, a balance read,
 * pages listed again): each method and URL is parsed and matched once (a WHATWG URL parse and
 * the operation's patterns were a tenth of the judge's time). Bounded: cleared when full.
 */
const located = new Map<string, Located>();
const LOCATED_LIMIT = 1024;

function locate(method: string, url: string): Located {
  const key = `${method} ${url}`;
  let found = located.get(key);
  if (found) return found;
  const parsed = parseUrl(url);
  found = { url: parsed, op: parsed ? operationOf(method, parsed) : undefined };
  if (located.size >= LOCATED_LIMIT) located.clear();
  located.set(key, found);
  return found;
}

const BEARER = /^\s*Bearer(\s|$)/i;
const BASIC = /^\s*Basic\s/i;

export function observe(ex: TrafficExchange): Observed {
  const { method, url, headers, body } = ex.request;
  const authorization = headers['authorization'];
  const scheme: AuthKind = authorization === undefined ? 'none' : BEARER.test(authorization) ? 'bearer' : BASIC.test(authorization) ? 'basic' : 'other';
  const token = scheme === 'bearer' ? authorization!.replace(/^\s*Bearer\s*/i, '').trim() : '';
  const { url: parsed, op } = locate(method, url);
  const status = ex.response.status;
  const facts = scheme === 'bearer' ? factsOf(token) : undefined;
  const recorded = scheme === 'bearer' && token !== '' && !token.includes(REDACTED);
  // Every member is set (undefined where absent), so every Observed has one shape for the rules' reads.
  return {
    ex,
    op,
    url: parsed,
    bearer: recorded ? token : undefined,
    unknownApiPath: !op && parsed?.apiPath !== undefined,
    tokenRequest: tokenRequestOf(method, parsed, body),
    status,
    json: jsonOf(ex.response.body),
    responseKnown: !isCut(ex.response.body) && ex.response.bodyNotRecorded !== true,
    requestJson: jsonOf(body),
    requestKnown: !isCut(body),
    pacing: status === 429 || status === 503,
    auth: scheme,
    bearerRecorded: recorded,
    // A redacted token tells nothing; the recorder's fingerprint of it still tells callers apart.
    app: facts?.app ?? (scheme === 'bearer' ? ex.caller : undefined),
    claims: facts?.claims,
    sentRequestId: headers['x-request-id'],
    returnedRequestId: ex.response.headers['x-request-id'],
  };
}

/**
 * An exchange a rule holds beyond its own turn (for evidence, or to compare a later one with):
 * without its parsed request body, and without its parsed answer unless `answer` asks for it.
 * Thousands are held at once; the parsed bodies were most of their weight (and of the garbage
 * collector's work as they were replaced). The recorded text stays, so evidence is unchanged.
 */
export function kept(o: Observed, answer = false): Observed {
  return { ...o, json: answer ? o.json : undefined, requestJson: undefined };
}

/** An exchange held for a verdict's evidence only: `o` is let go past its hold's length, `source` stays. */
export interface Held {
  o: Observed | undefined;
  source: string;
}

/**
 * Evidence held in one queue of a fixed length, for state kept per key for long (thousands of keys,
 * each naming exchanges only its evidence shows): its memory is the hold's, not the keys'. Which
 * exchanges stay depends only on the order they were held in.
 */
export class EvidenceHold {
  /** A ring: the slot written next holds the oldest. */
  private readonly ring: Array<Held | undefined>;
  private next = 0;
  constructor(limit: number) {
    this.ring = new Array<Held | undefined>(limit).fill(undefined);
  }

  hold(o: Observed): Held {
    const held: Held = { o: kept(o), source: o.ex.source };
    const oldest = this.ring[this.next];
    if (oldest) oldest.o = undefined;
    this.ring[this.next] = held;
    this.next = (this.next + 1) % this.ring.length;
    return held;
  }
}

/** A JSON object's members, or undefined. */
export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The problem code of a response body, if it has one. */
export function codeOf(o: Observed): string | undefined {
  const code = objectOf(o.json)?.code;
  return typeof code === 'string' ? code : undefined;
}

export const describe = (o: Observed) => `${o.status}${codeOf(o) ? ` ${codeOf(o)}` : ''}`;

export function fingerprint(text: string): string {
  return hash('sha256', text, 'hex').slice(0, 16);
}
