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

/** A valid-looking submission body: the run's sender and first allowed number when there are some. */
export function submissionBody(t: CheckContext): unknown {
  const { senderId, recipients } = t.config.fixtures;
  const to = recipients?.[0];
  if (!to) return {};
  return { from: senderId ?? 'Conformance', classification: 'transactional', message: 'conformance auth check', recipients: [{ to }] };
}

