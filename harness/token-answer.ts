// What a token endpoint's answer to a client-credentials request means for the run: a token and
// its lifetime, or the one HarnessError that tells the user what to fix (the URL, the credentials,
// the audience), never an echo of a secret.
import type { AppName } from './client.ts';
import { HarnessError } from './errors.ts';
import { DEFAULT_TOKEN_LIFETIME_S, type ObtainedToken } from './token-cache.ts';
import type { RawResult } from './transport.ts';

export interface TokenRequestAbout {
  app: AppName;
  /** The variable that names the application's client id, for messages. */
  idVariable: string;
  tokenUrl: string;
  audience: string;
  redact: (text: string) => string;
}

export function tokenFromAnswer(raw: RawResult, json: unknown, about: TokenRequestAbout): ObtainedToken {
  const { redact } = about;
  if (raw.transportError !== undefined) {
    throw new HarnessError('TOKEN_ENDPOINT_UNREACHABLE', `token endpoint ${redact(about.tokenUrl)} unreachable: ${redact(raw.transportError)}`);
  }
  const body = (json ?? {}) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
  // A redirect, a 404/405, or a refusal that is no JSON (RFC 6749 5.2 answers JSON) means the URL
  // is not a token endpoint at all: that, not the credentials, is what the user must fix.
  const jsonAnswer = /json/i.test(raw.headers['content-type'] ?? '') && json !== undefined;
  if ((raw.status >= 300 && raw.status < 400) || raw.status === 404 || raw.status === 405 || (raw.status >= 200 && raw.status < 500 && !jsonAnswer)) {
    const type = raw.headers['content-type']?.split(';')[0]?.trim() || 'no content type';
    const answer = raw.status >= 300 && raw.status < 400 ? `a redirect (HTTP ${raw.status})` : `HTTP ${raw.status} ${type}`;
    throw new HarnessError('TARGET_MISCONFIGURED', `CONFORMANCE_TOKEN_URL ${redact(about.tokenUrl)} is probably not a token endpoint: it answered ${answer} to a client-credentials request`);
  }
  if (raw.status === 400 || raw.status === 401 || raw.status === 403) {
    const why = typeof body.error === 'string' ? ` (${redact(body.error)})` : '';
    // RFC 8707 / 6749: the audience (resource) asked for, not the client, was refused.
    const refused = body.error === 'invalid_target' || body.error === 'invalid_scope' ? `the audience ${JSON.stringify(about.audience)} (CONFORMANCE_AUDIENCE)` : `the ${about.app} application's credentials (${about.idVariable})`;
    throw new HarnessError('CREDENTIALS_REFUSED', `the token endpoint refused ${refused}: HTTP ${raw.status}${why}`);
  }
  if (raw.status < 200 || raw.status >= 300 || typeof body.access_token !== 'string' || !body.access_token) {
    // It answered, so it is reachable: say what it answered.
    const answer = raw.status < 200 || raw.status >= 300 ? `answered HTTP ${raw.status}` : 'answered 200 without an access_token in a JSON body';
    throw new HarnessError('TOKEN_ENDPOINT_UNREACHABLE', `token endpoint ${redact(about.tokenUrl)} ${answer}: no access token could be obtained`);
  }
  const lifetimeS = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : DEFAULT_TOKEN_LIFETIME_S;
  return { token: body.access_token, lifetimeS };
}
