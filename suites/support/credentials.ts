// What an authorization check sends besides the ids: a token made invalid by one character, and a
// submission body that only the authorization can make wrong. Shared by auth-ordering and the
// authorization matrix (concealment).
import type { CheckContext } from './check.ts';

/** One character of the signature changed (in its middle, where every bit counts). */
export function tamper(token: string): { token: string; how: string } {
  const parts = token.split('.');
  const flip = (s: string) => {
    const i = Math.floor(s.length / 2);
    const c = s[i] === 'A' ? 'B' : 'A';
    return s.slice(0, i) + c + s.slice(i + 1);
  };
  if (parts.length === 3 && parts[2]!.length > 2) {
    return { token: `${parts[0]}.${parts[1]}.${flip(parts[2]!)}`, how: 'one character of the JWT signature changed' };
  }
  return { token: flip(token), how: 'one character of the opaque token changed' };
}

/** A JSON object of a base64url segment, or undefined. */
function segmentJson(segment: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const segmentOf = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/**
 * Tokens the host never issued, derived from a valid one in every way a token can be forged. A
 * JWT (three segments whose first two are JSON): the header switched to alg none (with no
 * signature, and with the original kept), the signature stripped, the payload altered under the
 * original signature (expiry pushed a day on), one signature character changed. Any token,
 * opaque ones too: one character changed, the last one cut, one appended.
 */
export function forgeries(token: string): Array<{ token: string; how: string }> {
  const parts = token.split('.');
  const header = parts.length === 3 ? segmentJson(parts[0]!) : undefined;
  const payload = parts.length === 3 ? segmentJson(parts[1]!) : undefined;
  const out: Array<{ token: string; how: string }> = [];
  if (header && payload) {
    const [h, p, sig] = parts as [string, string, string];
    const { kid: _kid, ...rest } = header;
    const none = segmentOf({ ...rest, alg: 'none' });
    out.push({ token: `${none}.${p}.`, how: 'the JWT header switched to alg none, no signature' });
    out.push({ token: `${none}.${p}.${sig}`, how: 'the JWT header switched to alg none, the signature kept' });
    out.push({ token: `${h}.${p}.`, how: 'the JWT signature stripped' });
    const exp = typeof payload.exp === 'number' ? payload.exp + 86_400 : Math.floor(Date.now() / 1000) + 86_400;
    out.push({ token: `${h}.${segmentOf({ ...payload, exp })}.${sig}`, how: 'the JWT payload altered (expiry a day later) under the original signature' });
  }
  out.push(tamper(token));
  out.push({ token: token.slice(0, -1), how: 'the last character of the token cut' });
  out.push({ token: `${token}${token.endsWith('A') ? 'B' : 'A'}`, how: 'one character appended to the token' });
  return out;
}

/** How many tokens `forgeries` derives at most. */
export const MAX_FORGERIES = 7;

/**
 * Authorization values that carry a valid token but are no `Bearer <token>` credentials (RFC 9110
 * 11.4 and RFC 6750 2.1: the scheme, one or more spaces, one token68, nothing else), derived from
 * that grammar part by part: another part after the token or before it, whitespace other than a
 * space splitting off another part, a second credential after a comma or before the Bearer one,
 * the scheme written twice. A host that reads the token more loosely than the grammar (the second
 * space-separated part, the last one, the text after "Bearer" anywhere) authenticates one of them.
 * Every value contains the token whole, so its redaction covers them.
 */
export function malformedAuthorizations(token: string): Array<{ authorization: string; how: string }> {
  return [
    { authorization: `Bearer ${token} conformance`, how: 'another part after the token' },
    { authorization: `Bearer conformance ${token}`, how: 'another part before the token' },
    { authorization: `Bearer ${token}\tconformance`, how: 'a tab and another part after the token' },
    { authorization: `Bearer ${token}, Basic Y29uZm9ybWFuY2U=`, how: 'a second credential (Basic) after a comma' },
    { authorization: `Basic Y29uZm9ybWFuY2U=, Bearer ${token}`, how: 'the Bearer credential after another scheme\'s' },
    { authorization: `Bearer Bearer ${token}`, how: 'the scheme written twice' },
  ];
}

/** How many values `malformedAuthorizations` derives. */
export const MALFORMED_AUTHORIZATIONS = 6;

/** A valid-looking submission body: the run's sender and first allowed number when there are some. */
export function submissionBody(t: CheckContext): unknown {
  const { senderId, recipients } = t.config.fixtures;
  const to = recipients?.[0];
  if (!to) return {};
  return { from: senderId ?? 'Conformance', classification: 'transactional', message: 'conformance auth check', recipients: [{ to }] };
}

