// Authentication as traffic shows it (section 5): a request to an operation without a usable
// bearer token (none, another scheme, the fixture's expired token) is answered 401
// authentication_required, never 2xx; an unknown path never gets a 2xx or a 5xx.
import { codeOf, describe, type JudgeContext, type Observed } from '../context.ts';
import type { CheckDef, Reducer, Verdicts } from '../verdicts.ts';
import { requestDefects } from './request-validity.ts';

const MISSING = 'traffic/auth-ordering/no-usable-token-401';
const UNKNOWN = 'traffic/auth-ordering/unknown-path';

export const checks: CheckDef[] = [
  { id: MISSING, topic: 'auth-ordering', title: 'a request to an operation without a usable bearer token (none, another scheme, an expired JWT or the fixture\'s expired token, a JWT for another audience, a credential of more parts than the token) gets 401 authentication_required, before any other check', requirements: ['AUTH-401-MISSING', 'AUTH-BEARER', 'AUTH-ALL-OPERATIONS', 'AUTH-401-FIRST', 'AUTH-401-INVALID', 'AUTH-AUDIENCE', 'AUTH-401-BEFORE-VALIDATION'] },
  { id: UNKNOWN, topic: 'auth-ordering', title: 'a path under /v1 that is no operation is never answered 2xx or 5xx (401 or 404 both fit)', requirements: ['AUTH-UNKNOWN-PATH', 'PROB-NO-5XX-FOR-CLIENT-FAULT', 'SCH-NO-BATCHES-PATH'] },
];

export function start(v: Verdicts, ctx: JudgeContext): Reducer {
  const expired = ctx.fixtures.expiredToken;
  return { see: (o) => see(o, v, ctx, expired) };
}

function see(o: Observed, v: Verdicts, ctx: JudgeContext, expired: string | undefined): void {
  if (o.pacing) return;
  if (o.unknownApiPath) {
    const batches = /\/sms\/batches(\/|$)/.test(new URL(o.ex.request.url).pathname);
    if (o.status >= 200 && o.status < 300) v.fail(UNKNOWN, batches ? 'SCH-NO-BATCHES-PATH' : 'AUTH-UNKNOWN-PATH', 'a refusal (401 or 404)', describe(o), [o]);
    else if (o.status >= 500) v.fail(UNKNOWN, 'PROB-NO-5XX-FOR-CLIENT-FAULT', 'a refusal (401 or 404), no server error', describe(o), [o]);
    else v.pass(UNKNOWN);
    return;
  }
  if (!o.op) return;
  const authorization = o.ex.request.headers['authorization'];
  // A minute of leeway: the recorder's clock and the server's may differ a little.
  const now = (o.ex.startedAt ?? Date.now()) / 1000;
  const lapsed = o.claims?.exp !== undefined && o.claims.exp < now - 60;
  const aud = o.claims?.aud;
  const otherAudience = aud !== undefined && !(Array.isArray(aud) ? aud.includes(ctx.audience) : aud === ctx.audience);
  const expiredToken = (expired !== undefined && authorization !== undefined && authorization.includes(expired)) || lapsed;
  const emptyBearer = o.auth === 'bearer' && authorization!.trim().toLowerCase() === 'bearer';
  // RFC 6750 2.1: the scheme, then one b64token; anything after it makes the credential malformed (a log keeps the parts' count).
  const extraParts = o.auth === 'bearer' && authorization!.trim().split(/\s+/).length > 2;
  if (o.auth === 'bearer' && !expiredToken && !emptyBearer && !otherAudience && !extraParts) return;
  const requirement = o.auth === 'none' ? 'AUTH-401-MISSING' : otherAudience && !expiredToken ? 'AUTH-AUDIENCE' : o.auth === 'bearer' ? 'AUTH-401-INVALID' : 'AUTH-BEARER';
  if (o.status === 401 && codeOf(o) === 'authentication_required') {
    v.pass(MISSING);
    return;
  }
  if (o.status >= 200 && o.status < 300) {
    const why = extraParts && !expiredToken && !otherAudience ? 'a bearer credential with more parts than the token (malformed)' : `a token ${otherAudience && !expiredToken ? `for another audience than ${ctx.audience}` : 'that has expired'}`;
    v.fail(MISSING, o.auth === 'bearer' ? requirement : 'AUTH-ALL-OPERATIONS', o.auth === 'bearer' ? `401 authentication_required for ${why}` : '401 authentication_required, never a 2xx without a token', describe(o), [o]);
    return;
  }
  // A refusal for the request's own faults before authentication is the reading the document leaves open: a warning.
  if (o.status === 400 && codeOf(o) === 'validation_failed' && requestDefects(o, ctx).length > 0) {
    v.fail(MISSING, 'AUTH-401-BEFORE-VALIDATION', '401 authentication_required (authentication before input validation)', describe(o), [o]);
    return;
  }
  const first = o.status === 404 || (o.status === 403 && o.auth === 'bearer');
  v.fail(MISSING, first ? 'AUTH-401-FIRST' : requirement, '401 authentication_required', describe(o), [o]);
}
