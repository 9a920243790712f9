// A judged exchange as report evidence (core Exchange): redacted with every secret of the traffic,
// bodies cut to a sane length, and a curl line whose credentials are placeholders.
import type { Exchange } from '../core/model.ts';
import { REDACTED, redactBody, redactHeaders, redactText, type SecretSet } from '../harness/redact.ts';
import type { TrafficExchange } from './model.ts';

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function toEvidence(ex: TrafficExchange, secrets: SecretSet): Exchange {
  const url = redactText(ex.request.url, secrets);
  const parts = ['curl', '-sS', '-i', '-X', ex.request.method, shellQuote(url)];
  for (const [name, value] of Object.entries(ex.request.headers)) {
    if (name === 'authorization') {
      if (/^\s*Bearer\s/i.test(value)) parts.push('-H', '"Authorization: Bearer $TOKEN"');
      else if (/^\s*Basic\s/i.test(value)) parts.push('-H', '"Authorization: Basic $BASIC_CREDENTIALS"');
      else parts.push('-H', shellQuote(`Authorization: ${REDACTED}`));
    } else if (!['host', 'content-length', 'connection', 'cookie', 'proxy-authorization'].includes(name)) {
      parts.push('-H', shellQuote(`${name}: ${redactText(value, secrets)}`));
    }
  }
  if (ex.request.body !== undefined) parts.push('--data-raw', shellQuote(redactBody(ex.request.body, secrets, 16 * 1024) ?? ''));
  return {
    request: {
      method: ex.request.method,
      url,
      headers: redactHeaders(ex.request.headers, secrets),
      ...(ex.request.body !== undefined ? { body: redactBody(ex.request.body, secrets) } : {}),
    },
    response: {
      status: ex.response.status,
      headers: redactHeaders(ex.response.headers, secrets),
      ...(ex.response.body !== undefined ? { body: redactBody(ex.response.body, secrets) } : {}),
    },
    durationMs: 0,
    curl: parts.join(' '),
  };
}
