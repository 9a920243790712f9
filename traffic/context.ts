// Every exchange read once into what the rules look at: the operation it is, its parsed bodies,
// the credentials it carried (as kinds and an application identity, never as values) and whether
// it is the host's pacing (429/503), which no rule judges as a violation.
import { createHash } from 'node:crypto';
import type { Fixtures, ListingParamNames } from '../core/model.ts';
import type { SecretSet } from '../harness/redact.ts';
import { isCut, jsonOf, type TrafficExchange } from './model.ts';
import { isTokenRequest, isUnknownApiPath, matchOperation, type MatchedOperation } from './operations.ts';

export type AuthKind = 'none' | 'bearer' | 'basic' | 'other';

export interface Observed {
  ex: TrafficExchange;
  op?: MatchedOperation;
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
export const appIdFor = (clientId: string) => `app:${createHash('sha256').update(clientId).digest('hex').slice(0, 16)}`;

function claimsOf(token: string): Observed['claims'] {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    return { aud: claims.aud, ...(typeof claims.exp === 'number' ? { exp: claims.exp } : {}) };
  } catch {
    return undefined;
  }
}

const REDACTED = '<redacted>';

function appOf(token: string): string | undefined {
  if (!token || token.includes(REDACTED)) return undefined;
  const parts = token.split('.');
  if (parts.length === 3) {
    try {
      const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      const id = claims.client_id ?? claims.azp ?? claims.sub;
      if (typeof id === 'string' && id) return appIdFor(id);
    } catch {
      // Not a JWT after all: the token's fingerprint stands for its application.
    }
  }
  return `token:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}

export function observe(ex: TrafficExchange): Observed {
  const { method, url, headers, body } = ex.request;
  const authorization = headers['authorization'];
  const scheme = authorization === undefined ? 'none' : /^\s*Bearer(\s|$)/i.test(authorization) ? 'bearer' : /^\s*Basic\s/i.test(authorization) ? 'basic' : 'other';
  const token = scheme === 'bearer' ? authorization!.replace(/^\s*Bearer\s*/i, '').trim() : '';
  const op = matchOperation(method, url);
  const status = ex.response.status;
  const app = scheme === 'bearer' ? appOf(token) : undefined;
  const claims = scheme === 'bearer' && !token.includes(REDACTED) ? claimsOf(token) : undefined;
  return {
    ex,
    ...(op ? { op } : {}),
    unknownApiPath: !op && isUnknownApiPath(method, url),
    tokenRequest: isTokenRequest(method, url, body),
    status,
    json: jsonOf(ex.response.body),
    responseKnown: !isCut(ex.response.body) && ex.response.bodyNotRecorded !== true,
    requestJson: jsonOf(body),
    requestKnown: !isCut(body),
    pacing: status === 429 || status === 503,
    auth: scheme,
    bearerRecorded: scheme === 'bearer' && token !== '' && !token.includes(REDACTED),
    ...(app ? { app } : {}),
    ...(claims ? { claims } : {}),
    ...(headers['x-request-id'] !== undefined ? { sentRequestId: headers['x-request-id'] } : {}),
    ...(ex.response.headers['x-request-id'] !== undefined ? { returnedRequestId: ex.response.headers['x-request-id'] } : {}),
  };
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
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
