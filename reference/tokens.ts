// Access tokens: signed JWTs (jose, HS256 with a key generated once per start).
// Expiry is judged against real time, not the business clock: suites jump the business clock by
// days (cursor lifetime, idempotency window) and must keep their tokens. Expired tokens for tests
// are minted on purpose through the control origin instead.
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { ActiveDefects } from './defects.ts';

export const AUDIENCE = 'service-external-api';
export const TOKEN_LIFETIME_S = 3600;

export interface TokenClaims {
  clientId: string;
  /** Seconds since the epoch (real time). */
  exp: number;
}

export type TokenKind = 'valid' | 'expired' | 'wrong-audience';

/** How a token is signed: with the key the API verifies, or (a defect) with the next key, not yet published. */
export type SigningKey = 'current' | 'next';

export interface TokenService {
  issue(clientId: string, kind?: TokenKind, signingKey?: SigningKey): Promise<{ token: string; expiresIn: number }>;
  /** The claims of a token that is well signed, for the right audience and not expired; else undefined. */
  verify(token: string): Promise<TokenClaims | undefined>;
  /** Accepts any token this issuer signed, whatever its audience or expiry (defects only). */
  verifyIgnoring(token: string, what: { audience?: boolean; expiry?: boolean }): Promise<TokenClaims | undefined>;
}

export function createTokenService(issuer: string, defects: ActiveDefects = new Set()): TokenService {
  const key = new Uint8Array(randomBytes(32));
  const nextKey = new Uint8Array(randomBytes(32));
  // 5.3: tokens are issued for, and accepted only for, service-external-api (the defect uses a URL form).
  const ownAudience = defects.has('token-audience-url') ? `https://${AUDIENCE}` : AUDIENCE;
  // Verified tokens are cached so an authenticated request costs one map lookup (throughput).
  const cache = new Map<string, TokenClaims>();

  async function check(token: string, audience: string | undefined, expiry: boolean): Promise<TokenClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, key, {
        issuer,
        algorithms: ['HS256'],
        ...(audience ? { audience } : {}),
        ...(expiry ? {} : { currentDate: new Date(0) }),
      });
      if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return undefined;
      return { clientId: payload.sub, exp: payload.exp };
    } catch {
      return undefined;
    }
  }

  return {
    async issue(clientId, kind = 'valid', signingKey = 'current') {
      const nowS = Math.floor(Date.now() / 1000);
      const exp = kind === 'expired' ? nowS - 600 : nowS + TOKEN_LIFETIME_S;
      const iat = kind === 'expired' ? exp - TOKEN_LIFETIME_S : nowS;
      const token = await new SignJWT({ client_id: clientId })
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setIssuer(issuer)
        .setSubject(clientId)
        .setAudience(kind === 'wrong-audience' ? 'some-other-api' : ownAudience)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .setJti(randomUUID())
        .sign(signingKey === 'next' ? nextKey : key);
      return { token, expiresIn: Math.max(0, exp - nowS) };
    },
    async verify(token) {
      const nowS = Date.now() / 1000;
      const hit = cache.get(token);
      if (hit) {
        if (hit.exp > nowS) return hit;
        cache.delete(token);
        return undefined;
      }
      const claims = await check(token, ownAudience, true);
      if (claims) {
        if (cache.size > 10_000) cache.clear();
        cache.set(token, claims);
      }
      return claims;
    },
    verifyIgnoring(token, what) {
      return check(token, what.audience ? undefined : ownAudience, !what.expiry);
    },
  };
}
